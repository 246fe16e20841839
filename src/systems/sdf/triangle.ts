/**
 * Exact geometry of one triangle, the two kernels of the signed distance bake: the closest point of a
 * triangle to a point (Ericson, Real-Time Collision Detection, 2005, section 5.1.5: the Voronoi regions
 * of the three vertices, three edges and the face) and the solid angle a triangle subtends at a point
 * (Van Oosterom & Strackee 1983), which the generalised winding number sums.
 *
 * Triangles are read from a packed array of nine numbers each: a x, y, z, b x, y, z, c x, y, z.
 */

/**
 * The cross product (b - a) x (c - a) of the triangle whose vertices start at offsets `a`, `b` and `c` of the
 * packed coordinates `points` (x, y, z each), into `out[0..2]`; returns its length, twice the triangle's area
 * (m^2). Its direction is the triangle's normal (counter-clockwise winding).
 */
export function triangleCross(points: ArrayLike<number>, a: number, b: number, c: number, out: Float64Array): number {
  const abx = points[b] - points[a];
  const aby = points[b + 1] - points[a + 1];
  const abz = points[b + 2] - points[a + 2];
  const acx = points[c] - points[a];
  const acy = points[c + 1] - points[a + 1];
  const acz = points[c + 2] - points[a + 2];
  out[0] = aby * acz - abz * acy;
  out[1] = abz * acx - abx * acz;
  out[2] = abx * acy - aby * acx;
  return Math.sqrt(out[0] * out[0] + out[1] * out[1] + out[2] * out[2]);
}

/** Which part of a triangle a closest point lies on (written to `out[3]` by {@link closestPointOnTriangle}). */
export const TriangleFeature = {
  face: 0,
  vertexA: 1,
  vertexB: 2,
  vertexC: 3,
  edgeAB: 4,
  edgeAC: 5,
  edgeBC: 6,
} as const;

/**
 * Closest point of triangle `t` (vertices at `triangles[9t .. 9t + 8]`) to point (px, py, pz). Writes the
 * point to `out[0..2]`, the feature it lies on to `out[3]` (one of {@link TriangleFeature}), and returns its
 * squared distance to (px, py, pz). The triangle must have a non-zero area (the bake drops degenerate
 * ones). Exact to rounding in every region: face, edges and vertices.
 */
