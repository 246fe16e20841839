/**
 * Density constraint solve of Position Based Fluids (Macklin & Müller 2013), `iterations` Jacobi
 * iterations per substep, each: wall weights, lambda (eq. 11), position correction with artificial
 * pressure (eq. 13-14), apply, and collide with colliders (Algorithm 1, lines 8-19).
 *
 * Choices, documented where the paper leaves room:
 * - Masses enter as in SPH: rho_i = sum_j m_j W_ij (eq. 2) and grad C_i = (1 / rho0) sum_j m_j grad W_ij.
 * - The constraint is unilateral, C_i = max(rho_i / rho0 - 1, 0): a particle at the free surface, with
 *   too few neighbours, is not pulled inwards. Section 4 of the paper names this clamp as the way to avoid
 *   clumping; the artificial pressure term still acts.
 * - The CFM epsilon (eq. 11) and the artificial pressure k (eq. 13) are scaled by the rest-lattice sum of
 *   |grad C|^2, so that their dimensionless defaults mean the same at any particle size. The paper's
 *   eq. 13 is written for normalised units; here s_corr acts like a density violation of
 *   k (W / W(delta q))^n.
 * - Walls enter the constraint through Harada et al.'s wall weight function (2007, eq. 12): their density
 *   Z(d) and its gradient are part of rho_i and grad C_i, and they push with lambda_i.
 * - Each iteration's correction of one particle is clamped to one particle radius (a safeguard for
 *   overlapping spawns; it does not act in a settled fluid).
 *
 * Each neighbour pair is visited once (half lists) and updates both particles, the CPU's way of doing the
 * same sums as the per-particle formulas above. With more than one thread (`threads`) the same loops run as
 * parallel/kernels.ts's, in fixed partitions of the sorted particles that the threads share: bit-identical
 * results for every thread count from 2 to 8, which differ from one thread's in the last bits (the sums are
 * made in another order).
 *
 * Several fluids: when a material opts in (`FluidMaterial.numberDensity`) or has a temperature-dependent
 * rest density, `densitySystem` runs the number-density form of density/numberDensity.ts instead (buoyancy
 * without false interface tension); otherwise this file's code runs unchanged.
 */

import { COINCIDENT_OFFSET, poly6Coefficient, spikyGradientCoefficient } from '../../core/kernels';
import type { SimulationContext } from '../context';
import { selfWeight } from '../context';
import { runPartitioned, setKernelParameters } from '../parallel/cpu';
import { Kernel } from '../parallel/kernels';
import { numberDensitySolve } from './numberDensity';
import { artificialPressure, solveDensityIterations } from './shared';
import {
  correctionPartitionsInWebAssembly,
  correctionsInWebAssembly,
  lambdaInWebAssembly,
  lambdaPartitionsInWebAssembly,
} from './wasm';

/**
 * One thread: density and lambda (eq. 2, 9-11) of every particle in one pass over the half lists, caching the
 * per-pair kernel values.
 */
