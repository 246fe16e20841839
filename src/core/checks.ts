/**
 * Argument checks shared by every layer: each failure is a `FluidError` naming the value and the allowed
 * range. Imports nothing but the errors (docs/ARCHITECTURE.md, "Layers").
 */
import { FluidError } from './errors';

/** A three-component vector as a tuple: `[x, y, z]`. Snapshots and the simulation's state hold vectors so. */
export type Vector3Tuple = readonly [number, number, number];

/** A quaternion as a tuple: `[x, y, z, w]`. */
export type QuaternionTuple = readonly [number, number, number, number];

/**
 * Any object with numeric `x`, `y`, `z`: Babylon's `Vector3` (its `IVector3Like`), matched by shape so that the
 * simulation layer imports no Babylon class. Read once, when a call takes it; the call keeps no reference.
 */
export interface Vector3Like {
  /** x component (the unit of the option it is given to). */
  readonly x: number;
  /** y component. */
  readonly y: number;
  /** z component. */
  readonly z: number;
}

/** Any object with numeric `x`, `y`, `z`, `w`: Babylon's `Quaternion` (its `IQuaternionLike`). */
export interface QuaternionLike extends Vector3Like {
  /** w (scalar) component. */
  readonly w: number;
}

/** Any object with numeric `r`, `g`, `b` in [0, 1]: Babylon's `Color3` (its `IColor3Like`). */
export interface Color3Like {
  /** Red, [0, 1]. */
  readonly r: number;
  /** Green, [0, 1]. */
  readonly g: number;
  /** Blue, [0, 1]. */
  readonly b: number;
}

/** Babylon's `Color4` (its `IColor4Like`): accepted wherever a color goes; its alpha is not used. */
export interface Color4Like extends Color3Like {
  /** Alpha; ignored by every option that takes a color. */
  readonly a: number;
}

/** A vector wherever the API takes one: `[x, y, z]` or a Babylon `Vector3` (any `{ x, y, z }`). */
export type Vector3Input = Vector3Tuple | Vector3Like;

/** A rotation wherever the API takes one: `[x, y, z, w]` or a Babylon `Quaternion` (any `{ x, y, z, w }`). */
export type QuaternionInput = QuaternionTuple | QuaternionLike;

/**
 * A color wherever the API takes one: `[red, green, blue]`, a Babylon `Color3` (any `{ r, g, b }`) or a
 * `Color4` (alpha ignored); each channel in [0, 1].
 */
export type Color3Input = Vector3Tuple | Color3Like | Color4Like;

/** Checks that `value` is a finite number in [min, max]. */
export function checkNumber(name: string, value: unknown, min: number, max: number): number {
  if (typeof value !== 'number' || !Number.isFinite(value) || value < min || value > max) {
    throw new FluidError(`${name} is ${String(value)}; allowed range is [${min}, ${max}]`);
  }
  return value;
}

/** Checks that `value` is an integer in [min, max]. */
export function checkInteger(name: string, value: unknown, min: number, max: number): number {
  checkNumber(name, value, min, max);
  if (!Number.isInteger(value))
    throw new FluidError(`${name} is ${String(value)}; it must be an integer in [${min}, ${max}]`);
  return value as number;
}

/**
 * What a value given for a vector, quaternion or color is, for an error message: `String(value)` but for a
 * plain object (which would read `[object Object]`), whose keys are listed.
 */
function describeValue(value: unknown): string {
  if (typeof value === 'object' && value !== null && !Array.isArray(value) && !ArrayBuffer.isView(value)) {
    const text = String(value);
    if (text !== '[object Object]') return text;
    const keys = Object.keys(value);
    return keys.length === 0 ? '{}' : `{ ${keys.join(', ')} }`;
  }
  return String(value);
}

/**
 * Reads `value` as `keys.length` finite numbers, each in [min, max]: an array (or typed array) of that
 * length, or an object with a number under each of `keys` (a Babylon `Vector3`, `Quaternion`, `Color3`,
 * `Color4`; own or inherited properties, so class getters count). A failure names the component as
 * `name[k]` for an array and `name.key` for an object. `shape` names the accepted object in messages.
 */
function checkTuple(
  name: string,
  value: unknown,
  keys: readonly string[],
  min: number,
  max: number,
  shape: string,
): number[] {
  const length = keys.length;
  const result: number[] = [];
  if (Array.isArray(value) || ArrayBuffer.isView(value)) {
    const array = value as unknown as ArrayLike<unknown>;
    if (array.length !== length) {
      throw new FluidError(`${name} has ${array.length} components; it must have ${length}`);
    }
    for (let k = 0; k < length; k++) result.push(checkNumber(`${name}[${k}]`, array[k], min, max));
    return result;
  }
  const accepted = `an array of ${length} finite numbers [${keys.join(', ')}] or ${shape}`;
  if (typeof value !== 'object' || value === null) {
    throw new FluidError(`${name} is ${String(value)}; it must be ${accepted}`);
  }
  const missing = keys.filter((key) => !(key in value));
  if (missing.length > 0) {
    throw new FluidError(`${name} is ${describeValue(value)}, without ${missing.join(', ')}; it must be ${accepted}`);
  }
  const record = value as Record<string, unknown>;
  for (const key of keys) result.push(checkNumber(`${name}.${key}`, record[key], min, max));
  return result;
}

