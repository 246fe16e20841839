/**
 * The settings of a `SurfaceExtractor` (marchingCubes.ts) and their check: ranges and defaults from the option
 * schema (`SURFACE_OPTIONS`, core/schema.ts).
 */

import { checkNumber } from '../../core/checks';
import { FluidError } from '../../core/errors';
import { checkOption, SURFACE_OPTIONS } from '../../core/schema';
import { type LevelSetOptions, resolveLevelSetOptions } from './levelSet';

/** Default iso-level of the color field: 0.5, half the bulk value, the level at a flat free surface. */
export const DEFAULT_ISO_LEVEL = SURFACE_OPTIONS.isoLevel.default;
/** Default cell size as a multiple of the particle radius. */
export const DEFAULT_CELL_SIZE_FACTOR = 1.5;

/** Settings of a {@link SurfaceExtractor}. */
export interface SurfaceExtractionOptions {
  /** Particle radius r (m, finite, > 0): the scale of the defaults below. */
  particleRadius: number;
  /** Kernel radius h of the color field (m). Default 4 r (the simulation's default). Range [r, 16 r]. */
  kernelRadius?: number;
  /**
   * Grid cell size (m). Default {@link DEFAULT_CELL_SIZE_FACTOR} r (1.5 r). Range [h / 16, h]: finer
   * grids cost (h / cellSize)^3 per particle.
   */
  cellSize?: number;
  /**
   * The color-field value of the surface, in (0, 1). Default {@link DEFAULT_ISO_LEVEL} (0.5): inside a
   * resting fluid c_S is about 1 and at a flat free surface it falls through 0.5 where the fluid's volume
   * ends (half a particle spacing beyond the last particle layer), so the enclosed volume matches the
   * particles' volume. Lower values give fatter blobs, higher thinner ones.
   */
  isoLevel?: number;
  /**
   * Level-set smoothing over time (Premoze et al. 2003, section 4, eq. 29; see levelSet.ts): the field is
   * carried from one extraction to the next and smoothed by mean-curvature flow while it tracks the
   * particles. Undefined (default): off, the surface is the color field's isosurface of this frame alone.
   */
  smoothing?: LevelSetOptions;
}

/** {@link SurfaceExtractionOptions} with the defaults filled in and every value checked. */
export interface ResolvedSurfaceExtractionOptions {
  /** Kernel radius h (m). */
  readonly kernelRadius: number;
  /** Grid cell size (m). */
  readonly cellSize: number;
  /** Iso-level, in (0, 1). */
  readonly isoLevel: number;
  /** The level-set settings, or undefined when smoothing is off. */
  readonly smoothing: Required<LevelSetOptions> | undefined;
}

/**
 * Validates extraction settings and fills in the defaults, without allocating an extractor's buffers (the
 * check a {@link SurfaceExtractor} makes on construction). Bad values throw {@link FluidError} naming the
 * value and its range.
 */
export function resolveSurfaceExtractionOptions(options: SurfaceExtractionOptions): ResolvedSurfaceExtractionOptions {
  if (typeof options !== 'object' || options === null) {
    throw new FluidError('SurfaceExtractor options must be an object');
  }
  const r = options.particleRadius;
  if (!(typeof r === 'number' && r > 0 && Number.isFinite(r))) {
    throw new FluidError(`particleRadius is ${String(r)}; it must be a finite number > 0 (m)`);
  }
  const rules = SURFACE_OPTIONS;
  const kernelRadius = checkNumber(
    'kernelRadius',
    options.kernelRadius ?? rules.kernelRadius.default * r,
    rules.kernelRadius.min * r,
    rules.kernelRadius.max * r,
  );
  const h = kernelRadius;
  const cellSize = checkNumber(
    'cellSize',
    options.cellSize ?? DEFAULT_CELL_SIZE_FACTOR * r,
    rules.cellSize.min * h,
    rules.cellSize.max * h,
  );
  const isoLevel = checkOption('isoLevel', rules.isoLevel, options.isoLevel ?? DEFAULT_ISO_LEVEL);
  const smoothing = options.smoothing === undefined ? undefined : resolveLevelSetOptions(options.smoothing);
  return { kernelRadius, cellSize, isoLevel, smoothing };
}
