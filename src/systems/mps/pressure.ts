/**
 * The pressure Poisson equation of MPS (Premoze et al. 2003, eq. 14, with the choices of mps/cpu.ts): its
 * assembly over the neighbour graph and the ghost walls, the wall pressure impulses on coupled bodies, and the
 * velocity correction (eq. 15-17).
 */

import { COINCIDENT_OFFSET } from '../../core/kernels';
import type { SimulationContext } from '../context';
import { addBodyImpulse } from '../couple/cpu';
import { DIMENSION, type MpsState } from './data';
import type { SparseSymmetricMatrix } from './pcg';

/** The operator scale lambda / (2d dt^2) (1/s^2) of the scaled equation (mps/cpu.ts) for substep `dt` (s). */
export function mpsOperatorScale(state: MpsState, dt: number): number {
  return state.lattice.laplacianLambda / (2 * DIMENSION * dt * dt);
}

/**
 * The compressibility term's scale operatorScale n0 alpha (1/(Pa s^2)), times rho_i the diagonal's term c_i,
 * for substep `dt` (s).
 */
export function mpsCompressibilityScale(state: MpsState, dt: number): number {
  return mpsOperatorScale(state, dt) * state.lattice.restNumberDensity * state.settings.compressibility;
}

/**
 * The explicit viscosity's scale dt min(nu, stable nu) 2d / (lambda n0) (mpsViscositySystem, mps/cpu.ts) for
 * substep `dt` (s): the stable nu is the bound dt nu 2d / lambda <= 0.5 of explicit diffusion.
 */
export function mpsViscosityScale(state: MpsState, dt: number): number {
  const nu = state.settings.kinematicViscosity;
  const { restNumberDensity, laplacianLambda } = state.lattice;
  const stableNu = (0.5 * laplacianLambda) / (2 * DIMENSION * dt);
  return (dt * (nu < stableNu ? nu : stableNu) * 2 * DIMENSION) / (laplacianLambda * restNumberDensity);
}

function growMatrix(matrix: SparseSymmetricMatrix, needed: number): void {
  let size = matrix.column.length;
  while (size < needed) size *= 2;
  matrix.column = new Int32Array(size);
  matrix.value = new Float64Array(size);
}

/**
 * Assembles the pressure equation (eq. 14, scaled as in the module notes) from n* and the cached pair
 * weights: free-surface classification (eq. 18), unknown numbering, CSR rows, right-hand side, and the
 * warm start from the last pressures.
 */
