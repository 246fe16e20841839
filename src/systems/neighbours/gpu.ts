/**
 * The neighbour search on the GPU (mirroring neighbours/cpu.ts): the bucket counts of `predict` are scanned
 * (scan.wgsl, one level per block of sums, made by the backend for the capacity from {@link scanPass}), then
 * each bucket's particles are ranked by index (a stable sort, as the CPU's, so runs repeat bit for bit), each
 * particle finds its place and is scattered into the sorted order (sort.wgsl); then `neighbourList` builds every
 * particle's neighbour list (lists.wgsl), which the gathering passes read (neighbourLoop.wgsl), its first thread
 * closing the step's counters (finish.wgsl); where no lists are built, the `finish` pass closes them.
 */
import commonSource from '../gpu/common.wgsl?raw';
import { type PassDefinition, R, W } from '../gpu/passes';
import { entrySection } from '../gpu/shaderSource';
import finishSource from './finish.wgsl?raw';
import listsSource from './lists.wgsl?raw';
import scanSource from './scan.wgsl?raw';
import sortSource from './sort.wgsl?raw';

const sort = (entry: string) => entrySection(sortSource, entry);

/**
 * A scan level's pass over `scanData` with its block sums `scanSums` (the backend binds each level's buffers):
 * `scanBlocks` scans each block, `addSums` adds the scanned sums of the level above back.
 */
export function scanPass(key: string, entry: 'scanBlocks' | 'addSums'): Omit<PassDefinition, 'size'> {
  return {
    key,
    name: key,
    source: scanSource,
    entry,
    bindings: [
      ['scanData', W],
      ['scanSums', W],
    ],
  };
}

/**
 * The stable ranking in each bucket (bucket order; rank per particle in a short bucket, per bucket in a long one),
 * destination, scatter and finish, after the scan.
 */
export const sortPasses: readonly PassDefinition[] = [
  {
    key: 'bucketOrder',
    name: 'bucketOrder',
    source: sort('bucketOrder'),
    entry: 'bucketOrder',
    bindings: [
      ['state', R],
      ['cell', R],
      ['buckets', R],
      ['sortOrder', W],
    ],
    size: 'particles',
  },
  {
    key: 'rankParticles',
    name: 'rankParticles',
    source: sort('rankParticles'),
    entry: 'rankParticles',
    bindings: [
      ['scene', R],
      ['state', R],
      ['cell', W],
      ['buckets', R],
      ['sortOrder', R],
      ['longBuckets', W],
    ],
    size: 'particles',
  },
  {
    key: 'rankBuckets',
    name: 'rankBuckets',
    source: sort('rankBuckets'),
    entry: 'rankBuckets',
    bindings: [
      ['scene', R],
      ['state', R],
      ['cell', W],
      ['buckets', R],
      ['sortOrder', W],
      ['longBuckets', W],
    ],
    size: 'one',
  },
  {
    key: 'destination',
    name: 'destination',
    source: commonSource + sort('destination'),
    entry: 'destination',
    bindings: [
      ['scene', R],
      ['state', R],
      ['cell', R],
      ['buckets', R],
      ['info', R],
      ['sortedInfo', W],
      ['contact', W],
      ['removed', W],
    ],
    size: 'particles',
  },
  {
    key: 'scatter',
    name: 'scatter',
    source: commonSource + sort('scatter'),
    entry: 'scatter',
    bindings: [
      ['scene', R],
      ['state', R],
      ['cell', R],
      ['position', R],
      ['velocity', R],
      ['sortedPosition', W],
      ['sortedVelocity', W],
      ['sortedPredicted', W],
    ],
    size: 'particles',
  },
  {
    key: 'finish',
    name: 'finish',
    source: finishSource + sort('finish'),
    entry: 'finish',
    bindings: [
      ['scene', R],
      ['state', W],
      ['buckets', R],
    ],
    size: 'one',
  },
];

/**
 * The substep's neighbour lists (lists.wgsl), after `scatter`, in the `'list'` neighbour mode: it visits the
 * cells itself (`neighbourLoop: 'cells'`) and writes the lists after the bucket starts (`neighbourTable`); its
 * first thread does `finish`'s work (finish.wgsl), so that mode records no `finish` pass.
 */
export const neighbourListPass: PassDefinition = {
  key: 'neighbourList',
  name: 'neighbourList',
  source: commonSource + finishSource + listsSource,
  entry: 'main',
  bindings: [
    ['scene', R],
    ['state', W],
    ['sortedPredicted', R],
    ['neighbourTable', W],
  ],
  size: 'particlesAndOne',
  neighbourLoop: 'cells',
};
