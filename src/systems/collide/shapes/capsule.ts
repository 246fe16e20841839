/** The capsule collider shape: the segment `a`..`b` grown by `radius`. */
import { ColliderShape, type ColliderStore } from '../../../components';
import { checkVector3 } from '../../../core/checks';
import { COLLIDER_OPTIONS, checkOption } from '../../../core/schema';
import type { ColliderOptions } from '../../options';
import { checkRadius, roundedDistance } from './sphere';
import type { ColliderGeometry, ColliderShapeModule } from './types';

/** Signed distance of local point `point` (x, y, z) to capsule `eid` and its outward normal: out = [d, n]. */
export function capsuleDistance(c: ColliderStore, eid: number, point: Float64Array, out: Float64Array): void {
  const lx = point[0];
  const ly = point[1];
  const lz = point[2];
  const ax = c.ax[eid];
  const ay = c.ay[eid];
  const az = c.az[eid];
  const ex = c.bx[eid] - ax;
  const ey = c.by[eid] - ay;
  const ez = c.bz[eid] - az;
  const lengthSquared = ex * ex + ey * ey + ez * ez;
  let t = lengthSquared > 0 ? ((lx - ax) * ex + (ly - ay) * ey + (lz - az) * ez) / lengthSquared : 0;
  t = t < 0 ? 0 : t > 1 ? 1 : t;
  roundedDistance(ax + t * ex, ay + t * ey, az + t * ez, c.radius[eid], lx, ly, lz, out);
}

/** The capsule's module (see {@link ColliderShapeModule}). */
export const capsuleShape: ColliderShapeModule = {
  name: 'capsule',
  read(options: ColliderOptions): ColliderGeometry {
    const capsule = options as Extract<ColliderOptions, { shape: 'capsule' }>;
    return {
      shape: ColliderShape.capsule,
      a: checkVector3('a', capsule.a),
      b: checkVector3('b', capsule.b),
      radius: checkOption('radius', COLLIDER_OPTIONS.radius, capsule.radius),
    };
  },
  check: checkRadius,
  insideDepth(c, eid): number {
    return c.radius[eid];
  },
  localBounds(c, eid, _fields, low, high): boolean {
    const r = c.radius[eid];
    for (let a = 0; a < 3; a++) {
      const start = (a === 0 ? c.ax : a === 1 ? c.ay : c.az)[eid];
      const end = (a === 0 ? c.bx : a === 1 ? c.by : c.bz)[eid];
      low[a] = Math.min(start, end) - r;
      high[a] = Math.max(start, end) + r;
    }
    return true;
  },
};
