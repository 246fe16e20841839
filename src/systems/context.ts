/**
 * The one context every system is a function of: settings, the bitecs world and its stores, and the
 * solver's dense working arrays. Systems read and write it; nothing else is shared.
 */
import type { World } from 'bitecs';
import type { FluidComponents, FluidSettings } from '../components';
import {
  latticeDensityResponse,
  latticeGradientMoment,
  latticeGradientSum,
  latticeKernelSum,
  latticeNeighbourCount,
  poly6Coefficient,
  wallWeightTable,
} from '../core/kernels';
import { type CouplingWallList, createCouplingWallList, createPendingPushes } from './couple/state';
import { createDiffuseState, type DiffuseState, emptyDiffuseStats } from './diffuse/state';
import { createEntityIds, type EntityIds, type EntityIndex } from './entityIds';
import type { MpsState } from './mps/data';
import { createMultiFluidState, type MultiFluidState } from './multifluid/state';
import { PARTITION_COUNT } from './parallel/kernels';
import { ThreadPool } from './parallel/pool';
import { createProjectionState, type ProjectionState, projectionMaxCells } from './projection/state';
import type { SignedDistanceField } from './sdf/field';
import { type CpuKernels, createCpuKernels, type ResidentSolverArrays, residentSolverArrays } from './wasm/state';

