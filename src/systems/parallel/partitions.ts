/**
 * The partition plan of a substep (kernels.ts): after the neighbour search, the sorted particles are cut
 * into `PARTITION_COUNT` ranges of equal count, and each range's spill rows (its own particles and the later
 * ones its half lists reach) are placed one after the other in `spill`, which grows when they need more room.
 */
import type { SolverState } from '../context';
import { PARTITION_COUNT, SPILL_STRIDE } from './kernels';

/** Cuts the `count` sorted particles into the partitions: their starts in `partitionBounds`. */
export function cutPartitions(s: SolverState): void {
  const n = s.count;
  for (let p = 0; p <= PARTITION_COUNT; p++) s.partitionBounds[p] = Math.floor((p * n) / PARTITION_COUNT);
}

/**
 * Joins the partitions' neighbour lists (`neighbourPairs` writes each partition's from its own region of
 * `neighbours`) into one contiguous array, then counts every particle's neighbours (both halves).
 */
export function joinNeighbourLists(s: SolverState): void {
  const n = s.count;
  const bounds = s.partitionBounds;
  const { neighbours, neighbourStart, neighbourCount } = s;
  let total = 0;
  for (let p = 0; p < PARTITION_COUNT; p++) {
    const regionStart = Math.floor((p * neighbours.length) / PARTITION_COUNT);
    const end = bounds[3 * PARTITION_COUNT + 1 + p];
    const shift = regionStart - total;
    if (shift !== 0) {
      neighbours.copyWithin(total, regionStart, end);
      for (let i = bounds[p]; i < bounds[p + 1]; i++) neighbourStart[i] -= shift;
    }
    total += end - regionStart;
  }
  neighbourStart[n] = total;
  for (let i = 0; i < n; i++) neighbourCount[i] += neighbourStart[i + 1] - neighbourStart[i];
  for (let k = 0; k < total; k++) neighbourCount[neighbours[k]]++;
}

/**
 * Fills the spill part of `partitionBounds` for the particles' present half lists (the starts come from
 * `cutPartitions`); grows `spill` when needed. `spillEnds`: each partition's spill end (past its last
 * particle's, its lists' largest j + 1) where the search found them already (the threads' WebAssembly search,
 * neighbours/wasm.ts), so the lists need no scan here.
 */
export function planPartitions(s: SolverState, spillEnds?: Int32Array): void {
  const n = s.count;
  const bounds = s.partitionBounds;
  const { neighbourStart, neighbours } = s;
  if (bounds[PARTITION_COUNT] !== n) cutPartitions(s);
  let rows = 0;
  for (let p = 0; p < PARTITION_COUNT; p++) {
    const to = bounds[p + 1];
    let end = to;
    if (spillEnds !== undefined) end = spillEnds[p];
    else {
      const last = neighbourStart[to];
      for (let k = neighbourStart[bounds[p]]; k < last; k++) {
        const j = neighbours[k];
        if (j >= end) end = j + 1;
      }
    }
    bounds[PARTITION_COUNT + 1 + p] = end;
    bounds[2 * PARTITION_COUNT + 1 + p] = rows;
    rows += end - bounds[p];
  }
  if (rows * SPILL_STRIDE > s.spill.length) {
    let size = Math.max(s.spill.length, 1024);
    while (size < rows * SPILL_STRIDE) size *= 2;
    s.spill = s.sharedMemory ? new Float64Array(new SharedArrayBuffer(size * 8)) : new Float64Array(size);
  }
}
