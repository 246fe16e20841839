/**
 * Step 3 of the bake (sdf/bake.ts): inside or outside from generalised winding numbers (Jacobson et al. 2013,
 * with the hierarchy of Barill et al. 2018), constant over the grid's components of nodes joined by edges no
 * triangle crosses.
 */

import type { Grid, Surface } from './closestPoints';
import type { WindingNumberTree } from './winding';

/** Winding numbers sampled per component of nodes (joined by uncrossed grid edges) before trusting their agreement. */
const COMPONENT_SAMPLES = 32;

/** Inside/outside of every node and what the classification found. */
interface Signs {
  /** 1 for nodes inside the solid. */
  inside: Uint8Array;
  anyInside: boolean;
  largestWinding: number;
  /** +1 if the triangles face outwards (w > 0 inside), -1 if inwards. */
  orientation: number;
  componentCount: number;
  fullyEvaluatedComponentCount: number;
}

/**
 * Marks the grid edges that the surface crosses: bit a of `cuts[n]` is set when some triangle meets the
 * edge from node n to its +x (a = 0), +y (1) or +z (2) neighbour. For each triangle and axis, the grid
 * lines along that axis through the triangle's projected bounding box are tested against the projected
 * triangle (inclusive, with a relative tolerance, so a line through a shared mesh edge or vertex is caught
 * by at least one of its triangles); the edge holding the crossing point is cut, and both edges when the
 * crossing is at a node.
 */
function markCutEdges(grid: Grid, surface: Surface): Uint8Array {
  const counts = [grid.nx, grid.ny, grid.nz];
  const strides = [1, grid.nx, grid.nx * grid.ny];
  const h = grid.cellSize;
  const inverseCellSize = 1 / h;
  const cuts = new Uint8Array(grid.nodeCount);
  const { triangles, count } = surface;
  for (let t = 0; t < count; t++) {
    const o = 9 * t;
    for (let axis = 0; axis < 3; axis++) {
      // The line along `axis` through (b, c) = (jb h, jc h) meets the triangle projected on (b, c).
      const b = axis === 0 ? 1 : 0;
      const c = axis === 2 ? 1 : 2;
      const b0 = triangles[o + b];
      const c0 = triangles[o + c];
      const b1 = triangles[o + 3 + b];
      const c1 = triangles[o + 3 + c];
      const b2 = triangles[o + 6 + b];
      const c2 = triangles[o + 6 + c];
      const area = (b1 - b0) * (c2 - c0) - (c1 - c0) * (b2 - b0);
      if (area === 0) continue; // the triangle is parallel to the axis: no crossing along it
      const orientation = area > 0 ? 1 : -1;
      const jb0 = Math.max(0, Math.ceil(Math.min(b0, b1, b2) * inverseCellSize - 1e-9));
      const jb1 = Math.min(counts[b] - 1, Math.floor(Math.max(b0, b1, b2) * inverseCellSize + 1e-9));
      const jc0 = Math.max(0, Math.ceil(Math.min(c0, c1, c2) * inverseCellSize - 1e-9));
      const jc1 = Math.min(counts[c] - 1, Math.floor(Math.max(c0, c1, c2) * inverseCellSize + 1e-9));
      const a0 = triangles[o + axis];
      const a1 = triangles[o + 3 + axis];
      const a2 = triangles[o + 6 + axis];
      for (let jc = jc0; jc <= jc1; jc++) {
        const pc = jc * h;
        for (let jb = jb0; jb <= jb1; jb++) {
          const pb = jb * h;
          // Edge functions: twice the signed areas of the sub-triangles opposite each vertex.
          const e0 = orientation * ((b2 - b1) * (pc - c1) - (c2 - c1) * (pb - b1));
          const e1 = orientation * ((b0 - b2) * (pc - c2) - (c0 - c2) * (pb - b2));
          const e2 = orientation * ((b1 - b0) * (pc - c0) - (c1 - c0) * (pb - b0));
          const tolerance = -1e-10 * (Math.abs(e0) + Math.abs(e1) + Math.abs(e2));
          if (e0 < tolerance || e1 < tolerance || e2 < tolerance) continue;
          const sum = e0 + e1 + e2;
          const position = ((e0 * a0 + e1 * a1 + e2 * a2) / sum) * inverseCellSize;
          const node = Math.floor(position);
          const base = jb * strides[b] + jc * strides[c];
          const bit = 1 << axis;
          if (node >= 0 && node < counts[axis] - 1) cuts[base + node * strides[axis]] |= bit;
          // A crossing at (or within rounding of) a node cuts the edges on both sides of it.
          if (position - node < 1e-6 && node >= 1 && node <= counts[axis] - 1) {
            cuts[base + (node - 1) * strides[axis]] |= bit;
          }
          if (node + 1 - position < 1e-6 && node + 1 < counts[axis] - 1 && node + 1 >= 0) {
            cuts[base + (node + 1) * strides[axis]] |= bit;
          }
        }
      }
    }
  }
  return cuts;
}

