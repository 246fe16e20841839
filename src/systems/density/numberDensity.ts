/**
 * The density constraint for several fluids of different rest densities (buoyancy, Müller et al. 2005,
 * section 3.1), in the Position Based Fluids solve.
 *
 * Why a different formulation. With the single-fluid estimate rho_i = sum_j m_j W_ij, a light particle
 * next to heavy ones sees their mass and reads a density far above its own rest density (and a heavy one
 * next to light ones far below): the constraint pushes the two fluids apart along their interface, a false
 * interface tension that opens a gap and, at ratios like 10:1, makes the interface explode. Following
 * Solenthaler and Pajarola (2008, "Density contrast SPH interfaces"), each particle's density here comes
 * from its own mass and the number density of its neighbourhood:
 *
 *   delta_i = sum_j W_ij + Z_i (neighbours and walls, 1/m^3),  rho_i = m_i delta_i,
 *   C_i = max(rho_i / rho0_i - 1, 0) = max(V_i delta_i - 1, 0),  V_i = m_i / rho0_i (rest volume).
 *
 * A particle's density then does not depend on which fluid its neighbours are, only on how closely they
 * are packed, so there is no jump at the interface. With the default masses (rho0 / lattice kernel sum)
 * every material has the same rest volume and the fluids keep the same spacing.
 *
 * Buoyancy comes from the masses: the corrections are weighted by inverse mass as in Position Based
 * Dynamics (each constraint's corrections then conserve momentum, sum_k m_k dx_k = 0, like a pressure
 * force), so the same pressure moves a light particle further than a heavy one. For constraint i with
 * relative weights w_k = m_i / m_k:
 *
 *   lambda_i = -C_i / (sum_k w_k |grad_k C_i|^2 + epsilon),  dx_k += w_k lambda_i grad_k C_i,
 *   grad_i C_i = V_i (sum_j grad W_ij + grad Z_i),  grad_j C_i = -V_i grad W_ij,
 *
 * which, gathered per particle, is dx_i = sum_j (lambda_i V_i + lambda_j V_j m_j / m_i + s_ij) grad W_ij
 * + lambda_i V_i b_i grad Z_i. The walls' virtual particles (Harada et al. 2007) are weighted by the
 * kernel-weighted mean mass mbar_i = sum_j m_j W_ij / sum_j W_ij of the particle's neighbourhood (fluid
 * particles there would have it) over its own, r_i = mbar_i / m_i:
 *
 *   b_i = 2 r_i - 1 where r_i > 1 (a particle lighter than its neighbourhood),  b_i = r_i otherwise.
 *
 * Why. The walls push with the particle's own lambda only (the single-fluid convention: b = 1 for one
 * material). Near a flat wall sum_j grad W_ij is about -grad Z_i, so the wall push and the particle's own
 * pair terms about cancel, (b_i - 1) lambda_i V_i |grad Z_i|, while its neighbours' constraints press it
 * into the wall with about r_i lambda V |grad Z|: the fluid's bottom layer is carried by the collision
 * projection, not by the pressure (measured: light and heavy floor particles alike get a net downward
 * correction and sit at exactly one particle radius). The projection does not weight by mass, so a light
 * particle on the floor rises only where its buoyancy beats the whole net push into the floor. With b_i =
 * r_i (the virtual particles simply carrying mbar_i) that net push is lambda V |grad Z| for every particle
 * and some light ones stayed on the floor for good: the buoyancy test's 500 / 1000 mix ended at 0.949 of
 * the light particles above the heavy median after 8 s with seed 7 (0.937-0.964 with seeds 1-4), 4 of its
 * 11 stragglers at one radius above the floor; with b = 1 (own mass) the push is r_i times larger and more
 * stay. b_i = 2 r_i - 1 gives the wall pair the mass excess on both of its halves: the net push into the
 * floor, (b_i - 1 - r_i) lambda V |grad Z|, vanishes at r_i = 2 and turns upwards above it, and no light
 * particle stays on the floor (0.978-0.995 after 8 s with seeds 1-7). Mirroring the wall's pressure fully,
 * b_i = 1 + r_i (the pair term with lambda_b = lambda_i), frees them as well but applies the particle's
 * own constraint twice along the wall normal, an over-relaxation by 2: two stacked blocks of one rest
 * density in a 0.3 x 0.2 m box keep stirring at about 0.23 m/s rms after 5 s instead of 0.09 m/s, and the
 * 10:1 interface rows never settle. A particle heavier than its neighbourhood (r_i < 1) keeps b_i = r_i
 * (2 r_i - 1 would turn negative below r_i = 1/2 and pull it into the wall); for one material b_i = 1, the
 * single-fluid push.
 * lambda's denominator counts the wall gradient with weight 1, not with b_i: weighted consistently
 * (grad_i C_i . V_i (sum_j grad W_ij + b_i grad Z_i), the linearisation), lambda shrinks by about the
 * factor the wall push grows and undoes it (measured with b_i = r_i: 0.931 instead of 0.968 in the
 * buoyancy test; with |V_i (sum_j grad W_ij + r_i grad Z_i)|^2, 0.899). The wall push is a model of the
 * virtual particles' mass, not a step of the linearised constraint.
 *
 * The artificial pressure s_ij (eq. 13 of Macklin and Müller 2013, the two materials' mean) is spread the
 * same momentum-conserving way: s_ij = s V_mean 2 m_j / (m_i + m_j). For one material (r_i = 1 up to
 * rounding) all of this is the single-fluid solve of density/cpu.ts. The artificial pressure slows
 * buoyancy where the solve converges well: its pure repulsion packs a settled mixture into a lattice that
 * a light particle has to squeeze out of. With 6 iterations the buoyancy test's mix reaches 0.885 after
 * 8 s (3 iterations, whose residual compression keeps the packing loose: 0.982); without the artificial
 * pressure 1.000 after 4 s, and without it between different materials only 0.968, but then the 10:1
 * interface keeps stirring (0.87 m/s after 2 s against 0.38 m/s), so both materials' mean stays.
 *
 * When it is used: only when a material opts in (`FluidMaterial.numberDensity` 1) or takes its rest
 * density from the temperature (eq. 16); otherwise density/cpu.ts runs its single-fluid code unchanged, so
 * scenes without it step bit-identically to the single-fluid solver (and the WebGPU backend runs its
 * single-fluid lambda and correct passes; with it, the number-density passes density/restVolume.wgsl,
 * numberDensityLambda.wgsl and numberDensityCorrect.wgsl mirror this file). It is an opt-in rather than
 * automatic for different rest densities for that reason: a scene of water and a lighter oil keeps its
 * behaviour. A
 * temperature-dependent rest density alpha / T changes V_i per particle while the mass stays, so a heated
 * particle expands and rises.
 */

