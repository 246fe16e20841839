/**
 * Moving Particle Semi-implicit (MPS) substep on the CPU, after Premoze et al. 2003, section 3.2,
 * Algorithm 1:
 * 1. forces: u* = u + dt (nu lap u + g), r* = r + dt u* (eq. 9-10; no surface tension term);
 * 2. particle number density n* at r* (section 3.1);
 * 3. pressure Poisson equation lap p = -(rho / dt^2) (n* - n0) / n0 (eq. 14) over the neighbour graph, with
 *    p = 0 on free-surface particles n* < beta n0 (eq. 18), solved by conjugate gradients (pcg.ts);
 * 4. velocity correction u' = -(dt / rho) grad p (eq. 15), u = u* + u', r = r* + dt u' (eq. 16-17).
 *
 * Operators (section 3.1), for dimension d = 3 and interaction radius r_e = the kernel radius h:
 * - weight w(r) = r_e / r - 1 for r < r_e, else 0. The extracted text of eq. 3 reads "r_e / r"; the "- 1"
 *   of the MPS weight (Koshizuka & Oka 1996) makes w continuous at r_e, which the paper's cut-off implies.
 *   w is singular at r = 0: distances below 0.1 r_e count as 0.1 r_e (w <= 9), which only acts on
 *   overlapping spawns;
 * - number density n_i = sum_{j != i} w(|r_j - r_i|); its rest value n0 is that sum over the spawn lattice
 *   (spacing 2r), as PBF takes its rest density from the lattice (`latticeKernelSum`);
 * - Laplacian (eq. 7): <lap phi>_i = 2d / (lambda n0) sum_j (phi_j - phi_i) w_ij, with lambda (eq. 8) over the
 *   same lattice, lambda = sum_j w_j r_j^2 / sum_j w_j (the discrete form of the integrals);
 * - divergence (eq. 6) and gradient (eq. 5); in the gradient p^_i, the smallest pressure among i and its
 *   neighbours, replaces the paper's p_i (Koshizuka & Oka 1996): it changes nothing for a linear pressure
 *   field in a full neighbourhood and keeps every pair repulsive. Without it the 0.8 m hydrostatic column of
 *   tests/mps.test.ts keeps a mean speed of about 0.1 m/s and a 1% number-density error after 4 s, against
 *   0.003 m/s and 0.2% with it (measured).
 *
 * Choices, documented where the paper leaves room:
 * - Eq. 14 as extracted divides by dt; it is dimensionally right with dt^2 (dt u' = -dt^2 grad p / rho is
 *   the displacement that restores n0), which is used here.
 * - Source term. To first order in dt, n* - n0 = (n - n0) - n0 dt <div u*> (eq. 11 with n' = n* - n), where n
 *   is the number density at the start of the substep (every pair within r_e at r, found on its own grid of
 *   r, not on the neighbour list of r*). The right-hand side is assembled in that split
 *   form, gamma (n - n0) / n0 - dt <div u*>, with the divergence of eq. 6 and gamma =
 *   `MpsSettings.sourceRelaxation`: gamma = 1 is eq. 14, gamma < 1 the mixed source of Tanaka &
 *   Masunaga (2010), which removes the compression rate fully and an accumulated density error partly.
 * - The linear system, multiplied by -lambda n0 / (2d), reads
 *   sum_j w_ij (p_i - p_j) + c_i p_i = lambda rho_i [gamma (n_i - n0) - d sum_j (D_j - D_i) . r_ij w_ij / r_ij^2]
 *   / (2d dt^2) + (wall ghost term), D = r* - r the substep's displacement, j over all fluid neighbours;
 *   the p_j of free-surface neighbours is 0 (Dirichlet) and moves to no side. The matrix is symmetric
 *   (w_ij = w_ji), diagonally dominant, and positive definite once a connected body of fluid has a free
 *   surface; c_i = lambda n0 rho_i alpha / (2d dt^2) is the compressibility term lap p - (rho alpha / dt^2) p
 *   (alpha = `MpsSettings.compressibility`, 1/Pa, water's by default), which keeps it positive definite
 *   for a filled, closed container and is negligible otherwise.
 * - Pressures below zero after the solve are set to 0 (a liquid does not pull; the usual MPS practice).
 * - Walls (colliders): see walls.ts. They are ghost particles tabulated behind each wall (Harada et al.'s
 *   wall weight, with the MPS weight), which add to n (a particle resting on the floor has n = n0 and is no
 *   free surface) and carry the particle's pressure extrapolated hydrostatically, p_g = p_i + rho g . (x_g -
 *   x_i), in the Laplacian (a known term moved to the right-hand side) and in the gradient. The collision
 *   projection of collide/cpu.ts runs on r* and again on the corrected positions, as PBF runs it inside its
 *   constraint loop, for containers, boxes and mesh SDFs alike; the velocity is then (x_new - x) / dt with
 *   the contact response of velocity/cpu.ts, which equals u* + u' (eq. 16) wherever no collision acted.
 *   A collider coupled with a rigid body receives the collision and contact impulses (couple/cpu.ts) and
 *   the pressure load of its ghosts in the momentum-conserving pair form (`addWallPressureImpulses`).
 * - Viscosity: nu lap u with eq. 7, explicit, on the neighbour list of r* (the neighbour search runs once per
 *   substep, after gravity; gravity is uniform, so lap (u + dt g) = lap u). The default nu = 0.01 m^2/s is
 *   far above water's 1e-6: at particle spacings of centimetres the method needs it to damp the pressure
 *   noise (with 1e-6 the same column keeps a mean speed of about 0.09 m/s after 4 s; measured). The explicit
 *   step is limited to dt nu 2d / lambda <= 0.5 (stability of explicit diffusion); a larger nu is
 *   reduced to that.
 * - Particle collisions (`mpsCollisionSystem`, the collision model of MPS codes): pairs closer than 0.9 of
 *   the lattice spacing lose their approach velocity (restitution 0.2) before the pressure solve. The MPS
 *   pressure barely resists two particles closing in on each other (their number densities rise, but the
 *   Laplacian spreads the pressure over all neighbours); without collisions such pairs build up and the
 *   dam break of tests/mps.test.ts gains energy when they are pushed apart (kinetic plus potential energy
 *   rose from 2.8 to 9.3 J/kg in 0.15 s; measured), with them it loses energy throughout.
 * - Per-material rest density rho_i (the `MaterialTable`) enters the right-hand side and the correction
 *   u' = -(dt / rho_i) grad p; n0 is geometric and shared.
 * - Each correction dt u' is clamped to one particle radius (a safeguard, as in PBF; it does not act in a
 *   settled fluid).
 * - After the correction the number density is evaluated again at the new positions (same neighbour list,
 *   walls at the new positions) and `density` is set to rho0 n / n0, so the `Density` component and
 *   `stats.meanDensityError` / `maxDensityError` (publish.ts, the same particle selection as PBF) report
 *   |n / n0 - 1| at the end of the step.
 */

