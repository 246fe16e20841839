/**
 * Material entities: resolving and validating `addMaterial` options and writing them into the
 * `FluidMaterial` component and the solver's material table.
 */
import type { FluidMaterialStore } from '../components';
import { MATERIAL_DEFAULTS } from '../components';
import { type Color3Input, checkColor3, checkInteger, checkKnownKeys, optionNames, withDefault } from '../core/checks';
import { FluidError } from '../core/errors';
import { checkOption, MATERIAL_OPTIONS } from '../core/schema';
import type { MaterialTable } from './context';
import { checkDiffuseOrder, DIFFUSE_MATERIAL_NAMES, type DiffuseMaterialName } from './diffuse/settings';
import { MULTI_FLUID_MATERIAL_NAMES } from './multifluid/validate';

/** Names of the numeric multi-fluid material fields (interface color to air deletion thresholds). */
type MultiFluidNumber = (typeof MULTI_FLUID_MATERIAL_NAMES)[number];

/** Options of `FluidSimulation.addMaterial`; defaults from Macklin & Müller 2013 (water). */
export interface FluidMaterialOptions {
  /** Rest density rho0 in kg/m^3 (eq. 1). Range [0.001, 1e9]. Default 1000. */
  restDensity?: number;
  /** XSPH viscosity c (eq. 17), dimensionless. Range [0, 1]. Default 0.01. */
  viscosity?: number;
  /** Vorticity confinement epsilon (eq. 16) in m/s. Range [0, 1000]. Default 0.01. */
  vorticity?: number;
  /**
   * Artificial pressure k (eq. 13), dimensionless. Range [0, 10]. Default 0.1. In the still-water mode
   * (`projection.freeSurface`) the single-fluid solve offsets the term by its value at the rest spacing, so it
   * acts only between particles closer than that.
   */
  artificialPressureStrength?: number;
  /** Artificial pressure n (eq. 13). Range [1, 16]. Default 4. */
  artificialPressureExponent?: number;
  /** Artificial pressure |delta q| (eq. 13) as a fraction of h. Range [0, 0.99]. Default 0.2. */
  artificialPressureDistance?: number;
  /**
   * CFM relaxation epsilon (eq. 11), as a fraction of the rest-lattice sum of |grad C|^2 (so it is
   * independent of particle size). Range [1e-9, 1e6]. Default 0.01. Larger is softer.
   */
  relaxation?: number;
  /** Particle mass in kg. Default: rho0 divided by the poly6 sum of the spawn lattice, so a spawned block sits at rest density. */
  particleMass?: number;
  /**
   * Render color: `[red, green, blue]` or a Babylon `Color3` or `Color4` (alpha ignored), each channel in [0, 1].
   * Default `[0.2, 0.45, 0.9]`. Kept as a tuple in `FluidMaterial.colorRed/Green/Blue`.
   */
  color?: Color3Input;
  /**
   * Interface color c^i (Müller et al. 2005, section 3.2, Table 2): -0.5 polar (water), +0.5 non-polar
   * (oil), 0 air. Range [-1, 1]. Default 0.
   */
  interfaceColor?: number;
  /** Surface color c^s (section 3.2): 1 liquid, 0 air. Range [0, 1]. Default 1. */
  surfaceColor?: number;
  /** Interface tension sigma^i (eq. 11) in N/m. Range [0, 1000]. Default 0 (off). */
  interfaceTension?: number;
  /** Surface tension sigma^s (eq. 12) in N/m. Range [0, 1000]. Default 0 (off). */
  surfaceTension?: number;
  /** Thermal diffusivity c (eq. 13-15) in m^2/s. Range [0, 1]. Default 0 (off). */
  diffusivity?: number;
  /** Diffusivity of the particles' render color (eq. 13-15) in m^2/s. Range [0, 1]. Default 0 (off). */
  colorDiffusivity?: number;
  /**
   * Temperature-dependent rest density alpha (eq. 16) in kg K/m^3: above 0, each particle's rest density
   * is alpha / T. Range [0, 1e12]. Default 0 (off: `restDensity` holds).
   */
  temperatureDensity?: number;
  /** Temperature of new particles of this material in kelvin. Range [0.001, 1e6]. Default 293.15. */
  initialTemperature?: number;
  /**
   * Dynamic viscosity mu in Pa s for the WCSPH solver (`solver: 'sph'`): two materials' particles feel the
   * mean (Müller et al. 2005, eq. 9). Range [-1, 1e5]. Default -1: a negative value takes the
   * simulation's `sph.viscosity`. Ignored by the PBF and MPS solvers.
   */
  dynamicViscosity?: number;
  /**
   * True opts the scene into the multi-fluid density constraint (number density, mass-weighted
   * corrections; see `FluidMaterialStore.numberDensity`): use it where fluids of different rest densities
   * meet (buoyancy, density ratios up to 10:1; at 10:1, 6 or more `iterations` keep the light fluid calm:
   * the default 3 leave it stirring at about 0.16 m/s). Default false. With solver 'sph' the same switch
   * gives WCSPH the number-density estimate rho_i = m_i sum_j W_ij and its pressure force (Solenthaler and
   * Pajarola 2008). Solvers 'pbf' and 'sph' (both backends).
   */
  numberDensity?: boolean;
  /**
   * Trapped air and boiling (Müller et al. 2005, sections 3.4 and 4.4): the material entity id (from
   * `addMaterial`) of the air or vapour particles this liquid generates where air is trapped and turns into
   * when it boils. That material needs `surfaceColor: 0`, and for rising bubbles a low `restDensity` (the
   * paper: 100 kg/m^3) and an `artificialBuoyancy`. Default -1 (none). See `FluidMaterialStore.airMaterial`.
   */
  airMaterial?: number;
  /**
   * Air generation threshold t_p of section 3.4.1, times the kernel radius h (dimensionless). Range
   * [0, 100]. Default 0 (off). About 0.6 catches the underside of a falling front (see
   * `FluidMaterialStore.airGenerationThreshold`).
   */
  airGenerationThreshold?: number;
  /** Distance d of section 3.4.1 of a new air particle from its liquid particle, in particle spacings. Range [0, 4]. Default 1. */
  airGenerationDistance?: number;
  /** Boiling temperature in kelvin (section 4.4; 373.15 for water). Range [0, 1e6]. Default 0 (off). */
  boilingTemperature?: number;
  /** Probability per step that a particle at a cavitation site at boiling temperature turns into vapour (section 4.4). Range [0, 1]. Default 0.005. */
  boilingProbability?: number;
  /** Artificial buoyancy b of eq. 17 for air particles of this material (dimensionless). Range [0, 100]. Default 0 (off); the paper uses 5. */
  artificialBuoyancy?: number;
  /** Air deletion threshold t_s of section 3.4.2 on |grad c^S|, times h (dimensionless). Range [0, 100]. Default 0.001. */
  airDeletionSurfaceThreshold?: number;
  /** Air deletion threshold on |grad c^P| of section 3.4.2, times h (dimensionless). Range [0, 100]. Default 1. */
  airDeletionBoundaryThreshold?: number;
  /** Isolated air particles (section 3.4.2): deleted below this fraction of a full neighbourhood's number density. Range [0, 1]. Default 0.2. */
  airDeletionDensity?: number;
  /**
   * White water (Ihmsen et al. 2012; on when the simulation has a `diffuse.capacity`): tau_ta min of the
   * trapped-air potential in m/s (see `FluidMaterialStore.diffuseTrappedAirMin`). Range [0, 1e4]. Default 5.
   */
  diffuseTrappedAirMin?: number;
  /** White water: tau_ta max in m/s, above the min. Range [0, 1e4]. Default 20. */
  diffuseTrappedAirMax?: number;
  /** White water: tau_wc min of the wave-crest potential (dimensionless). Range [0, 1e4]. Default 2. */
  diffuseWaveCrestMin?: number;
  /** White water: tau_wc max, above the min. Range [0, 1e4]. Default 8. */
  diffuseWaveCrestMax?: number;
  /** White water: tau_k min of the kinetic energy per unit mass |v|^2 / 2 in J/kg. Range [0, 1e6]. Default 0.5. */
  diffuseEnergyMin?: number;
  /** White water: tau_k max in J/kg, above the min. Range [0, 1e6]. Default 5. */
  diffuseEnergyMax?: number;
  /** White water: k_ta, diffuse particles per fluid particle per second from trapped air at full potentials. Range [0, 1e6]. Default 400. */
  diffuseTrappedAirRate?: number;
  /** White water: k_wc, the same from wave crests. Range [0, 1e6]. Default 400. */
  diffuseWaveCrestRate?: number;
  /** White water: k_b, a bubble's buoyancy as a multiple of -g. Range [0, 100]. Default 2. */
  diffuseBuoyancy?: number;
  /** White water: k_d, the fraction of a bubble's velocity difference to the fluid removed per step. Range [0, 1]. Default 0.5. */
  diffuseDrag?: number;
  /** White water: linear air drag of spray in 1/s. Range [0, 100]. Default 0 (ballistic). */
  diffuseSprayDrag?: number;
  /** White water: shortest lifetime of a diffuse particle in seconds. Range [0, 1e4]. Default 2. */
  diffuseLifetimeMin?: number;
  /** White water: longest lifetime in seconds, at least the shortest. Range [0, 1e4]. Default 5. */
  diffuseLifetimeMax?: number;
}