const VECTOR3_KEYS = ['x', 'y', 'z'] as const;
const QUATERNION_KEYS = ['x', 'y', 'z', 'w'] as const;
const COLOR3_KEYS = ['r', 'g', 'b'] as const;

/** The largest |coordinate| a position, direction or box corner given to the public calls may have (m). */
export const COORDINATE_LIMIT = 10000000;

/**
 * The largest |coordinate| (m) a particle's or collider's position may hold in the components before a step:
 * 1e12 m, far beyond {@link COORDINATE_LIMIT}, which the simulation's own motion (particles at most
 * `maxSpeed`, 10,000 m/s; a body a game lets fall for days) cannot reach, and far below where squared
 * distances overflow. A larger value can only have been written there (by game code or a save file).
 */
export const POSITION_LIMIT = 1e12;

/**
 * Checks a vector, `[x, y, z]` or a Babylon `Vector3` (any `{ x, y, z }`), of finite numbers with
 * |component| <= limit (default {@link COORDINATE_LIMIT}); returns it as a new tuple.
 */
export function checkVector3(name: string, value: unknown, limit = COORDINATE_LIMIT): [number, number, number] {
  const [x, y, z] = checkTuple(
    name,
    value,
    VECTOR3_KEYS,
    -limit,
    limit,
    'an object with numeric x, y, z (a Babylon Vector3)',
  );
  return [x, y, z];
}

/**
 * Checks a rotation quaternion, `[x, y, z, w]` or a Babylon `Quaternion` (any `{ x, y, z, w }`), with non-zero
 * length; returns it normalised, as a new tuple. Euler angles (a `Vector3` such as `mesh.rotation`) are
 * refused, naming the missing `w`.
 */
export function checkQuaternion(name: string, value: unknown): [number, number, number, number] {
  const [x, y, z, w] = checkTuple(
    name,
    value,
    QUATERNION_KEYS,
    -COORDINATE_LIMIT,
    COORDINATE_LIMIT,
    'an object with numeric x, y, z, w (a Babylon Quaternion; for Euler angles use Quaternion.FromEulerAngles)',
  );
  const length = Math.hypot(x, y, z, w);
  if (length < 1e-9) throw new FluidError(`${name} has length ${length}; a rotation quaternion must not be zero`);
  return [x / length, y / length, z / length, w / length];
}

/**
 * Checks a color, `[red, green, blue]` or a Babylon `Color3` or `Color4` (any `{ r, g, b }`; alpha is not
 * read), each channel in [0, 1]; returns it as a new tuple `[red, green, blue]`.
 */
export function checkColor3(name: string, value: unknown): [number, number, number] {
  const [red, green, blue] = checkTuple(
    name,
    value,
    COLOR3_KEYS,
    0,
    1,
    'an object with numeric r, g, b (a Babylon Color3 or Color4)',
  );
  return [red, green, blue];
}

/** Returns `value` if defined, else `fallback`. */
export function withDefault<T>(value: T | undefined, fallback: T): T {
  return value === undefined ? fallback : value;
}

/**
 * A runtime list of the keys of options type `T`: `optionNames<T>()('a', 'b')` compiles only when the names
 * cover every key of `T`, so the list cannot fall behind the type (see {@link checkKnownKeys}).
 */
export function optionNames<T>() {
  return <const L extends readonly (keyof T & string)[]>(
    ...names: L & (Exclude<keyof T, L[number]> extends never ? unknown : never)
  ): L => names;
}

/** Levenshtein distance of `a` and `b` (short option names). */
function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const substitution = previous[j - 1] + (a[i - 1] === b[j - 1] ? 0 : 1);
      current[j] = Math.min(previous[j] + 1, current[j - 1] + 1, substitution);
    }
    previous = current;
  }
  return previous[b.length];
}

/**
 * Throws {@link FluidError} for a key of `options` (with a value other than `undefined`) that is not one of
 * `known`, naming it and the closest known name: a misspelt option (`particleRadus`) would otherwise be ignored
 * and its default used. TypeScript flags such keys in typed code; JavaScript and JSON-driven callers get this.
 */
export function checkKnownKeys(what: string, options: object, known: readonly string[]): void {
  for (const [key, value] of Object.entries(options)) {
    if (value === undefined || known.includes(key)) continue;
    let closest = '';
    let distance = Number.POSITIVE_INFINITY;
    for (const name of known) {
      const d = editDistance(key.toLowerCase(), name.toLowerCase());
      if (d < distance) {
        distance = d;
        closest = name;
      }
    }
    const hint = distance <= Math.max(2, Math.floor(key.length / 3)) ? `; did you mean '${closest}'?` : '';
    throw new FluidError(`${what} has no option '${key}'${hint} (its options: ${known.join(', ')})`);
  }
}
