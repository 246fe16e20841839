/**
 * The anisotropic particles in the browser (systems/ellipsoids/, plugin/ellipsoidParticles.ts), for
 * tests/ellipsoids-webgpu.test.ts:
 *
 * - `ellipsoidParity`: a settled pool with a block of a second material dropped into it, saved on the CPU and
 *   restored into a CPU and a WebGPU simulation, each stepped once; the GPU pass's ellipsoids (the defaults, the
 *   motion stretch on; read back, place -> entity through `info`) against `writeEllipsoids` on the CPU,
 *   particle by particle: the centre, the material slot and the shape matrix.
 * - `ellipsoidRendering`: the water drawn by the plugin, with and without `look.anisotropy`, on WebGPU (GPU and
 *   CPU backends) and WebGL2 (CPU backend, a second engine on its own canvas): the unblurred and blurred depth
 *   textures of Babylon's fluid renderer read back, measuring a thin jet's gaps along its axis and a resting
 *   pool's roughness (second differences of the depth across its top).
 */
import { FreeCamera } from '@babylonjs/core/Cameras/freeCamera.js';
import type { AbstractEngine } from '@babylonjs/core/Engines/abstractEngine.js';
import { Engine } from '@babylonjs/core/Engines/engine.js';
import type { WebGPUEngine } from '@babylonjs/core/Engines/webgpuEngine.js';
import type { BaseTexture } from '@babylonjs/core/Materials/Textures/baseTexture.js';
import { Color4 } from '@babylonjs/core/Maths/math.color.js';
import { Vector3 } from '@babylonjs/core/Maths/math.vector.js';
import { Scene } from '@babylonjs/core/scene.js';
import { FluidError, FluidSimulation } from '../../src';
import { FluidPlugin, type FluidPluginOptions } from '../../src/plugin';
import { GpuEllipsoids } from '../../src/plugin/ellipsoidPass';
import { ELLIPSOID_FLOATS, resolveAnisotropy } from '../../src/systems/ellipsoids/settings';
import { ParticleInfo } from '../../src/systems/gpu/structs';

const R = 0.03;

/** The pool of the parity check: 0.6 x 0.6 m, settled, with a block dropped into it (saved mid-fall). */
function parityScene(): Uint8Array {
  const simulation = new FluidSimulation({ particleRadius: R, capacity: 3000 });
  const water = simulation.addMaterial({});
  simulation.addCollider({ shape: 'box', min: [0, 0, 0], max: [0.72, 1, 0.72], container: true });
  simulation.spawnBlock({ min: [0, 0, 0], max: [0.72, 0.24, 0.72], material: water });
  for (let k = 0; k < 30; k++) simulation.step();
  // A second material falls in: the ellipsoids carry each particle's material slot.
  const oil = simulation.addMaterial({ restDensity: 800, color: [0.9, 0.7, 0.2] });
  simulation.spawnBlock({ min: [0.24, 0.42, 0.24], max: [0.48, 0.6, 0.48], material: oil });
  for (let k = 0; k < 12; k++) simulation.step();
  return simulation.snapshot();
}

/** Result of {@link ellipsoidParity}. */
export interface EllipsoidParityResult {
  particles: number;
  /** Largest |centre GPU - centre CPU| (m). */
  centreDifference: number;
  /** Largest |M_gpu - M_cpu| (max over entries) / R^2, M the shape matrix. */
  shapeDifference: number;
  /** Particles whose shape differs by more than 1e-3 R^2, and the 99th percentile of the difference. */
  shapeMismatches: number;
  shapePercentile99: number;
  /** Largest |x_GPU - x_CPU| after the step (m): the states the two computations start from. */
  positionDifference: number;
  /** The message of the FluidError `writeEllipsoids` throws on the WebGPU backend ('' when it does not throw). */
  refusal: string;
  /** Particles whose material slot (the centre's fourth float) differs between the backends. */
  slotMismatches: number;
  /** Distinct material slots on the GPU (the scene has two materials). */
  slots: number;
  drawnRadius: number;
}

