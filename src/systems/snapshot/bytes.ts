/** The little-endian byte writer and the bounds-checked reader of the snapshot format (snapshot/format.ts). */

import { FluidError } from '../../core/errors';
import { ELEMENT_TYPES, type PlainValue, type StoreArray, tagCode } from './format';

// ---------------------------------------------------------------------------------------------------------
// Writing.

/** Appends little-endian values to a growing byte buffer; `section` writes a tagged, length-prefixed section. */
export class ByteWriter {
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

/** Writes a plain value (number, number array, string or boolean) with its type code. */
export function writePlain(writer: ByteWriter, value: PlainValue): void {
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

// ---------------------------------------------------------------------------------------------------------
// Reading.

/** Reads little-endian values from a section of a snapshot; every read checks the section's bounds. */
export class ByteReader {
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
