/**
 * The plugin's options (`FluidPlugin.create`, `addMeshCollider`, `addRigidBody`, `addEmitter`) and their
 * checks; the ranges come from the option schema (core/schema.ts, `PLUGIN_OPTIONS`).
 */

import type { Camera } from '@babylonjs/core/Cameras/camera.js';
import type { AbstractEngine } from '@babylonjs/core/Engines/abstractEngine.js';
import type { AbstractMesh } from '@babylonjs/core/Meshes/abstractMesh.js';
import type { TransformNode } from '@babylonjs/core/Meshes/transformNode.js';
import { RenderingManager } from '@babylonjs/core/Rendering/renderingManager.js';
import type { FluidBackend } from '../components/settings';
import { checkColor3, optionNames, type Vector3Input } from '../core/checks';
import { FluidError } from '../core/errors';
import { allows, BACKEND_CHOICES, checkChoice, type OptionRule, PLUGIN_OPTIONS, rangeText } from '../core/schema';
import { type EmitterOptions, type FluidSimulationOptions, SIMULATION_OPTION_NAMES } from '../systems/options';
import type { FluidColorBy } from './colorMaps';
import type { FluidWhiteWaterLook } from './diffuseView';
import type { MeshFieldOptions } from './meshCollider';
import type { FluidLookOptions, FluidRenderMode } from './renderers';
import { resolveLookAnisotropy } from './screenSpaceFluidView';
import type { FluidSurfaceOptions } from './surfaceRenderer';

/**
 * Options of {@link FluidPlugin.create}: the simulation's options (its `engine` is the scene's) plus the
 * plugin's own.
 */
