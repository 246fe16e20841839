/**
 * The XSPH viscosity and vorticity confinement pair loops on one thread in WebAssembly (velocity.wat, in the CPU
 * module of wasm/state.ts): the float64 operations of viscosityVorticityOneThread's two pair loops (velocity/
 * cpu.ts) in the same order, so the results are bit-identical (tests/wasm.test.ts). Each copies what it reads
 * into the module's memory and what it sums back out; the confinement reads the positions, volumes and lists
 * the first loop copied in. With threads, `viscosityPartitionsInWebAssembly` and
 * `vorticityPartitionsInWebAssembly` run the partition kernels of parallel/kernels.wat instead, with the
 * results of the TypeScript partitions (parallel/wasm.ts).
 */

import { poly6Coefficient, spikyGradientCoefficient } from '../../core/kernels';
import type { SimulationContext } from '../context';
import { layOutPartitions, runPartitionedWebAssembly } from '../parallel/wasm';
import {
  copyFromMemory,
  copyIntoMemory,
  copyNeighbourLists,
  float64In,
  layOutMemory,
  offsetsOf,
  WasmKernel,
} from '../wasm/state';

/** What the first pair loop reads from the solver, and the sums it writes (zero when it starts). */
const XSPH_READS = ['predictedX', 'predictedY', 'predictedZ', 'velocityX', 'velocityY', 'velocityZ', 'volume'] as const;
const XSPH_SUMS = ['vorticityX', 'vorticityY', 'vorticityZ', 'deltaX', 'deltaY', 'deltaZ'] as const;
/** The confinement's sums in the memory, per axis. */
const ETA = ['etaX', 'etaY', 'etaZ'] as const;

/** Both XSPH kernels' arguments after their first (the particle count, or the partition table and spill). */
function xsphArguments(ctx: SimulationContext): number[] {
  const h = ctx.settings.kernelRadius;
  return [
    ...offsetsOf(ctx.cpuKernels, [...XSPH_READS, ...XSPH_SUMS, 'neighbourStart', 'neighbours', 'pairGradient']),
    h,
    h * h,
    poly6Coefficient(h),
    spikyGradientCoefficient(h),
  ];
}

/** Both confinement kernels' arguments after their first, likewise. */
function confinementArguments(ctx: SimulationContext): number[] {
  const names = ['predictedX', 'predictedY', 'predictedZ', 'magnitude', 'volume', ...ETA];
  const h = ctx.settings.kernelRadius;
  return [...offsetsOf(ctx.cpuKernels, [...names, 'neighbourStart', 'neighbours', 'pairGradient']), h * h];
}

/**
 * Lays the memory out (with the partitions' spill rows when `partitions`) and copies the first loop's inputs
 * in; false where the module is not there or the memory cannot grow.
 */
function copyXsphInputs(ctx: SimulationContext, partitions: boolean): boolean {
  const kernels = ctx.cpuKernels;
  const wasm = kernels.exports;
  if (!wasm) return false;
  const s = ctx.solver;
  const n = s.count;
  const memory = wasm.memory;
  const sizes = { n, pairs: s.neighbourStart[n], materials: ctx.materials.inverseRestDensity.length };
  if (!(partitions ? layOutPartitions(ctx, sizes) : layOutMemory(kernels, memory, sizes))) return false;
  for (const name of XSPH_READS) copyIntoMemory(kernels, memory, name, s[name], n);
  copyNeighbourLists(kernels, memory, s.neighbourStart, s.neighbours, n);
  return true;
}

/** Copies the first loop's sums out of the memory into the solver's vorticity and delta arrays. */
function copyXsphSums(ctx: SimulationContext, memory: WebAssembly.Memory): void {
  const s = ctx.solver;
  for (const name of XSPH_SUMS) copyFromMemory(ctx.cpuKernels, memory, name, s[name], s.count);
}

/**
 * The first pair loop (omega_i, eq. 15, and the XSPH sums, eq. 17, from the same velocities) into the solver's
 * vorticity and delta arrays, from its predicted positions, velocities, volumes and half lists; false where the
 * module is not there (the caller runs the TypeScript loop).
 */
