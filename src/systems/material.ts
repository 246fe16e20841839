/**
 * Material entities: resolving and validating `addMaterial` options and writing them into the
 * `FluidMaterial` component and the solver's material table.
 */
import type { FluidMaterialStore } from '../components';
import { MATERIAL_DEFAULTS } from '../components';
import type { MaterialTable } from './context';
import { checkNumber, checkVector3, type Vector3Tuple, withDefault } from './validate';

/** Options of `FluidSimulation.addMaterial`; defaults from Macklin & Müller 2013 (water). */
export interface FluidMaterialOptions {
  /** Rest density rho0 in kg/m^3 (eq. 1). Range [0.001, 1e9]. Default 1000. */
  restDensity?: number;
  /** XSPH viscosity c (eq. 17), dimensionless. Range [0, 1]. Default 0.01. */
  viscosity?: number;
  /** Vorticity confinement epsilon (eq. 16) in m/s. Range [0, 1000]. Default 0.01. */
  vorticity?: number;
  /** Artificial pressure k (eq. 13). Range [0, 10]. Default 0.1. */
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
  /** Render colour `[red, green, blue]`, each in [0, 1]. Default `[0.2, 0.45, 0.9]`. */
  color?: Vector3Tuple;
}

/** Material values with every default applied and every range checked. */
export type ResolvedMaterial = Required<Omit<FluidMaterialOptions, 'color'>> & { color: [number, number, number] };

/**
 * Applies the defaults to `options` and checks every range (throws `FluidError` naming the option).
 * `latticeKernelSum` is the poly6 sum of the spawn lattice: the default particle mass is rho0 / that sum.
 */
export function resolveMaterial(options: FluidMaterialOptions, latticeKernelSum: number): ResolvedMaterial {
  const d = MATERIAL_DEFAULTS;
  const restDensity = checkNumber('restDensity', withDefault(options.restDensity, d.restDensity), 0.001, 1e9);
  const color = checkVector3('color', withDefault<Vector3Tuple>(options.color, d.color), 1);
  for (let k = 0; k < 3; k++) checkNumber(`color[${k}]`, color[k], 0, 1);
  return {
    restDensity,
    viscosity: checkNumber('viscosity', withDefault(options.viscosity, d.viscosity), 0, 1),
    vorticity: checkNumber('vorticity', withDefault(options.vorticity, d.vorticity), 0, 1000),
    artificialPressureStrength: checkNumber(
      'artificialPressureStrength',
      withDefault(options.artificialPressureStrength, d.artificialPressureStrength),
      0,
      10,
    ),
    artificialPressureExponent: checkNumber(
      'artificialPressureExponent',
      withDefault(options.artificialPressureExponent, d.artificialPressureExponent),
      1,
      16,
    ),
    artificialPressureDistance: checkNumber(
      'artificialPressureDistance',
      withDefault(options.artificialPressureDistance, d.artificialPressureDistance),
      0,
      0.99,
    ),
    relaxation: checkNumber('relaxation', withDefault(options.relaxation, d.relaxation), 1e-9, 1e6),
    particleMass: checkNumber(
      'particleMass',
      withDefault(options.particleMass, restDensity / latticeKernelSum),
      1e-15,
      1e12,
    ),
    color,
  };
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
}

/** Gives material entity `eid` the next slot of the solver's material table. */
export function registerMaterial(table: MaterialTable, eid: number): void {
  table.entity[table.count] = eid;
  table.slotOfEntity[eid] = table.count;
  table.count++;
}
