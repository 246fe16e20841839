/**
 * White water's passes (diffuse.wgsl, mirroring diffuse/cpu.ts): `diffuseBegin`, `diffuseFields`,
 * `diffuseGenerate` and `diffuseAdvect` (with its variant for steps without mesh colliders), recorded in the
 * last substep when the simulation has a `diffuse.capacity` (schedule.ts).
 */
import poseSource from '../collide/pose.wgsl?raw';
import { analyticVariant, shapesSource } from '../collide/shapes';
import commonSource from '../gpu/common.wgsl?raw';
import { type GpuPlan, type PassDefinition, R, W } from '../gpu/passes';
import { entrySection } from '../gpu/shaderSource';
import diffuseSource from './diffuse.wgsl?raw';

const advect: PassDefinition = {
  key: 'diffuseAdvect',
  name: 'diffuseAdvect',
  source: commonSource + poseSource + shapesSource + entrySection(diffuseSource, 'advect'),
  entry: 'advect',
  bindings: [
    ['scene', R],
    ['state', R],
    ['sortedPredicted', R],
    ['neighbourTable', R],
    ['delta', R],
    ['fieldValues', R],
    ['diffuseParticles', W],
    ['diffuseCounters', W],
  ],
  size: 'diffuse',
  // A point's fluid neighbours: the cells around it (it has no neighbour list).
  neighbourLoop: 'cells',
};

/** White water's passes. */
export const diffusePasses: readonly PassDefinition[] = [
  {
    key: 'diffuseBegin',
    name: 'diffuseBegin',
    source: entrySection(diffuseSource, 'begin'),
    entry: 'begin',
    bindings: [['diffuseCounters', W]],
    size: 'one',
  },
  {
    key: 'diffuseFields',
    name: 'diffuseFields',
    source: commonSource + entrySection(diffuseSource, 'fields'),
    entry: 'fields',
    bindings: [
      ['scene', R],
      ['state', R],
      ['sortedPredicted', R],
      ['neighbourTable', R],
      ['delta', R],
      ['sortedInfo', R],
      ['diffuseFields', W],
    ],
    size: 'particles',
  },
  {
    key: 'diffuseGenerate',
    name: 'diffuseGenerate',
    source: commonSource + entrySection(diffuseSource, 'generate'),
    entry: 'generate',
    bindings: [
      ['scene', R],
      ['state', R],
      ['sortedPredicted', R],
      ['neighbourTable', R],
      ['delta', R],
      ['diffuseFields', R],
      ['diffuseParticles', W],
      ['diffuseCounters', W],
    ],
    size: 'particles',
  },
  advect,
  analyticVariant(advect),
];

/** The white-water passes of a step of `plan` (none without a `diffuse.capacity`). */
export function diffuseGpuPasses(plan: GpuPlan): readonly string[] {
  if (!plan.diffuse) return [];
  return ['diffuseBegin', 'diffuseFields', 'diffuseGenerate', plan.meshes ? 'diffuseAdvect' : 'diffuseAdvectAnalytic'];
}
