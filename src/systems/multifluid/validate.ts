/**
 * Checks of the fluid-fluid interaction values game code may edit (materials' colors, tensions,
 * diffusivities and temperature-dependent density, colliders' temperature and heat transfer, particles'
 * temperature and color), before a step changes anything; and the refusal of the solvers that do not
 * implement the explicit features (MPS; PBF and WCSPH run them on the CPU and WebGPU backends). Each failure is a {@link FluidError} naming the value.
 */

import { FluidError } from '../../core/errors';
import { COLLIDER_OPTIONS, MATERIAL_OPTIONS, TEMPERATURE_RULE } from '../../core/schema';
import type { SimulationContext } from '../context';
import { explicitFeatureNames, updateMultiFluidFeatures } from './features';

/**
 * Allowed range of a particle's rest density alpha / T in kg/m^3 (eq. 16) with a temperature-dependent rest
 * density.
 */
export const REST_DENSITY_RANGE: readonly [number, number] = [1e-6, 1e9];

/**
 * The multi-fluid material fields, checked by `addMaterial` and again before each step (game code may edit
 * them) against their rules in `MATERIAL_OPTIONS` (core/schema.ts).
 */
export const MULTI_FLUID_MATERIAL_NAMES = [
  'interfaceColor',
  'surfaceColor',
  'interfaceTension',
  'surfaceTension',
  'diffusivity',
  'colorDiffusivity',
  'temperatureDensity',
  'initialTemperature',
  // WCSPH's per-material viscosity (eq. 9; sph/cpu.ts).
  'dynamicViscosity',
  // Trapped air and boiling (sections 3.4, 4.4; multifluid/air.ts, phase.ts).
  'airGenerationThreshold',
  'airGenerationDistance',
  'boilingTemperature',
  'boilingProbability',
  'artificialBuoyancy',
  'airDeletionSurfaceThreshold',
  'airDeletionBoundaryThreshold',
  'airDeletionDensity',
] as const satisfies readonly (keyof typeof MATERIAL_OPTIONS)[];

function checkRange(name: string, eid: number, value: number, min: number, max: number, unit = ''): void {
  if (!(value >= min && value <= max)) {
    throw new FluidError(`${name}[${eid}] is ${value}; allowed range is [${min}, ${max}]${unit}`);
  }
}

/**
 * Checks `FluidMaterial.airMaterial` of material `eid`: -1, or another material entity; required (not -1)
 * when the material generates air or boils, and then that material must have `surfaceColor` 0 (Table 2 of
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
  if ((generates || boils) && store.surfaceColor[target] !== 0) {
    throw new FluidError(
      `FluidMaterial.surfaceColor[${target}] is ${store.surfaceColor[target]}; the air material of FluidMaterial.airMaterial[${eid}] must have surfaceColor 0 (air, Müller et al. 2005 Table 2)`,
    );
  }
}

/**
 * Checks the multi-fluid fields of materials and colliders and the `Temperature` and `Color` of particles
 * and, for materials with a `temperatureDensity`, their rest density alpha / T (within
 * {@link REST_DENSITY_RANGE}): when `particles` is true (the CPU backend) of each live particle, else (the
 * WebGPU backend) of each particle the step uploads (`WebGpuSolver.forEachPendingUpload`), so that on both
 * backends a bad value throws before the step changes anything. Updates the step's feature flags
 * (`solver.multiFluid.features`). The PBF and WCSPH solvers run every feature on both backends; the
 * MPS solver refuses a material or collider that uses tension, diffusion, the number-density estimate, a
 * temperature-dependent rest density, heat transfer, trapped air, boiling or artificial buoyancy.
 */
export function checkMultiFluidComponents(ctx: SimulationContext, particles: boolean): void {
  const store = ctx.components.FluidMaterial;
  const table = ctx.materials;
  for (let slot = 0; slot < table.count; slot++) {
    const eid = table.entity[slot];
    for (const name of MULTI_FLUID_MATERIAL_NAMES) {
      const rule = MATERIAL_OPTIONS[name];
      checkRange(`FluidMaterial.${name}`, eid, store[name][eid], rule.min, rule.max, rule.unit && ` ${rule.unit}`);
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
      TEMPERATURE_RULE.min,
      TEMPERATURE_RULE.max,
      ' K',
    );
    const heat = COLLIDER_OPTIONS.heatTransfer;
    checkRange('Collider.heatTransfer', eid, collider.heatTransfer[eid], heat.min, heat.max, ` ${heat.unit}`);
  }
  const features = updateMultiFluidFeatures(ctx);
  const used = explicitFeatureNames(features);
  // Every feature runs on both backends with the PBF and WCSPH solvers (WebGPU: multifluid/gpu.ts); the MPS
  // solver refuses them.
  if (used.length > 0 && ctx.settings.solver === 'mps') {
    throw new FluidError(
      `${used.join(', ')} ${used.length > 1 ? 'are' : 'is'} implemented for solvers 'pbf' and 'sph' only (this simulation uses 'mps'); set it to 0`,
    );
  }
  const check = (eid: number): void => checkParticleAttributes(ctx, eid, features.temperatureDensity);
  if (particles && !features.temperatureDensity) {
    // One chain of comparisons, as strict as checkParticleAttributes' checks, passes a valid particle without a
    // call; checkParticleAttributes names what fails.
    const s = ctx.solver;
    const { Temperature, Color } = ctx.components;
    const { red, green, blue } = Color;
    const { min: lowest, max: highest } = TEMPERATURE_RULE;
    for (let place = 0; place < s.count; place++) {
      const eid = s.entity[place];
      const temperature = Temperature[eid];
      const r = red[eid];
      const g = green[eid];
      const b = blue[eid];
      if (
        !(temperature >= lowest && temperature <= highest && r >= 0 && r <= 1 && g >= 0 && g <= 1 && b >= 0 && b <= 1)
      ) {
        check(eid);
      }
    }
  } else if (particles) {
    const s = ctx.solver;
    for (let place = 0; place < s.count; place++) check(s.entity[place]);
  } else {
    // WebGPU: the particles whose components the step uploads (appends, markParticlesChanged edits); the
    // others' temperatures and colors live on the GPU.
    ctx.gpu?.solver.forEachPendingUpload(check);
  }
}

/**
 * Checks particle `eid`'s `Temperature` (within `TEMPERATURE_RULE`, core/schema.ts) and `Color` (each channel in
 * [0, 1]) and, when `temperatureDensity` (some material has alpha > 0) and its material has an alpha, its
 * rest density alpha / T (within {@link REST_DENSITY_RANGE}); a {@link FluidError} names the value.
 */
function checkParticleAttributes(ctx: SimulationContext, eid: number, temperatureDensity: boolean): void {
  const { Temperature, Color } = ctx.components;
  const { min: lowest, max: highest } = TEMPERATURE_RULE;
  const temperature = Temperature[eid];
  if (!(temperature >= lowest && temperature <= highest)) {
    checkRange('Temperature', eid, temperature, lowest, highest, ' K');
  }
  const red = Color.red[eid];
  const green = Color.green[eid];
  const blue = Color.blue[eid];
  if (!(red >= 0 && red <= 1 && green >= 0 && green <= 1 && blue >= 0 && blue <= 1)) {
    checkRange('Color.red', eid, red, 0, 1);
    checkRange('Color.green', eid, green, 0, 1);
    checkRange('Color.blue', eid, blue, 0, 1);
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
