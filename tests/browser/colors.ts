/**
 * The `gpuColors` scenario of the WebGPU harness: a FluidPlugin on a WebGPU scene (backend 'webgpu') with two
 * materials of different render colors, drawn as `'spheres'` (or `'points'`). After some frames the plugin
 * is paused and read back; then, per `colorBy`, one frame is drawn (which runs the GPU color pass) and the
 * plugin's GPU color buffer is read back and compared, place by place, with the colors the CPU feed
 * computes for the same particles (particleFeed.ts, `writeParticleColor`, from the read-back components; the
 * place's entity from the solver's `info` buffer). For `'color'`, game code first dyes some particles
 * (`Color` plus `markParticlesChanged`) and the plugin takes one step. Also: which color buffer the view
 * binds, and how many rendered pixels show each material's hue.
 */
import { FreeCamera } from '@babylonjs/core/Cameras/freeCamera.js';
import type { WebGPUEngine } from '@babylonjs/core/Engines/webgpuEngine.js';
import { Vector3 } from '@babylonjs/core/Maths/math.vector.js';
import type { FluidRenderingObjectCustomParticles } from '@babylonjs/core/Rendering/fluidRenderer/fluidRenderingObjectCustomParticles.js';
import { Scene } from '@babylonjs/core/scene.js';
import { FluidPlugin } from '../../src/plugin';
import type { FluidColorBy } from '../../src/plugin/colorMaps';
import { writeParticleColor } from '../../src/plugin/particleFeed';
import { ParticleInfo } from '../../src/systems/gpu/structs';

/** Options of {@link gpuColors}. */
export interface GpuColorsOptions {
  /** The debug view drawn. Default `'spheres'`. */
  renderMode?: 'spheres' | 'points';
  /** Frames (one step each) before the comparisons. Default 6. */
  frames?: number;
}

/** One `colorBy`'s comparison. */
export interface ColorComparison {
  colorBy: FluidColorBy;
  /** Places compared (the particles drawn). */
  compared: number;
  /** Largest |GPU - CPU| over every place's r, g, b, a. */
  maxDifference: number;
  /** Places whose color differs from the CPU's by more than 1e-5 in some channel. */
  mismatches: number;
  /** Distinct colors among the GPU's (rounded to 1e-3): the map really varies. */
  distinct: number;
  /** True when the GPU pass ran for this comparison (the color buffer changed since the previous one). */
  changed: boolean;
}

/** Result of {@link gpuColors}. */
export interface GpuColorsResult {
  backend: string;
  particles: number;
  drawn: number;
  comparisons: ColorComparison[];
  /** Particles dyed by game code before the `'color'` comparison. */
  dyed: number;
  /** The sphere (point) mesh binds a color vertex buffer over the plugin's GPU color buffer. */
  viewBindsColorBuffer: boolean;
  /** Rendered pixels (material colors) whose hue is the water's (blue) and the oil's (yellow). */
  /** The drawn debug mesh (points or spheres) reported ready, its material compiled, within 60 s. */
  viewReady: boolean;
  bluePixels: number;
  yellowPixels: number;
  /**
   * Then switched to the screen-space water (`'fluid'`, color by material, two materials: per-particle
   * tint): its render object generates the diffuse texture from a color vertex buffer over the same GPU
   * color buffer, and it got ready within 60 s of frames (its shaders compile in wall-clock time).
   */
  fluidDiffuse: boolean;
  fluidBindsColorBuffer: boolean;
  fluidReady: boolean;
  errors: string[];
}

const WATER: [number, number, number] = [0.1, 0.3, 0.9];
const OIL: [number, number, number] = [0.9, 0.7, 0.1];

