/** The box collider shape: an axis-aligned box in local space, `a` the min corner, `b` the max corner. */
import { ColliderShape, type ColliderStore } from '../../../components';
import { checkVector3 } from '../../../core/checks';
import { FluidError } from '../../../core/errors';
import type { ColliderOptions } from '../../options';
import type { ColliderGeometry, ColliderShapeModule } from './types';

/** Signed distance of local point `point` (x, y, z) to box `eid` (positive outside) and its outward normal: out = [d, n]. */
export function boxDistance(c: ColliderStore, eid: number, point: Float64Array, out: Float64Array): void {
  const lx = point[0];
  const ly = point[1];
  const lz = point[2];
  const ax = c.ax[eid];
  const ay = c.ay[eid];
  const az = c.az[eid];
  const bx = c.bx[eid];
  const by = c.by[eid];
  const bz = c.bz[eid];
  const px = lx - 0.5 * (ax + bx);
  const py = ly - 0.5 * (ay + by);
  const pz = lz - 0.5 * (az + bz);
  const sx = px < 0 ? -1 : 1;
  const sy = py < 0 ? -1 : 1;
  const sz = pz < 0 ? -1 : 1;
  const qx = Math.abs(px) - 0.5 * (bx - ax);
  const qy = Math.abs(py) - 0.5 * (by - ay);
  const qz = Math.abs(pz) - 0.5 * (bz - az);
  if (qx > 0 || qy > 0 || qz > 0) {
    const ox = qx > 0 ? qx : 0;
    const oy = qy > 0 ? qy : 0;
    const oz = qz > 0 ? qz : 0;
    const d = Math.sqrt(ox * ox + oy * oy + oz * oz);
    out[0] = d;
    out[1] = (sx * ox) / d;
    out[2] = (sy * oy) / d;
    out[3] = (sz * oz) / d;
  } else if (qx >= qy && qx >= qz) {
    out[0] = qx;
    out[1] = sx;
    out[2] = 0;
    out[3] = 0;
  } else if (qy >= qz) {
    out[0] = qy;
    out[1] = 0;
    out[2] = sy;
    out[3] = 0;
  } else {
    out[0] = qz;
    out[1] = 0;
    out[2] = 0;
    out[3] = sz;
  }
}

/** The box's module (see {@link ColliderShapeModule}). */
export const boxShape: ColliderShapeModule = {
  name: 'box',
  read(options: ColliderOptions): ColliderGeometry {
    const box = options as Extract<ColliderOptions, { shape: 'box' }>;
    const a = checkVector3('min', box.min);
    const b = checkVector3('max', box.max);
    for (let axis = 0; axis < 3; axis++) {
      if (!(b[axis] > a[axis]))
        throw new FluidError(`max[${axis}] (${b[axis]}) must be greater than min[${axis}] (${a[axis]})`);
    }
    return { shape: ColliderShape.box, a, b, radius: 0 };
  },
  check(c: ColliderStore, eid: number): void {
    const min = [c.ax[eid], c.ay[eid], c.az[eid]];
    const max = [c.bx[eid], c.by[eid], c.bz[eid]];
    for (let axis = 0; axis < 3; axis++) {
      if (!(max[axis] > min[axis])) {
        throw new FluidError(
          `Collider box ${eid}: max ${'xyz'[axis]} (Collider.b${'xyz'[axis]}, ${max[axis]}) must be greater than min (Collider.a${'xyz'[axis]}, ${min[axis]})`,
        );
      }
    }
  },
  insideDepth(c, eid): number {
    return 0.5 * Math.min(c.bx[eid] - c.ax[eid], c.by[eid] - c.ay[eid], c.bz[eid] - c.az[eid]);
  },
  localBounds(c, eid, _fields, low, high): boolean {
    low[0] = c.ax[eid];
    low[1] = c.ay[eid];
    low[2] = c.az[eid];
    high[0] = c.bx[eid];
    high[1] = c.by[eid];
    high[2] = c.bz[eid];
    return true;
  },
};
