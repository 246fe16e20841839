/**
 * The option schema: every numeric option of the simulation and its materials with its allowed range, unit and
 * (where it is a constant) default, defined once. The public calls (`new FluidSimulation`, `addMaterial`), the
 * checks before each step (game code may edit the settings and the material components), snapshot restores and
 * the README's option tables (checked by tests/options.test.ts) all read these, so the ranges cannot drift
 * apart (docs/ARCHITECTURE.md, "Layers": core imports nothing but the errors).
 */
import { COORDINATE_LIMIT, checkInteger, checkNumber } from './checks';
import { FluidError } from './errors';

/** One numeric option: allowed range [min, max] (or (min, max]), unit, default. */
export interface OptionRule {
  /** Smallest allowed value (excluded when `minExclusive`). */
  readonly min: number;
  /** True when `min` itself is not allowed: the range is (min, max]. */
  readonly minExclusive?: boolean;
  /** Largest allowed value (excluded when `maxExclusive`). */
  readonly max: number;
  /** True when `max` itself is not allowed: the range is [min, max) or (min, max). */
  readonly maxExclusive?: boolean;
  /** True when only integers are allowed. */
  readonly integer?: boolean;
  /** SI unit as the README writes it (`''` for a dimensionless value). */
  readonly unit: string;
  /** Default value where it is a constant (absent where it is computed from other options). */
  readonly default?: number;
}

/**
 * The allowed range of `rule` as the error messages and the README write it: `[min, max]` or `(min, max]`
 * (an integer rule says so in its messages; the range text is the same).
 */
export function rangeText(rule: OptionRule): string {
  return `${rule.minExclusive ? '(' : '['}${rule.min}, ${rule.max}${rule.maxExclusive ? ')' : ']'}`;
}

/** True when `value` is a number that `rule` allows. */
export function allows(rule: OptionRule, value: unknown): value is number {
  if (typeof value !== 'number' || !(rule.minExclusive ? value > rule.min : value >= rule.min)) return false;
  return (rule.maxExclusive ? value < rule.max : value <= rule.max) && (!rule.integer || Number.isInteger(value));
}

/** Checks `value` against `rule` (a `FluidError` names `name`, the value and the range) and returns it. */
export function checkOption(name: string, rule: OptionRule, value: unknown): number {
  if (rule.minExclusive || rule.maxExclusive) {
    if (!allows(rule, value)) throw new FluidError(`${name} is ${String(value)}; allowed range is ${rangeText(rule)}`);
    return value;
  }
  return rule.integer ? checkInteger(name, value, rule.min, rule.max) : checkNumber(name, value, rule.min, rule.max);
}

/**
 * The options of `new FluidSimulation(options)` that live on in `simulation.settings` (the per-step checks
 * read the same rules). `kernelRadius` is relative to the particle radius: see {@link KERNEL_RADIUS_RANGE}.
 */
export const SIMULATION_OPTIONS = {
  /** Particle radius r (m); particles spawn on a lattice of spacing 2r. */
  particleRadius: { min: 0.0001, max: 100, unit: 'm', default: 0.025 },
  /** Most live particles. */
  capacity: { min: 1, max: 4194304, integer: true, unit: '', default: 32768 },
  /** Most material entities. */
  maxMaterials: { min: 1, max: 1024, integer: true, unit: '', default: 16 },
  /** Most collider entities. */
  maxColliders: { min: 1, max: 4096, integer: true, unit: '', default: 64 },
  /** Most emitter plus drain entities. */
  maxEmitters: { min: 1, max: 4096, integer: true, unit: '', default: 64 },
  /** Each component of the gravity vector (m/s^2). */
  gravity: { min: -1000, max: 1000, unit: 'm/s²' },
  /** Step length of `step()` without an argument (s); `step(timeStep)` takes the same range. */
  timeStep: { min: 0.000001, max: 0.1, unit: 's', default: 1 / 60 },
  /** Substeps per step. */
  substeps: { min: 1, max: 32, integer: true, unit: '', default: 2 },
  /** Jacobi density iterations per substep (default 2 or 3, see the README). */
  iterations: { min: 1, max: 64, integer: true, unit: '' },
  /** Speed clamp after external forces (m/s); default h / (timeStep / substeps). */
  maxSpeed: { min: 0.000001, max: 10000, unit: 'm/s' },
  /**
   * Threads that share the CPU backend's PBF pair loops, the stepping thread included (default: the machine's
   * hardware threads, at most 2, on the CPU backend where workers can run; 1 on WebGPU; see
   * `FluidSimulationOptions.threads`).
   */
  threads: { min: 1, max: 8, integer: true, unit: '' },
} as const satisfies Record<string, OptionRule>;

