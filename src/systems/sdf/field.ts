/**
 * A signed distance field on a regular grid (Harada et al. 2007, section 3: walls as a precomputed
 * distance function; Macklin & Müller 2013, section 8: SDF collisions inside the solver). Distances are
 * negative inside the solid, in the mesh's own space and units. Each grid node stores the distance and
 * the unit gradient (the direction away from the node's closest surface point, pointing out of the
 * solid), interleaved, so one trilinear lookup reads both.
 */

import { checkVector3, type Vector3Tuple } from '../../core/checks';
import { FluidError } from '../../core/errors';

/** Numbers stored per grid node: distance, gradient x, gradient y, gradient z. */
export const FIELD_NODE_STRIDE = 4;

/** What {@link SignedDistanceField} is made of: a grid and its node values. */
export interface SignedDistanceFieldData {
  /** Position of node (0, 0, 0) in the mesh's space (m). */
  readonly origin: Vector3Tuple;
  /** Distance between neighbouring nodes (m), > 0. */
  readonly cellSize: number;
  /** Number of nodes along x, y and z, each an integer >= 2. */
  readonly nodeCounts: Vector3Tuple;
  /**
   * Per node, {@link FIELD_NODE_STRIDE} numbers: signed distance (m, negative inside) and the unit
   * gradient (x, y, z). Node (i, j, k) starts at `((k * ny + j) * nx + i) * 4`.
   */
  readonly values: Float32Array;
}

/**
 * A signed distance field sampled with trilinear interpolation. Made by `bakeSignedDistanceField` from
 * triangles, or directly from grid values. Immutable: share one field between any number of colliders.
 *
 * Outside its grid the field is extended by the distance to the grid's box: `sample` returns the value at
 * the closest grid point plus the distance to it (an upper bound of the true distance, exact in direction
 * far away), and `gradient` points away from the box.
 */
export class SignedDistanceField {
  /** Position of node (0, 0, 0) in the mesh's space (m). */
  readonly origin: Vector3Tuple;
  /** Distance between neighbouring nodes (m). */
  readonly cellSize: number;
  /** Number of nodes along x, y and z. */
  readonly nodeCounts: Vector3Tuple;
  /** Node values, see {@link SignedDistanceFieldData.values}. */
  readonly values: Float32Array;
  /** Lower corner of the grid box (m), equal to `origin`. */
  readonly min: Vector3Tuple;
  /** Upper corner of the grid box (m). */
  readonly max: Vector3Tuple;
  /** How deep the deepest node lies inside the mesh (m): the largest -distance over the nodes, at least 0. */
  readonly insideDepth: number;
  private readonly inverseCellSize: number;
  private readonly ox: number;
  private readonly oy: number;
  private readonly oz: number;
  private readonly nx: number;
  private readonly ny: number;
  private readonly nz: number;
  private readonly scratch = new Float64Array(4);

