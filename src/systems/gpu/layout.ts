/**
 * One definition of each struct shared by WGSL and TypeScript: the WGSL `struct` text and the byte offsets
 * the TypeScript side writes at are both generated from it, following WGSL's alignment rules (WGSL spec,
 * "Alignment and Size"), so no byte offset is ever written by hand twice.
 */

/** WGSL scalar and vector types a struct field may have (atomics only in read-write storage buffers). */
export type ScalarType =
  | 'f32'
  | 'u32'
  | 'i32'
  | 'atomic<u32>'
  | 'atomic<i32>'
  | 'vec4<f32>'
  | 'vec4<u32>'
  | 'vec4<i32>';

/** A field: a scalar or vector, a nested struct, or a fixed-length or runtime-sized array of either. */
export type FieldType = ScalarType | StructLayout | ArrayType;

/** A WGSL array type. `length` 0 means a runtime-sized array (only as the last field). */
export interface ArrayType {
  readonly element: ScalarType | StructLayout;
  readonly length: number;
}

/** A struct's generated layout. */
export interface StructLayout {
  /** WGSL type name. */
  readonly name: string;
  /** The WGSL `struct` declaration. */
  readonly wgsl: string;
  /** Size in bytes (rounded up to the alignment, as an array element). */
  readonly size: number;
  /** Alignment in bytes. */
  readonly align: number;
  /** Byte offset of each field. */
  readonly offsets: Readonly<Record<string, number>>;
  /** Array element stride in bytes of each array field. */
  readonly strides: Readonly<Record<string, number>>;
}

const SCALARS: Record<ScalarType, { size: number; align: number }> = {
  f32: { size: 4, align: 4 },
  u32: { size: 4, align: 4 },
  i32: { size: 4, align: 4 },
  'atomic<u32>': { size: 4, align: 4 },
  'atomic<i32>': { size: 4, align: 4 },
  'vec4<f32>': { size: 16, align: 16 },
  'vec4<u32>': { size: 16, align: 16 },
  'vec4<i32>': { size: 16, align: 16 },
};

const roundUp = (value: number, align: number): number => Math.ceil(value / align) * align;

function isArray(type: FieldType): type is ArrayType {
  return typeof type === 'object' && 'element' in type;
}

function sizeAndAlign(type: ScalarType | StructLayout): { size: number; align: number } {
  return typeof type === 'string' ? SCALARS[type] : { size: type.size, align: type.align };
}

function typeName(type: FieldType): string {
  if (isArray(type)) {
    const element = typeof type.element === 'string' ? type.element : type.element.name;
    return type.length > 0 ? `array<${element}, ${type.length}>` : `array<${element}>`;
  }
  return typeof type === 'string' ? type : type.name;
}

/** An array field type. `length` 0: runtime-sized (last field only). */
export function arrayOf(element: ScalarType | StructLayout, length: number): ArrayType {
  return { element, length };
}

/** Defines a struct from its fields, in order. */
export function defineStruct(name: string, fields: readonly (readonly [string, FieldType])[]): StructLayout {
  const offsets: Record<string, number> = {};
  const strides: Record<string, number> = {};
  let offset = 0;
  let align = 4;
  const lines: string[] = [];
  fields.forEach(([fieldName, type], index) => {
    let fieldSize: number;
    let fieldAlign: number;
    if (isArray(type)) {
      const element = sizeAndAlign(type.element);
      const stride = roundUp(element.size, element.align);
      if (type.length === 0 && index !== fields.length - 1) {
        throw new Error(`${name}.${fieldName}: a runtime-sized array must be the last field`);
      }
      fieldSize = stride * type.length;
      fieldAlign = element.align;
      strides[fieldName] = stride;
    } else {
      ({ size: fieldSize, align: fieldAlign } = sizeAndAlign(type));
    }
    offset = roundUp(offset, fieldAlign);
    offsets[fieldName] = offset;
    offset += fieldSize;
    align = Math.max(align, fieldAlign);
    lines.push(`  ${fieldName}: ${typeName(type)},`);
  });
  return {
    name,
    wgsl: `struct ${name} {\n${lines.join('\n')}\n};\n`,
    size: roundUp(offset, align),
    align,
    offsets,
    strides,
  };
}

/** Float and integer views over one ArrayBuffer, indexed in 4-byte words. */
export interface WordViews {
  readonly buffer: ArrayBuffer;
  readonly f32: Float32Array;
  readonly u32: Uint32Array;
  readonly i32: Int32Array;
}

/** Allocates `bytes` (a multiple of 4) with float and integer views. */
export function createWordViews(bytes: number): WordViews {
  const buffer = new ArrayBuffer(bytes);
  return { buffer, f32: new Float32Array(buffer), u32: new Uint32Array(buffer), i32: new Int32Array(buffer) };
}

/** Word index of field `field` of `layout` in the struct starting at byte `base`. */
export function word(layout: StructLayout, field: string, base = 0): number {
  const offset = layout.offsets[field];
  if (offset === undefined) throw new Error(`${layout.name} has no field ${field}`);
  return (base + offset) >> 2;
}