export interface FluidPluginOptions extends Omit<FluidSimulationOptions, 'engine' | 'backend'> {
  /**
   * Where the simulation runs. `'auto'` (default): the WebGPU backend when the scene's engine is a
   * `WebGPUEngine` with compute shaders, else the CPU backend. `'webgpu'` throws {@link FluidError} on any
   * other engine; `'cpu'` always runs on the CPU. {@link FluidPlugin.backend} says which one runs. On the
   * WebGPU backend the particle components reach game code through readbacks (see `mirror`, default
   * `'every-frame'`, and {@link FluidPlugin.readback}); edits to them need {@link FluidPlugin.markParticlesChanged}.
   */
  backend?: FluidBackend | 'auto';
  /**
   * The plugin's name ({@link FluidPlugin.name}), as Babylon objects have one: for inspectors, logs and finding
   * the plugin among several. Any string. Default `'fluid'`.
   */
  name?: string;
  /**
   * Gravity in m/s^2: `[x, y, z]` or a Babylon `Vector3`, each component in [-1000, 1000]. Given, it is the
   * simulation's gravity (`simulation.settings.gravity`) and the plugin leaves it alone. Left out
   * (default): when the scene has a physics engine (`scene.enablePhysics(gravity, plugin)`, Physics V1 or
   * V2), the fluid takes the physics engine's gravity and follows it: before each frame's steps the plugin
   * copies `scene.getPhysicsEngine().gravity` into `simulation.settings.gravity` (three numbers, no
   * allocation), so `physicsEngine.setGravity(...)` turns the water with the bodies; without a physics
   * engine, `[0, -9.81, 0]`. {@link FluidPlugin.gravityFollowsPhysics} says which, and may be changed.
   */
  gravity?: Vector3Input;
  /**
   * True (default): each frame advances the simulation by the frame's duration (`engine.getDeltaTime()`,
   * times `timeScale`) in whole fixed steps of `timeStep`, carrying the remainder to the next frame (a
   * non-finite or negative frame duration counts as 0). An engine that reports no frame time (0) on two
   * renders in a row has no frame clock (a game calling `scene.render()` in its own loop, a `NullEngine` on a
   * server or in a test; every engine reports 0 on the first frame of a loop): from the second such render
   * on, each `scene.render()` advances one fixed `timeStep` (times `timeScale`), as with false, and the plugin
   * warns once (`console.warn` and {@link FluidPlugin.onWarningObservable}) naming this option; it goes back to
   * the frame's duration as soon as the engine reports one. False: each `scene.render()` advances exactly
   * one `timeStep` (times `timeScale` on average), for deterministic replays, lockstep with Havok and tests.
   */
  useDeltaTime?: boolean;
  /**
   * Most steps one frame may take (integer in [1, 1000], default 3). Time beyond it is dropped (counted in
   * {@link FluidPlugin.droppedTime} and announced by {@link FluidPlugin.onTimeDroppedObservable}), so a
   * slow frame (a tab switch, a breakpoint: a 1 s frame) neither makes the next one slower nor makes the
   * fluid take one long step: it takes its usual steps and the rest of the frame's time is skipped.
   */
  maxStepsPerFrame?: number;
  /** Simulated seconds per real second (>= 0, default 1; 0.5 is slow motion). */
  timeScale?: number;
  /** Starts paused (default false). */
  paused?: boolean;
  /**
   * How to draw the fluid. Default `'fluid'` (screen-space water) on engines that support Babylon's
   * `FluidRenderer` (WebGPU, WebGL2), `'none'` elsewhere (NullEngine).
   */
  renderMode?: FluidRenderMode;
  /**
   * What the debug views (and the water's tint when not `'material'`) are colored by. Default `'material'`;
   * `'color'` draws each particle's `Color` component (dyes that mix with a material's `colorDiffusivity`).
   * The water is tinted per particle when `colorBy` is not `'material'` or the particles are of several
   * materials, else by `look.color` or the material's color. The same on both backends: on the WebGPU
   * backend a small compute pass writes the colors after the frame's steps into a buffer the views draw
   * from beside the positions (nothing is read back); material colors, speeds, densities and `Color`
   * edits (with {@link FluidPlugin.markParticlesChanged}) show from the next step on.
   */
  colorBy?: FluidColorBy;
  /** Camera the screen-space fluid is rendered for. Default: the scene's active camera when first drawn. */
  camera?: Camera;
  /** Looks of the screen-space water (color, absorption, refraction, particle size). */
  look?: FluidLookOptions;
  /**
   * Extraction settings and looks of the `'surface'` (isosurface mesh) and `'splats'` (surface-particle
   * discs) render modes. Both are extracted on the CPU from the particle components (on the WebGPU
   * backend: the mirrored ones).
   */
  surface?: FluidSurfaceOptions;
  /**
   * The `'surface'` and `'splats'` views are extracted again every this many frames (integer in [1, 1000],
   * default 1: every frame); in between they show the last extraction.
   */
  surfaceUpdateInterval?: number;
  /**
   * Babylon rendering group (`mesh.renderingGroupId`) of every mesh the views make: the points, spheres,
   * surface and splat meshes. An integer in [0, `RenderingManager.MAX_RENDERINGGROUPS` - 1] ([0, 3] with
   * Babylon's default of 4 groups). Default 0. Changeable later through {@link FluidPlugin.renderingGroupId}.
   * The screen-space water (`renderMode: 'fluid'`) cannot honour it: Babylon's `FluidRenderer` draws it after
   * the camera has drawn every group (in the camera's after-draw stage), depth-tested against the scene.
   */
  renderingGroupId?: number;
  /**
   * Babylon layer mask (`mesh.layerMask`) of every mesh the views make (points, spheres, surface, splats): a
   * camera draws them when `camera.layerMask & layerMask` is not 0. An integer in [0, 0xFFFFFFFF]. Default
   * 0x0FFFFFFF (Babylon's mesh default). Changeable later through {@link FluidPlugin.layerMask}. The
   * screen-space water (`renderMode: 'fluid'`) has no mesh; it is drawn for one camera (`camera`, else the
   * scene's active camera), and draws no particle while that camera's `layerMask & layerMask` is 0.
   */
  layerMask?: number;
  /**
   * The look of white water (the simulation's `diffuse` option; see {@link FluidWhiteWaterLook}): soft
   * camera-facing discs for spray, foam and bubbles, drawn in every render mode but `'none'`. Live in
   * {@link FluidPlugin.whiteWater}.
   */
  whiteWater?: FluidWhiteWaterLook;
}

