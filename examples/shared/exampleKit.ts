/**
 * What every example page shares: the engine chosen from the URL (`?engine=webgpu` or the default WebGL2
 * `Engine`), a bright studio backdrop for the water to refract, the stats line (fps, particles, ms per
 * step), the library's `FluidDebugPane` (materials, solver settings, timings, render mode; `?panel=0` hides
 * it), the right-button orbit of the pages whose left button belongs to the game, and the
 * `window.fluidExample` handle the browser tests use. Uses only the public API of the library.
 */
import { ArcRotateCamera } from '@babylonjs/core/Cameras/arcRotateCamera';
import type { ArcRotateCameraPointersInput } from '@babylonjs/core/Cameras/Inputs/arcRotateCameraPointersInput';
import type { TargetCamera } from '@babylonjs/core/Cameras/targetCamera';
import type { AbstractEngine } from '@babylonjs/core/Engines/abstractEngine';
import { Engine } from '@babylonjs/core/Engines/engine';
import { WebGPUEngine } from '@babylonjs/core/Engines/webgpuEngine';
import { DirectionalLight } from '@babylonjs/core/Lights/directionalLight';
import { HemisphericLight } from '@babylonjs/core/Lights/hemisphericLight';
import { StandardMaterial } from '@babylonjs/core/Materials/standardMaterial';
import { RawTexture } from '@babylonjs/core/Materials/Textures/rawTexture';
import { Texture } from '@babylonjs/core/Materials/Textures/texture';
import { Color3, Color4 } from '@babylonjs/core/Maths/math.color';
import { Matrix, Vector3 } from '@babylonjs/core/Maths/math.vector';
import { Viewport } from '@babylonjs/core/Maths/math.viewport';
import { CreateBox } from '@babylonjs/core/Meshes/Builders/boxBuilder';
import { CreateGround } from '@babylonjs/core/Meshes/Builders/groundBuilder';
import type { Mesh } from '@babylonjs/core/Meshes/mesh';
import '@babylonjs/core/Rendering/edgesRenderer';
import { Scene } from '@babylonjs/core/scene';
import {
  FluidDebugPane,
  type FluidLookOptions,
  type FluidPlugin,
  type FluidRenderMode,
  type FluidSolver,
} from '../../src';

/** URL switches of every example. */
export interface ExampleParameters {
  /** `webgpu` (WebGPUEngine) or `webgl` (the default, a WebGL2 Engine). */
  engine: 'webgl' | 'webgpu';
  /** `small`: few particles (the browser tests); `full` (default): the intended scene. */
  particles: 'small' | 'full';
  /** `?panel=0` leaves out the debug pane. */
  panel: boolean;
  /**
   * Optional `?mode=` render mode to start with: `fluid`, `points`, `spheres`, `none`, `surface` (the
   * isosurface mesh) or `splats` (discs on the surface particles).
   */
  renderMode: FluidRenderMode | undefined;
  /** `?whiteWater=0` turns white water off (default: on, where the page has it). */
  whiteWater: boolean;
  /** `?anisotropy=0` draws the screen-space water from spheres instead of anisotropic particles (default: on). */
  anisotropy: boolean;
  /**
   * `?solver=sph` (weakly compressible SPH) or `?solver=mps` picks the solver of the pages that offer it (the
   * dam break, the lava lamp, oil on water); default `pbf`.
   */
  solver: FluidSolver;
}

/** Reads the URL switches. */
export function readParameters(): ExampleParameters {
  const query = new URLSearchParams(window.location.search);
  const mode = query.get('mode');
  const modes: readonly FluidRenderMode[] = ['fluid', 'points', 'spheres', 'none', 'surface', 'splats'];
  return {
    engine: query.get('engine') === 'webgpu' ? 'webgpu' : 'webgl',
    particles: query.get('particles') === 'small' ? 'small' : 'full',
    panel: query.get('panel') !== '0',
    renderMode: modes.find((known) => known === mode),
    whiteWater: query.get('whiteWater') !== '0',
    anisotropy: query.get('anisotropy') !== '0',
    solver: readSolver(query.get('solver')),
  };
}

