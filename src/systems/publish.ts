/**
 * Frame-end system: checks that the step produced finite values, writes positions and velocities back to
 * the `Position`, `Velocity` and `Density` components, commits collider poses and updates the statistics. If any
 * value is not finite the components keep the previous step's state and a {@link FluidError} is thrown.
 */

import { FluidError } from '../core/errors';
import { commitColliderPoses } from './collide/cpu';
import type { SimulationContext } from './context';

/** Writes the step's results to the components and the stats. */
export function publishSystem(ctx: SimulationContext): void {
  const s = ctx.solver;
  const n = s.count;
  const { positionX, positionY, positionZ, velocityX, velocityY, velocityZ, entity } = s;
  for (let i = 0; i < n; i++) {
    if (!Number.isFinite(positionX[i] + positionY[i] + positionZ[i] + velocityX[i] + velocityY[i] + velocityZ[i])) {
      throw new FluidError(
        `the step produced a non-finite position or velocity for particle ${entity[i]}; the step was discarded`,
      );
    }
  }
  const { Position, Velocity, Density } = ctx.components;
  const density = s.density;
  for (let i = 0; i < n; i++) {
    const eid = entity[i];
    Density[eid] = density[i];
    Position.x[eid] = positionX[i];
    Position.y[eid] = positionY[i];
    Position.z[eid] = positionZ[i];
    Velocity.x[eid] = velocityX[i];
    Velocity.y[eid] = velocityY[i];
    Velocity.z[eid] = velocityZ[i];
  }
  commitColliderPoses(ctx);
  updateDensityStats(ctx);
  s.listedCount = n;
}

/**
 * Density error and neighbour statistics. A particle has a full neighbourhood when it and every one of
 * its neighbours have at least 80% of the neighbours a particle at rest density has: this leaves out the
 * particles within about one kernel radius of the free surface or of a wall, whose kernel is cut. The
 * rest density is the material's, or alpha / T of the particle for a material with a
 * `temperatureDensity` alpha (Müller et al. 2005, eq. 16).
 */
export function updateDensityStats(ctx: SimulationContext): void {
  const s = ctx.solver;
  const n = s.count;
  const stats = ctx.stats;
  const full = ctx.lattice.fullNeighbourhood;
  const inverseRestDensity = ctx.materials.inverseRestDensity;
  const temperatureDensity = s.multiFluid.features.temperatureDensity;
  const alphaOf = ctx.components.FluidMaterial.temperatureDensity;
  const materialEntity = ctx.materials.entity;
  const temperature = ctx.components.Temperature;
  const { neighbourStart, neighbours, neighbourCount } = s;
  // 1 where the particle or one of its neighbours has a cut neighbourhood (reusing the lambda array).
  const cut = s.lambda;
  for (let i = 0; i < n; i++) cut[i] = neighbourCount[i] < full ? 1 : 0;
  const deficient = s.gradientSquares;
  deficient.set(cut.subarray(0, n));
  for (let i = 0; i < n; i++) {
    const start = neighbourStart[i];
    const end = neighbourStart[i + 1];
    // A pair of the half list cuts both particles when either is deficient (i's own flag does not change in
    // its loop: j is never i).
    if (deficient[i] === 1) {
      cut[i] = 1;
      for (let k = start; k < end; k++) cut[neighbours[k]] = 1;
    } else {
      for (let k = start; k < end; k++) {
        if (deficient[neighbours[k]] === 1) {
          cut[i] = 1;
          break;
        }
      }
    }
  }
  let errorSum = 0;
  let errorMax = 0;
  let fullCount = 0;
  let totalNeighbours = 0;
  for (let i = 0; i < n; i++) {
    totalNeighbours += neighbourCount[i];
    if (cut[i] === 1) continue;
    let inverse = inverseRestDensity[s.material[i]];
    if (temperatureDensity) {
      // rho0 = alpha / T for a material with a temperature-dependent rest density (eq. 16).
      const alpha = alphaOf[materialEntity[s.material[i]]];
      if (alpha > 0) inverse = temperature[s.entity[i]] / alpha;
    }
    const error = Math.abs(s.density[i] * inverse - 1);
    errorSum += error;
    if (error > errorMax) errorMax = error;
    fullCount++;
  }
  stats.particleCount = n;
  stats.fullNeighbourhoodCount = fullCount;
  stats.meanDensityError = fullCount > 0 ? errorSum / fullCount : 0;
  stats.maxDensityError = errorMax;
  stats.meanNeighbourCount = n > 0 ? totalNeighbours / n : 0;
}