/** The names of {@link FluidPluginOptions}: the plugin's own and the simulation's (checked by `FluidPlugin.create`). */
export const PLUGIN_OPTION_NAMES: readonly string[] = [
  ...optionNames<Omit<FluidPluginOptions, Exclude<keyof FluidSimulationOptions, 'backend' | 'gravity'>>>()(
    'backend',
    'name',
    'gravity',
    'useDeltaTime',
    'maxStepsPerFrame',
    'timeScale',
    'paused',
    'renderMode',
    'colorBy',
    'camera',
    'look',
    'surface',
    'surfaceUpdateInterval',
    'renderingGroupId',
    'layerMask',
    'whiteWater',
  ),
  ...SIMULATION_OPTION_NAMES.filter((name) => name !== 'engine' && name !== 'backend' && name !== 'gravity'),
];

/** Options of {@link FluidPlugin.addMeshCollider}. */
export interface PluginMeshColliderOptions extends MeshFieldOptions {
  /** True keeps the fluid inside the closed mesh; false (default) keeps it outside (a solid). */
  container?: boolean;
  /** Coulomb friction coefficient, [0, 100]. Default 0. */
  friction?: number;
  /** Restitution of the normal velocity, [0, 1]. Default 0. */
  restitution?: number;
  /** Wall weights near the mesh's walls (Harada et al. 2007). Default true. */
  wallWeights?: boolean;
}

/** Options of {@link FluidPlugin.addRigidBody}. */
export interface PluginRigidBodyOptions extends Omit<PluginMeshColliderOptions, 'container'> {
  /**
   * The mesh whose triangles are baked into the body's signed distance field and whose world pose the
   * collider follows; it must move with the body (the body's node or one of its children). Default: the
   * body's transform node, which must then be a mesh.
   */
  mesh?: AbstractMesh;
  /**
   * For a body added overlapping the water (some particle centers inside it): seconds over which its
   * collider grows from a tenth of its size to full size, so it pushes the water aside at a finite speed
   * rather than all at once (which would squeeze the displaced water against the body and throw the
   * body out). A body added clear of the water is full size at once. Range [0, 10]; 0 gives the full
   * size at once. Default 0.25.
   */
  insertionTime?: number;
}

/** Options of {@link FluidPlugin.addEmitter}: the simulation's emitter options, optionally following a node. */
export interface PluginEmitterOptions extends Omit<EmitterOptions, 'position'> {
  /** Nozzle center, world space (m): `[x, y, z]` or a `Vector3`. Required without `node`; with `node` it is ignored. */
  position?: Vector3Input;
  /**
   * A node the nozzle follows every frame: the nozzle sits at `localPosition` in the node's space and
   * points along `localDirection` turned by the node's world rotation.
   */
  node?: TransformNode;
  /** Nozzle center in the node's local space: `[x, y, z]` or a `Vector3`. Default `[0, 0, 0]`. */
  localPosition?: Vector3Input;
  /** Direction in the node's local space: `[x, y, z]` or a `Vector3`. Default `[0, -1, 0]` (the node's local -Y). */
  localDirection?: Vector3Input;
}

/** Checks the plugin option `name` against its rule in `PLUGIN_OPTIONS` (core/schema.ts) and returns it. */
export function checkPluginOption(name: keyof typeof PLUGIN_OPTIONS, value: number): number {
  const rule: OptionRule = PLUGIN_OPTIONS[name];
  if (!allows(rule, value)) {
    const kind = rule.integer ? 'an integer' : 'a number';
    throw new FluidError(`${name} is ${String(value)}; it must be ${kind} in ${rangeText(rule)}`);
  }
  return value;
}

/**
 * Checks a `renderingGroupId`: an integer in [0, `RenderingManager.MAX_RENDERINGGROUPS` - 1] (at least the
 * schema's [0, 3]); anything else throws {@link FluidError} naming the value and the range.
 */
