/**
 * Neighbour search on an unbounded grid of cell size h (Green 2008), once per substep on predicted
 * positions. Cells are numbered densely over the particles' bounding box (or hashed into a power-of-two
 * table when the particles spread too far for that), particles are counting-sorted by cell and every
 * per-particle array is permuted into that order, so that neighbours sit close in memory (Müller et al.
 * 2003, section 5). Each neighbour pair within h is then stored once, in the half list of the particle that
 * comes first in the sorted order; the solver's pair loops update both particles of a pair.
 */
import type { PermutableArray, SimulationContext, SolverState } from '../context';
import { runPartitioned, setKernelParameters } from '../parallel/cpu';
import { Kernel, KernelParameter, PARTITION_COUNT } from '../parallel/kernels';
import { cutPartitions, joinNeighbourLists, planPartitions } from '../parallel/partitions';
import { denseNeighboursInPartitions, denseNeighboursInWebAssembly } from './wasm';

/** Hash of integer cell coordinates into a table of size mask + 1 (Teschner et al. 2003 primes). */
export function hashCell(cx: number, cy: number, cz: number, mask: number): number {
  return (Math.imul(cx, 73856093) ^ Math.imul(cy, 19349663) ^ Math.imul(cz, 83492791)) & mask;
}

/**
 * Moves element i of `array` to place destination[i], for i in the window [from, to) that the sort moved
 * (`sortWindow`: every particle outside it keeps its place, so the window maps onto itself). The float64 arrays
 * (most of them) take their own copy of the loop, so its element accesses stay of one type (one loop over every
 * kind of array was the neighbour pass's slowest part); the copy back is the runtime's.
 */
function permute(
  array: PermutableArray,
  destination: Int32Array,
  scratch: Float64Array,
  from: number,
  to: number,
): void {
  if (array instanceof Float64Array) permuteFloat64(array, destination, scratch, from, to);
  else {
    for (let i = from; i < to; i++) scratch[destination[i]] = array[i];
    array.set(scratch.subarray(from, to), from);
  }
}

function permuteFloat64(
  array: Float64Array,
  destination: Int32Array,
  scratch: Float64Array,
  from: number,
  to: number,
): void {
  for (let i = from; i < to; i++) scratch[destination[i]] = array[i];
  array.set(scratch.subarray(from, to), from);
}

/**
 * The window of the last sort (`sortByBucket`): the first and one past the last particle whose place changed
 * ([0, 0) where none did). Water at rest keeps most particles in their cells from substep to substep, so the
 * arrays move only there.
 */
const sortWindow = new Int32Array(2);

function growNeighbours(s: SolverState, needed: number): void {
  let size = s.neighbours.length;
  while (size < needed) size *= 2;
  const shared = s.sharedMemory;
  const grown = shared ? new Int32Array(new SharedArrayBuffer(size * 4)) : new Int32Array(size);
  grown.set(s.neighbours);
  s.neighbours = grown;
  s.pairGradient = shared ? new Float64Array(new SharedArrayBuffer(size * 8)) : new Float64Array(size);
  s.pairWeight = shared ? new Float64Array(new SharedArrayBuffer(size * 8)) : new Float64Array(size);
}

function ensureNeighbourSpace(s: SolverState, total: number, extra: number): Int32Array {
  if (total + extra > s.neighbours.length) growNeighbours(s, total + extra);
  return s.neighbours;
}

/**
 * Counting sort of the particles by `cellHash` (the bucket key, < bucketCount), permuting every
 * per-particle array into bucket order.
 */
function sortByBucket(s: SolverState, n: number, bucketCount: number): Int32Array {
  const { bucketStart, bucketCursor, cellHash, sortDestination } = s;
  bucketStart.fill(0, 0, bucketCount + 1);
  for (let i = 0; i < n; i++) bucketStart[cellHash[i] + 1]++;
  for (let b = 1; b <= bucketCount; b++) bucketStart[b] += bucketStart[b - 1];
  bucketCursor.set(bucketStart.subarray(0, bucketCount));
  let from = n;
  let to = 0;
  for (let i = 0; i < n; i++) {
    const place = bucketCursor[cellHash[i]]++;
    sortDestination[i] = place;
    if (place !== i) {
      if (i < from) from = i;
      to = i + 1;
    }
  }
  if (to === 0) from = 0;
  sortWindow[0] = from;
  sortWindow[1] = to;
  const scratch = s.scratch;
  const arrays = s.sortedArrays;
  for (let a = 0; a < arrays.length; a++) permute(arrays[a], sortDestination, scratch, from, to);
  for (let i = 0; i < n; i++) s.placeOfEntity[s.entity[i]] = i;
  return sortDestination;
}

/**
 * Sorts particles by cell and builds the half neighbour lists. When the particles' bounding box spans
 * few enough cells (at most the hash table size), the cells are numbered densely in x-fastest order over
 * that box: the sort then keeps spatial neighbours close in memory and each particle scans only the 13
 * cells after its own plus its own cell (a neighbour pair is found once). Otherwise (particles spread
 * far apart) the cells are hashed into the table and all 27 cells are scanned.
 */