/** The shape matrix M of the ellipsoid at `o` (xx, xy, xz, yy, yz, zz). */
function shape(data: Float32Array, o: number): Float32Array {
  return data.subarray(o + 4, o + 10);
}

export async function ellipsoidParity(engine: WebGPUEngine): Promise<EllipsoidParityResult> {
  const saved = parityScene();
  const cpu = FluidSimulation.fromSnapshot(saved);
  const gpu = FluidSimulation.fromSnapshot(saved, { backend: 'webgpu', engine });
  try {
    await gpu.ready();
    cpu.step();
    gpu.step();
    await gpu.readback();
    const solver = gpu.gpuSolver;
    if (solver === undefined) throw new Error('no WebGPU solver');
    const radius = 1.6 * R;
    const options = resolveAnisotropy(undefined);
    const count = gpu.particleCount;
    const pass = new GpuEllipsoids(engine, solver, gpu.settings.capacity);
    while (!pass.isReady()) await new Promise((resolve) => setTimeout(resolve, 5));
    engine.beginFrame();
    if (!pass.update(options, radius, gpu.settings.timeStep, count, 1))
      throw new Error('the ellipsoid pass did not run');
    engine.endFrame();
    const view = await pass.buffer.read(0, count * ELLIPSOID_FLOATS * 4, undefined, true);
    const gpuData = new Float32Array(
      view.buffer.slice(view.byteOffset, view.byteOffset + count * ELLIPSOID_FLOATS * 4),
    );
    const infoView = await solver.storageBuffer('info').read(0, count * ParticleInfo.size, undefined, true);
    const info = new Uint32Array(
      infoView.buffer.slice(infoView.byteOffset, infoView.byteOffset + count * ParticleInfo.size),
    );
    pass.dispose();
    let refusal = '';
    try {
      gpu.writeEllipsoids(new Float32Array(ELLIPSOID_FLOATS), gpu.particles(), 1, radius);
    } catch (error) {
      refusal = error instanceof FluidError ? error.message : `not a FluidError: ${String(error)}`;
    }
    const ids = cpu.particles();
    const cpuData = new Float32Array(ids.length * ELLIPSOID_FLOATS);
    cpu.writeEllipsoids(cpuData, ids, ids.length, radius);
    const cpuPlace = new Map<number, number>();
    for (let place = 0; place < ids.length; place++) cpuPlace.set(ids[place], place);
    const entityWord = ParticleInfo.offsets.entity / 4;
    let centreDifference = 0;
    let shapeDifference = 0;
    let shapeMismatches = 0;
    let slotMismatches = 0;
    const differences: number[] = [];
    for (let place = 0; place < count; place++) {
      const entity = info[(place * ParticleInfo.size) / 4 + entityWord];
      const other = cpuPlace.get(entity);
      if (other === undefined) throw new Error(`entity ${entity} is on the GPU, not on the CPU`);
      const g = place * ELLIPSOID_FLOATS;
      const c = other * ELLIPSOID_FLOATS;
      for (let axis = 0; axis < 3; axis++) {
        centreDifference = Math.max(centreDifference, Math.abs(gpuData[g + axis] - cpuData[c + axis]));
      }
      if (gpuData[g + 3] !== cpuData[c + 3]) slotMismatches++;
      const a = shape(gpuData, g);
      const b = shape(cpuData, c);
      let difference = 0;
      for (let k = 0; k < 6; k++) difference = Math.max(difference, Math.abs(a[k] - b[k]) / (radius * radius));
      shapeDifference = Math.max(shapeDifference, difference);
      differences.push(difference);
      if (difference > 1e-3) shapeMismatches++;
    }
    let positionDifference = 0;
    for (const id of ids) {
      positionDifference = Math.max(
        positionDifference,
        Math.abs(cpu.Position.x[id] - gpu.Position.x[id]),
        Math.abs(cpu.Position.y[id] - gpu.Position.y[id]),
        Math.abs(cpu.Position.z[id] - gpu.Position.z[id]),
      );
    }
    differences.sort((a, b) => a - b);
    return {
      particles: count,
      centreDifference,
      shapeDifference,
      shapeMismatches,
      shapePercentile99: differences[Math.floor(0.99 * (differences.length - 1))],
      positionDifference,
      refusal,
      slotMismatches,
      slots: new Set(Array.from({ length: count }, (_, place) => gpuData[place * ELLIPSOID_FLOATS + 3])).size,
      drawnRadius: radius,
    };
  } finally {
    gpu.dispose();
  }
}

