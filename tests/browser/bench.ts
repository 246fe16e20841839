/**
 * The page's 'bench' scenario (`npm run bench`, bench/run.ts): WebGPU backend timings of the dam break of
 * bench/run.ts at several particle counts. Per count, after warm-up steps:
 * - ms per frame: wall time of `simulation.step()` + submit + wait for the GPU (median of the measured frames);
 * - ms per pass: `WebGpuSolver.profileStep`, which submits and waits around every pass (median per pass);
 * - where the device has 'timestamp-query': GPU time per pass from timestamp writes around each compute
 *   pass (Babylon's per-ComputeShader `gpuTimeInFrame` counters) in the same profiled steps, median per pass.
 *
 * The whole scenario aims at `budgetSeconds`: each count gets the frames that fit in what is left after
 * the minimum (3 frames and 1 profiled step) of every later count, extrapolated from this count's step time
 * in proportion to the particles, with a margin of {@link EXTRAPOLATION_MARGIN}. Warm-up steps are skipped
 * where one step is predicted to take longer than {@link WARMUP_BUDGET_MS} (the median of the frames then
 * drops the first, cold one), except on the first count, which warms up with two steps at least.
 */
import { ComputeShader } from '@babylonjs/core/Compute/computeShader.js';
import { WebGPUPerfCounter } from '@babylonjs/core/Engines/WebGPU/webgpuPerfCounter.js';
import type { WebGPUEngine } from '@babylonjs/core/Engines/webgpuEngine.js';
import { FluidSimulation } from '../../src';
import { adapterName, hasTimestampQueries } from './adapter';

/** Arguments of the 'bench' scenario. */
export interface BenchArguments {
  /** Particle counts (the scene gets about that many). */
  counts: number[];
  substeps: number;
  iterations: number;
  /** Measured frames per count at most (fewer for large counts, see {@link BenchRow.frames}). */
  frames: number;
  /** Wall time the scenario aims at (default 300 s); the minimum per count may exceed it. */
  budgetSeconds?: number;
  /** The multi-fluid dam break ({@link spawnDamBreakFluid}) instead of plain water. Default false. */
  multiFluid?: boolean;
  /** `false`: PBF without the coarse pressure projection (for comparing its cost). Default on. */
  projection?: boolean;
  /**
   * White water with room for this many diffuse particles per fluid particle (`diffuse.capacity`); its passes
   * show among the passes. Default 0: off.
   */
  diffuse?: number;
  /**
   * The solver (default `'pbf'`). WCSPH and MPS plan their substeps from the velocities of the last readback:
   * each measured frame is followed by an awaited `readback()` outside the timed part (a game's default
   * mirror reads back every frame), and `substeps` and `iterations` are then the medians the stats report.
   */
  solver?: 'pbf' | 'sph' | 'mps';
}

/** One particle count's medians. */
export interface BenchRow {
  particles: number;
  substeps: number;
  iterations: number;
  /** Warm-up steps before the measured frames. */
  warmupSteps: number;
  /** Frames measured for `frameMilliseconds`. */
  frames: number;
  /** Steps measured for `passMilliseconds` (and `gpuPassMilliseconds`). */
  profiledSteps: number;
  /** Median wall ms of step + submit + wait. */
  frameMilliseconds: number;
  /**
   * Median wall ms of `simulation.step()` alone: the page's thread recording the frame's passes (Babylon's
   * `ComputeShader.dispatch` per pass) and writing its uploads, before the GPU runs them.
   */
  stepMilliseconds: number;
  /** Compute dispatches of the first measured frame (each its own compute pass in Babylon). */
  dispatchesPerFrame: number;
  /** `stats.projectionIterations` after the profiled steps: the coarse projection's last solve (0 without it). */
  projectionIterations: number;
  /** WCSPH and MPS: the median `stats.solverSubsteps` of the measured frames; MPS: the median `stats.pressureSolveIterations`. */
  solverSubsteps?: number;
  pressureSolveIterations?: number;
  /** Median ms per pass name (summed over substeps and iterations), submit-and-wait around each pass. */
  passMilliseconds: Record<string, number>;
  /** Median GPU ms per pass name from timestamp queries (and `total`: their sum per step); absent without them. */
  gpuPassMilliseconds?: Record<string, number>;
}

