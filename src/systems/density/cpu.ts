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
 * same sums as the per-particle formulas above; the loops themselves are parallel/kernels.ts's, run in
 * fixed partitions of the sorted particles that several threads can share with bit-identical results.
 *
 * Several fluids: when a material opts in (`FluidMaterial.numberDensity`) or has a temperature-dependent
 * rest density, `densitySystem` runs the number-density form of density/numberDensity.ts instead (buoyancy
 * without false interface tension); otherwise this file's code runs unchanged.
 */

import type { SimulationContext } from '../context';
import { runPartitioned, setKernelParameters } from '../parallel/cpu';
import { Kernel } from '../parallel/kernels';
import { numberDensitySolve } from './numberDensity';
import { solveDensityIterations } from './shared';

/**
 * Computes density and lambda (eq. 2, 9-11) of every particle and caches the per-pair kernel values, in
 * the partitions of parallel/kernels.ts (`lambdaPairs`, then `lambdaFinish`), shared by the threads.
 */
export function computeLambda(ctx: SimulationContext): void {
  setKernelParameters(ctx);
  runPartitioned(ctx, Kernel.lambdaPairs);
  runPartitioned(ctx, Kernel.lambdaFinish);
}

/**
 * Computes the position corrections (eq. 14) into `delta`, from the kernel values cached by `computeLambda`
 * (`correctionPairs`, then `correctionFinish` of parallel/kernels.ts).
 */
export function computeCorrections(ctx: SimulationContext): void {
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
