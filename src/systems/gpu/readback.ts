/**
 * The readback of the WebGPU solver (gpu/backend.ts): what one readback brings back (`GpuReadback`), what
 * a readback recorded (`ReadbackRequest`), and the decoding of the mapped copy into the
 * step's state words (particle count, non-finite flag, limited diffusion), the removed ids, the particles
 * (positions, velocities, bookkeeping, densities, wall gradients, attributes) and the air events (boiled
 * particles, deleted air, generation candidates appended to the solver's pending list). Typed views over the
 * copy, no copies of the data.
 */
import type { BodyEntries } from './impulses';
import type { StagingCopy } from './staging';
import { AIR_EVENTS, State } from './structs';

/** What the readback of one step brings back (typed views over a staging copy). */
export interface GpuReadback {
  /** Live particles on the GPU after the step. */
  readonly count: number;
  /** Entity ids removed by drains, lifetimes and removals in the step. */
  readonly removed: Uint32Array;
  /** True if a step produced a non-finite position or velocity (the GPU state is then invalid). */
  readonly nonFinite: boolean;
  /** When particles were read: xyz + material per particle, in GPU order (else undefined). */
  readonly position?: Float32Array;
  /** Velocity xyz (+ unused w) per particle. */
  readonly velocity?: Float32Array;
  /** `ParticleInfo` per particle (entity, material, age, lifetime), as words. */
  readonly info?: Uint32Array;
  /** The same memory as `info` read as float32, for the float fields (age and lifetime, in seconds). */
  readonly infoFloat?: Float32Array;
  /** (density, lambda, neighbour count, unused) per particle. */
  readonly solve?: Float32Array;
  /**
   * (wall gradient, w) per particle: w unused, except with the number-density constraint
   * (density/numberDensityLambda.wgsl), where it holds the rest volume V_i (m^3).
   */
  readonly wall?: Float32Array;
  /**
   * Per ENTITY id (not per particle), (temperature - TEMPERATURE_REFERENCE in K, color red, green, blue;
   * see `TEMPERATURE_REFERENCE` in structs.ts), when a step diffused or heated them since the last readback
   * that brought them (`WebGpuSolver.attributesDirty`; else undefined).
   */
  readonly attributes?: Float32Array;
  /**
   * Substeps, since the previous readback, whose diffusion wanted more parts than the step recorded (see
   * `diffusionSlots`): the GPU then diffused less than the CPU would. 0 normally.
   */
  readonly diffusionLimitedSubsteps: number;
  /** The conjugate gradient iterations of the last substep's projection before the readback's copy. */
  readonly projectionIterations: number;
  /**
   * The MPS pressure solve's largest conjugate gradient iterations and relative residual |b - A x| / |b| over
   * the substeps of the last step before the readback's copy (mps/cg.wgsl; 0 for the other solvers).
   */
  readonly pressureSolveIterations: number;
  readonly pressureSolveResidual: number;
  /** Coupled colliders whose impulses this readback brought (entries of the three arrays below). */
  readonly bodyCount: number;
  /** Collider entity per entry (-1: the slot's collider was not coupled). */
  readonly bodyEntities: Int32Array;
  /** The entity's collider generation when the impulses were gathered (see `WebGpuSolver.colliderGeneration`). */
  readonly bodyGenerations: Uint32Array;
  /**
   * Per entry, the linear (N s) and angular impulse (N m s, about the center of mass), world space, that the
   * fluid gave the body since the previous readback took them.
   */
  readonly bodyImpulses: Float64Array;
  /**
   * Trapped air and boiling (multifluid/airFields.wgsl), when in use (else empty and 0): the particles the
   * step(s) since the previous readback turned into vapour, as (entity id, vapour material slot) pairs.
   */
  readonly boiled: Uint32Array;
  /** Air particles the GPU marked for deletion (section 3.4.2) since the previous readback. */
  readonly airDeletedCount: number;
  /** Air generation candidates (section 3.4.1) this readback added to the solver's pending list. */
  readonly airCandidateCount: number;
  /**
   * True when this readback took the air events (the first readback after a step that recorded the air
   * passes, whether or not the features are still on).
   */
  readonly airEventsRead: boolean;
  /**
   * White water (diffuse/diffuse.wgsl), when it is on (else undefined): the `DIFFUSE_COUNTERS` words of the
   * last step before the readback.
   */
  readonly diffuseCounters?: Uint32Array;
  /**
   * With a particle readback and white water on: the pool, `DiffuseParticle` records (16 words each, as
   * float32; its `info` words read through {@link GpuReadback.diffuseWords}).
   */
  readonly diffusePool?: Float32Array;
  /** The same memory as `diffusePool` read as words (the kind and material slot of `info`). */
  readonly diffuseWords?: Uint32Array;
}

