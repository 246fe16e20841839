/**
 * The shape part of `addCollider`'s options, checked and turned into the `Collider` component's shape fields
 * (see components/collider.ts for what a, b and radius mean for each shape).
 */
import { ColliderShape } from '../../components';
import { checkVector3, type Vector3Tuple } from '../../core/checks';
import { FluidError } from '../../core/errors';
import { COLLIDER_OPTIONS, checkOption } from '../../core/schema';
import type { ColliderOptions } from '../options';
import { SignedDistanceField } from '../sdf/field';

/** A collider's shape as the `Collider` component stores it. */
export interface ColliderGeometry {
  /** A {@link ColliderShape} value. */
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

/**
 * Checks the shape options of `addCollider` (`shape` and the fields it needs) and returns the shape's
 * component fields. Throws {@link FluidError} naming the bad value and what is allowed.
 */
export function readColliderGeometry(options: ColliderOptions): ColliderGeometry {
  switch (options.shape) {
    case 'box': {
      const a = checkVector3('min', options.min);
      const b = checkVector3('max', options.max);
      for (let axis = 0; axis < 3; axis++) {
        if (!(b[axis] > a[axis]))
          throw new FluidError(`max[${axis}] (${b[axis]}) must be greater than min[${axis}] (${a[axis]})`);
      }
      return { shape: ColliderShape.box, a, b, radius: 0 };
    }
    case 'sphere':
      return {
        shape: ColliderShape.sphere,
        a: checkVector3('center', options.center),
        b: [0, 0, 0],
        radius: checkOption('radius', COLLIDER_OPTIONS.radius, options.radius),
      };
    case 'capsule':
      return {
        shape: ColliderShape.capsule,
        a: checkVector3('a', options.a),
        b: checkVector3('b', options.b),
        radius: checkOption('radius', COLLIDER_OPTIONS.radius, options.radius),
      };
    case 'plane': {
      const point = checkVector3('point', options.point);
      const normal = checkVector3('normal', options.normal);
      const length = Math.hypot(normal[0], normal[1], normal[2]);
      if (length < 1e-9) throw new FluidError('normal has zero length; a plane needs a non-zero normal');
      return {
        shape: ColliderShape.plane,
        a: point,
        b: [normal[0] / length, normal[1] / length, normal[2] / length],
        radius: 0,
      };
    }
    case 'mesh':
      if (!(options.field instanceof SignedDistanceField)) {
        throw new FluidError(
          `field is ${String(options.field)}; a mesh collider needs a SignedDistanceField (bakeSignedDistanceField)`,
        );
      }
      return { shape: ColliderShape.mesh, a: [0, 0, 0], b: [0, 0, 0], radius: 0, field: options.field };
    default:
      throw new FluidError(
        `shape is '${String((options as { shape?: unknown }).shape)}'; allowed values are 'box', 'sphere', 'capsule', 'plane', 'mesh'`,
      );
  }
}
