/**
 * Argument checks shared by every layer: each failure is a `FluidError` naming the value and the allowed
 * range. Imports nothing but the errors (docs/ARCHITECTURE.md, "Layers").
 */
import { FluidError } from './errors';

/** A three-component vector as the API takes it: `[x, y, z]`. */
export type Vector3Tuple = readonly [number, number, number];

/** A quaternion as the API takes it: `[x, y, z, w]`. */
export type QuaternionTuple = readonly [number, number, number, number];

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

/** Checks that `value` is an array of `length` finite numbers, each with |v| <= limit. */
function checkTuple(name: string, value: unknown, length: number, limit: number): number[] {
  if (!Array.isArray(value) && !ArrayBuffer.isView(value)) {
    throw new FluidError(`${name} is ${String(value)}; it must be an array of ${length} finite numbers`);
  }
  const array = value as ArrayLike<unknown>;
  if (array.length !== length) {
    throw new FluidError(`${name} has ${array.length} components; it must have ${length}`);
  }
  const result: number[] = [];
  for (let k = 0; k < length; k++) result.push(checkNumber(`${name}[${k}]`, array[k], -limit, limit));
  return result;
}

/** The largest |coordinate| a position, direction or box corner given to the public calls may have (m). */
export const COORDINATE_LIMIT = 10000000;

/**
 * The largest |coordinate| (m) a particle's or collider's position may hold in the components before a step:
 * 1e12 m, far beyond {@link COORDINATE_LIMIT}, which the simulation's own motion (particles at most
 * `maxSpeed`, 10,000 m/s; a body a game lets fall for days) cannot reach, and far below where squared
 * distances overflow. A larger value can only have been written there (by game code or a save file).
 */
export const POSITION_LIMIT = 1e12;

/** Checks a vector `[x, y, z]` of finite numbers with |component| <= limit (default {@link COORDINATE_LIMIT}). */
export function checkVector3(name: string, value: unknown, limit = COORDINATE_LIMIT): [number, number, number] {
  const [x, y, z] = checkTuple(name, value, 3, limit);
  return [x, y, z];
}

/** Checks a quaternion `[x, y, z, w]` with non-zero length and returns it normalised. */
export function checkQuaternion(name: string, value: unknown): [number, number, number, number] {
  const [x, y, z, w] = checkTuple(name, value, 4, COORDINATE_LIMIT);
  const length = Math.hypot(x, y, z, w);
  if (length < 1e-9) throw new FluidError(`${name} has length ${length}; a rotation quaternion must not be zero`);
  return [x / length, y / length, z / length, w / length];
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