/** `kernelRadius` h as a multiple of the particle radius r: [3r, 8r], default 4r. */
export const KERNEL_RADIUS_RANGE = { min: 3, max: 8, default: 4 } as const;

/** The coarse pressure projection's options (`projection: { ... }`, live in `settings.projection*`). */
export const PROJECTION_OPTIONS = {
  /** Relative residual its conjugate gradients stop at. */
  tolerance: { min: 1e-8, max: 0.5, unit: '', default: 1e-3 },
  /** Most conjugate-gradient iterations per substep. */
  maxIterations: { min: 1, max: 10000, integer: true, unit: '', default: 200 },
  /** Fraction of a cell's mean density error removed per substep. */
  densityRelaxation: { min: 0, max: 1, unit: '', default: 0.2 },
} as const satisfies Record<string, OptionRule>;

/**
 * White water's simulation-wide options (`diffuse: { ... }`, live in `settings.diffuse*`; Ihmsen et al. 2012,
 * "Unified spray, foam and bubbles for particle-based fluids": a diffuse particle is spray below `sprayNeighbours` fluid neighbours within h, a bubble above
 * `bubbleNeighbours`, foam between).
 */
export const DIFFUSE_OPTIONS = {
  /**
   * Most live diffuse particles (fixed at creation); 0 turns white water off. At most 2,097,152: the WebGPU
   * pool's 64-byte slots then fill one storage binding of WebGPU's default limit (128 MiB).
   */
  capacity: { min: 0, max: 2097152, integer: true, unit: '', default: 0 },
  /** Fewer fluid neighbours than this: spray. */
  sprayNeighbours: { min: 0, max: 1000, integer: true, unit: '', default: 6 },
  /** More fluid neighbours than this: a bubble. */
  bubbleNeighbours: { min: 0, max: 1000, integer: true, unit: '', default: 20 },
} as const satisfies Record<string, OptionRule>;

/** Allowed range of a temperature in kelvin (particles, colliders, materials' initial temperature). */
export const TEMPERATURE_RULE = { min: 0.001, max: 1e6, unit: 'K' } as const satisfies OptionRule;

/**
 * The numeric options of `addMaterial`, which live on in the `FluidMaterial` component (checked again before
 * each step: game code may edit them). Defaults are in `MATERIAL_DEFAULTS` (components/material.ts).
 */
