/**
 * External forces and prediction (Algorithm 1, lines 1-4 of Macklin & Müller 2013):
 * v <- v + dt g, clamped to `maxSpeed`; x* <- x + dt v.
 */
import type { SimulationContext } from '../context';

/** Applies gravity, clamps the speed and predicts positions. */
export function predictSystem(ctx: SimulationContext): void {
  const s = ctx.solver;
  const n = s.count;
  const dt = ctx.substepTimeStep;
  const gravity = ctx.settings.gravity;
  const gx = gravity[0];
  const gy = gravity[1];
  const gz = gravity[2];
  const maxSpeed = ctx.settings.maxSpeed;
  const maxSpeedSquared = maxSpeed * maxSpeed;
  const { positionX, positionY, positionZ, predictedX, predictedY, predictedZ, velocityX, velocityY, velocityZ } = s;
  for (let i = 0; i < n; i++) {
    let vx = velocityX[i] + dt * gx;
    let vy = velocityY[i] + dt * gy;
    let vz = velocityZ[i] + dt * gz;
    const speedSquared = vx * vx + vy * vy + vz * vz;
    if (speedSquared > maxSpeedSquared) {
      const scale = maxSpeed / Math.sqrt(speedSquared);
      vx *= scale;
      vy *= scale;
      vz *= scale;
    }
    velocityX[i] = vx;
    velocityY[i] = vy;
    velocityZ[i] = vz;
    predictedX[i] = positionX[i] + dt * vx;
    predictedY[i] = positionY[i] + dt * vy;
    predictedZ[i] = positionZ[i] + dt * vz;
  }
}