/** Figures of the last step, updated by the publish system. */
export interface FluidStats {
  /** Live particles. */
  particleCount: number;
  /**
   * Mean of |rho / rho0 - 1| over particles with a full neighbourhood (the particle and all its neighbours
   * have at least 80% of the neighbours a particle at rest density has, so particles within about one
   * kernel radius of the free surface or a wall are left out), from the densities of the last solver
   * iteration of the step. For the MPS solver, whose density is rho0 n / n0, this is the particle number
   * density error |n / n0 - 1| at the end of the step (Premoze et al. 2003, section 3.1).
   */
  meanDensityError: number;
  /** Maximum of |rho / rho0 - 1| over the same particles. */
  maxDensityError: number;
  /** How many particles had a full neighbourhood. */
  fullNeighbourhoodCount: number;
  /** Mean number of neighbours per particle (self excluded) within the kernel radius. */
  meanNeighbourCount: number;
  /** Wall-clock duration of the last step in milliseconds. */
  stepMilliseconds: number;
  /** Wall-clock milliseconds of the last step per system name (summed over substeps). */
  systemMilliseconds: Record<string, number>;
  /** Backend that ran the step. */
  backend: string;
  /** Particles the emitters added in the last step. */
  emittedCount: number;
  /** Particles drains and lifetimes removed in the last step. */
  removedCount: number;
  /** True if an emitter stopped at the capacity in the last step (see `Emitter.blocked`). */
  emitterBlocked: boolean;
  /** Number of steps taken since creation. */
  stepCount: number;
  /**
   * Substeps the last step was split into: `settings.substeps` for PBF; for WCSPH (`solver: 'sph'`) the
   * adaptive count from the CFL and force conditions (at least `settings.substeps`, at most
   * `settings.sphMaxSubsteps`; see sph/cpu.ts).
   */
  solverSubsteps: number;
  /**
   * WCSPH: the largest particle acceleration |a| (m/s^2, gravity included) of the last substep; the force
   * condition dt <= 0.25 sqrt(h / |a|max) of the next step's substep count uses it. 0 for other solvers
   * and on the WebGPU backend (its accelerations are not read back).
   */
  maxAcceleration: number;
  /**
   * MPS solver only (0 for the others): the most preconditioned conjugate gradient iterations one pressure
   * solve (Premoze et al. 2003, eq. 14) took in the last step, over its substeps.
   */
  pressureSolveIterations: number;
  /**
   * MPS solver only (0 for the others): the largest final relative residual |b - A p| / |b| of the pressure
   * solves of the last step (dimensionless; on the CPU at most the tolerance when every solve converged; on
   * WebGPU the tolerance has a float32 floor of 1e-5 and a solve cut at the recorded iterations ends above it,
   * see docs/solvers.md, "MPS on WebGPU").
   */
  pressureSolveResidual: number;
  /**
   * Trapped air (Müller et al. 2005, section 3.4.1): air particles generated at the end of the last step
   * (see multifluid/air.ts). 0 when no material has an `airGenerationThreshold`. Also listed by
   * `lastEmitted()` and counted in `emittedCount`.
   */
  airGeneratedCount: number;
  /**
   * Air and vapour particles deleted at the end of the last step (section 3.4.2: away from the liquid,
   * isolated, or at the free surface). Also listed by `lastRemoved()` and counted in `removedCount`.
   */
  airRemovedCount: number;
  /** Liquid particles that turned into vapour (boiled, section 4.4) at the end of the last step. */
  boiledCount: number;
  /**
   * WebGPU backend (0 on the CPU backend): substeps since creation whose diffusion of temperature and color
   * (Müller et al. 2005, eq. 15) needed more explicit parts than the step recorded from its estimate
   * (`diffusionSlots` in gpu/scene.ts), so that the GPU diffused less in them than the CPU would. Counted
   * as readbacks bring it (a console warning is printed the first time); should stay 0.
   */
  diffusionLimitedSubsteps: number;
  /**
   * PBF with the coarse pressure projection (projection/cpu.ts): the most conjugate gradient iterations
   * one substep's projection took in the last step (0 when it is off or there are no particles). On the
   * WebGPU backend: the iterations of the last substep before the latest readback (it arrives a step or two
   * late).
   */
  projectionIterations: number;
  /**
   * Threads that ran the last step's PBF pair loops on the CPU backend: 1 plus the worker threads started
   * (the `threads` option; 1 before the first step with 500 particles, where shared memory is missing or no
   * worker could start, and on the WebGPU backend).
   */
  threads: number;
  /**
   * Of the last step's partitioned pair-loop jobs (16 partitions each), how many partitions the worker threads
   * ran; the stepping thread ran the rest. 0 on one thread.
   */
  workerPartitions: number;
  /**
   * Whether the last step ran any of its loops in WebAssembly on the CPU backend (the `webAssembly` option:
   * with any thread count the neighbour lists of every solver on the dense grid and PBF's coarse projection
   * transfers; on one thread PBF's lambda, XSPH and vorticity, the corrections too with one material whose
   * artificial pressure exponent is 4; the same results bit for bit as the TypeScript loops). False on the
   * WebGPU backend, on the hashed grid of particles spread far apart with WCSPH or MPS, and where WebAssembly is
   * missing.
   */
  webAssembly: boolean;
  /** White water (`diffuse.capacity`): live diffuse particles after the last step (0 when white water is off). */
  diffuseCount: number;
  /** Of them, spray (fewer than `settings.diffuseSprayNeighbours` fluid neighbours within h). */
  diffuseSprayCount: number;
  /** Of them, foam. */
  diffuseFoamCount: number;
  /** Of them, bubbles (more than `settings.diffuseBubbleNeighbours` fluid neighbours). */
  diffuseBubbleCount: number;
  /** Diffuse particles generated in the last step (those that found room). */
  diffuseGeneratedCount: number;
  /** Diffuse particles the last step would have generated but dropped at the capacity. */
  diffuseDroppedCount: number;
  /** Diffuse particles deleted in the last step (lifetime over, or not finite). */
  diffuseRemovedCount: number;
}

/** Dense per-material parameters, gathered from the `FluidMaterial` components at the start of a step. */
export interface MaterialTable {
  /** Number of materials. */
  count: number;
  /** Material entity id per slot. */
  readonly entity: Uint32Array;
  /** Slot of a material entity id, -1 if the entity is not a material. */
  readonly slotOfEntity: Int32Array;
  /** 1 / rho0 per slot. */
  readonly inverseRestDensity: Float64Array;
  /** Particle mass per slot (kg). */
  readonly mass: Float64Array;
  /** XSPH c per slot. */
  readonly viscosity: Float64Array;
  /** Vorticity epsilon per slot (m/s). */
  readonly vorticity: Float64Array;
  /** Absolute CFM epsilon per slot (1/m^2). */
  readonly relaxation: Float64Array;
  /** Artificial pressure k divided by the rest-lattice gradient sum (m^2), per slot. */
  readonly artificialPressureScale: Float64Array;
  /** Artificial pressure exponent n per slot. */
  readonly artificialPressureExponent: Float64Array;
  /** 1 / W(delta q) per slot (m^3). */
  readonly inverseArtificialPressureWeight: Float64Array;
  /**
   * (W(2r) / W(delta q))^n per slot with `settings.projectionFreeSurface` (else 0): the artificial pressure's
   * power at the rest spacing 2r, subtracted from it so that s_corr vanishes between particles at or beyond the
   * rest spacing (`artificialPressure`).
   */
  readonly artificialPressureRestPower: Float64Array;
  /**
   * WCSPH dynamic viscosity mu per slot (Pa s): the material's `dynamicViscosity`, or `settings.sphViscosity`
   * where that is negative (sph/cpu.ts, eq. 9 of Müller et al. 2005).
   */
  readonly dynamicViscosity: Float64Array;
}

