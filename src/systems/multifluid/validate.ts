/**
 * Checks of the fluid-fluid interaction values game code may edit (materials' colours, tensions,
 * diffusivities and temperature-dependent density, colliders' temperature and heat transfer, particles'
 * temperature and colour), before a step changes anything; and the refusal of backends and solvers that do
 * not implement the explicit features yet. Each failure is a {@link FluidError} naming the value.
 */
import type { SimulationContext } from '../context';
import { FluidError } from '../errors';
import { explicitFeatureNames, updateMultiFluidFeatures } from './features';

/** Allowed range of a temperature in kelvin (particles, colliders, materials' initial temperature). */
export const TEMPERATURE_RANGE: readonly [number, number] = [0.001, 1e6];

/**
 * Allowed range of a particle's rest density alpha / T in kg/m^3 (eq. 16), the range the step allows for
 * `FluidMaterial.restDensity` (gather.ts).
 */
export const REST_DENSITY_RANGE: readonly [number, number] = [1e-6, 1e9];

/** The material fields checked before each step: name, range and unit (as the message writes it). */
const MATERIAL_RANGES = [
  ['interfaceColour', -1, 1, ' (dimensionless)'],
  ['surfaceColour', 0, 1, ' (dimensionless)'],
  ['interfaceTension', 0, 1000, ' N/m'],
  ['surfaceTension', 0, 1000, ' N/m'],
  ['diffusivity', 0, 1, ' m^2/s'],
  ['colourDiffusivity', 0, 1, ' m^2/s'],
  ['temperatureDensity', 0, 1e12, ' kg K/m^3'],
  ['initialTemperature', TEMPERATURE_RANGE[0], TEMPERATURE_RANGE[1], ' K'],
] as const;

function checkRange(name: string, eid: number, value: number, min: number, max: number, unit = ''): void {
  if (!(value >= min && value <= max)) {
    throw new FluidError(`${name}[${eid}] is ${value}; allowed range is [${min}, ${max}]${unit}`);
  }
}

/**
 * Checks the multi-fluid fields of materials and colliders and, when `particles` is true (the CPU
 * backend), each live particle's `Temperature` and `Colour` and, for materials with a
 * `temperatureDensity`, its rest density alpha / T (within {@link REST_DENSITY_RANGE}). Updates the step's
 * feature flags (`solver.multiFluid.features`). With `gpu` true (the WebGPU backend running), a
 * material or collider that uses tension, diffusion, a temperature-dependent rest density or heat
 * transfer throws: the WebGPU backend does not implement them yet. The WCSPH and MPS solvers refuse them
 * the same way.
 */
export function checkMultiFluidComponents(ctx: SimulationContext, particles: boolean, gpu: boolean): void {
  const store = ctx.components.FluidMaterial;
  const table = ctx.materials;
  for (let slot = 0; slot < table.count; slot++) {
    const eid = table.entity[slot];
    for (const [name, min, max, unit] of MATERIAL_RANGES) {
      checkRange(`FluidMaterial.${name}`, eid, store[name][eid], min, max, unit);
    }
    checkRange('FluidMaterial.numberDensity', eid, store.numberDensity[eid], 0, 1, ' (0 or 1)');
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
  if (used.length > 0 && gpu) {
    throw new FluidError(
      `${used.join(', ')} ${used.length > 1 ? 'are' : 'is'} not implemented on the WebGPU backend yet; set it to 0 or use backend 'cpu'`,
    );
  }
  if (used.length > 0 && ctx.settings.solver !== 'pbf') {
    throw new FluidError(
      `${used.join(', ')} ${used.length > 1 ? 'are' : 'is'} implemented for solver 'pbf' only (this simulation uses '${ctx.settings.solver}'); set it to 0`,
    );
  }
  if (!particles) return;
  const s = ctx.solver;
  const { Temperature, Colour } = ctx.components;
  const [lowest, highest] = TEMPERATURE_RANGE;
  for (let place = 0; place < s.count; place++) {
    const eid = s.entity[place];
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
  }
  if (!features.temperatureDensity) return;
  // Each particle's rest density alpha / T (eq. 16) within the rest-density range.
  const alphaOf = ctx.components.FluidMaterial.temperatureDensity;
  const material = ctx.components.Particle.material;
  const [lightest, heaviest] = REST_DENSITY_RANGE;
  for (let place = 0; place < s.count; place++) {
    const eid = s.entity[place];
    const alpha = alphaOf[material[eid]];
    if (!(alpha > 0)) continue;
    const restDensity = alpha / Temperature[eid];
    if (!(restDensity >= lightest && restDensity <= heaviest)) {
      throw new FluidError(
        `particle ${eid}: rest density FluidMaterial.temperatureDensity / Temperature = ${alpha} / ${Temperature[eid]} = ${restDensity} kg/m^3; allowed range is [${lightest}, ${heaviest}] kg/m^3 (change its Temperature or the material's temperatureDensity)`,
      );
    }
  }
}
