/**
 * The coarse projection on the WebGPU backend (projection/gpu.ts) against the CPU reference (projection/cpu.ts),
 * in the harness page (gpu.html): one substep's projection on the same input, and resting pools stepped with
 * the defaults on the GPU.
 */
import type { WebGPUEngine } from '@babylonjs/core/Engines/webgpuEngine.js';
import { FluidSimulation } from '../../src';
import { gatherSceneSystem } from '../../src/systems/gather';
import { word } from '../../src/systems/gpu/layout';
import { ParticleInfo, ProjectionCell, ProjectionFace, ProjectionGrid } from '../../src/systems/gpu/structs';
import { adapterForTests } from '../../src/systems/gpu/testHooks';
import { projectionSystem } from '../../src/systems/projection/cpu';
import { CellType } from '../../src/systems/projection/state';
import { type RestFigures, restFigures, restingPool } from '../restingPool';
import { median } from './bench';
import { firstSubstepUpToNeighbours } from './parity';

/** Options of {@link projectionParity}. */
export interface ProjectionParityOptions {
  /** A sphere collider in the pool (default true). */
  sphere?: boolean;
  /** Steps to run on both backends before the compared one (default 0: the first substep). */
  warmSteps?: number;
  /** The conjugate gradients' tolerance on both backends (default the default, 1e-3). */
  tolerance?: number;
  /** The density relaxation on both backends (default the default, 0.2). */
  densityRelaxation?: number;
  /**
   * `projection: { freeSurface: true }` with a coupled board thinner than a cell lying on the surface (its
   * surroundings keep the surface layers; see `BODY_SURFACE_REACH`). Default false.
   */
  thinBoard?: boolean;
  /**
   * The still-water mode with two fluids (number-density constraint): the pool's upper half a second fluid
   * of 800 kg/m^3. Default false.
   */
  twoFluids?: boolean;
  /**
   * The WebGPU solver sized as on a GPU (`adapterForTests`): the conjugate gradients in 256 threads and the
   * cell passes over the largest grid, where SwiftShader gets 4 threads and indirect dispatches. Default false.
   */
  asOnGpu?: boolean;
}

/** Result of {@link projectionParity}. */
export interface ProjectionParityResult {
  particles: number;
  /** The grids: origin and dims on each backend. */
  cpuGrid: number[];
  gpuGrid: number[];
  /** Fluid cells of the solve on each backend, and cells whose type differs. */
  cpuFluidCells: number;
  gpuFluidCells: number;
  typeMismatches: number;
  /** Cells beside a thin coupled body on each backend (`besideBody`), and cells where the two differ. */
  cpuBesideBody: number;
  gpuBesideBody: number;
  besideBodyMismatches: number;
  /**
   * Particles whose cell the solve holds on each backend (`projectionSolved`, the GPU's solve[].w; still water
   * only, else 0 on both), and particles where the two differ.
   */
  cpuSolved: number;
  gpuSolved: number;
  solvedMismatches: number;
  /** Conjugate gradient iterations on each backend. */
  cpuIterations: number;
  gpuIterations: number;
  /** max |phi_gpu - phi_cpu| over the fluid cells, relative to max |phi_cpu|. */
  phiRelative: number;
  /** max |dv_gpu - dv_cpu| over the particles (m/s), and max |dv_cpu|, the projection's velocity changes. */
  velocityChangeDifference: number;
  velocityChangeScale: number;
  nonFinite: number;
}