  /** Wraps grid values; throws {@link FluidError} if the grid and the values do not match or a value is not finite. */
  constructor(data: SignedDistanceFieldData) {
    if (typeof data !== 'object' || data === null) throw new FluidError('SignedDistanceField data must be an object');
    const origin = checkVector3('origin', data.origin);
    if (!(typeof data.cellSize === 'number' && Number.isFinite(data.cellSize) && data.cellSize > 0)) {
      throw new FluidError(`cellSize is ${String(data.cellSize)}; it must be a finite number > 0`);
    }
    const counts = checkVector3('nodeCounts', data.nodeCounts, 1e5);
    for (let axis = 0; axis < 3; axis++) {
      if (!Number.isInteger(counts[axis]) || counts[axis] < 2) {
        throw new FluidError(`nodeCounts[${axis}] is ${counts[axis]}; it must be an integer >= 2`);
      }
    }
    const expected = counts[0] * counts[1] * counts[2] * FIELD_NODE_STRIDE;
    if (!(data.values instanceof Float32Array) || data.values.length !== expected) {
      throw new FluidError(
        `values must be a Float32Array of ${expected} numbers (4 per node); got ${String(data.values?.length)}`,
      );
    }
    for (let place = 0; place < expected; place++) {
      if (!Number.isFinite(data.values[place])) {
        throw new FluidError(
          `values[${place}] (node ${Math.floor(place / FIELD_NODE_STRIDE)}) is ${data.values[place]}; every distance and gradient must be finite`,
        );
      }
    }
    this.origin = origin;
    this.cellSize = data.cellSize;
    this.nodeCounts = counts;
    this.values = data.values;
    this.min = origin;
    this.max = [
      origin[0] + (counts[0] - 1) * data.cellSize,
      origin[1] + (counts[1] - 1) * data.cellSize,
      origin[2] + (counts[2] - 1) * data.cellSize,
    ];
    let depth = 0;
    for (let place = 0; place < expected; place += FIELD_NODE_STRIDE) depth = Math.max(depth, -data.values[place]);
    this.insideDepth = depth;
    this.inverseCellSize = 1 / data.cellSize;
    [this.ox, this.oy, this.oz] = origin;
    [this.nx, this.ny, this.nz] = counts;
  }

  /** Signed distance (m, negative inside the solid) at point (x, y, z) of the mesh's space. */
  sample(x: number, y: number, z: number): number {
    return this.sampleWithGradient(x, y, z, this.scratch, 0);
  }

  /**
   * Unit gradient of the distance at (x, y, z), pointing out of the solid, written to `out` (three
   * numbers from index 0) and returned.
   */
  gradient<T extends { [index: number]: number }>(x: number, y: number, z: number, out: T): T {
    const s = this.scratch;
    this.sampleWithGradient(x, y, z, s, 0);
    out[0] = s[0];
    out[1] = s[1];
    out[2] = s[2];
    return out;
  }

