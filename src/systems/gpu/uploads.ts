/**
 * The WebGPU solver's upload queue (gpu/backend.ts): the particles the CPU added, edited or removed since the
 * last step, one entry per entity (an append carries the latest components anyway; a removal wins over an
 * edit), written once per step as `ParticleRecord`s into a CPU staging array and copied to the `records`
 * buffer, edits and removals first, then appends (the `edit` and `append` passes read them). It also keeps,
 * per entity, the material the GPU was last known to hold, so that an edit that leaves `Particle.material`
 * alone uploads KEEP_MATERIAL and cannot undo a boil the CPU has not read back yet.
 */
import type { StorageBuffer } from '@babylonjs/core/Buffers/storageBuffer.js';
import type { SimulationContext } from '../context';
import { createWordViews, type WordViews, word } from './layout';
import { KEEP_MATERIAL, ParticleInfo, ParticleRecord, TEMPERATURE_REFERENCE } from './structs';

/** A pending upload: particles added by the CPU, or edited (a record with lifetime < 0 removes). */
interface Upload {
  readonly entity: number;
  readonly kind: 'append' | 'edit' | 'remove' | 'cancelled';
}

/** What an upload does on the GPU: add the particle, write its components, or remove it. */
export type UploadKind = 'append' | 'edit' | 'remove';

/** The queued uploads of one solver and the records they are written to; see the file comment. */
export class UploadQueue {
  /** Edit (and removal) records the last {@link UploadQueue.write} uploaded: the `edit` pass's threads. */
  editCount = 0;
  /** Append records the last {@link UploadQueue.write} uploaded, after the edits: the `append` pass's threads. */
  appendCount = 0;
  private readonly uploads: Upload[] = [];
  private readonly index = new Map<number, number>();
  private readonly records: WordViews;
  /**
   * Per entity: the material entity the GPU was last known to hold (written by an upload, or learnt from a
   * boil event through {@link UploadQueue.noteGpuMaterial}); -1 for none. An edit whose `Particle.material`
   * equals it uploads KEEP_MATERIAL, so it cannot undo a boil the CPU has not read back yet.
   */
  private readonly gpuMaterial: Int32Array;

  /** A queue for `capacity` particles (records) and `entityCapacity` entities. */
  constructor(capacity: number, entityCapacity: number) {
    this.records = createWordViews(capacity * ParticleRecord.size);
    this.gpuMaterial = new Int32Array(entityCapacity).fill(-1);
  }

  /** Queues an upload of `entity` at the next step, merged with one already queued for it. */
  queue(entity: number, kind: UploadKind): void {
    const index = this.index.get(entity);
    if (index !== undefined) {
      const previous = this.uploads[index];
      // An append carries the latest components anyway; a removal wins over an edit.
      if (previous.kind === 'append') {
        if (kind === 'remove') this.uploads[index] = { entity, kind: 'remove' };
        return;
      }
      if (previous.kind === 'remove') return;
      this.uploads[index] = { entity, kind };
      return;
    }
    this.index.set(entity, this.uploads.length);
    this.uploads.push({ entity, kind });
  }

  /** Drops the queued append of `entity`: returns true if there was one. */
  cancelAppend(entity: number): boolean {
    const index = this.index.get(entity);
    if (index === undefined || this.uploads[index].kind !== 'append') return false;
    this.uploads[index] = { entity, kind: 'cancelled' };
    this.index.delete(entity);
    return true;
  }

  /** True when an upload of `entity` waits for the next step. */
  has(entity: number): boolean {
    return this.index.has(entity);
  }

  /** Calls `visit` once per entity whose queued upload (an append or an edit, not a removal) carries its components. */
  forEachCarryingComponents(visit: (entity: number) => void): void {
    for (const upload of this.uploads) if (upload.kind === 'append' || upload.kind === 'edit') visit(upload.entity);
  }

  /** Drops every queued upload. */
  clear(): void {
    this.uploads.length = 0;
    this.index.clear();
  }

  /** Records that the GPU holds material entity `material` for particle `entity` (see the file comment). */
  noteGpuMaterial(entity: number, material: number): void {
    if (entity >= 0 && entity < this.gpuMaterial.length) this.gpuMaterial[entity] = material;
  }

  /**
   * Writes the queued uploads as records from `ctx`'s components, edits and removals first, then appends,
   * copies them to `target` (the `records` buffer), sets {@link UploadQueue.editCount} and
   * {@link UploadQueue.appendCount} and empties the queue. The edited particles' components were checked
   * before the step (validate.ts, `checkComponents`).
   */
  write(ctx: SimulationContext, target: StorageBuffer): void {
    const { Particle } = ctx.components;
    let edits = 0;
    for (const upload of this.uploads) {
      if (upload.kind === 'append' || upload.kind === 'cancelled') continue;
      const e = upload.entity;
      this.writeRecord(ctx, edits++, e, upload.kind === 'remove' ? -1 : Particle.lifetime[e], true);
    }
    let appends = 0;
    for (const upload of this.uploads) {
      if (upload.kind !== 'append') continue;
      this.writeRecord(ctx, edits + appends++, upload.entity, ctx.components.Particle.lifetime[upload.entity], false);
    }
    this.editCount = edits;
    this.appendCount = appends;
    this.clear();
    if (edits + appends > 0) target.update(this.records.u32, 0, (edits + appends) * ParticleRecord.size);
  }

  /**
   * Writes upload record `slot` from `entity`'s components. An edit (`edit` true) whose `Particle.material`
   * is the one the GPU was last known to hold writes KEEP_MATERIAL (the GPU may have boiled the particle
   * since); else the material is written and becomes the known one.
   */
  private writeRecord(ctx: SimulationContext, slot: number, entity: number, lifetime: number, edit: boolean): void {
    const { Position, Velocity, Particle } = ctx.components;
    const f = this.records.f32;
    const u = this.records.u32;
    const base = slot * ParticleRecord.size;
    const position = word(ParticleRecord, 'position', base);
    const velocity = word(ParticleRecord, 'velocity', base);
    const info = base + ParticleRecord.offsets.info;
    const materialSlot = ctx.materials.slotOfEntity[Particle.material[entity]];
    f[position] = Position.x[entity];
    f[position + 1] = Position.y[entity];
    f[position + 2] = Position.z[entity];
    f[position + 3] = materialSlot;
    f[velocity] = Velocity.x[entity];
    f[velocity + 1] = Velocity.y[entity];
    f[velocity + 2] = Velocity.z[entity];
    f[velocity + 3] = 0;
    u[word(ParticleInfo, 'entity', info)] = entity;
    const keep = edit && Particle.material[entity] === this.gpuMaterial[entity];
    u[word(ParticleInfo, 'material', info)] = keep ? KEEP_MATERIAL : materialSlot;
    if (!keep) this.gpuMaterial[entity] = Particle.material[entity];
    f[word(ParticleInfo, 'age', info)] = Particle.age[entity];
    f[word(ParticleInfo, 'lifetime', info)] = lifetime;
    const { Temperature, Color } = ctx.components;
    const attributes = word(ParticleRecord, 'attributes', base);
    // Relative to TEMPERATURE_REFERENCE (see structs.ts), computed in float64 before the float32 rounding.
    f[attributes] = Temperature[entity] - TEMPERATURE_REFERENCE;
    f[attributes + 1] = Color.red[entity];
    f[attributes + 2] = Color.green[entity];
    f[attributes + 3] = Color.blue[entity];
  }
}