/** Options of {@link ellipsoidRendering}. */
export interface EllipsoidRenderingOptions {
  /** Which engine and backend: WebGPU with the GPU or the CPU backend, or WebGL2 (CPU backend). */
  target: 'webgpu' | 'webgpu-cpu' | 'webgl';
}

/** The depth figures of one drawing. */
export interface DepthFigures {
  /** The jet: rows of its axis (from 2 cm under the nozzle down to 0.12 m) with no depth, of how many. */
  jetGapRows: number;
  jetRows: number;
  /** The longest run of such rows. */
  jetLongestGap: number;
  /** The pool: RMS of z^2 |second difference of 1/z| over its top (m; 0 for a plane), unblurred and blurred. */
  poolRoughness: number;
  poolRoughnessBlurred: number;
  /** Pixels of the pool's top measured. */
  poolPixels: number;
  /**
   * The pool's drawn surface (blurred depth at the image's middle, along the camera's axis) above the highest
   * particle centre within 2 cm of that point (m): the water's surface lies about r above it.
   */
  poolLevel: number;
}

/** Result of {@link ellipsoidRendering}: the figures with spheres and with anisotropic particles. */
export interface EllipsoidRenderingResult {
  target: string;
  spheres: DepthFigures;
  anisotropic: DepthFigures;
  errors: string[];
}

const SIZE = 160;
const JET_TOP = 0.5;
const POOL_MIN: [number, number, number] = [0, 0, 0];
const POOL_MAX: [number, number, number] = [0.36, 0.5, 0.36];

/** The resting pool: 0.36 x 0.36 m, 10 particles deep at r = 1 cm, settled for 1.5 s on the CPU, saved. */
function poolScene(): Uint8Array {
  const simulation = new FluidSimulation({ particleRadius: 0.01, capacity: 4000 });
  const water = simulation.addMaterial({});
  simulation.addCollider({ shape: 'box', min: POOL_MIN, max: POOL_MAX, container: true });
  simulation.spawnBlock({ min: POOL_MIN, max: [POOL_MAX[0], 0.2, POOL_MAX[2]], material: water });
  for (let k = 0; k < 90; k++) simulation.step();
  return simulation.snapshot();
}

/** The depth texture of the plugin's water (blurred or not): view-space depth per pixel (1e6: none). */
async function readDepth(plugin: FluidPlugin, blurred: boolean): Promise<{ depth: Float32Array; width: number }> {
  const target = plugin.fluidRenderObject?.targetRenderer;
  if (target === undefined) throw new Error('no fluid render object');
  // Babylon keeps the depth render target private; the test reads it.
  const textures = (
    target as unknown as { _depthRenderTarget: { texture: BaseTexture | null; textureBlur: BaseTexture | null } }
  )._depthRenderTarget;
  const texture = blurred ? textures.textureBlur : textures.texture;
  if (texture === null) throw new Error('no depth texture');
  const size = texture.getSize();
  const data = (await texture.readPixels()) as Float32Array | null;
  if (data === null) throw new Error('the depth texture could not be read');
  const channels = data.length / (size.width * size.height);
  const depth = new Float32Array(size.width * size.height);
  for (let k = 0; k < depth.length; k++) depth[k] = data[k * channels];
  return { depth, width: size.width };
}

/**
 * The engine a drawing runs on, `SIZE` x `SIZE` px: the harness's WebGPU engine (the WebGPU backend for
 * `'webgpu'`, the CPU backend for `'webgpu-cpu'`), or a WebGL2 engine on a canvas of its own (the CPU backend).
 */