/** The names of {@link FluidMaterialOptions}, checked at run time (`checkKnownKeys`). */
export const MATERIAL_OPTION_NAMES = optionNames<FluidMaterialOptions>()(
  'restDensity',
  'viscosity',
  'vorticity',
  'artificialPressureStrength',
  'artificialPressureExponent',
  'artificialPressureDistance',
  'relaxation',
  'particleMass',
  'color',
  'interfaceColor',
  'surfaceColor',
  'interfaceTension',
  'surfaceTension',
  'diffusivity',
  'colorDiffusivity',
  'temperatureDensity',
  'initialTemperature',
  'dynamicViscosity',
  'numberDensity',
  'airMaterial',
  'airGenerationThreshold',
  'airGenerationDistance',
  'boilingTemperature',
  'boilingProbability',
  'artificialBuoyancy',
  'airDeletionSurfaceThreshold',
  'airDeletionBoundaryThreshold',
  'airDeletionDensity',
  ...DIFFUSE_MATERIAL_NAMES,
);

/** Material values with every default applied and every range checked. */
export type ResolvedMaterial = Required<Omit<FluidMaterialOptions, 'color'>> & { color: [number, number, number] };

function checkBoolean(name: string, value: unknown): boolean {
  if (typeof value !== 'boolean') throw new FluidError(`${name} is ${String(value)}; it must be a boolean`);
  return value;
}

