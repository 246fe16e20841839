/**
 * The threads' pair loops in WebAssembly (docs/ARCHITECTURE.md, "Threads"): the partition kernels of
 * kernels.wat, in the shared module of wasm/state.ts, run by the pool (pool.ts) on the stepping thread and on
 * the workers, whose instances share the module's memory. A pass (density/wasm.ts, velocity/wasm.ts,
 * neighbours/wasm.ts, projection/wasm.ts) lays the memory out with room for the partitions' spill rows, copies
 * its inputs in, runs its kernels over the partitions and copies the sums out, as on one thread; the results
 * are those of the TypeScript partitions (kernels.ts) bit for bit, and for the search and the projection's
 * transfers those of the one-thread loops. The container box's collision passes (collide/wasm.ts) copy nothing
 * and bring their own partition starts; their results are the one-thread loops' too.
 */
import type { SimulationContext } from '../context';
import { layOutMemory, type MemorySizes } from '../wasm/state';
import { type KernelSolverArrays, PARTITION_COUNT } from './kernels';

/** The spill rows of the present partition plan (`planPartitions`). */
function spillRows(bounds: Int32Array): number {
  const last = PARTITION_COUNT - 1;
  // Before the neighbour search the table holds the last plan's rows for the new cut: at least none.
  return Math.max(0, bounds[2 * PARTITION_COUNT + 1 + last] + bounds[PARTITION_COUNT + 1 + last] - bounds[last]);
}

/**
 * Lays the memory out for `sizes` and the partitions' spill rows (the present plan's, unless `sizes` names
 * them) and copies the partition table in; false where
 * the threads' module is not there (one thread, shared memory missing, not compiled yet) or the memory cannot
 * grow that far (the caller then runs its other form: the TypeScript partitions, or the projection's one-thread
 * kernels).
 */
export function layOutPartitions(ctx: SimulationContext, sizes: MemorySizes): boolean {
  const kernels = ctx.cpuKernels;
  const shared = kernels.shared;
  if (!shared || !ctx.threads.partitioned) return false;
  const bounds = ctx.solver.partitionBounds;
  if (!layOutMemory(kernels, shared.memory, { ...sizes, spillRows: sizes.spillRows ?? spillRows(bounds) }))
    return false;
  new Int32Array(shared.memory.buffer, kernels.at('partitionBounds'), bounds.length).set(bounds);
  return true;
}

/** Runs the partition kernel `kernel` (a `WasmKernel` index) with the arguments `values` over every partition. */
export function runPartitionedWebAssembly(ctx: SimulationContext, kernel: number, values: readonly number[]): void {
  const shared = ctx.cpuKernels.shared;
  if (!shared) throw new Error('runPartitionedWebAssembly without the shared module');
  const solver = ctx.solver as unknown as KernelSolverArrays;
  ctx.threads.runWebAssembly(kernel, shared.partitions[kernel], values, shared, solver, ctx.solver.count);
}