export function xsphVorticityInWebAssembly(ctx: SimulationContext): boolean {
  const kernels = ctx.cpuKernels;
  const wasm = kernels.exports;
  if (!wasm || !copyXsphInputs(ctx, false)) return false;
  const memory = wasm.memory;
  const at = kernels.at;
  const n = ctx.solver.count;
  for (const name of XSPH_SUMS) float64In(memory, at(name), n).fill(0);
  wasm.xsphVorticity(n, ...xsphArguments(ctx));
  copyXsphSums(ctx, memory);
  return true;
}

/**
 * The threads' first pair loop in WebAssembly: viscosityPairs and viscosityFinish's sums (parallel/kernels.ts)
 * into the solver's vorticity and delta arrays (the TypeScript viscosityFinish then applies them, told by
 * `KernelParameter.spillsAdded`); false where the threads' module is not there.
 */
export function viscosityPartitionsInWebAssembly(ctx: SimulationContext): boolean {
  const kernels = ctx.cpuKernels;
  const shared = kernels.shared;
  if (!shared || !copyXsphInputs(ctx, true)) return false;
  const at = kernels.at;
  const [bounds, spill] = [at('partitionBounds'), at('spill')];
  runPartitionedWebAssembly(ctx, WasmKernel.viscosityPairs, [bounds, spill, ...xsphArguments(ctx)]);
  // The spill row's six values go to deltaX, Y, Z, vorticityX, Y, Z, which follow each other.
  runPartitionedWebAssembly(ctx, WasmKernel.addSpills, [bounds, spill, 6, at('deltaX'), at('deltaY') - at('deltaX')]);
  copyXsphSums(ctx, shared.memory);
  return true;
}

/**
 * The threads' second pair loop in WebAssembly, right after {@link viscosityPartitionsInWebAssembly}:
 * vorticityPairs and vorticityFinish's sums into the solver's gradient arrays (eta), from |omega| in its
 * `lambda` array (as the TypeScript partitions keep them).
 */
export function vorticityPartitionsInWebAssembly(ctx: SimulationContext): void {
  const kernels = ctx.cpuKernels;
  const shared = kernels.shared;
  if (!shared) throw new Error('vorticityPartitionsInWebAssembly without the shared module');
  const s = ctx.solver;
  const n = s.count;
  const memory = shared.memory;
  const at = kernels.at;
  float64In(memory, at('magnitude'), n).set(s.lambda.subarray(0, n));
  const [bounds, spill] = [at('partitionBounds'), at('spill')];
  runPartitionedWebAssembly(ctx, WasmKernel.vorticityPairs, [bounds, spill, ...confinementArguments(ctx)]);
  runPartitionedWebAssembly(ctx, WasmKernel.addSpills, [bounds, spill, 3, at('etaX'), at('etaY') - at('etaX')]);
  s.gradientX.set(float64In(memory, at('etaX'), n));
  s.gradientY.set(float64In(memory, at('etaY'), n));
  s.gradientZ.set(float64In(memory, at('etaZ'), n));
}

/**
 * The second pair loop (eta of vorticity confinement, eq. 16) into `etaX`, `etaY` and `etaZ`, from
 * `magnitude` (|omega| per particle); only right after {@link xsphVorticityInWebAssembly} in the same substep, whose positions,
 * volumes, lists and per-pair kernel factors it reads from the memory.
 */
export function confinementInWebAssembly(
  ctx: SimulationContext,
  magnitude: Float64Array,
  etaX: Float64Array,
  etaY: Float64Array,
  etaZ: Float64Array,
): void {
  const wasm = ctx.cpuKernels.exports;
  if (!wasm) throw new Error('confinementInWebAssembly without the module');
  const n = ctx.solver.count;
  const memory = wasm.memory;
  const at = ctx.cpuKernels.at;
  float64In(memory, at('magnitude'), n).set(magnitude.subarray(0, n));
  for (const name of ETA) float64In(memory, at(name), n).fill(0);
  wasm.confinement(n, ...confinementArguments(ctx));
  etaX.set(float64In(memory, at('etaX'), n));
  etaY.set(float64In(memory, at('etaY'), n));
  etaZ.set(float64In(memory, at('etaZ'), n));
}
