/**
 * The density passes on one thread in WebAssembly (density.wat, assembled into densityWasm.ts by
 * scripts/assembleWasm.mjs): `lambda` and `corrections` do the float64 operations of lambdaOneThread and
 * correctionsOneThread (density/cpu.ts) in the same order, so a step gives the same results bit for bit
 * whichever runs (tests/wasm.test.ts), in about half the time per pass (docs/performance.md, "WebAssembly").
 *
 * The module has its own memory: each pass copies what it reads into it and what it writes back out to the
 * solver's arrays (the kernel caches per pair stay in the module between lambda and the corrections that
 * follow it; they are copied out only when the TypeScript corrections run instead). The module is compiled at
 * creation when the runtime allows it synchronously (a small module), else asynchronously, the TypeScript
 * loops running until it is there; where WebAssembly cannot be compiled (a page whose Content Security
 * Policy forbids it) the TypeScript loops run throughout. `webAssembly: false` keeps them.
 */
import { COINCIDENT_OFFSET, poly6Coefficient, spikyGradientCoefficient } from '../../core/kernels';
import type { SimulationContext } from '../context';
import { selfWeight } from '../context';
import type { DensityKernels } from './wasmState';

/** The arrays of the two passes, in the order the memory holds them: name and bytes per element. */
const PARTICLE_ARRAYS: readonly [string, number][] = [
  ['predictedX', 8],
  ['predictedY', 8],
  ['predictedZ', 8],
  ['mass', 8],
  ['wallWeight', 8],
  ['wallGradientX', 8],
  ['wallGradientY', 8],
  ['wallGradientZ', 8],
  ['density', 8],
  ['gradientX', 8],
  ['gradientY', 8],
  ['gradientZ', 8],
  ['gradientSquares', 8],
  ['constraint', 8],
  ['lambda', 8],
  ['projectionSolved', 8],
  ['deltaX', 8],
  ['deltaY', 8],
  ['deltaZ', 8],
  ['material', 2],
];

type Float64Name =
  | 'predictedX'
  | 'predictedY'
  | 'predictedZ'
  | 'mass'
  | 'wallWeight'
  | 'wallGradientX'
  | 'wallGradientY'
  | 'wallGradientZ'
  | 'density'
  | 'gradientX'
  | 'gradientY'
  | 'gradientZ'
  | 'gradientSquares'
  | 'constraint'
  | 'lambda'
  | 'projectionSolved'
  | 'deltaX'
  | 'deltaY'
  | 'deltaZ';

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

/** Lays out the memory for `n` particles, `pairs` pairs and `materials` materials; grows it where needed. */
function layOut(
  kernels: DensityKernels,
  memory: WebAssembly.Memory,
  n: number,
  pairs: number,
  materials: number,
): void {
  const offsets = kernels.offsets;
  let bytes = 0;
  const place = (name: string, size: number): void => {
    offsets.set(name, bytes);
    bytes += Math.ceil(size / 8) * 8;
  };
  for (const [name, size] of PARTICLE_ARRAYS) place(name, n * size);
  place('neighbourStart', (n + 1) * 4);
  place('neighbours', pairs * 4);
  place('pairGradient', pairs * 8);
  place('pairWeight', pairs * 8);
  place('inverseRestDensity', materials * 8);
  place('relaxation', materials * 8);
  const missing = bytes - memory.buffer.byteLength;
  if (missing > 0) memory.grow(Math.ceil(missing / 65536));
}

function float64In(memory: WebAssembly.Memory, offset: number, length: number): Float64Array {
  return new Float64Array(memory.buffer, offset, length);
}

/**
 * Runs lambdaOneThread's work in WebAssembly; false where the kernels are not there (the caller runs the
 * TypeScript pass).
 */
export function lambdaInWebAssembly(ctx: SimulationContext): boolean {
  const kernels = ctx.densityKernels;
  kernels.lambdaInMemory = false;
  const wasm = kernels.exports;
  if (!wasm) return false;
  const s = ctx.solver;
  const n = s.count;
  const pairs = s.neighbourStart[n];
  const m = ctx.materials;
  const materials = m.inverseRestDensity.length;
  layOut(kernels, wasm.memory, n, pairs, materials);
  const memory = wasm.memory;
  const at = (name: string): number => kernels.offsets.get(name) ?? 0;
  for (const name of LAMBDA_READS) float64In(memory, at(name), n).set(s[name].subarray(0, n));
  new Uint16Array(memory.buffer, at('material'), n).set(s.material.subarray(0, n));
  new Int32Array(memory.buffer, at('neighbourStart'), n + 1).set(s.neighbourStart.subarray(0, n + 1));
  new Int32Array(memory.buffer, at('neighbours'), pairs).set(s.neighbours.subarray(0, pairs));
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
  const kernels = ctx.densityKernels;
  const wasm = kernels.exports;
  if (!wasm || !kernels.lambdaInMemory) return false;
  kernels.lambdaInMemory = false;
  const s = ctx.solver;
  const n = s.count;
  const memory = wasm.memory;
  const at = (name: string): number => kernels.offsets.get(name) ?? 0;
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
