/**
 * The `deviceLoss` scenario of the WebGPU harness: a FluidPlugin on a WebGPU scene runs the WebGPU backend
 * and draws the water from the simulation's position buffer; then the device is destroyed while frames go
 * on. Nothing may throw into the render loop; the plugin must report the fall back to the CPU, which goes on
 * from the last mirrored particles (same count, moving, no NaN). If Babylon restores the device, the result
 * says whether the WebGPU backend took over again.
 */
import { FreeCamera } from '@babylonjs/core/Cameras/freeCamera.js';
import type { WebGPUEngine } from '@babylonjs/core/Engines/webgpuEngine.js';
import { Vector3 } from '@babylonjs/core/Maths/math.vector.js';
import { Scene } from '@babylonjs/core/scene.js';
import { FluidPlugin } from '../../src/plugin';

/** Arguments of the scenario. */
export interface DeviceLossArgs {
  /** Frames before the device is destroyed. Default 8. */
  framesBefore?: number;
  /** Frames on the CPU after the fall back. Default 12. */
  framesAfter?: number;
  /** Milliseconds to wait (rendering) for Babylon to restore the device. Default 6000. */
  restoreWaitMilliseconds?: number;
}

/** What the scenario reports. */
export interface DeviceLossResult {
  backendBefore: string;
  /** Particles drawn from the GPU buffer in the last frame before the loss (the fluid view's count). */
  drawnBefore: number;
  /** True when the fluid view drew from the storage buffer (no CPU positions) before the loss. */
  zeroCopyBefore: boolean;
  countBefore: number;
  stepsBefore: number;
  /** Exceptions that escaped `engine.beginFrame(); scene.render(); engine.endFrame()`. */
  thrown: string[];
  /** Uncaught errors and unhandled rejections of the page meanwhile (message and stack). */
  uncaught: string[];
  /** Errors the plugin reported through onErrorObservable. */
  reportedErrors: string[];
  /** Backend changes reported through onBackendChangedObservable, in order. */
  changes: { backend: string; reason: string }[];
  /** Frames rendered between the destroy() and the reported fall back. */
  framesUntilFallback: number;
  backendAfter: string;
  countAfter: number;
  stepsAfter: number;
  /** Largest distance (m) a particle moved during the CPU frames. */
  maximumDisplacement: number;
  /** Non-finite position or velocity components after the CPU frames. */
  nonFinite: number;
  /** Lowest and highest particle y after the CPU frames (the box container is 0..1 m). */
  minimumY: number;
  maximumY: number;
  /** Whether Babylon restored the device within the wait, and the backend then. */
  restored: boolean;
  backendAfterRestore: string;
  /** After the restore: steps taken on it, particles, and non-finite components after a readback. */
  stepsAfterRestore: number;
  countAfterRestore: number;
  nonFiniteAfterRestore: number;
  /** After the restore: the fluid view draws from the new solver's storage buffer, and how many particles. */
  zeroCopyAfterRestore: boolean;
  drawnAfterRestore: number;
}

const pause = (milliseconds: number) => new Promise((resolve) => setTimeout(resolve, milliseconds));