export const MATERIAL_OPTIONS = {
  /** Rest density rho0 (kg/m^3). */
  restDensity: { min: 0.001, max: 1e9, unit: 'kg/m³' },
  /** Mass of one particle (kg); default rho0 / (poly6 sum of the spawn lattice). */
  particleMass: { min: 1e-15, max: 1e12, unit: 'kg' },
  /** XSPH viscosity c (dimensionless, per substep). */
  viscosity: { min: 0, max: 1, unit: '' },
  /** Vorticity confinement epsilon (m/s). */
  vorticity: { min: 0, max: 1000, unit: 'm/s' },
  /** Artificial pressure strength k. */
  artificialPressureStrength: { min: 0, max: 10, unit: '' },
  /** Artificial pressure exponent n. */
  artificialPressureExponent: { min: 1, max: 16, unit: '' },
  /** Artificial pressure distance |delta q| as a fraction of h. */
  artificialPressureDistance: { min: 0, max: 0.99, unit: '' },
  /** CFM relaxation epsilon as a fraction of the rest-lattice sum of |grad C|^2. */
  relaxation: { min: 1e-9, max: 1e6, unit: '' },
  /** Interface color c^i. */
  interfaceColor: { min: -1, max: 1, unit: '' },
  /** Surface color c^s. */
  surfaceColor: { min: 0, max: 1, unit: '' },
  /** Interface tension sigma^i (N/m). */
  interfaceTension: { min: 0, max: 1000, unit: 'N/m' },
  /** Surface tension sigma^s (N/m). */
  surfaceTension: { min: 0, max: 1000, unit: 'N/m' },
  /** Thermal diffusivity (m^2/s). */
  diffusivity: { min: 0, max: 1, unit: 'm²/s' },
  /** Color diffusivity (m^2/s). */
  colorDiffusivity: { min: 0, max: 1, unit: 'm²/s' },
  /** alpha of eq. 16 (kg K/m^3). */
  temperatureDensity: { min: 0, max: 1e12, unit: 'kg K/m³' },
  /** Temperature of new particles (K). */
  initialTemperature: TEMPERATURE_RULE,
  /** WCSPH dynamic viscosity mu (Pa s); negative: the simulation's `sph.viscosity`. */
  dynamicViscosity: { min: -1, max: 1e5, unit: 'Pa s' },
  /** t_p of section 3.4.1 times h (dimensionless). */
  airGenerationThreshold: { min: 0, max: 100, unit: '' },
  /** Where a new air particle goes, in particle spacings below its liquid particle. */
  airGenerationDistance: { min: 0, max: 4, unit: '' },
  /** Boiling temperature (K); 0 is off. */
  boilingTemperature: { min: 0, max: TEMPERATURE_RULE.max, unit: 'K' },
  /** Boiling probability per step. */
  boilingProbability: { min: 0, max: 1, unit: '' },
  /** b of eq. 17 (dimensionless). */
  artificialBuoyancy: { min: 0, max: 100, unit: '' },
  /** t_s of section 3.4.2 times h (dimensionless). */
  airDeletionSurfaceThreshold: { min: 0, max: 100, unit: '' },
  /** Boundary deletion threshold, times 1/h (dimensionless). */
  airDeletionBoundaryThreshold: { min: 0, max: 100, unit: '' },
  /** Fraction of the rest number density below which an air particle is deleted. */
  airDeletionDensity: { min: 0, max: 1, unit: '' },
  /** White water: tau_ta min of the trapped-air potential (Ihmsen et al. 2012), m/s. */
  diffuseTrappedAirMin: { min: 0, max: 10000, unit: 'm/s' },
  /** White water: tau_ta max of the trapped-air potential, m/s. */
  diffuseTrappedAirMax: { min: 0, max: 10000, unit: 'm/s' },
  /** White water: tau_wc min of the wave-crest potential, dimensionless. */
  diffuseWaveCrestMin: { min: 0, max: 10000, unit: '' },
  /** White water: tau_wc max of the wave-crest potential. */
  diffuseWaveCrestMax: { min: 0, max: 10000, unit: '' },
  /** White water: tau_k min of the kinetic energy, per unit mass, J/kg. */
  diffuseEnergyMin: { min: 0, max: 1e6, unit: 'J/kg' },
  /** White water: tau_k max of the kinetic energy, J/kg. */
  diffuseEnergyMax: { min: 0, max: 1e6, unit: 'J/kg' },
  /** White water: k_ta of the generation rate, diffuse particles per fluid particle per second at full potentials. */
  diffuseTrappedAirRate: { min: 0, max: 1e6, unit: '1/s' },
  /** White water: k_wc of the generation rate. */
  diffuseWaveCrestRate: { min: 0, max: 1e6, unit: '1/s' },
  /** White water: k_b of the bubbles' advection, a bubble's buoyancy as a multiple of -g. */
  diffuseBuoyancy: { min: 0, max: 100, unit: '' },
  /** White water: k_d of the bubbles' advection, the fraction of a bubble's velocity difference to the fluid removed per step. */
  diffuseDrag: { min: 0, max: 1, unit: '' },
  /** White water: linear air drag of spray, 1/s (0: ballistic, as in the paper). */
  diffuseSprayDrag: { min: 0, max: 100, unit: '1/s' },
  /** White water: shortest lifetime of a diffuse particle, s. */
  diffuseLifetimeMin: { min: 0, max: 10000, unit: 's' },
  /** White water: longest lifetime of a diffuse particle, s. */
  diffuseLifetimeMax: { min: 0, max: 10000, unit: 's' },
} as const satisfies Record<string, OptionRule>;

