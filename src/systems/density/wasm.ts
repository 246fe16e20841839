/**
 * The density passes on one thread in WebAssembly (density.wat, in the CPU module of wasm/state.ts):
 * `lambda` and `corrections` do the float64 operations of lambdaOneThread and correctionsOneThread
 * (density/cpu.ts) in the same order, so a step gives the same results bit for bit whichever runs
 * (tests/wasm.test.ts); the lambda pass measured 1.6 to 1.9 times as fast (docs/performance.md, "WebAssembly"). Each pass copies
 * what it reads into the module's memory and what it writes back out to the solver's arrays; the kernel caches
 * per pair stay in the memory between lambda and the corrections that follow it (copied out only when the
 * TypeScript corrections run instead). With threads, `lambdaPartitionsInWebAssembly` and
 * `correctionPartitionsInWebAssembly` run the partition kernels of parallel/kernels.wat instead, with the
 * results of the TypeScript partitions (parallel/wasm.ts).
 */
import { COINCIDENT_OFFSET, poly6Coefficient, spikyGradientCoefficient } from '../../core/kernels';
import type { SimulationContext, SolverState } from '../context';
import { selfWeight } from '../context';
import { layOutPartitions, runPartitionedWebAssembly } from '../parallel/wasm';
import {
  copyFromMemory,
  copyIntoMemory,
  copyNeighbourLists,
  float64In,
  layOutMemory,
  offsetsOf,
  uniformParticles,
  WasmKernel,
} from '../wasm/state';

/** Float64 arrays of the solver, by name. */
type Float64Name = {
  [K in keyof SolverState]: SolverState[K] extends Float64Array ? K : never;
}[keyof SolverState];

/** What lambda reads from the solver, and what it writes (besides the per-pair caches). */
const LAMBDA_READS: readonly Float64Name[] = [
  'predictedX',
  'predictedY',
  'predictedZ',
  'mass',
  'wallWeight',
  'wallGradientX',
  'wallGradientY',
  'wallGradientZ',
];
const LAMBDA_WRITES: readonly Float64Name[] = [
  'density',
  'gradientX',
  'gradientY',
  'gradientZ',
  'gradientSquares',
  'constraint',
  'lambda',
];

/** Lambda's per-particle arrays in the memory that both its kernels take first, in their order. */
const LAMBDA_PARTICLE_ARRAYS = [
  'predictedX',
  'predictedY',
  'predictedZ',
  'mass',
  'material',
  'wallWeight',
  'wallGradientX',
  'wallGradientY',
  'wallGradientZ',
  'density',
  'gradientX',
  'gradientY',
  'gradientZ',
  'gradientSquares',
];
/** Then the lists, the per-pair caches and the inverse rest densities. */
const LAMBDA_PAIR_ARRAYS = ['neighbourStart', 'neighbours', 'pairGradient', 'pairWeight', 'inverseRestDensity'];

/** Lambda's numbers, last in both kernels' arguments: h, h², the kernels' coefficients, and `uniform`. */
function lambdaScalars(ctx: SimulationContext): number[] {
  const h = ctx.settings.kernelRadius;
  const s = ctx.solver;
  return [
    h,
    h * h,
    poly6Coefficient(h),
    spikyGradientCoefficient(h),
    selfWeight(h),
    COINCIDENT_OFFSET * h,
    uniformParticles(s.mass, s.material, s.count),
  ];
}

/**
 * Lays the memory out (with the partitions' spill rows when `partitions`) and copies lambda's inputs in; false
 * where the module is not there or the memory cannot grow.
 */