/** The solver a `?solver=` value names: 'sph' or 'mps', else 'pbf'. */
function readSolver(value: string | null): FluidSolver {
  return value === 'sph' || value === 'mps' ? value : 'pbf';
}

/**
 * The solver of a page with several fluids: the URL's, except MPS, which has none yet (docs/solvers.md,
 * "Not yet"): such a page runs PBF then.
 */
export function severalFluidsSolver(parameters: ExampleParameters): 'pbf' | 'sph' {
  return parameters.solver === 'sph' ? 'sph' : 'pbf';
}

/**
 * The plugin options that give an example white water (spray, foam and bubbles, `diffuse`) with room for
 * `capacity` diffuse particles, unless `?whiteWater=0` turns it off.
 */
export function whiteWaterOptions(parameters: ExampleParameters, capacity: number): { diffuse?: { capacity: number } } {
  return parameters.whiteWater ? { diffuse: { capacity } } : {};
}

/**
 * The plugin's `look` for an example: the defaults (anisotropic particles), or spheres with `?anisotropy=0`,
 * over the example's own `look` fields.
 */
export function lookOptions(parameters: ExampleParameters, look: FluidLookOptions = {}): { look: FluidLookOptions } {
  return { look: parameters.anisotropy ? look : { ...look, anisotropy: false } };
}

/** Creates the engine named by the URL on the page's `#renderCanvas`, with an opaque canvas. */
export async function createEngine(parameters: ExampleParameters): Promise<AbstractEngine> {
  const canvas = document.getElementById('renderCanvas') as HTMLCanvasElement;
  if (parameters.engine === 'webgpu') {
    const engine = new WebGPUEngine(canvas, { antialias: true, stencil: true, premultipliedAlpha: false });
    await engine.initAsync();
    return engine;
  }
  return new Engine(canvas, true, { preserveDrawingBuffer: true, stencil: true, alpha: false });
}

/**
 * An orbit camera looking at `target` (m) from angles `alpha`, `beta` (rad) and distance `radius` (m), with
 * mouse control and near and far planes suited to a tabletop scene of a few metres.
 */
export function createOrbitCamera(
  scene: Scene,
  alpha: number,
  beta: number,
  radius: number,
  target: Vector3,
): ArcRotateCamera {
  const camera = new ArcRotateCamera('camera', alpha, beta, radius, target, scene);
  camera.attachControl(true);
  camera.wheelPrecision = 100;
  camera.minZ = 0.03;
  camera.maxZ = 30;
  return camera;
}

/**
 * A scene with a light studio backdrop: pale sky, a tiled floor the water refracts, a soft sky light and
 * a sun. Water is mostly what it shows of its surroundings, so a dark void makes it look like ink.
 */
export function createStudioScene(engine: AbstractEngine, floorSize = 6, tileSize = 0.25): Scene {
  const scene = new Scene(engine);
  scene.clearColor = new Color4(0.78, 0.85, 0.92, 1);
  scene.ambientColor = new Color3(0.3, 0.3, 0.3);
  const sky = new HemisphericLight('sky', new Vector3(0.2, 1, -0.3), scene);
  sky.intensity = 0.75;
  sky.groundColor = new Color3(0.45, 0.45, 0.5);
  const sun = new DirectionalLight('sun', new Vector3(-0.4, -1, 0.5), scene);
  sun.intensity = 0.55;
  const floor = CreateGround('floor', { width: floorSize, height: floorSize }, scene);
  floor.position.y = -0.001;
  // A checkered tile texture made in memory (8 x 8 texels, one per tile, nearest filtering).
  const texels = new Uint8Array(8 * 8 * 4);
  for (let row = 0; row < 8; row++) {
    for (let column = 0; column < 8; column++) {
      const light = (row + column) % 2 === 0;
      texels.set(light ? [233, 228, 218, 255] : [185, 178, 166, 255], 4 * (row * 8 + column));
    }
  }
  const tiles = RawTexture.CreateRGBATexture(texels, 8, 8, scene, false, false, Texture.NEAREST_SAMPLINGMODE);
  tiles.uScale = floorSize / (8 * tileSize);
  tiles.vScale = floorSize / (8 * tileSize);
  const floorMaterial = new StandardMaterial('floorMaterial', scene);
  floorMaterial.diffuseTexture = tiles;
  floorMaterial.specularColor = new Color3(0.05, 0.05, 0.05);
  floor.material = floorMaterial;
  floor.isPickable = false;
  return scene;
}

