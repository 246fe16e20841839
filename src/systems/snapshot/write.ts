/** Writes a simulation's state as a snapshot (the format: snapshot/format.ts). */

import { hasComponent } from 'bitecs';
import type { SimulationContext } from '../context';
import { freedIdsInReuseOrder } from '../entityIds';
import { mpsSnapshotSettings, mpsWarmStart } from '../mps/state';
import { ByteWriter, writePlain } from './bytes';
import {
  componentStores,
  crc32,
  type EntityIndex,
  elementCode,
  HEADER_BYTES,
  MAGIC,
  type PlainValue,
  SNAPSHOT_FORMAT_VERSION,
  storeFields,
} from './format';

/** The entries of `record` that are plain values (numbers, number lists, strings, booleans), sorted by key. */
function plainEntries(record: object, skip: readonly string[]): [string, PlainValue][] {
  const result: [string, PlainValue][] = [];
  const values = record as Record<string, unknown>;
  for (const key of Object.keys(values).sort()) {
    if (skip.includes(key)) continue;
    const value = values[key];
    if (typeof value === 'number' || typeof value === 'string' || typeof value === 'boolean') result.push([key, value]);
    else if (Array.isArray(value) && value.every((v) => typeof v === 'number')) result.push([key, [...value]]);
  }
  return result;
}

/** Statistics that are wall-clock measurements or describe the running backend, not simulation state. */
const STATS_NOT_SAVED = [
  'stepMilliseconds',
  'systemMilliseconds',
  'backend',
  'threads',
  'workerPartitions',
  'webAssembly',
];

/**
 * Writes the snapshot of the simulation whose context is `ctx` and whose world was created with
 * `entityIndex`. On the WebGPU backend it holds the components as last read back.
 */
export function writeSnapshot(ctx: SimulationContext, entityIndex: EntityIndex): Uint8Array {
  const writer = new ByteWriter();
  for (const byte of MAGIC) writer.u8(byte);
  writer.u32(SNAPSHOT_FORMAT_VERSION);
  writer.u32(0);
  writer.u32(0);

  const alive = entityIndex.dense.slice(0, entityIndex.aliveCount);
  // Freed ids in the order they will be reused (entityIds.ts): restore queues them in this order.
  const dead = freedIdsInReuseOrder(ctx.entityIds);
  const s = ctx.solver;
  const particles = s.entity.subarray(0, s.count);
  const materials = ctx.materials.entity.subarray(0, ctx.materials.count);
  const colliders = ctx.colliders.entity.subarray(0, ctx.colliders.count);
  const { emitters, drains } = ctx.events;

  writer.section('SETT', () => {
    // The thread count and the WebAssembly choice are the machine's, not the simulation's (the WebAssembly
    // passes give the same results as the TypeScript loops).
    const entries = plainEntries(ctx.settings, ['threads', 'webAssembly']);
    // The MPS solver's settings live in its own state; saved flat (`mpsTolerance`, ...) as the WCSPH ones.
    if (ctx.settings.solver === 'mps') entries.push(...mpsSnapshotSettings(ctx));
    writer.u16(entries.length);
    for (const [key, value] of entries) {
      writer.string(key);
      writePlain(writer, value);
    }
  });

  writer.section('ENTS', () => {
    writer.u32(entityIndex.maxId);
    writer.ids(alive);
    writer.ids(dead);
  });

  writer.section('ORDR', () => {
    writer.ids(particles);
    writer.ids(materials);
    writer.ids(colliders);
    writer.ids(emitters);
    writer.ids(drains);
  });

  writer.section('FLDS', () => writeFields(writer, ctx));

  writer.section('COMP', () => writeStores(writer, ctx, alive, [materials, colliders, emitters, drains]));

  writer.section('EVTS', () => {
    const events = ctx.events;
    writer.u32(events.randomState >>> 0);
    writer.ids(events.emitted.subarray(0, Math.min(ctx.stats.emittedCount, events.emitted.length)));
    writer.ids(events.removed.subarray(0, Math.min(ctx.stats.removedCount, events.removed.length)));
  });

  if (ctx.settings.solver === 'mps') {
    // The MPS pressure solve's warm start by entity id (its initial guess: part of the bit-identical state).
    writer.section('MPSP', () => {
      const warmStart = mpsWarmStart(ctx);
      writer.ids(warmStart.ids);
      writer.ensure(8 * warmStart.pressures.length);
      for (const pressure of warmStart.pressures) writer.f64(pressure);
    });
  }

  if (ctx.settings.solver === 'pbf') {
    // The coarse projection's warm start (the grid of the last substep and its phi) and the density errors
    // of the last solve that its density relaxation reads (projection/cpu.ts): part of the bit-identical state.
    writer.section('PROJ', () => writeProjection(writer, ctx));
  }

  writer.section('STAT', () => {
    const entries = plainEntries(ctx.stats, STATS_NOT_SAVED).filter(([, value]) => typeof value !== 'string');
    writer.u16(entries.length);
    for (const [key, value] of entries) {
      writer.string(key);
      writePlain(writer, value);
    }
  });

  const bytes = writer.bytesView().slice();
  const view = new DataView(bytes.buffer);
  view.setUint32(12, bytes.length - HEADER_BYTES, true);
  view.setUint32(16, crc32(bytes, HEADER_BYTES), true);
  return bytes;
}

