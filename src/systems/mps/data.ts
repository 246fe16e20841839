/**
 * The MPS solver's data (the context holds one, `SimulationContext.mps`; state.ts reads and writes it): its
 * weight function and lattice constants (Premoze et al. 2003, section 3.1), the working arrays, the pressure
 * solve's warm start.
 */

import { FluidError } from '../../core/errors';
import {
  type ConjugateGradientResult,
  type ConjugateGradientScratch,
  createConjugateGradientScratch,
  type SparseSymmetricMatrix,
} from './pcg';
import type { MpsSettings } from './settings';
import { createMpsWallTerms, type MpsWallTables, type MpsWallTerms, mpsWallTables } from './wallTables';

/** Space dimension d of the MPS operators (eq. 5-7). */
export const DIMENSION = 3;

/** Distances below this fraction of r_e count as this fraction in the MPS weight (w <= 9). */
export const MPS_MINIMUM_DISTANCE_FRACTION = 0.1;

/**
 * MPS weight w(r) = r_e / r - 1 for 0 <= r < r_e, else 0 (eq. 3; Koshizuka & Oka 1996), dimensionless,
 * for distance `r` (m) and interaction radius `re` (m, > 0). Distances below
 * {@link MPS_MINIMUM_DISTANCE_FRACTION} r_e count as that distance.
 */
export function mpsWeight(r: number, re: number): number {
  if (!(re > 0 && Number.isFinite(re))) throw new FluidError(`re is ${re}; it must be a finite number > 0 (m)`);
  if (!(r >= 0)) throw new FluidError(`r is ${r}; it must be a number >= 0 (m)`);
  if (r >= re) return 0;
  const floor = MPS_MINIMUM_DISTANCE_FRACTION * re;
  return re / (r > floor ? r : floor) - 1;
}

/** Rest constants of the MPS operators for one particle radius and interaction radius. */
export interface MpsLatticeConstants {
  /** Rest particle number density n0: sum of w over the spawn lattice, self excluded (dimensionless). */
  readonly restNumberDensity: number;
  /** lambda of the Laplacian model (eq. 8), sum w r^2 / sum w over the lattice (m^2). */
  readonly laplacianLambda: number;
  /** Ghost sums behind a flat wall (walls.ts). */
  readonly wallTables: MpsWallTables;
}

/**
 * Rest constants for particle radius `particleRadius` (m, spawn lattice spacing 2r) and interaction radius
 * `re` (m, the kernel radius h). Bad values throw {@link FluidError}.
 */
export function mpsLatticeConstants(particleRadius: number, re: number): MpsLatticeConstants {
  if (!(particleRadius > 0 && Number.isFinite(particleRadius))) {
    throw new FluidError(`particleRadius is ${particleRadius}; it must be a finite number > 0 (m)`);
  }
  if (!(re > 2 * particleRadius && Number.isFinite(re))) {
    throw new FluidError(`re is ${re}; it must be finite and above the lattice spacing ${2 * particleRadius} (m)`);
  }
  const spacing = 2 * particleRadius;
  const extent = Math.ceil(re / spacing);
  let sum = 0;
  let moment = 0;
  for (let i = -extent; i <= extent; i++)
    for (let j = -extent; j <= extent; j++)
      for (let k = -extent; k <= extent; k++) {
        if (i === 0 && j === 0 && k === 0) continue;
        const r2 = spacing * spacing * (i * i + j * j + k * k);
        const w = mpsWeight(Math.sqrt(r2), re);
        sum += w;
        moment += w * r2;
      }
  return {
    restNumberDensity: sum,
    laplacianLambda: moment / sum,
    wallTables: mpsWallTables(particleRadius, re),
  };
}