function drawingEngine(
  engine: WebGPUEngine,
  target: 'webgpu' | 'webgpu-cpu' | 'webgl',
): { drawing: AbstractEngine; backend: 'webgpu' | 'cpu'; close(): void } {
  let drawing: AbstractEngine = engine;
  let canvas: HTMLCanvasElement | undefined;
  if (target === 'webgl') {
    canvas = document.createElement('canvas');
    canvas.width = SIZE;
    canvas.height = SIZE;
    document.body.appendChild(canvas);
    drawing = new Engine(canvas, false, { preserveDrawingBuffer: true, stencil: true });
  }
  drawing.setSize(SIZE, SIZE);
  const close = () => {
    if (drawing !== engine) drawing.dispose();
    canvas?.remove();
  };
  return { drawing, backend: target === 'webgpu' ? 'webgpu' : 'cpu', close };
}

/** Renders `frames` frames of `scene` on `engine`, the plugin stepping once per frame. */
async function renderFrames(engine: AbstractEngine, scene: Scene, frames: number): Promise<void> {
  for (let k = 0; k < frames; k++) {
    engine.beginFrame();
    scene.render();
    engine.endFrame();
    await new Promise((resolve) => setTimeout(resolve, 1));
  }
}

/**
 * A scene on `engine` with a camera at `eye` looking at `target` (near plane 1 cm) and a plugin drawing the
 * water (`'fluid'`, one step per frame, `look.anisotropy` as given) with `options`; its errors go to `errors`.
 */
async function waterScene(
  engine: AbstractEngine,
  eye: Vector3,
  target: Vector3,
  anisotropy: boolean,
  errors: string[],
  options: FluidPluginOptions,
): Promise<{ scene: Scene; camera: FreeCamera; plugin: FluidPlugin }> {
  const scene = new Scene(engine);
  const camera = new FreeCamera('camera', eye, scene);
  camera.setTarget(target);
  camera.minZ = 0.01;
  const plugin = await FluidPlugin.create(scene, {
    useDeltaTime: false,
    renderMode: 'fluid',
    look: { anisotropy },
    ...options,
  });
  plugin.onErrorObservable.add((error) => errors.push(error.message));
  return { scene, camera, plugin };
}

/** What of Babylon's fluid renderer the readiness check reads (its internal post processes included). */
interface FluidRendererInternals {
  renderObjects: readonly {
    object: { isReady(): boolean };
    targetRenderer: {
      _renderPostProcess?: { isReady(): boolean } | null;
      _depthRenderTarget?: { _blurPostProcesses?: readonly { isReady(): boolean }[] | null } | null;
      _diffuseRenderTarget?: { _blurPostProcesses?: readonly { isReady(): boolean }[] | null } | null;
      _thicknessRenderTarget?: { _blurPostProcesses?: readonly { isReady(): boolean }[] | null } | null;
    };
  }[];
}

/**
 * Whether the water can draw: on the WebGPU backend the plugin's ellipsoid pass has compiled (until it has
 * dispatched once, every ellipsoid is zero and draws nothing), and every render object of the scene's fluid
 * renderer (one per liquid with several fluids) is ready: its own depth and thickness effects, and its target
 * renderer's composition and blur post processes. On WebGPU each compiles in its own time, and what is not
 * ready is skipped: checking the first render object alone let a frame be read before the water was drawn.
 */
function waterReady(scene: Scene, plugin: FluidPlugin): boolean {
  const ellipsoids = (plugin as unknown as { buffers: { gpuEllipsoids?: { isReady(): boolean } } }).buffers
    .gpuEllipsoids;
  if (ellipsoids !== undefined && !ellipsoids.isReady()) return false;
  const renderer = (scene as unknown as { fluidRenderer?: FluidRendererInternals }).fluidRenderer;
  const objects = renderer?.renderObjects ?? [];
  return (
    objects.length > 0 &&
    objects.every(({ object, targetRenderer }) => {
      const postProcesses = [
        targetRenderer._renderPostProcess,
        ...(targetRenderer._depthRenderTarget?._blurPostProcesses ?? []),
        ...(targetRenderer._diffuseRenderTarget?._blurPostProcesses ?? []),
        ...(targetRenderer._thicknessRenderTarget?._blurPostProcesses ?? []),
      ];
      return object.isReady() && postProcesses.every((postProcess) => !postProcess || postProcess.isReady());
    })
  );
}