/** Result of the 'bench' scenario. */
export interface BenchResult {
  adapter: string;
  timestampQueries: boolean;
  method: string;
  /** Why there are no timestamp-query timings, when there are none. */
  timestampNote?: string;
  rows: BenchRow[];
}

/** Fewest measured frames and profiled steps per count. */
const MIN_FRAMES = 3;
const MIN_PROFILED_STEPS = 1;
/** Warm-up steps per count: at most WARMUP_STEPS, and only those predicted to end within WARMUP_BUDGET_MS. */
const WARMUP_STEPS = 5;
const WARMUP_BUDGET_MS = 5000;
/** A profiled step's cost relative to a frame (a submit and a wait per pass). */
const PROFILED_STEP_COST = 1.1;
/** Margin on the cost of later counts extrapolated in proportion to the particles (it grows faster, and varies). */
const EXTRAPOLATION_MARGIN = 1.5;

/** The median of `values` (the mean of the middle two for an even count). */
export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 ? sorted[middle] : 0.5 * (sorted[middle - 1] + sorted[middle]);
}

/** Per-name medians of per-step records (a name missing from a step counts 0 there). */
function medians(records: Record<string, number>[]): Record<string, number> {
  const names: string[] = [];
  for (const record of records) for (const name in record) if (!names.includes(name)) names.push(name);
  const result: Record<string, number> = {};
  for (const name of names) result[name] = median(records.map((record) => record[name] ?? 0));
  return result;
}

/** Block sizes of bench/run.ts (particles along x, y, z) for its standard counts; other counts get a near cube. */
const BLOCKS: Record<number, [number, number, number]> = {
  5000: [20, 25, 10],
  10000: [20, 25, 20],
  20000: [25, 40, 20],
  50000: [40, 50, 25],
};

/**
 * Fills the dam break's block (`[0, 0, 0]` to `max`) and gives the tank its heat, for the CPU tables of
 * bench/run.ts and this scenario alike. Plain: one water material. Multi-fluid: every term of Müller et al.
 * 2005 on: oil (800 kg/m^3, interface color +0.5) in the lower half of the block under water (rest density
 * 1000 kg/m^3 at 293.15 K from alpha / T, eq. 16, interface color -0.5), both with the number-density
 * constraint, interface tension 0.5 N/m (eq. 11), surface tension 0.05 N/m (eq. 12), temperature and color
 * diffusion (eq. 14); the tank (collider `tank`) is a 350 K heat source.
 */
export function spawnDamBreakFluid(
  simulation: FluidSimulation,
  tank: number,
  max: [number, number, number],
  multiFluid: boolean,
): void {
  if (!multiFluid) {
    simulation.spawnBlock({ min: [0, 0, 0], max, material: simulation.addMaterial({}) });
    return;
  }
  const shared = {
    numberDensity: true,
    interfaceTension: 0.5,
    surfaceTension: 0.05,
    diffusivity: 1e-4,
    colorDiffusivity: 1e-4,
    initialTemperature: 293.15,
  };
  const oil = simulation.addMaterial({ ...shared, restDensity: 800, interfaceColor: 0.5, color: [0.9, 0.7, 0.1] });
  const water = simulation.addMaterial({
    ...shared,
    restDensity: 1000,
    temperatureDensity: 1000 * 293.15,
    interfaceColor: -0.5,
    color: [0.2, 0.4, 0.9],
  });
  const { Collider } = simulation.components;
  Collider.temperature[tank] = 350;
  Collider.heatTransfer[tank] = 1;
  const middle = 0.5 * max[1];
  simulation.spawnBlock({ min: [0, 0, 0], max: [max[0], middle, max[2]], material: oil });
  simulation.spawnBlock({ min: [0, middle, 0], max, material: water });
}

