/** The MPS solver's settings (`solver: 'mps'`, live in `simulation.mpsSettings`): defaults, ranges, checks. */

import { checkKnownKeys, optionNames, withDefault } from '../../core/checks';
import { FluidError } from '../../core/errors';
import { allows, MPS_OPTIONS, type OptionRule, rangeText } from '../../core/schema';

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
   * (0, 1]. Default 0.1, the mixed source of Tanaka & Masunaga 2010 (1 is eq. 14 to first order in dt; with 1
   * a column 50 particles deep at 1 cm particles turned unstable within 0.5 s and moved at 0.83 m/s after 4 s,
   * with 0.1 it rests at 0.006 m/s, 1.2% below its rest height; measured, see docs/method.md, "The other
   * solvers at rest").
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
  /**
   * CFL number of the adaptive substeps: each step is split into at least `substeps` substeps and so many
   * more that no particle moves more than this many lattice spacings 2r per substep (the largest speed at the
   * start of the step plus |g| dt bounds it). Range [0.01, 1]. Default 0.2 (a block dropped 0.15 m deep into
   * a pool splashed and kept moving at 0.5 m/s with the fixed 2 substeps; measured).
   */
  courantNumber: number;
  /** Cap on the adaptive substeps of one step. Integer in [1, 4096]. Default 64. */
  maxSubsteps: number;
}

/** The names of the `mps` options ({@link MpsSettings}), checked at run time (`checkKnownKeys`). */
export const MPS_OPTION_NAMES = optionNames<MpsSettings>()(
  'surfaceThreshold',
  'tolerance',
  'maxIterations',
  'compressibility',
  'kinematicViscosity',
  'sourceRelaxation',
  'collisionDistance',
  'collisionRestitution',
  'courantNumber',
  'maxSubsteps',
);

/** Default MPS settings; see {@link MpsSettings} for units and ranges. */
export const MPS_DEFAULTS: Readonly<MpsSettings> = Object.freeze({
  surfaceThreshold: MPS_OPTIONS.surfaceThreshold.default,
  tolerance: MPS_OPTIONS.tolerance.default,
  maxIterations: MPS_OPTIONS.maxIterations.default,
  compressibility: MPS_OPTIONS.compressibility.default,
  kinematicViscosity: MPS_OPTIONS.kinematicViscosity.default,
  sourceRelaxation: MPS_OPTIONS.sourceRelaxation.default,
  collisionDistance: MPS_OPTIONS.collisionDistance.default,
  collisionRestitution: MPS_OPTIONS.collisionRestitution.default,
  courantNumber: MPS_OPTIONS.courantNumber.default,
  maxSubsteps: MPS_OPTIONS.maxSubsteps.default,
});

/** Throws {@link FluidError} naming the first MPS setting outside its range (see {@link MpsSettings}). */
export function checkMpsSettings(settings: MpsSettings): void {
  for (const name of Object.keys(MPS_OPTIONS) as (keyof MpsSettings)[]) {
    const rule: OptionRule = MPS_OPTIONS[name];
    const value = settings[name];
    if (!allows(rule, value)) {
      throw new FluidError(
        `mps.${name} is ${String(value)}; allowed range is ${rule.integer ? 'an integer in ' : ''}${rangeText(rule)}`,
      );
    }
  }
}

/**
 * The MPS settings from partial options: every missing value takes its {@link MPS_DEFAULTS} value.
 * Throws {@link FluidError} for a value outside its range.
 */
export function resolveMpsSettings(options: Partial<MpsSettings> = {}): MpsSettings {
  if (typeof options !== 'object' || options === null) throw new FluidError('mps options must be an object');
  checkKnownKeys('mps', options, MPS_OPTION_NAMES);
  const settings: MpsSettings = {
    surfaceThreshold: withDefault(options.surfaceThreshold, MPS_DEFAULTS.surfaceThreshold),
    tolerance: withDefault(options.tolerance, MPS_DEFAULTS.tolerance),
    maxIterations: withDefault(options.maxIterations, MPS_DEFAULTS.maxIterations),
    compressibility: withDefault(options.compressibility, MPS_DEFAULTS.compressibility),
    kinematicViscosity: withDefault(options.kinematicViscosity, MPS_DEFAULTS.kinematicViscosity),
    sourceRelaxation: withDefault(options.sourceRelaxation, MPS_DEFAULTS.sourceRelaxation),
    collisionDistance: withDefault(options.collisionDistance, MPS_DEFAULTS.collisionDistance),
    collisionRestitution: withDefault(options.collisionRestitution, MPS_DEFAULTS.collisionRestitution),
    courantNumber: withDefault(options.courantNumber, MPS_DEFAULTS.courantNumber),
    maxSubsteps: withDefault(options.maxSubsteps, MPS_DEFAULTS.maxSubsteps),
  };
  checkMpsSettings(settings);
  return settings;
}

/** The MPS setting names, in the order of {@link MPS_DEFAULTS}. */
export const MPS_SETTING_NAMES = Object.keys(MPS_DEFAULTS) as (keyof MpsSettings)[];

/**
 * The snapshot key of MPS setting `name`: `mps` and the name with a capital first letter (`mpsTolerance`),
 * flat as the WCSPH settings (`sphSpeedOfSound`) are saved.
 */
export function mpsSnapshotKey(name: keyof MpsSettings): string {
  return `mps${name.charAt(0).toUpperCase()}${name.slice(1)}`;
}