function lambdaOneThread(ctx: SimulationContext): void {
  const s = ctx.solver;
  const n = s.count;
  const h = ctx.settings.kernelRadius;
  const hSquared = h * h;
  const poly6C = poly6Coefficient(h);
  const spikyC = spikyGradientCoefficient(h);
  const w0 = selfWeight(h);
  const coincidentOffset = COINCIDENT_OFFSET * h;
  const { predictedX, predictedY, predictedZ, mass, material, density, lambda, neighbourStart, neighbours } = s;
  const { wallWeight, wallGradientX, wallGradientY, wallGradientZ } = s;
  const { gradientX, gradientY, gradientZ, gradientSquares, pairGradient, pairWeight } = s;
  const inverseRestDensity = ctx.materials.inverseRestDensity;
  const relaxation = ctx.materials.relaxation;
  // Self and walls (the walls' virtual particles carry the particle's own mass).
  for (let i = 0; i < n; i++) {
    const mi = mass[i];
    const scale = mi * inverseRestDensity[material[i]];
    density[i] = mi * (w0 + wallWeight[i]);
    gradientX[i] = scale * wallGradientX[i];
    gradientY[i] = scale * wallGradientY[i];
    gradientZ[i] = scale * wallGradientZ[i];
    gradientSquares[i] = 0;
  }
  for (let i = 0; i < n; i++) {
    const xi = predictedX[i];
    const yi = predictedY[i];
    const zi = predictedZ[i];
    const mi = mass[i];
    const invRho0i = inverseRestDensity[material[i]];
    let rho = density[i];
    let gix = gradientX[i];
    let giy = gradientY[i];
    let giz = gradientZ[i];
    let squares = gradientSquares[i];
    const end = neighbourStart[i + 1];
    for (let k = neighbourStart[i]; k < end; k++) {
      const j = neighbours[k];
      let rx = xi - predictedX[j];
      const ry = yi - predictedY[j];
      const rz = zi - predictedZ[j];
      // Coincident particles (a block spawned twice) get a tiny offset so the spiky gradient separates them.
      if (rx === 0 && ry === 0 && rz === 0) rx = coincidentOffset;
      const r2 = rx * rx + ry * ry + rz * rz;
      if (r2 >= hSquared) {
        pairGradient[k] = 0;
        pairWeight[k] = 0;
        continue;
      }
      const mj = mass[j];
      const d = hSquared - r2;
      const w = poly6C * d * d * d;
      pairWeight[k] = w;
      rho += mj * w;
      density[j] += mi * w;
      const r = Math.sqrt(r2);
      const e = h - r;
      // grad_i W_ij = g (x_i - x_j); grad_j W_ij = -g (x_i - x_j).
      const g = (-spikyC * e * e) / r;
      pairGradient[k] = g;
      const a = g * mj * invRho0i;
      gix += a * rx;
      giy += a * ry;
      giz += a * rz;
      squares += a * a * r2;
      const b = g * mi * inverseRestDensity[material[j]];
      gradientX[j] -= b * rx;
      gradientY[j] -= b * ry;
      gradientZ[j] -= b * rz;
      gradientSquares[j] += b * b * r2;
    }
    density[i] = rho;
    gradientX[i] = gix;
    gradientY[i] = giy;
    gradientZ[i] = giz;
    gradientSquares[i] = squares;
  }
  const constraints = s.constraint;
  for (let i = 0; i < n; i++) {
    const slot = material[i];
    const constraint = density[i] * inverseRestDensity[slot] - 1;
    constraints[i] = constraint;
    const gx = gradientX[i];
    const gy = gradientY[i];
    const gz = gradientZ[i];
    lambda[i] =
      constraint > 0 ? -constraint / (gradientSquares[i] + gx * gx + gy * gy + gz * gz + relaxation[slot]) : 0;
  }
}

/** One thread: the position corrections (eq. 14) into `delta`, from the kernel values `lambdaOneThread` cached. */
function correctionsOneThread(ctx: SimulationContext): void {
  const s = ctx.solver;
  const n = s.count;
  const { predictedX, predictedY, predictedZ, mass, material, lambda, deltaX, deltaY, deltaZ } = s;
  const { neighbourStart, neighbours, wallGradientX, wallGradientY, wallGradientZ, pairGradient, pairWeight } = s;
  const solved = s.projectionSolved;
  const inverseRestDensity = ctx.materials.inverseRestDensity;
  const coincidentOffset = COINCIDENT_OFFSET * ctx.settings.kernelRadius;
  // The walls push with the particle's own lambda (they carry no constraint of their own).
  for (let i = 0; i < n; i++) {
    const wallScale = lambda[i] * mass[i] * inverseRestDensity[material[i]];
    deltaX[i] = wallScale * wallGradientX[i];
    deltaY[i] = wallScale * wallGradientY[i];
    deltaZ[i] = wallScale * wallGradientZ[i];
  }
  for (let i = 0; i < n; i++) {
    const xi = predictedX[i];
    const yi = predictedY[i];
    const zi = predictedZ[i];
    const slotI = material[i];
    const invRho0i = inverseRestDensity[slotI];
    const mi = mass[i];
    const li = lambda[i];
    const scorrScale = ctx.materials.artificialPressureScale[slotI];
    const scorrInverseWeight = ctx.materials.inverseArtificialPressureWeight[slotI];
    const scorrExponentFour = ctx.materials.artificialPressureExponent[slotI] === 4;
    const scorrRestPower = ctx.materials.artificialPressureRestPower[slotI];
    let dx = deltaX[i];
    let dy = deltaY[i];
    let dz = deltaZ[i];
    const end = neighbourStart[i + 1];
    for (let k = neighbourStart[i]; k < end; k++) {
      const g = pairGradient[k];
      if (g === 0) continue;
      const j = neighbours[k];
      const slotJ = material[j];
      let scorr: number;
      if (slotJ === slotI && scorrExponentFour) {
        const ratio = pairWeight[k] * scorrInverseWeight;
        const ratio2 = ratio * ratio;
        // Without the still-water offset, eq. 13 in the order of the code before it (bit for bit).
        scorr =
          scorrRestPower === 0
            ? -scorrScale * ratio2 * ratio2
            : -scorrScale * Math.max(ratio2 * ratio2 - 0.5 * (solved[i] + solved[j]) * scorrRestPower, 0);
      } else {
        const share = 0.5 * (solved[i] + solved[j]);
        scorr =
          0.5 *
          (artificialPressure(ctx, slotI, pairWeight[k], share) + artificialPressure(ctx, slotJ, pairWeight[k], share));
      }
      const f = (li + lambda[j] + scorr) * g;
      let rx = xi - predictedX[j];
      const ry = yi - predictedY[j];
      const rz = zi - predictedZ[j];
      if (rx === 0 && ry === 0 && rz === 0) rx = coincidentOffset;
      const a = f * mass[j] * invRho0i;
      dx += a * rx;
      dy += a * ry;
      dz += a * rz;
      const b = f * mi * inverseRestDensity[slotJ];
      deltaX[j] -= b * rx;
      deltaY[j] -= b * ry;
      deltaZ[j] -= b * rz;
    }
    deltaX[i] = dx;
    deltaY[i] = dy;
    deltaZ[i] = dz;
  }
}

