/** The predict pass (predict.wgsl, mirroring predict/cpu.ts): external forces, the speed clamp, x* and the hash count. */
import commonSource from '../gpu/common.wgsl?raw';
import { type PassDefinition, R, W } from '../gpu/passes';
import predictSource from './predict.wgsl?raw';

/** The predict pass. */
export const predictPasses: readonly PassDefinition[] = [
  {
    key: 'predict',
    name: 'predict',
    source: commonSource + predictSource,
    entry: 'main',
    bindings: [
      ['scene', R],
      ['state', R],
      ['position', R],
      ['velocity', W],
      ['info', W],
      ['cell', W],
      ['bucketsAtomic', W],
    ],
    size: 'particles',
  },
];