import { FluidError } from '../../core/errors';
import { COINCIDENT_OFFSET } from '../../core/kernels';
import { collideParticles } from '../collide/cpu';
import type { SimulationContext } from '../context';
import { addBodyImpulse } from '../couple/cpu';
import { hashCell } from '../neighbours/cpu';
import {
  type ConjugateGradientResult,
  type ConjugateGradientScratch,
  createConjugateGradientScratch,
  type SparseSymmetricMatrix,
  solveConjugateGradient,
} from './pcg';
import { computeMpsWallTerms, createMpsWallTerms, type MpsWallTables, type MpsWallTerms, mpsWallTables } from './walls';

/** Space dimension d of the MPS operators (eq. 5-7). */
const DIMENSION = 3;

/** Distances below this fraction of r_e count as this fraction in the MPS weight (w <= 9). */
export const MPS_MINIMUM_DISTANCE_FRACTION = 0.1;

/** Settings of the MPS solver. */
export interface MpsSettings {
  /**
   * Free-surface threshold beta (eq. 18): a particle with n* < beta n0 is on the free surface and gets
   * p = 0. Range (0, 1]. Default 0.97 (the paper's value).
   */
  surfaceThreshold: number;
  /**
   * Relative residual |b - A p| / |b| at which the conjugate gradient pressure solve stops. Range
   * [1e-12, 0.1]. Default 1e-6.
   */
  tolerance: number;
  /** Most conjugate gradient iterations per pressure solve. Integer in [1, 100000]. Default 500. */
  maxIterations: number;
  /**
   * Compressibility alpha in 1/Pa of the term -(rho alpha / dt^2) p added to eq. 14 (Tanaka & Masunaga
   * 2010): keeps the pressure matrix positive definite for a fluid with no free surface. Range [0, 1e-3].
   * Default 4.5e-10 (water, sound speed about 1490 m/s).
   */
  compressibility: number;
  /**
   * Kinematic viscosity nu in m^2/s of the explicit viscosity term (eq. 9). Range [0, 1]. Default 0.01 (an
   * artificial viscosity that damps the pressure noise at game resolutions; water's is 1e-6). Limited per
   * substep to dt nu 2d / lambda <= 0.5, the stability bound of explicit diffusion.
   */
  kinematicViscosity: number;
  /**
   * Relaxation gamma of the number-density part of the source of eq. 14: each solve removes the whole
   * compression rate dt <div u*> and gamma (n - n0) / n0 of the accumulated number-density error. Range
   * (0, 1]. Default 1 (eq. 14 to first order in dt); below 1, the mixed source of Tanaka & Masunaga 2010.
   */
  sourceRelaxation: number;
  /**
   * Particle collision distance as a fraction of the lattice spacing 2r: two particles closer than this
   * that approach each other exchange momentum inelastically before the pressure solve (the collision
   * model of MPS codes, Koshizuka & Oka 1996). Range [0, 0.99]. Default 0.9; 0 turns collisions off.
   */
  collisionDistance: number;
  /** Restitution coefficient of those particle collisions. Range [0, 1]. Default 0.2. */
  collisionRestitution: number;
}

/** Default MPS settings; see {@link MpsSettings} for units and ranges. */
export const MPS_DEFAULTS: Readonly<MpsSettings> = Object.freeze({
  surfaceThreshold: 0.97,
  tolerance: 1e-6,
  maxIterations: 500,
  compressibility: 4.5e-10,
  kinematicViscosity: 0.01,
  sourceRelaxation: 1,
  collisionDistance: 0.9,
  collisionRestitution: 0.2,
});