/** The dam break of bench/run.ts (analytic box tank, no obstacle) on the WebGPU backend. */
function damBreak(
  engine: WebGPUEngine,
  count: number,
  substeps: number,
  iterations: number,
  multiFluid: boolean,
  projection = true,
  diffuse = 0,
  solver: 'pbf' | 'sph' | 'mps' = 'pbf',
): FluidSimulation {
  const particleRadius = 0.025;
  const spacing = 2 * particleRadius;
  const n = Math.round(Math.cbrt(count));
  const [nx, ny, nz] = BLOCKS[count] ?? [n, n, Math.max(1, Math.round(count / (n * n)))];
  const simulation = new FluidSimulation({
    backend: 'webgpu',
    engine,
    mirror: 'off',
    particleRadius,
    capacity: nx * ny * nz,
    substeps,
    iterations,
    ...(projection ? {} : { projection: false as const }),
    ...(diffuse > 0 ? { diffuse: { capacity: Math.ceil(diffuse * nx * ny * nz) } } : {}),
    solver,
  });
  const width = nx * spacing;
  const tank = simulation.addCollider({
    shape: 'box',
    min: [0, 0, 0],
    max: [4 * width, 2 * ny * spacing, nz * spacing],
    container: true,
  });
  spawnDamBreakFluid(simulation, tank, [width, ny * spacing, nz * spacing], multiFluid);
  return simulation;
}

/** The name `profileStep` reports a shader's pass under: `fluid-scan1`, `fluid-scanAdd0` -> `scan`. */
function passName(shaderName: string): string {
  const name = shaderName.startsWith('fluid-') ? shaderName.slice('fluid-'.length) : shaderName;
  return name.startsWith('scan') ? 'scan' : name;
}

/** Collects timestamp-query durations per pass name while {@link TimestampRecorder.attach} is in force. */
class TimestampRecorder {
  /** Nanoseconds per pass name since the last `take`. */
  private times: Record<string, number> = {};
  private dispatched = 0;
  private received = 0;
  private readonly counters = new Map<ComputeShader, WebGPUPerfCounter>();
  private readonly shaders: ComputeShader[] = [];
  private originalDispatch: ComputeShader['dispatch'] | undefined;
  private originalDispatchIndirect: ComputeShader['dispatchIndirect'] | undefined;

  constructor(private readonly engine: WebGPUEngine) {}

  /**
   * Turns Babylon's GPU timing on and gives every compute shader dispatched from now on a counter of its
   * own (Babylon writes timestamps around a compute pass when its shader has `gpuTimeInFrame`, and hands
   * the duration to that counter once the query resolves).
   */
  attach(): void {
    this.engine.enableGPUTimingMeasurements = true;
    const recorder = this;
    const original = ComputeShader.prototype.dispatch;
    const originalIndirect = ComputeShader.prototype.dispatchIndirect;
    this.originalDispatch = original;
    this.originalDispatchIndirect = originalIndirect;
    ComputeShader.prototype.dispatch = function (this: ComputeShader, x: number, y?: number, z?: number): boolean {
      recorder.counterOf(this);
      const done = original.call(this, x, y, z);
      if (done) recorder.dispatched++;
      return done;
    };
    // The projection's passes over its cells read their workgroups from a buffer the GPU wrote.
    ComputeShader.prototype.dispatchIndirect = function (this: ComputeShader, buffer, offset): boolean {
      recorder.counterOf(this);
      const done = originalIndirect.call(this, buffer, offset);
      if (done) recorder.dispatched++;
      return done;
    };
  }

  private counterOf(shader: ComputeShader): void {
    if (this.counters.has(shader)) return;
    const name = passName(shader.name);
    const counter = new WebGPUPerfCounter();
    counter._addDuration = (_frameId: number, nanoseconds: number) => {
      this.times[name] = (this.times[name] ?? 0) + nanoseconds;
      this.received++;
    };
    this.counters.set(shader, counter);
    this.shaders.push(shader);
    (shader as { gpuTimeInFrame?: WebGPUPerfCounter }).gpuTimeInFrame = counter;
  }