export function neighbourSystem(ctx: SimulationContext): void {
  const s = ctx.solver;
  const n = s.count;
  const inverseH = 1 / ctx.settings.kernelRadius;
  const { predictedX, predictedY, predictedZ, cellX, cellY, cellZ } = s;
  // New lists: the module's memory holds them only where the WebAssembly pass below writes them.
  ctx.cpuKernels.listsInMemory = false;
  let minX = 0x7fffffff;
  let minY = 0x7fffffff;
  let minZ = 0x7fffffff;
  let maxX = -0x7fffffff;
  let maxY = -0x7fffffff;
  let maxZ = -0x7fffffff;
  for (let i = 0; i < n; i++) {
    const cx = Math.floor(predictedX[i] * inverseH) | 0;
    const cy = Math.floor(predictedY[i] * inverseH) | 0;
    const cz = Math.floor(predictedZ[i] * inverseH) | 0;
    cellX[i] = cx;
    cellY[i] = cy;
    cellZ[i] = cz;
    if (cx < minX) minX = cx;
    if (cx > maxX) maxX = cx;
    if (cy < minY) minY = cy;
    if (cy > maxY) maxY = cy;
    if (cz < minZ) minZ = cz;
    if (cz > maxZ) maxZ = cz;
  }
  s.neighbourCount.fill(0, 0, n);
  if (n === 0) {
    s.neighbourStart[0] = 0;
    if (ctx.threads.partitioned) planPartitions(s);
    return;
  }
  // One empty cell of padding on every side keeps the neighbour cells of every particle inside the grid.
  const nx = maxX - minX + 3;
  const ny = maxY - minY + 3;
  const nz = maxZ - minZ + 3;
  if (nx * ny * nz > s.tableMask + 1) hashedNeighbours(ctx);
  else {
    sortDense(s, minX - 1, minY - 1, minZ - 1, nx, ny, nz);
    // The WebAssembly search with any thread count (the partitions' lists are the one-thread lists, entry for
    // entry, tests/threads.test.ts): on the threads where their module is there, else on this thread, which
    // outruns two in TypeScript.
    const cells = nx * ny * nz;
    if (denseNeighboursInPartitions(ctx, cells, growNeighbours)) {
      // It planned the partitions' spill rows too, from the spill ends the search found.
      ctx.stats.webAssembly = true;
      return;
    }
    if (denseNeighboursInWebAssembly(ctx, cells, growNeighbours)) ctx.stats.webAssembly = true;
    else if (ctx.threads.partitioned) denseNeighbours(ctx);
    else denseNeighboursOneThread(ctx);
  }
  // The partitions' spill rows, for the pair loops of several threads (one thread does not use them).
  if (ctx.threads.partitioned) planPartitions(s);
}

/**
 * Numbers the cells densely over the box of `nx` x `ny` x `nz` cells from the origin cell (x fastest), sorts
 * the particles by cell and sets `rowStarts`, the offsets of the five forward cell rows.
 */
function sortDense(
  s: SolverState,
  originX: number,
  originY: number,
  originZ: number,
  nx: number,
  ny: number,
  nz: number,
): void {
  const n = s.count;
  const nxy = nx * ny;
  const { cellHash } = s;
  for (let i = 0; i < n; i++) {
    cellHash[i] = (s.cellZ[i] - originZ) * nxy + (s.cellY[i] - originY) * nx + (s.cellX[i] - originX);
  }
  sortByBucket(s, n, nxy * nz);
  // Candidate ranges after cell c: c + 1; the three cells of row (y + 1, z); the 3 x 3 cells of z + 1.
  const rowStarts = s.rowStarts;
  rowStarts[0] = 1;
  rowStarts[1] = nx - 1;
  rowStarts[2] = nxy - nx - 1;
  rowStarts[3] = nxy - 1;
  rowStarts[4] = nxy + nx - 1;
}

/** Several threads: the half lists of the sorted particles (`sortDense`), partition by partition. */
function denseNeighbours(ctx: SimulationContext): void {
  const s = ctx.solver;
  setKernelParameters(ctx);
  const parameters = ctx.threads.kernelParameters;
  for (let r = 0; r < 5; r++) parameters[KernelParameter.rowStarts + r] = s.rowStarts[r];
  cutPartitions(s);
  // Each partition writes its lists from its own region of the array (parallel/kernels.ts, neighbourPairs);
  // a region too small for them makes the array twice as long and the search run again.
  for (;;) {
    runPartitioned(ctx, Kernel.neighbourPairs);
    let fits = true;
    for (let p = 0; p < PARTITION_COUNT; p++) if (s.partitionBounds[3 * PARTITION_COUNT + 1 + p] < 0) fits = false;
    if (fits) break;
    growNeighbours(s, 2 * s.neighbours.length);
  }
  joinNeighbourLists(s);
}