export function checkRenderingGroupId(value: number): number {
  const rule = PLUGIN_OPTIONS.renderingGroupId;
  const max = Math.max(rule.max, RenderingManager.MAX_RENDERINGGROUPS - 1);
  if (!(typeof value === 'number' && Number.isInteger(value) && value >= rule.min && value <= max)) {
    throw new FluidError(
      `renderingGroupId is ${String(value)}; it must be an integer in [${rule.min}, ${max}] (Babylon's RenderingManager.MAX_RENDERINGGROUPS is ${RenderingManager.MAX_RENDERINGGROUPS})`,
    );
  }
  return value;
}

/**
 * Checks the view options that need no simulation, before the plugin makes one: `look` (an object; its
 * `color`), `renderingGroupId` and `layerMask`. Throws {@link FluidError} naming a bad value; returns the
 * rendering group and layer mask with their defaults.
 */
export function checkViewOptions(options: Pick<FluidPluginOptions, 'look' | 'renderingGroupId' | 'layerMask'>): {
  renderingGroupId: number;
  layerMask: number;
} {
  const look: unknown = options.look;
  if (look !== undefined && (typeof look !== 'object' || look === null)) {
    throw new FluidError(`look is ${String(look)}; it must be an object`);
  }
  if (options.look?.color !== undefined) checkColor3('look.color', options.look.color);
  if (options.look !== undefined) resolveLookAnisotropy(options.look);
  return {
    renderingGroupId: checkRenderingGroupId(options.renderingGroupId ?? PLUGIN_OPTIONS.renderingGroupId.default),
    layerMask: checkPluginOption('layerMask', options.layerMask ?? PLUGIN_OPTIONS.layerMask.default),
  };
}

/** Checks the plugin's `name`: a string; anything else throws {@link FluidError}. */
export function checkName(value: unknown): string {
  if (typeof value !== 'string') throw new FluidError(`name is ${String(value)}; it must be a string`);
  return value;
}

/** The render modes `renderMode` accepts. */
export const RENDER_MODES: readonly FluidRenderMode[] = ['fluid', 'surface', 'splats', 'points', 'spheres', 'none'];

/** True when `engine` can run the WebGPU backend: a WebGPU engine with compute shaders. */
function runsCompute(engine: AbstractEngine): boolean {
  return engine.isWebGPU && engine.getCaps().supportComputeShaders === true;
}

/** Checks the requested backend against the scene's engine, naming the engine when it cannot run it. */
export function checkBackend(backend: FluidBackend | 'auto', engine: AbstractEngine): FluidBackend | 'auto' {
  checkChoice('backend', BACKEND_CHOICES, backend);
  if (backend === 'webgpu' && !runsCompute(engine)) {
    const kind = engine.isWebGPU ? 'a WebGPUEngine without compute shaders' : `a ${engine.constructor.name}`;
    throw new FluidError(
      `backend is 'webgpu' but the scene's engine is ${kind}; the WebGPU backend needs a WebGPUEngine with compute shaders (use backend 'auto' or 'cpu')`,
    );
  }
  return backend;
}

/** The values `colorBy` accepts. */
export const COLOR_BYS: readonly FluidColorBy[] = ['material', 'speed', 'density', 'color'];

/** Checks a `renderMode` value: an unknown mode throws {@link FluidError}. */
export function checkRenderMode(mode: FluidRenderMode): FluidRenderMode {
  if (!RENDER_MODES.includes(mode)) {
    throw new FluidError(`renderMode is '${String(mode)}'; allowed values are ${RENDER_MODES.join(', ')}`);
  }
  return mode;
}

/** Checks a `colorBy` value: an unknown value throws {@link FluidError}. */
export function checkColorBy(colorBy: FluidColorBy): FluidColorBy {
  if (!COLOR_BYS.includes(colorBy)) {
    throw new FluidError(`colorBy is '${String(colorBy)}'; allowed values are ${COLOR_BYS.join(', ')}`);
  }
  return colorBy;
}