export function assemblePressureEquation(ctx: SimulationContext, state: MpsState): void {
  const s = ctx.solver;
  const n = s.count;
  const n0 = state.lattice.restNumberDensity;
  const { numberDensity, surface, unknownOfPlace, placeOfUnknown, matrix, rightHandSide, solution } = state;
  const { neighbourStart, neighbours, material, entity } = s;
  const pairWeight = s.pairWeight;
  const inverseRestDensity = ctx.materials.inverseRestDensity;
  const dt = ctx.substepTimeStep;
  const threshold = state.settings.surfaceThreshold * n0;
  const operatorScale = mpsOperatorScale(state, dt);
  const relaxation = state.settings.sourceRelaxation;
  const compressibilityScale = mpsCompressibilityScale(state, dt);
  let unknowns = 0;
  for (let i = 0; i < n; i++) {
    if (numberDensity[i] < threshold) {
      surface[i] = 1;
      unknownOfPlace[i] = -1;
    } else {
      surface[i] = 0;
      unknownOfPlace[i] = unknowns;
      placeOfUnknown[unknowns] = i;
      unknowns++;
    }
  }
  matrix.rowCount = unknowns;
  const { diagonal, rowStart } = matrix;
  // Row sizes (off-diagonal entries between two unknowns) and the diagonal sum of weights.
  rowStart.fill(0, 0, unknowns + 1);
  diagonal.fill(0, 0, unknowns);
  for (let i = 0; i < n; i++) {
    const ui = unknownOfPlace[i];
    const end = neighbourStart[i + 1];
    for (let k = neighbourStart[i]; k < end; k++) {
      const w = pairWeight[k];
      if (w === 0) continue;
      const uj = unknownOfPlace[neighbours[k]];
      if (ui >= 0) diagonal[ui] += w;
      if (uj >= 0) diagonal[uj] += w;
      if (ui >= 0 && uj >= 0) {
        rowStart[ui + 1]++;
        rowStart[uj + 1]++;
      }
    }
  }
  for (let u = 0; u < unknowns; u++) rowStart[u + 1] += rowStart[u];
  const entries = rowStart[unknowns];
  if (entries > matrix.column.length) growMatrix(matrix, entries);
  const cursor = state.scratch.product; // free until the solve
  for (let u = 0; u < unknowns; u++) cursor[u] = rowStart[u];
  const { column, value } = matrix;
  for (let i = 0; i < n; i++) {
    const ui = unknownOfPlace[i];
    if (ui < 0) continue;
    const end = neighbourStart[i + 1];
    for (let k = neighbourStart[i]; k < end; k++) {
      const w = pairWeight[k];
      if (w === 0) continue;
      const uj = unknownOfPlace[neighbours[k]];
      if (uj < 0) continue;
      let at = cursor[ui]++;
      column[at] = uj;
      value[at] = -w;
      at = cursor[uj]++;
      column[at] = ui;
      value[at] = -w;
    }
  }
  // Velocity divergence of u* = (r* - r) / dt (eq. 6), times dt: divergence[i] = dt <div u*>_i n0 / d.
  const divergence = state.divergence;
  divergence.fill(0, 0, n);
  {
    const { positionX, positionY, positionZ, predictedX, predictedY, predictedZ } = s;
    for (let i = 0; i < n; i++) {
      const xi = predictedX[i];
      const yi = predictedY[i];
      const zi = predictedZ[i];
      const dxi = xi - positionX[i];
      const dyi = yi - positionY[i];
      const dzi = zi - positionZ[i];
      let sum = 0;
      const end = neighbourStart[i + 1];
      for (let k = neighbourStart[i]; k < end; k++) {
        const w = pairWeight[k];
        if (w === 0) continue;
        const j = neighbours[k];
        const rx = predictedX[j] - xi;
        const ry = predictedY[j] - yi;
        const rz = predictedZ[j] - zi;
        const r2 = rx * rx + ry * ry + rz * rz;
        if (r2 === 0) continue;
        const term =
          ((predictedX[j] - positionX[j] - dxi) * rx +
            (predictedY[j] - positionY[j] - dyi) * ry +
            (predictedZ[j] - positionZ[j] - dzi) * rz) *
          (w / r2);
        sum += term;
        divergence[j] += term;
      }
      divergence[i] += sum;
    }
  }
  const startNumberDensity = state.startNumberDensity;
  const wallLaplacian = state.walls.hydrostaticLaplacian;
  for (let u = 0; u < unknowns; u++) {
    const i = placeOfUnknown[u];
    const rho = 1 / inverseRestDensity[material[i]];
    diagonal[u] += compressibilityScale * rho;
    rightHandSide[u] =
      rho *
      (operatorScale * (relaxation * (startNumberDensity[i] - n0) - DIMENSION * divergence[i]) + wallLaplacian[i]);
    solution[u] = state.pressureOfEntity[entity[i]];
  }
}

/**
 * The pressure load of the fluid on coupled colliders' bodies over the substep. A ghost g of wall W
 * (walls.ts) and particle i exchange the pair force of the momentum-conserving form of eq. 5,
 * F = (m_i / rho_i) (d / n0) (p_i + p_g) (x_g - x_i) / |x_g - x_i|^2 w, towards the wall for positive
 * pressure; summed over W's ghosts with p_g = p_i + rho_i g . (x_g - x_i):
 * F = (m_i / rho_i) (d / n0) (2 p_i S + rho_i H), S and H the wall's first-moment and hydrostatic sums.
 * The body receives F dt at the particle's position. Over the boundary layers of a flat wall under a
 * uniform pressure p this gives 0.95 p per unit area for r_e = 4r (the ghost first moment summed over the
 * layers, 2r (d / n0) sum_k s(d_k) = 0.474, twice).
 * The particle's own correction keeps eq. 5 with p^_i (applyPressureCorrection): there the pair term is
 * (p_g - p^_i), which is negative for ghosts above the particle (under a floating body the ghosts carry
 * less pressure than the particle), so its reaction would pull a floating body down instead of carrying it.
 */
export function addWallPressureImpulses(ctx: SimulationContext, state: MpsState): void {
  const coupling = state.walls.coupling;
  if (coupling.count === 0) return;
  const s = ctx.solver;
  const { pressure } = state;
  const { predictedX, predictedY, predictedZ, mass, material } = s;
  const inverseRestDensity = ctx.materials.inverseRestDensity;
  const scale = (ctx.substepTimeStep * DIMENSION) / state.lattice.restNumberDensity;
  const moments = coupling.moments;
  for (let k = 0; k < coupling.count; k++) {
    const i = coupling.particle[k];
    const inverseRho = inverseRestDensity[material[i]];
    const volumeScale = scale * mass[i] * inverseRho;
    const twiceP = 2 * pressure[i];
    const rho = 1 / inverseRho;
    const o = 6 * k;
    const slot = coupling.slot[k];
    addBodyImpulse(
      ctx,
      slot,
      ctx.colliders.entity[slot],
      volumeScale * (twiceP * moments[o] + rho * moments[o + 3]),
      volumeScale * (twiceP * moments[o + 1] + rho * moments[o + 4]),
      volumeScale * (twiceP * moments[o + 2] + rho * moments[o + 5]),
      predictedX[i],
      predictedY[i],
      predictedZ[i],
    );
  }
}