/** The WCSPH solver's settings (`sph: { ... }`, live in `settings.sph*`). */
export const SPH_OPTIONS = {
  /** Speed of sound c_s (m/s); stiffness k = c_s^2. */
  speedOfSound: { min: 0.1, max: 1000, unit: 'm/s', default: 20 },
  /** Dynamic viscosity mu of eq. 14 (Pa s). */
  viscosity: { min: 0, max: 1e5, unit: 'Pa s', default: 10 },
  /** Surface tension sigma of eq. 19 (N/m). */
  surfaceTension: { min: 0, max: 1e3, unit: 'N/m', default: 0.0728 },
  /** Threshold l of eq. 19 (1/m); default 0.5 / h. */
  surfaceThreshold: { min: 0, max: 1e6, unit: '1/m' },
  /** lambda of the CFL limit. */
  courantNumber: { min: 0.01, max: 1, unit: '', default: 0.25 },
  /** Cap on the adaptive substeps (fixed at creation). */
  maxSubsteps: { min: 1, max: 4096, integer: true, unit: '', default: 256 },
} as const satisfies Record<string, OptionRule>;

/** The MPS solver's settings (`mps: { ... }`, live in `simulation.mpsSettings`). */
export const MPS_OPTIONS = {
  /** Free-surface threshold beta (eq. 18). */
  surfaceThreshold: { min: 0, minExclusive: true, max: 1, unit: '', default: 0.97 },
  /** Relative residual at which the conjugate gradients stop. */
  tolerance: { min: 1e-12, max: 0.1, unit: '', default: 1e-6 },
  /** Conjugate-gradient iteration cap. */
  maxIterations: { min: 1, max: 100000, integer: true, unit: '', default: 500 },
  /** Compressibility alpha on the diagonal (1/Pa). */
  compressibility: { min: 0, max: 1e-3, unit: '1/Pa', default: 4.5e-10 },
  /** Kinematic viscosity nu (m^2/s). */
  kinematicViscosity: { min: 0, max: 1, unit: 'm²/s', default: 0.01 },
  /** gamma of the mixed source term. */
  sourceRelaxation: { min: 0, minExclusive: true, max: 1, unit: '', default: 0.1 },
  /** Pair collision distance, a fraction of the lattice spacing. */
  collisionDistance: { min: 0, max: 0.99, unit: '', default: 0.9 },
  /** Restitution of those collisions. */
  collisionRestitution: { min: 0, max: 1, unit: '', default: 0.2 },
  /** Most lattice spacings a particle may move per substep: the CFL number of the adaptive substeps. */
  courantNumber: { min: 0.01, max: 1, unit: '', default: 0.2 },
  /** Cap on the adaptive substeps. */
  maxSubsteps: { min: 1, max: 4096, integer: true, unit: '', default: 64 },
} as const satisfies Record<string, OptionRule>;