export async function deviceLoss(engine: WebGPUEngine, args: DeviceLossArgs = {}): Promise<DeviceLossResult> {
  const framesBefore = args.framesBefore ?? 8;
  const framesAfter = args.framesAfter ?? 12;
  const restoreWait = args.restoreWaitMilliseconds ?? 6000;
  const scene = new Scene(engine);
  const camera = new FreeCamera('camera', new Vector3(0.5, 0.6, -1.6), scene);
  camera.setTarget(new Vector3(0.5, 0.3, 0.2));
  const thrown: string[] = [];
  const uncaught: string[] = [];
  const onError = (event: ErrorEvent) => uncaught.push(`${event.message} ${event.error?.stack ?? ''}`);
  const onRejection = (event: PromiseRejectionEvent) =>
    uncaught.push(
      `rejection: ${event.reason instanceof Error ? `${event.reason.message} ${event.reason.stack}` : String(event.reason)}`,
    );
  window.addEventListener('error', onError);
  window.addEventListener('unhandledrejection', onRejection);
  const initAsync = engine.initAsync;
  let allowRestore = () => {};
  const restoreGate = new Promise<void>((resolve) => {
    allowRestore = resolve;
  });
  const releaseRestore = () => {
    Reflect.deleteProperty(engine, 'initAsync'); // the class's method again
    allowRestore();
  };
  const reportedErrors: string[] = [];
  const changes: { backend: string; reason: string }[] = [];
  const plugin = await FluidPlugin.create(scene, {
    particleRadius: 0.04,
    capacity: 1500,
    useDeltaTime: false,
    renderMode: 'fluid',
  });
  try {
    plugin.onErrorObservable.add((error) => reportedErrors.push(error.message));
    plugin.onBackendChangedObservable.add((change) => changes.push({ ...change }));
    const simulation = plugin.simulation;
    const water = simulation.addMaterial({});
    simulation.addCollider({ shape: 'box', min: [0, 0, 0], max: [1, 1, 0.4], container: true });
    simulation.spawnBlock({ min: [0, 0, 0], max: [0.4, 0.6, 0.4], material: water });
    const drawFrame = (): void => {
      try {
        engine.beginFrame();
        scene.render();
        engine.endFrame();
      } catch (error) {
        thrown.push(error instanceof Error ? error.message : String(error));
      }
    };
    const frame = async (): Promise<void> => {
      drawFrame();
      await pause(5); // lets readbacks and the device's lost promise resolve between frames
    };
    const backendBefore = plugin.backend;
    await plugin.ready();
    for (let k = 0; k < framesBefore; k++) await frame();
    await plugin.readback();
    const buffers = plugin.particleBuffers;
    const zeroCopyBefore = buffers.gpuPositions !== undefined;
    const drawnBefore = buffers.count;
    const countBefore = simulation.particleCount;
    const stepsBefore = simulation.stats.stepCount;

    // Babylon restores a lost device by itself, within milliseconds here: its restoration (a new device from
    // engine.initAsync) is held until the CPU frames below have run, so they run on the CPU backend.
    engine.initAsync = async (...initArgs: Parameters<WebGPUEngine['initAsync']>) => {
      await restoreGate;
      return initAsync.apply(engine, initArgs);
    };
    engine._device.destroy();
    let framesUntilFallback = 0;
    while (changes.length === 0 && framesUntilFallback < 200) {
      await frame();
      framesUntilFallback++;
    }
    const ids = simulation.particles();
    const { Position, Velocity } = simulation;
    const start = new Float64Array(3 * ids.length);
    for (let k = 0; k < ids.length; k++) {
      start[3 * k] = Position.x[ids[k]];
      start[3 * k + 1] = Position.y[ids[k]];
      start[3 * k + 2] = Position.z[ids[k]];
    }
    const stepsAtFallback = simulation.stats.stepCount;
    for (let k = 0; k < framesAfter; k++) await frame();
    let maximumDisplacement = 0;
    let nonFinite = 0;
    let minimumY = Number.POSITIVE_INFINITY;
    let maximumY = Number.NEGATIVE_INFINITY;
    for (let k = 0; k < ids.length; k++) {
      const eid = ids[k];
      const values = [
        Position.x[eid],
        Position.y[eid],
        Position.z[eid],
        Velocity.x[eid],
        Velocity.y[eid],
        Velocity.z[eid],
      ];
      for (const value of values) if (!Number.isFinite(value)) nonFinite++;
      const dx = Position.x[eid] - start[3 * k];
      const dy = Position.y[eid] - start[3 * k + 1];
      const dz = Position.z[eid] - start[3 * k + 2];
      maximumDisplacement = Math.max(maximumDisplacement, Math.hypot(dx, dy, dz));
      minimumY = Math.min(minimumY, Position.y[eid]);
      maximumY = Math.max(maximumY, Position.y[eid]);
    }
    const backendAfter = plugin.backend;
    const countAfter = simulation.particleCount;
    const stepsAfter = simulation.stats.stepCount - stepsAtFallback;

    // Now let Babylon restore the device; the backend may follow.
    releaseRestore();
    const waitStart = performance.now();
    while (plugin.backend !== 'webgpu' && performance.now() - waitStart < restoreWait) await frame();
    const restored = plugin.backend === 'webgpu';
    let stepsAfterRestore = 0;
    let nonFiniteAfterRestore = 0;
    let zeroCopyAfterRestore = false;
    if (restored) {
      const stepsAtRestore = simulation.stats.stepCount;
      await plugin.ready();
      for (let k = 0; k < 6; k++) await frame();
      stepsAfterRestore = simulation.stats.stepCount - stepsAtRestore;

      zeroCopyAfterRestore = buffers.gpuPositions === simulation.gpuSolver?.positionBuffer.getBuffer();
      await plugin.readback();
      for (const eid of simulation.particles()) {
        const values = [
          Position.x[eid],
          Position.y[eid],
          Position.z[eid],
          Velocity.x[eid],
          Velocity.y[eid],
          Velocity.z[eid],
        ];
        for (const value of values) if (!Number.isFinite(value)) nonFiniteAfterRestore++;
      }
    }
    return {
      backendBefore,
      drawnBefore,
      zeroCopyBefore,
      countBefore,
      stepsBefore,
      thrown,
      uncaught,
      reportedErrors,
      changes,
      framesUntilFallback,
      backendAfter,
      countAfter,
      stepsAfter,
      maximumDisplacement,
      nonFinite,
      minimumY,
      maximumY,
      restored,
      backendAfterRestore: plugin.backend,
      stepsAfterRestore,
      countAfterRestore: simulation.particleCount,
      nonFiniteAfterRestore,
      zeroCopyAfterRestore,
      drawnAfterRestore: buffers.count,
    };
  } finally {
    releaseRestore();
    window.removeEventListener('error', onError);
    window.removeEventListener('unhandledrejection', onRejection);
    plugin.dispose();
    scene.dispose();
  }
}