/** Numbers of one collider pose in `ColliderTable.frames`: rotation (9, row-major), translation (3), scale (1). */
export const POSE_SIZE = 13;

/** Numbers per collider slot in `ColliderTable.frames`: the pose at the end of the substep, then at its start. */
export const COLLIDER_FRAME_STRIDE = 2 * POSE_SIZE;

/**
 * The WebGPU backend as the layers below it see it (docs/ARCHITECTURE.md, "Layers"): the context holds it,
 * the systems that create particles or check components call these; gpu/systems.ts's `GpuContext` is the one
 * implementation, and the GPU's own systems receive that whole object from the step's list (pipeline.ts).
 */
export interface GpuLink {
  /** The GPU solver's particle uploads. */
  readonly solver: {
    /** Queues a new particle's upload (entities.ts, `createParticle`). */
    queueAppend(entity: number): void;
    /** Visits every particle whose upload is still queued (multifluid/validate.ts checks their materials). */
    forEachPendingUpload(visit: (entity: number) => void): void;
    /** Whether the components' velocities are those of the GPU's last step (sph/cpu.ts's substep planner). */
    velocitiesCurrent(): boolean;
    /** Forgets a removed collider's GPU state (collide/entities.ts, `removeColliderEntity`). */
    forgetCollider(collider: number): void;
  };
}

/** Collider parameters gathered at the start of a step, plus the pose of the current substep. */
export interface ColliderTable {
  /** Number of colliders. */
  count: number;
  /** Collider entity id per slot. */
  readonly entity: Uint32Array;
  /**
   * Per slot, {@link COLLIDER_FRAME_STRIDE} numbers: rotation matrix R (row-major), translation t and
   * uniform scale s at the end of the current substep (0..12), then the same at its start (13..25).
   * A local point l is at world point s R l + t.
   */
  readonly frames: Float64Array;
  /** Signed distance fields of mesh colliders; `Collider.field[eid]` indexes this list (undefined: unused place). */
  readonly fields: (SignedDistanceField | undefined)[];
}

/** A per-particle typed array the neighbour sort permutes. */
export type PermutableArray = Float64Array | Int32Array | Uint32Array | Uint16Array;