/**
 * Applies the defaults to `options` and checks every range (throws `FluidError` naming the option).
 * `latticeKernelSum` is the poly6 sum of the spawn lattice: the default particle mass is rho0 / that sum.
 */
export function resolveMaterial(options: FluidMaterialOptions, latticeKernelSum: number): ResolvedMaterial {
  checkKnownKeys('addMaterial', options, MATERIAL_OPTION_NAMES);
  const d = MATERIAL_DEFAULTS;
  const rules = MATERIAL_OPTIONS;
  const restDensity = checkOption('restDensity', rules.restDensity, withDefault(options.restDensity, d.restDensity));
  const color = checkColor3('color', withDefault<Color3Input>(options.color, d.color));
  /** A PBF material option with its default, checked against its rule. */
  const option = (
    name:
      | 'viscosity'
      | 'vorticity'
      | 'artificialPressureStrength'
      | 'artificialPressureExponent'
      | 'artificialPressureDistance'
      | 'relaxation',
  ) => checkOption(name, rules[name], withDefault(options[name], d[name]));
  return {
    restDensity,
    viscosity: option('viscosity'),
    vorticity: option('vorticity'),
    artificialPressureStrength: option('artificialPressureStrength'),
    artificialPressureExponent: option('artificialPressureExponent'),
    artificialPressureDistance: option('artificialPressureDistance'),
    relaxation: option('relaxation'),
    particleMass: checkOption(
      'particleMass',
      rules.particleMass,
      withDefault(options.particleMass, restDensity / latticeKernelSum),
    ),
    color,
    numberDensity: checkBoolean('numberDensity', withDefault<unknown>(options.numberDensity, d.numberDensity)),
    airMaterial: checkInteger('airMaterial', withDefault(options.airMaterial, d.airMaterial), -1, 2 ** 31 - 1),
    ...resolveMultiFluidNumbers(options),
    ...resolveDiffuseNumbers(options),
  };
}

