/**
 * Generalised winding numbers (Jacobson, Kavan & Sorkine-Hornung 2013) of a triangle soup, evaluated fast
 * with a bounding volume hierarchy as in Barill et al. 2018 ("Fast winding numbers for soups and clouds").
 *
 * The winding number w(p) is the sum of the signed solid angles of all triangles seen from p, over 4 pi.
 * For a closed, consistently oriented mesh it is 1 inside and 0 outside (-1 inside if the triangles face
 * inwards); for a mesh with holes or without connectivity (unwelded vertices) it degrades gracefully,
 * which is why the bake takes its sign from |w| >= 0.5 rather than from normals.
 *
 * Far from a cluster of triangles their solid angles are replaced by the dipole term of the cluster:
 * sum(a n) . (c - p) / |c - p|^3, with sum(a n) the area-weighted normal sum and c the area-weighted
 * centroid (Barill et al. 2018, eq. 9 to first order). The approximation is used when |p - c| > beta r,
 * r the cluster's bounding radius around c; closer clusters are opened and leaves are summed exactly.
 */
import { triangleSolidAngle } from './triangle';

/** Most triangles in a leaf of the tree. */
const LEAF_SIZE = 4;

/** Numbers stored per tree node: center x, y, z, area-weighted normal x, y, z, (beta r)^2. */
const NODE_STRIDE = 7;

/** A hierarchy over triangles that answers winding-number queries in about logarithmic time. */
export class WindingNumberTree {
  /** Triangles in tree order, nine numbers each (see `triangle.ts`). */
  private readonly triangles: Float64Array;
  /** Per node: first child (the second is the next node) for an inner node, first triangle for a leaf. */
  private readonly first: Int32Array;
  /** Per node: number of triangles for a leaf, 0 for an inner node. */
  private readonly count: Int32Array;
  /** Per node: {@link NODE_STRIDE} numbers. */
  private readonly data: Float64Array;
  private readonly stack = new Int32Array(256);
  private nodeCount = 0;
  /** Winding numbers evaluated so far (for statistics). */
  evaluations = 0;

  /**
   * Builds the tree over `triangleCount` triangles packed nine numbers each in `triangles` (each with a
   * non-zero area). `beta` (default 2, as in Barill et al. 2018) is the far-field criterion: the dipole
   * stands for a cluster when the query point is farther than beta times the cluster's radius from its
   * center; near a closed surface the first-order result is then within about 0.05 of the exact w (1
   * inside, 0 outside), ample for the |w| >= 0.5 test. Median splits along the longest side of the
   * centroids' box, leaves of at most 4 triangles.
   */
  constructor(triangles: Float64Array, triangleCount: number, beta = 2) {
    const order = new Int32Array(triangleCount);
    const centroids = new Float64Array(3 * triangleCount);
    for (let t = 0; t < triangleCount; t++) {
      order[t] = t;
      const o = 9 * t;
      centroids[3 * t] = (triangles[o] + triangles[o + 3] + triangles[o + 6]) / 3;
      centroids[3 * t + 1] = (triangles[o + 1] + triangles[o + 4] + triangles[o + 7]) / 3;
      centroids[3 * t + 2] = (triangles[o + 2] + triangles[o + 5] + triangles[o + 8]) / 3;
    }
    const maximumNodes = Math.max(1, 2 * Math.ceil(triangleCount / (LEAF_SIZE / 2)));
    this.first = new Int32Array(maximumNodes);
    this.count = new Int32Array(maximumNodes);
    this.data = new Float64Array(maximumNodes * NODE_STRIDE);
    this.nodeCount = 1;
    this.build(0, 0, triangleCount, order, centroids);
    // Copy the triangles in tree order so that leaves read contiguous memory.
    this.triangles = new Float64Array(9 * triangleCount);
    for (let place = 0; place < triangleCount; place++) {
      this.triangles.set(triangles.subarray(9 * order[place], 9 * order[place] + 9), 9 * place);
    }
    this.aggregate(0, beta);
  }