/** One thread: the half lists of the sorted particles (`sortDense`) in one pass, a cell's run at a time. */
function denseNeighboursOneThread(ctx: SimulationContext): void {
  const s = ctx.solver;
  const n = s.count;
  const h = ctx.settings.kernelRadius;
  const hSquared = h * h;
  const { cellHash, rowStarts } = s;
  const { predictedX, predictedY, predictedZ, neighbourStart, neighbourCount, bucketStart } = s;
  let total = 0;
  let runStart = 0;
  while (runStart < n) {
    const cell = cellHash[runStart];
    const runEnd = bucketStart[cell + 1];
    // Worst case for this run: every candidate of the 13 forward cells and the own cell.
    let candidateCount = runEnd - runStart;
    for (let r = 0; r < 5; r++) {
      const first = cell + rowStarts[r];
      candidateCount += bucketStart[first + (r === 0 ? 1 : 3)] - bucketStart[first];
    }
    const neighbours = ensureNeighbourSpace(s, total, (runEnd - runStart) * candidateCount);
    for (let i = runStart; i < runEnd; i++) {
      neighbourStart[i] = total;
      const xi = predictedX[i];
      const yi = predictedY[i];
      const zi = predictedZ[i];
      let count = 0;
      for (let r = -1; r < 5; r++) {
        let from: number;
        let to: number;
        if (r < 0) {
          from = i + 1;
          to = runEnd;
        } else {
          const first = cell + rowStarts[r];
          from = bucketStart[first];
          to = bucketStart[first + (r === 0 ? 1 : 3)];
        }
        for (let j = from; j < to; j++) {
          const rx = xi - predictedX[j];
          const ry = yi - predictedY[j];
          const rz = zi - predictedZ[j];
          if (rx * rx + ry * ry + rz * rz < hSquared) {
            neighbours[total++] = j;
            neighbourCount[j]++;
            count++;
          }
        }
      }
      neighbourCount[i] += count;
    }
    runStart = runEnd;
  }
  neighbourStart[n] = total;
}

function hashedNeighbours(ctx: SimulationContext): void {
  const s = ctx.solver;
  const n = s.count;
  const h = ctx.settings.kernelRadius;
  const hSquared = h * h;
  const mask = s.tableMask;
  const { cellHash } = s;
  for (let i = 0; i < n; i++) cellHash[i] = hashCell(s.cellX[i], s.cellY[i], s.cellZ[i], mask);
  const destination = sortByBucket(s, n, mask + 1);
  // This mode compares cell coordinates, so they follow the sort too.
  const from = sortWindow[0];
  const to = sortWindow[1];
  permute(s.cellX, destination, s.scratch, from, to);
  permute(s.cellY, destination, s.scratch, from, to);
  permute(s.cellZ, destination, s.scratch, from, to);
  const { cellX, cellY, cellZ, predictedX, predictedY, predictedZ, neighbourStart, neighbourCount, bucketStart } = s;
  let total = 0;
  let runStart = 0;
  while (runStart < n) {
    const cx = cellX[runStart];
    const cy = cellY[runStart];
    const cz = cellZ[runStart];
    let runEnd = runStart + 1;
    while (runEnd < n && cellX[runEnd] === cx && cellY[runEnd] === cy && cellZ[runEnd] === cz) runEnd++;
    // Candidates: particles of the 27 cells around this one (exact cell match skips hash collisions).
    let candidateCount = 0;
    for (let dz = -1; dz <= 1; dz++) {
      for (let dy = -1; dy <= 1; dy++) {
        for (let dx = -1; dx <= 1; dx++) {
          const ox = cx + dx;
          const oy = cy + dy;
          const oz = cz + dz;
          const bucket = hashCell(ox, oy, oz, mask);
          const end = bucketStart[bucket + 1];
          for (let j = bucketStart[bucket]; j < end; j++) {
            if (cellX[j] !== ox || cellY[j] !== oy || cellZ[j] !== oz) continue;
            if (candidateCount === s.candidates.length) {
              const grown = new Int32Array(s.candidates.length * 2);
              grown.set(s.candidates);
              s.candidates = grown;
            }
            s.candidates[candidateCount++] = j;
          }
        }
      }
    }
    const candidates = s.candidates;
    const neighbours = ensureNeighbourSpace(s, total, (runEnd - runStart) * candidateCount);
    for (let i = runStart; i < runEnd; i++) {
      neighbourStart[i] = total;
      const xi = predictedX[i];
      const yi = predictedY[i];
      const zi = predictedZ[i];
      for (let c = 0; c < candidateCount; c++) {
        const j = candidates[c];
        if (j <= i) continue;
        const rx = xi - predictedX[j];
        const ry = yi - predictedY[j];
        const rz = zi - predictedZ[j];
        if (rx * rx + ry * ry + rz * rz < hSquared) {
          neighbours[total++] = j;
          neighbourCount[i]++;
          neighbourCount[j]++;
        }
      }
    }
    runStart = runEnd;
  }
  neighbourStart[n] = total;
}
