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

import { poly6Coefficient, spikyGradientCoefficient } from '../../core/kernels';
import { colliderSurfaceVelocity } from '../collide/cpu';
import type { SimulationContext } from '../context';
import { addBodyImpulse } from '../couple/cpu';
import { runPartitioned, setKernelParameters } from '../parallel/cpu';
import { Kernel, KernelParameter } from '../parallel/kernels';
import {
  confinementInWebAssembly,
  viscosityPartitionsInWebAssembly,
  vorticityPartitionsInWebAssembly,
  xsphVorticityInWebAssembly,
} from './wasm';

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
        surfaceVelocity[0] = predictedX[i];
        surfaceVelocity[1] = predictedY[i];
        surfaceVelocity[2] = predictedZ[i];
        colliderSurfaceVelocity(ctx, slot, surfaceVelocity, surfaceVelocity);
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

/** One thread: XSPH viscosity and vorticity confinement in two passes over the half lists. */
function viscosityVorticityOneThread(ctx: SimulationContext): void {
  const s = ctx.solver;
  const n = s.count;
  const h = ctx.settings.kernelRadius;
  const hSquared = h * h;
  const poly6C = poly6Coefficient(h);
  const spikyC = spikyGradientCoefficient(h);
  const dt = ctx.substepTimeStep;
  const { predictedX, predictedY, predictedZ, velocityX, velocityY, velocityZ, mass, density, material } = s;
  const { deltaX, deltaY, deltaZ, vorticityX, vorticityY, vorticityZ, neighbourStart, neighbours } = s;
  const viscosity = ctx.materials.viscosity;
  const vorticityStrength = ctx.materials.vorticity;
  let anyVorticity = false;
  for (let m = 0; m < ctx.materials.count; m++) if (vorticityStrength[m] > 0) anyVorticity = true;
  const volume = s.volume;
  for (let i = 0; i < n; i++) volume[i] = mass[i] / density[i];

  // Pass 1, over pairs: vorticity (eq. 15) and the XSPH sum (eq. 17), both from the same velocities.
  // With g = grad_i W_ij = -grad_j W_ij and u = v_i - v_j, both particles get omega += V_other (u x g).
  vorticityX.fill(0, 0, n);
  vorticityY.fill(0, 0, n);
  vorticityZ.fill(0, 0, n);
  deltaX.fill(0, 0, n);
  deltaY.fill(0, 0, n);
  deltaZ.fill(0, 0, n);
  // In WebAssembly where the CPU module runs (velocity/wasm.ts: the same operations, bit for bit).
  const inWebAssembly = xsphVorticityInWebAssembly(ctx);
  if (inWebAssembly) ctx.stats.webAssembly = true;
  if (!inWebAssembly) {
    for (let i = 0; i < n; i++) {
      const xi = predictedX[i];
      const yi = predictedY[i];
      const zi = predictedZ[i];
      const vxi = velocityX[i];
      const vyi = velocityY[i];
      const vzi = velocityZ[i];
      const volumeI = volume[i];
      let wx = vorticityX[i];
      let wy = vorticityY[i];
      let wz = vorticityZ[i];
      let ax = deltaX[i];
      let ay = deltaY[i];
      let az = deltaZ[i];
      const end = neighbourStart[i + 1];
      for (let k = neighbourStart[i]; k < end; k++) {
        const j = neighbours[k];
        const rx = xi - predictedX[j];
        const ry = yi - predictedY[j];
        const rz = zi - predictedZ[j];
        const r2 = rx * rx + ry * ry + rz * rz;
        if (r2 >= hSquared) continue;
        const volumeJ = volume[j];
        const ux = vxi - velocityX[j];
        const uy = vyi - velocityY[j];
        const uz = vzi - velocityZ[j];
        const d = hSquared - r2;
        const w = poly6C * d * d * d;
        // XSPH: a_i += V_j W (v_j - v_i), a_j += V_i W (v_i - v_j).
        ax -= volumeJ * w * ux;
        ay -= volumeJ * w * uy;
        az -= volumeJ * w * uz;
        deltaX[j] += volumeI * w * ux;
        deltaY[j] += volumeI * w * uy;
        deltaZ[j] += volumeI * w * uz;
        if (r2 > 0) {
          const r = Math.sqrt(r2);
          const e = h - r;
          const g = (-spikyC * e * e) / r;
          const gx = g * rx;
          const gy = g * ry;
          const gz = g * rz;
          const cx = uy * gz - uz * gy;
          const cy = uz * gx - ux * gz;
          const cz = ux * gy - uy * gx;
          wx += volumeJ * cx;
          wy += volumeJ * cy;
          wz += volumeJ * cz;
          vorticityX[j] += volumeI * cx;
          vorticityY[j] += volumeI * cy;
          vorticityZ[j] += volumeI * cz;
        }
      }
      vorticityX[i] = wx;
      vorticityY[i] = wy;
      vorticityZ[i] = wz;
      deltaX[i] = ax;
      deltaY[i] = ay;
      deltaZ[i] = az;
    }
  }
  for (let i = 0; i < n; i++) {
    const c = viscosity[material[i]];
    velocityX[i] += c * deltaX[i];
    velocityY[i] += c * deltaY[i];
    velocityZ[i] += c * deltaZ[i];
  }

  // Pass 2: vorticity confinement (eq. 16). eta_i = sum_j V_j (|omega_j| - |omega_i|) grad_i W_ij, and
  // for the pair's other particle eta_j gets V_i (|omega_j| - |omega_i|) g as well (grad_j W_ji = -g).
  if (anyVorticity) {
    const magnitude = s.lambda; // free after the density solve
    const { gradientX: etaX, gradientY: etaY, gradientZ: etaZ } = s;
    for (let i = 0; i < n; i++) {
      magnitude[i] = Math.sqrt(vorticityX[i] ** 2 + vorticityY[i] ** 2 + vorticityZ[i] ** 2);
      etaX[i] = 0;
      etaY[i] = 0;
      etaZ[i] = 0;
    }
    if (inWebAssembly) confinementInWebAssembly(ctx, magnitude, etaX, etaY, etaZ);
    else {
      for (let i = 0; i < n; i++) {
        const xi = predictedX[i];
        const yi = predictedY[i];
        const zi = predictedZ[i];
        const magnitudeI = magnitude[i];
        const volumeI = volume[i];
        let ex = etaX[i];
        let ey = etaY[i];
        let ez = etaZ[i];
        const end = neighbourStart[i + 1];
        for (let k = neighbourStart[i]; k < end; k++) {
          const j = neighbours[k];
          const rx = xi - predictedX[j];
          const ry = yi - predictedY[j];
          const rz = zi - predictedZ[j];
          const r2 = rx * rx + ry * ry + rz * rz;
          if (r2 >= hSquared || r2 === 0) continue;
          const r = Math.sqrt(r2);
          const e = h - r;
          const g = ((-spikyC * e * e) / r) * (magnitude[j] - magnitudeI);
          const a = g * volume[j];
          ex += a * rx;
          ey += a * ry;
          ez += a * rz;
          const b = g * volumeI;
          etaX[j] += b * rx;
          etaY[j] += b * ry;
          etaZ[j] += b * rz;
        }
        etaX[i] = ex;
        etaY[i] = ey;
        etaZ[i] = ez;
      }
    }
    for (let i = 0; i < n; i++) {
      const epsilon = vorticityStrength[material[i]];
      const ex = etaX[i];
      const ey = etaY[i];
      const ez = etaZ[i];
      const etaLength = Math.sqrt(ex * ex + ey * ey + ez * ez);
      if (epsilon === 0 || etaLength < 1e-9) continue;
      const nx = ex / etaLength;
      const ny = ey / etaLength;
      const nz = ez / etaLength;
      const wxi = vorticityX[i];
      const wyi = vorticityY[i];
      const wzi = vorticityZ[i];
      velocityX[i] += dt * epsilon * (ny * wzi - nz * wyi);
      velocityY[i] += dt * epsilon * (nz * wxi - nx * wzi);
      velocityZ[i] += dt * epsilon * (nx * wyi - ny * wxi);
    }
  }
}