/** Dense working arrays of the solver, indexed by the particle's place in the current sort order. */
export interface SolverState {
  /** Live particles in the arrays. */
  count: number;
  /**
   * The particles at the end of the last step (`publishSystem`; 0 before the first and after a restore): the
   * half neighbour lists of its last substep cover places 0 to `listedCount - 1`, and their final positions and
   * velocities are in the arrays until the next step. Particles created since are appended after them, and
   * one destroyed since gives its place to the last (whose arrays then hold the destroyed one's values); the
   * anisotropic particles read them between steps and check each place (ellipsoids/cpu.ts).
   */
  listedCount: number;
  /** Entity id of the particle at each place; the order follows the last cell sort (spatial locality). */
  readonly entity: Uint32Array;
  /** Place of each particle entity id in `entity`, -1 for non-particles. */
  readonly placeOfEntity: Int32Array;
  /** Positions x at the start of the substep. */
  readonly positionX: Float64Array;
  readonly positionY: Float64Array;
  readonly positionZ: Float64Array;
  /** Predicted positions x*. */
  readonly predictedX: Float64Array;
  readonly predictedY: Float64Array;
  readonly predictedZ: Float64Array;
  /** Velocities. */
  readonly velocityX: Float64Array;
  readonly velocityY: Float64Array;
  readonly velocityZ: Float64Array;
  /** Material slot per particle. */
  readonly material: Uint16Array;
  /** Particle mass (kg), from its material. */
  readonly mass: Float64Array;
  /** SPH density of the last solver iteration (kg/m^3). */
  readonly density: Float64Array;
  /** Scaling factor lambda (eq. 11). */
  readonly lambda: Float64Array;
  /**
   * The density constraint C_i of the last solver iteration (rho_i / rho0 - 1, or the number-density form
   * of density/numberDensity.ts), before clamping; the coarse projection relaxes its mean per grid cell.
   */
  readonly constraint: Float64Array;
  /** Position correction (eq. 14) or, in the velocity systems, a velocity change. */
  readonly deltaX: Float64Array;
  readonly deltaY: Float64Array;
  readonly deltaZ: Float64Array;
  /** Vorticity omega (eq. 15). */
  readonly vorticityX: Float64Array;
  readonly vorticityY: Float64Array;
  readonly vorticityZ: Float64Array;
  /** Wall weight Z (1/m^3) summed over nearby walls (Harada et al. 2007, eq. 12). */
  readonly wallWeight: Float64Array;
  /** Gradient of the wall weight with respect to the particle position (1/m^4). */
  readonly wallGradientX: Float64Array;
  readonly wallGradientY: Float64Array;
  readonly wallGradientZ: Float64Array;
  /**
   * Factor (<= 1) the last correction of each particle was scaled by when clamped to one particle radius;
   * the coupling scales a body's share of the correction by it.
   */
  readonly correctionScale: Float64Array;
  /**
   * Per particle place, the factor (m^3) that turns lambda times the wall-weight gradient into the wall's
   * push before clamping, dx = correctionScale lambda wallShareScale grad Z: m_i / rho0 in the single-fluid
   * solve, V_i b_i in the number-density solve, b_i = 2 mbar_i / m_i - 1 where mbar_i > m_i, else
   * mbar_i / m_i (density/numberDensity.ts). Written by both density
   * paths; the coupling gives a body the matching share (couple/cpu.ts), so the push and the body's
   * impulse stay equal and opposite.
   */
  readonly wallShareScale: Float64Array;
  /**
   * Per particle place, in the still-water mode (`projection.freeSurface`): 1 where this substep's coarse
   * projection solves the particle's cell, else 0 (set by projection/cpu.ts, read by the density solve). A
   * pair's s_corr is offset by the mean of its two particles' values times eq. 13's value at the rest
   * spacing (density/shared.ts), so water the projection does not reach keeps eq. 13 as written. Unused
   * (and not kept up to date) outside the mode, where the offset is 0.
   */
  readonly projectionSolved: Float64Array;
  /** Working arrays and this step's feature flags of the multi-fluid terms (see multifluid/). */
  readonly multiFluid: MultiFluidState;
  /**
   * Pending pushes of coupled colliders on each particle in the current solver iteration (see
   * `addPendingPush` in couple/cpu.ts): `PENDING_PUSHES` entries of `PENDING_STRIDE` numbers per particle
   * place (collider slot, -1 if free; displacement in m).
   */
  readonly pendingPushes: Float64Array;
  /** Collider slot of the particle's last contact in this substep, -1 if none. */
  readonly contactCollider: Int32Array;
  /** Contact normal pointing into the fluid side. */
  readonly contactNormalX: Float64Array;
  readonly contactNormalY: Float64Array;
  readonly contactNormalZ: Float64Array;
  /** Normal velocity relative to the collider before contact (m/s, <= 0). */
  readonly contactApproachSpeed: Float64Array;
  /** Integer cell coordinates (cell size h). */
  readonly cellX: Int32Array;
  readonly cellY: Int32Array;
  readonly cellZ: Int32Array;
  /** Hash bucket of each particle. */
  readonly cellHash: Uint32Array;
  /** Start of each hash bucket in the sorted order (length tableSize + 1). */
  readonly bucketStart: Int32Array;
  /** Write cursor per bucket during the counting sort. */
  readonly bucketCursor: Int32Array;
  /** Hash table size minus one (power of two). */
  readonly tableMask: number;
  /** Destination place of each particle in the counting sort. */
  readonly sortDestination: Int32Array;
  /** Scratch array for permutations. */
  readonly scratch: Float64Array;
  /** Start of each particle's half neighbour list in `neighbours` (length capacity + 1). */
  readonly neighbourStart: Int32Array;
  /**
   * Concatenated half neighbour lists: particle i lists its neighbours j > i (places), so each pair is
   * stored once. Grows when a substep needs more.
   */
  neighbours: Int32Array;
  /** Number of neighbours of each particle within h (self excluded, both halves counted). */
  readonly neighbourCount: Int32Array;
  /** Per neighbour pair: spiky gradient scale -45 / (pi h^6) (h - r)^2 / r of the last lambda pass (1/m^5). */
  pairGradient: Float64Array;
  /** Per neighbour pair: poly6 W(r) of the last lambda pass (1/m^3). */
  pairWeight: Float64Array;
  /** Sum over neighbours of the constraint gradient of particle i with respect to x_i (1/m). */
  readonly gradientX: Float64Array;
  readonly gradientY: Float64Array;
  readonly gradientZ: Float64Array;
  /** Sum of |grad_{x_j} C_i|^2 over the neighbours j (1/m^2). */
  readonly gradientSquares: Float64Array;
  /** Particle volume m / rho of the last density pass (m^3), for the velocity systems. */
  readonly volume: Float64Array;
  /** Every per-particle array the neighbour sort permutes (cell coordinates only in hashed mode). */
  readonly sortedArrays: readonly PermutableArray[];
  /** Offsets, in dense cell numbering, of the five forward cell rows scanned by the neighbour search. */
  readonly rowStarts: Int32Array;
  /** Candidate buffer of one cell's 27-cell neighbourhood. */
  candidates: Int32Array;
  /**
   * The partition plan of the pair loops (parallel/partitions.ts): each partition's first particle (and the
   * count last), each one's spill end, each one's first spill row, where each one's neighbour lists end.
   */
  readonly partitionBounds: Int32Array;
  /** The partitions' spill rows (parallel/kernels.ts), `SPILL_STRIDE` values each; grows when needed. */
  spill: Float64Array;
  /** Whether the arrays the threads read are `SharedArrayBuffer`s (more than one thread wanted and possible). */
  readonly sharedMemory: boolean;
}