/** A glass-like material for containers (faint, slightly blue, specular). */
export function createGlassMaterial(scene: Scene, alpha = 0.18): StandardMaterial {
  const glass = new StandardMaterial('glass', scene);
  glass.diffuseColor = new Color3(0.75, 0.85, 0.95);
  glass.specularColor = new Color3(0.9, 0.9, 0.9);
  glass.specularPower = 96;
  glass.alpha = alpha;
  glass.backFaceCulling = false;
  return glass;
}

/** A glass tank filling the box `min`..`max` (m): a faint box with drawn edges. */
export function createGlassTank(
  scene: Scene,
  min: readonly [number, number, number],
  max: readonly [number, number, number],
  alpha = 0.07,
): Mesh {
  const tank = CreateBox('tank', { width: max[0] - min[0], height: max[1] - min[1], depth: max[2] - min[2] }, scene);
  tank.position.set(0.5 * (min[0] + max[0]), 0.5 * (min[1] + max[1]), 0.5 * (min[2] + max[2]));
  tank.material = createGlassMaterial(scene, alpha);
  tank.enableEdgesRendering();
  tank.edgesWidth = 1.2;
  tank.edgesColor = new Color4(0.35, 0.45, 0.55, 0.8);
  return tank;
}

/**
 * Updates the corner stats line every few frames: fps, particle count, ms per step (the CPU time of a step:
 * on the WebGPU backend, recording its passes), the backend running the steps (`webgpu` or `cpu`) and the
 * render mode.
 */
export function showStats(engine: AbstractEngine, scene: Scene, plugin: FluidPlugin, extra?: () => string): void {
  const line = document.getElementById('stats') as HTMLDivElement;
  let frame = 0;
  scene.onAfterRenderObservable.add(() => {
    if (frame++ % 10 !== 0) return;
    const stats = plugin.simulation.stats;
    const settings = plugin.simulation.settings;
    const fps = engine.getFps();
    line.textContent =
      `${Number.isFinite(fps) ? fps.toFixed(0) : '-'} fps | particles ${plugin.simulation.particleCount} | step ${stats.stepMilliseconds.toFixed(1)} ms ` +
      `(${settings.solver === 'pbf' ? `${settings.substeps}x${settings.iterations}` : `${settings.solver}, ${stats.solverSubsteps} substeps`}) | ${plugin.backend} | ${plugin.renderMode}${extra ? ` | ${extra()}` : ''}`;
  });
}

/**
 * The debug pane of the page (the library's `FluidDebugPane`: materials, solver settings, step timings,
 * backend, render mode), collapsed into a button in the top-right corner; none with `?panel=0`. `names`
 * label the material entities.
 */
export function createDebugPane(
  parameters: ExampleParameters,
  plugin: FluidPlugin,
  names: Readonly<Record<number, string>> = {},
): FluidDebugPane | undefined {
  return parameters.panel ? new FluidDebugPane(plugin, { materialNames: names }) : undefined;
}

/**
 * Leaves the left mouse button to the game: the orbit camera turns with the right button only (Babylon's
 * default there is panning) and zooms with the wheel; the browser's context menu is kept off the canvas.
 */
export function orbitWithRightButton(camera: ArcRotateCamera): void {
  camera.movement.input.setInteraction('pointer', { button: 2 }, 'rotate');
  const pointers = camera.inputs.attached.pointers as ArcRotateCameraPointersInput | undefined;
  if (pointers) pointers.buttons = [2];
  camera
    .getEngine()
    .getRenderingCanvas()
    ?.addEventListener('contextmenu', (event) => event.preventDefault());
}