/** The parity scene: a pool 12 particles deep filling a box tank, with a sphere resting in it. */
function parityScene(
  backend: 'cpu' | 'webgpu',
  engine: WebGPUEngine,
  sphere: boolean,
  options: ProjectionParityOptions,
): FluidSimulation {
  const radius = 0.02;
  const simulation = new FluidSimulation({
    particleRadius: radius,
    capacity: 4096,
    backend,
    engine,
    mirror: 'off',
    projection: {
      tolerance: options.tolerance,
      densityRelaxation: options.densityRelaxation,
      freeSurface: (options.thinBoard ?? false) || (options.twoFluids ?? false),
    },
  });
  const water = simulation.addMaterial(options.twoFluids ? { numberDensity: true } : {});
  const width = 0.48;
  // The tank is offset from the spawn lattice so that no particle sits on a cell boundary of the grid.
  simulation.addCollider({
    shape: 'box',
    min: [-0.0031, -0.0017, -0.0023],
    max: [width + 0.0009, 0.9, width + 0.0013],
    container: true,
  });
  if (sphere) simulation.addCollider({ shape: 'sphere', center: [0.24, 0.12, 0.24], radius: 0.07 });
  if (options.thinBoard) {
    // 4 cm thick in cells of 8 cm, on the water (coupled without a mass: solid on both backends).
    const board = simulation.addCollider({
      shape: 'box',
      min: [-0.12, -0.02, -0.1],
      max: [0.12, 0.02, 0.1],
      rigidBody: {},
    });
    // Off the grid's cell boundaries (a cell center on its face would be a tie of float32 against float64).
    simulation.setColliderTransform(board, { position: [0.2013, 0.5037, 0.2629], teleport: true });
  }
  if (options.twoFluids) {
    const oil = simulation.addMaterial({ numberDensity: true, restDensity: 800 });
    simulation.spawnBlock({ min: [0, 0, 0], max: [width, 6 * 2 * radius, width], material: water });
    simulation.spawnBlock({ min: [0, 6 * 2 * radius, 0], max: [width, 12 * 2 * radius, width], material: oil });
  } else {
    simulation.spawnBlock({ min: [0, 0, 0], max: [width, 12 * 2 * radius, width], material: water });
  }
  // A drop above the pool, out of the board's reach (BODY_SURFACE_REACH): too thin for the solve in the
  // still-water mode, so its particles keep eq. 13 as written.
  if (options.thinBoard) {
    simulation.spawnBlock({ min: [0.3513, 0.7631, 0.3517], max: [0.4713, 0.8831, 0.4717], material: water });
  }
  return simulation;
}

/**
 * The projection of one substep on both backends from the same state: the CPU's systems by hand up to the
 * projection, the GPU's passes up to `projectionGather`; the grids, cell types, pressures and the particles'
 * velocity changes compared.
 */