  /**
   * Waits until every dispatched pass's duration arrived (the queries resolve after the submit), then
   * returns ms per pass name and starts afresh. Resets Babylon's query index, which only its `endFrame`
   * (not called here: no render loop) would reset.
   */
  async take(timeoutMs = 30_000): Promise<Record<string, number>> {
    const start = performance.now();
    while (this.received < this.dispatched) {
      if (performance.now() - start > timeoutMs) {
        throw new Error(`timestamp queries: ${this.received} of ${this.dispatched} durations arrived`);
      }
      await new Promise((resolve) => setTimeout(resolve, 1));
    }
    (this.engine as unknown as { _timestampIndex: number })._timestampIndex = 0;
    const result: Record<string, number> = {};
    let total = 0;
    for (const name in this.times) {
      result[name] = this.times[name] / 1e6;
      total += result[name];
    }
    result.total = total;
    this.times = {};
    this.dispatched = 0;
    this.received = 0;
    return result;
  }

  /**
   * Restores `dispatch`, removes the counters and turns GPU timing off. Babylon leaves the last timed
   * pass's timestamp writes on its shared compute pass descriptor (cleared only by a dispatch with a counter
   * while timing is off), so one empty dispatch of a timed shader clears them before the query set goes.
   */
  detach(): void {
    if (this.originalDispatch) ComputeShader.prototype.dispatch = this.originalDispatch;
    if (this.originalDispatchIndirect) ComputeShader.prototype.dispatchIndirect = this.originalDispatchIndirect;
    this.originalDispatch = undefined;
    this.originalDispatchIndirect = undefined;
    this.engine.enableGPUTimingMeasurements = false;
    const shader = this.shaders[0];
    if (shader) shader.dispatch(0);
    for (const timed of this.shaders) (timed as { gpuTimeInFrame?: WebGPUPerfCounter }).gpuTimeInFrame = undefined;
    this.counters.clear();
    this.shaders.length = 0;
  }
}

/**
 * The compute dispatches `run` records (Babylon's `ComputeShader.dispatch` and `dispatchIndirect` calls that
 * dispatched).
 */
function countDispatches(run: () => void): number {
  const original = ComputeShader.prototype.dispatch;
  const originalIndirect = ComputeShader.prototype.dispatchIndirect;
  let dispatches = 0;
  ComputeShader.prototype.dispatch = function (this: ComputeShader, x: number, y?: number, z?: number): boolean {
    const done = original.call(this, x, y, z);
    if (done) dispatches++;
    return done;
  };
  ComputeShader.prototype.dispatchIndirect = function (this: ComputeShader, buffer, offset): boolean {
    const done = originalIndirect.call(this, buffer, offset);
    if (done) dispatches++;
    return done;
  };
  try {
    run();
  } finally {
    ComputeShader.prototype.dispatch = original;
    ComputeShader.prototype.dispatchIndirect = originalIndirect;
  }
  return dispatches;
}

