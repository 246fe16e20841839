/**
 * Checks of the fluid-fluid interaction values game code may edit (materials' colours, tensions,
 * diffusivities and temperature-dependent density, colliders' temperature and heat transfer, particles'
 * temperature and colour), before a step changes anything; and the refusal of the solvers that do not
 * implement the explicit features (WCSPH and MPS; PBF runs them on the CPU and WebGPU backends). Each failure is a {@link FluidError} naming the value.
 */

import { FluidError } from '../../core/errors';
import type { SimulationContext } from '../context';
import { explicitFeatureNames, updateMultiFluidFeatures } from './features';

/** Allowed range of a temperature in kelvin (particles, colliders, materials' initial temperature). */
export const TEMPERATURE_RANGE: readonly [number, number] = [0.001, 1e6];

/**
 * Allowed range of a particle's rest density alpha / T in kg/m^3 (eq. 16), the range the step allows for
 * `FluidMaterial.restDensity` (gather.ts).
 */
export const REST_DENSITY_RANGE: readonly [number, number] = [1e-6, 1e9];

/**
 * The multi-fluid material fields with their allowed ranges and units (as the messages write them): checked
 * by `addMaterial` and again before each step (game code may edit them).
 */
export const MULTI_FLUID_MATERIAL_RANGES = [
  ['interfaceColour', -1, 1, ' (dimensionless)'],
  ['surfaceColour', 0, 1, ' (dimensionless)'],
  ['interfaceTension', 0, 1000, ' N/m'],
  ['surfaceTension', 0, 1000, ' N/m'],
  ['diffusivity', 0, 1, ' m^2/s'],
  ['colourDiffusivity', 0, 1, ' m^2/s'],
  ['temperatureDensity', 0, 1e12, ' kg K/m^3'],
  ['initialTemperature', TEMPERATURE_RANGE[0], TEMPERATURE_RANGE[1], ' K'],
  // Trapped air and boiling (sections 3.4, 4.4; multifluid/air.ts, phase.ts).
  ['airGenerationThreshold', 0, 100, ' (t_p times h, dimensionless)'],
  ['airGenerationDistance', 0, 4, ' (particle spacings)'],
  ['boilingTemperature', 0, TEMPERATURE_RANGE[1], ' K'],
  ['boilingProbability', 0, 1, ' (per step)'],
  ['artificialBuoyancy', 0, 100, ' (b of eq. 17, dimensionless)'],
  ['airDeletionSurfaceThreshold', 0, 100, ' (t_s times h, dimensionless)'],
  ['airDeletionBoundaryThreshold', 0, 100, ' (times 1/h, dimensionless)'],
  ['airDeletionDensity', 0, 1, ' (fraction of the rest number density)'],
] as const;

function checkRange(name: string, eid: number, value: number, min: number, max: number, unit = ''): void {
  if (!(value >= min && value <= max)) {
    throw new FluidError(`${name}[${eid}] is ${value}; allowed range is [${min}, ${max}]${unit}`);
  }
}

/**
 * Checks `FluidMaterial.airMaterial` of material `eid`: -1, or another material entity; required (not -1)
 * when the material generates air or boils, and then that material must have `surfaceColour` 0 (Table 2 of
 * Müller et al. 2005: c^s = 0 on air; the deletion criteria of section 3.4.2 read it).
 */
function checkAirMaterial(ctx: SimulationContext, eid: number): void {
  const store = ctx.components.FluidMaterial;
  const target = store.airMaterial[eid];
  const generates = store.airGenerationThreshold[eid] > 0;
  const boils = store.boilingTemperature[eid] > 0 && store.boilingProbability[eid] > 0;
  if (target === -1) {
    if (generates || boils) {
      const what = generates ? 'airGenerationThreshold' : 'boilingTemperature';
      throw new FluidError(
        `FluidMaterial.${what}[${eid}] is ${store[what][eid]} but FluidMaterial.airMaterial[${eid}] is -1; set airMaterial to the material entity of the air (vapour) particles, or ${what} to 0`,
      );
    }
    return;
  }
  const slotOf = ctx.materials.slotOfEntity;
  if (!(target >= 0 && target < slotOf.length && slotOf[target] >= 0) || target === eid) {
    throw new FluidError(
      `FluidMaterial.airMaterial[${eid}] is ${target}; it must be -1 (none) or the entity id of another material`,
    );
  }
  if ((generates || boils) && store.surfaceColour[target] !== 0) {
    throw new FluidError(
      `FluidMaterial.surfaceColour[${target}] is ${store.surfaceColour[target]}; the air material of FluidMaterial.airMaterial[${eid}] must have surfaceColour 0 (air, Müller et al. 2005 Table 2)`,
    );
  }
}

