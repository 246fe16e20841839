/**
 * The velocity-stage passes (mirroring velocity/cpu.ts): the velocity update with the contact response
 * (velocity.wgsl; the coupled variant adds the response's impulses), XSPH viscosity with the vorticity
 * (viscosity.wgsl) and the vorticity confinement (vorticity.wgsl).
 */
import poseSource from '../collide/pose.wgsl?raw';
import impulseSource from '../couple/impulse.wgsl?raw';
import commonSource from '../gpu/common.wgsl?raw';
import { type PassBinding, type PassDefinition, R, W } from '../gpu/passes';
import { couplingVariant } from '../gpu/shaderSource';
import velocitySource from './velocity.wgsl?raw';
import viscositySource from './viscosity.wgsl?raw';
import vorticitySource from './vorticity.wgsl?raw';

const velocity = commonSource + poseSource + velocitySource;
const velocityBindings: readonly PassBinding[] = [
  ['scene', R],
  ['state', R],
  ['sortedPosition', R],
  ['sortedPredicted', R],
  ['sortedVelocity', W],
  ['contact', R],
  ['solve', R],
];

/** The velocity-stage passes. */
export const velocityPasses: readonly PassDefinition[] = [
  {
    key: 'velocity',
    name: 'velocity',
    source: couplingVariant(velocity, false),
    entry: 'main',
    bindings: velocityBindings,
    size: 'particles',
  },
  {
    key: 'velocityCoupled',
    name: 'velocity',
    source: couplingVariant(velocity + impulseSource, true),
    entry: 'main',
    bindings: [...velocityBindings, ['impulses', W]],
    size: 'particles',
  },
  {
    key: 'viscosity',
    name: 'viscosity',
    source: commonSource + viscositySource,
    entry: 'main',
    bindings: [
      ['scene', R],
      ['state', R],
      ['sortedPredicted', R],
      ['neighbourTable', R],
      ['sortedVelocity', R],
      ['sortedInfo', R],
      ['delta', W],
      ['omega', W],
    ],
    size: 'particles',
  },
  {
    key: 'vorticity',
    name: 'vorticity',
    source: commonSource + vorticitySource,
    entry: 'main',
    bindings: [
      ['scene', R],
      ['state', R],
      ['sortedPredicted', R],
      ['neighbourTable', R],
      ['omega', R],
      ['delta', W],
      ['sortedVelocity', R],
      ['sortedInfo', R],
    ],
    size: 'particles',
  },
];
