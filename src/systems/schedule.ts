/**
 * The step as one schedule per solver (docs/ARCHITECTURE.md, "The step"): each entry names a CPU system and
 * the GPU passes that do the same work, so the CPU backend's system list and the WebGPU backend's pass order
 * come from the same table. Adding a GPU pass: its WGSL beside the CPU code it mirrors, its definition in the
 * folder's `gpu.ts`, and its key in the entry's `gpu` list below (and the folder's definitions in
 * {@link gpuPassDefinitions} when the folder is new).
 */
import type { FluidSolver } from '../components';
import { colliderPoseSystem } from './collide/cpu';
import { collidePasses, collidePassKey } from './collide/gpu';
import type { SimulationContext } from './context';
import { couplePasses } from './couple/gpu';
import { densitySystem } from './density/cpu';
import { densityGpuPasses, densityPasses, numberDensityPasses } from './density/gpu';
import { diffuseSystem } from './diffuse/cpu';
import { diffuseGpuPasses, diffusePasses } from './diffuse/gpu';
import { emitSystem } from './emit/cpu';
import { gatherSystem } from './gather';
import { bookkeepingPasses } from './gpu/bookkeeping';
import type { GpuPasses, GpuPlan, PassDefinition } from './gpu/passes';
import {
  mpsCollisionSystem,
  mpsCommitSystem,
  mpsPressureSystem,
  mpsSubstepSystem,
  mpsViscositySystem,
} from './mps/cpu';
import { mpsPasses, mpsPressureGpuPasses } from './mps/gpu';
import { artificialBuoyancySystem, trappedAirSystem } from './multifluid/air';
import { multiFluidGpuPasses, multiFluidPasses } from './multifluid/gpu';
import { multiFluidInteractionSystem } from './multifluid/interaction';
import { boilingSystem } from './multifluid/phase';
import { neighbourSystem } from './neighbours/cpu';
import { neighbourListPass, sortPasses } from './neighbours/gpu';
import { predictSystem } from './predict/cpu';
import { predictPasses } from './predict/gpu';
import { projectionSystem } from './projection/cpu';
import { projectionGpuPasses, projectionPasses, projectionVariants } from './projection/gpu';
import { publishSystem } from './publish';
import { sphFinishSystem, sphForceSystem, sphNeighbourSystem, sphSubstepSystem } from './sph/cpu';
import { sphPasses } from './sph/gpu';
import type { FluidSystem, FluidSystemStage } from './system';
import { velocitySystem, viscosityVorticitySystem } from './velocity/cpu';
import { velocityPasses } from './velocity/gpu';

/** One entry of a schedule: a CPU system, the GPU passes that mirror it, or both. */
export interface ScheduleEntry {
  /** Name used in `stats.systemMilliseconds` (CPU backend). */
  readonly name: string;
  /** When it runs. */
  readonly stage: FluidSystemStage;
  /** The CPU system; absent where only the GPU has work for the entry. */
  readonly run?: (context: SimulationContext) => void;
  /**
   * The keys of the GPU passes that do the entry's work in one substep (a `substep` entry: every substep; a
   * `step-end` entry: the last substep, before the write-back), for a step of the given plan; absent where the
   * GPU has nothing to do (collider poses are uploaded with the scene).
   */
  readonly gpu?: GpuPasses;
}

/**
 * The neighbour search's GPU passes after `predict` (which counts the particles per bucket): scan, sort and,
 * in the `'list'` neighbour mode, the neighbour lists, whose pass also ends the sort (else `finish` does).
 */
const neighbourPasses: GpuPasses = (plan) => [
  ...plan.scanPasses,
  'bucketOrder',
  'rankParticles',
  'rankBuckets',
  'destination',
  'scatter',
  plan.neighbourMode === 'list' ? 'neighbourList' : 'finish',
];

