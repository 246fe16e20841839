/**
 * What every collider shape module provides (docs/ARCHITECTURE.md, "A new collider shape"): its options read
 * into the `Collider` component, the check of the component before each step, its local bounds, and its
 * distance (CPU here, WGSL in the `.wgsl` file of the same name). `index.ts` lists the shapes by code.
 */
import type { ColliderStore } from '../../../components';
import type { Vector3Tuple } from '../../../core/checks';
import type { ColliderOptions } from '../../options';
import type { SignedDistanceField } from '../../sdf/field';

/** A collider's shape as the `Collider` component stores it. */
export interface ColliderGeometry {
  /** A `ColliderShape` value. */
  shape: number;
  /** Box: min corner; sphere: center; capsule: first end; plane: a point on it (m). */
  a: Vector3Tuple;
  /** Box: max corner; capsule: second end; plane: the unit normal; else unused. */
  b: Vector3Tuple;
  /** Sphere and capsule radius (m); else 0. */
  radius: number;
  /** The baked field of a mesh collider. */
  field?: SignedDistanceField;
}

/** One collider shape's CPU side (its WGSL distance is `<name>.wgsl` beside it). */
export interface ColliderShapeModule {
  /** The `shape` option's value, e.g. `'box'`. */
  readonly name: string;
  /**
   * Checks the shape's options of `addCollider` and returns its component fields. Throws `FluidError` naming the
   * bad value and what is allowed.
   */
  read(options: ColliderOptions): ColliderGeometry;
  /**
   * Checks the shape's fields of collider `eid` (game code may have edited them) before a step; throws
   * `FluidError` naming the field and the allowed range.
   */
  check(c: ColliderStore, eid: number): void;
  /**
   * Writes the shape's local axis-aligned bounds into `low` and `high` (local units); false where it has none
   * (a plane) or none yet (a mesh whose field is gone).
   */
  localBounds(
    c: ColliderStore,
    eid: number,
    fields: readonly (SignedDistanceField | undefined)[],
    low: Float64Array,
    high: Float64Array,
  ): boolean;
  /**
   * How deep the deepest point inside the shape lies (local units): the radius of the largest sphere it holds
   * (a box: half its smallest side; a mesh: its field's deepest node; a plane: infinite). The projection calls
   * a coupled body thin when this is under a cell (`isThinCoupledBody`, projection/grid.ts).
   */
  insideDepth(c: ColliderStore, eid: number, fields: readonly (SignedDistanceField | undefined)[]): number;
}
