/**
 * MPS scenarios of the WebGPU backend against the CPU reference (run in the harness page, gpu.html): a small
 * scene (210 particles in a box tank with a sphere, falling or resting on the floor) built on both backends
 * with the same calls, so the same entity ids; stepped in lockstep with a readback after every step
 * (`mpsParity`), or stopped inside the GPU's first substep to compare the number densities, the assembled
 * equation and one conjugate gradient solve with the CPU's (`mpsSolveParity`); the refusal of a `maxSubsteps`
 * past the room of the poses and the substep plan without readbacks (`mpsRefusals`); and pools at rest on
 * either backend (`mpsRest`).
 */
import type { WebGPUEngine } from '@babylonjs/core/Engines/webgpuEngine.js';
import { FluidSimulation } from '../../src';
import type { SimulationContext } from '../../src/systems/context';
import { MPS_BLOCKS, MpsSolve } from '../../src/systems/gpu/structs';
import type { GpuContext } from '../../src/systems/gpu/systems';
import { mpsState } from '../../src/systems/mps/state';
import type { FluidSystem } from '../../src/systems/system';

const CAPACITY = 400;

function contextOf(simulation: FluidSimulation): SimulationContext {
  return (simulation as unknown as { context: SimulationContext }).context;
}

function gpuOf(simulation: FluidSimulation): GpuContext {
  const gpu = contextOf(simulation).gpu as GpuContext | undefined;
  if (!gpu) throw new Error('no WebGPU backend');
  return gpu;
}

/** Options of the MPS scenarios' scene. */
export interface MpsSceneOptions {
  /** Steps compared (default 10). */
  steps?: number;
  /** The block rests on the floor (else it starts 0.1 m above it, moving at 0.5 m/s along x). */
  resting?: boolean;
  /** `mps.maxSubsteps`. */
  maxSubsteps?: number;
  substeps?: number;
  /** Other `mps` options. */
  mps?: Record<string, number>;
}

function scene(backend: 'cpu' | 'webgpu', engine: WebGPUEngine, args: MpsSceneOptions): FluidSimulation {
  const simulation = new FluidSimulation({
    particleRadius: 0.025,
    capacity: CAPACITY,
    backend,
    engine,
    solver: 'mps',
    substeps: args.substeps,
    mps: { ...(args.maxSubsteps === undefined ? {} : { maxSubsteps: args.maxSubsteps }), ...args.mps },
  });
  const water = simulation.addMaterial({});
  simulation.addCollider({ shape: 'box', min: [0, 0, 0], max: [0.6, 0.6, 0.25], container: true });
  simulation.addCollider({ shape: 'sphere', center: [0.45, 0.05, 0.125], radius: 0.08 });
  const resting = args.resting === true;
  simulation.spawnBlock({
    min: [0, resting ? 0 : 0.1, 0],
    max: [0.35, resting ? 0.3 : 0.4, 0.25],
    material: water,
    velocity: [resting ? 0 : 0.5, 0, 0],
  });
  return simulation;
}

/** Per step, the two backends compared. */
export interface MpsParityStep {
  substepsCpu: number;
  substepsGpu: number;
  /** `stats.pressureSolveIterations` and `pressureSolveResidual` of each backend. */
  iterationsCpu: number;
  iterationsGpu: number;
  residualCpu: number;
  residualGpu: number;
  maxPositionDifference: number;
  maxVelocityDifference: number;
  /** Largest density difference relative to 1000 kg/m^3. */
  maxDensityDifference: number;
  meanHeightCpu: number;
  meanHeightGpu: number;
  /** `stats.meanDensityError` of each backend. */
  densityErrorCpu: number;
  densityErrorGpu: number;
  neighboursCpu: number;
  neighboursGpu: number;
}

/** Result of {@link mpsParity}. */
export interface MpsParityResult {
  particles: number;
  backend: string;
  steps: MpsParityStep[];
  nonFinite: number;
  outside: number;
}