/** Position Based Fluids (Macklin & Müller 2013, Algorithm 1), with the coarse projection and several fluids. */
export const pbfSchedule: readonly ScheduleEntry[] = [
  { name: 'emit', stage: 'step-start', run: emitSystem },
  { name: 'gather', stage: 'step-start', run: gatherSystem },
  { name: 'colliderPose', stage: 'substep', run: colliderPoseSystem },
  { name: 'predict', stage: 'substep', run: predictSystem, gpu: () => ['clear', 'predict'] },
  { name: 'neighbours', stage: 'substep', run: neighbourSystem, gpu: neighbourPasses },
  // The global part of the pressure solve, on a coarse grid of cells of size h (projection/cpu.ts, and
  // projection/gpu.ts on the GPU), from the predicted positions; off with `projection: false`.
  { name: 'projection', stage: 'substep', run: projectionSystem, gpu: projectionGpuPasses },
  { name: 'density', stage: 'substep', run: densitySystem, gpu: densityGpuPasses },
  {
    name: 'velocity',
    stage: 'substep',
    run: velocitySystem,
    gpu: (plan) => [plan.coupled ? 'velocityCoupled' : 'velocity'],
  },
  {
    name: 'viscosityVorticity',
    stage: 'substep',
    run: viscosityVorticitySystem,
    gpu: (plan) => (plan.vorticity ? ['viscosity', 'vorticity'] : ['viscosity']),
  },
  // Interface and surface tension, diffusion, collider heat (Müller et al. 2005): each only when in use.
  { name: 'multiFluid', stage: 'substep', run: multiFluidInteractionSystem, gpu: multiFluidGpuPasses },
  // Artificial buoyancy of air particles (eq. 17), a velocity-stage term like the ones above; only when in use.
  {
    name: 'artificialBuoyancy',
    stage: 'substep',
    run: artificialBuoyancySystem,
    gpu: (plan) => (plan.features.artificialBuoyancy ? ['buoyancy'] : []),
  },
  { name: 'publish', stage: 'step-end', run: publishSystem },
  // White water (diffuse/cpu.ts, diffuse/gpu.ts), when `diffuse.capacity` is set: after publish, on the final
  // positions and velocities and the last substep's neighbour lists, before boiling and trapped air change
  // the particles; on the GPU in the last substep before the write-back.
  { name: 'diffuse', stage: 'step-end', run: diffuseSystem, gpu: diffuseGpuPasses },
  // Boiling (section 4.4) and trapped air (3.4.1-3.4.2), only when in use: after publish, they read the last
  // substep's neighbour lists and positions (still matching the dense list), then change materials, append
  // new air particles and swap-remove deleted ones through the emitters' and drains' paths; the next step's
  // gather and neighbour search start from the consistent list (see multifluid/air.ts). On the GPU they run
  // in the last substep before the write-back, on the same final positions, velocities and temperatures.
  {
    name: 'boiling',
    stage: 'step-end',
    run: boilingSystem,
    gpu: (plan) => (plan.features.boiling ? ['boil'] : []),
  },
  {
    name: 'trappedAir',
    stage: 'step-end',
    run: trappedAirSystem,
    gpu: (plan) => (plan.features.airGeneration || plan.features.boiling ? ['airFields', 'airDecide'] : []),
  },
];

/**
 * Weakly compressible SPH (`solver: 'sph'`, see sph/cpu.ts): the same emit, gather, collider poses, neighbour
 * search, collisions, contact response and publish as PBF; the density solve and the XSPH/vorticity pass are
 * replaced by the WCSPH forces and leap-frog integration, and a step-start planner picks the substep count
 * from the CFL condition.
 */
export const sphSchedule: readonly ScheduleEntry[] = [
  { name: 'emit', stage: 'step-start', run: emitSystem },
  { name: 'gather', stage: 'step-start', run: gatherSystem },
  { name: 'sphSubsteps', stage: 'step-start', run: sphSubstepSystem },
  { name: 'colliderPose', stage: 'substep', run: colliderPoseSystem },
  {
    name: 'neighbours',
    stage: 'substep',
    run: sphNeighbourSystem,
    gpu: (plan) => ['clear', 'predict', ...neighbourPasses(plan)],
  },
  {
    name: 'sphForces',
    stage: 'substep',
    run: sphForceSystem,
    gpu: (plan) => [
      ...(plan.features.numberDensity ? ['restVolume'] : []),
      'sphDensity',
      'sphForces',
      ...(plan.coupled ? ['sphApply'] : []),
      collidePassKey(plan),
    ],
  },
  {
    name: 'velocity',
    stage: 'substep',
    run: velocitySystem,
    gpu: (plan) => [plan.coupled ? 'velocityCoupled' : 'velocity'],
  },
  { name: 'sphFinish', stage: 'substep', run: sphFinishSystem, gpu: () => ['sphFinish'] },
  // Several fluids (Müller et al. 2005): the same velocity-stage terms as PBF's, on the substep's final
  // positions and the velocities the kick, collisions and contact response left (on the GPU in delta, where
  // sphFinish put them), with the density and volume of the substep's density pass; each only when in use.
  { name: 'multiFluid', stage: 'substep', run: multiFluidInteractionSystem, gpu: multiFluidGpuPasses },
  {
    name: 'artificialBuoyancy',
    stage: 'substep',
    run: artificialBuoyancySystem,
    gpu: (plan) => (plan.features.artificialBuoyancy ? ['buoyancy'] : []),
  },
  { name: 'publish', stage: 'step-end', run: publishSystem },
  { name: 'diffuse', stage: 'step-end', run: diffuseSystem, gpu: diffuseGpuPasses },
  {
    name: 'boiling',
    stage: 'step-end',
    run: boilingSystem,
    gpu: (plan) => (plan.features.boiling ? ['boil'] : []),
  },
  {
    name: 'trappedAir',
    stage: 'step-end',
    run: trappedAirSystem,
    gpu: (plan) => (plan.features.airGeneration || plan.features.boiling ? ['airFields', 'airDecide'] : []),
  },
];

