/**
 * The systems of the WebGPU backend's step (see `webGpuSystems` in pipeline.ts): the CPU part (emitters,
 * validation of the components game code edits) runs as on the CPU backend; `gpuStepSystem` uploads and
 * records the GPU passes; `gpuPublishSystem` requests the asynchronous readback whose result
 * `applyReadback` writes to the components (positions, velocities, densities, ages, and the temperatures
 * and colors while steps diffused or heated them since the last copy, `WebGpuSolver.attributesDirty`),
 * the entity
 * bookkeeping (particles removed by drains, lifetimes and `removeParticle`) and the coupled colliders'
 * `BodyCoupling` impulse accumulators.
 */

import { FluidError } from '../../core/errors';
import { commitColliderPoses } from '../collide/cpu';
import type { SimulationContext } from '../context';
import { createParticle, destroyParticle } from '../entities';
import type { MirrorMode } from '../options';
import type { GpuReadback, WebGpuSolver } from './backend';
import { BODY_IMPULSE_COMPONENTS, DIFFUSE_COUNTERS, DiffuseParticle, TEMPERATURE_REFERENCE } from './structs';

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
  /** The projection's iterations the last applied readback brought (`stats.projectionIterations`). */
  projectionIterations: number;
  /** The MPS solve's iterations and residual the last applied readback brought (`stats.pressureSolve*`). */
  pressureSolveIterations: number;
  pressureSolveResidual: number;
  /** Set once the console warned that an MPS solve stopped at the recorded iterations. */
  mpsLimitReported: boolean;
}

/**
 * Records the step's uploads and dispatches. After a step that produced a non-finite value it throws a
 * {@link FluidError} instead and rebuilds the GPU state from the components, so the following step continues
 * from the last mirrored state.
 */