function copyLambdaInputs(ctx: SimulationContext, partitions: boolean): boolean {
  const kernels = ctx.cpuKernels;
  const wasm = kernels.exports;
  if (!wasm) return false;
  const s = ctx.solver;
  const n = s.count;
  const m = ctx.materials;
  const materials = m.inverseRestDensity.length;
  const memory = wasm.memory;
  const sizes = { n, pairs: s.neighbourStart[n], materials };
  if (!(partitions ? layOutPartitions(ctx, sizes) : layOutMemory(kernels, memory, sizes))) return false;
  const at = kernels.at;
  for (const name of LAMBDA_READS) copyIntoMemory(kernels, memory, name, s[name], n);
  copyIntoMemory(kernels, memory, 'material', s.material, n);
  copyNeighbourLists(kernels, memory, s.neighbourStart, s.neighbours, n);
  float64In(memory, at('inverseRestDensity'), materials).set(m.inverseRestDensity);
  float64In(memory, at('relaxation'), materials).set(m.relaxation);
  return true;
}

/** Copies lambda's results out of the memory; the per-pair caches stay there for the corrections. */
function copyLambdaResults(ctx: SimulationContext, memory: WebAssembly.Memory): void {
  const s = ctx.solver;
  for (const name of LAMBDA_WRITES) copyFromMemory(ctx.cpuKernels, memory, name, s[name], s.count);
  ctx.cpuKernels.lambdaInMemory = true;
}

/**
 * Runs lambdaOneThread's work in WebAssembly; false where the kernels are not there (the caller runs the
 * TypeScript pass).
 */
export function lambdaInWebAssembly(ctx: SimulationContext): boolean {
  const kernels = ctx.cpuKernels;
  kernels.lambdaInMemory = false;
  const wasm = kernels.exports;
  if (!wasm || !copyLambdaInputs(ctx, false)) return false;
  wasm.lambda(
    ctx.solver.count,
    ...offsetsOf(kernels, [...LAMBDA_PARTICLE_ARRAYS, 'constraint', 'lambda', ...LAMBDA_PAIR_ARRAYS, 'relaxation']),
    ...lambdaScalars(ctx),
  );
  copyLambdaResults(ctx, wasm.memory);
  return true;
}

/**
 * Runs the threads' lambda partitions (lambdaPairs, then lambdaFinish of parallel/kernels.ts) in WebAssembly;
 * false where the threads' module is not there (the caller runs the TypeScript partitions).
 */
export function lambdaPartitionsInWebAssembly(ctx: SimulationContext): boolean {
  const kernels = ctx.cpuKernels;
  kernels.lambdaInMemory = false;
  const wasm = kernels.exports;
  if (!wasm || !copyLambdaInputs(ctx, true)) return false;
  const at = kernels.at;
  const [bounds, spill] = [at('partitionBounds'), at('spill')];
  runPartitionedWebAssembly(ctx, WasmKernel.lambdaPairs, [
    bounds,
    spill,
    ...offsetsOf(kernels, [...LAMBDA_PARTICLE_ARRAYS, ...LAMBDA_PAIR_ARRAYS]),
    ...lambdaScalars(ctx),
  ]);
  // density, gradientX, Y, Z and gradientSquares follow each other, `arrayBytes` apart.
  const arrayBytes = at('gradientX') - at('density');
  runPartitionedWebAssembly(ctx, WasmKernel.lambdaFinish, [
    bounds,
    spill,
    at('density'),
    arrayBytes,
    at('material'),
    at('constraint'),
    at('lambda'),
    at('inverseRestDensity'),
    at('relaxation'),
  ]);
  copyLambdaResults(ctx, wasm.memory);
  return true;
}

/**
 * Whether the corrections may run in WebAssembly: right after a lambda pass there, for one material whose
 * artificial pressure exponent is 4 (the TypeScript's fast path for every pair). Where not, it copies the
 * per-pair caches lambda left in the memory back to the solver for the TypeScript pass.
 */