export async function gpuColors(engine: WebGPUEngine, options: GpuColorsOptions = {}): Promise<GpuColorsResult> {
  const renderMode = options.renderMode ?? 'spheres';
  const scene = new Scene(engine);
  const camera = new FreeCamera('camera', new Vector3(0.3, 0.35, -1.1), scene);
  camera.setTarget(new Vector3(0.3, 0.25, 0.15));
  const errors: string[] = [];
  const plugin = await FluidPlugin.create(scene, {
    backend: 'webgpu',
    particleRadius: 0.025,
    capacity: 800,
    useDeltaTime: false,
    renderMode,
    colorBy: 'material',
    // Spheres in the water: two materials then take Babylon's per-particle color pass, which this checks (with
    // anisotropic particles they would be two liquids, tests/ellipsoids-webgpu.test.ts).
    look: { anisotropy: false },
  });
  plugin.onErrorObservable.add((error) => errors.push(error.message));
  try {
    const simulation = plugin.simulation;
    const water = simulation.addMaterial({ color: WATER });
    const oil = simulation.addMaterial({ color: OIL, restDensity: 800 });
    simulation.addCollider({ shape: 'box', min: [0, 0, 0], max: [0.6, 1, 0.3], container: true });
    simulation.spawnBlock({ min: [0, 0, 0], max: [0.3, 0.32, 0.3], material: water });
    simulation.spawnBlock({ min: [0.3, 0.1, 0], max: [0.6, 0.42, 0.3], material: oil });
    let pixels: Uint8Array | undefined;
    const frame = async (readPixels = false): Promise<void> => {
      engine.beginFrame();
      scene.render();
      const reading = readPixels
        ? engine.readPixels(0, 0, engine.getRenderWidth(), engine.getRenderHeight())
        : undefined;
      engine.endFrame();
      if (reading !== undefined) {
        const data = await reading;
        pixels = new Uint8Array(data.buffer, data.byteOffset, data.byteLength);
      }
      await new Promise((resolve) => setTimeout(resolve, 1));
    };
    // Frames (without steps while paused) until `isReady` holds, for at most 60 s: Babylon compiles a material's
    // shaders in the background, in wall-clock time, so a loaded machine needs more frames (a busy CI run drew
    // no points after the 6 frames and the readback that used to come first).
    const framesUntil = async (isReady: () => boolean): Promise<boolean> => {
      const deadline = performance.now() + 60_000;
      while (!isReady() && performance.now() < deadline) {
        await frame();
        await new Promise((resolve) => setTimeout(resolve, 10));
      }
      return isReady();
    };
    await plugin.ready();
    for (let k = 0; k < (options.frames ?? 6); k++) await frame();
    // No step from here on (but for the dye's): the GPU state stays what the readback shows.
    plugin.paused = true;
    // The pixels are read once the drawn view's material is compiled, as a game sees the view appear then.
    const viewReady = await framesUntil(
      () => plugin.debugMeshes.find((candidate) => candidate.isEnabled())?.isReady(true) === true,
    );
    await plugin.readback();
    const solver = simulation.gpuSolver;
    if (solver === undefined) throw new Error('the plugin does not run the WebGPU backend');
    const buffers = plugin.particleBuffers;
    plugin.colorRanges.speed = 1;
    plugin.colorRanges.density = 0.5;
    const comparisons: ColorComparison[] = [];
    let previous = new Float32Array(0);
    const compare = async (colorBy: FluidColorBy): Promise<void> => {
      plugin.colorBy = colorBy;
      await frame(colorBy === 'material');
      const colors = buffers.gpuColors?.colorBuffer;
      if (colors === undefined) throw new Error('no GPU color buffer after a frame');
      const count = buffers.count;
      const gpuView = await colors.read(0, count * 16, undefined, true);
      const gpu = new Float32Array(gpuView.buffer.slice(gpuView.byteOffset, gpuView.byteOffset + count * 16));
      const infoView = await solver.storageBuffer('info').read(0, count * ParticleInfo.size, undefined, true);
      const info = new Uint32Array(infoView.buffer, infoView.byteOffset, (count * ParticleInfo.size) / 4);
      const cpu = new Float32Array(4);
      const inverseSpeed = 1 / plugin.colorRanges.speed;
      const inverseDensity = 1 / plugin.colorRanges.density;
      let maxDifference = 0;
      let mismatches = 0;
      const distinct = new Set<string>();
      for (let place = 0; place < count; place++) {
        const entity = info[place * (ParticleInfo.size / 4) + ParticleInfo.offsets.entity / 4];
        writeParticleColor(simulation, entity, colorBy, inverseSpeed, inverseDensity, cpu, 0);
        let worst = 0;
        for (let channel = 0; channel < 4; channel++) {
          worst = Math.max(worst, Math.abs(gpu[4 * place + channel] - cpu[channel]));
        }
        if (!(worst <= 1e-5)) mismatches++;
        maxDifference = Math.max(maxDifference, Number.isNaN(worst) ? Number.POSITIVE_INFINITY : worst);
        distinct.add([0, 1, 2].map((channel) => gpu[4 * place + channel].toFixed(3)).join(','));
      }
      let changed = previous.length !== gpu.length;
      for (let k = 0; k < gpu.length && !changed; k++) changed = gpu[k] !== previous[k];
      previous = gpu;
      comparisons.push({ colorBy, compared: count, maxDifference, mismatches, distinct: distinct.size, changed });
    };
    await compare('material');
    await compare('speed');
    await compare('density');
    // Game code dyes every third particle magenta-ish (a different shade per particle) and uploads them.
    const ids = simulation.particles();
    const { Color } = simulation.components;
    const dyed: number[] = [];
    for (let k = 0; k < ids.length; k += 3) {
      const eid = ids[k];
      Color.red[eid] = 0.8;
      Color.green[eid] = (k % 50) / 50;
      Color.blue[eid] = 0.6;
      dyed.push(eid);
    }
    plugin.markParticlesChanged(dyed);
    plugin.colorBy = 'color';
    plugin.paused = false;
    await frame(); // one step uploads the dyes, then the color pass runs
    plugin.paused = true;
    await plugin.readback();
    await compare('color');
    const mesh = plugin.debugMeshes.find((candidate) => candidate.isEnabled());
    const kind = renderMode === 'spheres' ? 'particleColor' : 'color';
    const bound = mesh?.getVertexBuffer(kind)?.getBuffer();
    const colorBuffer = buffers.gpuColors?.colorBuffer.getBuffer();
    let bluePixels = 0;
    let yellowPixels = 0;
    const image = pixels ?? new Uint8Array(0);
    for (let p = 0; p + 3 < image.length; p += 4) {
      const [r, g, b] = [image[p], image[p + 1], image[p + 2]];
      if (b > 60 && b > 2.2 * r && b > 1.8 * g) bluePixels++;
      if (r > 60 && r > 3 * b && g > 2 * b) yellowPixels++;
    }
    plugin.colorBy = 'material';
    plugin.renderMode = 'fluid';
    const fluidReady = await framesUntil(() => plugin.fluidRenderObject?.object.isReady() === true);
    for (let k = 0; k < 3; k++) await frame();
    const fluid = plugin.fluidRenderObject;
    const fluidColors = (fluid?.object as FluidRenderingObjectCustomParticles | undefined)?.vertexBuffers.color;
    const fluidDiffuse = fluid?.targetRenderer.generateDiffuseTexture === true;
    const fluidBindsColorBuffer =
      fluidColors !== undefined && fluidColors.getBuffer() === buffers.gpuColors?.colorBuffer.getBuffer();
    return {
      fluidDiffuse,
      fluidBindsColorBuffer,
      fluidReady,
      backend: plugin.backend,
      particles: simulation.particleCount,
      drawn: buffers.count,
      comparisons,
      dyed: dyed.length,
      viewBindsColorBuffer: bound !== undefined && bound === colorBuffer,
      viewReady,
      bluePixels,
      yellowPixels,
      errors,
    };
  } finally {
    plugin.dispose();
    scene.dispose();
  }
}