  /** Number of nodes in the tree. */
  get size(): number {
    return this.nodeCount;
  }

  /**
   * Generalised winding number at (px, py, pz): about 1 inside a closed mesh whose triangles face outwards,
   * -1 inside one whose triangles face inwards, 0 outside.
   */
  evaluate(px: number, py: number, pz: number): number {
    this.evaluations++;
    const stack = this.stack;
    const data = this.data;
    const first = this.first;
    const count = this.count;
    const triangles = this.triangles;
    let top = 0;
    stack[top++] = 0;
    let solidAngle = 0;
    while (top > 0) {
      const node = stack[--top];
      const o = node * NODE_STRIDE;
      const dx = data[o] - px;
      const dy = data[o + 1] - py;
      const dz = data[o + 2] - pz;
      const distanceSquared = dx * dx + dy * dy + dz * dz;
      if (distanceSquared > data[o + 6]) {
        solidAngle +=
          (data[o + 3] * dx + data[o + 4] * dy + data[o + 5] * dz) / (distanceSquared * Math.sqrt(distanceSquared));
        continue;
      }
      const leafCount = count[node];
      if (leafCount > 0) {
        const end = first[node] + leafCount;
        for (let t = first[node]; t < end; t++) solidAngle += triangleSolidAngle(triangles, t, px, py, pz);
      } else {
        stack[top++] = first[node];
        stack[top++] = first[node] + 1;
      }
    }
    return solidAngle / (4 * Math.PI);
  }

  /** Splits `order[start, end)` into the subtree rooted at `node`. */
  private build(node: number, start: number, end: number, order: Int32Array, centroids: Float64Array): void {
    if (end - start <= LEAF_SIZE) {
      this.first[node] = start;
      this.count[node] = end - start;
      return;
    }
    let minX = Number.POSITIVE_INFINITY;
    let minY = Number.POSITIVE_INFINITY;
    let minZ = Number.POSITIVE_INFINITY;
    let maxX = Number.NEGATIVE_INFINITY;
    let maxY = Number.NEGATIVE_INFINITY;
    let maxZ = Number.NEGATIVE_INFINITY;
    for (let place = start; place < end; place++) {
      const c = 3 * order[place];
      minX = Math.min(minX, centroids[c]);
      maxX = Math.max(maxX, centroids[c]);
      minY = Math.min(minY, centroids[c + 1]);
      maxY = Math.max(maxY, centroids[c + 1]);
      minZ = Math.min(minZ, centroids[c + 2]);
      maxZ = Math.max(maxZ, centroids[c + 2]);
    }
    const sizeX = maxX - minX;
    const sizeY = maxY - minY;
    const sizeZ = maxZ - minZ;
    const axis = sizeX >= sizeY && sizeX >= sizeZ ? 0 : sizeY >= sizeZ ? 1 : 2;
    const middle = (start + end) >> 1;
    selectNth(order, centroids, axis, start, end - 1, middle);
    const left = this.nodeCount;
    this.nodeCount += 2;
    this.first[node] = left;
    this.count[node] = 0;
    this.build(left, start, middle, order, centroids);
    this.build(left + 1, middle, end, order, centroids);
  }