import { COINCIDENT_OFFSET, poly6Coefficient, spikyGradientCoefficient } from '../../core/kernels';
import type { SimulationContext } from '../context';
import { selfWeight } from '../context';
import type { MultiFluidFeatures } from '../multifluid/state';
import { artificialPressure, solveDensityIterations } from './shared';

/**
 * Rest volume V_i = m_i / rho0_i (m^3) of each particle place, with rho0_i = alpha / T_i for materials with a
 * temperature-dependent rest density (eq. 16), else the material's rest density.
 */
export function computeRestVolumes(ctx: SimulationContext, features: MultiFluidFeatures): Float64Array {
  const s = ctx.solver;
  const n = s.count;
  const volume = s.multiFluid.restVolume;
  const { mass, material, entity } = s;
  const inverseRestDensity = ctx.materials.inverseRestDensity;
  if (!features.temperatureDensity) {
    for (let i = 0; i < n; i++) volume[i] = mass[i] * inverseRestDensity[material[i]];
    return volume;
  }
  const alphaOf = ctx.components.FluidMaterial.temperatureDensity;
  const materialEntity = ctx.materials.entity;
  const temperature = ctx.components.Temperature;
  for (let i = 0; i < n; i++) {
    const alpha = alphaOf[materialEntity[material[i]]];
    volume[i] = alpha > 0 ? (mass[i] * temperature[entity[i]]) / alpha : mass[i] * inverseRestDensity[material[i]];
  }
  return volume;
}

/** Number density, constraint and lambda of every particle (see the file comment); caches pair kernels. */
export function computeNumberDensityLambda(ctx: SimulationContext, restVolume: Float64Array): void {
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
  const relaxation = ctx.materials.relaxation;
  const neighbourhoodMass = s.multiFluid.neighbourhoodMass;
  // density holds the number density delta until the last loop; neighbourhoodMass sum_j m_j W_ij.
  for (let i = 0; i < n; i++) {
    const vi = restVolume[i];
    density[i] = w0 + wallWeight[i];
    neighbourhoodMass[i] = mass[i] * w0;
    gradientX[i] = vi * wallGradientX[i];
    gradientY[i] = vi * wallGradientY[i];
    gradientZ[i] = vi * wallGradientZ[i];
    gradientSquares[i] = 0;
  }
  for (let i = 0; i < n; i++) {
    const xi = predictedX[i];
    const yi = predictedY[i];
    const zi = predictedZ[i];
    const mi = mass[i];
    const vi = restVolume[i];
    let delta = density[i];
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
      if (rx === 0 && ry === 0 && rz === 0) rx = coincidentOffset;
      const r2 = rx * rx + ry * ry + rz * rz;
      if (r2 >= hSquared) {
        pairGradient[k] = 0;
        pairWeight[k] = 0;
        continue;
      }
      const mj = mass[j];
      const vj = restVolume[j];
      const d = hSquared - r2;
      const w = poly6C * d * d * d;
      pairWeight[k] = w;
      delta += w;
      density[j] += w;
      neighbourhoodMass[i] += mj * w;
      neighbourhoodMass[j] += mi * w;
      const r = Math.sqrt(r2);
      const e = h - r;
      const g = (-spikyC * e * e) / r;
      pairGradient[k] = g;
      const a = g * vi;
      gix += a * rx;
      giy += a * ry;
      giz += a * rz;
      squares += (mi / mj) * a * a * r2;
      const b = g * vj;
      gradientX[j] -= b * rx;
      gradientY[j] -= b * ry;
      gradientZ[j] -= b * rz;
      gradientSquares[j] += (mj / mi) * b * b * r2;
    }
    density[i] = delta;
    gradientX[i] = gix;
    gradientY[i] = giy;
    gradientZ[i] = giz;
    gradientSquares[i] = squares;
  }
  for (let i = 0; i < n; i++) {
    const constraint = restVolume[i] * density[i] - 1;
    s.constraint[i] = constraint;
    // Mean mass of the neighbourhood over the particle's own: the walls' virtual particles carry it.
    const ratio = neighbourhoodMass[i] / ((density[i] - wallWeight[i]) * mass[i]);
    neighbourhoodMass[i] = ratio;
    density[i] *= mass[i];
    const gx = gradientX[i];
    const gy = gradientY[i];
    const gz = gradientZ[i];
    // The wall part counts with weight 1 here although the correction gives it b_i (see above).
    lambda[i] =
      constraint > 0 ? -constraint / (gradientSquares[i] + gx * gx + gy * gy + gz * gz + relaxation[material[i]]) : 0;
  }
}

