/**
 * Options of the weakly compressible SPH solver (`solver: 'sph'`, Müller, Charypar & Gross 2003, section 3)
 * and their validation. The resolved values live on the simulation's settings object as flat numbers
 * (`settings.sphSpeedOfSound` ...), so snapshots store them and game code may edit them between steps.
 */
import { checkKnownKeys, optionNames, withDefault } from '../../core/checks';
import { FluidError } from '../../core/errors';
import { allows, type OptionRule, rangeText, SPH_OPTIONS } from '../../core/schema';

/** Options of the WCSPH solver; every one has a default giving stable water at the default sizes. */
export interface SphOptions {
  /**
   * Numerical speed of sound c_s in m/s. The equation of state is p = k (rho - rho0) (eq. 12) with the
   * stiffness k = c_s^2 (m^2/s^2, i.e. Pa per kg/m^3). The density error scales like (v / c_s)^2 for the
   * flow and g H / c_s^2 for a column of height H at rest; the substep count grows with c_s through the
   * CFL condition. Range [0.1, 1000]. Default 20 m/s (about 1% compression at 1 m depth, k = 400 m^2/s^2).
   */
  speedOfSound?: number;
  /**
   * Dynamic viscosity mu in Pa s of the symmetric viscosity force (eq. 14, viscosity-kernel Laplacian
   * 45 / (pi h^6) (h - r)), for every material without a `dynamicViscosity` of its own (the materials' XSPH
   * coefficient belongs to PBF).
   * At game particle sizes it is mostly the numerical damping WCSPH needs: the kinematic viscosity
   * mu / rho0 = 0.01 m^2/s of the default is Monaghan's artificial viscosity alpha c_s h / 10 with
   * alpha = 0.05 at c_s = 20 m/s, h = 0.1 m. With 5 Pa s a dam break still sloshed with 4% density error
   * and 4 m/s after 2.5 s; with 1 Pa s a resting tank did not settle. Range [0, 1e5]. Default 10 Pa s.
   * Scale it with c_s h when changing the speed of sound or the particle size. A high viscosity shortens
   * the substeps: dt <= h^2 rho0 / (32 mu) (see `courantNumber`), e.g. 534 substeps per 1/60 s step at
   * 1e4 Pa s and h = 0.1 m; above about 4700 Pa s at these sizes that is more than the default
   * `maxSubsteps` of 256, so raise it, or the capped substeps are too long and the explicit viscosity
   * diverges.
   */
  viscosity?: number;
  /**
   * Surface tension coefficient sigma in N/m of the color-field force f = -sigma lap(c_S) n / |n|
   * (eq. 15-19, poly6 gradient and Laplacian). Range [0, 1e3]. Default 0.0728 N/m (water against air).
   */
  surfaceTension?: number;
  /**
   * Threshold l in 1/m on |n| = |grad c_S|: surface tension acts only where |n| > l (section 3.3; the same
   * l identifies surface particles, eq. 23). Range [0, 1e6]. Default 0.5 / h (5 1/m at the default h),
   * about half the |n| of a particle on a flat free surface.
   */
  surfaceThreshold?: number;
  /**
   * Courant number lambda of the CFL condition dt <= lambda h / (c_s + v_max) that, with the force
   * condition dt <= 0.25 sqrt(h / |a|max) and the viscous condition dt <= h^2 rho0_min / (32 mu), sets the
   * substep count; h is the kernel (support) radius, twice the particle spacing. Explicit integration of the fastest lattice sound mode is stable for
   * c_s dt / spacing < 2 / pi, i.e. lambda < 0.32; 0.4 was measured unstable in a resting tank.
   * Range [0.01, 1]. Default 0.25 (10 to 20 substeps per 1/60 s step at the defaults).
   */
  courantNumber?: number;
  /**
   * The most substeps one step may be split into (when the conditions ask for more, the substeps are
   * longer than they ask for). Fixed at creation: the WebGPU backend sizes its collider-pose buffer with it
   * (128 bytes per collider and substep, at most 64 MiB: `maxSubsteps` x `maxColliders` <= 524288 there), so
   * editing `settings.sphMaxSubsteps` later makes the next step throw {@link FluidError}, and a snapshot
   * with another value is refused by `restore`. Integer in [1, 4096]. Default 256.
   */
  maxSubsteps?: number;
}

