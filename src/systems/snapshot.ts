/**
 * Save and load: a simulation's whole state as one compact, versioned binary snapshot, and back.
 *
 * What a snapshot holds: the settings; the bitecs entity index (live ids and the order in which freed ids
 * will be reused, so a restored simulation hands out the same ids as the saved one); every component store
 * of the world, written generically (stores by name and fields by key in sorted order, each field with its
 * element type), for every live particle that has the component and for every material, collider, emitter
 * and drain (so stores written by id without a bitecs component, such as `BodyCoupling`, are kept too); the
 * solver's carried bookkeeping (the particles' order in the solver's arrays, which fixes the floating-point
 * summation order of the next step; the material and collider slot orders; emitter and drain order); the
 * signed distance fields of mesh colliders (their full grids, float32; a 64-cell field is about 4 MB); the
 * emitters' random generator state; the last step's emitted and removed ids; with the MPS solver, its
 * settings (flat `mps*` keys among the settings) and the warm start of its pressure solve by entity id
 * (section 'MPSP'); and the step statistics (not the wall-clock timings). On the CPU backend, a simulation
 * restored from a snapshot continues bit-identically to the one that was saved, as long as both have the
 * same capacities.
 *
 * Layout (little-endian): the 8 signature bytes `ECSFLUID`, the format version (u32), the payload length
 * (u32) and the CRC-32 of the payload (u32); the payload is a list of sections, each a 4-letter tag (u32),
 * its length (u32) and its content. Readers skip sections they do not know; a change that older readers
 * cannot skip increases the format version.
 */

import type { AbstractEngine } from '@babylonjs/core/Engines/abstractEngine.js';
import { addComponent, addEntity, type createEntityIndex, hasComponent, removeEntity } from 'bitecs';
import type { FluidBackend, FluidSettings, FluidSolver } from '../components';
import { FluidError } from '../core/errors';
import type { SimulationContext } from './context';
import type { MirrorMode } from './gpu/systems';
import {
  type MpsWarmStart,
  mpsOptionsFromSnapshot,
  mpsSnapshotSettings,
  mpsWarmStart,
  resolveMpsSettings,
  restoreMpsState,
} from './mps/cpu';
import type { FluidSimulationOptions } from './options';
import { projectionMaxCells } from './projection/state';
import { FIELD_NODE_STRIDE, SignedDistanceField } from './sdf/field';
import { checkLiveSettings } from './validate';

/** The bitecs entity index a simulation's world is created with (ids alive and ids to reuse). */
export type EntityIndex = ReturnType<typeof createEntityIndex>;

/** The snapshot format version this code writes, and the newest it reads. */
export const SNAPSHOT_FORMAT_VERSION = 1;

/** The 8 signature bytes every snapshot starts with (ASCII `ECSFLUID`). */
const MAGIC = [0x45, 0x43, 0x53, 0x46, 0x4c, 0x55, 0x49, 0x44];

/** Signature (8), format version (4), payload length (4), payload CRC-32 (4). */
const HEADER_BYTES = 20;

/** Options of `FluidSimulation.fromSnapshot`: where the new simulation runs (the rest comes from the snapshot). */
export interface FromSnapshotOptions {
  /** Backend of the new simulation, as in `FluidSimulationOptions.backend`. Default `'cpu'`. */
  backend?: FluidBackend | 'auto';
  /** The Babylon `WebGPUEngine` for the `'webgpu'` backend. Not needed for `'cpu'`. */
  engine?: AbstractEngine;
  /**
   * WebGPU backend: when the components are read back, as in `FluidSimulationOptions.mirror`.
   * Default `'every-frame'`.
   */
  mirror?: MirrorMode;
}

// ---------------------------------------------------------------------------------------------------------
// CRC-32 (IEEE 802.3, the polynomial of zip and PNG).

let crcTable: Uint32Array | undefined;

/** CRC-32 (IEEE, reflected, as in zip and PNG) of `bytes[start .. end)`. */
export function crc32(bytes: Uint8Array, start = 0, end = bytes.length): number {
  if (crcTable === undefined) {
    crcTable = new Uint32Array(256);
    for (let n = 0; n < 256; n++) {
      let c = n;
      for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
      crcTable[n] = c >>> 0;
    }
  }
  const table = crcTable;
  let crc = 0xffffffff;
  for (let i = start; i < end; i++) crc = table[(crc ^ bytes[i]) & 0xff] ^ (crc >>> 8);
  return (crc ^ 0xffffffff) >>> 0;
}

// ---------------------------------------------------------------------------------------------------------
// Element types of store fields.

/** A typed array a component store field may be. */
type StoreArray =
  | Float64Array
  | Float32Array
  | Int32Array
  | Uint32Array
  | Int16Array
  | Uint16Array
  | Int8Array
  | Uint8Array;

/** Element type codes, written per field; every one converts to float64 exactly. */
const ELEMENT_TYPES = [
  { code: 1, name: 'Float64Array', bytes: 8 },
  { code: 2, name: 'Float32Array', bytes: 4 },
  { code: 3, name: 'Int32Array', bytes: 4 },
  { code: 4, name: 'Uint32Array', bytes: 4 },
  { code: 5, name: 'Int16Array', bytes: 2 },
  { code: 6, name: 'Uint16Array', bytes: 2 },
  { code: 7, name: 'Int8Array', bytes: 1 },
  { code: 8, name: 'Uint8Array', bytes: 1 },
] as const;

function elementCode(array: StoreArray): number {
  if (array instanceof Float64Array) return 1;
  if (array instanceof Float32Array) return 2;
  if (array instanceof Int32Array) return 3;
  if (array instanceof Uint32Array) return 4;
  if (array instanceof Int16Array) return 5;
  if (array instanceof Uint16Array) return 6;
  if (array instanceof Int8Array) return 7;
  return 8;
}

