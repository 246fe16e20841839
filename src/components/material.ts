/**
 * The `FluidMaterial` component: one entity per fluid. Particles refer to it through
 * `Particle.material[eid]`. Editing a value changes every particle of that fluid on the next step.
 * Data only; defaults live in {@link MATERIAL_DEFAULTS}.
 */

/** Structure-of-arrays store of fluid materials, indexed by the material's entity id. */
export interface FluidMaterialStore {
  /** Rest density rho0 in kg/m^3 (eq. 1 of Macklin & Müller 2013). */
  readonly restDensity: Float64Array;
  /** Mass of one particle in kg. Chosen so that the spawn lattice sits at `restDensity`. */
  readonly particleMass: Float64Array;
  /** XSPH viscosity coefficient c (eq. 17), dimensionless, per substep. */
  readonly viscosity: Float64Array;
  /** Vorticity confinement strength epsilon (eq. 16) in m/s. */
  readonly vorticity: Float64Array;
  /** Artificial pressure strength k (eq. 13), dimensionless. */
  readonly artificialPressureStrength: Float64Array;
  /** Artificial pressure exponent n (eq. 13). */
  readonly artificialPressureExponent: Float64Array;
  /** Artificial pressure reference distance |delta q| (eq. 13) as a fraction of the kernel radius h. */
  readonly artificialPressureDistance: Float64Array;
  /**
   * Constraint force mixing relaxation epsilon (eq. 11), as a fraction of the rest-lattice sum
   * of squared constraint gradients (dimensionless, so it does not depend on the particle size).
   */
  readonly relaxation: Float64Array;
  /** Render colour, red channel in 0..1. */
  readonly colorRed: Float64Array;
  /** Render colour, green channel in 0..1. */
  readonly colorGreen: Float64Array;
  /** Render colour, blue channel in 0..1. */
  readonly colorBlue: Float64Array;
}

/** Default material values (water). See {@link FluidMaterialStore} for units. */
export const MATERIAL_DEFAULTS = {
  /** Rest density rho0: 1000 kg/m^3 (water). */
  restDensity: 1000,
  /** XSPH viscosity coefficient c: 0.01 (dimensionless, per substep). */
  viscosity: 0.01,
  /** Vorticity confinement strength epsilon: 0.01 m/s. */
  vorticity: 0.01,
  /** Artificial pressure strength k: 0.1 (dimensionless). */
  artificialPressureStrength: 0.1,
  /** Artificial pressure exponent n: 4. */
  artificialPressureExponent: 4,
  /** Artificial pressure distance |delta q|: 0.2 of the kernel radius h. */
  artificialPressureDistance: 0.2,
  /** CFM relaxation epsilon: 0.01 of the rest-lattice sum of |grad C|^2. */
  relaxation: 0.01,
  /** Render colour (red, green, blue in [0, 1]): a water blue. */
  color: [0.2, 0.45, 0.9] as readonly [number, number, number],
} as const;

/** Allocates the material store for entity ids `0 .. size - 1`. */
export function createFluidMaterialStore(size: number): FluidMaterialStore {
  const f = () => new Float64Array(size);
  return {
    restDensity: f(),
    particleMass: f(),
    viscosity: f(),
    vorticity: f(),
    artificialPressureStrength: f(),
    artificialPressureExponent: f(),
    artificialPressureDistance: f(),
    relaxation: f(),
    colorRed: f(),
    colorGreen: f(),
    colorBlue: f(),
  };
}
