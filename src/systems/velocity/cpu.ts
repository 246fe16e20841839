/**
 * Velocity update (Algorithm 1, lines 20-24 of Macklin & Müller 2013): v = (x* - x) / dt, then the
 * contact response (restitution and Coulomb friction relative to the collider's surface velocity), then
 * XSPH viscosity (eq. 17) and vorticity confinement (eq. 15-16), and finally x = x*. The fluid-fluid
 * interaction terms (multifluid/interaction.ts) follow as their own system, `multiFluid`.
 *
 * SPH sums carry the neighbour's volume V_j = m_j / rho_j so that the coefficients are dimensionless
 * (XSPH c) or in m/s (vorticity epsilon) whatever the particle size:
 * omega_i = sum_j V_j (v_j - v_i) x grad_j W_ij, v_i += c sum_j V_j (v_j - v_i) W_ij,
 * eta = sum_j V_j (|omega_j| - |omega_i|) grad_i W_ij, N = eta / |eta|, f = epsilon (N x omega_i).
 */

import { colliderSurfaceVelocity } from '../collide/cpu';
import type { SimulationContext } from '../context';
import { addBodyImpulse } from '../couple/cpu';
import { runPartitioned, setKernelParameters } from '../parallel/cpu';
import { Kernel, KernelParameter } from '../parallel/kernels';

const surfaceVelocity = new Float64Array(3);

/** Substep system: velocities from positions and the contact response. */
export function velocitySystem(ctx: SimulationContext): void {
  const s = ctx.solver;
  const n = s.count;
  const inverseDt = 1 / ctx.substepTimeStep;
  const { positionX, positionY, positionZ, predictedX, predictedY, predictedZ, velocityX, velocityY, velocityZ } = s;
  const { contactCollider, contactNormalX, contactNormalY, contactNormalZ, contactApproachSpeed } = s;
  const collider = ctx.components.Collider;
  const coupling = ctx.components.BodyCoupling;
  const colliderEntity = ctx.colliders.entity;
  const gravity = ctx.settings.gravity;
  const gx = gravity[0];
  const gy = gravity[1];
  const gz = gravity[2];
  const restingSpeed = 2 * Math.sqrt(gx * gx + gy * gy + gz * gz) * ctx.substepTimeStep;
  for (let i = 0; i < n; i++) {
    let vx = (predictedX[i] - positionX[i]) * inverseDt;
    let vy = (predictedY[i] - positionY[i]) * inverseDt;
    let vz = (predictedZ[i] - positionZ[i]) * inverseDt;
    const slot = contactCollider[i];
    if (slot >= 0) {
      const eid = colliderEntity[slot];
      const friction = collider.friction[eid];
      const restitution = collider.restitution[eid];
      if (friction > 0 || restitution > 0) {
        colliderSurfaceVelocity(ctx, slot, predictedX[i], predictedY[i], predictedZ[i], surfaceVelocity);
        const nx = contactNormalX[i];
        const ny = contactNormalY[i];
        const nz = contactNormalZ[i];
        const ux = vx - surfaceVelocity[0];
        const uy = vy - surfaceVelocity[1];
        const uz = vz - surfaceVelocity[2];
        let normalSpeed = ux * nx + uy * ny + uz * nz;
        let tx = ux - normalSpeed * nx;
        let ty = uy - normalSpeed * ny;
        let tz = uz - normalSpeed * nz;
        const approach = contactApproachSpeed[i];
        // Restitution: bounce back with e times the approach speed (not for resting contact).
        if (restitution > 0 && -approach > restingSpeed) {
          const bounce = -restitution * approach;
          if (normalSpeed < bounce) normalSpeed = bounce;
        }
        // Coulomb friction: the tangential change is at most mu times the normal change.
        const normalChange = normalSpeed - approach;
        const tangentialSpeed = Math.sqrt(tx * tx + ty * ty + tz * tz);
        if (friction > 0 && tangentialSpeed > 0 && normalChange > 0) {
          const keep = Math.max(0, 1 - (friction * normalChange) / tangentialSpeed);
          tx *= keep;
          ty *= keep;
          tz *= keep;
        }
        const newX = surfaceVelocity[0] + tx + normalSpeed * nx;
        const newY = surfaceVelocity[1] + ty + normalSpeed * ny;
        const newZ = surfaceVelocity[2] + tz + normalSpeed * nz;
        if (coupling.coupled[eid] === 1) {
          // The body receives -m (v_after - v_before), at the contact point.
          const m = s.mass[i];
          const r = ctx.settings.particleRadius;
          addBodyImpulse(
            ctx,
            slot,
            eid,
            m * (vx - newX),
            m * (vy - newY),
            m * (vz - newZ),
            predictedX[i] - r * nx,
            predictedY[i] - r * ny,
            predictedZ[i] - r * nz,
          );
        }
        vx = newX;
        vy = newY;
        vz = newZ;
      }
    }
    velocityX[i] = vx;
    velocityY[i] = vy;
    velocityZ[i] = vz;
  }
}

/**
 * Substep system: XSPH viscosity and vorticity confinement, then x = x*. The pair loops are
 * parallel/kernels.ts's (`viscosityPairs` and `viscosityFinish`: omega_i and the XSPH sum from the same
 * velocities, with g = grad_i W_ij = -grad_j W_ij and u = v_i - v_j both particles get omega += V_other
 * (u x g); then `vorticityPairs` and `vorticityFinish`: eta_i = sum_j V_j (|omega_j| - |omega_i|) grad_i
 * W_ij and the confinement), in partitions the threads share.
 */
export function viscosityVorticitySystem(ctx: SimulationContext): void {
  const s = ctx.solver;
  const n = s.count;
  const { predictedX, predictedY, predictedZ, mass, density, volume } = s;
  for (let i = 0; i < n; i++) volume[i] = mass[i] / density[i];
  setKernelParameters(ctx);
  runPartitioned(ctx, Kernel.viscosityPairs);
  runPartitioned(ctx, Kernel.viscosityFinish);
  if (ctx.threads.kernelParameters[KernelParameter.anyVorticity] !== 0) {
    runPartitioned(ctx, Kernel.vorticityPairs);
    runPartitioned(ctx, Kernel.vorticityFinish);
  }

  const { positionX, positionY, positionZ } = s;
  positionX.set(predictedX.subarray(0, n));
  positionY.set(predictedY.subarray(0, n));
  positionZ.set(predictedZ.subarray(0, n));
}