/** Runs the scene on both backends for `args.steps` steps and compares them after every step. */
export async function mpsParity(engine: WebGPUEngine, args: MpsSceneOptions = {}): Promise<MpsParityResult> {
  const cpu = scene('cpu', engine, args);
  const gpu = scene('webgpu', engine, args);
  await gpu.ready();
  const steps: MpsParityStep[] = [];
  let nonFinite = 0;
  let outside = 0;
  for (let step = 0; step < (args.steps ?? 10); step++) {
    cpu.step();
    gpu.step();
    await gpu.readback();
    const result: MpsParityStep = {
      substepsCpu: cpu.stats.solverSubsteps,
      substepsGpu: gpu.stats.solverSubsteps,
      iterationsCpu: cpu.stats.pressureSolveIterations,
      iterationsGpu: gpu.stats.pressureSolveIterations,
      residualCpu: cpu.stats.pressureSolveResidual,
      residualGpu: gpu.stats.pressureSolveResidual,
      maxPositionDifference: 0,
      maxVelocityDifference: 0,
      maxDensityDifference: 0,
      meanHeightCpu: 0,
      meanHeightGpu: 0,
      densityErrorCpu: cpu.stats.meanDensityError,
      densityErrorGpu: gpu.stats.meanDensityError,
      neighboursCpu: cpu.stats.meanNeighbourCount,
      neighboursGpu: gpu.stats.meanNeighbourCount,
    };
    const ids = cpu.particles();
    for (const id of ids) {
      const a = [cpu.Position.x[id], cpu.Position.y[id], cpu.Position.z[id]];
      const b = [gpu.Position.x[id], gpu.Position.y[id], gpu.Position.z[id]];
      const va = [cpu.Velocity.x[id], cpu.Velocity.y[id], cpu.Velocity.z[id]];
      const vb = [gpu.Velocity.x[id], gpu.Velocity.y[id], gpu.Velocity.z[id]];
      if (!b.concat(vb).every(Number.isFinite)) nonFinite++;
      if (b.some((v, axis) => v < 0 || v > (axis === 2 ? 0.25 : 0.6))) outside++;
      result.maxPositionDifference = Math.max(
        result.maxPositionDifference,
        Math.hypot(a[0] - b[0], a[1] - b[1], a[2] - b[2]),
      );
      result.maxVelocityDifference = Math.max(
        result.maxVelocityDifference,
        Math.hypot(va[0] - vb[0], va[1] - vb[1], va[2] - vb[2]),
      );
      result.maxDensityDifference = Math.max(
        result.maxDensityDifference,
        Math.abs(cpu.Density[id] - gpu.Density[id]) / 1000,
      );
      result.meanHeightCpu += a[1] / ids.length;
      result.meanHeightGpu += b[1] / ids.length;
    }
    steps.push(result);
  }
  const particles = cpu.particleCount;
  const backend = gpu.backend;
  cpu.dispose();
  gpu.dispose();
  return { particles, backend, steps, nonFinite, outside };
}

/** Result of {@link mpsSolveParity}: largest differences over the particles in the first substep. */
export interface MpsSolveParityResult {
  particles: number;
  /** The rest number density n0. */
  restNumberDensity: number;
  /** Largest |n_gpu - n_cpu| / n0 at the start positions and at x*. */
  startDensityDifference: number;
  predictedDensityDifference: number;
  /** Particles on the free surface on each backend, and those classified differently. */
  surfaceCpu: number;
  surfaceGpu: number;
  surfaceMismatches: number;
  /** Of those, the ones whose n* / n0 lies within 1e-4 of beta on the CPU (a float32 rounding at the threshold). */
  surfaceMismatchesAtThreshold: number;
  /** Largest relative difference of the diagonal, and of b over max |b|. */
  diagonalDifference: number;
  rightHandSideDifference: number;
  /** Largest |p_gpu - p_cpu| over the largest p on the CPU (Pa / Pa), and that largest p. */
  pressureDifference: number;
  maxPressure: number;
  iterationsCpu: number;
  iterationsGpu: number;
  residualCpu: number;
  residualGpu: number;
  breakdown: number;
}

/** The warm start both backends get, by entity id (Pa): structured so that every matrix entry matters. */
function warmStart(id: number): number {
  return 500 + 37 * (id % 11);
}

/**
 * One substep of the resting scene on both backends from the same warm start: the CPU's step against the GPU's
 * passes up to the number densities and up to the end of the solve (`stepUntil`).
 */
