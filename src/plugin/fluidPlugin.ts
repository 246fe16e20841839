/**
 * `FluidPlugin`: the Babylon adapter of a {@link FluidSimulation}. It picks the backend from the scene's
 * engine, steps the simulation from the scene's render loop (fixed time step, accumulator, pause, time
 * scale), keeps mesh colliders and emitters on their nodes' world matrices, forwards the simulation's events
 * as Babylon observables and feeds the renderers. It holds no numerics: every physical quantity comes from
 * `src/systems`.
 */
import type { Camera } from '@babylonjs/core/Cameras/camera.js';
import type { AbstractEngine } from '@babylonjs/core/Engines/abstractEngine.js';
import { Quaternion, Vector3 } from '@babylonjs/core/Maths/math.vector.js';
import type { AbstractMesh } from '@babylonjs/core/Meshes/abstractMesh.js';
import type { TransformNode } from '@babylonjs/core/Meshes/transformNode.js';
import { Logger } from '@babylonjs/core/Misc/logger.js';
import { Observable, type Observer } from '@babylonjs/core/Misc/observable.js';
import type { Node } from '@babylonjs/core/node.js';
import type { IFluidRenderingRenderObject } from '@babylonjs/core/Rendering/fluidRenderer/fluidRenderer.js';
import type { Scene } from '@babylonjs/core/scene.js';
import type { FluidBackend } from '../components/settings';
import { FluidError } from '../systems/errors';
import {
  type BackendChange,
  type DrainOptions,
  type EmitterOptions,
  FluidSimulation,
  type FluidSimulationOptions,
  type SpawnOptions,
} from '../systems/simulation';
import type { Vector3Tuple } from '../systems/validate';
import { bakeMeshField, createWorldPose, type MeshFieldOptions, readWorldPose, type WorldPose } from './meshCollider';
import {
  type ColorMapRanges,
  createParticleBuffers,
  type FluidColorBy,
  feedParticles,
  type ParticleBuffers,
  recordStep,
} from './particleFeed';
import { type FluidLookOptions, type FluidRenderMode, FluidViews, supportsFluidRenderer } from './renderers';

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
   * True (default): each frame advances the simulation by the frame's duration (`engine.getDeltaTime()`,
   * times `timeScale`) in whole fixed steps of `timeStep`, carrying the remainder to the next frame.
   * False: each `scene.render()` advances exactly one `timeStep` (times `timeScale` on average), for
   * deterministic replays, lockstep with Havok and tests.
   */
  useDeltaTime?: boolean;
  /**
   * Most steps one frame may take (integer >= 1, default 3). Time beyond it is dropped (counted in
   * {@link FluidPlugin.droppedTime}), so a slow frame cannot make the next one slower.
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
   * What the debug views (and the water's tint when not `'material'`) are coloured by. Default `'material'`.
   * On the WebGPU backend the views draw from the GPU's positions with one colour (the first particle's
   * material colour; the water uses `look.color` or that colour): `colorBy` applies on the CPU backend only.
   */
  colorBy?: FluidColorBy;
  /** Camera the screen-space fluid is rendered for. Default: the scene's active camera when first drawn. */
  camera?: Camera;
  /** Looks of the screen-space water (colour, absorption, refraction, particle size). */
  look?: FluidLookOptions;
}

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

/** Options of {@link FluidPlugin.addEmitter}: the simulation's emitter options, optionally following a node. */
export interface PluginEmitterOptions extends Omit<EmitterOptions, 'position'> {
  /** Nozzle centre, world space (m). Required without `node`; with `node` it is ignored. */
  position?: Vector3Tuple;
  /**
   * A node the nozzle follows every frame: the nozzle sits at `localPosition` in the node's space and
   * points along `localDirection` turned by the node's world rotation.
   */
  node?: TransformNode;
  /** Nozzle centre in the node's local space. Default `[0, 0, 0]`. */
  localPosition?: Vector3Tuple;
  /** Direction in the node's local space. Default `[0, -1, 0]` (the node's local -Y). */
  localDirection?: Vector3Tuple;
}

