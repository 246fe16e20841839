/**
 * Save and load: a simulation's whole state as one compact, versioned binary snapshot, and back. This file
 * holds the format; write.ts writes it, read.ts reads and checks it, apply.ts restores it.
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
import type { FluidBackend } from '../../components';
import { optionNames } from '../../core/checks';
import type { SimulationContext } from '../context';
import type { MpsWarmStart } from '../mps/data';
import type { MirrorMode } from '../options';
import { projectionMaxCells } from '../projection/state';
import type { SignedDistanceField } from '../sdf/field';

/** The bitecs entity index a simulation's world is created with (defined with the reuse order in entityIds.ts). */
export type { EntityIndex } from '../entityIds';

/** The snapshot format version this code writes, and the newest it reads. */
export const SNAPSHOT_FORMAT_VERSION = 1;

/** The 8 signature bytes every snapshot starts with (ASCII `ECSFLUID`). */
export const MAGIC = [0x45, 0x43, 0x53, 0x46, 0x4c, 0x55, 0x49, 0x44];

/** Signature (8), format version (4), payload length (4), payload CRC-32 (4). */
export const HEADER_BYTES = 20;

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
  /**
   * Threads of the new simulation, as in `FluidSimulationOptions.threads` (a machine's property, not saved:
   * a snapshot continues bit-identically on the count of the run that saved it, and on any count from 2 up
   * when that was 2 or more; pass the saving run's count, as the default depends on the machine and the page).
   * Default as `FluidSimulationOptions.threads`: the hardware threads, at most 2, on the CPU backend where
   * workers can run, else 1.
   */
  threads?: number;
  /**
   * Whether the new simulation's CPU backend runs its PBF pair loops in WebAssembly, as in
   * `FluidSimulationOptions.webAssembly` (a machine's choice, not saved: the results are the same). Default true.
   */
  webAssembly?: boolean;
  /**
   * Particle capacity of the new simulation. Default: the snapshot's own, if it is at most `maxCapacity`
   * (a save file does not decide a large allocation by itself). At least the snapshot's particle count, in
   * the range of `FluidSimulationOptions.capacity`. A capacity other than the saved one still restores
   * every value, but the continuation is no longer bit-identical (the neighbour grid's table changes).
   */
  capacity?: number;
  /**
   * The largest capacity a snapshot may ask for when `capacity` is not given; a larger request throws
   * `FluidError` before anything is allocated. Default: {@link SNAPSHOT_CAPACITY_FLOOR} or 4 times the
   * snapshot's particle count, whichever is larger.
   */
  maxCapacity?: number;
}

/** The names of {@link FromSnapshotOptions}, checked at run time (`checkKnownKeys`). */
export const FROM_SNAPSHOT_OPTION_NAMES = optionNames<FromSnapshotOptions>()(
  'backend',
  'engine',
  'mirror',
  'threads',
  'webAssembly',
  'capacity',
  'maxCapacity',
);

/**
 * The capacity any snapshot may ask for by itself (`FromSnapshotOptions.maxCapacity`'s default, with 4 times
 * its particle count): 131,072 particles, about 60 MB of CPU arrays.
 */
export const SNAPSHOT_CAPACITY_FLOOR = 131072;

/** The CRC-32 table (IEEE 802.3, the polynomial of zip and PNG), made by the first `crc32`. */
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
export type StoreArray =
  | Float64Array
  | Float32Array
  | Int32Array
  | Uint32Array
  | Int16Array
  | Uint16Array
  | Int8Array
  | Uint8Array;

/** Element type codes, written per field; every one converts to float64 exactly. */
export const ELEMENT_TYPES = [
  { code: 1, name: 'Float64Array', bytes: 8 },
  { code: 2, name: 'Float32Array', bytes: 4 },
  { code: 3, name: 'Int32Array', bytes: 4 },
  { code: 4, name: 'Uint32Array', bytes: 4 },
  { code: 5, name: 'Int16Array', bytes: 2 },
  { code: 6, name: 'Uint16Array', bytes: 2 },
  { code: 7, name: 'Int8Array', bytes: 1 },
  { code: 8, name: 'Uint8Array', bytes: 1 },
] as const;

/** The element-type code of a store array (see `ELEMENT_TYPES`). */
export function elementCode(array: StoreArray): number {
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
export function storeFields(store: unknown): [string, StoreArray][] {
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

/** The world's component stores by name, sorted (the order a snapshot writes them in). */
export function componentStores(ctx: SimulationContext): [string, object][] {
  const record = ctx.components as unknown as Record<string, object>;
  return Object.keys(record)
    .sort()
    .map((name): [string, object] => [name, record[name]]);
}

/** A section's 4-letter tag as its u32 code. */
export function tagCode(tag: string): number {
  return (tag.charCodeAt(0) | (tag.charCodeAt(1) << 8) | (tag.charCodeAt(2) << 16) | (tag.charCodeAt(3) << 24)) >>> 0;
}

/** A u32 section code as its 4-letter tag. */
export function tagName(code: number): string {
  let name = '';
  for (let k = 0; k < 4; k++) {
    const c = (code >>> (8 * k)) & 0xff;
    name += c >= 32 && c < 127 ? String.fromCharCode(c) : '?';
  }
  return name;
}

/** A setting or statistic value: number (0), list of numbers (1), string (2) or boolean (3). */
export type PlainValue = number | number[] | string | boolean;

/** One store of a decoded snapshot. */
export interface DecodedStore {
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
  /** Freed ids, the next one to be reused first (once the id space is used up: entityIds.ts). */
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

/** The sections every snapshot has (MPSP and PROJ are optional). */
export const REQUIRED_SECTIONS = ['SETT', 'ENTS', 'ORDR', 'FLDS', 'COMP', 'EVTS', 'STAT'] as const;

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

/** The live entities (indices into `alive`) whose values a store holds: its members, and every non-particle kind. */
export function writtenEntities(alive: Uint32Array, members: Uint8Array, kindEntity: ReadonlySet<number>): Uint32Array {
  const result: number[] = [];
  for (let k = 0; k < alive.length; k++) {
    if ((members[k >> 3] & (1 << (k & 7))) !== 0 || kindEntity.has(alive[k])) result.push(alive[k]);
  }
  return Uint32Array.from(result);
}

/** The most grid cells section 'PROJ' may describe (the largest grid any simulation allocates). */
export const MAX_SNAPSHOT_PROJECTION_CELLS = projectionMaxCells(4194304);