/** Throws {@link FluidError} naming the first MPS setting outside its range (see {@link MpsSettings}). */
export function checkMpsSettings(settings: MpsSettings): void {
  const check = (name: keyof MpsSettings, min: number, max: number, open = false, integer = false): void => {
    const value = settings[name];
    const aboveMin = open ? value > min : value >= min;
    if (!(typeof value === 'number' && aboveMin && value <= max) || (integer && !Number.isInteger(value))) {
      const range = `${open ? '(' : '['}${min}, ${max}]`;
      throw new FluidError(
        `mps.${name} is ${String(value)}; allowed range is ${integer ? 'an integer in ' : ''}${range}`,
      );
    }
  };
  check('surfaceThreshold', 0, 1, true);
  check('tolerance', 1e-12, 0.1);
  check('maxIterations', 1, 100000, false, true);
  check('compressibility', 0, 1e-3);
  check('kinematicViscosity', 0, 1);
  check('sourceRelaxation', 0, 1, true);
  check('collisionDistance', 0, 0.99);
  check('collisionRestitution', 0, 1);
}

/**
 * The MPS settings from partial options: every missing value takes its {@link MPS_DEFAULTS} value.
 * Throws {@link FluidError} for a value outside its range.
 */
export function resolveMpsSettings(options: Partial<MpsSettings> = {}): MpsSettings {
  if (typeof options !== 'object' || options === null) throw new FluidError('mps options must be an object');
  const settings: MpsSettings = {
    surfaceThreshold: options.surfaceThreshold ?? MPS_DEFAULTS.surfaceThreshold,
    tolerance: options.tolerance ?? MPS_DEFAULTS.tolerance,
    maxIterations: options.maxIterations ?? MPS_DEFAULTS.maxIterations,
    compressibility: options.compressibility ?? MPS_DEFAULTS.compressibility,
    kinematicViscosity: options.kinematicViscosity ?? MPS_DEFAULTS.kinematicViscosity,
    sourceRelaxation: options.sourceRelaxation ?? MPS_DEFAULTS.sourceRelaxation,
    collisionDistance: options.collisionDistance ?? MPS_DEFAULTS.collisionDistance,
    collisionRestitution: options.collisionRestitution ?? MPS_DEFAULTS.collisionRestitution,
  };
  checkMpsSettings(settings);
  return settings;
}

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

/** The MPS setting names, in the order of {@link MPS_DEFAULTS}. */
const MPS_SETTING_NAMES = Object.keys(MPS_DEFAULTS) as (keyof MpsSettings)[];

/**
 * The snapshot key of MPS setting `name`: `mps` and the name with a capital first letter (`mpsTolerance`),
 * flat as the WCSPH settings (`sphSpeedOfSound`) are saved.
 */