/** A mesh collider kept on its mesh's world pose. */
interface ColliderFollower {
  readonly collider: number;
  readonly mesh: AbstractMesh;
  readonly previous: WorldPose;
  readonly current: WorldPose;
  readonly disposeObserver: Observer<Node> | null;
}

/** An emitter kept on its node. */
interface EmitterFollower {
  readonly emitter: number;
  readonly node: TransformNode;
  readonly localPosition: Vector3;
  readonly localDirection: Vector3;
  readonly previousPosition: Vector3;
  readonly currentPosition: Vector3;
  readonly previousDirection: Vector3;
  readonly currentDirection: Vector3;
}

const scratchRotationA = new Quaternion();
const scratchRotationB = new Quaternion();
const scratchVector = new Vector3();
const scratchPosition: [number, number, number] = [0, 0, 0];
const scratchDirection: [number, number, number] = [0, 0, 0];
const scratchPose = createWorldPose();

function checkPositiveInteger(name: string, value: number): number {
  if (!Number.isInteger(value) || value < 1 || value > 1000) {
    throw new FluidError(`${name} is ${String(value)}; it must be an integer in [1, 1000]`);
  }
  return value;
}

function checkTimeScale(value: number): number {
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0 || value > 100) {
    throw new FluidError(`timeScale is ${String(value)}; it must be a number in [0, 100]`);
  }
  return value;
}

const RENDER_MODES: readonly FluidRenderMode[] = ['fluid', 'points', 'spheres', 'none'];
const BACKENDS: readonly (FluidBackend | 'auto')[] = ['auto', 'cpu', 'webgpu'];

/** True when `engine` can run the WebGPU backend: a WebGPU engine with compute shaders. */
function runsCompute(engine: AbstractEngine): boolean {
  return engine.isWebGPU && engine.getCaps().supportComputeShaders === true;
}

/** Checks the requested backend against the scene's engine, naming the engine when it cannot run it. */
function checkBackend(backend: FluidBackend | 'auto', engine: AbstractEngine): FluidBackend | 'auto' {
  if (!BACKENDS.includes(backend)) {
    throw new FluidError(`backend is '${String(backend)}'; allowed values are ${BACKENDS.join(', ')}`);
  }
  if (backend === 'webgpu' && !runsCompute(engine)) {
    const kind = engine.isWebGPU ? 'a WebGPUEngine without compute shaders' : `a ${engine.constructor.name}`;
    throw new FluidError(
      `backend is 'webgpu' but the scene's engine is ${kind}; the WebGPU backend needs a WebGPUEngine with compute shaders (use backend 'auto' or 'cpu')`,
    );
  }
  return backend;
}
const COLOR_BYS: readonly FluidColorBy[] = ['material', 'speed', 'density'];

/**
 * Liquid in a Babylon scene: a {@link FluidSimulation} stepped from the scene's render loop, rendered as
 * water, with Babylon meshes as colliders and nodes carrying emitters.
 *
 * ```ts
 * const fluid = await FluidPlugin.create(scene, { particleRadius: 0.025 });
 * const water = fluid.simulation.addMaterial({});
 * await fluid.addMeshCollider(glassMesh);
 * fluid.addEmitter({ material: water, node: nozzle, litresPerSecond: 0.3 });
 * ```
 *
 * On a `WebGPUEngine` the simulation runs on the GPU (backend `'auto'`) and the views draw straight from
 * its position buffer; nothing the plugin does per frame throws into the render loop: errors go to
 * {@link FluidPlugin.onErrorObservable}, and a lost device falls back to the CPU (reported by
 * {@link FluidPlugin.onBackendChangedObservable}).
 */
