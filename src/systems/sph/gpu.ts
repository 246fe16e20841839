/**
 * The WCSPH passes (`solver: 'sph'`, mirroring sph/cpu.ts): density and pressure (density.wgsl, with the wall
 * weights of density/lambda.wgsl), accelerations with the leap-frog kick (forces.wgsl), with coupled colliders
 * the drift and the wall impulses (apply.wgsl), and the end-of-substep copy of the velocities for the
 * write-back (finish.wgsl).
 */
import poseSource from '../collide/pose.wgsl?raw';
import { shapesSource } from '../collide/shapes';
import impulseSource from '../couple/impulse.wgsl?raw';
import { wallFunctionsSource } from '../density/gpu';
import commonSource from '../gpu/common.wgsl?raw';
import { type PassDefinition, R, W } from '../gpu/passes';
import sphApplySource from './apply.wgsl?raw';
import sphDensitySource from './density.wgsl?raw';
import sphFinishSource from './finish.wgsl?raw';
import sphForcesSource from './forces.wgsl?raw';

/**
 * The WCSPH passes (a WCSPH simulation compiles them instead of PBF's density, projection and number-density
 * solve; with the multi-fluid passes and the rest-volume pass, schedule.ts).
 */
export const sphPasses: readonly PassDefinition[] = [
  {
    key: 'sphDensity',
    name: 'sphDensity',
    source: commonSource + poseSource + shapesSource + wallFunctionsSource + sphDensitySource,
    entry: 'main',
    bindings: [
      ['scene', R],
      ['state', R],
      ['sortedPredicted', R],
      ['sortedInfo', R],
      ['neighbourTable', R],
      ['solve', W],
      ['wall', W],
      ['fieldValues', R],
    ],
    size: 'particles',
  },
  {
    key: 'sphForces',
    name: 'sphForces',
    source: commonSource + sphForcesSource,
    entry: 'main',
    bindings: [
      ['scene', R],
      ['state', R],
      ['sortedPredicted', R],
      ['neighbourTable', R],
      ['sortedVelocity', R],
      ['solve', R],
      ['wall', R],
      ['delta', W],
    ],
    size: 'particles',
  },
  {
    // With coupled colliders: the drift and the wall impulses (the collide pass's coupled variant follows).
    key: 'sphApply',
    name: 'sphApply',
    source: commonSource + poseSource + impulseSource + sphApplySource,
    entry: 'main',
    bindings: [
      ['scene', R],
      ['state', R],
      ['sortedPredicted', W],
      ['delta', R],
      ['solve', R],
      ['wall', R],
      ['contact', W],
      ['impulses', W],
    ],
    size: 'particles',
  },
  {
    key: 'sphFinish',
    name: 'sphFinish',
    source: sphFinishSource,
    entry: 'main',
    bindings: [
      ['state', R],
      ['sortedVelocity', R],
      ['delta', W],
    ],
    size: 'particles',
  },
];