/** The names of {@link SphOptions}, checked at run time (`checkKnownKeys`). */
export const SPH_OPTION_NAMES = optionNames<SphOptions>()(
  'speedOfSound',
  'viscosity',
  'surfaceTension',
  'surfaceThreshold',
  'courantNumber',
  'maxSubsteps',
);

/** The resolved WCSPH settings (see {@link SphOptions} for units and ranges). */
export interface SphSettings {
  /** c_s (m/s). */
  sphSpeedOfSound: number;
  /** mu (Pa s). */
  sphViscosity: number;
  /** sigma (N/m). */
  sphSurfaceTension: number;
  /** l (1/m). */
  sphSurfaceThreshold: number;
  /** lambda of the CFL condition. */
  sphCourantNumber: number;
  /** Substep cap (fixed at creation). */
  sphMaxSubsteps: number;
}

/** Default surface threshold l times h (dimensionless): the default l is this over h. */
export const DEFAULT_SURFACE_THRESHOLD_TIMES_H = 0.5;

type SphName = keyof typeof SPH_OPTIONS;

/** Checks WCSPH setting `name` against its rule in `SPH_OPTIONS` (core/schema.ts) and returns it. */
function check(name: SphName, value: unknown): number {
  const rule: OptionRule = SPH_OPTIONS[name];
  if (!allows(rule, value)) {
    throw new FluidError(
      `sph.${name} is ${String(value)}; allowed range is ${rule.integer ? 'an integer in ' : ''}${rangeText(rule)}`,
    );
  }
  return value;
}

/**
 * Resolves and validates the WCSPH options for kernel radius `kernelRadius` (m). Throws {@link FluidError}
 * naming the option, its value and the allowed range.
 */
export function resolveSphSettings(options: SphOptions | undefined, kernelRadius: number): SphSettings {
  if (options !== undefined && (typeof options !== 'object' || options === null)) {
    throw new FluidError(`sph is ${String(options)}; it must be an object of WCSPH options`);
  }
  const o = options ?? {};
  checkKnownKeys('sph', o, SPH_OPTION_NAMES);
  const rules = SPH_OPTIONS;
  return {
    sphSpeedOfSound: check('speedOfSound', withDefault(o.speedOfSound, rules.speedOfSound.default)),
    sphViscosity: check('viscosity', withDefault(o.viscosity, rules.viscosity.default)),
    sphSurfaceTension: check('surfaceTension', withDefault(o.surfaceTension, rules.surfaceTension.default)),
    sphSurfaceThreshold: check(
      'surfaceThreshold',
      withDefault(o.surfaceThreshold, DEFAULT_SURFACE_THRESHOLD_TIMES_H / kernelRadius),
    ),
    sphCourantNumber: check('courantNumber', withDefault(o.courantNumber, rules.courantNumber.default)),
    sphMaxSubsteps: check('maxSubsteps', withDefault(o.maxSubsteps, rules.maxSubsteps.default)),
  };
}

/** Re-checks the WCSPH settings game code may have edited between steps (same ranges as the options). */
export function checkSphSettings(settings: SphSettings): void {
  check('speedOfSound', settings.sphSpeedOfSound);
  check('viscosity', settings.sphViscosity);
  check('surfaceTension', settings.sphSurfaceTension);
  check('surfaceThreshold', settings.sphSurfaceThreshold);
  check('courantNumber', settings.sphCourantNumber);
  check('maxSubsteps', settings.sphMaxSubsteps);
}