/** Section 'FLDS': the signed distance fields of mesh colliders (their full grids, float32). */
function writeFields(writer: ByteWriter, ctx: SimulationContext): void {
  const fields = ctx.colliders.fields;
  writer.u32(fields.length);
  for (const field of fields) {
    writer.u8(field === undefined ? 0 : 1);
    if (field === undefined) continue;
    for (let axis = 0; axis < 3; axis++) writer.f64(field.origin[axis]);
    writer.f64(field.cellSize);
    for (let axis = 0; axis < 3; axis++) writer.u32(field.nodeCounts[axis]);
    writer.float32s(field.values);
  }
}

/**
 * Section 'COMP': every component store by name, with its members among the live entities and its fields by
 * key, for the members and for every entity of `kinds` (materials, colliders, emitters, drains: few), whether
 * or not they carry the store as a bitecs component.
 */
function writeStores(
  writer: ByteWriter,
  ctx: SimulationContext,
  alive: ArrayLike<number>,
  kinds: ArrayLike<number>[],
): void {
  const kindEntity = new Uint8Array(ctx.entityCapacity);
  for (const list of kinds) for (let k = 0; k < list.length; k++) kindEntity[list[k]] = 1;
  const stores = componentStores(ctx);
  writer.u16(stores.length);
  const members = new Uint8Array((alive.length + 7) >> 3);
  const written = new Uint32Array(alive.length);
  for (const [name, store] of stores) {
    writer.string(name);
    members.fill(0);
    let count = 0;
    for (let k = 0; k < alive.length; k++) {
      const eid = alive[k];
      const member = hasComponent(ctx.world, eid, store);
      if (member) members[k >> 3] |= 1 << (k & 7);
      if (member || kindEntity[eid] === 1) written[count++] = eid;
    }
    writer.ensure(members.length);
    for (const byte of members) writer.u8(byte);
    const fields = storeFields(store);
    writer.u16(fields.length);
    const entities = written.subarray(0, count);
    for (const [key, array] of fields) {
      writer.string(key);
      const code = elementCode(array);
      writer.u8(code);
      writer.values(array, code, entities);
    }
  }
}

/**
 * Section 'PROJ': the coarse projection's warm start (the grid of the last substep and its phi) and the density
 * errors of the last solve that its density relaxation reads (projection/cpu.ts): part of the bit-identical state.
 */
function writeProjection(writer: ByteWriter, ctx: SimulationContext): void {
  const s = ctx.solver;
  const state = ctx.projection;
  const plan = state.previousPlan;
  writer.f64(plan.cellSize);
  for (let a = 0; a < 3; a++) writer.f64(plan.origin[a]);
  for (let a = 0; a < 3; a++) writer.u32(plan.dims[a]);
  let nonZero = 0;
  for (let c = 0; c < plan.cells; c++) if (state.phi[c] !== 0) nonZero++;
  writer.u32(nonZero);
  writer.ensure(12 * nonZero + 8 * s.count);
  for (let c = 0; c < plan.cells; c++) {
    if (state.phi[c] === 0) continue;
    writer.u32(c);
    writer.f64(state.phi[c]);
  }
  writer.u32(s.count);
  for (let place = 0; place < s.count; place++) writer.f64(s.constraint[place]);
}