export async function projectionParity(
  engine: WebGPUEngine,
  options: ProjectionParityOptions = {},
): Promise<ProjectionParityResult> {
  const sphere = options.sphere ?? true;
  const cpu = parityScene('cpu', engine, sphere, options);
  if (options.asOnGpu) adapterForTests.description = { vendor: 'nvidia', architecture: 'hopper', description: '' };
  let gpu: FluidSimulation;
  try {
    gpu = parityScene('webgpu', engine, sphere, options);
  } finally {
    adapterForTests.description = undefined;
  }
  await gpu.ready();
  for (let k = 0; k < (options.warmSteps ?? 0); k++) {
    cpu.step();
    gpu.step();
    await gpu.readback();
  }
  // Both start the compared step from the GPU's state (the CPU's step differs by float rounding).
  const { Position, Velocity } = cpu;
  for (const eid of gpu.particles()) {
    Position.x[eid] = gpu.Position.x[eid];
    Position.y[eid] = gpu.Position.y[eid];
    Position.z[eid] = gpu.Position.z[eid];
    Velocity.x[eid] = gpu.Velocity.x[eid];
    Velocity.y[eid] = gpu.Velocity.y[eid];
    Velocity.z[eid] = gpu.Velocity.z[eid];
  }
  // The GPU's last density solve (place order: the particle order after its last substep), whose errors
  // the compared projection relaxes: the CPU takes them over, and the neighbour counts they were measured
  // with (the GPU tests those for a full neighbourhood, the CPU the counts of the current substep).
  const solver = gpu.gpuSolver;
  if (!solver) throw new Error('no GPU solver');
  const count = gpu.particleCount;
  const placeInfo = new Uint32Array(await solver.readBuffer('info', count * ParticleInfo.size));
  const placeSolve = new Float32Array(await solver.readBuffer('solve', count * 16));
  const lastSolve = new Map<number, number[]>();
  for (let k = 0; k < count; k++) {
    lastSolve.set(placeInfo[(k * ParticleInfo.size) / 4], [placeSolve[4 * k], placeSolve[4 * k + 2]]);
  }
  const ctx = firstSubstepUpToNeighbours(cpu);
  const s = ctx.solver;
  const inverseRestDensity = ctx.materials.inverseRestDensity;
  for (let i = 0; i < s.count; i++) {
    const [density, neighbours] = lastSolve.get(s.entity[i]) ?? [0, 0];
    s.constraint[i] = density * inverseRestDensity[s.material[i]] - 1;
    s.neighbourCount[i] = neighbours;
  }
  const before = new Map<number, number[]>();
  for (let i = 0; i < s.count; i++) before.set(s.entity[i], [s.velocityX[i], s.velocityY[i], s.velocityZ[i]]);
  projectionSystem(ctx);
  const state = ctx.projection;
  const cpuChange = new Map<number, number[]>();
  let velocityChangeScale = 0;
  for (let i = 0; i < s.count; i++) {
    const v = before.get(s.entity[i]) ?? [0, 0, 0];
    const dv = [s.velocityX[i] - v[0], s.velocityY[i] - v[1], s.velocityZ[i] - v[2]];
    cpuChange.set(s.entity[i], dv);
    velocityChangeScale = Math.max(velocityChangeScale, Math.hypot(dv[0], dv[1], dv[2]));
  }
  gatherSceneSystem(gpu.internalContext);
  solver.stepUntil('projectionGather', 1);
  const n = gpu.particleCount;
  const info = new Uint32Array(await solver.readBuffer('sortedInfo', n * ParticleInfo.size));
  const velocity = new Float32Array(await solver.readBuffer('sortedVelocity', n * 16));
  const solvedWords = new Float32Array(await solver.readBuffer('solve', n * 16));
  const gridWords = new Int32Array(await solver.readBuffer('projectionGrid', ProjectionGrid.size));
  const G = (name: string) => word(ProjectionGrid, name);
  const gpuGrid = ['originX', 'originY', 'originZ', 'dimsX', 'dimsY', 'dimsZ'].map((name) => gridWords[G(name)]);
  const cells = gridWords[G('cells')];
  const cellWords = new Uint32Array(
    await solver.readBuffer('projectionCell', Math.max(1, cells) * ProjectionCell.size),
  );
  const cellFloats = new Float32Array(cellWords.buffer);
  const C = (c: number, name: string) => word(ProjectionCell, name, c * ProjectionCell.size);
  const cpuGrid = [...state.plan.origin, ...state.plan.dims];
  let cpuFluidCells = 0;
  let gpuFluidCells = 0;
  let typeMismatches = 0;
  let cpuBesideBody = 0;
  let gpuBesideBody = 0;
  let besideBodyMismatches = 0;
  let phiScale = 0;
  let phiDifference = 0;
  const sameGrid = cpuGrid.every((value, k) => value === gpuGrid[k]);
  if (sameGrid) {
    for (let c = 0; c < state.plan.cells; c++) {
      const cpuType = state.type[c];
      const gpuType = cellWords[C(c, 'cellType')];
      if (cpuType === CellType.fluid) cpuFluidCells++;
      if (gpuType === CellType.fluid) gpuFluidCells++;
      if (cpuType !== gpuType) typeMismatches++;
      const gpuBeside = cellWords[C(c, 'besideBody')];
      cpuBesideBody += state.besideBody[c];
      gpuBesideBody += gpuBeside;
      if (gpuBeside !== state.besideBody[c]) besideBodyMismatches++;
      if (cpuType === CellType.fluid && gpuType === CellType.fluid) {
        phiScale = Math.max(phiScale, Math.abs(state.phi[c]));
        phiDifference = Math.max(phiDifference, Math.abs(state.phi[c] - cellFloats[C(c, 'phi')]));
      }
    }
  }
  const cpuSolvedByEntity = new Map<number, number>();
  for (let i = 0; i < s.count; i++) cpuSolvedByEntity.set(s.entity[i], s.projectionSolved[i]);
  let cpuSolved = 0;
  let gpuSolved = 0;
  let solvedMismatches = 0;
  let velocityChangeDifference = 0;
  let nonFinite = 0;
  for (let k = 0; k < n; k++) {
    const eid = info[(k * ParticleInfo.size) / 4];
    const v = before.get(eid);
    const dvCpu = cpuChange.get(eid);
    if (!v || !dvCpu) throw new Error(`entity ${eid} missing on the CPU`);
    const solvedCpu = cpuSolvedByEntity.get(eid) ?? -1;
    cpuSolved += solvedCpu;
    gpuSolved += solvedWords[4 * k + 3];
    if (solvedWords[4 * k + 3] !== solvedCpu) solvedMismatches++;
    const dv = [velocity[4 * k] - v[0], velocity[4 * k + 1] - v[1], velocity[4 * k + 2] - v[2]];
    if (!dv.every(Number.isFinite)) nonFinite++;
    velocityChangeDifference = Math.max(
      velocityChangeDifference,
      Math.hypot(dv[0] - dvCpu[0], dv[1] - dvCpu[1], dv[2] - dvCpu[2]),
    );
  }
  const result: ProjectionParityResult = {
    particles: n,
    cpuGrid,
    gpuGrid,
    cpuFluidCells,
    gpuFluidCells,
    typeMismatches: sameGrid ? typeMismatches : -1,
    cpuBesideBody,
    gpuBesideBody,
    besideBodyMismatches,
    cpuSolved,
    gpuSolved,
    solvedMismatches,
    cpuIterations: state.iterations,
    gpuIterations: gridWords[G('iterations')],
    phiRelative: phiScale > 0 ? phiDifference / phiScale : phiDifference,
    velocityChangeDifference,
    velocityChangeScale,
    nonFinite,
  };
  gpu.dispose();
  return result;
}

