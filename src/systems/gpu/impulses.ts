/**
 * The impulses the fluid gives coupled rigid bodies on the WebGPU backend (gpu/backend.ts): the bookkeeping
 * of the fixed-point impulse accumulators (`BodyImpulseAccumulator`, one per collider slot, added to by the
 * coupled velocity passes), which keeps them with their colliders when slots change, drops those of removed
 * colliders (a generation per collider entity) and after `resetParticles`, names the entries a readback
 * takes, and decodes the words a readback brought into impulses.
 */
import type { StorageBuffer } from '@babylonjs/core/Buffers/storageBuffer.js';
import type { WebGPUEngine } from '@babylonjs/core/Engines/webgpuEngine.js';
import type { SimulationContext } from '../context';
import { word } from './layout';
import { BODY_IMPULSE_COMPONENTS, BodyImpulseAccumulator, type BodyImpulseQuanta } from './structs';

/** The coupled colliders of one readback, per entry (see `GpuReadback.bodyEntities` and the two after it). */
export interface BodyEntries {
  /** Collider entity per entry (-1: the slot's collider was not coupled). */
  readonly entities: Int32Array;
  /** The entity's collider generation when the impulses were gathered. */
  readonly generations: Uint32Array;
  /** Per entry, the linear (N s) and angular impulse (N m s) of `BODY_IMPULSE_COMPONENTS` components. */
  readonly impulses: Float64Array;
}

/** Entries for `maxColliders` colliders (one set per staging buffer, created with it). */
export function createBodyEntries(maxColliders: number): BodyEntries {
  return {
    entities: new Int32Array(maxColliders),
    generations: new Uint32Array(maxColliders),
    impulses: new Float64Array(BODY_IMPULSE_COMPONENTS * maxColliders),
  };
}

/** The bookkeeping of one solver's impulse accumulators; see the file comment. */
export class ImpulseAccumulators {
  /** Fixed-point quanta of the accumulators (see `BodyImpulseAccumulator`). */
  readonly quanta: BodyImpulseQuanta;
  /** Remaps the accumulators when collider slots change while they hold impulses (see `map`). */
  private readonly scratch: StorageBuffer;
  /** Per accumulator slot, the coupled collider entity its impulses belong to (-1: none), as of the last step. */
  private readonly entity: Int32Array;
  /** Per accumulator slot, that entity's collider generation. */
  private readonly slotGeneration: Uint32Array;
  /** Accumulator slots in use (the collider count of the last step). */
  private count = 0;
  /** True when a step added impulses that no readback copied yet. */
  private pending = false;
  /** Set by `drop`: the next step drops the impulses no readback took. */
  private dropped = false;
  /** Bumped per entity by `forget`: impulses gathered under an older generation are dropped. */
  private readonly generation: Uint32Array;

  /**
   * Bookkeeping for `maxColliders` accumulators and `entityCapacity` entities; `scratch` is a storage buffer
   * as large as the accumulators (owned by the solver).
   */
  constructor(scratch: StorageBuffer, maxColliders: number, entityCapacity: number, quanta: BodyImpulseQuanta) {
    this.scratch = scratch;
    this.quanta = quanta;
    this.entity = new Int32Array(maxColliders).fill(-1);
    this.slotGeneration = new Uint32Array(maxColliders);
    this.generation = new Uint32Array(entityCapacity);
  }