/** The plugin's own numeric options (`FluidPlugin.create`; live in `fluid.maxStepsPerFrame`, `fluid.timeScale`). */
export const PLUGIN_OPTIONS = {
  /** Most fixed steps one rendered frame runs (a slow frame drops the rest of its time). */
  maxStepsPerFrame: { min: 1, max: 1000, integer: true, unit: '', default: 3 },
  /** Simulated seconds per real second (0 pauses). */
  timeScale: { min: 0, max: 100, unit: '', default: 1 },
  /** Steps between two extractions of the `'surface'` mode's mesh. */
  surfaceUpdateInterval: { min: 1, max: 1000, integer: true, unit: '', default: 1 },
  /**
   * Babylon rendering group of the meshes the views make (0 to `RenderingManager.MAX_RENDERINGGROUPS - 1`:
   * 3 with Babylon's default of 4 groups; the plugin allows more when a game raised it).
   */
  renderingGroupId: { min: 0, max: 3, integer: true, unit: '', default: 0 },
  /** Babylon layer mask of the meshes the views make (a 32-bit mask; Babylon's mesh default 0x0FFFFFFF). */
  layerMask: { min: 0, max: 4294967295, integer: true, unit: '', default: 268435455 },
} as const satisfies Record<string, OptionRule>;

/**
 * The anisotropic particles of the `'fluid'` render mode (`look.anisotropy: { ... }`; Yu and Turk 2013,
 * "Reconstructing surfaces of particle-based fluids using anisotropic kernels"): each particle is
 * drawn as an ellipsoid from the principal axes of its neighbours' weighted covariance, around a smoothed centre.
 */
export const ANISOTROPY_OPTIONS = {
  /** The paper's lambda: how far a drawn centre moves from the particle to its neighbours' weighted mean. */
  smoothing: { min: 0, max: 1, unit: '', default: 0.5 },
  /** The paper's k_r: the longest axis at most this many times the shortest. */
  maxStretch: { min: 1, max: 16, unit: '', default: 4 },
  /** The paper's N_epsilon: fewer neighbours within h than this draws the particle as a sphere. */
  minNeighbours: { min: 0, max: 1000, integer: true, unit: '', default: 1 },
  /** The paper's k_n: such a sphere's radius, in drawn particle radii. */
  isolatedScale: { min: 0, minExclusive: true, max: 1, unit: '', default: 1 },
  /** Each particle is drawn stretched along its velocity over this many steps of travel (motion blur). */
  motionStretch: { min: 0, max: 10, unit: 'steps', default: 1 },
} as const satisfies Record<string, OptionRule>;

/** The numeric options of `addCollider` that live on in the `Collider` component (checked before each step too). */
export const COLLIDER_OPTIONS = {
  /** Coulomb friction coefficient. */
  friction: { min: 0, max: 100, unit: '', default: 0 },
  /** Coefficient of restitution of the normal velocity. */
  restitution: { min: 0, max: 1, unit: '', default: 0 },
  /** Radius of a sphere or capsule (m); also a drain sphere's. */
  radius: { min: 0.000001, max: 10000000, unit: 'm' },
  /** Uniform scale of the collider's pose. */
  scale: { min: 0.000001, max: 1000000, unit: '' },
  /** Heat transfer rate k (1/s); 0 is adiabatic. */
  heatTransfer: { min: 0, max: 10000, unit: '1/s', default: 0 },
} as const satisfies Record<string, OptionRule>;

/**
 * The numeric options of `addEmitter` that live on in the `Emitter` component, checked by `addEmitter` and again
 * before each step (emit/cpu.ts). A nozzle's radius is further limited by the capacity (`maximumNozzleRadius`
 * in validate.ts); `rate`'s default is the nozzle's full flow (layer size x speed / 2r).
 */
export const EMITTER_OPTIONS = {
  /** Nozzle radius (m), or half side of a square nozzle; default 2r. */
  radius: { min: 0.000001, max: 10000, unit: 'm' },
  /** Particles per second. */
  rate: { min: 0, max: 1000000000, unit: '1/s' },
  /** Litres per second, converted to `rate` with (2r)^3 of fluid per particle. */
  litresPerSecond: { min: 0, max: 1000000000, unit: 'L/s' },
  /** Speed of the emitted particles along the direction (m/s). */
  speed: { min: 0, max: 10000, unit: 'm/s', default: 2 },
  /** Half-angle of the emission cone (rad). */
  spread: { min: 0, max: Math.PI, unit: 'rad', default: 0 },
  /** Lifetime of the emitted particles (s); 0 lives forever (`Particle.lifetime` has the same range). */
  lifetime: { min: 0, max: 1000000000, unit: 's', default: 0 },
} as const satisfies Record<string, OptionRule>;