export function gpuStepSystem(ctx: SimulationContext, gpu: GpuContext): void {
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
export function gpuPublishSystem(ctx: SimulationContext, gpu: GpuContext): void {
  const particles = gpu.mirror === 'every-frame' || gpu.particlesRequested;
  const promise: Promise<void> = gpu.solver
    .readback(particles)
    .then((result) => {
      if (result) applyReadback(ctx, gpu, result);
      else if (particles) gpu.particlesRequested = true;
    })
    .catch((error: unknown) => gpu.onReadbackError(error))
    .finally(() => gpu.inFlight.delete(promise));
  gpu.inFlight.add(promise);
  if (particles) gpu.particlesRequested = false;
  // The step's start zeroed it (pipeline.ts): the GPU's figure is the latest readback's.
  ctx.stats.projectionIterations = gpu.projectionIterations;
  if (ctx.settings.solver === 'mps') {
    ctx.stats.pressureSolveIterations = gpu.pressureSolveIterations;
    ctx.stats.pressureSolveResidual = gpu.pressureSolveResidual;
  }
  ctx.stats.particleCount = ctx.solver.count;
  // As on the CPU (publish.ts): the poses the step ended at are where the next step's colliders start from.
  commitColliderPoses(ctx);
}

/**
 * White water's counters into the stats, and with a particle readback its pool into
 * `simulation.diffuseParticles` (the live slots in slot order, each kind and material as the CPU keeps them).
 */
function applyDiffuse(ctx: SimulationContext, result: GpuReadback): void {
  const counters = result.diffuseCounters;
  if (counters) {
    const stats = ctx.stats;
    stats.diffuseGeneratedCount = counters[DIFFUSE_COUNTERS.generated];
    stats.diffuseDroppedCount = counters[DIFFUSE_COUNTERS.dropped];
    stats.diffuseRemovedCount = counters[DIFFUSE_COUNTERS.removed];
    stats.diffuseSprayCount = counters[DIFFUSE_COUNTERS.spray];
    stats.diffuseFoamCount = counters[DIFFUSE_COUNTERS.foam];
    stats.diffuseBubbleCount = counters[DIFFUSE_COUNTERS.bubble];
    stats.diffuseCount = stats.diffuseSprayCount + stats.diffuseFoamCount + stats.diffuseBubbleCount;
  }
  const pool = result.diffusePool;
  const words = result.diffuseWords;
  if (!pool || !words) return;
  const particles = ctx.diffuse.particles;
  const stride = DiffuseParticle.size / 4;
  const position = DiffuseParticle.offsets.position / 4;
  const velocity = DiffuseParticle.offsets.velocity / 4;
  const info = DiffuseParticle.offsets.info / 4;
  let count = 0;
  for (let slot = 0; slot < particles.capacity; slot++) {
    const o = slot * stride;
    // (x, y, z, age), (vx, vy, vz, lifetime); lifetime 0: a free slot.
    const lifetime = pool[o + velocity + 3];
    if (!(lifetime > 0)) continue;
    particles.positionX[count] = pool[o + position];
    particles.positionY[count] = pool[o + position + 1];
    particles.positionZ[count] = pool[o + position + 2];
    particles.age[count] = pool[o + position + 3];
    particles.velocityX[count] = pool[o + velocity];
    particles.velocityY[count] = pool[o + velocity + 1];
    particles.velocityZ[count] = pool[o + velocity + 2];
    particles.lifetime[count] = lifetime;
    particles.kind[count] = words[o + info];
    particles.material[count] = ctx.materials.entity[words[o + info + 1]];
    count++;
  }
  particles.count = count;
}

/** Writes a readback's results to the bookkeeping, the components and the stats. */
export function applyReadback(ctx: SimulationContext, gpu: GpuContext, result: GpuReadback): void {
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
    // Air candidates waiting to be created came from (or before) the discarded GPU state: dropped, so the
    // step-start `gpuTrappedAir` (which runs before `gpuStep` rebuilds the state) creates none of them.
    gpu.nonFinite = true;
    gpu.solver.takeAirCandidates();
    return;
  }
  ctx.stats.particleCount = s.count;
  gpu.projectionIterations = result.projectionIterations;
  ctx.stats.projectionIterations = result.projectionIterations;
  applyMpsSolve(ctx, gpu, result);
  reportLimitedDiffusion(ctx, result.diffusionLimitedSubsteps);
  applyAirEvents(ctx, gpu, result);
  applyDiffuse(ctx, result);
  // (After a non-finite step, returned above, the impulses are dropped with the GPU state.)
  addBodyImpulses(ctx, gpu, result);
  const { position, velocity, info, infoFloat, solve, attributes } = result;
  if (!position || !velocity || !info || !infoFloat || !solve) return;
  const { Position, Velocity, Density, Particle, Temperature, Color } = ctx.components;
  const inverseRestDensity = ctx.materials.inverseRestDensity;
  // As the CPU's updateDensityStats (publish.ts): rho0 = alpha / T for a material with alpha > 0 (eq. 16).
  const temperatureDensity = s.multiFluid.features.temperatureDensity;
  const alphaOf = ctx.components.FluidMaterial.temperatureDensity;
  const materialEntity = ctx.materials.entity;
  const full = ctx.lattice.fullNeighbourhood;
  const warmStart = ctx.settings.solver === 'mps' ? ctx.mps?.pressureOfEntity : undefined;
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
      const slot = info[4 * k + 1];
      let inverse = inverseRestDensity[slot];
      if (temperatureDensity) {
        const alpha = alphaOf[materialEntity[slot]];
        // The temperature this readback brought, else the component's (the GPU's when none changed it since).
        const temperature = attributes ? attributes[4 * eid] + TEMPERATURE_REFERENCE : Temperature[eid];
        if (alpha > 0) inverse = temperature / alpha;
      }
      const error = Math.abs(density * inverse - 1);
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
    // MPS: the particle's pressure (solve.y, mps/density.wgsl), the CPU's copy of the warm start for snapshots.
    if (warmStart) warmStart[eid] = solve[4 * k + 1];
    Particle.age[eid] = infoFloat[4 * k + 2];
    if (attributes) {
      // Entity-indexed (see `GpuReadback.attributes`): temperature (relative to TEMPERATURE_REFERENCE on the
      // GPU, made absolute in float64 here) and color.
      Temperature[eid] = attributes[4 * eid] + TEMPERATURE_REFERENCE;
      Color.red[eid] = attributes[4 * eid + 1];
      Color.green[eid] = attributes[4 * eid + 2];
      Color.blue[eid] = attributes[4 * eid + 3];
    }
  }
  const stats = ctx.stats;
  stats.fullNeighbourhoodCount = fullCount;
  stats.meanDensityError = fullCount > 0 ? errorSum / fullCount : 0;
  stats.maxDensityError = errorMax;
  stats.meanNeighbourCount = result.count > 0 ? neighbours / result.count : 0;
}

/**
 * The MPS pressure solve's iterations and residual a readback brought: into the stats (again at each publish
 * until the next readback), and to the solver, which adapts the iterations its substeps record
 * (`WebGpuSolver.noteMpsSolve`); the first time a solve was cut short there, a console warning.
 */
function applyMpsSolve(ctx: SimulationContext, gpu: GpuContext, result: GpuReadback): void {
  if (ctx.settings.solver !== 'mps') return;
  gpu.pressureSolveIterations = result.pressureSolveIterations;
  gpu.pressureSolveResidual = result.pressureSolveResidual;
  ctx.stats.pressureSolveIterations = result.pressureSolveIterations;
  ctx.stats.pressureSolveResidual = result.pressureSolveResidual;
  if (gpu.solver.noteMpsSolve(result.pressureSolveIterations, result.pressureSolveResidual) && !gpu.mpsLimitReported) {
    gpu.mpsLimitReported = true;
    console.warn(
      `fluid WebGPU backend: an MPS pressure solve stopped after the ${result.pressureSolveIterations} conjugate gradient iterations a substep recorded, at the relative residual ${result.pressureSolveResidual}; later steps record more (up to mps.maxIterations); this warning is shown once`,
    );
  }
}