  /**
   * Fills the node data bottom-up: area-weighted normal sum, area-weighted centroid, and the squared
   * far-field distance (beta times the largest distance from the centroid to a vertex of the node's
   * triangles). Returns the node's total area.
   */
  private aggregate(node: number, beta: number): number {
    const data = this.data;
    const o = node * NODE_STRIDE;
    let area = 0;
    let centerX = 0;
    let centerY = 0;
    let centerZ = 0;
    let normalX = 0;
    let normalY = 0;
    let normalZ = 0;
    let start: number;
    let end: number;
    if (this.count[node] > 0) {
      start = this.first[node];
      end = start + this.count[node];
      const triangles = this.triangles;
      for (let t = start; t < end; t++) {
        const v = 9 * t;
        const abx = triangles[v + 3] - triangles[v];
        const aby = triangles[v + 4] - triangles[v + 1];
        const abz = triangles[v + 5] - triangles[v + 2];
        const acx = triangles[v + 6] - triangles[v];
        const acy = triangles[v + 7] - triangles[v + 1];
        const acz = triangles[v + 8] - triangles[v + 2];
        // Half the cross product: area times the unit normal.
        const nx = 0.5 * (aby * acz - abz * acy);
        const ny = 0.5 * (abz * acx - abx * acz);
        const nz = 0.5 * (abx * acy - aby * acx);
        const triangleArea = Math.sqrt(nx * nx + ny * ny + nz * nz);
        normalX += nx;
        normalY += ny;
        normalZ += nz;
        area += triangleArea;
        centerX += (triangleArea * (triangles[v] + triangles[v + 3] + triangles[v + 6])) / 3;
        centerY += (triangleArea * (triangles[v + 1] + triangles[v + 4] + triangles[v + 7])) / 3;
        centerZ += (triangleArea * (triangles[v + 2] + triangles[v + 5] + triangles[v + 8])) / 3;
      }
    } else {
      const left = this.first[node];
      const leftArea = this.aggregate(left, beta);
      const rightArea = this.aggregate(left + 1, beta);
      const l = left * NODE_STRIDE;
      const r = l + NODE_STRIDE;
      area = leftArea + rightArea;
      centerX = leftArea * data[l] + rightArea * data[r];
      centerY = leftArea * data[l + 1] + rightArea * data[r + 1];
      centerZ = leftArea * data[l + 2] + rightArea * data[r + 2];
      normalX = data[l + 3] + data[r + 3];
      normalY = data[l + 4] + data[r + 4];
      normalZ = data[l + 5] + data[r + 5];
      ({ start, end } = this.range(node));
    }
    const inverseArea = area > 0 ? 1 / area : 0;
    centerX *= inverseArea;
    centerY *= inverseArea;
    centerZ *= inverseArea;
    let radiusSquared = 0;
    const triangles = this.triangles;
    for (let v = 9 * start; v < 9 * end; v += 3) {
      const dx = triangles[v] - centerX;
      const dy = triangles[v + 1] - centerY;
      const dz = triangles[v + 2] - centerZ;
      radiusSquared = Math.max(radiusSquared, dx * dx + dy * dy + dz * dz);
    }
    data[o] = centerX;
    data[o + 1] = centerY;
    data[o + 2] = centerZ;
    data[o + 3] = normalX;
    data[o + 4] = normalY;
    data[o + 5] = normalZ;
    data[o + 6] = beta * beta * radiusSquared;
    return area;
  }

  /** The range of triangles (in tree order) under `node`. */
  private range(node: number): { start: number; end: number } {
    let low = node;
    while (this.count[low] === 0) low = this.first[low];
    let high = node;
    while (this.count[high] === 0) high = this.first[high] + 1;
    return { start: this.first[low], end: this.first[high] + this.count[high] };
  }
}

/**
 * Reorders `order[low..high]` (inclusive) so that the entry at `nth` is the one a sort by centroid
 * coordinate `axis` would put there, smaller ones before it and larger ones after (Hoare's selection).
 */
function selectNth(order: Int32Array, centroids: Float64Array, axis: number, low: number, high: number, nth: number) {
  while (high > low) {
    const pivot = centroids[3 * order[(low + high) >> 1] + axis];
    let i = low;
    let j = high;
    while (i <= j) {
      while (centroids[3 * order[i] + axis] < pivot) i++;
      while (centroids[3 * order[j] + axis] > pivot) j--;
      if (i <= j) {
        const swap = order[i];
        order[i] = order[j];
        order[j] = swap;
        i++;
        j--;
      }
    }
    if (nth <= j) high = j;
    else if (nth >= i) low = i;
    else return;
  }
}