export function mpsSnapshotKey(name: keyof MpsSettings): string {
  return `mps${name.charAt(0).toUpperCase()}${name.slice(1)}`;
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

/**
 * Substep system, after the neighbour search: explicit viscosity nu lap u (eq. 7, 9) on the predicted
 * positions, added to the velocity and to the predicted position (r* = r + dt u*, eq. 10).
 */
export function mpsViscositySystem(ctx: SimulationContext): void {
  const state = mpsState(ctx);
  const nu = state.settings.kinematicViscosity;
  if (nu === 0) return;
  const s = ctx.solver;
  const n = s.count;
  const re = ctx.settings.kernelRadius;
  const reSquared = re * re;
  const floor = MPS_MINIMUM_DISTANCE_FRACTION * re;
  const dt = ctx.substepTimeStep;
  const { restNumberDensity, laplacianLambda } = state.lattice;
  const { predictedX, predictedY, predictedZ, velocityX, velocityY, velocityZ, neighbourStart, neighbours } = s;
  const { deltaX, deltaY, deltaZ } = s;
  deltaX.fill(0, 0, n);
  deltaY.fill(0, 0, n);
  deltaZ.fill(0, 0, n);
  for (let i = 0; i < n; i++) {
    const xi = predictedX[i];
    const yi = predictedY[i];
    const zi = predictedZ[i];
    const end = neighbourStart[i + 1];
    for (let k = neighbourStart[i]; k < end; k++) {
      const j = neighbours[k];
      const rx = xi - predictedX[j];
      const ry = yi - predictedY[j];
      const rz = zi - predictedZ[j];
      const r2 = rx * rx + ry * ry + rz * rz;
      if (r2 >= reSquared) continue;
      const r = Math.sqrt(r2);
      const w = re / (r > floor ? r : floor) - 1;
      const ux = w * (velocityX[j] - velocityX[i]);
      const uy = w * (velocityY[j] - velocityY[i]);
      const uz = w * (velocityZ[j] - velocityZ[i]);
      deltaX[i] += ux;
      deltaY[i] += uy;
      deltaZ[i] += uz;
      deltaX[j] -= ux;
      deltaY[j] -= uy;
      deltaZ[j] -= uz;
    }
  }
  // Explicit diffusion is stable for dt nu 2d / lambda <= 0.5 (the diagonal of eq. 7 is 2d / lambda).
  const stableNu = (0.5 * laplacianLambda) / (2 * DIMENSION * dt);
  const scale = (dt * (nu < stableNu ? nu : stableNu) * 2 * DIMENSION) / (laplacianLambda * restNumberDensity);
  for (let i = 0; i < n; i++) {
    const dvx = scale * deltaX[i];
    const dvy = scale * deltaY[i];
    const dvz = scale * deltaZ[i];
    velocityX[i] += dvx;
    velocityY[i] += dvy;
    velocityZ[i] += dvz;
    predictedX[i] += dt * dvx;
    predictedY[i] += dt * dvy;
    predictedZ[i] += dt * dvz;
  }
}

/**
 * Substep system, after `mpsViscositySystem`: particle collisions (the collision model of MPS codes,
 * Koshizuka & Oka 1996). Each pair closer than `collisionDistance` x 2r at r* whose members approach
 * each other loses the approaching part of its relative velocity and gets restitution e of it back,
 * momentum conserved: dv_i = -(1 + e) m_j / (m_i + m_j) ((v_i - v_j) . n) n for the unit vector n from
 * j to i when (v_i - v_j) . n < 0; r* moves by dt dv. All pairs see the velocities before the system.
 */
export function mpsCollisionSystem(ctx: SimulationContext): void {
  const state = mpsState(ctx);
  const fraction = state.settings.collisionDistance;
  if (fraction === 0) return;
  const s = ctx.solver;
  const n = s.count;
  const limit = fraction * 2 * ctx.settings.particleRadius;
  const limitSquared = limit * limit;
  const factor = 1 + state.settings.collisionRestitution;
  const dt = ctx.substepTimeStep;
  const { predictedX, predictedY, predictedZ, velocityX, velocityY, velocityZ, mass, neighbourStart, neighbours } = s;
  const { deltaX, deltaY, deltaZ } = s;
  deltaX.fill(0, 0, n);
  deltaY.fill(0, 0, n);
  deltaZ.fill(0, 0, n);
  for (let i = 0; i < n; i++) {
    const xi = predictedX[i];
    const yi = predictedY[i];
    const zi = predictedZ[i];
    const end = neighbourStart[i + 1];
    for (let k = neighbourStart[i]; k < end; k++) {
      const j = neighbours[k];
      const rx = xi - predictedX[j];
      const ry = yi - predictedY[j];
      const rz = zi - predictedZ[j];
      const r2 = rx * rx + ry * ry + rz * rz;
      if (r2 >= limitSquared || r2 === 0) continue;
      // Approach speed along r = x_i - x_j, times |r|.
      const approach =
        (velocityX[i] - velocityX[j]) * rx + (velocityY[i] - velocityY[j]) * ry + (velocityZ[i] - velocityZ[j]) * rz;
      if (approach >= 0) continue;
      const impulse = (factor * approach) / (r2 * (mass[i] + mass[j]));
      const a = impulse * mass[j];
      deltaX[i] -= a * rx;
      deltaY[i] -= a * ry;
      deltaZ[i] -= a * rz;
      const b = impulse * mass[i];
      deltaX[j] += b * rx;
      deltaY[j] += b * ry;
      deltaZ[j] += b * rz;
    }
  }
  for (let i = 0; i < n; i++) {
    velocityX[i] += deltaX[i];
    velocityY[i] += deltaY[i];
    velocityZ[i] += deltaZ[i];
    predictedX[i] += dt * deltaX[i];
    predictedY[i] += dt * deltaY[i];
    predictedZ[i] += dt * deltaZ[i];
  }
}

/**
 * Number density of every particle at the predicted positions into `out`: the pair weights over the
 * substep's neighbour list (cached in `solver.pairWeight`) plus the walls' ghost number density (with the
 * walls' gradient and Laplacian sums when `fullWalls`). The list holds the pairs closer than h = r_e at
 * r* as the neighbour search saw it. The pressure correction then moves each particle by at most one
 * particle radius r (and the collision projection out of walls), so the end-of-substep density
 * (`solver.density`, a reported value that no later solve uses) can miss a pair that the correction brought
 * within r_e, each such pair with a weight of at most r_e / (r_e - 2r) - 1 (1 for r_e = 4r) when only the
 * correction moved it.
 */
function computeNumberDensity(ctx: SimulationContext, state: MpsState, out: Float64Array, fullWalls: boolean): void {
  const s = ctx.solver;
  const n = s.count;
  const re = ctx.settings.kernelRadius;
  const reSquared = re * re;
  const floor = MPS_MINIMUM_DISTANCE_FRACTION * re;
  const { neighbourStart, neighbours } = s;
  const x = s.predictedX;
  const y = s.predictedY;
  const z = s.predictedZ;
  computeMpsWallTerms(ctx, state.lattice.wallTables, state.walls, x, y, z, fullWalls);
  out.set(state.walls.numberDensity.subarray(0, n));
  const pairWeight = s.pairWeight;
  for (let i = 0; i < n; i++) {
    const xi = x[i];
    const yi = y[i];
    const zi = z[i];
    let sum = out[i];
    const end = neighbourStart[i + 1];
    for (let k = neighbourStart[i]; k < end; k++) {
      const j = neighbours[k];
      const rx = xi - x[j];
      const ry = yi - y[j];
      const rz = zi - z[j];
      const r2 = rx * rx + ry * ry + rz * rz;
      let w = 0;
      if (r2 < reSquared) {
        const r = Math.sqrt(r2);
        w = re / (r > floor ? r : floor) - 1;
        sum += w;
        out[j] += w;
      }
      pairWeight[k] = w;
    }
    out[i] = sum;
  }
}

/** The 13 cell offsets (dx, dy, dz) after a cell in z, y, x order: each pair of cells is visited once. */
const FORWARD_CELLS: readonly number[] = (() => {
  const offsets: number[] = [];
  for (let dz = -1; dz <= 1; dz++)
    for (let dy = -1; dy <= 1; dy++)
      for (let dx = -1; dx <= 1; dx++)
        if (dz > 0 || (dz === 0 && (dy > 0 || (dy === 0 && dx > 0)))) offsets.push(dx, dy, dz);
  return offsets;
})();

/**
 * Number density n at the start-of-substep positions r into `state.startNumberDensity`, exactly: its own
 * hash grid of r (cell size r_e; each pair of particles in the same or adjacent cells once) rather than
 * the substep's neighbour list, which holds the pairs within r_e at r* and so misses pairs that separate
 * past r_e within the substep (in the dam break of tests/mps.test.ts, up to 5% of n0 for one particle in
 * its first 0.75 s; measured), plus the walls' ghost number density at r. The conjugate gradient scratch
 * vectors, free until the solve, hold the sorted positions and sums.
 */
function computeStartNumberDensity(ctx: SimulationContext, state: MpsState): void {
  const s = ctx.solver;
  const n = s.count;
  const re = ctx.settings.kernelRadius;
  const reSquared = re * re;
  const floor = MPS_MINIMUM_DISTANCE_FRACTION * re;
  const inverseRe = 1 / re;
  const mask = s.tableMask;
  const x = s.positionX;
  const y = s.positionY;
  const z = s.positionZ;
  const out = state.startNumberDensity;
  computeMpsWallTerms(ctx, state.lattice.wallTables, state.walls, x, y, z, false);
  out.set(state.walls.numberDensity.subarray(0, n));
  const { startCellX, startCellY, startCellZ, startOrder, startBucket } = state;
  // Counting sort of the places by bucket: counts, inclusive prefix sums (the end of each bucket), then
  // each place, last first, goes before its bucket's end, which leaves startBucket[b] at bucket b's start.
  startBucket.fill(0);
  for (let i = 0; i < n; i++) {
    const cx = Math.floor(x[i] * inverseRe) | 0;
    const cy = Math.floor(y[i] * inverseRe) | 0;
    const cz = Math.floor(z[i] * inverseRe) | 0;
    startCellX[i] = cx;
    startCellY[i] = cy;
    startCellZ[i] = cz;
    startBucket[hashCell(cx, cy, cz, mask)]++;
  }
  for (let b = 1; b <= mask; b++) startBucket[b] += startBucket[b - 1];
  startBucket[mask + 1] = n;
  for (let i = n - 1; i >= 0; i--) {
    startOrder[--startBucket[hashCell(startCellX[i], startCellY[i], startCellZ[i], mask)]] = i;
  }
  // Positions, cells and sums in sorted order (contiguous for the pair loop).
  const { residual: sortedX, preconditioned: sortedY, direction: sortedZ, product: sums } = state.scratch;
  const cellX = state.divergence; // free until the assembly; cells are small integers, exact in float64
  const cellY = state.minimumPressure; // free until the correction
  const cellZ = state.solution; // the warm start is written by the assembly, after this
  for (let k = 0; k < n; k++) {
    const i = startOrder[k];
    sortedX[k] = x[i];
    sortedY[k] = y[i];
    sortedZ[k] = z[i];
    cellX[k] = startCellX[i];
    cellY[k] = startCellY[i];
    cellZ[k] = startCellZ[i];
    sums[k] = 0;
  }
  const forward = FORWARD_CELLS;
  for (let k = 0; k < n; k++) {
    const xk = sortedX[k];
    const yk = sortedY[k];
    const zk = sortedZ[k];
    const cx = cellX[k];
    const cy = cellY[k];
    const cz = cellZ[k];
    let sum = sums[k];
    // The own cell: the entries after k in its bucket (the bucket may hold other cells too).
    const ownEnd = startBucket[hashCell(cx, cy, cz, mask) + 1];
    for (let m = k + 1; m < ownEnd; m++) {
      if (cellX[m] !== cx || cellY[m] !== cy || cellZ[m] !== cz) continue;
      const rx = xk - sortedX[m];
      const ry = yk - sortedY[m];
      const rz = zk - sortedZ[m];
      const r2 = rx * rx + ry * ry + rz * rz;
      if (r2 >= reSquared) continue;
      const r = Math.sqrt(r2);
      const w = re / (r > floor ? r : floor) - 1;
      sum += w;
      sums[m] += w;
    }
    for (let f = 0; f < forward.length; f += 3) {
      const ox = cx + forward[f];
      const oy = cy + forward[f + 1];
      const oz = cz + forward[f + 2];
      const b = hashCell(ox, oy, oz, mask);
      const end = startBucket[b + 1];
      for (let m = startBucket[b]; m < end; m++) {
        if (cellX[m] !== ox || cellY[m] !== oy || cellZ[m] !== oz) continue;
        const rx = xk - sortedX[m];
        const ry = yk - sortedY[m];
        const rz = zk - sortedZ[m];
        const r2 = rx * rx + ry * ry + rz * rz;
        if (r2 >= reSquared) continue;
        const r = Math.sqrt(r2);
        const w = re / (r > floor ? r : floor) - 1;
        sum += w;
        sums[m] += w;
      }
    }
    sums[k] = sum;
  }
  for (let k = 0; k < n; k++) out[startOrder[k]] += sums[k];
}

function growMatrix(matrix: SparseSymmetricMatrix, needed: number): void {
  let size = matrix.column.length;
  while (size < needed) size *= 2;
  matrix.column = new Int32Array(size);
  matrix.value = new Float64Array(size);
}

/**
 * Assembles the pressure equation (eq. 14, scaled as in the module notes) from n* and the cached pair
 * weights: free-surface classification (eq. 18), unknown numbering, CSR rows, right-hand side, and the
 * warm start from the last pressures.
 */
function assemblePressureEquation(ctx: SimulationContext, state: MpsState): void {
  const s = ctx.solver;
  const n = s.count;
  const { restNumberDensity: n0, laplacianLambda } = state.lattice;
  const { numberDensity, surface, unknownOfPlace, placeOfUnknown, matrix, rightHandSide, solution } = state;
  const { neighbourStart, neighbours, material, entity } = s;
  const pairWeight = s.pairWeight;
  const inverseRestDensity = ctx.materials.inverseRestDensity;
  const dt = ctx.substepTimeStep;
  const threshold = state.settings.surfaceThreshold * n0;
  const operatorScale = laplacianLambda / (2 * DIMENSION * dt * dt);
  const relaxation = state.settings.sourceRelaxation;
  const compressibilityScale = operatorScale * n0 * state.settings.compressibility;
  let unknowns = 0;
  for (let i = 0; i < n; i++) {
    if (numberDensity[i] < threshold) {
      surface[i] = 1;
      unknownOfPlace[i] = -1;
    } else {
      surface[i] = 0;
      unknownOfPlace[i] = unknowns;
      placeOfUnknown[unknowns] = i;
      unknowns++;
    }
  }
  matrix.rowCount = unknowns;
  const { diagonal, rowStart } = matrix;
  // Row sizes (off-diagonal entries between two unknowns) and the diagonal sum of weights.
  rowStart.fill(0, 0, unknowns + 1);
  diagonal.fill(0, 0, unknowns);
  for (let i = 0; i < n; i++) {
    const ui = unknownOfPlace[i];
    const end = neighbourStart[i + 1];
    for (let k = neighbourStart[i]; k < end; k++) {
      const w = pairWeight[k];
      if (w === 0) continue;
      const uj = unknownOfPlace[neighbours[k]];
      if (ui >= 0) diagonal[ui] += w;
      if (uj >= 0) diagonal[uj] += w;
      if (ui >= 0 && uj >= 0) {
        rowStart[ui + 1]++;
        rowStart[uj + 1]++;
      }
    }
  }
  for (let u = 0; u < unknowns; u++) rowStart[u + 1] += rowStart[u];
  const entries = rowStart[unknowns];
  if (entries > matrix.column.length) growMatrix(matrix, entries);
  const cursor = state.scratch.product; // free until the solve
  for (let u = 0; u < unknowns; u++) cursor[u] = rowStart[u];
  const { column, value } = matrix;
  for (let i = 0; i < n; i++) {
    const ui = unknownOfPlace[i];
    if (ui < 0) continue;
    const end = neighbourStart[i + 1];
    for (let k = neighbourStart[i]; k < end; k++) {
      const w = pairWeight[k];
      if (w === 0) continue;
      const uj = unknownOfPlace[neighbours[k]];
      if (uj < 0) continue;
      let at = cursor[ui]++;
      column[at] = uj;
      value[at] = -w;
      at = cursor[uj]++;
      column[at] = ui;
      value[at] = -w;
    }
  }
  // Velocity divergence of u* = (r* - r) / dt (eq. 6), times dt: divergence[i] = dt <div u*>_i n0 / d.
  const divergence = state.divergence;
  divergence.fill(0, 0, n);
  {
    const { positionX, positionY, positionZ, predictedX, predictedY, predictedZ } = s;
    for (let i = 0; i < n; i++) {
      const xi = predictedX[i];
      const yi = predictedY[i];
      const zi = predictedZ[i];
      const dxi = xi - positionX[i];
      const dyi = yi - positionY[i];
      const dzi = zi - positionZ[i];
      let sum = 0;
      const end = neighbourStart[i + 1];
      for (let k = neighbourStart[i]; k < end; k++) {
        const w = pairWeight[k];
        if (w === 0) continue;
        const j = neighbours[k];
        const rx = predictedX[j] - xi;
        const ry = predictedY[j] - yi;
        const rz = predictedZ[j] - zi;
        const r2 = rx * rx + ry * ry + rz * rz;
        if (r2 === 0) continue;
        const term =
          ((predictedX[j] - positionX[j] - dxi) * rx +
            (predictedY[j] - positionY[j] - dyi) * ry +
            (predictedZ[j] - positionZ[j] - dzi) * rz) *
          (w / r2);
        sum += term;
        divergence[j] += term;
      }
      divergence[i] += sum;
    }
  }
  const startNumberDensity = state.startNumberDensity;
  const wallLaplacian = state.walls.hydrostaticLaplacian;
  for (let u = 0; u < unknowns; u++) {
    const i = placeOfUnknown[u];
    const rho = 1 / inverseRestDensity[material[i]];
    diagonal[u] += compressibilityScale * rho;
    rightHandSide[u] =
      rho *
      (operatorScale * (relaxation * (startNumberDensity[i] - n0) - DIMENSION * divergence[i]) + wallLaplacian[i]);
    solution[u] = state.pressureOfEntity[entity[i]];
  }
}

/**
 * The pressure load of the fluid on coupled colliders' bodies over the substep. A ghost g of wall W
 * (walls.ts) and particle i exchange the pair force of the momentum-conserving form of eq. 5,
 * F = (m_i / rho_i) (d / n0) (p_i + p_g) (x_g - x_i) / |x_g - x_i|^2 w, towards the wall for positive
 * pressure; summed over W's ghosts with p_g = p_i + rho_i g . (x_g - x_i):
 * F = (m_i / rho_i) (d / n0) (2 p_i S + rho_i H), S and H the wall's first-moment and hydrostatic sums.
 * The body receives F dt at the particle's position. Over the boundary layers of a flat wall under a
 * uniform pressure p this gives 0.95 p per unit area for r_e = 4r (the ghost first moment summed over the
 * layers, 2r (d / n0) sum_k s(d_k) = 0.474, twice).
 * The particle's own correction keeps eq. 5 with p^_i (applyPressureCorrection): there the pair term is
 * (p_g - p^_i), which is negative for ghosts above the particle (under a floating body the ghosts carry
 * less pressure than the particle), so its reaction would pull a floating body down instead of carrying it.
 */
function addWallPressureImpulses(ctx: SimulationContext, state: MpsState): void {
  const coupling = state.walls.coupling;
  if (coupling.count === 0) return;
  const s = ctx.solver;
  const { pressure } = state;
  const { predictedX, predictedY, predictedZ, mass, material } = s;
  const inverseRestDensity = ctx.materials.inverseRestDensity;
  const scale = (ctx.substepTimeStep * DIMENSION) / state.lattice.restNumberDensity;
  const moments = coupling.moments;
  for (let k = 0; k < coupling.count; k++) {
    const i = coupling.particle[k];
    const inverseRho = inverseRestDensity[material[i]];
    const volumeScale = scale * mass[i] * inverseRho;
    const twiceP = 2 * pressure[i];
    const rho = 1 / inverseRho;
    const o = 6 * k;
    const slot = coupling.slot[k];
    addBodyImpulse(
      ctx,
      slot,
      ctx.colliders.entity[slot],
      volumeScale * (twiceP * moments[o] + rho * moments[o + 3]),
      volumeScale * (twiceP * moments[o + 1] + rho * moments[o + 4]),
      volumeScale * (twiceP * moments[o + 2] + rho * moments[o + 5]),
      predictedX[i],
      predictedY[i],
      predictedZ[i],
    );
  }
}

/**
 * Computes the pressure gradient (eq. 5 with p^_i, fluid neighbours plus wall ghosts) and adds the
 * correction dt u' = -(dt^2 / rho) grad p (eq. 15-17), clamped to one particle radius, to x*.
 */
function applyPressureCorrection(ctx: SimulationContext, state: MpsState): void {
  const s = ctx.solver;
  const n = s.count;
  const { pressure, minimumPressure, walls } = state;
  const { predictedX, predictedY, predictedZ, neighbourStart, neighbours, material, deltaX, deltaY, deltaZ } = s;
  const pairWeight = s.pairWeight;
  const coincidentOffset = COINCIDENT_OFFSET * ctx.settings.kernelRadius;
  minimumPressure.set(pressure.subarray(0, n));
  deltaX.fill(0, 0, n);
  deltaY.fill(0, 0, n);
  deltaZ.fill(0, 0, n);
  for (let i = 0; i < n; i++) {
    const end = neighbourStart[i + 1];
    for (let k = neighbourStart[i]; k < end; k++) {
      if (pairWeight[k] === 0) continue;
      const j = neighbours[k];
      if (pressure[j] < minimumPressure[i]) minimumPressure[i] = pressure[j];
      if (pressure[i] < minimumPressure[j]) minimumPressure[j] = pressure[i];
    }
  }
  // Gradient sums: grad p_i += (p_j - p^_i) (r_j - r_i) / r^2 w, grad p_j += (p_i - p^_j) (r_i - r_j) / r^2 w.
  for (let i = 0; i < n; i++) {
    const xi = predictedX[i];
    const yi = predictedY[i];
    const zi = predictedZ[i];
    const pi = pressure[i];
    const minimumI = minimumPressure[i];
    let gx = 0;
    let gy = 0;
    let gz = 0;
    const end = neighbourStart[i + 1];
    for (let k = neighbourStart[i]; k < end; k++) {
      const w = pairWeight[k];
      if (w === 0) continue;
      const j = neighbours[k];
      // r = r_j - r_i.
      let rx = predictedX[j] - xi;
      const ry = predictedY[j] - yi;
      const rz = predictedZ[j] - zi;
      if (rx === 0 && ry === 0 && rz === 0) rx = coincidentOffset;
      const weightOverSquare = w / (rx * rx + ry * ry + rz * rz);
      const a = (pressure[j] - minimumI) * weightOverSquare;
      gx += a * rx;
      gy += a * ry;
      gz += a * rz;
      const b = (pi - minimumPressure[j]) * weightOverSquare;
      deltaX[j] -= b * rx;
      deltaY[j] -= b * ry;
      deltaZ[j] -= b * rz;
    }
    deltaX[i] += gx;
    deltaY[i] += gy;
    deltaZ[i] += gz;
  }
  const dt = ctx.substepTimeStep;
  const gradientScale = DIMENSION / state.lattice.restNumberDensity;
  const inverseRestDensity = ctx.materials.inverseRestDensity;
  const maxCorrection = ctx.settings.particleRadius;
  const maxCorrectionSquared = maxCorrection * maxCorrection;
  const { correctionScale } = s;
  for (let i = 0; i < n; i++) {
    // Wall ghosts carry p_g = p_i + rho g . (x_g - x_i): (p_g - p^_i) = (p_i - p^_i) + rho g . (x_g - x_i).
    const inverseRho = inverseRestDensity[material[i]];
    const excess = pressure[i] - minimumPressure[i];
    const gx = deltaX[i] + excess * walls.firstMomentX[i] + walls.hydrostaticX[i] / inverseRho;
    const gy = deltaY[i] + excess * walls.firstMomentY[i] + walls.hydrostaticY[i] / inverseRho;
    const gz = deltaZ[i] + excess * walls.firstMomentZ[i] + walls.hydrostaticZ[i] / inverseRho;
    // dt u' = -(dt^2 / rho) grad p (eq. 15), added to r* (eq. 17).
    const scale = -dt * dt * inverseRho * gradientScale;
    let dx = scale * gx;
    let dy = scale * gy;
    let dz = scale * gz;
    const lengthSquared = dx * dx + dy * dy + dz * dz;
    if (lengthSquared > maxCorrectionSquared) {
      const clamp = maxCorrection / Math.sqrt(lengthSquared);
      dx *= clamp;
      dy *= clamp;
      dz *= clamp;
      correctionScale[i] = clamp;
    } else {
      correctionScale[i] = 1;
    }
    deltaX[i] = dx;
    deltaY[i] = dy;
    deltaZ[i] = dz;
    predictedX[i] += dx;
    predictedY[i] += dy;
    predictedZ[i] += dz;
  }
}

/**
 * Substep system, after `mpsViscositySystem`: collide r*, number density n*, the pressure Poisson equation
 * (eq. 14) with free-surface particles at p = 0 (eq. 18) solved by Jacobi-preconditioned conjugate
 * gradients, the pressure correction (eq. 15-17), collide again, and the end-of-substep number density as
 * `solver.density` = rho0 n / n0. Iterations and residual go to `stats.pressureSolve*`.
 */
export function mpsPressureSystem(ctx: SimulationContext): void {
  const state = mpsState(ctx);
  const s = ctx.solver;
  const n = s.count;
  const stats = ctx.stats;
  if (ctx.substepIndex === 0) {
    stats.pressureSolveIterations = 0;
    stats.pressureSolveResidual = 0;
  }
  s.contactCollider.fill(-1, 0, n);
  collideParticles(ctx);
  computeStartNumberDensity(ctx, state);
  computeNumberDensity(ctx, state, state.numberDensity, true);
  assemblePressureEquation(ctx, state);
  const { matrix, solution, pressure, surface, unknownOfPlace, pressureOfEntity } = state;
  const result = solveConjugateGradient(
    matrix,
    state.rightHandSide,
    solution,
    state.settings.tolerance,
    state.settings.maxIterations,
    state.scratch,
    state.solveResult,
  );
  if (result.iterations > stats.pressureSolveIterations) stats.pressureSolveIterations = result.iterations;
  if (result.residual > stats.pressureSolveResidual) stats.pressureSolveResidual = result.residual;
  for (let i = 0; i < n; i++) {
    const u = unknownOfPlace[i];
    const p = surface[i] === 1 ? 0 : solution[u];
    if (!Number.isFinite(p)) throw new FluidError(`the pressure solve gave ${p} Pa for particle ${s.entity[i]}`);
    pressure[i] = p > 0 ? p : 0;
    pressureOfEntity[s.entity[i]] = pressure[i];
  }
  addWallPressureImpulses(ctx, state);
  applyPressureCorrection(ctx, state);
  collideParticles(ctx);
  // End-of-substep number density, reported as rho0 n / n0.
  const density = s.density;
  computeNumberDensity(ctx, state, density, false);
  const inverseN0 = 1 / state.lattice.restNumberDensity;
  const inverseRestDensity = ctx.materials.inverseRestDensity;
  for (let i = 0; i < n; i++) density[i] = (density[i] * inverseN0) / inverseRestDensity[s.material[i]];
}

/** Substep system, after the velocity update: x = x* (the end of the substep). */
export function mpsCommitSystem(ctx: SimulationContext): void {
  const s = ctx.solver;
  const n = s.count;
  s.positionX.set(s.predictedX.subarray(0, n));
  s.positionY.set(s.predictedY.subarray(0, n));
  s.positionZ.set(s.predictedZ.subarray(0, n));
}
