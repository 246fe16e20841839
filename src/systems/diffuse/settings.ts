/**
 * White water's options and checks (Ihmsen et al. 2012, "Unified spray, foam and bubbles for particle-based
 * fluids"; docs/white-water.md): the simulation's `diffuse: { ... }` resolved into the flat `settings.diffuse*`,
 * and the materials' `diffuse*` fields, checked by `addMaterial` and again before each step (game code may edit
 * them) against their rules in `MATERIAL_OPTIONS` (core/schema.ts).
 */
import type { FluidSettings } from '../../components';
import { checkKnownKeys, optionNames, withDefault } from '../../core/checks';
import { FluidError } from '../../core/errors';
import { allows, checkOption, DIFFUSE_OPTIONS, MATERIAL_OPTIONS } from '../../core/schema';
import type { SimulationContext } from '../context';

/** Options of white water (`diffuse` in `new FluidSimulation(options)`); the per-fluid settings are in the materials. */
export interface DiffuseOptions {
  /**
   * Most live diffuse particles (spray, foam and bubbles), fixed at creation. Range [0, 2097152]. Default 0:
   * white water off (no memory, no cost). At capacity new diffuse particles are dropped
   * (`stats.diffuseDroppedCount`), never an error.
   */
  capacity?: number;
  /**
   * A diffuse particle with fewer fluid particles than this within the kernel radius h is spray (ballistic);
   * above `bubbleNeighbours` this test still comes first. Range [0, 1000]. Default 6 (the paper's).
   */
  sprayNeighbours?: number;
  /**
   * A diffuse particle with more fluid particles than this within h is a bubble (buoyant, dragged along by the
   * fluid); between the two it is foam (carried by the fluid). Range [0, 1000]. Default 20 (the paper's).
   */
  bubbleNeighbours?: number;
}

/** The names of {@link DiffuseOptions}. */
export const DIFFUSE_OPTION_NAMES = optionNames<DiffuseOptions>()('capacity', 'sprayNeighbours', 'bubbleNeighbours');

/** The white-water fields of `FluidMaterial`, checked by `addMaterial` and before each step. */
export const DIFFUSE_MATERIAL_NAMES = [
  'diffuseTrappedAirMin',
  'diffuseTrappedAirMax',
  'diffuseWaveCrestMin',
  'diffuseWaveCrestMax',
  'diffuseEnergyMin',
  'diffuseEnergyMax',
  'diffuseTrappedAirRate',
  'diffuseWaveCrestRate',
  'diffuseBuoyancy',
  'diffuseDrag',
  'diffuseSprayDrag',
  'diffuseLifetimeMin',
  'diffuseLifetimeMax',
] as const satisfies readonly (keyof typeof MATERIAL_OPTIONS)[];

/** A white-water material field's name. */
export type DiffuseMaterialName = (typeof DIFFUSE_MATERIAL_NAMES)[number];

/** The threshold pairs whose max must exceed their min (the clamp divides by max - min), and the lifetime pair. */
const ORDERED_PAIRS = [
  ['diffuseTrappedAirMin', 'diffuseTrappedAirMax', true],
  ['diffuseWaveCrestMin', 'diffuseWaveCrestMax', true],
  ['diffuseEnergyMin', 'diffuseEnergyMax', true],
  ['diffuseLifetimeMin', 'diffuseLifetimeMax', false],
] as const satisfies readonly (readonly [DiffuseMaterialName, DiffuseMaterialName, boolean])[];

/**
 * Checks that each threshold pair of `values` (one material's white-water fields) has max above min and the
 * lifetimes max at least min; `where` names the values in the message (`'addMaterial'` or
 * `'FluidMaterial[7]'`). Throws {@link FluidError}.
 */
export function checkDiffuseOrder(values: Readonly<Record<DiffuseMaterialName, number>>, where: string): void {
  for (const [low, high, strict] of ORDERED_PAIRS) {
    const ok = strict ? values[high] > values[low] : values[high] >= values[low];
    if (!ok) {
      throw new FluidError(
        `${where}: ${high} is ${values[high]} and ${low} is ${values[low]}; ${high} must be ${strict ? 'above' : 'at least'} ${low}`,
      );
    }
  }
}

/** The `diffuse*` settings of {@link FluidSettings}. */
export type DiffuseSettings = Pick<
  FluidSettings,
  'diffuseCapacity' | 'diffuseSprayNeighbours' | 'diffuseBubbleNeighbours'
>;

/** Resolves and checks the `diffuse` option (absent: off) into the flat settings. */
export function resolveDiffuseOptions(options: DiffuseOptions | undefined): DiffuseSettings {
  const rules = DIFFUSE_OPTIONS;
  if (options === undefined) {
    return {
      diffuseCapacity: 0,
      diffuseSprayNeighbours: rules.sprayNeighbours.default,
      diffuseBubbleNeighbours: rules.bubbleNeighbours.default,
    };
  }
  if (typeof options !== 'object' || options === null) {
    throw new FluidError(`diffuse is ${String(options)}; it must be an object of white-water options`);
  }
  checkKnownKeys('diffuse', options, DIFFUSE_OPTION_NAMES);
  const option = (name: keyof typeof rules) =>
    checkOption(`diffuse.${name}`, rules[name], withDefault(options[name], rules[name].default));
  return {
    diffuseCapacity: option('capacity'),
    diffuseSprayNeighbours: option('sprayNeighbours'),
    diffuseBubbleNeighbours: option('bubbleNeighbours'),
  };
}

/** Checks the live white-water settings (`settings.diffuseSprayNeighbours`, `diffuseBubbleNeighbours`). */
export function checkDiffuseSettings(settings: FluidSettings, prefix: string): void {
  const rules = DIFFUSE_OPTIONS;
  if (!allows(rules.sprayNeighbours, settings.diffuseSprayNeighbours)) {
    checkOption(`${prefix}diffuseSprayNeighbours`, rules.sprayNeighbours, settings.diffuseSprayNeighbours);
  }
  if (!allows(rules.bubbleNeighbours, settings.diffuseBubbleNeighbours)) {
    checkOption(`${prefix}diffuseBubbleNeighbours`, rules.bubbleNeighbours, settings.diffuseBubbleNeighbours);
  }
}

const pairScratch = {} as Record<DiffuseMaterialName, number>;

/**
 * Checks every material's white-water fields (game code may edit them) against their rules and their pairs'
 * order, before a step changes anything (with white water off too: a material keeps its values). Throws {@link FluidError} naming the
 * component field and the material entity.
 */
export function checkDiffuseMaterials(ctx: SimulationContext): void {
  const store = ctx.components.FluidMaterial;
  const table = ctx.materials;
  for (let slot = 0; slot < table.count; slot++) {
    const eid = table.entity[slot];
    for (const name of DIFFUSE_MATERIAL_NAMES) {
      const rule = MATERIAL_OPTIONS[name];
      const value = store[name][eid];
      if (!allows(rule, value)) checkOption(`FluidMaterial.${name}[${eid}]`, rule, value);
      pairScratch[name] = value;
    }
    checkDiffuseOrder(pairScratch, `FluidMaterial[${eid}]`);
  }
}