/**
 * Computes the pressure gradient (eq. 5 with p^_i, fluid neighbours plus wall ghosts) and adds the
 * correction dt u' = -(dt^2 / rho) grad p (eq. 15-17), clamped to one particle radius, to x*.
 */
export function applyPressureCorrection(ctx: SimulationContext, state: MpsState): void {
  const s = ctx.solver;
  const n = s.count;
  const { pressure, minimumPressure, walls } = state;
  const { predictedX, predictedY, predictedZ, neighbourStart, neighbours, material, deltaX, deltaY, deltaZ } = s;
  const pairWeight = s.pairWeight;
  const coincidentOffset = COINCIDENT_OFFSET * ctx.settings.kernelRadius;
  minimumPressure.set(pressure.subarray(0, n));
  deltaX.fill(0, 0, n);
  deltaY.fill(0, 0, n);
  deltaZ.fill(0, 0, n);
  for (let i = 0; i < n; i++) {
    const end = neighbourStart[i + 1];
    for (let k = neighbourStart[i]; k < end; k++) {
      if (pairWeight[k] === 0) continue;
      const j = neighbours[k];
      if (pressure[j] < minimumPressure[i]) minimumPressure[i] = pressure[j];
      if (pressure[i] < minimumPressure[j]) minimumPressure[j] = pressure[i];
    }
  }
  // Gradient sums: grad p_i += (p_j - p^_i) (r_j - r_i) / r^2 w, grad p_j += (p_i - p^_j) (r_i - r_j) / r^2 w.
  for (let i = 0; i < n; i++) {
    const xi = predictedX[i];
    const yi = predictedY[i];
    const zi = predictedZ[i];
    const pi = pressure[i];
    const minimumI = minimumPressure[i];
    let gx = 0;
    let gy = 0;
    let gz = 0;
    const end = neighbourStart[i + 1];
    for (let k = neighbourStart[i]; k < end; k++) {
      const w = pairWeight[k];
      if (w === 0) continue;
      const j = neighbours[k];
      // r = r_j - r_i.
      let rx = predictedX[j] - xi;
      const ry = predictedY[j] - yi;
      const rz = predictedZ[j] - zi;
      if (rx === 0 && ry === 0 && rz === 0) rx = coincidentOffset;
      const weightOverSquare = w / (rx * rx + ry * ry + rz * rz);
      const a = (pressure[j] - minimumI) * weightOverSquare;
      gx += a * rx;
      gy += a * ry;
      gz += a * rz;
      const b = (pi - minimumPressure[j]) * weightOverSquare;
      deltaX[j] -= b * rx;
      deltaY[j] -= b * ry;
      deltaZ[j] -= b * rz;
    }
    deltaX[i] += gx;
    deltaY[i] += gy;
    deltaZ[i] += gz;
  }
  const dt = ctx.substepTimeStep;
  const gradientScale = DIMENSION / state.lattice.restNumberDensity;
  const inverseRestDensity = ctx.materials.inverseRestDensity;
  const maxCorrection = ctx.settings.particleRadius;
  const maxCorrectionSquared = maxCorrection * maxCorrection;
  const { correctionScale } = s;
  for (let i = 0; i < n; i++) {
    // Wall ghosts carry p_g = p_i + rho g . (x_g - x_i): (p_g - p^_i) = (p_i - p^_i) + rho g . (x_g - x_i).
    const inverseRho = inverseRestDensity[material[i]];
    const excess = pressure[i] - minimumPressure[i];
    const gx = deltaX[i] + excess * walls.firstMomentX[i] + walls.hydrostaticX[i] / inverseRho;
    const gy = deltaY[i] + excess * walls.firstMomentY[i] + walls.hydrostaticY[i] / inverseRho;
    const gz = deltaZ[i] + excess * walls.firstMomentZ[i] + walls.hydrostaticZ[i] / inverseRho;
    // dt u' = -(dt^2 / rho) grad p (eq. 15), added to r* (eq. 17).
    const scale = -dt * dt * inverseRho * gradientScale;
    let dx = scale * gx;
    let dy = scale * gy;
    let dz = scale * gz;
    const lengthSquared = dx * dx + dy * dy + dz * dz;
    if (lengthSquared > maxCorrectionSquared) {
      const clamp = maxCorrection / Math.sqrt(lengthSquared);
      dx *= clamp;
      dy *= clamp;
      dz *= clamp;
      correctionScale[i] = clamp;
    } else {
      correctionScale[i] = 1;
    }
    deltaX[i] = dx;
    deltaY[i] = dy;
    deltaZ[i] = dz;
    predictedX[i] += dx;
    predictedY[i] += dy;
    predictedZ[i] += dz;
  }
}
