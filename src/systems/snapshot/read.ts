/**
 * Reads and checks a snapshot's bytes into its decoded form, changing nothing: every section's lengths, ids and
 * values are checked against the format before anything is applied (snapshot/apply.ts).
 */

import { FluidError } from '../../core/errors';
import type { MpsWarmStart } from '../mps/data';
import { FIELD_NODE_STRIDE, SignedDistanceField } from '../sdf/field';
import { ByteReader } from './bytes';
import {
  crc32,
  type DecodedSnapshot,
  type DecodedStore,
  HEADER_BYTES,
  MAGIC,
  MAX_SNAPSHOT_PROJECTION_CELLS,
  type PlainValue,
  REQUIRED_SECTIONS,
  type SavedProjection,
  SNAPSHOT_FORMAT_VERSION,
  tagName,
  writtenEntities,
} from './format';

/** Checks the header (signature, version, length, checksum); returns the format version. */
function readHeader(bytes: Uint8Array): number {
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
  return version;
}

/** The payload's sections by tag, as [start, end) byte ranges (unknown ones are kept, and skipped). */
function readSections(bytes: Uint8Array): Map<string, [number, number]> {
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
  return sections;
}

/** Section 'SETT' or 'STAT': named plain values. */
function readPlainMap(reader: ByteReader): Map<string, PlainValue> {
  const values = new Map<string, PlainValue>();
  for (let count = reader.u16(); count > 0; count--) {
    const key = reader.string();
    values.set(key, reader.plain());
  }
  reader.finish();
  return values;
}

/** Section 'ENTS': the entity index (ids alive, ids to reuse), each id once, within [1, maxId]. */
function readEntities(reader: ByteReader): { maxId: number; alive: Uint32Array; dead: Uint32Array } {
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
  return { maxId, alive, dead };
}

/** Section 'ORDR': the particle, material, collider, emitter and drain orders, each a live entity once. */
function readOrders(reader: ByteReader, maxId: number, alive: Uint32Array): Uint32Array[] {
  const isAlive = new Uint8Array(maxId + 1);
  for (const eid of alive) isAlive[eid] = 1;
  const lists = [reader.ids(), reader.ids(), reader.ids(), reader.ids(), reader.ids()];
  reader.finish();
  const listed = new Uint8Array(maxId + 1);
  for (const list of lists) {
    for (const eid of list) {
      if (eid > maxId || isAlive[eid] !== 1 || listed[eid] !== 0) {
        throw new FluidError(`corrupt: section 'ORDR' lists entity ${eid}, which is not a live entity or listed twice`);
      }
      listed[eid] = 1;
    }
  }
  return lists;
}

/** Section 'FLDS': the signed distance fields (undefined for an empty slot), each checked as it is built. */
function readFields(reader: ByteReader): (SignedDistanceField | undefined)[] {
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
  return fields;
}

/** Section 'COMP': every component store (old names read as the current ones, see {@link RENAMED}). */
function readStores(reader: ByteReader, alive: Uint32Array, kindEntity: ReadonlySet<number>): DecodedStore[] {
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
  return stores;
}

/** Section 'MPSP': the MPS solver's warm-start pressures by entity id, finite, ids within [1, maxId]. */
function readMpsWarmStart(reader: ByteReader, maxId: number): MpsWarmStart {
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
  return { ids, pressures };
}

/** Section 'PROJ': the coarse projection's warm start (grid, non-zero phi, per-particle density errors). */
function readProjection(reader: ByteReader, particleCount: number): SavedProjection {
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
  if (count !== particleCount) fail(`${count} particle entries for ${particleCount} particles`);
  const constraint = new Float64Array(count);
  for (let place = 0; place < count; place++) {
    constraint[place] = reader.f64();
    if (!Number.isFinite(constraint[place])) fail(`density error ${constraint[place]} at place ${place}`);
  }
  reader.finish();
  return { cellSize, origin, dims, cells, phi, constraint };
}

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
  const version = readHeader(bytes);
  const sections = readSections(bytes);
  const open = (tag: string): ByteReader => {
    const [start, end] = sections.get(tag) as [number, number];
    return new ByteReader(bytes, start, end, tag);
  };
  const settings = readPlainMap(open('SETT'));
  const { maxId, alive, dead } = readEntities(open('ENTS'));
  const [particles, materials, colliders, emitters, drains] = readOrders(open('ORDR'), maxId, alive);
  const fields = readFields(open('FLDS'));
  const kindEntity = new Set<number>();
  for (const list of [materials, colliders, emitters, drains]) for (const eid of list) kindEntity.add(eid);
  const stores = readStores(open('COMP'), alive, kindEntity);
  const events = open('EVTS');
  const randomState = events.u32();
  const emitted = events.ids();
  const removed = events.ids();
  events.finish();
  const mpsWarmStart = sections.has('MPSP')
    ? readMpsWarmStart(open('MPSP'), maxId)
    : { ids: new Uint32Array(0), pressures: new Float64Array(0) };
  const projection = sections.has('PROJ') ? readProjection(open('PROJ'), particles.length) : undefined;
  const stats = readPlainMap(open('STAT'));
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
    mpsWarmStart,
    projection,
  };
}

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
