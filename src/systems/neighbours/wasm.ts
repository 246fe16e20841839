/**
 * The half neighbour lists of the dense grid in WebAssembly (neighbours.wat, in the CPU module of wasm/state.ts),
 * with any thread count: the candidates of denseNeighboursOneThread (neighbours/cpu.ts) in the same order with
 * the same float64 distance test, so the lists and counts are the TypeScript loop's (and the partitions'),
 * entry for entry (tests/wasm.test.ts). The pass copies
 * the predicted positions, the cell keys and the bucket starts in, and the starts, counts and lists out; the
 * lists stay in the memory for the pair loops of the substep (`CpuKernels.listsInMemory`). With threads,
 * `denseNeighboursInPartitions` searches partition by partition on the threads instead (parallel/kernels.wat),
 * and joins the partitions' lists into the same lists.
 */
import type { SimulationContext, SolverState } from '../context';
import { PARTITION_COUNT } from '../parallel/kernels';
import { cutPartitions, planPartitions } from '../parallel/partitions';
import { layOutPartitions, runPartitionedWebAssembly } from '../parallel/wasm';
import { copyFromMemory, copyIntoMemory, layOutMemory, WasmKernel } from '../wasm/state';

/** Copies the search's inputs in: the predicted positions, the cell keys and the `cells` cells' bucket starts. */
function copySearchInputs(ctx: SimulationContext, memory: WebAssembly.Memory, cells: number): void {
  const s = ctx.solver;
  const n = s.count;
  const at = ctx.cpuKernels.at;
  const kernels = ctx.cpuKernels;
  copyIntoMemory(kernels, memory, 'predictedX', s.predictedX, n);
  copyIntoMemory(kernels, memory, 'predictedY', s.predictedY, n);
  copyIntoMemory(kernels, memory, 'predictedZ', s.predictedZ, n);
  copyIntoMemory(kernels, memory, 'cellHash', s.cellHash, n);
  new Int32Array(memory.buffer, at('bucketStart'), cells + 1).set(s.bucketStart.subarray(0, cells + 1));
}

/** Copies the `total` entries of lists, their starts and the counts out; the lists stay in the memory too. */
function copyListsOut(ctx: SimulationContext, memory: WebAssembly.Memory, total: number): void {
  const s = ctx.solver;
  const n = s.count;
  const at = ctx.cpuKernels.at;
  s.neighbourStart.set(new Int32Array(memory.buffer, at('neighbourStart'), n + 1));
  copyFromMemory(ctx.cpuKernels, memory, 'neighbourCount', s.neighbourCount, n);
  s.neighbours.set(new Int32Array(memory.buffer, at('neighbours'), total));
  ctx.cpuKernels.listsInMemory = true;
}

/**
 * Runs denseNeighboursOneThread's work in WebAssembly over `cells` dense cells (sortDense ran); false where
 * the module is not there or its memory cannot hold the lists (the caller runs the TypeScript loop).
 * `grow(s, needed)` is the TypeScript loop's growth of the list arrays.
 *
 * The memory gives the lists `CpuKernels.listCapacity` entries, at most the arrays' length. Where a cell's
 * worst case (every candidate within h) passes that room, the kernel stops and returns the entries it needs:
 * past the arrays' length the arrays grow as the TypeScript's would at that very cell (any earlier cell that
 * passed the length passed the room too, and stopped the kernel there); the room grows, and it searches again.
 */