/**
 * Moving Particle Semi-implicit (`solver: 'mps'`, Premoze et al. 2003, Algorithm 1; see mps/cpu.ts): the same
 * emit, gather, collider poses, gravity and prediction, neighbour search, velocity with the contact response
 * and publish as PBF, around the MPS systems: explicit viscosity (eq. 9), particle collisions, and the
 * pressure entry (collide, number densities, the pressure Poisson equation by conjugate gradients, the
 * correction of eq. 15-17, collide again); a step-start planner picks the substep count from the CFL condition.
 * On the GPU the pressure entry records `plan.mpsIterations` conjugate gradient iterations (mps/gpu.ts), and
 * `mpsCommit` copies the velocities for the write-back, as WCSPH's `sphFinish` does.
 */
export const mpsSchedule: readonly ScheduleEntry[] = [
  { name: 'emit', stage: 'step-start', run: emitSystem },
  { name: 'gather', stage: 'step-start', run: gatherSystem },
  // The substep count from the CFL condition (mpsSettings.courantNumber).
  { name: 'mpsSubsteps', stage: 'step-start', run: mpsSubstepSystem },
  { name: 'colliderPose', stage: 'substep', run: colliderPoseSystem },
  { name: 'predict', stage: 'substep', run: predictSystem, gpu: () => ['clear', 'predict'] },
  { name: 'neighbours', stage: 'substep', run: neighbourSystem, gpu: neighbourPasses },
  { name: 'mpsViscosity', stage: 'substep', run: mpsViscositySystem, gpu: () => ['mpsViscosity'] },
  { name: 'mpsCollision', stage: 'substep', run: mpsCollisionSystem, gpu: () => ['mpsCollision', 'mpsAdvance'] },
  { name: 'mpsPressure', stage: 'substep', run: mpsPressureSystem, gpu: mpsPressureGpuPasses },
  {
    name: 'velocity',
    stage: 'substep',
    run: velocitySystem,
    gpu: (plan) => [plan.coupled ? 'velocityCoupled' : 'velocity'],
  },
  { name: 'mpsCommit', stage: 'substep', run: mpsCommitSystem, gpu: () => ['sphFinish'] },
  { name: 'publish', stage: 'step-end', run: publishSystem },
];

/** The schedule of a solver. */
export function gpuScheduleOf(solver: FluidSolver): readonly ScheduleEntry[] {
  if (solver === 'mps') return mpsSchedule;
  return solver === 'sph' ? sphSchedule : pbfSchedule;
}

/**
 * The GPU passes of one substep of a step of `plan`, and of its last substep, by key: the substep entries'
 * passes, then the write-back to the particle order, which also advances the substep counter (bookkeeping.wgsl); the last
 * substep has the step-end entries' passes before the write-back (boiling and trapped air read the final
 * positions, velocities and temperatures with the last sort's cells, before `writeBack` copies the materials
 * and deletion marks they set).
 */
export function gpuStepOrder(solver: FluidSolver, plan: GpuPlan): { substep: string[]; lastSubstep: string[] } {
  const schedule = gpuScheduleOf(solver);
  const substep: string[] = [];
  for (const entry of schedule) if (entry.stage === 'substep' && entry.gpu) substep.push(...entry.gpu(plan));
  const lastSubstep = [...substep];
  for (const entry of schedule) if (entry.stage === 'step-end' && entry.gpu) lastSubstep.push(...entry.gpu(plan));
  substep.push('writeBack');
  lastSubstep.push('writeBack');
  return { substep, lastSubstep };
}

/** The CPU systems of a schedule, in order. */
export function cpuSystemsOf(schedule: readonly ScheduleEntry[]): readonly FluidSystem[] {
  const systems: FluidSystem[] = [];
  for (const { name, stage, run } of schedule) if (run) systems.push({ name, stage, run });
  return systems;
}

/**
 * Every GPU pass a simulation of `solver` compiles (the schedule's keys, the head and tail of a step); white
 * water's only with `whiteWater` (a simulation with a `diffuse.capacity`).
 */
export function gpuPassDefinitions(solver: FluidSolver, whiteWater = false): readonly PassDefinition[] {
  const common = [
    ...bookkeepingPasses,
    ...predictPasses,
    ...sortPasses,
    neighbourListPass,
    ...densityPasses,
    ...collidePasses,
    ...couplePasses,
    ...velocityPasses,
    ...(whiteWater ? diffusePasses : []),
  ];
  // MPS compiles neither PBF's density passes nor the multi-fluid ones (it refuses several fluids); its
  // velocity copy for the write-back is WCSPH's `sphFinish`.
  if (solver === 'mps') {
    const finish = sphPasses.filter((pass) => pass.key === 'sphFinish');
    return [...common.filter((pass) => !densityPasses.includes(pass)), ...mpsPasses, ...finish];
  }
  return solver === 'sph'
    ? [...common, ...sphPasses, ...numberDensityPasses.filter((pass) => pass.key === 'restVolume'), ...multiFluidPasses]
    : [...common, ...projectionPasses, ...projectionVariants, ...numberDensityPasses, ...multiFluidPasses];
}