export class FluidPlugin {
  /** The scene this plugin steps and draws in. */
  readonly scene: Scene;
  /** The simulation: materials, colliders, emitters, particles and their components. */
  readonly simulation: FluidSimulation;
  /** Notified after each simulation step, with this plugin. */
  readonly onAfterStepObservable = new Observable<FluidPlugin>();
  /**
   * Notified after a step that emitted particles, with their entity ids (a view valid until the next
   * step; copy it to keep it).
   */
  readonly onParticlesEmittedObservable = new Observable<Uint32Array>();
  /**
   * Notified after a step that removed particles (drains, lifetimes), with their former entity ids (a view).
   * On the WebGPU backend removals are found on the GPU and reach the CPU with a readback, a frame or two
   * later; see the simulation's `lastRemoved()`.
   */
  readonly onParticlesRemovedObservable = new Observable<Uint32Array>();
  /**
   * Notified when the backend changes while running: a lost WebGPU device makes the simulation continue on
   * the CPU from the last mirrored components (`reason: 'device-lost'`), and a device Babylon restores takes
   * over again (`'device-restored'`). The views follow by themselves.
   */
  readonly onBackendChangedObservable = new Observable<BackendChange>();
  /**
   * Notified with any error of a frame's work (a step, a followed mesh's bad scaling, the views), which is
   * caught here so that nothing throws into the render loop; the frame's remaining steps are skipped. With
   * no observer, each new message is logged once (Babylon's `Logger.Error`).
   */
  readonly onErrorObservable = new Observable<Error>();
  /** See {@link FluidPluginOptions.useDeltaTime}; may be changed at any time. */
  useDeltaTime: boolean;
  /** True stops stepping (rendering goes on). */
  paused: boolean;
  /** Ranges of the speed and density colour maps of the debug views. */
  readonly colorRanges: ColorMapRanges = { speed: 3, density: 0.2 };
  /** Simulated seconds dropped so far because a frame needed more than `maxStepsPerFrame` steps. */
  droppedTime = 0;
  /** Steps taken in the last frame. */
  stepsLastFrame = 0;

  private maximumSteps: number;
  private scale: number;
  private mode: FluidRenderMode;
  private coloring: FluidColorBy;
  private accumulator = 0;
  private disposed = false;
  private readonly buffers: ParticleBuffers;
  private readonly views: FluidViews;
  private readonly colliders = new Map<number, ColliderFollower>();
  private readonly emitters = new Map<number, EmitterFollower>();
  private readonly beforeRenderObserver: Observer<Scene>;
  private readonly sceneDisposeObserver: Observer<Scene>;
  private readonly backendListener: (change: BackendChange) => void;
  private readonly contextObservers: Observer<AbstractEngine>[];
  /** True between the engine's context (device) loss and its restoration: nothing is drawn then. */
  private contextLost = false;
  private lastLoggedError = '';

  private constructor(scene: Scene, options: FluidPluginOptions) {
    const {
      useDeltaTime,
      maxStepsPerFrame,
      timeScale,
      paused,
      renderMode,
      colorBy,
      camera,
      look,
      backend,
      ...simulationOptions
    } = options;
    this.scene = scene;
    const engine = scene.getEngine();
    // The plugin's own options first: the simulation may hold GPU objects as soon as it exists.
    this.useDeltaTime = useDeltaTime ?? true;
    this.maximumSteps = checkPositiveInteger('maxStepsPerFrame', maxStepsPerFrame ?? 3);
    this.scale = checkTimeScale(timeScale ?? 1);
    this.paused = paused ?? false;
    this.mode = FluidPlugin.checkRenderMode(renderMode ?? FluidPlugin.defaultRenderMode(scene));
    this.coloring = FluidPlugin.checkColorBy(colorBy ?? 'material');
    this.simulation = new FluidSimulation({
      ...simulationOptions,
      backend: checkBackend(backend ?? 'auto', engine),
      engine,
    });
    this.buffers = createParticleBuffers(this.simulation.settings.capacity);
    const simulation = this.simulation;
    const components = simulation.components;
    this.views = new FluidViews(scene, this.buffers, 2 * simulation.settings.particleRadius, camera, look ?? {}, () => {
      const material = this.firstParticleMaterial();
      return [
        components.FluidMaterial.colorRed[material] || 0.2,
        components.FluidMaterial.colorGreen[material] || 0.45,
        components.FluidMaterial.colorBlue[material] || 0.9,
      ];
    });
    this.backendListener = (change) => this.onBackendChangedObservable.notifyObservers(change);
    simulation.onBackendChanged.add(this.backendListener);
    this.contextObservers = [
      engine.onContextLostObservable.add(() => {
        this.contextLost = true;
      }),
      engine.onContextRestoredObservable.add(() => {
        this.contextLost = false;
      }),
    ];
    this.beforeRenderObserver = scene.onBeforeRenderObservable.add(() => this.frame());
    this.sceneDisposeObserver = scene.onDisposeObservable.add(() => this.dispose());
  }