/**
 * Renders frames of `scene` (the plugin paused) until the water can draw (`waterReady`), then two more (the
 * ellipsoid pass dispatches in the first; at most 100 frames).
 */
async function untilReady(engine: AbstractEngine, scene: Scene, plugin: FluidPlugin): Promise<void> {
  for (let k = 0; k < 100; k++) {
    await renderFrames(engine, scene, 1);
    if (plugin.fluidRenderObject !== undefined && waterReady(scene, plugin)) {
      await renderFrames(engine, scene, 2);
      return;
    }
  }
  throw new Error('the water did not get ready within 100 frames');
}

/** One drawing of the jet and of the pool, with `anisotropy` on or off. */
async function drawAndMeasure(
  engine: AbstractEngine,
  backend: 'webgpu' | 'cpu',
  anisotropy: boolean,
  pool: Uint8Array,
  errors: string[],
): Promise<DepthFigures> {
  // The jet: a tap's stream (the pour example's nozzle, radius 2.5 r, 1.2 m/s) falling 0.5 m onto a drained floor.
  const {
    scene: jetScene,
    camera: jetCamera,
    plugin: jet,
  } = await waterScene(engine, new Vector3(0, 0.3, -0.55), new Vector3(0, 0.3, 0), anisotropy, errors, {
    backend,
    particleRadius: 0.01,
    capacity: 3000,
  });
  jetCamera.fov = 0.8;
  let jetGapRows = 0;
  let jetRows = 0;
  let jetLongestGap = 0;
  try {
    const water = jet.simulation.addMaterial({});
    jet.simulation.addCollider({ shape: 'plane', point: [0, 0, 0], normal: [0, 1, 0] });
    jet.simulation.addEmitter({ material: water, position: [0, JET_TOP, 0], radius: 0.025, speed: 1.2 });
    jet.simulation.addDrain({ min: [-5, -1, -5], max: [5, 0.012, 5] });
    await jet.ready();
    await renderFrames(engine, jetScene, 40);
    jet.paused = true;
    await untilReady(engine, jetScene, jet);
    const { depth, width } = await readDepth(jet, false);
    const height = depth.length / width;
    // The jet's axis (x = 0, z = 0) is the image's middle column, and y = 0.3 m its middle row; the rows from
    // 0.18 m above (2 cm under the nozzle) to 0.18 m below it (0.12 m), in either direction.
    const pixelsPerMetre = height / 2 / (0.55 * Math.tan(jetCamera.fov / 2));
    const reach = Math.floor((JET_TOP - 0.02 - 0.3) * pixelsPerMetre);
    const top = Math.floor(height / 2) - reach;
    const bottom = Math.floor(height / 2) + reach;
    const centre = Math.floor(width / 2);
    let gap = 0;
    for (let row = top; row <= bottom; row++) {
      // Texture rows run bottom-up.
      const textureRow = height - 1 - row;
      let covered = false;
      for (let column = centre - 2; column <= centre + 2; column++) {
        if (depth[textureRow * width + column] < 1e5) covered = true;
      }
      jetRows++;
      if (covered) {
        gap = 0;
      } else {
        jetGapRows++;
        gap++;
        jetLongestGap = Math.max(jetLongestGap, gap);
      }
    }
  } finally {
    jet.dispose();
    jetScene.dispose();
  }
  // The pool, seen from 0.4 m above its surface, 11 degrees off the vertical: the image's middle half is its top.
  const {
    scene: poolScene,
    camera: poolCamera,
    plugin: pool3,
  } = await waterScene(engine, new Vector3(0.18, 0.6, 0.1), new Vector3(0.18, 0.2, 0.18), anisotropy, errors, {
    backend,
    particleRadius: 0.01,
    capacity: 4000,
    paused: true,
  });
  let poolRoughness = 0;
  let poolRoughnessBlurred = 0;
  let poolPixels = 0;
  let poolLevel = Number.NaN;
  try {
    pool3.simulation.restore(pool);
    await pool3.ready();
    pool3.paused = false;
    await renderFrames(engine, poolScene, 2);
    pool3.paused = true;
    await untilReady(engine, poolScene, pool3);
    for (const blurred of [false, true]) {
      const { depth, width } = await readDepth(pool3, blurred);
      const height = depth.length / width;
      // The top's pixels: the middle half of the image (about 0.17 m square of the 0.36 m pool; its walls and
      // the edges of its top are left out), where a pixel and its four neighbours are water.
      let sum = 0;
      let pixels = 0;
      const at = (column: number, row: number) => depth[row * width + column];
      for (let row = Math.floor(0.25 * height); row < Math.floor(0.75 * height); row++) {
        for (let column = Math.floor(0.25 * width); column < Math.floor(0.75 * width); column++) {
          const z = at(column, row);
          if (!(z < 1e5)) continue;
          const left = at(column - 1, row);
          const right = at(column + 1, row);
          const below = at(column, row - 1);
          const above = at(column, row + 1);
          if (!(left < 1e5 && right < 1e5 && below < 1e5 && above < 1e5)) continue;
          const dx = z * z * (1 / left - 2 / z + 1 / right);
          const dy = z * z * (1 / below - 2 / z + 1 / above);
          sum += dx * dx + dy * dy;
          pixels += 2;
        }
      }
      const rms = pixels > 0 ? Math.sqrt(sum / pixels) : Number.NaN;
      if (blurred) {
        const middle = at(Math.floor(width / 2), Math.floor(height / 2));
        // The view's z axis in world space (the camera's forward), from the view matrix's third row.
        const view = poolCamera.getViewMatrix().m;
        const forward = new Vector3(view[2], view[6], view[10]).normalize();
        const hit = poolCamera.position.add(forward.scale(middle));
        const { Position } = pool3.simulation;
        let highest = Number.NEGATIVE_INFINITY;
        for (const id of pool3.simulation.particles()) {
          if (Math.hypot(Position.x[id] - hit.x, Position.z[id] - hit.z) < 0.02)
            highest = Math.max(highest, Position.y[id]);
        }
        poolLevel = hit.y - highest;
      }
      if (blurred) poolRoughnessBlurred = rms;
      else {
        poolRoughness = rms;
        poolPixels = pixels / 2;
      }
    }
  } finally {
    pool3.dispose();
    poolScene.dispose();
  }
  return { jetGapRows, jetRows, jetLongestGap, poolRoughness, poolRoughnessBlurred, poolPixels, poolLevel };
}

