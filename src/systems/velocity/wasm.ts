/**
 * The XSPH viscosity and vorticity confinement pair loops on one thread in WebAssembly (velocity.wat, in the CPU
 * module of wasm/state.ts): the float64 operations of viscosityVorticityOneThread's two pair loops (velocity/
 * cpu.ts) in the same order, so the results are bit-identical (tests/wasm.test.ts). Each copies what it reads
 * into the module's memory and what it sums back out; the confinement reads the positions, volumes and lists
 * the first loop copied in.
 */

import { poly6Coefficient, spikyGradientCoefficient } from '../../core/kernels';
import type { SimulationContext } from '../context';
import { copyNeighbourLists, float64In, layOutMemory } from '../wasm/state';

/** What the first pair loop reads from the solver, and the sums it writes (zero when it starts). */
const XSPH_READS = ['predictedX', 'predictedY', 'predictedZ', 'velocityX', 'velocityY', 'velocityZ', 'volume'] as const;
const XSPH_SUMS = ['vorticityX', 'vorticityY', 'vorticityZ', 'deltaX', 'deltaY', 'deltaZ'] as const;
/** The confinement's sums in the memory, per axis. */
const ETA = ['etaX', 'etaY', 'etaZ'] as const;

/**
 * The first pair loop (omega_i, eq. 15, and the XSPH sums, eq. 17, from the same velocities) into the solver's
 * vorticity and delta arrays, from its predicted positions, velocities, volumes and half lists; false where the
 * module is not there (the caller runs the TypeScript loop).
 */
export function xsphVorticityInWebAssembly(ctx: SimulationContext): boolean {
  const kernels = ctx.cpuKernels;
  const wasm = kernels.exports;
  if (!wasm) return false;
  const s = ctx.solver;
  const n = s.count;
  const memory = wasm.memory;
  const materials = ctx.materials.inverseRestDensity.length;
  if (!layOutMemory(kernels, memory, { n, pairs: s.neighbourStart[n], materials })) return false;
  const at = kernels.at;
  for (const name of XSPH_READS) float64In(memory, at(name), n).set(s[name].subarray(0, n));
  copyNeighbourLists(kernels, memory, s.neighbourStart, s.neighbours, n);
  for (const name of XSPH_SUMS) float64In(memory, at(name), n).fill(0);
  const h = ctx.settings.kernelRadius;
  wasm.xsphVorticity(
    n,
    at('predictedX'),
    at('predictedY'),
    at('predictedZ'),
    at('velocityX'),
    at('velocityY'),
    at('velocityZ'),
    at('volume'),
    at('vorticityX'),
    at('vorticityY'),
    at('vorticityZ'),
    at('deltaX'),
    at('deltaY'),
    at('deltaZ'),
    at('neighbourStart'),
    at('neighbours'),
    h,
    h * h,
    poly6Coefficient(h),
    spikyGradientCoefficient(h),
  );
  for (const name of XSPH_SUMS) s[name].set(float64In(memory, at(name), n));
  return true;
}

/**
 * The second pair loop (eta of vorticity confinement, eq. 16) into `eta`, from `magnitude` (|omega| per
 * particle); only right after {@link xsphVorticityInWebAssembly} in the same substep, whose positions,
 * volumes and lists it reads from the memory.
 */
export function confinementInWebAssembly(
  ctx: SimulationContext,
  magnitude: Float64Array,
  eta: readonly [Float64Array, Float64Array, Float64Array],
): void {
  const wasm = ctx.cpuKernels.exports;
  if (!wasm) throw new Error('confinementInWebAssembly without the module');
  const n = ctx.solver.count;
  const memory = wasm.memory;
  const at = ctx.cpuKernels.at;
  float64In(memory, at('magnitude'), n).set(magnitude.subarray(0, n));
  for (const name of ETA) float64In(memory, at(name), n).fill(0);
  const h = ctx.settings.kernelRadius;
  wasm.confinement(
    n,
    at('predictedX'),
    at('predictedY'),
    at('predictedZ'),
    at('magnitude'),
    at('volume'),
    at('etaX'),
    at('etaY'),
    at('etaZ'),
    at('neighbourStart'),
    at('neighbours'),
    h,
    h * h,
    spikyGradientCoefficient(h),
  );
  for (let axis = 0; axis < 3; axis++) eta[axis].set(float64In(memory, at(ETA[axis]), n));
}
