/**
 * The apply pass of steps with coupled colliders (apply.wgsl, mirroring applyCorrections and
 * accumulateWallImpulses): applies the density corrections and keeps each coupled collider's share of the wall
 * pressure for the impulses.
 */
import commonSource from '../gpu/common.wgsl?raw';
import { type PassDefinition, R, W } from '../gpu/passes';
import applySource from './apply.wgsl?raw';

/** The apply pass of steps with coupled colliders. */
export const couplePasses: readonly PassDefinition[] = [
  {
    key: 'apply',
    name: 'apply',
    source: commonSource + applySource,
    entry: 'main',
    bindings: [
      ['scene', R],
      ['state', R],
      ['sortedPredicted', W],
      ['delta', R],
      ['solve', R],
      ['wall', R],
      ['sortedInfo', R],
      ['contact', W],
    ],
    size: 'particles',
  },
];