export async function ellipsoidRendering(
  engine: WebGPUEngine,
  options: EllipsoidRenderingOptions,
): Promise<EllipsoidRenderingResult> {
  const errors: string[] = [];
  const { drawing, backend, close } = drawingEngine(engine, options.target);
  const pool = poolScene();
  try {
    const spheres = await drawAndMeasure(drawing, backend, false, pool, errors);
    const anisotropic = await drawAndMeasure(drawing, backend, true, pool, errors);
    return { target: options.target, spheres, anisotropic, errors };
  } finally {
    close();
  }
}

/** Options of {@link liquidsRendering}. */
export interface LiquidsRenderingOptions {
  /** Which engine and backend, as {@link EllipsoidRenderingOptions}. */
  target: 'webgpu' | 'webgpu-cpu' | 'webgl';
}

/** One drawing of the two-liquid scene. */
export interface LiquidsFigures {
  /** The water's render objects: their class names and material slots, in compositing order. */
  objects: { className: string; slot: number }[];
  /** Pixels of the block's middle region whose red exceeds their green by 10 (the red fluid inside shows). */
  redPixels: number;
  /** Pixels of that region. */
  pixels: number;
}

/** Result of {@link liquidsRendering}. */
export interface LiquidsRenderingResult {
  target: string;
  /** Babylon's one render object with per-particle colors (`look.anisotropy: false`): the nearest particle's. */
  nearest: LiquidsFigures;
  /** The default: one liquid per material. */
  liquids: LiquidsFigures;
  /** The same scene with the red material as the blue one's air material: its bubble look. */
  air: { objects: { className: string; slot: number }[]; airColor: number[] };
  errors: string[];
}