/** The white-water options with their defaults, each checked against its rule, and the pairs' order. */
function resolveDiffuseNumbers(options: FluidMaterialOptions): Record<DiffuseMaterialName, number> {
  const values = {} as Record<DiffuseMaterialName, number>;
  for (const name of DIFFUSE_MATERIAL_NAMES) {
    values[name] = checkOption(name, MATERIAL_OPTIONS[name], withDefault(options[name], MATERIAL_DEFAULTS[name]));
  }
  checkDiffuseOrder(values, 'addMaterial');
  return values;
}

/** The numeric multi-fluid options with their defaults, each checked against its rule in `MATERIAL_OPTIONS`. */
function resolveMultiFluidNumbers(options: FluidMaterialOptions): Record<MultiFluidNumber, number> {
  const values = {} as Record<MultiFluidNumber, number>;
  for (const name of MULTI_FLUID_MATERIAL_NAMES) {
    values[name] = checkOption(name, MATERIAL_OPTIONS[name], withDefault(options[name], MATERIAL_DEFAULTS[name]));
  }
  return values;
}

/**
 * Names of the options of `values` that use fluid-fluid interaction features the MPS solver does not
 * implement (tension, diffusion, temperature-dependent rest density, the number-density constraint,
 * trapped air, boiling, artificial buoyancy; the PBF and WCSPH solvers run them on both backends); empty
 * when none is used. A different rest density alone is not listed (every solver handles it).
 */
export function unsupportedMultiFluidOptions(values: ResolvedMaterial): string[] {
  const names: string[] = [];
  if (values.interfaceTension > 0) names.push('interfaceTension');
  if (values.surfaceTension > 0) names.push('surfaceTension');
  if (values.diffusivity > 0) names.push('diffusivity');
  if (values.colorDiffusivity > 0) names.push('colorDiffusivity');
  if (values.temperatureDensity > 0) names.push('temperatureDensity');
  if (values.numberDensity) names.push('numberDensity');
  if (values.airGenerationThreshold > 0) names.push('airGenerationThreshold');
  if (values.boilingTemperature > 0) names.push('boilingTemperature');
  if (values.artificialBuoyancy > 0) names.push('artificialBuoyancy');
  return names;
}

/** Writes resolved material values into the `FluidMaterial` store at entity `eid`. */
export function writeMaterial(store: FluidMaterialStore, eid: number, values: ResolvedMaterial): void {
  store.restDensity[eid] = values.restDensity;
  store.viscosity[eid] = values.viscosity;
  store.vorticity[eid] = values.vorticity;
  store.artificialPressureStrength[eid] = values.artificialPressureStrength;
  store.artificialPressureExponent[eid] = values.artificialPressureExponent;
  store.artificialPressureDistance[eid] = values.artificialPressureDistance;
  store.relaxation[eid] = values.relaxation;
  store.particleMass[eid] = values.particleMass;
  store.colorRed[eid] = values.color[0];
  store.colorGreen[eid] = values.color[1];
  store.colorBlue[eid] = values.color[2];
  for (const name of MULTI_FLUID_MATERIAL_NAMES) store[name][eid] = values[name];
  for (const name of DIFFUSE_MATERIAL_NAMES) store[name][eid] = values[name];
  store.numberDensity[eid] = values.numberDensity ? 1 : 0;
  store.airMaterial[eid] = values.airMaterial;
}

/** True if `id` is a live material entity in `table` (ids of bitecs are integers from 1 below the entity capacity). */
export function isMaterialEntity(table: MaterialTable, id: number): boolean {
  return Number.isInteger(id) && id > 0 && id < table.slotOfEntity.length && table.slotOfEntity[id] >= 0;
}

/** Gives material entity `eid` the next slot of the solver's material table. */
export function registerMaterial(table: MaterialTable, eid: number): void {
  table.entity[table.count] = eid;
  table.slotOfEntity[eid] = table.count;
  table.count++;
}
