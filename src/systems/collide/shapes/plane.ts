/** The plane collider shape: a half-space, `a` a point on the plane, `b` the unit normal (the solid lies opposite). */
import { ColliderShape, type ColliderStore } from '../../../components';
import { checkVector3 } from '../../../core/checks';
import { FluidError } from '../../../core/errors';
import type { ColliderOptions } from '../../options';
import type { ColliderGeometry, ColliderShapeModule } from './types';

/** Signed distance of local point `point` (x, y, z) to plane `eid` (positive on the normal's side) and the normal: out = [d, n]. */
export function planeDistance(c: ColliderStore, eid: number, point: Float64Array, out: Float64Array): void {
  const lx = point[0];
  const ly = point[1];
  const lz = point[2];
  const bx = c.bx[eid];
  const by = c.by[eid];
  const bz = c.bz[eid];
  out[0] = (lx - c.ax[eid]) * bx + (ly - c.ay[eid]) * by + (lz - c.az[eid]) * bz;
  out[1] = bx;
  out[2] = by;
  out[3] = bz;
}

/** The plane's module (see {@link ColliderShapeModule}). */
export const planeShape: ColliderShapeModule = {
  name: 'plane',
  read(options: ColliderOptions): ColliderGeometry {
    const plane = options as Extract<ColliderOptions, { shape: 'plane' }>;
    const point = checkVector3('point', plane.point);
    const normal = checkVector3('normal', plane.normal);
    const length = Math.hypot(normal[0], normal[1], normal[2]);
    if (length < 1e-9) throw new FluidError('normal has zero length; a plane needs a non-zero normal');
    return {
      shape: ColliderShape.plane,
      a: point,
      b: [normal[0] / length, normal[1] / length, normal[2] / length],
      radius: 0,
    };
  },
  check(c: ColliderStore, eid: number): void {
    const length = Math.hypot(c.bx[eid], c.by[eid], c.bz[eid]);
    if (!(Math.abs(length - 1) <= 1e-3)) {
      throw new FluidError(
        `Collider plane ${eid}: the normal (Collider.bx, by, bz) has length ${length}; it must be a unit vector (length 1 within 0.001)`,
      );
    }
  },
  insideDepth(): number {
    return Number.POSITIVE_INFINITY;
  },
  localBounds(): boolean {
    return false;
  },
};
