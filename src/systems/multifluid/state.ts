/**
 * The multi-fluid state of the solver (`SolverState.multiFluid`): which terms a step runs and the working arrays
 * of the interaction terms, trapped air and boiling (multifluid/, density/numberDensity.ts; docs/ARCHITECTURE.md,
 * "Layers"). Allocated once with the solver's capacity by {@link createMultiFluidState}.
 */

/**
 * The multi-fluid terms one step runs. One object per simulation (`solver.multiFluid.features`), rewritten
 * by `updateMultiFluidFeatures` (multifluid/features.ts) before each step.
 */
export interface MultiFluidFeatures {
  /**
   * Number-density constraint with mass-weighted corrections (see density/numberDensity.ts): on when a
   * material opts in (`numberDensity` 1) or takes its rest density from the temperature.
   */
  numberDensity: boolean;
  /** Some material has `numberDensity` 1. */
  numberDensityOptIn: boolean;
  /** Some material has `temperatureDensity` (alpha of eq. 16) above 0. */
  temperatureDensity: boolean;
  /** Some material has an interface tension sigma^i (eq. 11) above 0. */
  interfaceTension: boolean;
  /** Some material has a surface tension sigma^s (eq. 12) above 0. */
  surfaceTension: boolean;
  /** Some material has a thermal diffusivity (eq. 14) above 0. */
  temperatureDiffusion: boolean;
  /** Some material has a color diffusivity (eq. 14) above 0. */
  colorDiffusion: boolean;
  /** Some collider has a heat-transfer rate above 0. */
  colliderHeat: boolean;
  /** Some material generates trapped air (section 3.4.1): `airGenerationThreshold` above 0. */
  airGeneration: boolean;
  /** Some material boils (section 4.4): `boilingTemperature` and `boilingProbability` above 0. */
  boiling: boolean;
  /** Some material has an artificial buoyancy b (eq. 17) above 0. */
  artificialBuoyancy: boolean;
}

/**
 * Working arrays of the multi-fluid terms (density/numberDensity.ts and interaction.ts), one value per
 * particle place unless said otherwise, allocated once with the solver's capacity, and the features this
 * step uses.
 */
export interface MultiFluidState {
  /** The multi-fluid terms this step runs, set before each step by the component checks (features.ts). */
  readonly features: MultiFluidFeatures;
  /** Rest volume V_i = m_i / rho0_i (m^3). */
  readonly restVolume: Float64Array;
  /**
   * sum_j m_j W_ij, then the neighbourhood's mean mass over the particle's own, mbar_i / m_i (PBF); with
   * WCSPH the number density, then the walls' pressure scale b_i made from it (sph/cpu.ts, computeSphDensity).
   */
  readonly neighbourhoodMass: Float64Array;
  /** Color-field gradient n (1/m, eq. 3). */
  readonly normalX: Float64Array;
  readonly normalY: Float64Array;
  readonly normalZ: Float64Array;
  /** Color-field Laplacian (1/m^2, eq. 4). */
  readonly laplacian: Float64Array;
  /** The particle's material color c of the field being smoothed. */
  readonly color: Float64Array;
  /** Largest diffusivity of the particle's material over the diffused channels (m^2/s). */
  readonly coefficient: Float64Array;
  /** WCSPH: each particle's dynamic viscosity mu (Pa s) in the substep, where the materials' differ (sph/cpu.ts). */
  readonly viscosity: Float64Array;
  /** Explicit diffusion rate sum_j c_ij V_j lap W_ij (1/s). */
  readonly rate: Float64Array;
  /** Per diffused channel (temperature, red, green, blue): the change of one explicit part. */
  readonly change: readonly Float64Array[];
  /** Per diffused channel: the values by particle place. */
  readonly values: readonly Float64Array[];
  /** The diffused channels of this substep (entity-indexed stores; reused, at most 4). */
  readonly channels: Float64Array[];
  /** Each diffused channel's per-material diffusivities (indexed by material entity). */
  readonly diffusivities: Float64Array[];
  /** Four numbers of scratch (a collider's fluid-side distance query). */
  readonly local: Float64Array;
  /** Trapped air and boiling (multifluid/air.ts, phase.ts): the places and entity ids they act on. */
  readonly air: AirState;
}

/** Working arrays of trapped air and boiling (multifluid/air.ts and phase.ts), allocated on first use. */
export interface AirState {
  /** Per particle place: 1 for particles of a material that is some material's `airMaterial`. */
  isAir: Uint8Array;
  /** Per particle place: the number density sum_j W_ij (self and walls included) in 1/m^3. */
  numberDensity: Float64Array;
  /** Per particle place: gradient of c^P (1/m). */
  particleGradientX: Float64Array;
  particleGradientY: Float64Array;
  particleGradientZ: Float64Array;
  /** Per particle place: gradient of c^S (1/m). */
  surfaceGradientX: Float64Array;
  surfaceGradientY: Float64Array;
  surfaceGradientZ: Float64Array;
  /** Per particle place: the mass density sum_j m_j W_ij (eq. 2, kg/m^3), for eq. 17. */
  massDensity: Float64Array;
  /** Entity ids collected for removal (first `removeCount`). */
  removals: Uint32Array;
  /** Per material entity: 1 when it is some material's `airMaterial`. */
  airMaterials: Uint8Array;
}

/** Allocates the multi-fluid working arrays for `capacity` particle places, with every feature off. */
export function createMultiFluidState(capacity: number): MultiFluidState {
  const f = () => new Float64Array(capacity);
  return {
    features: {
      numberDensity: false,
      numberDensityOptIn: false,
      temperatureDensity: false,
      interfaceTension: false,
      surfaceTension: false,
      temperatureDiffusion: false,
      colorDiffusion: false,
      colliderHeat: false,
      airGeneration: false,
      boiling: false,
      artificialBuoyancy: false,
    },
    restVolume: f(),
    neighbourhoodMass: f(),
    normalX: f(),
    normalY: f(),
    normalZ: f(),
    laplacian: f(),
    color: f(),
    coefficient: f(),
    viscosity: f(),
    rate: f(),
    change: [f(), f(), f(), f()],
    values: [f(), f(), f(), f()],
    channels: [],
    diffusivities: [],
    local: new Float64Array(4),
    air: {
      isAir: new Uint8Array(0),
      numberDensity: new Float64Array(0),
      particleGradientX: new Float64Array(0),
      particleGradientY: new Float64Array(0),
      particleGradientZ: new Float64Array(0),
      surfaceGradientX: new Float64Array(0),
      surfaceGradientY: new Float64Array(0),
      surfaceGradientZ: new Float64Array(0),
      massDensity: new Float64Array(0),
      removals: new Uint32Array(0),
      airMaterials: new Uint8Array(0),
    },
  };
}