/** Constants of the rest lattice, derived from the settings once. */
export interface LatticeConstants {
  /** Lattice spacing 2r (m). */
  readonly spacing: number;
  /** Sum of poly6 over the lattice (1/m^3); particle mass = rho0 / kernelSum. */
  readonly kernelSum: number;
  /** Sum of |grad C|^2 over the lattice (1/m^2). */
  readonly gradientSum: number;
  /** Neighbours of a lattice particle inside h. */
  readonly neighbourCount: number;
  /** First moment of the spiky gradient over the lattice (`latticeGradientMoment`, dimensionless). */
  readonly gradientMoment: number;
  /** Growth of the lattice's density per unit squeeze along one axis (`latticeDensityResponse`). */
  readonly densityResponse: number;
  /** Neighbour count from which a neighbourhood is full (80% of the rest-density expectation). */
  readonly fullNeighbourhood: number;
  /** Wall weight function Z(d) tabulated over [0, h] (see `wallWeightTable`). */
  readonly wallWeight: Float64Array;
}

/** Entity bookkeeping of the emit-and-drain system. */
export interface EntityEvents {
  /** Emitter entity ids, in creation order. */
  readonly emitters: number[];
  /** Drain entity ids, in creation order. */
  readonly drains: number[];
  /** Ids of the particles the emitters added in the last step (first `emittedCount` entries). */
  readonly emitted: Uint32Array;
  /** Ids of the particles removed by drains and lifetimes in the last step (first `removedCount` entries). */
  readonly removed: Uint32Array;
  /** State of the simulation's deterministic random generator (mulberry32), for the emitters' spread. */
  randomState: number;
  /** Scratch of one nozzle layer's lattice points (pairs across the nozzle); grows when a nozzle needs more. */
  layer: Float64Array;
}