export async function mpsSolveParity(
  engine: WebGPUEngine,
  options: MpsSceneOptions = {},
): Promise<MpsSolveParityResult> {
  const args: MpsSceneOptions = { resting: true, substeps: 1, maxSubsteps: 1, ...options };
  const cpu = scene('cpu', engine, args);
  const cpuContext = contextOf(cpu);
  const state = mpsState(cpuContext);
  for (const id of cpu.particles()) state.pressureOfEntity[id] = warmStart(id);
  cpu.step();
  const n = cpu.particleCount;
  const s = cpuContext.solver;
  const byEntity = new Map<number, number>();
  for (let place = 0; place < n; place++) byEntity.set(s.entity[place], place);

  /** The GPU's buffers after its passes up to `stopAfter` in the first substep. */
  async function gpuUntil(stopAfter: string) {
    const gpu = scene('webgpu', engine, args);
    await gpu.ready();
    const solver = gpuOf(gpu).solver;
    const warm = new Float32Array(contextOf(gpu).entityCapacity);
    for (const id of gpu.particles()) warm[id] = warmStart(id);
    solver.storageBuffer('mpsPressure').update(warm);
    const holder = gpu as unknown as { systems: readonly FluidSystem[] };
    holder.systems = holder.systems
      .filter((system) => system.name !== 'publish')
      .map((system) => (system.name === 'gpuStep' ? { ...system, run: () => solver.stepUntil(stopAfter) } : system));
    gpu.step();
    await solver.finish();
    const mps = new Float32Array(await solver.readBuffer('mps', MPS_BLOCKS.count * CAPACITY * 16));
    const info = new Uint32Array(await solver.readBuffer('sortedInfo', n * 16));
    const scalars = await solver.readBuffer('mpsSolve', MpsSolve.size);
    gpu.dispose();
    return { mps, info, words: new Uint32Array(scalars), floats: new Float32Array(scalars) };
  }
  const at = (block: number, place: number, component: number) => 4 * (block * CAPACITY + place) + component;
  const n0 = state.lattice.restNumberDensity;
  const beta = state.settings.surfaceThreshold;
  const densities = await gpuUntil('mpsNumberDensity');
  const solved = await gpuUntil('mpsCgFinish');
  const result: MpsSolveParityResult = {
    particles: n,
    restNumberDensity: n0,
    startDensityDifference: 0,
    predictedDensityDifference: 0,
    surfaceCpu: 0,
    surfaceGpu: 0,
    surfaceMismatches: 0,
    surfaceMismatchesAtThreshold: 0,
    diagonalDifference: 0,
    rightHandSideDifference: 0,
    pressureDifference: 0,
    maxPressure: 0,
    iterationsCpu: state.solveResult.iterations,
    iterationsGpu: solved.words[MpsSolve.offsets.iterations / 4],
    residualCpu: state.solveResult.residual,
    residualGpu: solved.floats[MpsSolve.offsets.residual / 4],
    breakdown: solved.words[MpsSolve.offsets.breakdown / 4],
  };
  let maxB = 0;
  for (let u = 0; u < state.matrix.rowCount; u++) maxB = Math.max(maxB, Math.abs(state.rightHandSide[u]));
  for (let place = 0; place < n; place++) result.maxPressure = Math.max(result.maxPressure, state.pressure[place]);
  const source = MPS_BLOCKS.source;
  for (let gpuPlace = 0; gpuPlace < n; gpuPlace++) {
    const place = byEntity.get(densities.info[4 * gpuPlace]);
    if (place === undefined) throw new Error('an entity of the GPU is not on the CPU');
    result.startDensityDifference = Math.max(
      result.startDensityDifference,
      Math.abs(densities.mps[at(source, gpuPlace, 0)] - state.startNumberDensity[place]) / n0,
    );
    result.predictedDensityDifference = Math.max(
      result.predictedDensityDifference,
      Math.abs(densities.mps[at(source, gpuPlace, 1)] - state.numberDensity[place]) / n0,
    );
  }
  for (let gpuPlace = 0; gpuPlace < n; gpuPlace++) {
    const place = byEntity.get(solved.info[4 * gpuPlace]) ?? -1;
    const diagonal = solved.mps[at(source, gpuPlace, 0)];
    const surfaceCpu = state.surface[place] === 1;
    const surfaceGpu = diagonal === 0;
    if (surfaceCpu) result.surfaceCpu++;
    if (surfaceGpu) result.surfaceGpu++;
    if (surfaceCpu !== surfaceGpu) {
      result.surfaceMismatches++;
      if (Math.abs(state.numberDensity[place] / n0 - beta) < 1e-4) result.surfaceMismatchesAtThreshold++;
      continue;
    }
    const pressure = solved.mps[at(MPS_BLOCKS.direction, gpuPlace, 0)];
    result.pressureDifference = Math.max(result.pressureDifference, Math.abs(pressure - state.pressure[place]));
    if (surfaceCpu) continue;
    const u = state.unknownOfPlace[place];
    const cpuDiagonal = state.matrix.diagonal[u];
    result.diagonalDifference = Math.max(result.diagonalDifference, Math.abs(diagonal - cpuDiagonal) / cpuDiagonal);
    result.rightHandSideDifference = Math.max(
      result.rightHandSideDifference,
      Math.abs(solved.mps[at(source, gpuPlace, 2)] - state.rightHandSide[u]) / maxB,
    );
  }
  result.pressureDifference /= Math.max(result.maxPressure, 1e-30);
  cpu.dispose();
  return result;
}