/**
 * A red cube (1000 kg/m^3) inside a blue block (500 kg/m^3), no gravity, r = 2 cm, seen from the front: drawn as
 * Babylon's per-particle colors (anisotropy off) and as two liquids (the default); the red fluid, wholly behind
 * blue particles, shows only as a liquid seen through the blue one.
 */
export async function liquidsRendering(
  engine: WebGPUEngine,
  options: LiquidsRenderingOptions,
): Promise<LiquidsRenderingResult> {
  const errors: string[] = [];
  const { drawing, backend, close } = drawingEngine(engine, options.target);
  const draw = async (anisotropy: boolean, air: boolean): Promise<{ figures: LiquidsFigures; airColor: number[] }> => {
    const { scene, plugin } = await waterScene(
      drawing,
      new Vector3(0.18, 0.18, -0.45),
      new Vector3(0.18, 0.18, 0.18),
      anisotropy,
      errors,
      { backend, particleRadius: 0.02, capacity: 1000, gravity: [0, 0, 0] },
    );
    // A white background: the liquids filter the light behind them.
    scene.clearColor = new Color4(1, 1, 1, 1);
    try {
      const simulation = plugin.simulation;
      const blue = simulation.addMaterial({ restDensity: 500, color: [0.2, 0.3, 0.9] });
      const red = simulation.addMaterial({ restDensity: 1000, color: [0.9, 0.15, 0.1] });
      if (air) simulation.components.FluidMaterial.airMaterial[blue] = red;
      simulation.spawnBlock({ min: [0, 0, 0], max: [0.36, 0.36, 0.36], material: blue });
      for (const id of simulation.particles()) {
        const { x, y, z } = simulation.Position;
        if ([x[id], y[id], z[id]].every((value) => value > 0.1 && value < 0.26)) {
          simulation.components.Particle.material[id] = red;
        }
      }
      simulation.markParticlesChanged(simulation.particles());
      await plugin.ready();
      await renderFrames(drawing, scene, 2);
      plugin.paused = true;
      await untilReady(drawing, scene, plugin);
      drawing.beginFrame();
      scene.render();
      const reading = drawing.readPixels(0, 0, SIZE, SIZE);
      drawing.endFrame();
      const view = await reading;
      const pixels = new Uint8Array(view.buffer, view.byteOffset, 4 * SIZE * SIZE);
      let redPixels = 0;
      let region = 0;
      for (let row = Math.floor(0.35 * SIZE); row < Math.floor(0.65 * SIZE); row++) {
        for (let column = Math.floor(0.35 * SIZE); column < Math.floor(0.65 * SIZE); column++) {
          const k = 4 * (row * SIZE + column);
          region++;
          // The blue liquid alone is bluish (red below green); red seen through it lifts red over green.
          if (pixels[k] > pixels[k + 1] + 10) redPixels++;
        }
      }
      const views = (
        plugin as unknown as {
          display: {
            views: {
              fluid?: {
                renderObjects: readonly { renderObject: { object: { getClassName(): string } }; slot: number }[];
              };
            };
          };
        }
      ).display.views.fluid;
      const objects = (views?.renderObjects ?? []).map(({ renderObject, slot }) => ({
        className: renderObject.object.getClassName(),
        slot,
      }));
      const airTarget = views?.renderObjects.at(-1) as unknown as
        | { renderObject: { targetRenderer: { fluidColor: { r: number; g: number; b: number } } } }
        | undefined;
      const color = airTarget?.renderObject.targetRenderer.fluidColor;
      return { figures: { objects, redPixels, pixels: region }, airColor: color ? [color.r, color.g, color.b] : [] };
    } finally {
      plugin.dispose();
      scene.dispose();
    }
  };
  try {
    const nearest = (await draw(false, false)).figures;
    const liquids = (await draw(true, false)).figures;
    const air = await draw(true, true);
    return {
      target: options.target,
      nearest,
      liquids,
      air: { objects: air.figures.objects, airColor: air.airColor },
      errors,
    };
  } finally {
    close();
  }
}