  /**
   * Keeps the accumulators with their colliders, before a step's passes. They are indexed by collider slot,
   * and slots change when colliders are added or removed (the last collider takes a removed one's slot), or
   * when one is coupled or uncoupled. If the coupled colliders' slots changed while the accumulators
   * (`accumulators`, the `impulses` buffer) hold impulses no readback took yet, they move to their colliders'
   * new slots (a copy through the scratch buffer, submitted before the step's passes); those of removed or
   * uncoupled colliders, and after `drop` all of them, are dropped. `coupledNow` says whether this step has
   * coupled colliders (its passes add to the accumulators).
   */
  map(engine: WebGPUEngine, accumulators: GPUBuffer, ctx: SimulationContext, coupledNow: boolean): void {
    const table = ctx.colliders;
    const coupled = ctx.components.BodyCoupling.coupled;
    const entityOf = (slot: number): number => (coupled[table.entity[slot]] === 1 ? table.entity[slot] : -1);
    let changed = table.count !== this.count;
    for (let slot = 0; slot < table.count && !changed; slot++) {
      const eid = entityOf(slot);
      changed = eid !== this.entity[slot] || (eid >= 0 && this.generation[eid] !== this.slotGeneration[slot]);
    }
    if (this.pending && (changed || this.dropped)) {
      const size = BodyImpulseAccumulator.size;
      const scratch = this.scratch.getBuffer().underlyingResource as GPUBuffer;
      const encoder = engine._device.createCommandEncoder();
      encoder.copyBufferToBuffer(accumulators, 0, scratch, 0, this.count * size);
      encoder.clearBuffer(accumulators, 0, Math.max(this.count, table.count) * size);
      if (!this.dropped) {
        const previous = new Map<number, number>();
        for (let k = 0; k < this.count; k++) {
          const eid = this.entity[k];
          if (eid >= 0 && this.generation[eid] === this.slotGeneration[k]) previous.set(eid, k);
        }
        for (let slot = 0; slot < table.count; slot++) {
          const from = previous.get(entityOf(slot));
          if (from !== undefined) encoder.copyBufferToBuffer(scratch, from * size, accumulators, slot * size, size);
        }
      }
      // After whatever this solver recorded before (the previous step's passes are already submitted).
      engine.flushFramebuffer();
      engine._device.queue.submit([encoder.finish()]);
    }
    this.dropped = false;
    for (let slot = 0; slot < table.count; slot++) {
      const eid = entityOf(slot);
      this.entity[slot] = eid;
      this.slotGeneration[slot] = eid >= 0 ? this.generation[eid] : 0;
    }
    this.count = table.count;
    // This step's passes add to them.
    if (coupledNow) this.pending = true;
  }

  /** Collider `entity` was removed: impulses gathered for it and not yet read are dropped. */
  forget(entity: number): void {
    if (entity >= 0 && entity < this.generation.length) this.generation[entity]++;
  }

  /** The generation of collider `entity` (see `forget`). */
  generationOf(entity: number): number {
    return this.generation[entity];
  }

  /** The particles were reset: the next step drops the impulses no readback took (a readback takes none). */
  drop(): void {
    this.dropped = true;
  }

  /**
   * For a readback: fills `bodies`' entities and generations with the accumulator slots of the last step and
   * returns how many accumulators it copies (up to the last coupled slot; 0 after `drop`).
   */
  entriesForReadback(bodies: BodyEntries): number {
    let bodyCount = 0;
    for (let slot = 0; slot < this.count; slot++) {
      const eid = this.entity[slot];
      bodies.entities[slot] = eid;
      bodies.generations[slot] = this.slotGeneration[slot];
      if (eid >= 0) bodyCount = slot + 1;
    }
    // After `resetParticles` the impulses gathered before are dropped, not read.
    return this.dropped ? 0 : bodyCount;
  }

  /**
   * Zeroes the accumulators (`accumulators`, the `impulses` buffer) in `encoder`, after a readback's copy in
   * the same submission, when a step added to them: every impulse is read exactly once.
   */
  clearAfterCopy(encoder: GPUCommandEncoder, accumulators: GPUBuffer): void {
    if (this.pending) encoder.clearBuffer(accumulators, 0, this.count * BodyImpulseAccumulator.size);
    this.pending = false;
  }

  /**
   * Converts `count` accumulators (words of `BodyImpulseAccumulator`s) to impulses in `bodies`: (high x 2^32
   * + low) quanta per component, exact in float64 up to 2^53 quanta.
   */
  decode(words: Uint32Array, count: number, bodies: BodyEntries): void {
    const { linear, angular } = this.quanta;
    for (let slot = 0; slot < count; slot++) {
      const base = slot * BodyImpulseAccumulator.size;
      const low = word(BodyImpulseAccumulator, 'low', base);
      const high = word(BodyImpulseAccumulator, 'high', base);
      for (let component = 0; component < BODY_IMPULSE_COMPONENTS; component++) {
        const quanta = (words[high + component] | 0) * 4294967296 + words[low + component];
        bodies.impulses[slot * BODY_IMPULSE_COMPONENTS + component] = quanta * (component < 3 ? linear : angular);
      }
    }
  }
}
