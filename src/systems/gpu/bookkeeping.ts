/**
 * The bookkeeping passes of the WebGPU step (bookkeeping.wgsl): the uploads of edited and appended particles,
 * the step's counters, the hash buckets' clear, and the end of each substep (write-back to the particle order,
 * which also moves the substep counter on).
 */

import bookkeepingSource from './bookkeeping.wgsl?raw';
import { type PassDefinition, R, W } from './passes';
import { entrySection } from './shaderSource';

const book = (entry: string) => entrySection(bookkeepingSource, entry);

/** The uploads, the step's begin, the buckets' clear and the write-back (which also advances the substep). */
export const bookkeepingPasses: readonly PassDefinition[] = [
  {
    key: 'edit',
    name: 'edit',
    source: book('edit'),
    entry: 'edit',
    bindings: [
      ['scene', R],
      ['state', R],
      ['records', R],
      ['placeOfEntity', R],
      ['info', W],
      ['position', W],
      ['velocity', W],
      ['attributes', W],
    ],
    size: 'edits',
  },
  {
    key: 'append',
    name: 'append',
    source: book('append'),
    entry: 'append',
    bindings: [
      ['scene', R],
      ['state', R],
      ['records', R],
      ['placeOfEntity', W],
      ['info', W],
      ['position', W],
      ['velocity', W],
      ['attributes', W],
    ],
    size: 'appends',
  },
  {
    key: 'begin',
    name: 'begin',
    source: book('begin'),
    entry: 'begin',
    bindings: [
      ['scene', R],
      ['state', W],
    ],
    size: 'one',
  },
  {
    key: 'clear',
    name: 'clear',
    source: book('clear'),
    entry: 'clear',
    bindings: [
      ['scanData', W],
      ['longBuckets', W],
    ],
    size: 'buckets',
    aliases: { scanData: 'buckets' },
  },
  {
    key: 'writeBack',
    name: 'writeBack',
    source: book('writeBack'),
    entry: 'writeBack',
    bindings: [
      ['state', W],
      ['sortedInfo', R],
      ['sortedPredicted', R],
      ['delta', R],
      ['position', W],
      ['velocity', W],
      ['info', W],
      ['placeOfEntity', W],
    ],
    size: 'particlesAndOne',
  },
];
