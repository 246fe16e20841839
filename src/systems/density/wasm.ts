/**
 * The density passes on one thread in WebAssembly (density.wat, in the CPU module of wasm/state.ts):
 * `lambda` and `corrections` do the float64 operations of lambdaOneThread and correctionsOneThread
 * (density/cpu.ts) in the same order, so a step gives the same results bit for bit whichever runs
 * (tests/wasm.test.ts); the lambda pass measured 1.6 to 1.9 times as fast (docs/performance.md, "WebAssembly"). Each pass copies
 * what it reads into the module's memory and what it writes back out to the solver's arrays; the kernel caches
 * per pair stay in the memory between lambda and the corrections that follow it (copied out only when the
 * TypeScript corrections run instead).
 */
import { COINCIDENT_OFFSET, poly6Coefficient, spikyGradientCoefficient } from '../../core/kernels';
import type { SimulationContext, SolverState } from '../context';
import { selfWeight } from '../context';
import { copyNeighbourLists, float64In, layOutMemory } from '../wasm/state';

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

/**
 * Runs lambdaOneThread's work in WebAssembly; false where the kernels are not there (the caller runs the
 * TypeScript pass).
 */
export function lambdaInWebAssembly(ctx: SimulationContext): boolean {
  const kernels = ctx.cpuKernels;
  kernels.lambdaInMemory = false;
  const wasm = kernels.exports;
  if (!wasm) return false;
  const s = ctx.solver;
  const n = s.count;
  const m = ctx.materials;
  const materials = m.inverseRestDensity.length;
  const memory = wasm.memory;
  if (!layOutMemory(kernels, memory, { n, pairs: s.neighbourStart[n], materials })) return false;
  const at = kernels.at;
  for (const name of LAMBDA_READS) float64In(memory, at(name), n).set(s[name].subarray(0, n));
  new Uint16Array(memory.buffer, at('material'), n).set(s.material.subarray(0, n));
  copyNeighbourLists(kernels, memory, s.neighbourStart, s.neighbours, n);
  float64In(memory, at('inverseRestDensity'), materials).set(m.inverseRestDensity);
  float64In(memory, at('relaxation'), materials).set(m.relaxation);
  const h = ctx.settings.kernelRadius;
  wasm.lambda(
    n,
    at('predictedX'),
    at('predictedY'),
    at('predictedZ'),
    at('mass'),
    at('material'),
    at('wallWeight'),
    at('wallGradientX'),
    at('wallGradientY'),
    at('wallGradientZ'),
    at('density'),
    at('gradientX'),
    at('gradientY'),
    at('gradientZ'),
    at('gradientSquares'),
    at('constraint'),
    at('lambda'),
    at('neighbourStart'),
    at('neighbours'),
    at('pairGradient'),
    at('pairWeight'),
    at('inverseRestDensity'),
    at('relaxation'),
    h,
    h * h,
    poly6Coefficient(h),
    spikyGradientCoefficient(h),
    selfWeight(h),
    COINCIDENT_OFFSET * h,
  );
  for (const name of LAMBDA_WRITES) s[name].set(float64In(memory, at(name), n));
  kernels.lambdaInMemory = true;
  return true;
}

/**
 * Runs correctionsOneThread's work in WebAssembly, right after `lambdaInWebAssembly` and for one material
 * whose artificial pressure exponent is 4 (the TypeScript's fast path for every pair); false elsewhere, after
 * copying the per-pair caches lambda left in the memory back to the solver for the TypeScript pass.
 */
export function correctionsInWebAssembly(ctx: SimulationContext): boolean {
  const kernels = ctx.cpuKernels;
  const wasm = kernels.exports;
  if (!wasm || !kernels.lambdaInMemory) return false;
  kernels.lambdaInMemory = false;
  const s = ctx.solver;
  const n = s.count;
  const memory = wasm.memory;
  const at = kernels.at;
  const m = ctx.materials;
  if (m.count !== 1 || m.artificialPressureExponent[0] !== 4) {
    const pairs = s.neighbourStart[n];
    s.pairGradient.set(float64In(memory, at('pairGradient'), pairs));
    s.pairWeight.set(float64In(memory, at('pairWeight'), pairs));
    return false;
  }
  float64In(memory, at('projectionSolved'), n).set(s.projectionSolved.subarray(0, n));
  wasm.corrections(
    n,
    at('predictedX'),
    at('predictedY'),
    at('predictedZ'),
    at('mass'),
    at('material'),
    at('wallGradientX'),
    at('wallGradientY'),
    at('wallGradientZ'),
    at('lambda'),
    at('projectionSolved'),
    at('deltaX'),
    at('deltaY'),
    at('deltaZ'),
    at('neighbourStart'),
    at('neighbours'),
    at('pairGradient'),
    at('pairWeight'),
    at('inverseRestDensity'),
    m.artificialPressureScale[0],
    m.inverseArtificialPressureWeight[0],
    m.artificialPressureRestPower[0],
    COINCIDENT_OFFSET * ctx.settings.kernelRadius,
  );
  s.deltaX.set(float64In(memory, at('deltaX'), n));
  s.deltaY.set(float64In(memory, at('deltaY'), n));
  s.deltaZ.set(float64In(memory, at('deltaZ'), n));
  return true;
}
