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
  /**
   * Interface colour c^i (Müller et al. 2005, section 3.2, Table 2), dimensionless in [-1, 1]: -0.5 for
   * polar liquids (water), +0.5 for non-polar ones (oil), 0 for air. Default 0. Its smoothed field's
   * gradient is the interface normal of eq. 10-11.
   */
  readonly interfaceColour: Float64Array;
  /**
   * Surface colour c^s (section 3.2, Table 2), dimensionless in [0, 1]: 1 for liquids, 0 for air.
   * Default 1. Its smoothed field gives the free-surface normal and curvature of eq. 12.
   */
  readonly surfaceColour: Float64Array;
  /**
   * Interface tension coefficient sigma^i (eq. 11) in N/m, range [0, 1000]: the force on each particle of
   * this material is -sigma^i lap(c^i) n / |n|. Default 0 (off, no cost).
   */
  readonly interfaceTension: Float64Array;
  /** Surface tension coefficient sigma^s (eq. 12) in N/m, range [0, 1000]. Default 0 (off, no cost). */
  readonly surfaceTension: Float64Array;
  /**
   * Thermal diffusivity c of the temperature (eq. 13-15) in m^2/s, range [0, 1]; the pair's mean acts
   * between two materials. Default 0 (off, no cost).
   */
  readonly diffusivity: Float64Array;
  /** Diffusivity of the particles' render colour (eq. 13-15) in m^2/s, range [0, 1]. Default 0 (off). */
  readonly colourDiffusivity: Float64Array;
  /**
   * Temperature-dependent rest density alpha (eq. 16) in kg K/m^3, range [0, 1e12]: when above 0 the
   * rest density of each particle of this material is alpha / T (T its `Temperature` in kelvin) and
   * `restDensity` is ignored by the solver. Default 0 (off).
   */
  readonly temperatureDensity: Float64Array;
  /** Temperature (K) given to new particles of this material, range [0.001, 1e6]. Default 293.15. */
  readonly initialTemperature: Float64Array;
  /**
   * 1 opts the scene into the multi-fluid density constraint (see multifluid/density.ts): each particle's
   * density from its own mass and its neighbourhood's number density (Solenthaler and Pajarola 2008) and
   * mass-weighted corrections, so fluids of different rest densities (Müller et al. 2005, section 3.1,
   * buoyancy) meet without a false interface tension, robustly up to 10:1. The step uses it for every
   * particle when any material has 1 (or a `temperatureDensity`); set it on the fluids of a scene where
   * fluids of different rest densities meet. 0 (default) keeps the single-fluid SPH estimate
   * rho_i = sum_j m_j W_ij. Values 0 or 1.
   */
  readonly numberDensity: Uint8Array;
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
  /** Interface colour c^i: 0 (neither polar nor non-polar; section 3.2 of Müller et al. 2005). */
  interfaceColour: 0,
  /** Surface colour c^s: 1 (a liquid). */
  surfaceColour: 1,
  /** Interface tension sigma^i: 0 N/m (off). */
  interfaceTension: 0,
  /** Surface tension sigma^s: 0 N/m (off). */
  surfaceTension: 0,
  /** Thermal diffusivity: 0 m^2/s (off). */
  diffusivity: 0,
  /** Colour diffusivity: 0 m^2/s (off). */
  colourDiffusivity: 0,
  /** Temperature-dependent rest density alpha: 0 (off; `restDensity` holds). */
  temperatureDensity: 0,
  /** Temperature of new particles: 293.15 K (20 degrees Celsius). */
  initialTemperature: 293.15,
  /** Multi-fluid number-density constraint: off. */
  numberDensity: false,
} as const;

/**
 * Allocates the material store for entity ids `0 .. size - 1`. The multi-fluid fields start at their
 * defaults (a snapshot written before they existed restores them from these values).
 */
export function createFluidMaterialStore(size: number): FluidMaterialStore {
  const f = () => new Float64Array(size);
  const filled = (value: number) => new Float64Array(size).fill(value);
  const d = MATERIAL_DEFAULTS;
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
    interfaceColour: filled(d.interfaceColour),
    surfaceColour: filled(d.surfaceColour),
    interfaceTension: filled(d.interfaceTension),
    surfaceTension: filled(d.surfaceTension),
    diffusivity: filled(d.diffusivity),
    colourDiffusivity: filled(d.colourDiffusivity),
    temperatureDensity: filled(d.temperatureDensity),
    initialTemperature: filled(d.initialTemperature),
    numberDensity: new Uint8Array(size).fill(d.numberDensity ? 1 : 0),
  };
}