/** The handle the browser tests read (`window.fluidExample`). */
export interface FluidExampleHandle {
  /** The plugin of the example. */
  plugin: FluidPlugin;
  /** The page's debug pane (undefined with `?panel=0`). */
  pane: FluidDebugPane | undefined;
  /** Babylon objects. */
  scene: Scene;
  engine: AbstractEngine;
  camera: TargetCamera;
  /** Frames rendered since the example started. */
  frames: number;
  /** True once colliders are baked, the simulation has stepped and the first frame with fluid was drawn. */
  ready: boolean;
  /**
   * Screen positions (CSS pixels of the canvas) of every particle in front of the camera, x, y pairs, from
   * the particle components (on the WebGPU backend: as of the last readback).
   */
  projectParticles(): number[];
  /** The same for the white water's diffuse particles (`simulation.diffuseParticles`). */
  projectDiffuseParticles(): number[];
  /** Screen radius (CSS pixels) of a particle at the camera's target distance. */
  particleScreenRadius(): number;
  /** Example-specific figures (e.g. the water level in the glass). */
  measure(): Record<string, number>;
}

/**
 * Publishes `window.fluidExample`, starts the render loop and resizes with the window. `measure` gives
 * example-specific figures to the tests; `pane` is the page's debug pane, if any.
 */
export function startExample(
  engine: AbstractEngine,
  scene: Scene,
  camera: TargetCamera,
  plugin: FluidPlugin,
  measure: () => Record<string, number> = () => ({}),
  pane?: FluidDebugPane,
): FluidExampleHandle {
  const world = Matrix.Identity();
  const projected = new Vector3();
  const point = new Vector3();
  /** Screen positions (CSS pixels) of the `count` points `place(k)` sets in front of the camera. */
  const project = (count: number, place: (k: number) => void): number[] => {
    const canvas = engine.getRenderingCanvas() as HTMLCanvasElement;
    const viewport = new Viewport(0, 0, canvas.clientWidth, canvas.clientHeight);
    const transform = scene.getTransformMatrix();
    const view = camera.getViewMatrix();
    const result: number[] = [];
    for (let k = 0; k < count; k++) {
      place(k);
      if (Vector3.TransformCoordinates(point, view).z <= camera.minZ) continue;
      Vector3.ProjectToRef(point, world, transform, viewport, projected);
      result.push(projected.x, projected.y);
    }
    return result;
  };
  const handle: FluidExampleHandle = {
    plugin,
    pane,
    scene,
    engine,
    camera,
    frames: 0,
    ready: false,
    measure,
    projectParticles() {
      const { Position } = plugin.simulation;
      const ids = Array.from(plugin.simulation.particles());
      return project(ids.length, (k) => point.set(Position.x[ids[k]], Position.y[ids[k]], Position.z[ids[k]]));
    },
    projectDiffuseParticles() {
      const diffuse = plugin.simulation.diffuseParticles;
      return project(diffuse.count, (k) => point.set(diffuse.positionX[k], diffuse.positionY[k], diffuse.positionZ[k]));
    },
    particleScreenRadius() {
      const canvas = engine.getRenderingCanvas() as HTMLCanvasElement;
      const target = camera.getTarget();
      const distance = Vector3.Distance(camera.globalPosition, target);
      const focal = canvas.clientHeight / 2 / Math.tan(camera.fov / 2);
      return (plugin.simulation.settings.particleRadius * focal) / distance;
    },
  };
  scene.onAfterRenderObservable.add(() => {
    handle.frames++;
    // On the WebGPU backend the first steps wait for its shaders; the fluid is drawn from the first step on.
    if (!handle.ready && plugin.simulation.particleCount > 0 && plugin.simulation.stats.stepCount > 0) {
      const object = plugin.fluidRenderObject;
      if (plugin.renderMode !== 'fluid' || object?.object.isReady()) handle.ready = true;
    }
  });
  (window as unknown as { fluidExample: FluidExampleHandle }).fluidExample = handle;
  engine.runRenderLoop(() => scene.render());
  window.addEventListener('resize', () => engine.resize());
  return handle;
}