/** Result of {@link mpsRefusals}: the errors thrown (empty when none). */
export interface MpsRefusalsResult {
  backend: string;
  /** `step()` after `mpsSettings.maxSubsteps` was raised past the room of the poses. */
  maxSubstepsError: string;
  /** A step after it was undone. */
  laterError: string;
  /** `stats.solverSubsteps` of the first step without a readback (`mirror: 'off'`): from `settings.maxSpeed`. */
  substepsWithoutReadback: number;
}

/** The WebGPU MPS path's refusal of a larger maxSubsteps, and its substep plan without mirrored velocities. */
export async function mpsRefusals(engine: WebGPUEngine): Promise<MpsRefusalsResult> {
  const simulation = scene('webgpu', engine, {});
  await simulation.ready();
  const message = (run: () => void): string => {
    try {
      run();
      return '';
    } catch (error) {
      return error instanceof Error ? error.message : String(error);
    }
  };
  const mps = simulation.mpsSettings;
  if (!mps) throw new Error('no MPS settings');
  const before = mps.maxSubsteps;
  mps.maxSubsteps = 4096;
  const maxSubstepsError = message(() => simulation.step());
  mps.maxSubsteps = before;
  const laterError = message(() => simulation.step());
  await simulation.readback();
  simulation.dispose();
  const quiet = new FluidSimulation({
    particleRadius: 0.025,
    capacity: CAPACITY,
    backend: 'webgpu',
    engine,
    solver: 'mps',
    mirror: 'off',
  });
  const water = quiet.addMaterial({});
  quiet.addCollider({ shape: 'box', min: [0, 0, 0], max: [0.6, 0.6, 0.25], container: true });
  quiet.spawnBlock({ min: [0, 0, 0], max: [0.2, 0.2, 0.2], material: water });
  await quiet.ready();
  quiet.step();
  quiet.step();
  const substepsWithoutReadback = quiet.stats.solverSubsteps;
  quiet.dispose();
  return { backend: 'webgpu', maxSubstepsError, laterError, substepsWithoutReadback };
}

/** Options of {@link mpsRest}. */
export interface MpsRestOptions {
  /**
   * `'column'`: 8 x 16 x 8 particles, 0.8 m deep in a 0.4 m x 0.4 m container (tests/mps.test.ts's column);
   * `'tank'`: 20 x 8 x 5, 0.4 m deep in a 1 m x 0.25 m tank (its settling tank at a quarter of the particles).
   */
  scene: 'column' | 'tank';
  backend: 'cpu' | 'webgpu';
  /** Frames (default: 150 for the column, 180 for the tank). */
  frames?: number;
}

/** Result of {@link mpsRest}. */
export interface MpsRestResult {
  backend: string;
  particles: number;
  /** Column: the bottom layer's mean pressure over rho g h, h from the bottom layer to the free surface (frames after 90). */
  pressureRatio: number;
  /** The mean and largest speed at the end (m/s). */
  meanSpeed: number;
  maxSpeed: number;
  /**
   * Mean |rho / rho0 - 1| at the end over the particles deeper than 1.5 h below the highest particle (the
   * same selection on both backends: the stats' `meanDensityError` leaves out particles next to a cut
   * neighbourhood on the CPU, only the cut ones on the GPU), and its largest value after frame 30; how many
   * particles it takes at the end.
   */
  interiorDensityError: number;
  worstInteriorDensityError: number;
  interiorCount: number;
  /** `stats.meanDensityError` and `fullNeighbourhoodCount` at the end (logged). */
  meanDensityError: number;
  fullNeighbourhoodCount: number;
  /** The most conjugate gradient iterations and the largest residual of any step. */
  mostIterations: number;
  worstResidual: number;
  /** Particles outside the container at any readback. */
  outside: number;
  /** Milliseconds per frame, median (step and readback). */
  frameMilliseconds: number;
}