/** Mass-weighted position corrections (see the file comment) into `delta`. */
export function computeNumberDensityCorrections(ctx: SimulationContext, restVolume: Float64Array): void {
  const s = ctx.solver;
  const n = s.count;
  const { predictedX, predictedY, predictedZ, mass, material, lambda, deltaX, deltaY, deltaZ } = s;
  const { neighbourStart, neighbours, wallGradientX, wallGradientY, wallGradientZ, pairGradient, pairWeight } = s;
  const coincidentOffset = COINCIDENT_OFFSET * ctx.settings.kernelRadius;
  const wallMassRatio = s.multiFluid.neighbourhoodMass;
  const wallShareScale = s.wallShareScale;
  for (let i = 0; i < n; i++) {
    // V_i b_i: the walls' virtual particles weighted by the neighbourhood's mass (see the file comment).
    const ratio = wallMassRatio[i];
    const share = restVolume[i] * (ratio > 1 ? 2 * ratio - 1 : ratio);
    wallShareScale[i] = share;
    const wallScale = lambda[i] * share;
    deltaX[i] = wallScale * wallGradientX[i];
    deltaY[i] = wallScale * wallGradientY[i];
    deltaZ[i] = wallScale * wallGradientZ[i];
  }
  for (let i = 0; i < n; i++) {
    const xi = predictedX[i];
    const yi = predictedY[i];
    const zi = predictedZ[i];
    const slotI = material[i];
    const mi = mass[i];
    const pushI = lambda[i] * restVolume[i];
    let dx = deltaX[i];
    let dy = deltaY[i];
    let dz = deltaZ[i];
    const end = neighbourStart[i + 1];
    for (let k = neighbourStart[i]; k < end; k++) {
      const g = pairGradient[k];
      if (g === 0) continue;
      const j = neighbours[k];
      const slotJ = material[j];
      const mj = mass[j];
      const pushJ = lambda[j] * restVolume[j];
      const weight = pairWeight[k];
      // Eq. 13 as written (no rest-spacing offset, see `artificialPressure`): here the artificial pressure is
      // what keeps a light fluid's particles at the bulk spacing where it meets a heavy one.
      const pressure =
        slotI === slotJ
          ? artificialPressure(ctx, slotI, weight, 0)
          : 0.5 * (artificialPressure(ctx, slotI, weight, 0) + artificialPressure(ctx, slotJ, weight, 0));
      const sharedPressure = (pressure * (restVolume[i] + restVolume[j])) / (mi + mj);
      let rx = xi - predictedX[j];
      const ry = yi - predictedY[j];
      const rz = zi - predictedZ[j];
      if (rx === 0 && ry === 0 && rz === 0) rx = coincidentOffset;
      const a = (pushI + (pushJ * mj) / mi + sharedPressure * mj) * g;
      dx += a * rx;
      dy += a * ry;
      dz += a * rz;
      const b = (pushJ + (pushI * mi) / mj + sharedPressure * mi) * g;
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
 * The multi-fluid density solve of one substep, `iterations` x (wall weights, number-density lambda,
 * mass-weighted corrections, apply, the coupled colliders' share of the wall pressure, collide): the same
 * sequence as `densitySystem` with the formulation above.
 */
export function numberDensitySolve(ctx: SimulationContext, features: MultiFluidFeatures): void {
  const restVolume = computeRestVolumes(ctx, features);
  solveDensityIterations(ctx, computeNumberDensityLambda, computeNumberDensityCorrections, restVolume);
}
