/**
 * The fluid-fluid interaction passes of the PBF and WCSPH solvers (Müller et al. 2005, mirroring multifluid/interaction.ts,
 * air.ts and phase.ts): tension (tension.wgsl), diffusion (diffusion.wgsl: rate, a one-thread plan, and per
 * part a change, an apply and a one-thread count), collider heat (heat.wgsl), and trapped air and boiling
 * (airFields.wgsl: boil, the fields, the decisions, and the artificial buoyancy of eq. 17).
 */
import poseSource from '../collide/pose.wgsl?raw';
import { shapesSource } from '../collide/shapes';
import { wallFunctionsSource } from '../density/gpu';
import commonSource from '../gpu/common.wgsl?raw';
import { type GpuPlan, type PassDefinition, R, W } from '../gpu/passes';
import { entrySection } from '../gpu/shaderSource';
import airFieldsSource from './airFields.wgsl?raw';
import diffusionSource from './diffusion.wgsl?raw';
import heatSource from './heat.wgsl?raw';
import tensionSource from './tension.wgsl?raw';

const diffusion = (entry: string) => commonSource + entrySection(diffusionSource, entry);
const air = (entry: string) => entrySection(airFieldsSource, entry);

/** The fluid-fluid interaction, trapped-air and boiling passes (PBF and WCSPH). */
export const multiFluidPasses: readonly PassDefinition[] = [
  {
    key: 'tension',
    name: 'tension',
    source: commonSource + tensionSource,
    entry: 'main',
    bindings: [
      ['scene', R],
      ['state', R],
      ['sortedPredicted', R],
      ['sortedInfo', R],
      ['neighbourTable', R],
      ['solve', R],
      ['delta', W],
    ],
    size: 'particles',
  },
  {
    key: 'diffusionRate',
    name: 'diffusionRate',
    source: diffusion('rate'),
    entry: 'rate',
    bindings: [
      ['scene', R],
      ['state', R],
      ['sortedPredicted', R],
      ['sortedInfo', R],
      ['neighbourTable', R],
      ['solve', R],
      ['diffusionMax', W],
    ],
    size: 'particles',
  },
  {
    key: 'diffusionPlan',
    name: 'diffusionPlan',
    source: diffusion('plan'),
    entry: 'plan',
    bindings: [
      ['scene', R],
      ['state', W],
      ['diffusionMax', W],
      ['diffusionPlan', W],
    ],
    size: 'one',
  },
  {
    key: 'diffusionChange',
    name: 'diffusionChange',
    source: diffusion('change'),
    entry: 'change',
    bindings: [
      ['scene', R],
      ['state', R],
      ['sortedPredicted', R],
      ['sortedInfo', R],
      ['neighbourTable', R],
      ['solve', R],
      ['attributes', R],
      ['diffusionChange', W],
    ],
    size: 'particles',
  },
  {
    key: 'diffusionApply',
    name: 'diffusionApply',
    source: entrySection(diffusionSource, 'apply'),
    entry: 'apply',
    bindings: [
      ['state', R],
      ['sortedInfo', R],
      ['diffusionPlan', R],
      ['diffusionChange', R],
      ['attributes', W],
    ],
    size: 'particles',
  },
  {
    key: 'diffusionNext',
    name: 'diffusionNext',
    source: entrySection(diffusionSource, 'next'),
    entry: 'next',
    bindings: [['state', W]],
    size: 'one',
  },
  {
    key: 'heat',
    name: 'heat',
    source: commonSource + poseSource + shapesSource + heatSource,
    entry: 'main',
    bindings: [
      ['scene', R],
      ['state', R],
      ['sortedPredicted', R],
      ['sortedInfo', R],
      ['fieldValues', R],
      ['attributes', W],
    ],
    size: 'particles',
  },
  {
    key: 'boil',
    name: 'boil',
    source: poseSource + shapesSource + air('boil'),
    entry: 'boil',
    bindings: [
      ['scene', R],
      ['state', R],
      ['sortedPredicted', R],
      ['sortedInfo', W],
      ['fieldValues', R],
      ['attributes', W],
      ['airEvents', W],
    ],
    size: 'particles',
  },
  {
    key: 'airFields',
    name: 'airFields',
    source: commonSource + poseSource + shapesSource + wallFunctionsSource + air('fields'),
    entry: 'fields',
    bindings: [
      ['scene', R],
      ['state', R],
      ['sortedPredicted', R],
      ['sortedInfo', R],
      ['neighbourTable', R],
      ['fieldValues', R],
      ['airFields', W],
    ],
    size: 'particles',
  },
  {
    key: 'airDecide',
    name: 'airDecide',
    source: air('decide'),
    entry: 'decide',
    bindings: [
      ['scene', R],
      ['state', R],
      ['sortedPredicted', R],
      ['sortedInfo', W],
      ['delta', R],
      ['airFields', W],
      ['airCandidates', W],
      ['airEvents', W],
    ],
    size: 'particles',
  },
  {
    key: 'buoyancy',
    name: 'buoyancy',
    source: commonSource + air('buoyancy'),
    entry: 'buoyancy',
    bindings: [
      ['scene', R],
      ['state', R],
      ['sortedPredicted', R],
      ['sortedInfo', R],
      ['neighbourTable', R],
      ['delta', W],
    ],
    size: 'particles',
  },
];

/**
 * The fluid-fluid interaction passes in a substep of `plan` (multiFluidInteractionSystem's order), each only
 * when in use: tension, diffusion (rate, plan, and per recorded part its change, apply and count), collider heat.
 */
export function multiFluidGpuPasses(plan: GpuPlan): string[] {
  const { features } = plan;
  const list: string[] = [];
  if (features.interfaceTension || features.surfaceTension) list.push('tension');
  if (features.temperatureDiffusion || features.colorDiffusion) {
    list.push('diffusionRate', 'diffusionPlan');
    for (let part = 0; part < plan.diffusionParts; part++)
      list.push('diffusionChange', 'diffusionApply', 'diffusionNext');
  }
  if (plan.colliderHeat) list.push('heat');
  return list;
}