  /**
   * Creates the plugin and its simulation in `scene`; stepping starts with the next `scene.render()` (on
   * the WebGPU backend, with the first frame after its shaders compiled: see {@link FluidPlugin.ready}).
   * Throws {@link FluidError} for invalid options, and for `backend: 'webgpu'` on an engine that cannot run
   * it (the message names the engine).
   */
  static async create(scene: Scene, options: FluidPluginOptions = {}): Promise<FluidPlugin> {
    return new FluidPlugin(scene, options);
  }

  /** The render mode a scene gets by default: `'fluid'` where Babylon's FluidRenderer runs, else `'none'`. */
  static defaultRenderMode(scene: Scene): FluidRenderMode {
    return supportsFluidRenderer(scene.getEngine()) ? 'fluid' : 'none';
  }

  private static checkRenderMode(mode: FluidRenderMode): FluidRenderMode {
    if (!RENDER_MODES.includes(mode)) {
      throw new FluidError(`renderMode is '${String(mode)}'; allowed values are ${RENDER_MODES.join(', ')}`);
    }
    return mode;
  }

  private static checkColorBy(colorBy: FluidColorBy): FluidColorBy {
    if (!COLOR_BYS.includes(colorBy)) {
      throw new FluidError(`colorBy is '${String(colorBy)}'; allowed values are ${COLOR_BYS.join(', ')}`);
    }
    return colorBy;
  }

  /** The backend running the steps now: `'webgpu'` or `'cpu'` (also after a lost device fell back). */
  get backend(): FluidBackend {
    return this.simulation.backend;
  }

  /**
   * True once the simulation can step (the WebGPU backend's shaders compiled; at once on the CPU). Until
   * then frames draw without stepping.
   */
  get isReady(): boolean {
    return this.simulation.isReady;
  }

  /** Resolves when the simulation can step (see {@link FluidPlugin.isReady}). */
  async ready(): Promise<void> {
    await this.simulation.ready();
  }

  /**
   * WebGPU backend: reads the particles back from the GPU now and writes them to the components
   * (`Position`, `Velocity`, `Density`, `Particle.age`); resolves when they are there. Needed before reading
   * components when `mirror` is `'on-demand'` or `'off'`; with `'every-frame'` they are at most a frame or
   * two behind anyway. Resolves at once on the CPU backend. Rejects if the device is lost meanwhile.
   */
  async readback(): Promise<void> {
    await this.simulation.readback();
  }

  /**
   * Tells the simulation that game code changed these particles' `Position`, `Velocity` or
   * `Particle.material` components: on the WebGPU backend the next step uploads them (without this call
   * the GPU keeps its own values and the next readback overwrites the edit). Harmless on the CPU backend.
   * Throws {@link FluidError} for an id that is not a live particle.
   */
  markParticlesChanged(ids: number | ArrayLike<number>): void {
    this.simulation.markParticlesChanged(ids);
  }

  /** How the fluid is drawn; switchable at run time. */
  get renderMode(): FluidRenderMode {
    return this.mode;
  }