/** Median timings of the WebGPU dam break at each of `args.counts` particles (see the file's comment). */
export async function benchScenario(engine: WebGPUEngine, args: BenchArguments): Promise<BenchResult> {
  const timestampQueries = hasTimestampQueries(engine);
  const rows: BenchRow[] = [];
  let timestampNote: string | undefined = timestampQueries
    ? undefined
    : "the device has no 'timestamp-query' feature (the adapter does not offer it)";
  const budget = (args.budgetSeconds ?? 300) * 1000;
  const started = performance.now();
  /** Wall ms per particle of a frame at the previous count (undefined before the first). */
  let msPerParticle: number | undefined;
  for (let index = 0; index < args.counts.length; index++) {
    const count = args.counts[index];
    const simulation = damBreak(
      engine,
      count,
      args.substeps,
      args.iterations,
      args.multiFluid ?? false,
      args.projection,
      args.diffuse,
      args.solver,
    );
    try {
      await simulation.ready();
      const solver = simulation.gpuSolver;
      if (!solver) throw new Error('the simulation did not start on the WebGPU backend');
      // Warm-up (the first step also creates the pipelines and uploads the particles). Without a prediction
      // from the previous count, two steps: the second, warm one estimates the cost of a frame.
      const predicted = msPerParticle === undefined ? undefined : msPerParticle * simulation.particleCount;
      const leastWarmup = predicted === undefined ? 2 : 0;
      const warmup: number[] = [];
      let warmupTime = 0;
      while (warmup.length < WARMUP_STEPS) {
        const next = warmup.length > 0 ? warmup[warmup.length - 1] : predicted;
        if (warmup.length >= leastWarmup && next !== undefined && warmupTime + next > WARMUP_BUDGET_MS) break;
        const start = performance.now();
        simulation.step();
        await solver.finish();
        warmup.push(performance.now() - start);
        warmupTime += warmup[warmup.length - 1];
      }
      const estimate = Math.max(
        1,
        warmup.length > 1 ? median(warmup.slice(1)) : (warmup[0] ?? predicted ?? WARMUP_BUDGET_MS),
      );
      // Frames that fit in the budget left after the minimum of the later counts (scaled by particles).
      let reserve = 0;
      for (const later of args.counts.slice(index + 1)) {
        const steps = MIN_FRAMES + PROFILED_STEP_COST * MIN_PROFILED_STEPS;
        reserve += steps * estimate * (later / count) * EXTRAPOLATION_MARGIN;
      }
      const available = budget - (performance.now() - started) - reserve;
      const affordable = Math.floor(available / (estimate * (1 + 0.25 * PROFILED_STEP_COST)));
      const frames = Math.max(MIN_FRAMES, Math.min(args.frames, affordable));
      const profiledSteps = Math.max(MIN_PROFILED_STEPS, Math.ceil(frames / 4));

      const frameTimes: number[] = [];
      const stepTimes: number[] = [];
      const substepCounts: number[] = [];
      const solveIterations: number[] = [];
      const adaptive = args.solver === 'sph' || args.solver === 'mps';
      let dispatchesPerFrame = 0;
      for (let frame = 0; frame < frames; frame++) {
        const start = performance.now();
        if (frame === 0) dispatchesPerFrame = countDispatches(() => simulation.step());
        else simulation.step();
        stepTimes.push(performance.now() - start);
        await solver.finish();
        frameTimes.push(performance.now() - start);
        if (!adaptive) continue;
        substepCounts.push(simulation.stats.solverSubsteps);
        await simulation.readback();
        solveIterations.push(simulation.stats.pressureSolveIterations);
      }
      // Profiled steps; with timestamp queries, the same steps also time each pass on the GPU.
      const recorder = timestampQueries && timestampNote === undefined ? new TimestampRecorder(engine) : undefined;
      const profiles: Record<string, number>[] = [];
      const gpuTimes: Record<string, number>[] = [];
      try {
        recorder?.attach();
        for (let k = 0; k < profiledSteps; k++) {
          profiles.push(await solver.profileStep());
          if (recorder) gpuTimes.push(await recorder.take());
        }
      } catch (error) {
        if (!recorder) throw error;
        timestampNote = `timestamp queries failed: ${error instanceof Error ? error.message : String(error)}`;
      } finally {
        recorder?.detach();
      }
      await solver.finish();
      while (profiles.length < profiledSteps) profiles.push(await solver.profileStep());
      // The coarse projection's conjugate gradient iterations in the last substep (PBF; 0 without it).
      await simulation.readback();
      const projectionIterations = simulation.stats.projectionIterations;
      const row: BenchRow = {
        particles: simulation.particleCount,
        substeps: args.substeps,
        iterations: args.iterations,
        warmupSteps: warmup.length,
        frames,
        profiledSteps,
        frameMilliseconds: median(frameTimes),
        stepMilliseconds: median(stepTimes),
        dispatchesPerFrame,
        projectionIterations,
        passMilliseconds: medians(profiles),
      };
      if (adaptive) row.solverSubsteps = median(substepCounts);
      if (args.solver === 'mps') row.pressureSolveIterations = median(solveIterations);
      if (gpuTimes.length === profiledSteps) row.gpuPassMilliseconds = medians(gpuTimes);
      rows.push(row);
      msPerParticle = row.frameMilliseconds / Math.max(1, row.particles);
    } finally {
      simulation.dispose();
    }
  }
  const method =
    'frame: step + submit + wait, median of the measured frames; passes: submit and wait around each pass ' +
    `(profileStep), median of the profiled steps; frames fitted to a ${(budget / 1000).toFixed(0)} s budget` +
    (rows.some((row) => row.gpuPassMilliseconds)
      ? "; gpu passes: timestamp writes around each compute pass (Babylon's gpuTimeInFrame) in the profiled steps"
      : '');
  return { adapter: adapterName(engine), timestampQueries, method, timestampNote, rows };
}
