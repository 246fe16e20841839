/**
 * The density passes (mirroring density/cpu.ts and density/numberDensity.ts): lambda (lambda.wgsl, with the
 * wall weights) and correct (correct.wgsl), each in a general and a `simple` variant (one material with the
 * exponent 4), and the number-density forms of several fluids (restVolume.wgsl, numberDensityLambda.wgsl,
 * numberDensityCorrect.wgsl).
 */

import { collidePassKey, shapeVariantSuffix } from '../collide/gpu';
import poseSource from '../collide/pose.wgsl?raw';
import { analyticVariant, containerBoxVariant, shapesSource } from '../collide/shapes';
import commonSource from '../gpu/common.wgsl?raw';
import { type GpuPlan, type PassBinding, type PassDefinition, R, W } from '../gpu/passes';
import { materialVariant } from '../gpu/shaderSource';
import correctSource from './correct.wgsl?raw';
import lambdaSource from './lambda.wgsl?raw';
import numberDensityCorrectSource from './numberDensityCorrect.wgsl?raw';
import numberDensityLambdaSource from './numberDensityLambda.wgsl?raw';
import restVolumeSource from './restVolume.wgsl?raw';

/** The wall-weight functions of lambda.wgsl (its part before the entry point), shared with other passes. */
export const wallFunctionsSource = lambdaSource.slice(0, lambdaSource.indexOf('@compute'));
/** The artificial pressure function of correct.wgsl (its part before the entry point). */
const pressureFunctionSource = correctSource.slice(0, correctSource.indexOf('@compute'));

const lambdaBindings: readonly PassBinding[] = [
  ['scene', R],
  ['state', R],
  ['sortedPredicted', R],
  ['sortedInfo', R],
  ['neighbourTable', R],
  ['solve', W],
  ['wall', W],
  ['fieldValues', R],
];
const correctBindings: readonly PassBinding[] = [
  ['scene', R],
  ['state', R],
  ['sortedPredicted', R],
  ['sortedInfo', R],
  ['neighbourTable', R],
  ['solve', R],
  ['wall', R],
  ['delta', W],
];
const lambda = commonSource + poseSource + shapesSource + lambdaSource;
const correct = commonSource + correctSource;

const lambdaPass: PassDefinition = {
  key: 'lambda',
  name: 'lambda',
  source: materialVariant(lambda, false),
  entry: 'main',
  bindings: lambdaBindings,
  size: 'particles',
};
const lambdaSimplePass: PassDefinition = {
  key: 'lambdaSimple',
  name: 'lambda',
  source: materialVariant(lambda, true),
  entry: 'main',
  bindings: lambdaBindings,
  size: 'particles',
};

/**
 * The single-fluid density passes: lambda in six variants (general or simple materials; with mesh colliders,
 * without, or with box containers only), correct in two.
 */
export const densityPasses: readonly PassDefinition[] = [
  lambdaPass,
  lambdaSimplePass,
  analyticVariant(lambdaPass),
  analyticVariant(lambdaSimplePass),
  containerBoxVariant(lambdaPass),
  containerBoxVariant(lambdaSimplePass),
  {
    key: 'correct',
    name: 'correct',
    source: materialVariant(correct, false),
    entry: 'main',
    bindings: correctBindings,
    size: 'particles',
  },
  {
    key: 'correctSimple',
    name: 'correct',
    source: materialVariant(correct, true),
    entry: 'main',
    bindings: correctBindings,
    size: 'particles',
  },
];

/** The number-density passes of several fluids (PBF; WCSPH uses only `restVolume`, before sph/density.wgsl). */
export const numberDensityPasses: readonly PassDefinition[] = [
  {
    key: 'numberDensityLambda',
    name: 'numberDensityLambda',
    source: commonSource + poseSource + shapesSource + wallFunctionsSource + numberDensityLambdaSource,
    entry: 'main',
    bindings: lambdaBindings,
    size: 'particles',
  },
  {
    key: 'restVolume',
    name: 'restVolume',
    source: restVolumeSource,
    entry: 'main',
    bindings: [
      ['scene', R],
      ['state', R],
      ['sortedInfo', R],
      ['attributes', R],
      ['wall', W],
    ],
    size: 'particles',
  },
  {
    key: 'numberDensityCorrect',
    name: 'numberDensityCorrect',
    source: commonSource + pressureFunctionSource + numberDensityCorrectSource,
    entry: 'main',
    bindings: correctBindings,
    size: 'particles',
  },
];

/**
 * The density solve's passes in a substep of `plan` (densitySystem's order): the rest volumes when several
 * fluids use the number-density form, then per iteration lambda and correct (their number-density, simple or
 * general variant), and the collision (with coupled colliders: apply, then the coupled collision); without
 * mesh colliders, lambda's and the collision's `Analytic` variants, and while every collider is a box
 * container their `Boxes` variants (the uncoupled collision's).
 */
export function densityGpuPasses(plan: GpuPlan): string[] {
  const list: string[] = [];
  const numberDensity = plan.features.numberDensity;
  if (numberDensity) list.push('restVolume');
  const shapes = shapeVariantSuffix(plan);
  for (let iteration = 0; iteration < plan.iterations; iteration++) {
    if (numberDensity) list.push('numberDensityLambda', 'numberDensityCorrect');
    else if (plan.simpleMaterials) list.push(`lambdaSimple${shapes}`, 'correctSimple');
    else list.push(`lambda${shapes}`, 'correct');
    if (plan.coupled) list.push('apply');
    list.push(collidePassKey(plan));
  }
  return list;
}