  set renderMode(mode: FluidRenderMode) {
    this.mode = FluidPlugin.checkRenderMode(mode);
    if (!this.disposed) this.render();
  }

  /**
   * What the particles are coloured by; switchable at run time. CPU backend only: on the WebGPU backend the
   * views draw in one colour (see {@link FluidPluginOptions.colorBy}).
   */
  get colorBy(): FluidColorBy {
    return this.coloring;
  }

  set colorBy(colorBy: FluidColorBy) {
    this.coloring = FluidPlugin.checkColorBy(colorBy);
  }

  /** Most steps per frame (integer >= 1). */
  get maxStepsPerFrame(): number {
    return this.maximumSteps;
  }

  set maxStepsPerFrame(steps: number) {
    this.maximumSteps = checkPositiveInteger('maxStepsPerFrame', steps);
  }

  /** Simulated seconds per real second (>= 0). */
  get timeScale(): number {
    return this.scale;
  }

  set timeScale(scale: number) {
    this.scale = checkTimeScale(scale);
  }

  /** The screen-space fluid render object while `renderMode` is `'fluid'` (for tuning its target renderer). */
  get fluidRenderObject(): IFluidRenderingRenderObject | undefined {
    return this.views.fluidRenderObject;
  }

  /** The debug meshes created so far (points, spheres), e.g. to exclude them from picking or shadows. */
  get debugMeshes(): readonly AbstractMesh[] {
    return this.views.debugMeshes;
  }

  /**
   * The particle buffers the renderers read (positions, colours, ids), as of the last frame. On the WebGPU
   * backend only `count` and `gpuPositions` are written (the positions stay on the GPU).
   */
  get particleBuffers(): Readonly<ParticleBuffers> {
    return this.buffers;
  }

  /**
   * Makes `mesh` a collider: bakes its local triangles into a signed distance field (asynchronously,
   * reporting `onProgress`; cached per geometry and grid size), adds it to the simulation and from then
   * on, before every step, moves the collider to the mesh's world pose (position, rotation and uniform
   * scaling), so animated or player-moved meshes push the fluid. The first pose is taken without
   * sweeping. Disposing the mesh removes the collider.
   *
   * @returns The collider entity id.
   * @throws FluidError (as a rejected promise) if the mesh has no triangles, encloses no volume, or has
   * a non-uniform or mirroring world scaling (found later, by a frame: reported through
   * {@link FluidPlugin.onErrorObservable}).
   */
  async addMeshCollider(mesh: AbstractMesh, options: PluginMeshColliderOptions = {}): Promise<number> {
    const fieldOptions: MeshFieldOptions = {};
    if (options.cellSize !== undefined) fieldOptions.cellSize = options.cellSize;
    if (options.resolution !== undefined) fieldOptions.resolution = options.resolution;
    if (options.onProgress !== undefined) fieldOptions.onProgress = options.onProgress;
    const pose = readWorldPose(mesh, createWorldPose());
    const field = await bakeMeshField(mesh, fieldOptions);
    if (this.disposed) throw new FluidError('addMeshCollider: the plugin was disposed while the mesh was baking');
    const collider = this.simulation.addCollider({
      shape: 'mesh',
      field,
      container: options.container,
      friction: options.friction,
      restitution: options.restitution,
      wallWeights: options.wallWeights,
    });
    readWorldPose(mesh, pose);
    this.simulation.setColliderTransform(collider, {
      position: pose.position,
      rotation: pose.rotation,
      scaling: pose.scaling,
      teleport: true,
    });
    const disposeObserver = mesh.onDisposeObservable.add(() => {
      if (this.colliders.has(collider)) this.removeCollider(collider);
    });
    this.colliders.set(collider, {
      collider,
      mesh,
      previous: pose,
      current: { position: [...pose.position], rotation: [...pose.rotation], scaling: pose.scaling },
      disposeObserver,
    });
    return collider;
  }