/** Everything a system function sees. */
export interface SimulationContext {
  /** World-wide settings. */
  readonly settings: FluidSettings;
  /** The bitecs world holding every entity of this simulation. */
  readonly world: World;
  /** Component stores, indexed by entity id. */
  readonly components: FluidComponents;
  /** Solver working arrays. */
  readonly solver: SolverState;
  /** Materials of this step. */
  readonly materials: MaterialTable;
  /** Colliders of this step. */
  readonly colliders: ColliderTable;
  /** Lattice constants. */
  readonly lattice: LatticeConstants;
  /** Statistics of the last step. */
  readonly stats: FluidStats;
  /** Every entity id of the world is below this bound (fixed at creation). */
  readonly entityCapacity: number;
  /** The world's entity index and the order in which freed ids are reused (entityIds.ts). */
  readonly entityIds: EntityIds;
  /** Emitters, drains and the particles they added and removed. */
  readonly events: EntityEvents;
  /** The coarse pressure projection's grid and arrays (projection/cpu.ts). */
  readonly projection: ProjectionState;
  /** Wall-weight gradients of coupled colliders in the current solver iteration (see couple/cpu.ts). */
  readonly coupling: CouplingWallList;
  /** The threads that share the PBF pair loops (parallel/pool.ts); one thread where none can be started. */
  readonly threads: ThreadPool;
  /** The CPU backend's WebAssembly module (wasm/state.ts), when the `webAssembly` setting has it. */
  readonly cpuKernels: CpuKernels;
  /** White water's diffuse particles and working arrays (diffuse/state.ts; empty when it is off). */
  readonly diffuse: DiffuseState;
  /** Duration of the current step (s). */
  frameTimeStep: number;
  /** Duration of one substep (s). */
  substepTimeStep: number;
  /** Index of the current substep, 0 .. substepCount - 1. */
  substepIndex: number;
  /**
   * Substeps of the current step: `settings.substeps`, unless a step-start system (the WCSPH substep
   * planner) chose another count and set `substepTimeStep` to match.
   */
  substepCount: number;
  /**
   * The WebGPU backend while it runs the step, as the systems below it see it (see {@link GpuLink});
   * undefined on the CPU backend.
   */
  gpu?: GpuLink;
  /**
   * The MPS solver's state (mps/data.ts), created on first use by `mpsState` (mps/state.ts); undefined for the
   * other solvers.
   */
  mps?: MpsState;
}

function nextPowerOfTwo(value: number): number {
  let p = 1;
  while (p < value) p *= 2;
  return p;
}

/**
 * Allocates the solver arrays for `capacity` particles and `entityCapacity` entity ids; in shared memory
 * when `shared` (the thread pool's workers read them, parallel/pool.ts). `resident`: arrays that live in the
 * shared WebAssembly memory (`residentSolverArrays`, wasm/state.ts), taken instead of new ones.
 */
