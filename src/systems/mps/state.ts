/**
 * The MPS solver's state per simulation (mps/cpu.ts runs on it): its weight function and lattice constants
 * (Premoze et al. 2003, section 3.1), the working arrays, the pressure solve's warm start, and their snapshot
 * form.
 */

import { FluidError } from '../../core/errors';
import type { SimulationContext } from '../context';
import {
  type ConjugateGradientResult,
  type ConjugateGradientScratch,
  createConjugateGradientScratch,
  type SparseSymmetricMatrix,
} from './pcg';
import { MPS_SETTING_NAMES, type MpsSettings, mpsSnapshotKey, resolveMpsSettings } from './settings';
import { createMpsWallTerms, type MpsWallTables, type MpsWallTerms, mpsWallTables } from './walls';

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

const states = new WeakMap<SimulationContext, MpsState>();

function createMpsState(ctx: SimulationContext, settings: MpsSettings): MpsState {
  const capacity = ctx.settings.capacity;
  const lattice = mpsLatticeConstants(ctx.settings.particleRadius, ctx.settings.kernelRadius);
  const f = () => new Float64Array(capacity);
  const pairCapacity = Math.max(1024, 2 * ctx.solver.neighbours.length);
  return {
    settings,
    lattice,
    numberDensity: f(),
    pressure: f(),
    pressureOfEntity: new Float64Array(ctx.entityCapacity),
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
    startBucket: new Int32Array(ctx.solver.tableMask + 2),
    walls: createMpsWallTerms(capacity),
  };
}

/** The MPS state of a context, created with the default settings on first use. */
export function mpsState(ctx: SimulationContext): MpsState {
  let state = states.get(ctx);
  if (state === undefined) {
    state = createMpsState(ctx, resolveMpsSettings());
    states.set(ctx, state);
  }
  return state;
}

/**
 * Sets the MPS settings of a context from partial options (missing values: {@link MPS_DEFAULTS}). Throws
 * {@link FluidError} for a value outside its range, changing nothing.
 */
export function configureMps(ctx: SimulationContext, options: Partial<MpsSettings> = {}): MpsSettings {
  const resolved = resolveMpsSettings(options);
  const settings = mpsState(ctx).settings;
  Object.assign(settings, resolved);
  return settings;
}

/** The MPS settings of a context as snapshot entries (key from {@link mpsSnapshotKey}, value). */
export function mpsSnapshotSettings(ctx: SimulationContext): [string, number][] {
  const settings = mpsState(ctx).settings;
  return MPS_SETTING_NAMES.map((name): [string, number] => [mpsSnapshotKey(name), settings[name]]);
}

/**
 * The MPS options saved in a snapshot's settings, read by `setting(key)`: the numbers found under the
 * {@link mpsSnapshotKey} keys (a missing key is left out, so its default applies).
 */
export function mpsOptionsFromSnapshot(setting: (key: string) => unknown): Partial<MpsSettings> {
  const options: Partial<MpsSettings> = {};
  for (const name of MPS_SETTING_NAMES) {
    const value = setting(mpsSnapshotKey(name));
    if (typeof value === 'number') options[name] = value;
  }
  return options;
}

/** Warm-start pressures of the MPS solver by entity id: the ids whose pressure is not 0, and the pressures (Pa). */
export interface MpsWarmStart {
  /** Entity ids, ascending. */
  readonly ids: Uint32Array;
  /** Pressure of each id (Pa), the initial guess of its next pressure solve. */
  readonly pressures: Float64Array;
}

/**
 * The pressures the next solve starts from (`MpsState.pressureOfEntity`), for every entity id whose value
 * is not 0: live particles, and freed ids whose last value a particle created with that id would start from.
 */
export function mpsWarmStart(ctx: SimulationContext): MpsWarmStart {
  const pressureOfEntity = mpsState(ctx).pressureOfEntity;
  let count = 0;
  for (let eid = 0; eid < pressureOfEntity.length; eid++) if (pressureOfEntity[eid] !== 0) count++;
  const ids = new Uint32Array(count);
  const pressures = new Float64Array(count);
  count = 0;
  for (let eid = 0; eid < pressureOfEntity.length; eid++) {
    if (pressureOfEntity[eid] === 0) continue;
    ids[count] = eid;
    pressures[count++] = pressureOfEntity[eid];
  }
  return { ids, pressures };
}

/**
 * Restores a context's MPS settings (already resolved and checked) and warm-start pressures (ids below the
 * context's entity capacity; every other id starts from 0), as saved by {@link mpsSnapshotSettings} and
 * {@link mpsWarmStart}.
 */
export function restoreMpsState(ctx: SimulationContext, settings: MpsSettings, warmStart: MpsWarmStart): void {
  const state = mpsState(ctx);
  Object.assign(state.settings, settings);
  state.pressureOfEntity.fill(0);
  const { ids, pressures } = warmStart;
  for (let k = 0; k < ids.length; k++) state.pressureOfEntity[ids[k]] = pressures[k];
}
