/**
 * The case table of marching tetrahedra (marchingCubes.ts): each cube cell is cut into six tetrahedra around
 * its diagonal, and each tetrahedron's inside mask gives at most two triangles.
 */

/**
 * Per tetrahedron (6) and inside mask (16): the triangles as edges, 13 numbers: the triangle count, then
 * per triangle three edges as (start corner, end corner) cube-corner pairs, start a subset of end.
 */
export const TET_CASE_STRIDE = 13;
/**
 * Axes (a, b) of each of the six tetrahedra of a cell: corners 0, 1 << a, (1 << a) | (1 << b), 7 (the
 * six permutations of the axes).
 */
export const TET_AXES = new Int8Array([0, 1, 0, 2, 1, 0, 1, 2, 2, 0, 2, 1]);
export const TET_CASES = buildTetCases();
function buildTetCases(): Int8Array {
  const table = new Int8Array(6 * 16 * TET_CASE_STRIDE);
  const corner = (c: number): [number, number, number] => [c & 1, (c >> 1) & 1, (c >> 2) & 1];
  const sub = (a: number, b: number): [number, number, number] => {
    const p = corner(a);
    const q = corner(b);
    return [p[0] - q[0], p[1] - q[1], p[2] - q[2]];
  };
  const det = (a: number[], b: number[], c: number[]): number =>
    a[0] * (b[1] * c[2] - b[2] * c[1]) - a[1] * (b[0] * c[2] - b[2] * c[0]) + a[2] * (b[0] * c[1] - b[1] * c[0]);
  // Corners of a tetrahedron form a chain 0 < A < AB < 7 of bit sets: an edge runs from the subset.
  const edge = (p: number, q: number): [number, number] => ((p & q) === p ? [p, q] : [q, p]);
  for (let tet = 0; tet < 6; tet++) {
    const a = TET_AXES[2 * tet];
    const b = TET_AXES[2 * tet + 1];
    const corners = [0, 1 << a, (1 << a) | (1 << b), 7];
    for (let mask = 0; mask < 16; mask++) {
      const inside = corners.filter((_, k) => (mask >> k) & 1);
      const outside = corners.filter((_, k) => !((mask >> k) & 1));
      const triangles: [number, number][][] = [];
      if (inside.length === 1 || inside.length === 3) {
        const loneInside = inside.length === 1;
        const lone = loneInside ? inside[0] : outside[0];
        const others = loneInside ? outside : inside;
        let [p, q, r] = others;
        // (PB - PA) x (PC - PA) . (PA - L) has the sign of det(A - L, B - L, C - L): the triangle faces away
        // from the lone corner when that is positive. Outward is away from an inside corner.
        const d = det(sub(p, lone), sub(q, lone), sub(r, lone));
        if (d > 0 !== loneInside) [q, r] = [r, q];
        triangles.push([edge(lone, p), edge(lone, q), edge(lone, r)]);
      } else if (inside.length === 2) {
        const [i0, i1] = inside;
        const [o0, o1] = outside;
        // The section is planar (the linear interpolant of the tetrahedron): quad Q0..Q3 with normal
        // along (O1 - O0) x (I1 - I0); outward is from the inside pair towards the outside pair.
        const out = corner(o0).map((v, k) => v + corner(o1)[k] - corner(i0)[k] - corner(i1)[k]);
        const d = det(sub(o1, o0), sub(i1, i0), out);
        let quad = [edge(i0, o0), edge(i0, o1), edge(i1, o1), edge(i1, o0)];
        if (d < 0) quad = [quad[0], quad[3], quad[2], quad[1]];
        triangles.push([quad[0], quad[1], quad[2]], [quad[0], quad[2], quad[3]]);
      }
      const o = (tet * 16 + mask) * TET_CASE_STRIDE;
      table[o] = triangles.length;
      triangles.forEach((triangle, t) => {
        triangle.forEach(([start, end], e) => {
          table[o + 1 + t * 6 + e * 2] = start;
          table[o + 2 + t * 6 + e * 2] = end;
        });
      });
    }
  }
  return table;
}