export function createSolverState(
  capacity: number,
  entityCapacity: number,
  shared = false,
  resident?: ResidentSolverArrays,
): SolverState {
  const f = (length = capacity) =>
    shared ? new Float64Array(new SharedArrayBuffer(length * 8)) : new Float64Array(length);
  const i32 = (length = capacity) =>
    shared ? new Int32Array(new SharedArrayBuffer(length * 4)) : new Int32Array(length);
  const tableSize = nextPowerOfTwo(Math.max(1024, 2 * capacity));
  const placeOfEntity = new Int32Array(entityCapacity);
  placeOfEntity.fill(-1);
  const sorted = {
    entity: new Uint32Array(capacity),
    positionX: f(),
    positionY: f(),
    positionZ: f(),
    predictedX: resident?.predictedX ?? f(),
    predictedY: resident?.predictedY ?? f(),
    predictedZ: resident?.predictedZ ?? f(),
    velocityX: resident?.velocityX ?? f(),
    velocityY: resident?.velocityY ?? f(),
    velocityZ: resident?.velocityZ ?? f(),
    material:
      resident?.material ?? (shared ? new Uint16Array(new SharedArrayBuffer(capacity * 2)) : new Uint16Array(capacity)),
    mass: resident?.mass ?? f(),
    constraint: resident?.constraint ?? f(),
    cellHash:
      resident?.cellHash ?? (shared ? new Uint32Array(new SharedArrayBuffer(capacity * 4)) : new Uint32Array(capacity)),
  };
  const pairCapacity = Math.max(1024, capacity * 24);
  // `resident` arrays (the shared WebAssembly memory) stand in for new ones, the sorted ones included.
  return {
    count: 0,
    listedCount: 0,
    placeOfEntity,
    ...sorted,
    sortedArrays: Object.values(sorted),
    cellX: i32(),
    cellY: i32(),
    cellZ: i32(),
    volume: resident?.volume ?? f(),
    density: resident?.density ?? f(),
    lambda: resident?.lambda ?? f(),
    deltaX: resident?.deltaX ?? f(),
    deltaY: resident?.deltaY ?? f(),
    deltaZ: resident?.deltaZ ?? f(),
    vorticityX: resident?.vorticityX ?? f(),
    vorticityY: resident?.vorticityY ?? f(),
    vorticityZ: resident?.vorticityZ ?? f(),
    wallWeight: resident?.wallWeight ?? f(),
    wallGradientX: resident?.wallGradientX ?? f(),
    wallGradientY: resident?.wallGradientY ?? f(),
    wallGradientZ: resident?.wallGradientZ ?? f(),
    correctionScale: resident?.correctionScale ?? f(),
    wallShareScale: f(),
    projectionSolved: resident?.projectionSolved ?? f(),
    multiFluid: createMultiFluidState(capacity),
    pendingPushes: createPendingPushes(capacity),
    contactCollider: resident?.contactCollider ?? i32(),
    contactNormalX: resident?.contactNormalX ?? f(),
    contactNormalY: resident?.contactNormalY ?? f(),
    contactNormalZ: resident?.contactNormalZ ?? f(),
    contactApproachSpeed: resident?.contactApproachSpeed ?? f(),
    bucketStart: i32(tableSize + 1),
    bucketCursor: new Int32Array(tableSize),
    tableMask: tableSize - 1,
    sortDestination: new Int32Array(capacity),
    scratch: f(),
    neighbourStart: i32(capacity + 1),
    neighbours: i32(pairCapacity),
    neighbourCount: resident?.neighbourCount ?? new Int32Array(capacity),
    pairGradient: f(pairCapacity),
    pairWeight: f(pairCapacity),
    gradientX: resident?.gradientX ?? f(),
    gradientY: resident?.gradientY ?? f(),
    gradientZ: resident?.gradientZ ?? f(),
    gradientSquares: resident?.gradientSquares ?? f(),
    rowStarts: new Int32Array(5),
    candidates: new Int32Array(1024),
    partitionBounds: i32(4 * PARTITION_COUNT + 1),
    spill: f(1024),
    sharedMemory: shared,
  };
}

/** Allocates the material table for `maxMaterials` materials. */
export function createMaterialTable(maxMaterials: number, entityCapacity: number): MaterialTable {
  const f = () => new Float64Array(maxMaterials);
  const slotOfEntity = new Int32Array(entityCapacity);
  slotOfEntity.fill(-1);
  return {
    count: 0,
    entity: new Uint32Array(maxMaterials),
    slotOfEntity,
    inverseRestDensity: f(),
    mass: f(),
    viscosity: f(),
    vorticity: f(),
    relaxation: f(),
    artificialPressureScale: f(),
    artificialPressureExponent: f(),
    inverseArtificialPressureWeight: f(),
    artificialPressureRestPower: f(),
    dynamicViscosity: f(),
  };
}

/** Allocates the collider table for `maxColliders` colliders. */
export function createColliderTable(maxColliders: number): ColliderTable {
  return {
    count: 0,
    entity: new Uint32Array(maxColliders),
    frames: new Float64Array(maxColliders * COLLIDER_FRAME_STRIDE),
    fields: [],
  };
}

/** Computes the lattice constants for particle radius r and kernel radius h. */
export function createLatticeConstants(particleRadius: number, kernelRadius: number): LatticeConstants {
  const spacing = 2 * particleRadius;
  const expected = ((4 / 3) * Math.PI * kernelRadius ** 3) / spacing ** 3 - 1;
  return {
    spacing,
    kernelSum: latticeKernelSum(spacing, kernelRadius),
    gradientSum: latticeGradientSum(spacing, kernelRadius),
    neighbourCount: latticeNeighbourCount(spacing, kernelRadius),
    gradientMoment: latticeGradientMoment(spacing, kernelRadius),
    densityResponse: latticeDensityResponse(spacing, kernelRadius),
    fullNeighbourhood: Math.ceil(0.8 * expected),
    wallWeight: wallWeightTable(particleRadius, kernelRadius),
  };
}