  /**
   * Distance and unit gradient in one lookup: returns the distance and writes the gradient to
   * `out[offset .. offset + 2]`. The gradient is the trilinear blend of the nodes' closest-point
   * directions, normalised; where those cancel (on a medial surface) it is the gradient of the trilinear
   * distance itself. Only when the distance lies within (`gradientAbove`, `gradientBelow`) (default: always)
   * is the gradient computed; otherwise `out` is left as it was (the solver asks for it only near walls).
   */
  sampleWithGradient(
    x: number,
    y: number,
    z: number,
    out: Float64Array,
    offset: number,
    gradientAbove = Number.NEGATIVE_INFINITY,
    gradientBelow = Number.POSITIVE_INFINITY,
  ): number {
    const c = this.inverseCellSize;
    let fx = (x - this.ox) * c;
    let fy = (y - this.oy) * c;
    let fz = (z - this.oz) * c;
    const limitX = this.nx - 1;
    const limitY = this.ny - 1;
    const limitZ = this.nz - 1;
    // Outside the grid: the value at the closest grid point plus the distance to it.
    let outsideX = 0;
    let outsideY = 0;
    let outsideZ = 0;
    if (fx < 0) {
      outsideX = fx;
      fx = 0;
    } else if (fx > limitX) {
      outsideX = fx - limitX;
      fx = limitX;
    }
    if (fy < 0) {
      outsideY = fy;
      fy = 0;
    } else if (fy > limitY) {
      outsideY = fy - limitY;
      fy = limitY;
    }
    if (fz < 0) {
      outsideZ = fz;
      fz = 0;
    } else if (fz > limitZ) {
      outsideZ = fz - limitZ;
      fz = limitZ;
    }
    let i = Math.floor(fx);
    let j = Math.floor(fy);
    let k = Math.floor(fz);
    if (i > limitX - 1) i = limitX - 1;
    if (j > limitY - 1) j = limitY - 1;
    if (k > limitZ - 1) k = limitZ - 1;
    const tx = fx - i;
    const ty = fy - j;
    const tz = fz - k;
    const v = this.values;
    const strideY = this.nx * FIELD_NODE_STRIDE;
    const strideZ = this.ny * strideY;
    const p000 = k * strideZ + j * strideY + i * FIELD_NODE_STRIDE;
    const p100 = p000 + FIELD_NODE_STRIDE;
    const p010 = p000 + strideY;
    const p110 = p010 + FIELD_NODE_STRIDE;
    const p001 = p000 + strideZ;
    const p101 = p001 + FIELD_NODE_STRIDE;
    const p011 = p001 + strideY;
    const p111 = p011 + FIELD_NODE_STRIDE;
    const sx = 1 - tx;
    const sy = 1 - ty;
    const sz = 1 - tz;
    const w000 = sx * sy * sz;
    const w100 = tx * sy * sz;
    const w010 = sx * ty * sz;
    const w110 = tx * ty * sz;
    const w001 = sx * sy * tz;
    const w101 = tx * sy * tz;
    const w011 = sx * ty * tz;
    const w111 = tx * ty * tz;
    let distance =
      w000 * v[p000] +
      w100 * v[p100] +
      w010 * v[p010] +
      w110 * v[p110] +
      w001 * v[p001] +
      w101 * v[p101] +
      w011 * v[p011] +
      w111 * v[p111];
    if (outsideX !== 0 || outsideY !== 0 || outsideZ !== 0) {
      const length = Math.sqrt(outsideX * outsideX + outsideY * outsideY + outsideZ * outsideZ);
      distance += length * this.cellSize;
      out[offset] = outsideX / length;
      out[offset + 1] = outsideY / length;
      out[offset + 2] = outsideZ / length;
      return distance;
    }
    if (!(distance > gradientAbove && distance < gradientBelow)) return distance;
    let gx =
      w000 * v[p000 + 1] +
      w100 * v[p100 + 1] +
      w010 * v[p010 + 1] +
      w110 * v[p110 + 1] +
      w001 * v[p001 + 1] +
      w101 * v[p101 + 1] +
      w011 * v[p011 + 1] +
      w111 * v[p111 + 1];
    let gy =
      w000 * v[p000 + 2] +
      w100 * v[p100 + 2] +
      w010 * v[p010 + 2] +
      w110 * v[p110 + 2] +
      w001 * v[p001 + 2] +
      w101 * v[p101 + 2] +
      w011 * v[p011 + 2] +
      w111 * v[p111 + 2];
    let gz =
      w000 * v[p000 + 3] +
      w100 * v[p100 + 3] +
      w010 * v[p010 + 3] +
      w110 * v[p110 + 3] +
      w001 * v[p001 + 3] +
      w101 * v[p101 + 3] +
      w011 * v[p011 + 3] +
      w111 * v[p111 + 3];
    let lengthSquared = gx * gx + gy * gy + gz * gz;
    if (lengthSquared < 1e-6) {
      // The closest-point directions cancel (medial surface): use the trilinear distance's own gradient.
      gx =
        sy * sz * (v[p100] - v[p000]) +
        ty * sz * (v[p110] - v[p010]) +
        sy * tz * (v[p101] - v[p001]) +
        ty * tz * (v[p111] - v[p011]);
      gy =
        sx * sz * (v[p010] - v[p000]) +
        tx * sz * (v[p110] - v[p100]) +
        sx * tz * (v[p011] - v[p001]) +
        tx * tz * (v[p111] - v[p101]);
      gz =
        sx * sy * (v[p001] - v[p000]) +
        tx * sy * (v[p101] - v[p100]) +
        sx * ty * (v[p011] - v[p010]) +
        tx * ty * (v[p111] - v[p110]);
      lengthSquared = gx * gx + gy * gy + gz * gz;
      if (lengthSquared < 1e-30) {
        gx = 0;
        gy = 1;
        gz = 0;
        lengthSquared = 1;
      }
    }
    const inverseLength = 1 / Math.sqrt(lengthSquared);
    out[offset] = gx * inverseLength;
    out[offset + 1] = gy * inverseLength;
    out[offset + 2] = gz * inverseLength;
    return distance;
  }
}