  /** Removes a collider (mesh or analytic) and stops following its mesh. */
  removeCollider(collider: number): void {
    const follower = this.colliders.get(collider);
    if (follower !== undefined) {
      follower.mesh.onDisposeObservable.remove(follower.disposeObserver);
      this.colliders.delete(collider);
    }
    this.simulation.removeCollider(collider);
  }

  /**
   * Adds a nozzle emitter (see the simulation's `addEmitter`). With `node`, the nozzle follows the node's
   * world matrix every frame: it sits at `localPosition` and points along `localDirection` (default the
   * node's local -Y). Enable, retune or stop it through `simulation.components.Emitter`.
   *
   * @returns The emitter entity id.
   */
  addEmitter(options: PluginEmitterOptions): number {
    const { node, localPosition, localDirection, position, ...rest } = options;
    if (node === undefined) {
      if (position === undefined) throw new FluidError('addEmitter: give a position or a node to follow');
      return this.simulation.addEmitter({ ...rest, position });
    }
    const follower: EmitterFollower = {
      emitter: 0,
      node,
      localPosition: Vector3.FromArray(localPosition ?? [0, 0, 0]),
      localDirection: Vector3.FromArray(localDirection ?? [0, -1, 0]),
      previousPosition: new Vector3(),
      currentPosition: new Vector3(),
      previousDirection: new Vector3(),
      currentDirection: new Vector3(),
    };
    this.readEmitterNode(follower);
    follower.previousPosition.copyFrom(follower.currentPosition);
    follower.previousDirection.copyFrom(follower.currentDirection);
    const emitter = this.simulation.addEmitter({
      ...rest,
      position: follower.currentPosition.asArray() as Vector3Tuple,
      direction: follower.currentDirection.asArray() as Vector3Tuple,
    });
    this.emitters.set(emitter, { ...follower, emitter });
    return emitter;
  }

  /** Removes an emitter and stops following its node. */
  removeEmitter(emitter: number): void {
    this.emitters.delete(emitter);
    this.simulation.removeEmitter(emitter);
  }

  /** Adds a drain region that removes every particle entering it (see the simulation's `addDrain`). */
  addDrain(options: DrainOptions): number {
    return this.simulation.addDrain(options);
  }

  /** Removes a drain. */
  removeDrain(drain: number): void {
    this.simulation.removeDrain(drain);
  }

  /** Fills a box, sphere or baked mesh with particles at rest (see the simulation's `spawn`). */
  spawn(options: SpawnOptions): Uint32Array {
    return this.simulation.spawn(options);
  }

  /** Reads a followed emitter node's world position and direction into `current*`. */
  private readEmitterNode(follower: EmitterFollower): void {
    const world = follower.node.computeWorldMatrix(true);
    Vector3.TransformCoordinatesToRef(follower.localPosition, world, follower.currentPosition);
    Vector3.TransformNormalToRef(follower.localDirection, world, follower.currentDirection);
    const length = follower.currentDirection.length();
    if (!(length > 1e-12)) {
      throw new FluidError(`emitter node '${follower.node.name}' maps its local direction to zero length`);
    }
    follower.currentDirection.scaleInPlace(1 / length);
  }

  /** Reads every followed node's current world pose (start of a frame's steps). */
  private readFollowedPoses(): void {
    for (const follower of this.colliders.values()) {
      const { previous, current } = follower;
      previous.position[0] = current.position[0];
      previous.position[1] = current.position[1];
      previous.position[2] = current.position[2];
      for (let k = 0; k < 4; k++) previous.rotation[k] = current.rotation[k];
      previous.scaling = current.scaling;
      readWorldPose(follower.mesh, current);
    }
    for (const follower of this.emitters.values()) {
      follower.previousPosition.copyFrom(follower.currentPosition);
      follower.previousDirection.copyFrom(follower.currentDirection);
      this.readEmitterNode(follower);
    }
  }

