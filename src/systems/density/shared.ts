/**
 * What the single-fluid density solve (density/cpu.ts) and the number-density solve of several fluids
 * (density/numberDensity.ts) share: the artificial pressure s_corr (Macklin & Müller 2013, eq. 13), the
 * clamped application of the corrections, and the iteration loop (Algorithm 1, lines 8-19).
 */

import { collideParticles, computeWallWeights } from '../collide/cpu';
import { applyCorrectionsInWebAssembly } from '../collide/wasm';
import type { SimulationContext } from '../context';
import { accumulateWallImpulses } from '../couple/cpu';

/**
 * Artificial pressure s_corr of material `slot` for a pair whose poly6 weight is `weight` (eq. 13), with k
 * scaled as described in density/cpu.ts, offset by `restShare` (0 to 1) times its value at the rest spacing
 * 2r: -k max((W / W(delta q))^n - restShare (W(2r) / W(delta q))^n, 0). The offset is 0 unless the
 * still-water mode (`projection.freeSurface`) is on; there the single-fluid solve passes the mean of the
 * pair's `projectionSolved`, so that s_corr acts only between particles closer than the rest spacing where
 * the projection holds the water (docs/method.md, "Still-water mode"), and eq. 13 as written elsewhere; the
 * number-density solve of several fluids passes 0.
 */
export function artificialPressure(ctx: SimulationContext, slot: number, weight: number, restShare: number): number {
  const m = ctx.materials;
  const ratio = weight * m.inverseArtificialPressureWeight[slot];
  const exponent = m.artificialPressureExponent[slot];
  let power: number;
  if (exponent === 4) {
    const ratio2 = ratio * ratio;
    power = ratio2 * ratio2;
  } else {
    power = ratio ** exponent;
  }
  return -m.artificialPressureScale[slot] * Math.max(power - restShare * m.artificialPressureRestPower[slot], 0);
}

/** Adds the corrections, each clamped to one particle radius, to the predicted positions. */
export function applyCorrections(ctx: SimulationContext): void {
  const s = ctx.solver;
  const n = s.count;
  const maxCorrection = ctx.settings.particleRadius;
  if (applyCorrectionsInWebAssembly(ctx, maxCorrection)) return;
  const maxCorrectionSquared = maxCorrection * maxCorrection;
  const { predictedX, predictedY, predictedZ, deltaX, deltaY, deltaZ, correctionScale } = s;
  for (let i = 0; i < n; i++) {
    let dx = deltaX[i];
    let dy = deltaY[i];
    let dz = deltaZ[i];
    const lengthSquared = dx * dx + dy * dy + dz * dz;
    if (lengthSquared > maxCorrectionSquared) {
      const scale = maxCorrection / Math.sqrt(lengthSquared);
      correctionScale[i] = scale;
      dx *= scale;
      dy *= scale;
      dz *= scale;
    } else {
      correctionScale[i] = 1;
    }
    predictedX[i] += dx;
    predictedY[i] += dy;
    predictedZ[i] += dz;
  }
}

/** A lambda or correction pass of a density solve; `restVolume` is the number-density solve's (unused by the other). */
export type DensityPass = (ctx: SimulationContext, restVolume: Float64Array) => void;

/**
 * `iterations` x (wall weights, lambda, corrections, apply, the coupled colliders' share of the wall
 * pressure, collide), with the solve's own lambda and correction passes (module functions, not closures made
 * per substep).
 */
export function solveDensityIterations(
  ctx: SimulationContext,
  lambdaPass: DensityPass,
  correctionPass: DensityPass,
  restVolume: Float64Array,
): void {
  const walls = ctx.colliders.count > 0;
  const iterations = ctx.settings.iterations;
  for (let iteration = 0; iteration < iterations; iteration++) {
    if (walls) computeWallWeights(ctx);
    lambdaPass(ctx, restVolume);
    correctionPass(ctx, restVolume);
    applyCorrections(ctx);
    if (walls) accumulateWallImpulses(ctx);
    collideParticles(ctx);
  }
}