/**
 * The bound on every coordinate of an emitter's or drain's position, direction and box (m), and of
 * positions given to the public calls (`checkVector3`'s default limit).
 */
export const COORDINATE_RULE = {
  min: -COORDINATE_LIMIT,
  max: COORDINATE_LIMIT,
  unit: 'm',
} as const satisfies OptionRule;

/**
 * The numeric options of `addDrain` that live on in the `Drain` component. `addDrain` refuses a sphere of radius
 * 0 (`radius`, the colliders' radius rule); game code may set `Drain.radius` to 0 later, which empties nothing
 * (`liveRadius`, checked before each step).
 */
export const DRAIN_OPTIONS = {
  /** A sphere drain's radius at `addDrain` (m). */
  radius: COLLIDER_OPTIONS.radius,
  /** `Drain.radius` as game code may edit it (m). */
  liveRadius: { min: 0, max: 10000000, unit: 'm' },
} as const satisfies Record<string, OptionRule>;

/**
 * The options of the surface extraction (`SurfaceExtractor`, the plugin's `surface` mode) and its level-set
 * smoothing (`smoothing: { ... }`). `kernelRadius` is in particle radii and `cellSize` in kernel radii (their
 * defaults: 4 r and 1.5 r).
 */
export const SURFACE_OPTIONS = {
  /** Kernel radius of the color field, in particle radii r. */
  kernelRadius: { min: 1, max: 16, unit: 'r', default: 4 },
  /** Grid cell size, in kernel radii h. */
  cellSize: { min: 0.0625, max: 1, unit: 'h' },
  /** The color-field value of the surface. */
  isoLevel: { min: 0, minExclusive: true, max: 1, maxExclusive: true, unit: '', default: 0.5 },
  /** Level-set steps per extraction. */
  iterations: { min: 1, max: 50, integer: true, unit: '', default: 4 },
  /** mu of eq. 29 (cells). */
  curvatureWeight: { min: 0, max: 0.8, unit: '', default: 0.5 },
  /** The last extraction's share of the start value. */
  temporalWeight: { min: 0, max: 0.95, unit: '', default: 0.5 },
} as const satisfies Record<string, OptionRule>;

/** The solvers the `solver` option accepts, in the order of `FluidSolver`: `'pbf'`, `'sph'`, `'mps'`. */
export const SOLVERS = ['pbf', 'sph', 'mps'] as const;

/** The backends a simulation can be asked for (`backend` option): a `FluidBackend` or `'auto'`. */
export const BACKEND_CHOICES = ['cpu', 'webgpu', 'auto'] as const;

/** When game code sees particle components on the WebGPU backend (`mirror` option; `MirrorMode`). */
export const MIRROR_MODES = ['every-frame', 'on-demand', 'off'] as const;

/** The allowed values as messages write them: `'a', 'b' and 'c'`. */
export function choiceText(values: readonly string[]): string {
  const quoted = values.map((value) => `'${value}'`);
  return quoted.length < 2 ? quoted.join('') : `${quoted.slice(0, -1).join(', ')} and ${quoted[quoted.length - 1]}`;
}

/** Checks that `value` is one of `values` (a `FluidError` names `name`, the value and the allowed values). */
export function checkChoice<T extends string>(name: string, values: readonly T[], value: unknown): T {
  if (!(values as readonly unknown[]).includes(value)) {
    throw new FluidError(`${name} is '${String(value)}'; allowed values are ${choiceText(values)}`);
  }
  return value as T;
}