  /**
   * Hands the simulation the followed poses at `fraction` of the way from the last frame's poses to this
   * frame's (1 at the frame's last step), so several steps in one frame move colliders smoothly.
   */
  private applyFollowedPoses(fraction: number): void {
    const simulation = this.simulation;
    for (const follower of this.colliders.values()) {
      const { previous, current } = follower;
      const pose = scratchPose;
      for (let k = 0; k < 3; k++) {
        pose.position[k] = previous.position[k] + fraction * (current.position[k] - previous.position[k]);
      }
      scratchRotationA.set(previous.rotation[0], previous.rotation[1], previous.rotation[2], previous.rotation[3]);
      scratchRotationB.set(current.rotation[0], current.rotation[1], current.rotation[2], current.rotation[3]);
      Quaternion.SlerpToRef(scratchRotationA, scratchRotationB, fraction, scratchRotationA);
      pose.rotation[0] = scratchRotationA.x;
      pose.rotation[1] = scratchRotationA.y;
      pose.rotation[2] = scratchRotationA.z;
      pose.rotation[3] = scratchRotationA.w;
      pose.scaling = previous.scaling + fraction * (current.scaling - previous.scaling);
      simulation.setColliderTransform(follower.collider, pose);
    }
    for (const follower of this.emitters.values()) {
      Vector3.LerpToRef(follower.previousPosition, follower.currentPosition, fraction, scratchVector);
      scratchPosition[0] = scratchVector.x;
      scratchPosition[1] = scratchVector.y;
      scratchPosition[2] = scratchVector.z;
      Vector3.LerpToRef(follower.previousDirection, follower.currentDirection, fraction, scratchVector);
      if (scratchVector.lengthSquared() < 1e-12) scratchVector.copyFrom(follower.currentDirection);
      scratchDirection[0] = scratchVector.x;
      scratchDirection[1] = scratchVector.y;
      scratchDirection[2] = scratchVector.z;
      simulation.setEmitterTransform(follower.emitter, { position: scratchPosition, direction: scratchDirection });
    }
  }

  /** How many steps this frame takes, updating the accumulator and the dropped time. */
  private stepsForFrame(): number {
    const timeStep = this.simulation.settings.timeStep;
    const frameTime = this.useDeltaTime
      ? (this.scene.getEngine().getDeltaTime() / 1000) * this.scale
      : timeStep * this.scale;
    this.accumulator += Number.isFinite(frameTime) && frameTime > 0 ? frameTime : 0;
    let steps = Math.floor(this.accumulator / timeStep + 1e-9);
    if (steps > this.maximumSteps) {
      this.droppedTime += (steps - this.maximumSteps) * timeStep;
      this.accumulator -= (steps - this.maximumSteps) * timeStep;
      steps = this.maximumSteps;
    }
    this.accumulator = Math.max(0, this.accumulator - steps * timeStep);
    return steps;
  }

  /**
   * One frame: steps (with followed poses), events, then the render feed. No step before the simulation is
   * ready (WebGPU shaders compiling). Errors are reported, never thrown into the render loop.
   */
  private frame(): void {
    if (this.disposed) return;
    this.stepsLastFrame = 0;
    try {
      if (!this.paused && this.simulation.isReady) {
        const steps = this.stepsForFrame();
        if (steps > 0) {
          this.readFollowedPoses();
          for (let step = 1; step <= steps; step++) {
            this.applyFollowedPoses(step / steps);
            this.simulation.step();
            recordStep(this.simulation, this.buffers);
            this.stepsLastFrame++;
            this.notifyStep();
          }
        }
      }
    } catch (error) {
      this.reportError(error);
    }
    try {
      this.render();
    } catch (error) {
      this.reportError(error);
    }
  }

