/**
 * The mesh collider shape: a baked signed distance field (sdf/field.ts) of a Babylon mesh, indexed by
 * `Collider.field`; the component's `a`, `b` and `radius` are unused.
 */
import { ColliderShape, type ColliderStore } from '../../../components';
import { FluidError } from '../../../core/errors';
import type { ColliderOptions } from '../../options';
import { SignedDistanceField } from '../../sdf/field';
import type { ColliderGeometry, ColliderShapeModule } from './types';

/**
 * Signed distance of local point l to mesh `eid` (positive outside) and its outward normal, the field's
 * trilinear sample: out = [d, n]. The normal is only computed where the fluid-side distance is below
 * `normalWithin` (out[1..3] are stale elsewhere).
 */
export function meshDistance(
  c: ColliderStore,
  eid: number,
  field: SignedDistanceField,
  lx: number,
  ly: number,
  lz: number,
  out: Float64Array,
  normalWithin: number,
): void {
  // The fluid side is d > 0 for a solid and d < 0 for a container: the normal only within normalWithin.
  out[0] =
    c.container[eid] === 1
      ? field.sampleWithGradient(lx, ly, lz, out, 1, -normalWithin, Number.POSITIVE_INFINITY)
      : field.sampleWithGradient(lx, ly, lz, out, 1, Number.NEGATIVE_INFINITY, normalWithin);
}

/** The mesh's module (see {@link ColliderShapeModule}). */
export const meshShape: ColliderShapeModule = {
  name: 'mesh',
  read(options: ColliderOptions): ColliderGeometry {
    const mesh = options as Extract<ColliderOptions, { shape: 'mesh' }>;
    if (!(mesh.field instanceof SignedDistanceField)) {
      throw new FluidError(
        `field is ${String(mesh.field)}; a mesh collider needs a SignedDistanceField (bakeSignedDistanceField)`,
      );
    }
    return { shape: ColliderShape.mesh, a: [0, 0, 0], b: [0, 0, 0], radius: 0, field: mesh.field };
  },
  // The field index is checked with the colliders (gather.ts).
  check(): void {},
  insideDepth(c, eid, fields): number {
    return fields[c.field[eid]]?.insideDepth ?? 0;
  },
  localBounds(c, eid, fields, low, high): boolean {
    const field = fields[c.field[eid]];
    if (field === undefined) return false;
    for (let a = 0; a < 3; a++) {
      low[a] = field.min[a];
      high[a] = field.max[a];
    }
    return true;
  },
};
