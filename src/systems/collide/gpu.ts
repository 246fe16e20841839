/**
 * The collision pass (collide.wgsl, mirroring collideParticles in collide/cpu.ts), in two variants: without
 * coupled colliders it applies the density corrections itself; with them the apply pass (couple/gpu.ts) does
 * and this one adds the contact impulses (couple/impulse.wgsl), which frees the binding the accumulators take.
 */
import impulseSource from '../couple/impulse.wgsl?raw';
import commonSource from '../gpu/common.wgsl?raw';
import { type GpuPlan, type PassDefinition, R, W } from '../gpu/passes';
import { couplingVariant } from '../gpu/shaderSource';
import collideSource from './collide.wgsl?raw';
import poseSource from './pose.wgsl?raw';
import { analyticVariant, containerBoxVariant, shapesSource } from './shapes';

const collide = commonSource + poseSource + shapesSource + collideSource;

const uncoupled: PassDefinition = {
  key: 'collide',
  name: 'collide',
  source: couplingVariant(collide, false),
  entry: 'main',
  bindings: [
    ['scene', R],
    ['state', R],
    ['sortedPosition', W],
    ['sortedPredicted', W],
    ['delta', R],
    ['sortedVelocity', R],
    ['contact', W],
    ['fieldValues', R],
  ],
  size: 'particles',
};
const coupled: PassDefinition = {
  key: 'collideCoupled',
  name: 'collide',
  source: couplingVariant(collide + impulseSource, true),
  entry: 'main',
  bindings: [
    ['scene', R],
    ['state', R],
    ['sortedPosition', W],
    ['sortedPredicted', W],
    ['sortedVelocity', R],
    ['contact', W],
    ['fieldValues', R],
    ['impulses', W],
  ],
  size: 'particles',
};

/**
 * The collision passes, uncoupled and coupled, each with and without mesh colliders (`analyticVariant`), and
 * the uncoupled one for steps whose every collider is a box container (`containerBoxVariant`).
 */
export const collidePasses: readonly PassDefinition[] = [
  uncoupled,
  coupled,
  analyticVariant(uncoupled),
  analyticVariant(coupled),
  containerBoxVariant(uncoupled),
];

/**
 * The key of the collision pass a step of `plan` dispatches (every solver's): the coupled variant with coupled
 * colliders, else the uncoupled one; each without the mesh shape when no collider is a mesh, and the uncoupled
 * one without any other shape's code while every collider is a box container.
 */
export function collidePassKey(plan: GpuPlan): string {
  if (plan.coupled) return `collideCoupled${plan.meshes ? '' : 'Analytic'}`;
  return `collide${shapeVariantSuffix(plan)}`;
}

/**
 * The key suffix of the variant of a pass that measures collider distances for `plan`: `'Boxes'` while every
 * collider is a box container (`containerBoxVariant`), `'Analytic'` without mesh colliders (`analyticVariant`),
 * else none.
 */
export function shapeVariantSuffix(plan: GpuPlan): string {
  if (plan.containerBoxes) return 'Boxes';
  return plan.meshes ? '' : 'Analytic';
}