function isStoreArray(value: unknown): value is StoreArray {
  return (
    value instanceof Float64Array ||
    value instanceof Float32Array ||
    value instanceof Int32Array ||
    value instanceof Uint32Array ||
    value instanceof Int16Array ||
    value instanceof Uint16Array ||
    value instanceof Int8Array ||
    value instanceof Uint8Array
  );
}

/** The fields of a component store, by key in sorted order; a store that is itself a typed array has key ''. */
function storeFields(store: unknown): [string, StoreArray][] {
  if (isStoreArray(store)) return [['', store]];
  if (typeof store !== 'object' || store === null) return [];
  const record = store as Record<string, unknown>;
  const result: [string, StoreArray][] = [];
  for (const key of Object.keys(record).sort()) {
    const value = record[key];
    if (isStoreArray(value)) result.push([key, value]);
  }
  return result;
}

function componentStores(ctx: SimulationContext): [string, object][] {
  const record = ctx.components as unknown as Record<string, object>;
  return Object.keys(record)
    .sort()
    .map((name): [string, object] => [name, record[name]]);
}

// ---------------------------------------------------------------------------------------------------------
// Writing.

class ByteWriter {
  private bytes = new Uint8Array(1 << 16);
  private view = new DataView(this.bytes.buffer);
  length = 0;

  ensure(extra: number): void {
    if (this.length + extra <= this.bytes.length) return;
    let size = this.bytes.length;
    while (size < this.length + extra) size *= 2;
    const grown = new Uint8Array(size);
    grown.set(this.bytes.subarray(0, this.length));
    this.bytes = grown;
    this.view = new DataView(grown.buffer);
  }

  u8(value: number): void {
    this.ensure(1);
    this.view.setUint8(this.length, value);
    this.length += 1;
  }

  u16(value: number): void {
    this.ensure(2);
    this.view.setUint16(this.length, value, true);
    this.length += 2;
  }

  u32(value: number): void {
    this.ensure(4);
    this.view.setUint32(this.length, value, true);
    this.length += 4;
  }

  f64(value: number): void {
    this.ensure(8);
    this.view.setFloat64(this.length, value, true);
    this.length += 8;
  }

  setU32(at: number, value: number): void {
    this.view.setUint32(at, value, true);
  }

  string(value: string): void {
    const encoded = new TextEncoder().encode(value);
    this.u16(encoded.length);
    this.ensure(encoded.length);
    this.bytes.set(encoded, this.length);
    this.length += encoded.length;
  }

  ids(list: ArrayLike<number>): void {
    this.u32(list.length);
    this.ensure(4 * list.length);
    for (let k = 0; k < list.length; k++) this.view.setUint32(this.length + 4 * k, list[k], true);
    this.length += 4 * list.length;
  }

  /** Writes `array[entities[k]]` for every k, in the element type of `code`. */
  values(array: StoreArray, code: number, entities: ArrayLike<number>): void {
    const size = ELEMENT_TYPES[code - 1].bytes;
    this.ensure(size * entities.length);
    const view = this.view;
    let at = this.length;
    const n = entities.length;
    switch (code) {
      case 1:
        for (let k = 0; k < n; k++, at += 8) view.setFloat64(at, array[entities[k]], true);
        break;
      case 2:
        for (let k = 0; k < n; k++, at += 4) view.setFloat32(at, array[entities[k]], true);
        break;
      case 3:
        for (let k = 0; k < n; k++, at += 4) view.setInt32(at, array[entities[k]], true);
        break;
      case 4:
        for (let k = 0; k < n; k++, at += 4) view.setUint32(at, array[entities[k]], true);
        break;
      case 5:
        for (let k = 0; k < n; k++, at += 2) view.setInt16(at, array[entities[k]], true);
        break;
      case 6:
        for (let k = 0; k < n; k++, at += 2) view.setUint16(at, array[entities[k]], true);
        break;
      case 7:
        for (let k = 0; k < n; k++, at += 1) view.setInt8(at, array[entities[k]]);
        break;
      default:
        for (let k = 0; k < n; k++, at += 1) view.setUint8(at, array[entities[k]]);
    }
    this.length = at;
  }

  float32s(values: Float32Array): void {
    this.ensure(4 * values.length);
    const view = this.view;
    let at = this.length;
    for (let k = 0; k < values.length; k++, at += 4) view.setFloat32(at, values[k], true);
    this.length = at;
  }

  bytesView(): Uint8Array {
    return this.bytes.subarray(0, this.length);
  }

  section(tag: string, body: () => void): void {
    this.u32(tagCode(tag));
    const lengthAt = this.length;
    this.u32(0);
    body();
    this.setU32(lengthAt, this.length - lengthAt - 4);
  }
}

function tagCode(tag: string): number {
  return (tag.charCodeAt(0) | (tag.charCodeAt(1) << 8) | (tag.charCodeAt(2) << 16) | (tag.charCodeAt(3) << 24)) >>> 0;
}

function tagName(code: number): string {
  let name = '';
  for (let k = 0; k < 4; k++) {
    const c = (code >>> (8 * k)) & 0xff;
    name += c >= 32 && c < 127 ? String.fromCharCode(c) : '?';
  }
  return name;
}

/** A setting or statistic value: number (0), list of numbers (1), string (2) or boolean (3). */
type PlainValue = number | number[] | string | boolean;