/**
 * Checks the multi-fluid fields of materials and colliders and the `Temperature` and `Colour` of particles
 * and, for materials with a `temperatureDensity`, their rest density alpha / T (within
 * {@link REST_DENSITY_RANGE}): when `particles` is true (the CPU backend) of each live particle, else (the
 * WebGPU backend) of each particle the step uploads (`WebGpuSolver.forEachPendingUpload`), so that on both
 * backends a bad value throws before the step changes anything. Updates the step's feature flags
 * (`solver.multiFluid.features`). The PBF solver runs every feature on both backends; the
 * WCSPH and MPS solvers refuse a material or collider that uses tension, diffusion, the number-density
 * constraint, a temperature-dependent rest density or heat transfer.
 */
export function checkMultiFluidComponents(ctx: SimulationContext, particles: boolean): void {
  const store = ctx.components.FluidMaterial;
  const table = ctx.materials;
  for (let slot = 0; slot < table.count; slot++) {
    const eid = table.entity[slot];
    for (const [name, min, max, unit] of MULTI_FLUID_MATERIAL_RANGES) {
      checkRange(`FluidMaterial.${name}`, eid, store[name][eid], min, max, unit);
    }
    checkRange('FluidMaterial.numberDensity', eid, store.numberDensity[eid], 0, 1, ' (0 or 1)');
    checkAirMaterial(ctx, eid);
  }
  const collider = ctx.components.Collider;
  for (let slot = 0; slot < ctx.colliders.count; slot++) {
    const eid = ctx.colliders.entity[slot];
    checkRange(
      'Collider.temperature',
      eid,
      collider.temperature[eid],
      TEMPERATURE_RANGE[0],
      TEMPERATURE_RANGE[1],
      ' K',
    );
    checkRange('Collider.heatTransfer', eid, collider.heatTransfer[eid], 0, 1e4, ' 1/s');
  }
  const features = updateMultiFluidFeatures(ctx);
  const used = explicitFeatureNames(features);
  // Trapped air and boiling run on both backends with the PBF solver (WebGPU: multifluid/airFields.wgsl);
  // the WCSPH and MPS solvers refuse them below with the other features.
  if (used.length > 0 && ctx.settings.solver !== 'pbf') {
    throw new FluidError(
      `${used.join(', ')} ${used.length > 1 ? 'are' : 'is'} implemented for solver 'pbf' only (this simulation uses '${ctx.settings.solver}'); set it to 0`,
    );
  }
  const check = (eid: number): void => checkParticleAttributes(ctx, eid, features.temperatureDensity);
  if (particles) {
    const s = ctx.solver;
    for (let place = 0; place < s.count; place++) check(s.entity[place]);
  } else {
    // WebGPU: the particles whose components the step uploads (appends, markParticlesChanged edits); the
    // others' temperatures and colours live on the GPU.
    ctx.gpu?.solver.forEachPendingUpload(check);
  }
}

/**
 * Checks particle `eid`'s `Temperature` (within {@link TEMPERATURE_RANGE}) and `Colour` (each channel in
 * [0, 1]) and, when `temperatureDensity` (some material has alpha > 0) and its material has an alpha, its
 * rest density alpha / T (within {@link REST_DENSITY_RANGE}); a {@link FluidError} names the value.
 */
function checkParticleAttributes(ctx: SimulationContext, eid: number, temperatureDensity: boolean): void {
  const { Temperature, Colour } = ctx.components;
  const [lowest, highest] = TEMPERATURE_RANGE;
  const temperature = Temperature[eid];
  if (!(temperature >= lowest && temperature <= highest)) {
    checkRange('Temperature', eid, temperature, lowest, highest, ' K');
  }
  const red = Colour.red[eid];
  const green = Colour.green[eid];
  const blue = Colour.blue[eid];
  if (!(red >= 0 && red <= 1 && green >= 0 && green <= 1 && blue >= 0 && blue <= 1)) {
    checkRange('Colour.red', eid, red, 0, 1);
    checkRange('Colour.green', eid, green, 0, 1);
    checkRange('Colour.blue', eid, blue, 0, 1);
  }
  if (!temperatureDensity) return;
  // The particle's rest density alpha / T (eq. 16) within the rest-density range.
  const alpha = ctx.components.FluidMaterial.temperatureDensity[ctx.components.Particle.material[eid]];
  if (!(alpha > 0)) return;
  const [lightest, heaviest] = REST_DENSITY_RANGE;
  const restDensity = alpha / temperature;
  if (!(restDensity >= lightest && restDensity <= heaviest)) {
    throw new FluidError(
      `particle ${eid}: rest density FluidMaterial.temperatureDensity / Temperature = ${alpha} / ${temperature} = ${restDensity} kg/m^3; allowed range is [${lightest}, ${heaviest}] kg/m^3 (change its Temperature or the material's temperatureDensity)`,
    );
  }
}