/** Options of {@link restingPoolOnGpu}. */
export interface RestingPoolOptions {
  depth: number;
  radius: number;
  /** Drop height (m), default 0. */
  drop?: number;
  /** Seconds to step (default 4). */
  seconds?: number;
  /** `projection: false` for the comparison without it. */
  projection?: boolean;
  /** `projection.freeSurface` (the still-water mode, the default); false leaves the surface layers to the density constraints. */
  freeSurface?: boolean;
  /** Wait for the GPU after every step and report the median frame (`npm run bench`); default false. */
  timed?: boolean;
}

/**
 * {@link RestFigures}, `stats.projectionIterations` after the last readback and, when timed, the median ms
 * of a step with the wait for the GPU.
 */
export interface GpuRestFigures extends RestFigures {
  projectionIterations: number;
  frameMilliseconds?: number;
}

/** The resting pool of tests/restingPool.ts on the WebGPU backend with the defaults, stepped `seconds`. */
export async function restingPoolOnGpu(engine: WebGPUEngine, options: RestingPoolOptions): Promise<GpuRestFigures> {
  const simulation = restingPool(options.depth, options.radius, options.drop ?? 0, {
    backend: 'webgpu',
    engine,
    ...(options.projection === false
      ? { projection: false }
      : options.freeSurface === false
        ? { projection: { freeSurface: false } }
        : {}),
  });
  await simulation.ready();
  const steps = Math.round((options.seconds ?? 4) / simulation.settings.timeStep);
  const times: number[] = [];
  for (let k = 0; k < steps; k++) {
    const start = performance.now();
    simulation.step();
    if (options.timed) {
      await simulation.gpuSolver?.finish();
      times.push(performance.now() - start);
    }
    if (k % 30 === 29) await simulation.readback();
  }
  await simulation.readback();
  const figures: GpuRestFigures = {
    ...restFigures(simulation, options.depth),
    projectionIterations: simulation.stats.projectionIterations,
  };
  simulation.dispose();
  if (times.length > 0) figures.frameMilliseconds = median(times);
  return figures;
}

/** Result of {@link projectionAfterRestore}. */
export interface ProjectionRestoreResult {
  /** `settings.projection` of a default WebGPU simulation, after `restore` of its own snapshot, and of `fromSnapshot`. */
  initially: boolean;
  afterRestore: boolean;
  fromSnapshot: boolean;
  /** `stats.projectionIterations` after a step and a readback following the restore. */
  iterationsAfterRestore: number;
}

/** A default WebGPU pool's snapshot restored into it and into a new simulation: the projection stays on. */
export async function projectionAfterRestore(engine: WebGPUEngine): Promise<ProjectionRestoreResult> {
  const simulation = restingPool(10, 0.025, 0, { backend: 'webgpu', engine });
  await simulation.ready();
  const initially = simulation.settings.projection;
  simulation.step();
  await simulation.readback();
  const snapshot = simulation.snapshot();
  simulation.restore(snapshot);
  const afterRestore = simulation.settings.projection;
  simulation.step();
  simulation.step();
  await simulation.readback();
  const iterationsAfterRestore = simulation.stats.projectionIterations;
  simulation.dispose();
  const copy = FluidSimulation.fromSnapshot(snapshot, { engine });
  const fromSnapshot = copy.settings.projection;
  copy.dispose();
  return { initially, afterRestore, fromSnapshot, iterationsAfterRestore };
}