/**
 * Substep system: XSPH viscosity and vorticity confinement, then x = x*. On one thread in two passes over the
 * half lists; on several, parallel/kernels.ts's partitions (`viscosityPairs` and `viscosityFinish`: omega_i
 * and the XSPH sum from the same velocities, with g = grad_i W_ij = -grad_j W_ij and u = v_i - v_j both
 * particles get omega += V_other (u x g); then `vorticityPairs` and `vorticityFinish`: eta_i = sum_j V_j
 * (|omega_j| - |omega_i|) grad_i W_ij and the confinement; their pair loops in WebAssembly where the threads'
 * module runs, velocity/wasm.ts).
 */
export function viscosityVorticitySystem(ctx: SimulationContext): void {
  const s = ctx.solver;
  const n = s.count;
  const { predictedX, predictedY, predictedZ, mass, density, volume } = s;
  if (!ctx.threads.partitioned) viscosityVorticityOneThread(ctx);
  else {
    for (let i = 0; i < n; i++) volume[i] = mass[i] / density[i];
    setKernelParameters(ctx);
    const parameters = ctx.threads.kernelParameters;
    // In WebAssembly the pair loops add their spills themselves; the TypeScript finishing kernels apply the sums.
    const inWebAssembly = viscosityPartitionsInWebAssembly(ctx);
    if (inWebAssembly) {
      ctx.stats.webAssembly = true;
      parameters[KernelParameter.spillsAdded] = 1;
    } else runPartitioned(ctx, Kernel.viscosityPairs);
    runPartitioned(ctx, Kernel.viscosityFinish);
    if (parameters[KernelParameter.anyVorticity] !== 0) {
      if (inWebAssembly) vorticityPartitionsInWebAssembly(ctx);
      else runPartitioned(ctx, Kernel.vorticityPairs);
      runPartitioned(ctx, Kernel.vorticityFinish);
    }
  }
  const { positionX, positionY, positionZ } = s;
  positionX.set(predictedX.subarray(0, n));
  positionY.set(predictedY.subarray(0, n));
  positionZ.set(predictedZ.subarray(0, n));
}