function writePlain(writer: ByteWriter, value: PlainValue): void {
  if (typeof value === 'number') {
    writer.u8(0);
    writer.f64(value);
  } else if (Array.isArray(value)) {
    writer.u8(1);
    writer.u16(value.length);
    for (const v of value) writer.f64(v);
  } else if (typeof value === 'string') {
    writer.u8(2);
    writer.string(value);
  } else {
    writer.u8(3);
    writer.u8(value ? 1 : 0);
  }
}

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
const STATS_NOT_SAVED = ['stepMilliseconds', 'systemMilliseconds', 'backend'];

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
  const dead = entityIndex.dense.slice(entityIndex.aliveCount);
  const s = ctx.solver;
  const particles = s.entity.subarray(0, s.count);
  const materials = ctx.materials.entity.subarray(0, ctx.materials.count);
  const colliders = ctx.colliders.entity.subarray(0, ctx.colliders.count);
  const { emitters, drains } = ctx.events;

  writer.section('SETT', () => {
    const entries = plainEntries(ctx.settings, []);
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

  writer.section('FLDS', () => {
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
  });

  // Entities every store is written for (materials, colliders, emitters, drains: few), whether or not they
  // carry the store as a bitecs component.
  const kindEntity = new Uint8Array(ctx.entityCapacity);
  for (const list of [materials, colliders, emitters, drains]) for (const eid of list) kindEntity[eid] = 1;
  writer.section('COMP', () => {
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
  });

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
    writer.section('PROJ', () => {
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
    });
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

// ---------------------------------------------------------------------------------------------------------
// Reading.

class ByteReader {
  private readonly view: DataView;
  at: number;

  constructor(
    private readonly bytes: Uint8Array,
    start: number,
    private readonly end: number,
    private readonly section: string,
  ) {
    this.view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
    this.at = start;
  }

  need(count: number): void {
    if (!(count >= 0 && this.at + count <= this.end)) {
      throw new FluidError(`corrupt: section '${this.section}' ends before its contents`);
    }
  }

  u8(): number {
    this.need(1);
    return this.view.getUint8(this.at++);
  }

  u16(): number {
    this.need(2);
    const value = this.view.getUint16(this.at, true);
    this.at += 2;
    return value;
  }

  u32(): number {
    this.need(4);
    const value = this.view.getUint32(this.at, true);
    this.at += 4;
    return value;
  }

  f64(): number {
    this.need(8);
    const value = this.view.getFloat64(this.at, true);
    this.at += 8;
    return value;
  }

  string(): string {
    const length = this.u16();
    this.need(length);
    const value = new TextDecoder('utf-8', { fatal: false }).decode(this.bytes.subarray(this.at, this.at + length));
    this.at += length;
    return value;
  }

  ids(): Uint32Array {
    const count = this.u32();
    this.need(4 * count);
    const result = new Uint32Array(count);
    for (let k = 0; k < count; k++) result[k] = this.view.getUint32(this.at + 4 * k, true);
    this.at += 4 * count;
    return result;
  }

  bytesOf(count: number): Uint8Array {
    this.need(count);
    const result = this.bytes.slice(this.at, this.at + count);
    this.at += count;
    return result;
  }

  /** `count` values of element type `code`, as float64 (exact for every type). */
  values(code: number, count: number): Float64Array {
    const type = ELEMENT_TYPES[code - 1];
    if (type === undefined) throw new FluidError(`corrupt: section '${this.section}' has element type ${code}`);
    this.need(type.bytes * count);
    const view = this.view;
    const result = new Float64Array(count);
    let at = this.at;
    switch (code) {
      case 1:
        for (let k = 0; k < count; k++, at += 8) result[k] = view.getFloat64(at, true);
        break;
      case 2:
        for (let k = 0; k < count; k++, at += 4) result[k] = view.getFloat32(at, true);
        break;
      case 3:
        for (let k = 0; k < count; k++, at += 4) result[k] = view.getInt32(at, true);
        break;
      case 4:
        for (let k = 0; k < count; k++, at += 4) result[k] = view.getUint32(at, true);
        break;
      case 5:
        for (let k = 0; k < count; k++, at += 2) result[k] = view.getInt16(at, true);
        break;
      case 6:
        for (let k = 0; k < count; k++, at += 2) result[k] = view.getUint16(at, true);
        break;
      case 7:
        for (let k = 0; k < count; k++, at += 1) result[k] = view.getInt8(at);
        break;
      default:
        for (let k = 0; k < count; k++, at += 1) result[k] = view.getUint8(at);
    }
    this.at = at;
    return result;
  }

  float32s(count: number): Float32Array {
    this.need(4 * count);
    const result = new Float32Array(count);
    for (let k = 0; k < count; k++) result[k] = this.view.getFloat32(this.at + 4 * k, true);
    this.at += 4 * count;
    return result;
  }

  plain(): PlainValue {
    const type = this.u8();
    if (type === 0) return this.f64();
    if (type === 1) {
      const length = this.u16();
      const list: number[] = [];
      for (let k = 0; k < length; k++) list.push(this.f64());
      return list;
    }
    if (type === 2) return this.string();
    if (type === 3) return this.u8() !== 0;
    throw new FluidError(`corrupt: section '${this.section}' has value type ${type}`);
  }

  finish(): void {
    if (this.at !== this.end) {
      throw new FluidError(`corrupt: section '${this.section}' has ${this.end - this.at} bytes after its contents`);
    }
  }
}

/** One store of a decoded snapshot. */
interface DecodedStore {
  readonly name: string;
  /** Bit k set: the k-th live entity has the store as a bitecs component. */
  readonly members: Uint8Array;
  /** Fields by key, with their values for the written entities (see `writtenEntities`). */
  readonly fields: { readonly key: string; readonly values: Float64Array }[];
}

/** A checked, decoded snapshot: everything `applySnapshot` needs, nothing applied yet. */
export interface DecodedSnapshot {
  /** Format version it was written with. */
  readonly version: number;
  /** The saved settings, by key. */
  readonly settings: ReadonlyMap<string, PlainValue>;
  /** Highest entity id ever handed out by the saved world. */
  readonly maxId: number;
  /** Live entity ids, in the entity index's order. */
  readonly alive: Uint32Array;
  /** Freed ids, the next one to be reused first. */
  readonly dead: Uint32Array;
  /** Particles in the solver's order. */
  readonly particles: Uint32Array;
  /** Materials in slot order. */
  readonly materials: Uint32Array;
  /** Colliders in slot order. */
  readonly colliders: Uint32Array;
  /** Emitters in order. */
  readonly emitters: Uint32Array;
  /** Drains in order. */
  readonly drains: Uint32Array;
  /** Signed distance fields (holes where the saved list had none). */
  readonly fields: readonly (SignedDistanceField | undefined)[];
  /** Component stores. */
  readonly stores: readonly DecodedStore[];
  /** Random generator state of the emitters. */
  readonly randomState: number;
  /** Ids emitted by the last step. */
  readonly emitted: Uint32Array;
  /** Ids removed by the last step. */
  readonly removed: Uint32Array;
  /** Statistics, by key. */
  readonly stats: ReadonlyMap<string, PlainValue>;
  /** The MPS solver's warm-start pressures by entity id (section 'MPSP'; none for the other solvers). */
  readonly mpsWarmStart: MpsWarmStart;
  /** The PBF projection's warm start and density errors (section 'PROJ'; absent in older snapshots). */
  readonly projection: SavedProjection | undefined;
}

/** The live entities (indices into `alive`) whose values a store holds: its members, and every non-particle kind. */
function writtenEntities(alive: Uint32Array, members: Uint8Array, kindEntity: ReadonlySet<number>): Uint32Array {
  const result: number[] = [];
  for (let k = 0; k < alive.length; k++) {
    if ((members[k >> 3] & (1 << (k & 7))) !== 0 || kindEntity.has(alive[k])) result.push(alive[k]);
  }
  return Uint32Array.from(result);
}

const REQUIRED_SECTIONS = ['SETT', 'ENTS', 'ORDR', 'FLDS', 'COMP', 'EVTS', 'STAT'] as const;

/**
 * Checks and decodes a snapshot. Throws {@link FluidError} saying what is wrong: not a snapshot, a newer
 * format version, a checksum mismatch (corruption), a truncated or malformed section.
 */
export function readSnapshot(snapshot: unknown): DecodedSnapshot {
  if (!(snapshot instanceof Uint8Array)) {
    throw new FluidError(
      `snapshot is ${snapshot === null ? 'null' : typeof snapshot}; it must be the Uint8Array FluidSimulation.snapshot() returned`,
    );
  }
  const bytes = snapshot;
  if (bytes.length < MAGIC.length || MAGIC.some((byte, k) => bytes[k] !== byte)) {
    throw new FluidError('not a fluid snapshot: it does not start with the snapshot signature');
  }
  if (bytes.length < HEADER_BYTES) {
    throw new FluidError(`corrupt: truncated to ${bytes.length} bytes, shorter than the ${HEADER_BYTES}-byte header`);
  }
  const header = new DataView(bytes.buffer, bytes.byteOffset, HEADER_BYTES);
  const version = header.getUint32(8, true);
  if (version > SNAPSHOT_FORMAT_VERSION) {
    throw new FluidError(
      `format version ${version} is newer than supported ${SNAPSHOT_FORMAT_VERSION}; load it with a newer version of this library`,
    );
  }
  if (version < 1) throw new FluidError(`corrupt: format version ${version} does not exist (versions start at 1)`);
  const payloadLength = header.getUint32(12, true);
  const actual = bytes.length - HEADER_BYTES;
  if (actual < payloadLength) {
    throw new FluidError(
      `corrupt: truncated: the header announces ${payloadLength} payload bytes, ${actual} are there`,
    );
  }
  if (actual > payloadLength) {
    throw new FluidError(`corrupt: ${actual - payloadLength} bytes follow the ${payloadLength} payload bytes`);
  }
  if (crc32(bytes, HEADER_BYTES) !== header.getUint32(16, true)) {
    throw new FluidError('corrupt: checksum mismatch (the snapshot was changed or damaged after it was written)');
  }

  // Sections by tag (unknown ones are skipped).
  const sections = new Map<string, [number, number]>();
  const outer = new ByteReader(bytes, HEADER_BYTES, bytes.length, 'payload');
  while (outer.at < bytes.length) {
    const tag = tagName(outer.u32());
    const length = outer.u32();
    outer.need(length);
    if (sections.has(tag)) throw new FluidError(`corrupt: section '${tag}' appears twice`);
    sections.set(tag, [outer.at, outer.at + length]);
    outer.at += length;
  }
  for (const tag of REQUIRED_SECTIONS) {
    if (!sections.has(tag)) throw new FluidError(`corrupt: section '${tag}' is missing`);
  }
  const open = (tag: string): ByteReader => {
    const [start, end] = sections.get(tag) as [number, number];
    return new ByteReader(bytes, start, end, tag);
  };

  let reader = open('SETT');
  const settings = new Map<string, PlainValue>();
  for (let count = reader.u16(); count > 0; count--) {
    const key = reader.string();
    settings.set(key, reader.plain());
  }
  reader.finish();

  reader = open('ENTS');
  const maxId = reader.u32();
  const alive = reader.ids();
  const dead = reader.ids();
  reader.finish();
  if (alive.length + dead.length !== maxId) {
    throw new FluidError(
      `corrupt: section 'ENTS' lists ${alive.length + dead.length} entity ids for ${maxId} ever created`,
    );
  }
  const seen = new Uint8Array(maxId + 1);
  for (const list of [alive, dead]) {
    for (const eid of list) {
      if (eid < 1 || eid > maxId || seen[eid] !== 0) {
        throw new FluidError(`corrupt: section 'ENTS' lists entity id ${eid} twice or out of range`);
      }
      seen[eid] = 1;
    }
  }
  const isAlive = new Uint8Array(maxId + 1);
  for (const eid of alive) isAlive[eid] = 1;

  reader = open('ORDR');
  const particles = reader.ids();
  const materials = reader.ids();
  const colliders = reader.ids();
  const emitters = reader.ids();
  const drains = reader.ids();
  reader.finish();
  const listed = new Uint8Array(maxId + 1);
  for (const list of [particles, materials, colliders, emitters, drains]) {
    for (const eid of list) {
      if (eid > maxId || isAlive[eid] !== 1 || listed[eid] !== 0) {
        throw new FluidError(`corrupt: section 'ORDR' lists entity ${eid}, which is not a live entity or listed twice`);
      }
      listed[eid] = 1;
    }
  }

  reader = open('FLDS');
  const fields: (SignedDistanceField | undefined)[] = [];
  for (let count = reader.u32(); count > 0; count--) {
    if (reader.u8() === 0) {
      fields.push(undefined);
      continue;
    }
    const origin: [number, number, number] = [reader.f64(), reader.f64(), reader.f64()];
    const cellSize = reader.f64();
    const nodeCounts: [number, number, number] = [reader.u32(), reader.u32(), reader.u32()];
    const values = reader.float32s(nodeCounts[0] * nodeCounts[1] * nodeCounts[2] * FIELD_NODE_STRIDE);
    try {
      fields.push(new SignedDistanceField({ origin, cellSize, nodeCounts, values }));
    } catch (error) {
      throw new FluidError(`corrupt: a signed distance field of the snapshot is invalid: ${(error as Error).message}`);
    }
  }
  reader.finish();

  reader = open('COMP');
  const kindEntity = new Set<number>();
  for (const list of [materials, colliders, emitters, drains]) for (const eid of list) kindEntity.add(eid);
  const stores: DecodedStore[] = [];
  for (let storeCount = reader.u16(); storeCount > 0; storeCount--) {
    const name = currentName(reader.string());
    const members = reader.bytesOf((alive.length + 7) >> 3);
    const written = writtenEntities(alive, members, kindEntity).length;
    const storeFieldsList: { key: string; values: Float64Array }[] = [];
    for (let fieldCount = reader.u16(); fieldCount > 0; fieldCount--) {
      const key = currentName(reader.string());
      const code = reader.u8();
      storeFieldsList.push({ key, values: reader.values(code, written) });
    }
    stores.push({ name, members, fields: storeFieldsList });
  }
  reader.finish();

  reader = open('EVTS');
  const randomState = reader.u32();
  const emitted = reader.ids();
  const removed = reader.ids();
  reader.finish();

  let warmStart: MpsWarmStart = { ids: new Uint32Array(0), pressures: new Float64Array(0) };
  if (sections.has('MPSP')) {
    reader = open('MPSP');
    const ids = reader.ids();
    const pressures = new Float64Array(ids.length);
    for (let k = 0; k < ids.length; k++) {
      if (ids[k] < 1 || ids[k] > maxId) {
        throw new FluidError(`corrupt: section 'MPSP' lists entity id ${ids[k]}, outside [1, ${maxId}]`);
      }
      pressures[k] = reader.f64();
      if (!Number.isFinite(pressures[k])) {
        throw new FluidError(`corrupt: section 'MPSP' holds pressure ${pressures[k]} Pa for entity ${ids[k]}`);
      }
    }
    reader.finish();
    warmStart = { ids, pressures };
  }

  let projection: SavedProjection | undefined;
  if (sections.has('PROJ')) {
    reader = open('PROJ');
    const fail = (what: string): never => {
      throw new FluidError(`corrupt: section 'PROJ' holds ${what}`);
    };
    const cellSize = reader.f64();
    const origin: [number, number, number] = [reader.f64(), reader.f64(), reader.f64()];
    const dims: [number, number, number] = [reader.u32(), reader.u32(), reader.u32()];
    const cellCount = dims[0] * dims[1] * dims[2];
    if (!(cellSize >= 0 && cellSize <= 1e9)) fail(`cell size ${cellSize} m`);
    for (const value of origin) if (!Number.isInteger(value) || Math.abs(value) > 2 ** 31) fail(`grid origin ${value}`);
    if (cellCount > MAX_SNAPSHOT_PROJECTION_CELLS)
      fail(`a grid of ${cellCount} cells (at most ${MAX_SNAPSHOT_PROJECTION_CELLS})`);
    const nonZero = reader.u32();
    if (nonZero > cellCount) fail(`${nonZero} values for ${cellCount} cells`);
    const cells = new Uint32Array(nonZero);
    const phi = new Float64Array(nonZero);
    for (let k = 0; k < nonZero; k++) {
      cells[k] = reader.u32();
      phi[k] = reader.f64();
      if (cells[k] >= cellCount) fail(`cell ${cells[k]} of a grid of ${cellCount}`);
      if (!Number.isFinite(phi[k])) fail(`phi ${phi[k]} in cell ${cells[k]}`);
    }
    const count = reader.u32();
    if (count !== particles.length) fail(`${count} particle entries for ${particles.length} particles`);
    const constraint = new Float64Array(count);
    for (let place = 0; place < count; place++) {
      constraint[place] = reader.f64();
      if (!Number.isFinite(constraint[place])) fail(`density error ${constraint[place]} at place ${place}`);
    }
    reader.finish();
    projection = { cellSize, origin, dims, cells, phi, constraint };
  }

  reader = open('STAT');
  const stats = new Map<string, PlainValue>();
  for (let count = reader.u16(); count > 0; count--) {
    const key = reader.string();
    stats.set(key, reader.plain());
  }
  reader.finish();

  return {
    version,
    settings,
    maxId,
    alive,
    dead,
    particles,
    materials,
    colliders,
    emitters,
    drains,
    fields,
    stores,
    randomState,
    emitted,
    removed,
    stats,
    mpsWarmStart: warmStart,
    projection,
  };
}

/** What section 'PROJ' holds (see the writer). */
export interface SavedProjection {
  readonly cellSize: number;
  readonly origin: readonly [number, number, number];
  readonly dims: readonly [number, number, number];
  /** Cells of the grid with a non-zero phi, and those phi (Pa s). */
  readonly cells: Uint32Array;
  readonly phi: Float64Array;
  /** Per particle place: the density error C of the last solve. */
  readonly constraint: Float64Array;
}

/** The saved setting `key` as a number (throws {@link FluidError} naming it if absent or not a number). */
function numberSetting(decoded: DecodedSnapshot, key: string): number {
  const value = decoded.settings.get(key);
  if (typeof value !== 'number') throw new FluidError(`corrupt: the snapshot's setting '${key}' is missing`);
  return value;
}

/** Settings a simulation fixes at creation and cannot take from a snapshot: they must be equal. */
const FIXED_SETTINGS = ['particleRadius', 'kernelRadius'] as const;

/**
 * Component and field names of snapshots written before the API took Babylon's spelling (CHANGELOG.md,
 * "Unreleased"): the old name and the one it is read as, so those save files keep loading.
 */
const RENAMED: Readonly<Record<string, string>> = {
  Colour: 'Color',
  interfaceColour: 'interfaceColor',
  surfaceColour: 'surfaceColor',
  colourDiffusivity: 'colorDiffusivity',
  centreOfMassX: 'centerOfMassX',
  centreOfMassY: 'centerOfMassY',
  centreOfMassZ: 'centerOfMassZ',
};

/** The current name of a saved component or field (see {@link RENAMED}). */
function currentName(saved: string): string {
  return Object.hasOwn(RENAMED, saved) ? RENAMED[saved] : saved;
}

/** Option names of `FluidSimulation` the saved settings map to (the backend is the caller's choice). */
const OPTION_SETTINGS = [
  'particleRadius',
  'kernelRadius',
  'capacity',
  'maxMaterials',
  'maxColliders',
  'maxEmitters',
  'timeStep',
  'substeps',
  'iterations',
  'maxSpeed',
] as const;

/** Projection option names and the settings keys they are saved under. */
const PROJECTION_SETTINGS = [
  ['tolerance', 'projectionTolerance'],
  ['maxIterations', 'projectionMaxIterations'],
  ['densityRelaxation', 'projectionDensityRelaxation'],
] as const;

/** WCSPH option names and the settings keys they are saved under. */
const SPH_SETTINGS = [
  ['speedOfSound', 'sphSpeedOfSound'],
  ['viscosity', 'sphViscosity'],
  ['surfaceTension', 'sphSurfaceTension'],
  ['surfaceThreshold', 'sphSurfaceThreshold'],
  ['courantNumber', 'sphCourantNumber'],
  ['maxSubsteps', 'sphMaxSubsteps'],
] as const;

/**
 * The solver the snapshot was saved with: its `solver` setting, `'pbf'` for snapshots written before the
 * solver option existed (format version 1 without the key). Throws {@link FluidError} for another value.
 */
function savedSolver(decoded: DecodedSnapshot): FluidSolver {
  const value = decoded.settings.get('solver');
  if (value === undefined) return 'pbf';
  if (value === 'pbf' || value === 'sph' || value === 'mps') return value;
  throw new FluidError(
    `corrupt: the snapshot's setting 'solver' is ${String(value)}; allowed values are 'pbf', 'sph' and 'mps'`,
  );
}

/** The options that create a simulation with the snapshot's settings (backend, engine and mirror aside). */
export function snapshotSimulationOptions(decoded: DecodedSnapshot): FluidSimulationOptions {
  const options: Record<string, unknown> = {};
  for (const key of OPTION_SETTINGS) options[key] = numberSetting(decoded, key);
  const gravity = decoded.settings.get('gravity');
  if (!Array.isArray(gravity) || gravity.length !== 3) {
    throw new FluidError("corrupt: the snapshot's setting 'gravity' is missing");
  }
  options.gravity = [gravity[0], gravity[1], gravity[2]];
  options.solver = savedSolver(decoded);
  // The WCSPH settings (absent from snapshots written before the solver option: the defaults apply).
  const sph: Record<string, number> = {};
  for (const [option, key] of SPH_SETTINGS) {
    const value = decoded.settings.get(key);
    if (typeof value === 'number') sph[option] = value;
  }
  options.sph = sph;
  // The PBF projection's settings (absent from snapshots written before it existed: the defaults apply).
  if (decoded.settings.get('projection') === false) options.projection = false;
  else {
    const projection: Record<string, number> = {};
    for (const [option, key] of PROJECTION_SETTINGS) {
      const value = decoded.settings.get(key);
      if (typeof value === 'number') projection[option] = value;
    }
    options.projection = projection;
  }
  // The MPS settings (absent from snapshots of the other solvers and from older ones: the defaults apply).
  if (options.solver === 'mps') options.mps = mpsOptionsFromSnapshot((key) => decoded.settings.get(key));
  return options as FluidSimulationOptions;
}

/**
 * The settings of `ctx` with the snapshot's values of those that may change between steps (the fixed ones,
 * the limits and the backend are this simulation's): a new object, `ctx` is unchanged. The projection is
 * not ported to the WebGPU backend: a CPU snapshot continues there without it.
 */
function savedLiveSettings(ctx: SimulationContext, decoded: DecodedSnapshot): FluidSettings {
  const result = { ...ctx.settings, gravity: [...ctx.settings.gravity] } as FluidSettings;
  const settings = result as unknown as Record<string, unknown>;
  for (const [key, value] of decoded.settings) {
    if ((FIXED_SETTINGS as readonly string[]).includes(key) || key === 'backend' || key === 'sphMaxSubsteps') continue;
    if (['capacity', 'maxMaterials', 'maxColliders', 'maxEmitters'].includes(key)) continue;
    const current = settings[key];
    if (Array.isArray(current) && Array.isArray(value) && current.length === value.length) {
      for (let k = 0; k < value.length; k++) current[k] = value[k];
    } else if (typeof current === 'number' && typeof value === 'number') {
      settings[key] = value;
    } else if (typeof current === 'boolean' && typeof value === 'boolean') {
      settings[key] = value;
    }
  }
  if (result.backend === 'webgpu') result.projection = false;
  return result;
}

/**
 * Checks that the snapshot fits the simulation of `ctx` (same particle and kernel radius; capacities and
 * entity ids within its limits). Throws {@link FluidError} naming the limit; changes nothing.
 */
export function checkSnapshotFits(ctx: SimulationContext, decoded: DecodedSnapshot): void {
  const settings = ctx.settings;
  const solver = savedSolver(decoded);
  if (solver !== settings.solver) {
    throw new FluidError(
      `solver is '${settings.solver}' here but '${solver}' in the snapshot; restore into a simulation created with solver '${solver}' (FluidSimulation.fromSnapshot does)`,
    );
  }
  // A saved setting out of range (the option schema, core/schema.ts) throws here, before anything changed.
  checkLiveSettings(savedLiveSettings(ctx, decoded), settings.backend, "the snapshot's settings.");
  // A saved MPS setting out of range throws here, before anything changed.
  if (solver === 'mps') resolveMpsSettings(mpsOptionsFromSnapshot((key) => decoded.settings.get(key)));
  for (const key of FIXED_SETTINGS) {
    const saved = numberSetting(decoded, key);
    if (!Object.is(saved, settings[key])) {
      throw new FluidError(
        `${key} is ${settings[key]} here but ${saved} in the snapshot; restore into a simulation created with the snapshot's ${key} (FluidSimulation.fromSnapshot does)`,
      );
    }
  }
  // WCSPH's substep cap sizes the WebGPU backend's pose buffer at creation (gpu/backend.ts): fixed too.
  const savedMaxSubsteps = decoded.settings.get('sphMaxSubsteps');
  if (solver === 'sph' && typeof savedMaxSubsteps === 'number' && savedMaxSubsteps !== settings.sphMaxSubsteps) {
    throw new FluidError(
      `sph.maxSubsteps is ${settings.sphMaxSubsteps} here but ${savedMaxSubsteps} in the snapshot; it is fixed at creation: restore into a simulation created with sph.maxSubsteps ${savedMaxSubsteps} (FluidSimulation.fromSnapshot does)`,
    );
  }
  const limits: [string, number, number, string][] = [
    ['capacity', settings.capacity, decoded.particles.length, 'particles'],
    ['maxMaterials', settings.maxMaterials, decoded.materials.length, 'materials'],
    ['maxColliders', settings.maxColliders, decoded.colliders.length, 'colliders'],
    ['maxEmitters', settings.maxEmitters, decoded.emitters.length + decoded.drains.length, 'emitters and drains'],
  ];
  for (const [name, limit, needed, what] of limits) {
    if (limit < needed) {
      throw new FluidError(
        `${name} ${limit} is smaller than the snapshot's ${needed} ${what}; create the simulation with a larger ${name} (or use FluidSimulation.fromSnapshot)`,
      );
    }
  }
  if (decoded.maxId >= ctx.entityCapacity) {
    throw new FluidError(
      `the snapshot's entity ids reach ${decoded.maxId}, beyond this simulation's entity capacity ${ctx.entityCapacity} (capacity + maxMaterials + maxColliders + maxEmitters + 1); create it with the snapshot's limits (or use FluidSimulation.fromSnapshot)`,
    );
  }
  const stores = ctx.components as unknown as Record<string, unknown>;
  for (const store of decoded.stores) {
    if (!(store.name in stores)) {
      throw new FluidError(`the snapshot has a component '${store.name}' that this simulation does not have`);
    }
    const keys = new Set(storeFields(stores[store.name]).map(([key]) => key));
    for (const field of store.fields) {
      if (!keys.has(field.key)) {
        throw new FluidError(
          `the snapshot has a field '${store.name}${field.key ? `.${field.key}` : ''}' that this simulation does not have`,
        );
      }
    }
  }
}

/** True if `a` and `b` hold the same grid and the same bits. */
function sameField(a: SignedDistanceField, b: SignedDistanceField): boolean {
  if (a.cellSize !== b.cellSize || a.values.length !== b.values.length) return false;
  for (let axis = 0; axis < 3; axis++) {
    if (a.origin[axis] !== b.origin[axis] || a.nodeCounts[axis] !== b.nodeCounts[axis]) return false;
  }
  const x = new Int32Array(a.values.buffer, a.values.byteOffset, a.values.length);
  const y = new Int32Array(b.values.buffer, b.values.byteOffset, b.values.length);
  for (let k = 0; k < x.length; k++) if (x[k] !== y[k]) return false;
  return true;
}

/**
 * Replaces the state of the simulation of `ctx` (world created with `entityIndex`) by the snapshot's:
 * every entity of the world is removed, the saved ids are created again in the saved order (freed ids
 * queued for reuse in the saved order), and the components, the solver's bookkeeping, the fields, the
 * random state, the last step's ids, the statistics and the editable settings are written. Call
 * {@link checkSnapshotFits} first. Fields equal to one the simulation already has reuse that object.
 */
export function applySnapshot(ctx: SimulationContext, entityIndex: EntityIndex, decoded: DecodedSnapshot): void {
  const world = ctx.world;
  // 1. Entities: remove every live one (bitecs clears its components and queries), then recreate the saved
  // ids through the entity index: with the saved ids queued in order, addEntity hands out exactly those.
  const live = entityIndex.dense.slice(0, entityIndex.aliveCount);
  for (const eid of live) removeEntity(world, eid);
  entityIndex.dense.length = 0;
  for (const eid of decoded.alive) entityIndex.dense.push(eid);
  for (const eid of decoded.dead) entityIndex.dense.push(eid);
  entityIndex.sparse.length = 0;
  entityIndex.aliveCount = 0;
  entityIndex.maxId = decoded.maxId;
  for (const expected of decoded.alive) {
    const eid = addEntity(world);
    if (eid !== expected) throw new FluidError(`restore: bitecs handed out entity ${eid} instead of ${expected}`);
  }

  // 2. Components.
  const kindEntity = new Set<number>();
  for (const list of [decoded.materials, decoded.colliders, decoded.emitters, decoded.drains]) {
    for (const eid of list) kindEntity.add(eid);
  }
  const kindList = Uint32Array.from(kindEntity);
  const saved = new Map(decoded.stores.map((store) => [store.name, store]));
  for (const [name, store] of componentStores(ctx)) {
    const fields = storeFields(store);
    const decodedStore = saved.get(name);
    // A store the snapshot does not have: the entities of every kind get the store's initial values (those
    // of entity 0, which bitecs never hands out).
    const entities =
      decodedStore === undefined ? kindList : writtenEntities(decoded.alive, decodedStore.members, kindEntity);
    const values = new Map(decodedStore?.fields.map((field) => [field.key, field.values]));
    for (const [key, array] of fields) {
      const source = values.get(key);
      if (source === undefined) {
        const initial = array[0];
        for (let k = 0; k < entities.length; k++) array[entities[k]] = initial;
      } else {
        for (let k = 0; k < entities.length; k++) array[entities[k]] = source[k];
      }
    }
    if (decodedStore !== undefined) {
      const members = decodedStore.members;
      for (let k = 0; k < decoded.alive.length; k++) {
        if ((members[k >> 3] & (1 << (k & 7))) !== 0) addComponent(world, decoded.alive[k], store);
      }
    }
  }
  // Particle stores a snapshot written before they existed lacks (`Temperature` and `Color` came with the
  // multi-fluid terms): every particle gets them with its material's initial values, as createParticle
  // gives them (the material fields missing too hold their defaults: 293.15 K).
  const { Temperature, Color, FluidMaterial, Particle } = ctx.components;
  for (const eid of decoded.particles) {
    const material = Particle.material[eid];
    if (!saved.has('Temperature')) {
      addComponent(world, eid, Temperature);
      Temperature[eid] = FluidMaterial.initialTemperature[material];
    }
    if (!saved.has('Color')) {
      addComponent(world, eid, Color);
      Color.red[eid] = FluidMaterial.colorRed[material];
      Color.green[eid] = FluidMaterial.colorGreen[material];
      Color.blue[eid] = FluidMaterial.colorBlue[material];
    }
  }

  // 3. The solver's bookkeeping: particle order, material and collider slots, emitters and drains.
  const s = ctx.solver;
  s.placeOfEntity.fill(-1);
  s.entity.set(decoded.particles);
  for (let place = 0; place < decoded.particles.length; place++) s.placeOfEntity[decoded.particles[place]] = place;
  s.count = decoded.particles.length;
  const m = ctx.materials;
  m.slotOfEntity.fill(-1);
  m.entity.set(decoded.materials);
  for (let slot = 0; slot < decoded.materials.length; slot++) m.slotOfEntity[decoded.materials[slot]] = slot;
  m.count = decoded.materials.length;
  const c = ctx.colliders;
  c.entity.set(decoded.colliders);
  c.count = decoded.colliders.length;
  const existing = c.fields.filter((field): field is SignedDistanceField => field !== undefined);
  const fields = decoded.fields.map((field) => {
    if (field === undefined) return undefined;
    return existing.find((candidate) => sameField(candidate, field)) ?? field;
  });
  c.fields.length = 0;
  for (const field of fields) c.fields.push(field);
  const events = ctx.events;
  events.emitters.length = 0;
  for (const eid of decoded.emitters) events.emitters.push(eid);
  events.drains.length = 0;
  for (const eid of decoded.drains) events.drains.push(eid);
  events.randomState = decoded.randomState;
  const emitted = decoded.emitted.subarray(0, events.emitted.length);
  const removed = decoded.removed.subarray(0, events.removed.length);
  events.emitted.set(emitted);
  events.removed.set(removed);

  // 4. Statistics and the settings that may change between steps.
  const stats = ctx.stats as unknown as Record<string, unknown>;
  for (const [key, value] of decoded.stats) {
    if (typeof stats[key] === typeof value) stats[key] = value;
  }
  ctx.stats.emittedCount = Math.min(ctx.stats.emittedCount, emitted.length);
  ctx.stats.removedCount = Math.min(ctx.stats.removedCount, removed.length);
  const savedSettings = savedLiveSettings(ctx, decoded);
  // The gravity array is kept (game code may hold it); its values are the snapshot's.
  const gravity = ctx.settings.gravity;
  for (let axis = 0; axis < 3; axis++) gravity[axis] = savedSettings.gravity[axis];
  Object.assign(ctx.settings, { ...savedSettings, gravity });
  // 5. The PBF projection's warm start (a grid larger than this simulation's limit starts cold).
  restoreProjection(ctx, decoded.projection);
  // 6. The MPS solver's settings and warm-start pressures (checked by checkSnapshotFits).
  if (ctx.settings.solver === 'mps') {
    const mps = resolveMpsSettings(mpsOptionsFromSnapshot((key) => decoded.settings.get(key)));
    restoreMpsState(ctx, mps, decoded.mpsWarmStart);
  }
}

/** The most grid cells section 'PROJ' may describe (the largest grid any simulation allocates). */
const MAX_SNAPSHOT_PROJECTION_CELLS = projectionMaxCells(4194304);

/** Restores the projection's warm start and per-particle density errors (or clears them). */
function restoreProjection(ctx: SimulationContext, saved: SavedProjection | undefined): void {
  const state = ctx.projection;
  const plan = state.previousPlan;
  const s = ctx.solver;
  const cells = saved === undefined ? 0 : saved.dims[0] * saved.dims[1] * saved.dims[2];
  if (saved === undefined || cells > state.maxCells) {
    plan.cells = 0;
    plan.cellSize = 0;
    plan.dims.fill(0);
    s.constraint.fill(0, 0, s.count);
    if (saved !== undefined) s.constraint.set(saved.constraint);
    return;
  }
  plan.cellSize = saved.cellSize;
  plan.cells = cells;
  for (let a = 0; a < 3; a++) {
    plan.origin[a] = saved.origin[a];
    plan.dims[a] = saved.dims[a];
  }
  state.phi.fill(0, 0, cells);
  for (let k = 0; k < saved.cells.length; k++) state.phi[saved.cells[k]] = saved.phi[k];
  s.constraint.set(saved.constraint);
}