/**
 * Adds the substeps a readback reports with limited diffusion (the GPU ran fewer diffusion parts than the
 * CPU would, see `diffusionSlots` in scene.ts) to `stats.diffusionLimitedSubsteps`, and warns once per
 * simulation on the console.
 */
function reportLimitedDiffusion(ctx: SimulationContext, substeps: number): void {
  if (substeps === 0) return;
  if (ctx.stats.diffusionLimitedSubsteps === 0) {
    console.warn(
      `fluid WebGPU backend: in ${substeps} substep(s) the diffusion needed more parts than the step recorded, so temperatures and colors diffused less than on the CPU backend (stats.diffusionLimitedSubsteps counts them); this warning is shown once`,
    );
  }
  ctx.stats.diffusionLimitedSubsteps += substeps;
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

/**
 * Boiling and trapped air on the WebGPU backend (multifluid/airFields.wgsl): the particles a readback says
 * boiled take their vapour material in `Particle.material` and its render color in `Color` (as
 * boilingSystem does on the CPU), and `stats.boiledCount` and `stats.airRemovedCount` become the counts the
 * readback brought (the GPU step(s) it covers; the deleted air particles themselves leave with the next
 * step's removed ids, as drained ones do).
 */
function applyAirEvents(ctx: SimulationContext, gpu: GpuContext, result: GpuReadback): void {
  if (!result.airEventsRead) return;
  const { boiled } = result;
  const { Particle, Color, FluidMaterial } = ctx.components;
  const s = ctx.solver;
  const materials = ctx.materials;
  let boiledCount = 0;
  for (let k = 0; k + 1 < boiled.length; k += 2) {
    const eid = boiled[k];
    const slot = boiled[k + 1];
    if (eid >= s.placeOfEntity.length || s.placeOfEntity[eid] < 0 || slot >= materials.count) continue;
    const vapour = materials.entity[slot];
    Particle.material[eid] = vapour;
    // The GPU holds the vapour now: later edits that leave the material alone keep it there.
    gpu.solver.noteGpuMaterial(eid, vapour);
    Color.red[eid] = FluidMaterial.colorRed[vapour];
    Color.green[eid] = FluidMaterial.colorGreen[vapour];
    Color.blue[eid] = FluidMaterial.colorBlue[vapour];
    boiledCount++;
  }
  ctx.stats.boiledCount = boiledCount;
  ctx.stats.airRemovedCount = result.airDeletedCount;
}

/**
 * Step-start system `trappedAir` of the WebGPU system list (after `emit`): creates the air particles the
 * GPU's generation pass (section 3.4.1, multifluid/airFields.wgsl) proposed at the end of an earlier step
 * and a readback brought, through `createParticle` (queued for the append pass, as emitted particles),
 * listed in `lastEmitted()` and counted in `stats.emittedCount` and `stats.airGeneratedCount`. Latency: the
 * CPU backend creates them at the end of the step that proposed them and reports them in that step's
 * stats; here they are reported one step later. When the readback arrived before this step (a loop that
 * awaits `readback()`, or a readback that resolved between frames), they take part in this step, as on
 * the CPU; when it arrives later, they are created at the first step after it, still at the position and
 * velocity of the step that proposed them. At most the free capacity (after this step's emitters, which
 * therefore come first here, unlike on the CPU); nothing when no readback brought any. Candidates with a
 * non-finite value are skipped (those of a non-finite step are dropped by `applyReadback` already).
 */
export function gpuTrappedAirSystem(ctx: SimulationContext, gpu: GpuContext): void {
  ctx.stats.airGeneratedCount = 0;
  const { count, data } = gpu.solver.takeAirCandidates();
  if (count === 0) return;
  const stats = ctx.stats;
  const emitted = ctx.events.emitted;
  const materials = ctx.materials;
  const room = Math.min(count, ctx.settings.capacity - ctx.solver.count);
  let created = 0;
  for (let k = 0; k < room; k++) {
    const o = 8 * k;
    const slot = data[o + 3];
    if (!(slot >= 0 && slot < materials.count)) continue;
    // A candidate from a non-finite GPU state would carry NaN into the components and the next upload.
    let finite = true;
    for (let c = 0; c < 7; c++) if (!Number.isFinite(data[o + c])) finite = false;
    if (!finite) continue;
    const id = createParticle(
      ctx,
      data[o],
      data[o + 1],
      data[o + 2],
      data[o + 4],
      data[o + 5],
      data[o + 6],
      materials.entity[slot],
      0,
    );
    created++;
    if (stats.emittedCount < emitted.length) emitted[stats.emittedCount++] = id;
  }
  stats.airGeneratedCount = created;
}
