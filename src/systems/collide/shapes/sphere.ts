/** The sphere collider shape: `a` the center, `radius`. */
import { ColliderShape, type ColliderStore } from '../../../components';
import { checkVector3 } from '../../../core/checks';
import { FluidError } from '../../../core/errors';
import { allows, COLLIDER_OPTIONS, checkOption, rangeText } from '../../../core/schema';
import type { ColliderOptions } from '../../options';
import type { ColliderGeometry, ColliderShapeModule } from './types';

/**
 * Signed distance of local point `point` (x, y, z) to the sphere of `radius` around (qx, qy, qz) and the outward normal:
 * out = [d, n] (the normal is +y at the center). The sphere's and the capsule's distance.
 */
export function roundedDistance(
  qx: number,
  qy: number,
  qz: number,
  radius: number,
  lx: number,
  ly: number,
  lz: number,
  out: Float64Array,
): void {
  const dx = lx - qx;
  const dy = ly - qy;
  const dz = lz - qz;
  const distance = Math.sqrt(dx * dx + dy * dy + dz * dz);
  if (distance > 1e-12) {
    out[1] = dx / distance;
    out[2] = dy / distance;
    out[3] = dz / distance;
  } else {
    out[1] = 0;
    out[2] = 1;
    out[3] = 0;
  }
  out[0] = distance - radius;
}

/** Signed distance of local point `point` (x, y, z) to sphere `eid` and its outward normal: out = [d, n]. */
export function sphereDistance(c: ColliderStore, eid: number, point: Float64Array, out: Float64Array): void {
  const lx = point[0];
  const ly = point[1];
  const lz = point[2];
  roundedDistance(c.ax[eid], c.ay[eid], c.az[eid], c.radius[eid], lx, ly, lz, out);
}

/** The sphere's and the capsule's check: a radius in the colliders' radius range. */
export function checkRadius(c: ColliderStore, eid: number): void {
  if (!allows(COLLIDER_OPTIONS.radius, c.radius[eid])) {
    throw new FluidError(
      `Collider.radius[${eid}] is ${c.radius[eid]}; allowed range is ${rangeText(COLLIDER_OPTIONS.radius)}`,
    );
  }
}

/** The sphere's module (see {@link ColliderShapeModule}). */
export const sphereShape: ColliderShapeModule = {
  name: 'sphere',
  read(options: ColliderOptions): ColliderGeometry {
    const sphere = options as Extract<ColliderOptions, { shape: 'sphere' }>;
    return {
      shape: ColliderShape.sphere,
      a: checkVector3('center', sphere.center),
      b: [0, 0, 0],
      radius: checkOption('radius', COLLIDER_OPTIONS.radius, sphere.radius),
    };
  },
  check: checkRadius,
  insideDepth(c, eid): number {
    return c.radius[eid];
  },
  localBounds(c, eid, _fields, low, high): boolean {
    const r = c.radius[eid];
    low[0] = c.ax[eid] - r;
    low[1] = c.ay[eid] - r;
    low[2] = c.az[eid] - r;
    high[0] = c.ax[eid] + r;
    high[1] = c.ay[eid] + r;
    high[2] = c.az[eid] + r;
    return true;
  },
};