/** Working state of the MPS solver of one simulation context, allocated once (arrays grow, never per substep). */
export interface MpsState {
  /** The live settings; edit between steps (`FluidSimulation.step()` checks them before it changes anything). */
  readonly settings: MpsSettings;
  /** Rest constants for the context's particle and kernel radius. */
  readonly lattice: MpsLatticeConstants;
  /** Number density n* at r* of the last substep, per place (dimensionless). */
  readonly numberDensity: Float64Array;
  /** Pressure of the last substep per place (Pa), 0 on the free surface. */
  readonly pressure: Float64Array;
  /** Pressure of the last substep per particle entity id (Pa); the next solve starts from it. */
  readonly pressureOfEntity: Float64Array;
  /** 1 where the particle was on the free surface (n* < beta n0) in the last substep, per place. */
  readonly surface: Uint8Array;
  /** Unknown (row) index of each place, -1 on the free surface. */
  readonly unknownOfPlace: Int32Array;
  /** Place of each unknown. */
  readonly placeOfUnknown: Int32Array;
  /** The pressure matrix (eq. 14, scaled as in the module notes). */
  readonly matrix: SparseSymmetricMatrix;
  /** Right-hand side per unknown (Pa). */
  readonly rightHandSide: Float64Array;
  /** Solution per unknown (Pa). */
  readonly solution: Float64Array;
  /** Conjugate gradient scratch. */
  readonly scratch: ConjugateGradientScratch;
  /** Iterations and residual of the last solve. */
  readonly solveResult: ConjugateGradientResult;
  /** p^_i, the smallest pressure of i and its neighbours (Pa), per place. */
  readonly minimumPressure: Float64Array;
  /** Per place, sum_j (D_j - D_i) . r_ij w_ij / r_ij^2 = (n0 / d) dt <div u*>_i (eq. 6), D = r* - r (dimensionless). */
  readonly divergence: Float64Array;
  /** Number density n at the start-of-substep positions, per place. */
  readonly startNumberDensity: Float64Array;
  /** Hash grid of the start-of-substep positions (cell size r_e) for `startNumberDensity`: cell per place. */
  readonly startCellX: Int32Array;
  readonly startCellY: Int32Array;
  readonly startCellZ: Int32Array;
  /** Places sorted by their cell's hash bucket. */
  readonly startOrder: Int32Array;
  /** Start of each hash bucket in `startOrder` (table size + 1 entries; the table is the solver's). */
  readonly startBucket: Int32Array;
  /** Per-particle wall ghost sums (walls.ts). */
  readonly walls: MpsWallTerms;
}

/** The sizes an {@link MpsState} is allocated for. */
export interface MpsStateSizes {
  /** Particle capacity. */
  readonly capacity: number;
  /** Entity id capacity. */
  readonly entityCapacity: number;
  /** Particle radius r (m). */
  readonly particleRadius: number;
  /** Interaction radius r_e (m): the kernel radius. */
  readonly kernelRadius: number;
  /** Room for pairs in the pressure matrix (grows when needed). */
  readonly pairCapacity: number;
  /** Buckets of the solver's hash table. */
  readonly tableSize: number;
}

/** Allocates the MPS state for `sizes` with `settings`. */
export function createMpsState(sizes: MpsStateSizes, settings: MpsSettings): MpsState {
  const capacity = sizes.capacity;
  const lattice = mpsLatticeConstants(sizes.particleRadius, sizes.kernelRadius);
  const f = () => new Float64Array(capacity);
  const pairCapacity = sizes.pairCapacity;
  return {
    settings,
    lattice,
    numberDensity: f(),
    pressure: f(),
    pressureOfEntity: new Float64Array(sizes.entityCapacity),
    surface: new Uint8Array(capacity),
    unknownOfPlace: new Int32Array(capacity),
    placeOfUnknown: new Int32Array(capacity),
    matrix: {
      rowCount: 0,
      diagonal: f(),
      rowStart: new Int32Array(capacity + 1),
      column: new Int32Array(pairCapacity),
      value: new Float64Array(pairCapacity),
    },
    rightHandSide: f(),
    solution: f(),
    scratch: createConjugateGradientScratch(capacity),
    solveResult: { iterations: 0, residual: 0 },
    minimumPressure: f(),
    divergence: f(),
    startNumberDensity: f(),
    startCellX: new Int32Array(capacity),
    startCellY: new Int32Array(capacity),
    startCellZ: new Int32Array(capacity),
    startOrder: new Int32Array(capacity),
    startBucket: new Int32Array(sizes.tableSize + 1),
    walls: createMpsWallTerms(capacity),
  };
}

/** Warm-start pressures of the MPS solver by entity id: the ids whose pressure is not 0, and the pressures (Pa). */
export interface MpsWarmStart {
  /** Entity ids, ascending. */
  readonly ids: Uint32Array;
  /** Pressure of each id (Pa), the initial guess of its next pressure solve. */
  readonly pressures: Float64Array;
}