export function denseNeighboursInWebAssembly(
  ctx: SimulationContext,
  cells: number,
  grow: (s: SolverState, needed: number) => void,
): boolean {
  const kernels = ctx.cpuKernels;
  const wasm = kernels.exports;
  if (!wasm) return false;
  const s = ctx.solver;
  const n = s.count;
  const memory = wasm.memory;
  const materials = ctx.materials.inverseRestDensity.length;
  const h = ctx.settings.kernelRadius;
  const rows = s.rowStarts;
  // A first guess: 32 entries a particle (a particle at rest has about 15 in its half list).
  if (kernels.listCapacity === 0) kernels.listCapacity = 32 * n + 1024;
  for (;;) {
    const capacity = Math.min(kernels.listCapacity, s.neighbours.length);
    if (!layOutMemory(kernels, memory, { n, pairs: 0, materials, listCapacity: capacity, cells })) {
      // A search stopped for room may have counted into the counts, which live in the memory where the solver's
      // arrays do: the TypeScript search counts from zero.
      s.neighbourCount.fill(0, 0, n);
      return false;
    }
    const at = kernels.at;
    copySearchInputs(ctx, memory, cells);
    const total = wasm.denseNeighbours(
      n,
      at('predictedX'),
      at('predictedY'),
      at('predictedZ'),
      at('cellHash'),
      at('bucketStart'),
      at('neighbourStart'),
      at('neighbourCount'),
      at('neighbours'),
      capacity,
      rows[0],
      rows[1],
      rows[2],
      rows[3],
      rows[4],
      h * h,
    );
    if (total < 0) {
      // Rare (the room only grows): grow the arrays where the TypeScript would, and the room; search again.
      const needed = -total;
      if (needed > s.neighbours.length) grow(s, needed);
      kernels.listCapacity = Math.max(2 * kernels.listCapacity, needed);
      continue;
    }
    copyListsOut(ctx, memory, total);
    return true;
  }
}

/**
 * The threads' search: `partitionNeighbours` (parallel/kernels.wat, the partitions' neighbourPairs of
 * kernels.ts) over every partition on the threads, each into its region of the memory's lists, then
 * `joinPartitionLists` on this thread: the lists, starts and counts of the one-thread search, entry for entry.
 * False where the threads' module is not there (the caller searches on one thread). The regions share the room
 * `CpuKernels.listCapacity`; where one is too small for its particles' worst case, the room doubles and the
 * threads search again. `grow(s, needed)` grows the solver's list arrays where they are too short for the pairs.
 * It then plans the partitions' spill rows (`planPartitions`) from the spill ends the search found.
 */
export function denseNeighboursInPartitions(
  ctx: SimulationContext,
  cells: number,
  grow: (s: SolverState, needed: number) => void,
): boolean {
  const kernels = ctx.cpuKernels;
  const shared = kernels.shared;
  if (!shared || !ctx.threads.partitioned) return false;
  const s = ctx.solver;
  const n = s.count;
  const memory = shared.memory;
  const materials = ctx.materials.inverseRestDensity.length;
  const h = ctx.settings.kernelRadius;
  const rows = s.rowStarts;
  cutPartitions(s);
  if (kernels.listCapacity === 0) kernels.listCapacity = 32 * n + 1024;
  for (;;) {
    const room = Math.ceil(kernels.listCapacity / PARTITION_COUNT);
    // The search uses no spill rows (the pair loops lay them out for the plan made after it).
    const sizes = { n, pairs: 0, materials, listCapacity: room * PARTITION_COUNT, cells, spillRows: 0 };
    if (!layOutPartitions(ctx, sizes)) return false;
    const at = kernels.at;
    copySearchInputs(ctx, memory, cells);
    runPartitionedWebAssembly(ctx, WasmKernel.neighbours, [
      at('partitionBounds'),
      at('predictedX'),
      at('predictedY'),
      at('predictedZ'),
      at('cellHash'),
      at('bucketStart'),
      at('neighbourStart'),
      at('neighbours'),
      room,
      rows[0],
      rows[1],
      rows[2],
      rows[3],
      rows[4],
      h * h,
    ]);
    // Each region's end, or -1 where its particles' worst case did not fit (the table's fourth part).
    const ends = new Int32Array(memory.buffer, at('partitionBounds') + (3 * PARTITION_COUNT + 1) * 4, PARTITION_COUNT);
    if (ends.some((end) => end < 0)) {
      kernels.listCapacity *= 2;
      continue;
    }
    const total = shared.joinLists(
      n,
      at('partitionBounds'),
      at('neighbourStart'),
      at('neighbourCount'),
      at('neighbours'),
      room,
    );
    if (total > s.neighbours.length) grow(s, total);
    copyListsOut(ctx, memory, total);
    // The spill rows from the spill ends each partition's search found (the table's second part).
    planPartitions(
      s,
      new Int32Array(memory.buffer, at('partitionBounds') + (PARTITION_COUNT + 1) * 4, PARTITION_COUNT),
    );
    return true;
  }
}
