/**
 * The anisotropic particles' options (docs/rendering.md, "Anisotropic particles"; Yu and Turk 2013,
 * "Reconstructing surfaces of particle-based fluids using anisotropic kernels"): `look.anisotropy` of the
 * plugin, checked against `ANISOTROPY_OPTIONS` (core/schema.ts) and resolved into the parameters the CPU
 * (cpu.ts) and WebGPU (ellipsoids.wgsl) computations share, and the layout of their output.
 */
import { checkKnownKeys, optionNames, withDefault } from '../../core/checks';
import { FluidError } from '../../core/errors';
import { ANISOTROPY_OPTIONS, checkOption } from '../../core/schema';

/**
 * How the `'fluid'` render mode shapes each particle (Yu and Turk 2013): the principal axes of its neighbours'
 * weighted covariance give an ellipsoid of the particle's drawn volume, flat along a free surface and long
 * along a thin stream, around a centre moved toward its neighbours. Every field is optional.
 */
export interface AnisotropyOptions {
  /**
   * The paper's lambda: the drawn centre is x_i + lambda (xw_i - x_i), xw_i the weighted mean of the particle
   * and its neighbours within the kernel radius h (weights 1 - (d / h)^3). 0 draws at the particles;
   * larger values smooth a bumpy surface and pull it inward. Range [0, 1]. Default 0.5 (the paper uses 0.9
   * to 1 with a neighbourhood of twice its kernel radius).
   */
  smoothing?: number;
  /**
   * The paper's k_r: the longest axis of an ellipsoid is at most this many times its shortest. Range [1, 16]
   * (1: every particle a sphere). Default 4 (the paper's).
   */
  maxStretch?: number;
  /**
   * The paper's N_epsilon: a particle with fewer neighbours than this within h is drawn as a sphere. Range
   * [0, 1000]. Default 1: only a particle with no neighbour; a line of particles (a stream one particle wide)
   * is drawn as a rope of ellipsoids. (The paper's 25 is for a neighbourhood twice as wide, where the
   * covariance of a few samples would mislead.)
   */
  minNeighbours?: number;
  /**
   * The paper's k_n: the radius of such a sphere, in drawn particle radii. Range (0, 1]. Default 1 (the
   * paper's 0.5 shrinks isolated drops; here white water draws the spray).
   */
  isolatedScale?: number;
  /**
   * Motion stretch: each particle's ellipsoid is widened along its velocity v to cover its travel over this
   * many simulation steps, M + (s dt / 2)^2 v v^T (see `ELLIPSOID_FLOATS`). A falling jet, whose layers
   * separate by v dt as they speed up, then draws as one stream; still water is unchanged. Range [0, 10].
   * Default 1 (0: off).
   */
  motionStretch?: number;
}

/** The names of {@link AnisotropyOptions}. */
export const ANISOTROPY_OPTION_NAMES = optionNames<AnisotropyOptions>()(
  'smoothing',
  'maxStretch',
  'minNeighbours',
  'isolatedScale',
  'motionStretch',
);

/** No options: every default. */
const NO_OPTIONS: AnisotropyOptions = Object.freeze({});

/** {@link AnisotropyOptions} with every field set. */
export type ResolvedAnisotropy = Required<AnisotropyOptions>;

/**
 * Checks `options` (`what` names it in errors: a {@link FluidError} naming the field, its value and the range)
 * and fills in the defaults, into `into` when given (a render loop then allocates nothing).
 */
export function resolveAnisotropy(
  options: AnisotropyOptions | undefined,
  what = 'look.anisotropy',
  into?: ResolvedAnisotropy,
): ResolvedAnisotropy {
  if (options !== undefined && (typeof options !== 'object' || options === null)) {
    throw new FluidError(`${what} is ${String(options)}; it must be an object, true or false`);
  }
  const given: AnisotropyOptions = options ?? NO_OPTIONS;
  checkKnownKeys(what, given, ANISOTROPY_OPTION_NAMES);
  const rules = ANISOTROPY_OPTIONS;
  const value = (name: keyof AnisotropyOptions) =>
    checkOption(`${what}.${name}`, rules[name], withDefault(given[name], rules[name].default));
  const smoothing = value('smoothing');
  const maxStretch = value('maxStretch');
  const minNeighbours = value('minNeighbours');
  const isolatedScale = value('isolatedScale');
  const motionStretch = value('motionStretch');
  if (into === undefined) return { smoothing, maxStretch, minNeighbours, isolatedScale, motionStretch };
  into.smoothing = smoothing;
  into.maxStretch = maxStretch;
  into.minNeighbours = minNeighbours;
  into.isolatedScale = isolatedScale;
  into.motionStretch = motionStretch;
  return into;
}

/**
 * True when `options` (unchecked) asks for exactly `resolved`: every field given equals it, every field left out
 * has its default there. Allocates nothing (a render loop's check that its options did not change).
 */
export function sameAnisotropy(options: AnisotropyOptions | undefined, resolved: ResolvedAnisotropy): boolean {
  const given = options ?? NO_OPTIONS;
  const rules = ANISOTROPY_OPTIONS;
  return (
    (given.smoothing ?? rules.smoothing.default) === resolved.smoothing &&
    (given.maxStretch ?? rules.maxStretch.default) === resolved.maxStretch &&
    (given.minNeighbours ?? rules.minNeighbours.default) === resolved.minNeighbours &&
    (given.isolatedScale ?? rules.isolatedScale.default) === resolved.isolatedScale &&
    (given.motionStretch ?? rules.motionStretch.default) === resolved.motionStretch
  );
}

/**
 * Floats per particle of the ellipsoids' output (both backends): the drawn centre c (x, y, z) in metres and the
 * particle's material slot (the index of its material in `simulation.materials()`), then the symmetric shape
 * matrix M = sum_k a_k a_k^T of the semi-axes a_k (m^2) as (Mxx, Mxy, Mxz, Myy) and (Myz, Mzz, 0, 0). The
 * ellipsoid is the points x with (x - c)^T M^-1 (x - c) <= 1. M = 0: nothing to draw.
 */
export const ELLIPSOID_FLOATS = 12;

/** Bytes per particle of the ellipsoids' output. */
export const ELLIPSOID_BYTES = 4 * ELLIPSOID_FLOATS;

/**
 * Jacobi sweeps of the eigen decomposition of the 3 x 3 covariance (both backends run the same number): the
 * off-diagonal falls quadratically, so four sweeps leave it at float rounding for any covariance.
 */
export const JACOBI_SWEEPS = 4;
