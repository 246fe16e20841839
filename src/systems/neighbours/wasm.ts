/**
 * The half neighbour lists on one thread in WebAssembly (neighbours.wat, in the CPU module of wasm/state.ts): the
 * candidates of denseNeighboursOneThread (neighbours/cpu.ts) in the same order with the same float64 distance
 * test, so the lists and counts are the TypeScript loop's, entry for entry (tests/wasm.test.ts). The pass copies
 * the predicted positions, the cell keys and the bucket starts in, and the starts, counts and lists out; the
 * lists stay in the memory for the pair loops of the substep (`CpuKernels.listsInMemory`).
 */
import type { SimulationContext, SolverState } from '../context';
import { float64In, layOutMemory } from '../wasm/state';

/**
 * Runs denseNeighboursOneThread's work in WebAssembly over `cells` dense cells (sortDense ran); false where
 * the module is not there or its memory cannot hold the lists (the caller runs the TypeScript loop).
 * `grow(s, needed)` is the TypeScript loop's growth of the list arrays, taken where a run's worst case
 * passes their length, as the TypeScript does.
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
  for (;;) {
    const capacity = s.neighbours.length;
    if (!layOutMemory(kernels, memory, n, capacity, materials, cells)) return false;
    const at = kernels.at;
    float64In(memory, at('predictedX'), n).set(s.predictedX.subarray(0, n));
    float64In(memory, at('predictedY'), n).set(s.predictedY.subarray(0, n));
    float64In(memory, at('predictedZ'), n).set(s.predictedZ.subarray(0, n));
    new Uint32Array(memory.buffer, at('cellHash'), n).set(s.cellHash.subarray(0, n));
    new Int32Array(memory.buffer, at('bucketStart'), cells + 1).set(s.bucketStart.subarray(0, cells + 1));
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
      // A run's worst case passes the arrays: grow them as the TypeScript would, lay out again and search again
      // (rare: the arrays only grow).
      grow(s, -total);
      continue;
    }
    s.neighbourStart.set(new Int32Array(memory.buffer, at('neighbourStart'), n + 1));
    s.neighbourCount.set(new Int32Array(memory.buffer, at('neighbourCount'), n));
    s.neighbours.set(new Int32Array(memory.buffer, at('neighbours'), total));
    kernels.listsInMemory = true;
    return true;
  }
}