  /** Hands a frame's error to {@link FluidPlugin.onErrorObservable} (or logs a new message once). */
  private reportError(error: unknown): void {
    const failure = error instanceof Error ? error : new FluidError(String(error));
    if (this.onErrorObservable.hasObservers()) {
      this.onErrorObservable.notifyObservers(failure);
    } else if (failure.message !== this.lastLoggedError) {
      this.lastLoggedError = failure.message;
      Logger.Error(`FluidPlugin: ${failure.message}`);
    }
  }

  /** Notifies the observers of one step. */
  private notifyStep(): void {
    const simulation = this.simulation;
    const stats = simulation.stats;
    if (stats.emittedCount > 0 && this.onParticlesEmittedObservable.hasObservers()) {
      this.onParticlesEmittedObservable.notifyObservers(simulation.lastEmitted());
    }
    if (stats.removedCount > 0 && this.onParticlesRemovedObservable.hasObservers()) {
      this.onParticlesRemovedObservable.notifyObservers(simulation.lastRemoved());
    }
    this.onAfterStepObservable.notifyObservers(this);
  }

  /**
   * Feeds the current mode's view (nothing is read in mode `'none'`). On the WebGPU backend the views draw
   * from the simulation's position buffer, in one colour.
   */
  private render(): void {
    // A lost context draws nothing; views made now would compile effects that Babylon's restoration then
    // trips over. Steps go on (on the CPU after a lost WebGPU device), the views catch up once restored.
    if (this.contextLost) return;
    const mode = this.mode;
    const onGpu = this.simulation.gpuSolver !== undefined;
    if (mode !== 'none') {
      if (!onGpu) this.views.prepare(mode);
      feedParticles(this.simulation, this.buffers, this.coloring, this.colorRanges);
    }
    this.views.show(mode, !onGpu && (this.coloring !== 'material' || !this.singleMaterial()));
  }

  /** The material of the first live particle (0 when there is none): the views' single colour. */
  private firstParticleMaterial(): number {
    const buffers = this.buffers;
    const material = this.simulation.components.Particle.material;
    if (buffers.gpuPositions === undefined) return buffers.count > 0 ? material[buffers.ids[0]] : 0;
    if (this.simulation.particleCount === 0) return 0;
    return material[this.simulation.particles(buffers.ids)[0]];
  }

  /** True when every fed particle has the material of the first one (the water tint is that material's colour). */
  private singleMaterial(): boolean {
    const { ids, count } = this.buffers;
    const material = this.simulation.components.Particle.material;
    if (count === 0) return true;
    const first = material[ids[0]];
    for (let place = 1; place < count; place++) if (material[ids[place]] !== first) return false;
    return true;
  }

  /**
   * Stops stepping, removes the plugin's observers from the scene and the meshes, disposes the views (the
   * fluid render object, debug meshes and materials) and the observables, and frees the simulation's GPU
   * objects (`simulation.dispose()`). The simulation stays usable headless, on the CPU, from its
   * components (on the WebGPU backend: the last mirrored state). Safe to call twice.
   */
  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    this.scene.onBeforeRenderObservable.remove(this.beforeRenderObserver);
    this.scene.onDisposeObservable.remove(this.sceneDisposeObserver);
    this.simulation.onBackendChanged.delete(this.backendListener);
    const engine = this.scene.getEngine();
    engine.onContextLostObservable.remove(this.contextObservers[0]);
    engine.onContextRestoredObservable.remove(this.contextObservers[1]);
    for (const follower of this.colliders.values()) {
      follower.mesh.onDisposeObservable.remove(follower.disposeObserver);
    }
    this.colliders.clear();
    this.emitters.clear();
    this.views.dispose();
    this.simulation.dispose();
    this.buffers.gpuPositions = undefined;
    this.buffers.steppedSolver = undefined;
    this.onAfterStepObservable.clear();
    this.onParticlesEmittedObservable.clear();
    this.onParticlesRemovedObservable.clear();
    this.onBackendChangedObservable.clear();
    this.onErrorObservable.clear();
  }

  /** True once {@link FluidPlugin.dispose} ran. */
  get isDisposed(): boolean {
    return this.disposed;
  }
}