/**
 * Computes density and lambda (eq. 2, 9-11) of every particle and caches the per-pair kernel values: on one
 * thread in one pass (in WebAssembly where the CPU module runs, density/wasm.ts, the same results bit for bit;
 * `stats.webAssembly`), on several in the partitions of parallel/kernels.ts (`lambdaPairs`, then
 * `lambdaFinish`; in WebAssembly where the threads' module runs, parallel/wasm.ts). In WebAssembly the per-pair caches stay in the module's memory, and the solver's
 * `pairGradient` and `pairWeight` are written only when the corrections that follow run in TypeScript.
 */
export function computeLambda(ctx: SimulationContext): void {
  if (!ctx.threads.partitioned) {
    if (lambdaInWebAssembly(ctx)) ctx.stats.webAssembly = true;
    else lambdaOneThread(ctx);
    return;
  }
  if (lambdaPartitionsInWebAssembly(ctx)) {
    ctx.stats.webAssembly = true;
    return;
  }
  setKernelParameters(ctx);
  runPartitioned(ctx, Kernel.lambdaPairs);
  runPartitioned(ctx, Kernel.lambdaFinish);
}

/**
 * Computes the position corrections (eq. 14) into `delta`, from the kernel values cached by `computeLambda`:
 * on one thread in one pass (in WebAssembly after a lambda pass there, for one material with the exponent 4;
 * it reads the positions, masses, wall gradients and lambdas that pass left in the module's memory, so it must
 * follow `computeLambda` with nothing changing them in between, as in `solveDensityIterations`), on several in
 * partitions (`correctionPairs`, then `correctionFinish`; in WebAssembly after a lambda there, likewise).
 */
export function computeCorrections(ctx: SimulationContext): void {
  if (!ctx.threads.partitioned) {
    if (!correctionsInWebAssembly(ctx)) correctionsOneThread(ctx);
    return;
  }
  if (correctionPartitionsInWebAssembly(ctx)) return;
  setKernelParameters(ctx);
  runPartitioned(ctx, Kernel.correctionPairs);
  runPartitioned(ctx, Kernel.correctionFinish);
}

/**
 * The substep system: `iterations` x (wall weights, lambda, corrections, apply, the coupled colliders'
 * share of the wall pressure, collide).
 */
export function densitySystem(ctx: SimulationContext): void {
  const s = ctx.solver;
  s.contactCollider.fill(-1, 0, s.count);
  const walls = ctx.colliders.count > 0;
  if (!walls) {
    s.wallWeight.fill(0, 0, s.count);
    s.wallGradientX.fill(0, 0, s.count);
    s.wallGradientY.fill(0, 0, s.count);
    s.wallGradientZ.fill(0, 0, s.count);
  }
  // Several rest densities (or a temperature-dependent one): the number-density form of density/numberDensity.ts.
  const features = s.multiFluid.features;
  if (features.numberDensity) {
    numberDensitySolve(ctx, features);
    return;
  }
  if (walls) {
    // The walls' push per unit lambda grad Z, m / rho0: the coupled colliders' share (couple/cpu.ts).
    const { mass, material, wallShareScale } = s;
    const inverseRestDensity = ctx.materials.inverseRestDensity;
    for (let i = 0; i < s.count; i++) wallShareScale[i] = mass[i] * inverseRestDensity[material[i]];
  }
  solveDensityIterations(ctx, computeLambda, computeCorrections, ctx.solver.multiFluid.restVolume);
}
