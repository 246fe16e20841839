/**
 * The systems of the WebGPU backend's step (see `webGpuSystems` in pipeline.ts): the CPU part (emitters,
 * validation of the components game code edits) runs as on the CPU backend; `gpuStepSystem` uploads and
 * records the GPU passes; `gpuPublishSystem` requests the asynchronous readback whose result
 * `applyReadback` writes to the components (positions, velocities, densities, ages), the entity
 * bookkeeping (particles removed by drains, lifetimes and `removeParticle`) and the coupled colliders'
 * `BodyCoupling` impulse accumulators.
 */
import { commitColliderPoses } from '../collide/cpu';
import type { SimulationContext } from '../context';
import { destroyParticle } from '../entities';
import { FluidError } from '../errors';
import type { GpuReadback, WebGpuSolver } from './backend';
import { BODY_IMPULSE_COMPONENTS } from './structs';

/** When game code sees particle components on the WebGPU backend. */
export type MirrorMode = 'every-frame' | 'on-demand' | 'off';

/** The WebGPU backend's state in the simulation context. */
export interface GpuContext {
  /** The GPU solver. */
  readonly solver: WebGpuSolver;
  /** Mirror mode (see {@link MirrorMode}). */
  mirror: MirrorMode;
  /** Set by `readback()`: the next publish reads the particles back even when the mode is not 'every-frame'. */
  particlesRequested: boolean;
  /** Readbacks in flight; each resolves after its result was applied. */
  readonly inFlight: Set<Promise<void>>;
  /** Live particles on the GPU at the last applied readback. */
  gpuCount: number;
  /** Removed ids that readbacks brought since the last step began; the next step reports them. */
  removedSinceStep: number;
  /** Called when a readback fails (device lost). */
  onReadbackError: (error: unknown) => void;
  /**
   * Set when a readback found a non-finite position or velocity: the next step throws a `FluidError` and
   * the GPU state is rebuilt from the components (the last mirrored state).
   */
  nonFinite: boolean;
}

/**
 * Records the step's uploads and dispatches. After a step that produced a non-finite value it throws a
 * {@link FluidError} instead and rebuilds the GPU state from the components, so the following step continues
 * from the last mirrored state.
 */
export function gpuStepSystem(ctx: SimulationContext): void {
  const gpu = ctx.gpu;
  if (!gpu) return;
  // The removals the readbacks brought since the previous step are this step's `lastRemoved()`.
  ctx.stats.removedCount = gpu.removedSinceStep;
  gpu.removedSinceStep = 0;
  if (gpu.nonFinite) {
    gpu.nonFinite = false;
    gpu.solver.resetParticles();
    throw new FluidError(
      'the WebGPU step produced a non-finite position or velocity; the GPU state was rebuilt from the last mirrored components',
    );
  }
  gpu.solver.step();
}

/** Requests this step's readback: counts and removed ids always, particles when mirrored or requested. */
export function gpuPublishSystem(ctx: SimulationContext): void {
  const gpu = ctx.gpu;
  if (!gpu) return;
  const particles = gpu.mirror === 'every-frame' || gpu.particlesRequested;
  const promise: Promise<void> = gpu.solver
    .readback(particles)
    .then((result) => {
      if (result) applyReadback(ctx, result);
      else if (particles) gpu.particlesRequested = true;
    })
    .catch((error: unknown) => gpu.onReadbackError(error))
    .finally(() => gpu.inFlight.delete(promise));
  gpu.inFlight.add(promise);
  if (particles) gpu.particlesRequested = false;
  ctx.stats.particleCount = ctx.solver.count;
  // As on the CPU (publish.ts): the poses the step ended at are where the next step's colliders start from.
  commitColliderPoses(ctx);
}

/** Writes a readback's results to the bookkeeping, the components and the stats. */
export function applyReadback(ctx: SimulationContext, result: GpuReadback): void {
  const gpu = ctx.gpu;
  if (!gpu) return;
  const s = ctx.solver;
  const removedIds = ctx.events.removed;
  for (let k = 0; k < result.removed.length; k++) {
    const eid = result.removed[k];
    if (eid < s.placeOfEntity.length && s.placeOfEntity[eid] >= 0) {
      destroyParticle(ctx, eid);
      if (gpu.removedSinceStep < removedIds.length) removedIds[gpu.removedSinceStep++] = eid;
    }
  }
  gpu.gpuCount = result.count;
  if (result.nonFinite) {
    // The components keep the last finite state; the next step reports it and starts again from them.
    gpu.nonFinite = true;
    return;
  }
  ctx.stats.particleCount = s.count;
  // (After a non-finite step, returned above, the impulses are dropped with the GPU state.)
  addBodyImpulses(ctx, gpu, result);
  const { position, velocity, info, infoFloat, solve } = result;
  if (!position || !velocity || !info || !infoFloat || !solve) return;
  const { Position, Velocity, Density, Particle } = ctx.components;
  const inverseRestDensity = ctx.materials.inverseRestDensity;
  const full = ctx.lattice.fullNeighbourhood;
  let errorSum = 0;
  let errorMax = 0;
  let fullCount = 0;
  let neighbours = 0;
  for (let k = 0; k < result.count; k++) {
    const eid = info[4 * k];
    const density = solve[4 * k];
    const count = solve[4 * k + 2];
    neighbours += count;
    if (count >= full) {
      const error = Math.abs(density * inverseRestDensity[info[4 * k + 1]] - 1);
      errorSum += error;
      if (error > errorMax) errorMax = error;
      fullCount++;
    }
    // Entities removed meanwhile, and particles whose edits wait for the next step, keep their components.
    if (eid >= s.placeOfEntity.length || s.placeOfEntity[eid] < 0 || gpu.solver.isPending(eid)) continue;
    Position.x[eid] = position[4 * k];
    Position.y[eid] = position[4 * k + 1];
    Position.z[eid] = position[4 * k + 2];
    Velocity.x[eid] = velocity[4 * k];
    Velocity.y[eid] = velocity[4 * k + 1];
    Velocity.z[eid] = velocity[4 * k + 2];
    Density[eid] = density;
    Particle.age[eid] = infoFloat[4 * k + 2];
  }
  const stats = ctx.stats;
  stats.fullNeighbourhoodCount = fullCount;
  stats.meanDensityError = fullCount > 0 ? errorSum / fullCount : 0;
  stats.maxDensityError = errorMax;
  stats.meanNeighbourCount = result.count > 0 ? neighbours / result.count : 0;
}

/**
 * Adds the impulses a readback brought to the `BodyCoupling` accumulators of their colliders, skipping
 * colliders removed or uncoupled since (their generation changed, see `WebGpuSolver.forgetCollider`).
 */
function addBodyImpulses(ctx: SimulationContext, gpu: GpuContext, result: GpuReadback): void {
  const b = ctx.components.BodyCoupling;
  const { bodyEntities, bodyGenerations, bodyImpulses } = result;
  for (let k = 0; k < result.bodyCount; k++) {
    const eid = bodyEntities[k];
    if (eid < 0 || b.coupled[eid] !== 1 || gpu.solver.colliderGeneration(eid) !== bodyGenerations[k]) continue;
    const o = BODY_IMPULSE_COMPONENTS * k;
    b.impulseX[eid] += bodyImpulses[o];
    b.impulseY[eid] += bodyImpulses[o + 1];
    b.impulseZ[eid] += bodyImpulses[o + 2];
    b.angularImpulseX[eid] += bodyImpulses[o + 3];
    b.angularImpulseY[eid] += bodyImpulses[o + 4];
    b.angularImpulseZ[eid] += bodyImpulses[o + 5];
  }
}