/** The white-water part of a {@link GpuReadback}. */
export type DiffuseReadback = Pick<GpuReadback, 'diffuseCounters' | 'diffusePool' | 'diffuseWords'>;

/** White water's counters and pool in the copy, where it copied them. */
export function decodeDiffuse(mapped: ArrayBuffer, copies: StagingCopy): DiffuseReadback {
  const countersAt = copies.at('diffuseCounters');
  const poolAt = copies.at('diffuseParticles');
  return {
    diffuseCounters: countersAt ? new Uint32Array(mapped, countersAt[0], countersAt[1] / 4) : undefined,
    diffusePool: poolAt ? new Float32Array(mapped, poolAt[0], poolAt[1] / 4) : undefined,
    diffuseWords: poolAt ? new Uint32Array(mapped, poolAt[0], poolAt[1] / 4) : undefined,
  };
}

/** The air part of a {@link GpuReadback}. */
export type AirReadback = Pick<GpuReadback, 'boiled' | 'airDeletedCount' | 'airCandidateCount' | 'airEventsRead'>;

/** The particle part of a {@link GpuReadback} (with `attributes` present, perhaps undefined). */
export type ParticleReadback = Required<
  Pick<GpuReadback, 'position' | 'velocity' | 'info' | 'infoFloat' | 'solve' | 'wall'>
> &
  Pick<GpuReadback, 'attributes'>;

/**
 * What a readback recorded, for its decoding: the step it was requested at and what it copied (see
 * `WebGpuSolver.readback`).
 */
export interface ReadbackRequest {
  /** `stepsRecorded` when it was requested. */
  readonly atStep: number;
  /** The particle bound its per-particle copies cover. */
  readonly bound: number;
  /** Whether it copied the particles. */
  readonly particles: boolean;
  /** Its staging buffer's copies. */
  readonly copies: StagingCopy;
  /** Impulse accumulators it copied. */
  readonly bodyCount: number;
  /** Its staging buffer's entries for the coupled bodies (see impulses.ts). */
  readonly bodies: BodyEntries;
}

/** The `State` words of a readback (see structs.ts). */
export interface ReadbackState {
  /** Live particles on the GPU. */
  readonly count: number;
  /** A step produced a non-finite position or velocity. */
  readonly nonFinite: boolean;
  /** Substeps whose diffusion was limited (see {@link GpuReadback.diffusionLimitedSubsteps}). */
  readonly diffusionLimitedSubsteps: number;
  /** See {@link GpuReadback.projectionIterations}. */
  readonly projectionIterations: number;
  /** See {@link GpuReadback.pressureSolveIterations}. */
  readonly pressureSolveIterations: number;
  /** See {@link GpuReadback.pressureSolveResidual}. */
  readonly pressureSolveResidual: number;
  /** Removed ids in the `removed` copy, at most `bound`. */
  readonly removedCount: number;
}

/** Reads the `State` copied first into `mapped`; `bound` caps the removed count (the particles copied). */
export function decodeState(mapped: ArrayBuffer, bound: number): ReadbackState {
  const state = new Uint32Array(mapped, 0, State.size / 4);
  return {
    count: state[State.offsets.count / 4],
    nonFinite: state[State.offsets.nonFinite / 4] !== 0,
    diffusionLimitedSubsteps: state[State.offsets.diffusionLimited / 4],
    projectionIterations: state[State.offsets.projectionIterations / 4],
    pressureSolveIterations: state[State.offsets.pressureSolveIterations / 4],
    pressureSolveResidual: new Float32Array(mapped, 0, State.size / 4)[State.offsets.pressureSolveResidual / 4],
    removedCount: Math.min(state[State.offsets.removedCount / 4], bound),
  };
}

/** The `removedCount` removed entity ids of the copy (empty when `removed` was not copied). */
export function decodeRemoved(mapped: ArrayBuffer, copies: StagingCopy, removedCount: number): Uint32Array {
  const removedAt = copies.at('removed');
  return removedAt ? new Uint32Array(mapped, removedAt[0], removedCount) : new Uint32Array(0);
}