export function closestPointOnTriangle(
  triangles: Float64Array,
  t: number,
  px: number,
  py: number,
  pz: number,
  out: Float64Array,
): number {
  const o = 9 * t;
  const ax = triangles[o];
  const ay = triangles[o + 1];
  const az = triangles[o + 2];
  const bx = triangles[o + 3];
  const by = triangles[o + 4];
  const bz = triangles[o + 5];
  const cx = triangles[o + 6];
  const cy = triangles[o + 7];
  const cz = triangles[o + 8];
  const abx = bx - ax;
  const aby = by - ay;
  const abz = bz - az;
  const acx = cx - ax;
  const acy = cy - ay;
  const acz = cz - az;
  let qx: number;
  let qy: number;
  let qz: number;
  // Vertex region of a.
  const apx = px - ax;
  const apy = py - ay;
  const apz = pz - az;
  const d1 = abx * apx + aby * apy + abz * apz;
  const d2 = acx * apx + acy * apy + acz * apz;
  let feature: number = TriangleFeature.vertexA;
  if (d1 <= 0 && d2 <= 0) {
    qx = ax;
    qy = ay;
    qz = az;
  } else {
    // Vertex region of b.
    const bpx = px - bx;
    const bpy = py - by;
    const bpz = pz - bz;
    const d3 = abx * bpx + aby * bpy + abz * bpz;
    const d4 = acx * bpx + acy * bpy + acz * bpz;
    const vc = d1 * d4 - d3 * d2;
    if (d3 >= 0 && d4 <= d3) {
      feature = TriangleFeature.vertexB;
      qx = bx;
      qy = by;
      qz = bz;
    } else if (vc <= 0 && d1 >= 0 && d3 <= 0) {
      // Edge region of ab.
      feature = TriangleFeature.edgeAB;
      const v = d1 / (d1 - d3);
      qx = ax + v * abx;
      qy = ay + v * aby;
      qz = az + v * abz;
    } else {
      // Vertex region of c.
      const cpx = px - cx;
      const cpy = py - cy;
      const cpz = pz - cz;
      const d5 = abx * cpx + aby * cpy + abz * cpz;
      const d6 = acx * cpx + acy * cpy + acz * cpz;
      const vb = d5 * d2 - d1 * d6;
      const va = d3 * d6 - d5 * d4;
      if (d6 >= 0 && d5 <= d6) {
        feature = TriangleFeature.vertexC;
        qx = cx;
        qy = cy;
        qz = cz;
      } else if (vb <= 0 && d2 >= 0 && d6 <= 0) {
        // Edge region of ac.
        feature = TriangleFeature.edgeAC;
        const w = d2 / (d2 - d6);
        qx = ax + w * acx;
        qy = ay + w * acy;
        qz = az + w * acz;
      } else if (va <= 0 && d4 - d3 >= 0 && d5 - d6 >= 0) {
        // Edge region of bc.
        feature = TriangleFeature.edgeBC;
        const w = (d4 - d3) / (d4 - d3 + (d5 - d6));
        qx = bx + w * (cx - bx);
        qy = by + w * (cy - by);
        qz = bz + w * (cz - bz);
      } else {
        // Face region: barycentric coordinates (1 - v - w, v, w).
        feature = TriangleFeature.face;
        const inverse = 1 / (va + vb + vc);
        const v = vb * inverse;
        const w = vc * inverse;
        qx = ax + abx * v + acx * w;
        qy = ay + aby * v + acy * w;
        qz = az + abz * v + acz * w;
      }
    }
  }
  out[0] = qx;
  out[1] = qy;
  out[2] = qz;
  out[3] = feature;
  const dx = px - qx;
  const dy = py - qy;
  const dz = pz - qz;
  return dx * dx + dy * dy + dz * dz;
}

/**
 * Signed solid angle (steradians, in [-2 pi, 2 pi]) that triangle `t` subtends at (px, py, pz), by the
 * formula of Van Oosterom & Strackee (1983): tan(omega / 2) = a . (b x c) / (|a||b||c| + (a . b)|c| +
 * (a . c)|b| + (b . c)|a|) with a, b, c the vertices relative to the point. Positive when the point lies
 * behind the triangle, i.e. on the side opposite to its right-hand normal (b - a) x (c - a).
 */
export function triangleSolidAngle(triangles: Float64Array, t: number, px: number, py: number, pz: number): number {
  const o = 9 * t;
  const ax = triangles[o] - px;
  const ay = triangles[o + 1] - py;
  const az = triangles[o + 2] - pz;
  const bx = triangles[o + 3] - px;
  const by = triangles[o + 4] - py;
  const bz = triangles[o + 5] - pz;
  const cx = triangles[o + 6] - px;
  const cy = triangles[o + 7] - py;
  const cz = triangles[o + 8] - pz;
  const la = Math.sqrt(ax * ax + ay * ay + az * az);
  const lb = Math.sqrt(bx * bx + by * by + bz * bz);
  const lc = Math.sqrt(cx * cx + cy * cy + cz * cz);
  const determinant = ax * (by * cz - bz * cy) + ay * (bz * cx - bx * cz) + az * (bx * cy - by * cx);
  const denominator =
    la * lb * lc +
    (ax * bx + ay * by + az * bz) * lc +
    (ax * cx + ay * cy + az * cz) * lb +
    (bx * cx + by * cy + bz * cz) * la;
  return 2 * Math.atan2(determinant, denominator);
}