/**
 * Phase 3: inside iff |w| >= 0.5 (generalised winding number). The nodes are split into components
 * joined by the grid edges that no triangle crosses (union-find in scan order); w is constant on such a
 * component wherever the surface is closed, so each component takes the sign of up to 32 winding numbers
 * sampled evenly over it if they agree, and where they disagree (the surface leaks, e.g. through a hole,
 * and w varies continuously) w is evaluated at each of its nodes.
 */
export function* classifyInside(grid: Grid, surface: Surface, tree: WindingNumberTree): Generator<number, Signs, void> {
  const { nx, ny, nz, nodeCount } = grid;
  const h = grid.cellSize;
  const strideY = nx;
  const strideZ = nx * ny;
  const inside = new Uint8Array(nodeCount);
  let anyInside = false;
  let largestWinding = 0;
  let windingSum = 0;
  // Evaluates w at node n, records the sign, and returns 1 inside, 0 outside.
  const classify = (n: number): number => {
    const i = n % nx;
    const j = Math.floor(n / nx) % ny;
    const k = Math.floor(n / strideZ);
    const w = tree.evaluate(i * h, j * h, k * h);
    const magnitude = Math.abs(w);
    if (magnitude > largestWinding) largestWinding = magnitude;
    if (magnitude >= 0.5) {
      inside[n] = 1;
      anyInside = true;
      windingSum += w;
      return 1;
    }
    return 0;
  };
  const cuts = markCutEdges(grid, surface);
  yield 0.2;
  // Components by union-find in scan order (cache friendly); every root is its component's first node.
  const parent = new Int32Array(nodeCount);
  const find = (n: number): number => {
    while (parent[n] !== n) {
      parent[n] = parent[parent[n]];
      n = parent[n];
    }
    return n;
  };
  const union = (a: number, b: number): void => {
    const rootA = find(a);
    const rootB = find(b);
    if (rootA < rootB) parent[rootB] = rootA;
    else if (rootB < rootA) parent[rootA] = rootB;
  };
  for (let k = 0, n = 0; k < nz; k++) {
    for (let j = 0; j < ny; j++) {
      for (let i = 0; i < nx; i++, n++) {
        parent[n] = n;
        if (i > 0 && (cuts[n - 1] & 1) === 0) union(n, n - 1);
        if (j > 0 && (cuts[n - strideY] & 2) === 0) union(n, n - strideY);
        if (k > 0 && (cuts[n - strideZ] & 4) === 0) union(n, n - strideZ);
      }
    }
  }
  yield 0.25;
  // Label the components 0, 1, 2... in place: first point every node at its root, then store the label
  // c of every node as -(c + 1).
  for (let n = 0; n < nodeCount; n++) parent[n] = find(n);
  let componentCount = 0;
  const sizes: number[] = [];
  for (let n = 0; n < nodeCount; n++) {
    const root = parent[n];
    if (root === n) {
      parent[n] = -(componentCount + 1);
      sizes.push(1);
      componentCount++;
    } else {
      parent[n] = parent[root];
      sizes[-parent[n] - 1]++;
    }
  }
  // Winding numbers at up to COMPONENT_SAMPLES nodes per component, spread evenly in scan order (first
  // and last node included).
  const seen = new Int32Array(componentCount);
  const taken = new Int32Array(componentCount);
  const insideSamples = new Int32Array(componentCount);
  for (let n = 0; n < nodeCount; n++) {
    const component = -parent[n] - 1;
    const rank = seen[component]++;
    const size = sizes[component];
    const samples = Math.min(COMPONENT_SAMPLES, size);
    const next = taken[component];
    if (next < samples && rank === (samples === 1 ? 0 : Math.round((next * (size - 1)) / (samples - 1)))) {
      taken[component]++;
      insideSamples[component] += classify(n);
    }
  }
  yield 0.28;
  // Components whose samples agree take their sign; the others are decided node by node.
  let fullyEvaluatedComponentCount = 0;
  for (let component = 0; component < componentCount; component++) {
    if (insideSamples[component] > 0 && insideSamples[component] < taken[component]) fullyEvaluatedComponentCount++;
  }
  for (let n = 0; n < nodeCount; n++) {
    const component = -parent[n] - 1;
    const insideCount = insideSamples[component];
    if (insideCount === 0) continue;
    if (insideCount === taken[component]) inside[n] = 1;
    else if (taken[component] < sizes[component]) classify(n);
  }
  return {
    inside,
    anyInside,
    largestWinding,
    orientation: windingSum >= 0 ? 1 : -1,
    componentCount,
    fullyEvaluatedComponentCount,
  };
}