function correctionsFollowLambda(ctx: SimulationContext): boolean {
  const kernels = ctx.cpuKernels;
  const wasm = kernels.exports;
  if (!wasm || !kernels.lambdaInMemory) return false;
  kernels.lambdaInMemory = false;
  const s = ctx.solver;
  const m = ctx.materials;
  if (m.count === 1 && m.artificialPressureExponent[0] === 4) return true;
  const pairs = s.neighbourStart[s.count];
  s.pairGradient.set(float64In(wasm.memory, kernels.at('pairGradient'), pairs));
  s.pairWeight.set(float64In(wasm.memory, kernels.at('pairWeight'), pairs));
  return false;
}

/**
 * Copies the corrections' inputs that lambda did not leave in the memory (projectionSolved) in; returns both
 * corrections kernels' arguments after their first (the particle count, or the partition table and spill).
 */
function correctionArguments(ctx: SimulationContext, memory: WebAssembly.Memory): number[] {
  const s = ctx.solver;
  const m = ctx.materials;
  copyIntoMemory(ctx.cpuKernels, memory, 'projectionSolved', s.projectionSolved, s.count);
  return [
    ...offsetsOf(ctx.cpuKernels, [
      'predictedX',
      'predictedY',
      'predictedZ',
      'mass',
      'material',
      'wallGradientX',
      'wallGradientY',
      'wallGradientZ',
      'lambda',
      'projectionSolved',
      'deltaX',
      'deltaY',
      'deltaZ',
      'neighbourStart',
      'neighbours',
      'pairGradient',
      'pairWeight',
      'inverseRestDensity',
    ]),
    m.artificialPressureScale[0],
    m.inverseArtificialPressureWeight[0],
    m.artificialPressureRestPower[0],
    COINCIDENT_OFFSET * ctx.settings.kernelRadius,
  ];
}

/** Copies the corrections out of the memory into the solver's delta arrays. */
function copyCorrections(ctx: SimulationContext, memory: WebAssembly.Memory): void {
  const s = ctx.solver;
  copyFromMemory(ctx.cpuKernels, memory, 'deltaX', s.deltaX, s.count);
  copyFromMemory(ctx.cpuKernels, memory, 'deltaY', s.deltaY, s.count);
  copyFromMemory(ctx.cpuKernels, memory, 'deltaZ', s.deltaZ, s.count);
}

/**
 * Runs correctionsOneThread's work in WebAssembly, right after `lambdaInWebAssembly` and for one material
 * whose artificial pressure exponent is 4 (the TypeScript's fast path for every pair); false elsewhere, after
 * copying the per-pair caches lambda left in the memory back to the solver for the TypeScript pass.
 */
export function correctionsInWebAssembly(ctx: SimulationContext): boolean {
  const wasm = ctx.cpuKernels.exports;
  if (!wasm || !correctionsFollowLambda(ctx)) return false;
  const memory = wasm.memory;
  wasm.corrections(ctx.solver.count, ...correctionArguments(ctx, memory));
  copyCorrections(ctx, memory);
  return true;
}

/**
 * Runs the threads' correction partitions (correctionPairs, then correctionFinish's sums) in WebAssembly,
 * right after `lambdaPartitionsInWebAssembly`, for one material whose exponent is 4; false elsewhere (after
 * copying the per-pair caches out, as `correctionsInWebAssembly` does).
 */
export function correctionPartitionsInWebAssembly(ctx: SimulationContext): boolean {
  const kernels = ctx.cpuKernels;
  const shared = kernels.shared;
  if (!shared || !correctionsFollowLambda(ctx)) return false;
  const memory = shared.memory;
  const at = kernels.at;
  const [bounds, spill] = [at('partitionBounds'), at('spill')];
  runPartitionedWebAssembly(ctx, WasmKernel.correctionPairs, [bounds, spill, ...correctionArguments(ctx, memory)]);
  runPartitionedWebAssembly(ctx, WasmKernel.addSpills, [bounds, spill, 3, at('deltaX'), at('deltaY') - at('deltaX')]);
  copyCorrections(ctx, memory);
  return true;
}