/**
 * A pool at rest on `backend` (the rest scenes of tests/mps.test.ts), stepped with an awaited readback per
 * frame; on both backends the pressures are those the particles' warm start keeps (`pressureOfEntity`, the
 * GPU's from each readback).
 */
export async function mpsRest(engine: WebGPUEngine, args: MpsRestOptions): Promise<MpsRestResult> {
  const column = args.scene === 'column';
  const size: [number, number, number] = column ? [0.4, 2, 0.4] : [1, 1, 0.25];
  const simulation = new FluidSimulation({
    solver: 'mps',
    particleRadius: 0.025,
    capacity: 1024,
    backend: args.backend,
    engine,
  });
  const water = simulation.addMaterial({});
  simulation.addCollider({ shape: 'box', min: [0, 0, 0], max: size, container: true });
  simulation.spawnBlock({ min: [0, 0, 0], max: column ? [0.4, 0.8, 0.4] : [1, 0.4, 0.25], material: water });
  await simulation.ready();
  const state = mpsState(contextOf(simulation));
  const r = simulation.settings.particleRadius;
  const frames = args.frames ?? (column ? 150 : 180);
  const times: number[] = [];
  let worstInteriorDensityError = 0;
  let interior = { error: 0, count: 0 };
  const h = simulation.settings.kernelRadius;
  const interiorError = () => {
    let top = 0;
    for (const id of simulation.particles()) top = Math.max(top, simulation.Position.y[id]);
    let error = 0;
    let count = 0;
    for (const id of simulation.particles()) {
      if (simulation.Position.y[id] > top - 1.5 * h) continue;
      error += Math.abs(simulation.Density[id] / 1000 - 1);
      count++;
    }
    return { error: count > 0 ? error / count : 0, count };
  };
  let mostIterations = 0;
  let worstResidual = 0;
  let outside = 0;
  let pressureSum = 0;
  let depthSum = 0;
  let samples = 0;
  for (let frame = 1; frame <= frames; frame++) {
    const start = performance.now();
    simulation.step();
    await simulation.readback();
    times.push(performance.now() - start);
    const stats = simulation.stats;
    mostIterations = Math.max(mostIterations, stats.pressureSolveIterations);
    worstResidual = Math.max(worstResidual, stats.pressureSolveResidual);
    interior = interiorError();
    if (frame > 30) worstInteriorDensityError = Math.max(worstInteriorDensityError, interior.error);
    for (const id of simulation.particles()) {
      const p = [simulation.Position.x[id], simulation.Position.y[id], simulation.Position.z[id]];
      if (p.some((v, axis) => !(v >= 0 && v <= size[axis]))) outside++;
    }
    if (!column || frame <= 90) continue;
    let bottomPressure = 0;
    let bottomHeight = 0;
    let bottomCount = 0;
    let surfaceHeight = 0;
    let surfaceCount = 0;
    for (const id of simulation.particles()) {
      const y = simulation.Position.y[id];
      if (y < 2 * r) {
        bottomPressure += state.pressureOfEntity[id];
        bottomHeight += y;
        bottomCount++;
      }
      if (state.pressureOfEntity[id] === 0 && y > 0.5) {
        surfaceHeight += y;
        surfaceCount++;
      }
    }
    pressureSum += bottomPressure / bottomCount;
    depthSum += surfaceHeight / surfaceCount - bottomHeight / bottomCount;
    samples++;
  }
  let speedSum = 0;
  let maxSpeed = 0;
  for (const id of simulation.particles()) {
    const speed = Math.hypot(simulation.Velocity.x[id], simulation.Velocity.y[id], simulation.Velocity.z[id]);
    speedSum += speed;
    maxSpeed = Math.max(maxSpeed, speed);
  }
  times.sort((a, b) => a - b);
  const result: MpsRestResult = {
    backend: simulation.backend,
    particles: simulation.particleCount,
    pressureRatio: column ? pressureSum / samples / (1000 * 9.81 * (depthSum / samples)) : 0,
    meanSpeed: speedSum / simulation.particleCount,
    maxSpeed,
    interiorDensityError: interior.error,
    worstInteriorDensityError,
    interiorCount: interior.count,
    meanDensityError: simulation.stats.meanDensityError,
    fullNeighbourhoodCount: simulation.stats.fullNeighbourhoodCount,
    mostIterations,
    worstResidual,
    outside,
    frameMilliseconds: times[Math.floor(times.length / 2)],
  };
  simulation.dispose();
  return result;
}
