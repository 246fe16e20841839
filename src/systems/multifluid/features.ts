/**
 * Which of the fluid-fluid interaction terms of Müller, Solenthaler, Keiser and Gross 2005 ("Particle-Based
 * Fluid-Fluid Interaction") a step needs, from the materials and colliders of the simulation. Every term is
 * opt-in: with the defaults (`numberDensity` off, zero tension, diffusivity, alpha and heat transfer) none is on
 * and the step runs exactly the single-fluid code.
 */
import type { SimulationContext } from '../context';
import type { MultiFluidFeatures } from './state';

/**
 * Reads the features of the current materials and colliders (a loop over materials and colliders only)
 * into the simulation's features object `ctx.solver.multiFluid.features`, and returns it. The component
 * checks call it before each step (multifluid/validate.ts); the systems of the step read the object.
 */
export function updateMultiFluidFeatures(ctx: SimulationContext): MultiFluidFeatures {
  const table = ctx.materials;
  const store = ctx.components.FluidMaterial;
  let numberDensity = false;
  let temperatureDensity = false;
  let interfaceTension = false;
  let surfaceTension = false;
  let temperatureDiffusion = false;
  let colorDiffusion = false;
  for (let slot = 0; slot < table.count; slot++) {
    const eid = table.entity[slot];
    if (store.numberDensity[eid] === 1) numberDensity = true;
    if (store.temperatureDensity[eid] > 0) temperatureDensity = true;
    if (store.interfaceTension[eid] > 0) interfaceTension = true;
    if (store.surfaceTension[eid] > 0) surfaceTension = true;
    if (store.diffusivity[eid] > 0) temperatureDiffusion = true;
    if (store.colorDiffusivity[eid] > 0) colorDiffusion = true;
  }
  let colliderHeat = false;
  const colliders = ctx.colliders;
  const heatTransfer = ctx.components.Collider.heatTransfer;
  for (let slot = 0; slot < colliders.count; slot++) {
    if (heatTransfer[colliders.entity[slot]] > 0) colliderHeat = true;
  }
  let airGeneration = false;
  let boiling = false;
  let artificialBuoyancy = false;
  for (let slot = 0; slot < table.count; slot++) {
    const eid = table.entity[slot];
    if (store.airGenerationThreshold[eid] > 0) airGeneration = true;
    if (store.boilingTemperature[eid] > 0 && store.boilingProbability[eid] > 0) boiling = true;
    if (store.artificialBuoyancy[eid] > 0) artificialBuoyancy = true;
  }
  const features = ctx.solver.multiFluid.features;
  features.airGeneration = airGeneration;
  features.boiling = boiling;
  features.artificialBuoyancy = artificialBuoyancy;
  features.numberDensity = numberDensity || temperatureDensity;
  features.numberDensityOptIn = numberDensity;
  features.temperatureDensity = temperatureDensity;
  features.interfaceTension = interfaceTension;
  features.surfaceTension = surfaceTension;
  features.temperatureDiffusion = temperatureDiffusion;
  features.colorDiffusion = colorDiffusion;
  features.colliderHeat = colliderHeat;
  return features;
}

/**
 * Names of the multi-fluid features in use (number-density constraint, tension, diffusion,
 * temperature-dependent rest density, collider heat), for the message of a backend or solver that does not
 * implement them yet. Different rest densities alone are no feature: every backend and solver handles
 * them with its own mass-density estimate.
 */
export function explicitFeatureNames(features: MultiFluidFeatures): string[] {
  const names: string[] = [];
  if (features.numberDensityOptIn) names.push('FluidMaterial.numberDensity');
  if (features.temperatureDensity) names.push('FluidMaterial.temperatureDensity');
  if (features.interfaceTension) names.push('FluidMaterial.interfaceTension');
  if (features.surfaceTension) names.push('FluidMaterial.surfaceTension');
  if (features.temperatureDiffusion) names.push('FluidMaterial.diffusivity');
  if (features.colorDiffusion) names.push('FluidMaterial.colorDiffusivity');
  if (features.colliderHeat) names.push('Collider.heatTransfer');
  names.push(...airFeatureNames(features));
  return names;
}

/**
 * Names of the trapped-air and boiling features in use (Müller et al. 2005, sections 3.4 and 4.4; solver
 * 'pbf' and 'sph', both backends), for the message of a solver that does not implement them (MPS).
 */
export function airFeatureNames(features: MultiFluidFeatures): string[] {
  const names: string[] = [];
  if (features.airGeneration) names.push('FluidMaterial.airGenerationThreshold');
  if (features.boiling) names.push('FluidMaterial.boilingTemperature');
  if (features.artificialBuoyancy) names.push('FluidMaterial.artificialBuoyancy');
  return names;
}