/** The largest particle speed (m/s) in the solver's velocity arrays (the substep planners of WCSPH and MPS). */
export function largestSpeed(solver: SolverState): number {
  const { velocityX, velocityY, velocityZ } = solver;
  let maxSpeedSquared = 0;
  for (let i = 0; i < solver.count; i++) {
    const speedSquared = velocityX[i] * velocityX[i] + velocityY[i] * velocityY[i] + velocityZ[i] * velocityZ[i];
    if (speedSquared > maxSpeedSquared) maxSpeedSquared = speedSquared;
  }
  return Math.sqrt(maxSpeedSquared);
}

/**
 * The largest speed (m/s) of the live particles' `Velocity` components (on the WebGPU backend, the velocities
 * of the last particle readback applied).
 */
export function largestComponentSpeed(ctx: SimulationContext): number {
  const s = ctx.solver;
  const { x, y, z } = ctx.components.Velocity;
  let maxSpeedSquared = 0;
  for (let i = 0; i < s.count; i++) {
    const eid = s.entity[i];
    const speedSquared = x[eid] * x[eid] + y[eid] * y[eid] + z[eid] * z[eid];
    if (speedSquared > maxSpeedSquared) maxSpeedSquared = speedSquared;
  }
  return Math.sqrt(maxSpeedSquared);
}

/** Poly6 at r = 0 for radius h (the self contribution to density per unit mass). */
export function selfWeight(h: number): number {
  return poly6Coefficient(h) * h ** 6;
}

/**
 * Creates the context of a simulation from resolved settings, for `world` created with `entityIndex`, whose
 * entity ids stay below `entityCapacity`: every array is allocated here, once.
 */
export function createSimulationContext(
  settings: FluidSettings,
  world: World,
  components: FluidComponents,
  entityCapacity: number,
  entityIndex: EntityIndex,
): SimulationContext {
  const threads = new ThreadPool(settings.threads, settings.maxMaterials);
  // With WebAssembly and a shared memory the solver's per-particle arrays live in the shared module's memory
  // (wasm/state.ts, residentSolverArrays): its kernels read and write them in place.
  const cpuKernels = createCpuKernels(settings.webAssembly);
  const resident = residentSolverArrays(cpuKernels, settings.capacity);
  return {
    settings,
    world,
    components,
    solver: createSolverState(settings.capacity, entityCapacity, threads.sharesMemory, resident),
    threads,
    materials: createMaterialTable(settings.maxMaterials, entityCapacity),
    colliders: createColliderTable(settings.maxColliders),
    lattice: createLatticeConstants(settings.particleRadius, settings.kernelRadius),
    stats: {
      particleCount: 0,
      meanDensityError: 0,
      maxDensityError: 0,
      fullNeighbourhoodCount: 0,
      meanNeighbourCount: 0,
      stepMilliseconds: 0,
      systemMilliseconds: {},
      backend: settings.backend,
      stepCount: 0,
      emittedCount: 0,
      removedCount: 0,
      emitterBlocked: false,
      solverSubsteps: settings.substeps,
      maxAcceleration: 0,
      pressureSolveIterations: 0,
      pressureSolveResidual: 0,
      airGeneratedCount: 0,
      airRemovedCount: 0,
      boiledCount: 0,
      diffusionLimitedSubsteps: 0,
      projectionIterations: 0,
      threads: 1,
      workerPartitions: 0,
      webAssembly: false,
      ...emptyDiffuseStats(),
    },
    entityCapacity,
    entityIds: createEntityIds(entityIndex, entityCapacity),
    // Sized for the capacity only where the projection runs (PBF on the CPU backend); elsewhere the smallest
    // grid, for a CPU fallback that turns it on.
    projection: createProjectionState(
      settings.capacity,
      settings.maxColliders,
      projectionMaxCells(settings.backend === 'cpu' && settings.solver === 'pbf' ? settings.capacity : 0),
    ),
    coupling: createCouplingWallList(1024),
    diffuse: createDiffuseState(settings.diffuseCapacity, settings.capacity),
    cpuKernels,
    events: {
      emitters: [],
      drains: [],
      emitted: new Uint32Array(settings.capacity),
      removed: new Uint32Array(settings.capacity),
      randomState: 0x9e3779b9,
      layer: new Float64Array(256),
    },
    frameTimeStep: settings.timeStep,
    substepTimeStep: settings.timeStep / settings.substeps,
    substepIndex: 0,
    substepCount: settings.substeps,
  };
}