/** Swaps the 8-float records `a` and `b` of `data`. */
function swapRecords(data: Float32Array, a: number, b: number): void {
  for (let c = 0; c < 8; c++) {
    const value = data[8 * a + c];
    data[8 * a + c] = data[8 * b + c];
    data[8 * b + c] = value;
  }
}

/** Sifts record `start + root` down the heap of the `length` records from `start`, keyed by their last float. */
function siftRecord(data: Float32Array, start: number, root: number, length: number): void {
  let parent = root;
  for (;;) {
    let child = 2 * parent + 1;
    if (child >= length) return;
    if (child + 1 < length && data[8 * (start + child + 1) + 7] > data[8 * (start + child) + 7]) child++;
    if (data[8 * (start + parent) + 7] >= data[8 * (start + child) + 7]) return;
    swapRecords(data, start + parent, start + child);
    parent = child;
  }
}

/** Heapsort of the 8-float records `start` .. `end` of `data` by their last float (the source entity id). */
function sortRecordsByEntity(data: Float32Array, start: number, end: number): void {
  const length = end - start;
  for (let root = (length >> 1) - 1; root >= 0; root--) siftRecord(data, start, root, length);
  for (let last = length - 1; last > 0; last--) {
    swapRecords(data, start, start + last);
    siftRecord(data, start, 0, last);
  }
}

/**
 * The air events of the copy, when it took them (else none): the boiled pairs and the deleted count, and
 * the generation candidates, appended to `pending` after its `pendingCount` candidates (8 floats each; at
 * most `limit` waiting, none from a non-finite GPU state, which is rebuilt from the components). The caller
 * adds the returned `airCandidateCount` to its pending count.
 */
export function decodeAirEvents(
  mapped: ArrayBuffer,
  copies: StagingCopy,
  nonFinite: boolean,
  limit: number,
  pending: Float32Array,
  pendingCount: number,
): AirReadback {
  let boiled = new Uint32Array(0);
  let airDeletedCount = 0;
  let airCandidateCount = 0;
  const eventsAt = copies.at('airEvents');
  const candidatesAt = copies.at('airCandidates');
  if (eventsAt && candidatesAt) {
    const events = new Uint32Array(mapped, eventsAt[0], eventsAt[1] / 4);
    airDeletedCount = events[AIR_EVENTS.deleted];
    boiled = new Uint32Array(
      mapped,
      eventsAt[0] + AIR_EVENTS.header * 4,
      2 * Math.min(events[AIR_EVENTS.boiled], limit),
    );
    // Candidates accumulate until a step-start system takes them (at most `limit` waiting).
    const candidates = new Float32Array(mapped, candidatesAt[0], candidatesAt[1] / 4);
    airCandidateCount = nonFinite ? 0 : Math.min(events[AIR_EVENTS.candidates], limit, limit - pendingCount);
    pending.set(candidates.subarray(0, airCandidateCount * 8), pendingCount * 8);
    // The GPU claimed the slots with an atomic counter, so their order is a race: by source entity, the
    // particles are created in the same order in every run.
    sortRecordsByEntity(pending, pendingCount, pendingCount + airCandidateCount);
  }
  return { boiled, airDeletedCount, airCandidateCount, airEventsRead: eventsAt !== undefined };
}

/**
 * The particles of the copy (`count` of each per-particle buffer, in GPU order; an empty array for one not
 * copied) and the entity-indexed attributes when they were copied.
 */
export function decodeParticles(mapped: ArrayBuffer, copies: StagingCopy, count: number): ParticleReadback {
  const floats = (name: string) => {
    const at = copies.at(name);
    return at ? new Float32Array(mapped, at[0], count * 4) : new Float32Array(0);
  };
  const infoAt = copies.at('info');
  const attributesAt = copies.at('attributes');
  return {
    attributes: attributesAt ? new Float32Array(mapped, attributesAt[0], attributesAt[1] / 4) : undefined,
    position: floats('position'),
    velocity: floats('velocity'),
    info: infoAt ? new Uint32Array(mapped, infoAt[0], count * 4) : new Uint32Array(0),
    infoFloat: infoAt ? new Float32Array(mapped, infoAt[0], count * 4) : new Float32Array(0),
    solve: floats('solve'),
    wall: floats('wall'),
  };
}
