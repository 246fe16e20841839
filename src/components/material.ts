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
  /**
   * Artificial pressure strength k (eq. 13), dimensionless. In the still-water mode
   * (`projection.freeSurface`, the default) the single-fluid constraint offsets the term by its value at the
   * rest spacing 2r where the coarse projection holds the water, so it pushes apart only particles closer
   * than that there.
   */
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
  /** Render color, red channel in 0..1. */
  readonly colorRed: Float64Array;
  /** Render color, green channel in 0..1. */
  readonly colorGreen: Float64Array;
  /** Render color, blue channel in 0..1. */
  readonly colorBlue: Float64Array;
  /**
   * Interface color c^i (Müller et al. 2005, section 3.2, Table 2), dimensionless in [-1, 1]: -0.5 for
   * polar liquids (water), +0.5 for non-polar ones (oil), 0 for air. Default 0. Its smoothed field's
   * gradient is the interface normal of eq. 10-11.
   */
  readonly interfaceColor: Float64Array;
  /**
   * Surface color c^s (section 3.2, Table 2), dimensionless in [0, 1]: 1 for liquids, 0 for air.
   * Default 1. Its smoothed field gives the free-surface normal and curvature of eq. 12.
   */
  readonly surfaceColor: Float64Array;
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
  /** Diffusivity of the particles' render color (eq. 13-15) in m^2/s, range [0, 1]. Default 0 (off). */
  readonly colorDiffusivity: Float64Array;
  /**
   * Temperature-dependent rest density alpha (eq. 16) in kg K/m^3, range [0, 1e12]: when above 0 the
   * rest density of each particle of this material is alpha / T (T its `Temperature` in kelvin) and
   * `restDensity` is ignored by the solver. Default 0 (off).
   */
  readonly temperatureDensity: Float64Array;
  /** Temperature (K) given to new particles of this material, range [0.001, 1e6]. Default 293.15. */
  readonly initialTemperature: Float64Array;
  /**
   * Dynamic viscosity mu of this material for the WCSPH solver (`solver: 'sph'`), in Pa s, range [-1, 1e5]:
   * a pair of particles of two materials feels the mean (mu_i + mu_j) / 2 (Müller et al. 2005, eq. 9). A
   * negative value (the default, -1) takes the simulation's `sph.viscosity`. The PBF solver uses the XSPH
   * `viscosity` instead; MPS its `mps.viscosity`.
   */
  readonly dynamicViscosity: Float64Array;
  /**
   * 1 opts the scene into the multi-fluid density constraint (see density/numberDensity.ts): each particle's
   * density from its own mass and its neighbourhood's number density (Solenthaler and Pajarola 2008) and
   * mass-weighted corrections, so fluids of different rest densities (Müller et al. 2005, section 3.1,
   * buoyancy) meet without a false interface tension, robustly up to 10:1. The step uses it for every
   * particle when any material has 1 (or a `temperatureDensity`); set it on the fluids of a scene where
   * fluids of different rest densities meet. 0 (default) keeps the single-fluid SPH estimate
   * rho_i = sum_j m_j W_ij. Values 0 or 1. With the WCSPH solver it switches the density to
   * rho_i = m_i (W(0) + Z_i + sum_j W_ij) and the pressure force to Solenthaler and Pajarola's
   * -sum_j (p_i / delta_i^2 + p_j / delta_j^2) grad W_ij (sph/cpu.ts).
   */
  readonly numberDensity: Uint8Array;
  /**
   * Trapped air and boiling (Müller et al. 2005, sections 3.4 and 4.4): the material entity of the air
   * (or vapour) particles this liquid generates where air is trapped (3.4.1) and turns into when it boils
   * (4.4). That material should have `surfaceColor` 0 (Table 2: c^s = 0 on air; checked when generation or
   * boiling is on) and, for its bubbles to rise, a lower `restDensity` (the paper: 100 kg/m^3 against 1000,
   * with `numberDensity` on both) and an `artificialBuoyancy`. While some material generates air or boils,
   * the particles of every material named here are deleted by the criteria of section 3.4.2 (see
   * `airDeletionDensity` and the thresholds). -1 (default): none; generation and boiling need it. A
   * material entity id other than this material's own. Solvers 'pbf' and 'sph' (both backends).
   */
  readonly airMaterial: Int32Array;
  /**
   * Air generation threshold t_p of section 3.4.1, as t_p times the kernel radius h (dimensionless, range
   * [0, 100]): a particle of this liquid generates one air particle (of `airMaterial`) at
   * x - d grad(c^P) / |grad(c^P)| when the gradient of the implicit color field c^P (1 on every particle,
   * walls included; smoothed as sum_j V_j W_ij) has |grad(c^P)| > t_p / h and an upward component
   * grad(c^P) . e_y > 0 (the underside of a liquid front, where air can be trapped). The paper's
   * t_p = 22 1/m with h = 0.045 m is about 1. Default 0: generation off (no cost).
   */
  readonly airGenerationThreshold: Float64Array;
  /**
   * Distance d of section 3.4.1 at which a generated air particle is placed from its liquid particle,
   * against the color gradient, in particle spacings 2r (dimensionless, range [0, 4]). Default 1. (The
   * paper writes x - d grad(c^P), d in m^2; the unit direction makes the distance independent of |grad c^P|.)
   */
  readonly airGenerationDistance: Float64Array;
  /**
   * Boiling temperature in kelvin (section 4.4; 373.15 for water), range [0, 1e6]: a particle of this liquid
   * at a cavitation site (within the kernel radius h of a collider with a `heatTransfer` above 0 and a
   * `temperature` at least this) whose `Temperature` has reached it turns into `airMaterial` (vapour) with
   * probability `boilingProbability` per step. Default 0: boiling off (no cost).
   */
  readonly boilingTemperature: Float64Array;
  /**
   * Probability per step (one `timeStep`, 1/60 s by default) and particle that a liquid particle at a
   * cavitation site at or above `boilingTemperature` turns into vapour (section 4.4; the paper uses 0.005 per
   * 6 ms step). Range [0, 1]. Default 0.005. Drawn from the simulation's seeded generator: deterministic.
   */
  readonly boilingProbability: Float64Array;
  /**
   * Artificial buoyancy coefficient b of eq. 17 (dimensionless, range [0, 100]) of air particles of this
   * material: each substep a particle gets the upward acceleration b (rho - rho0) |g| / rho, rho its mass
   * density sum_j m_j W_ij (eq. 2: about the water's among water) and rho0 this material's rest density
   * (zero where rho <= rho0). The paper writes f = b (rho - rho0) g and means it upwards; b = 5 there.
   * Default 0: off (no cost).
   */
  readonly artificialBuoyancy: Float64Array;
  /**
   * Deletion threshold t_s of section 3.4.2 for particles of this material when it is an `airMaterial`, as
   * t_s times h (dimensionless, range [0, 100]): an air particle with |grad(c^S)| < t_s / h (no liquid
   * near) and |grad(c^P)| > `airDeletionBoundaryThreshold` / h (at the boundary of the particles) is
   * deleted. Default 0.001 (the paper's t_s = 0.0001 1/m is 4.5e-6 with h = 0.045 m: no liquid within h).
   */
  readonly airDeletionSurfaceThreshold: Float64Array;
  /**
   * Threshold on |grad(c^P)| of the deletion criteria of section 3.4.2 (the paper reuses t_p), as a multiple
   * of 1 / h (dimensionless, range [0, 100]), for particles of this material when it is an `airMaterial`:
   * with the surface criterion above, and for the free surface: an air particle on the top boundary of the
   * particles (|grad(c^P)| above it and grad(c^P) . e_y < 0, particles only below) has reached the free
   * surface and leaves (the bubble bursts; section 4.4, vapour leaves the water). Default 1.
   */
  readonly airDeletionBoundaryThreshold: Float64Array;
  /**
   * Isolated-particle threshold of section 3.4.2 (the paper's "rho < t" on the actual density), as a
   * fraction of a full neighbourhood: an air particle whose number density (sum_j W_ij over every particle,
   * itself and walls included) is below this fraction of the rest lattice's is deleted. Dimensionless, range
   * [0, 1]. Default 0.2 (a particle alone has about 0.08 with h = 4r; one half in a flat free surface 0.5).
   */
  readonly airDeletionDensity: Float64Array;
  /**
   * White water (Ihmsen et al. 2012, "Unified spray, foam and bubbles for particle-based fluids"; on when the
   * simulation has a `diffuse.capacity`): tau_ta min of the trapped-air potential, in m/s. A particle's
   * trapped air is sum_j |v_ij| (1 - v_ij . x_ij / (|v_ij| |x_ij|)) (1 - |x_ij| / h) over its neighbours j
   * (v_ij = v_i - v_j, x_ij = x_i - x_j: fluid moving towards itself); clamped to [min, max] and scaled to
   * [0, 1] it is I_ta. Range [0, 1e4]. Default 5 (the paper's).
   */
  readonly diffuseTrappedAirMin: Float64Array;
  /** White water: tau_ta max of the trapped-air potential, m/s (above `diffuseTrappedAirMin`). Default 20 (the paper's). */
  readonly diffuseTrappedAirMax: Float64Array;
  /**
   * White water: tau_wc min of the wave-crest potential (dimensionless): the surface curvature
   * sum_j (1 - n_i . n_j) (1 - |x_ij| / h) over surface neighbours j behind i (x_ji . n_i < 0), n the unit
   * outward normals (from the neighbours' weighted centre to the particle, see diffuse/cpu.ts), counted where the particle moves along its normal
   * (v_i . n_i >= 0.6 |v_i|); clamped and scaled it is I_wc. Range [0, 1e4]. Default 2 (the paper's).
   */
  readonly diffuseWaveCrestMin: Float64Array;
  /** White water: tau_wc max of the wave-crest potential (above `diffuseWaveCrestMin`). Default 8 (the paper's). */
  readonly diffuseWaveCrestMax: Float64Array;
  /**
   * White water: tau_k min of the kinetic energy, per unit mass (|v|^2 / 2, J/kg; the paper's E_k = m |v|^2 / 2
   * in J, divided by the particle mass so that the thresholds do not depend on the particle size); clamped
   * and scaled it is I_k, which gates both generation terms. Range [0, 1e6]. Default 0.5 J/kg (1 m/s).
   */
  readonly diffuseEnergyMin: Float64Array;
  /** White water: tau_k max of the kinetic energy per unit mass, J/kg (above `diffuseEnergyMin`). Default 5 J/kg (about 3.2 m/s). */
  readonly diffuseEnergyMax: Float64Array;
  /**
   * White water: k_ta, the diffuse particles a fluid particle generates per second from trapped air at full
   * potentials: n_d = I_k (k_ta I_ta + k_wc I_wc) dt per step, rounded at random. Range [0, 1e6]. 0 turns
   * this source off. Default 400.
   */
  readonly diffuseTrappedAirRate: Float64Array;
  /** White water: k_wc, the same from wave crests, per second. Range [0, 1e6]. Default 400. */
  readonly diffuseWaveCrestRate: Float64Array;
  /**
   * White water: k_b, a bubble's buoyancy as a multiple of -g: v += dt (-k_b g) + k_d (v_fluid - v) per step.
   * Range [0, 100]. Default 2.
   */
  readonly diffuseBuoyancy: Float64Array;
  /** White water: k_d, the fraction of a bubble's velocity difference to the fluid it loses per step. Range [0, 1]. Default 0.5. */
  readonly diffuseDrag: Float64Array;
  /** White water: linear air drag of spray in 1/s (v += dt (g - drag v)). Range [0, 100]. Default 0 (ballistic, the paper's). */
  readonly diffuseSprayDrag: Float64Array;
  /** White water: shortest lifetime in seconds of a diffuse particle (drawn in [min, max] at birth). Range [0, 1e4]. Default 2. */
  readonly diffuseLifetimeMin: Float64Array;
  /** White water: longest lifetime in seconds (at least `diffuseLifetimeMin`). Range [0, 1e4]. Default 5. */
  readonly diffuseLifetimeMax: Float64Array;
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
  /** Render color (red, green, blue in [0, 1]): a water blue. */
  color: [0.2, 0.45, 0.9] as readonly [number, number, number],
  /** Interface color c^i: 0 (neither polar nor non-polar; section 3.2 of Müller et al. 2005). */
  interfaceColor: 0,
  /** Surface color c^s: 1 (a liquid). */
  surfaceColor: 1,
  /** Interface tension sigma^i: 0 N/m (off). */
  interfaceTension: 0,
  /** Surface tension sigma^s: 0 N/m (off). */
  surfaceTension: 0,
  /** Thermal diffusivity: 0 m^2/s (off). */
  diffusivity: 0,
  /** Color diffusivity: 0 m^2/s (off). */
  colorDiffusivity: 0,
  /** Temperature-dependent rest density alpha: 0 (off; `restDensity` holds). */
  temperatureDensity: 0,
  /** Temperature of new particles: 293.15 K (20 degrees Celsius). */
  initialTemperature: 293.15,
  /** WCSPH dynamic viscosity: -1 (the simulation's `sph.viscosity`). */
  dynamicViscosity: -1,
  /** Multi-fluid number-density constraint: off. */
  numberDensity: false,
  /** Air/vapour material of trapped air and boiling: -1 (none). */
  airMaterial: -1,
  /** Air generation threshold t_p h: 0 (generation off). */
  airGenerationThreshold: 0,
  /** Distance of a generated air particle from its liquid particle: 1 particle spacing. */
  airGenerationDistance: 1,
  /** Boiling temperature: 0 K (boiling off). */
  boilingTemperature: 0,
  /** Probability per step of a particle at a cavitation site turning into vapour: 0.005 (the paper's). */
  boilingProbability: 0.005,
  /** Artificial buoyancy b (eq. 17): 0 (off). */
  artificialBuoyancy: 0,
  /** Air deletion threshold t_s h on |grad c^S|: 0.001. */
  airDeletionSurfaceThreshold: 0.001,
  /** Air deletion threshold on |grad c^P| h: 1. */
  airDeletionBoundaryThreshold: 1,
  /** Isolated air particle threshold: 0.2 of a full neighbourhood's number density. */
  airDeletionDensity: 0.2,
  /** White water: tau_ta min 5 m/s, max 20 m/s (Ihmsen et al. 2012). */
  diffuseTrappedAirMin: 5,
  /** White water: tau_ta max: 20 m/s. */
  diffuseTrappedAirMax: 20,
  /** White water: tau_wc min: 2. */
  diffuseWaveCrestMin: 2,
  /** White water: tau_wc max: 8. */
  diffuseWaveCrestMax: 8,
  /** White water: tau_k min: 0.5 J/kg. */
  diffuseEnergyMin: 0.5,
  /** White water: tau_k max: 5 J/kg. */
  diffuseEnergyMax: 5,
  /** White water: k_ta: 400 per second. */
  diffuseTrappedAirRate: 400,
  /** White water: k_wc: 400 per second. */
  diffuseWaveCrestRate: 400,
  /** White water: bubble buoyancy k_b: 2. */
  diffuseBuoyancy: 2,
  /** White water: bubble drag k_d: 0.5. */
  diffuseDrag: 0.5,
  /** White water: spray air drag: 0 1/s. */
  diffuseSprayDrag: 0,
  /** White water: shortest lifetime: 2 s. */
  diffuseLifetimeMin: 2,
  /** White water: longest lifetime: 5 s. */
  diffuseLifetimeMax: 5,
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
    interfaceColor: filled(d.interfaceColor),
    surfaceColor: filled(d.surfaceColor),
    interfaceTension: filled(d.interfaceTension),
    surfaceTension: filled(d.surfaceTension),
    diffusivity: filled(d.diffusivity),
    colorDiffusivity: filled(d.colorDiffusivity),
    temperatureDensity: filled(d.temperatureDensity),
    initialTemperature: filled(d.initialTemperature),
    dynamicViscosity: filled(d.dynamicViscosity),
    numberDensity: new Uint8Array(size).fill(d.numberDensity ? 1 : 0),
    airMaterial: new Int32Array(size).fill(d.airMaterial),
    airGenerationThreshold: filled(d.airGenerationThreshold),
    airGenerationDistance: filled(d.airGenerationDistance),
    boilingTemperature: filled(d.boilingTemperature),
    boilingProbability: filled(d.boilingProbability),
    artificialBuoyancy: filled(d.artificialBuoyancy),
    airDeletionSurfaceThreshold: filled(d.airDeletionSurfaceThreshold),
    airDeletionBoundaryThreshold: filled(d.airDeletionBoundaryThreshold),
    airDeletionDensity: filled(d.airDeletionDensity),
    diffuseTrappedAirMin: filled(d.diffuseTrappedAirMin),
    diffuseTrappedAirMax: filled(d.diffuseTrappedAirMax),
    diffuseWaveCrestMin: filled(d.diffuseWaveCrestMin),
    diffuseWaveCrestMax: filled(d.diffuseWaveCrestMax),
    diffuseEnergyMin: filled(d.diffuseEnergyMin),
    diffuseEnergyMax: filled(d.diffuseEnergyMax),
    diffuseTrappedAirRate: filled(d.diffuseTrappedAirRate),
    diffuseWaveCrestRate: filled(d.diffuseWaveCrestRate),
    diffuseBuoyancy: filled(d.diffuseBuoyancy),
    diffuseDrag: filled(d.diffuseDrag),
    diffuseSprayDrag: filled(d.diffuseSprayDrag),
    diffuseLifetimeMin: filled(d.diffuseLifetimeMin),
    diffuseLifetimeMax: filled(d.diffuseLifetimeMax),
  };
}