/** Result of {@link scatterOnCellBoundary}. */
export interface ScatterBoundaryResult {
  /** The moved particle's grid row along y from its sort key (floor(x / h) - origin) and from floor(g). */
  keyRow: number;
  gridRow: number;
  /**
   * Per axis, the faces' mass sums over the particles' total mass after the GPU's `projectionScatter`: with the
   * particle where g = fl(x / h - origin) rounds up onto the next integer, and with it 0.1 mm lower.
   */
  onBoundary: number[];
  offBoundary: number[];
}

/**
 * The faces' sums on the GPU keep a particle whose grid coordinate rounds onto the next cell's integer (its
 * sort key's row and floor(g) differ): a 1,000-particle block at rest without gravity, one particle inside
 * moved to a y near 0.24 m whose fl(y / h) lies just below 3 (h = 8 cm, so 1 / h = 12.5 exactly in float32)
 * while the grid's origin is two cells below the floor (GRID_MARGIN), where g = fl(fl(y / h) + 2) rounds up
 * to 5. A particle gives its whole mass to the faces of each axis (its weights are normalised over the live
 * faces), so the sums must not change when the particle moves 0.1 mm lower, off the boundary.
 */
export async function scatterOnCellBoundary(engine: WebGPUEngine): Promise<ScatterBoundaryResult> {
  const h = 0.08;
  const origin = -2;
  // The float32 y nearest 0.24 (on the bit lattice) whose fl(y * 12.5) lies just below an integer that
  // fl(fl(y * 12.5) + 2) rounds up to (a tie rounded to even).
  const bits = new Uint32Array(1);
  const value = new Float32Array(bits.buffer);
  value[0] = 0.24;
  const start = bits[0];
  let y = Number.NaN;
  for (let step = 0; step < 4096 && Number.isNaN(y); step++) {
    bits[0] = start + (step % 2 === 0 ? step / 2 : -(step + 1) / 2);
    const scaled = Math.fround(value[0] * 12.5);
    if (Math.floor(Math.fround(scaled - origin)) !== Math.floor(scaled) - origin) y = value[0];
  }
  if (Number.isNaN(y)) throw new Error('no float32 y near 0.24 rounds onto the next cell');
  const keyRow = Math.floor(Math.fround(y * 12.5)) - origin;
  const gridRow = Math.floor(Math.fround(Math.fround(y * 12.5) - origin));
  const sums = async (particleY: number): Promise<number[]> => {
    const simulation = new FluidSimulation({
      particleRadius: 0.02,
      kernelRadius: h,
      capacity: 2048,
      backend: 'webgpu',
      engine,
      mirror: 'off',
      gravity: [0, 0, 0],
    });
    const water = simulation.addMaterial({});
    simulation.addCollider({ shape: 'box', min: [-0.0031, -0.0017, -0.0023], max: [0.6, 0.9, 0.6], container: true });
    const ids = simulation.spawnBlock({ min: [0, 0, 0], max: [0.4, 0.4, 0.4], material: water });
    const { Position } = simulation;
    let moved = ids[0];
    for (const id of ids) {
      const d = (id2: number) => Math.hypot(Position.x[id2] - 0.22, Position.y[id2] - y, Position.z[id2] - 0.22);
      if (d(id) < d(moved)) moved = id;
    }
    Position.y[moved] = particleY;
    await simulation.ready();
    const solver = simulation.gpuSolver;
    if (!solver) throw new Error('no GPU solver');
    gatherSceneSystem(simulation.internalContext);
    solver.stepUntil('projectionScatter', 1);
    const gridWords = new Int32Array(await solver.readBuffer('projectionGrid', ProjectionGrid.size));
    if (gridWords[word(ProjectionGrid, 'originY')] !== origin) {
      throw new Error(`grid origin y ${gridWords[word(ProjectionGrid, 'originY')]}, not ${origin}`);
    }
    const cells = gridWords[word(ProjectionGrid, 'cells')];
    const faceWords = new Float32Array(await solver.readBuffer('projectionFace', 3 * cells * ProjectionFace.size));
    const mass = simulation.internalContext.materials.mass[0];
    const totals = [0, 0, 0];
    for (let f = 0; f < 3 * cells; f++)
      totals[f % 3] += faceWords[word(ProjectionFace, 'mass', f * ProjectionFace.size)];
    const total = mass * ids.length;
    simulation.dispose();
    return totals.map((sum) => sum / total);
  };
  return {
    keyRow,
    gridRow,
    onBoundary: await sums(y),
    offBoundary: await sums(Math.fround(y - 1e-4)),
  };
}
