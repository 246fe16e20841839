/**
 * Steps 1, 2, 4 and 5 of the bake (sdf/bake.ts): the narrow band's exact closest points, their fast sweeping
 * over the grid, their refinement over the welded mesh, and the output of distances and gradients.
 */

import { FIELD_NODE_STRIDE } from './field';
import { closestPointOnTriangle, TriangleFeature } from './triangle';

/** The grid: node counts along x, y, z, cell size (m) and total nodes. Node (i, j, k) is at (i, j, k) * cellSize. */
export interface Grid {
  nx: number;
  ny: number;
  nz: number;
  cellSize: number;
  nodeCount: number;
}

/** The kept triangles in grid space, with welded connectivity for the closest-point walk. */
export interface Surface {
  /** Nine numbers per triangle (grid space, m). */
  triangles: Float64Array;
  /** Unit right-hand normal per triangle. */
  normals: Float64Array;
  count: number;
  /** Per triangle corner, its welded vertex (vertices within the weld tolerance of boundary.ts are one). */
  corners: Int32Array;
  /** Triangles around welded vertex v: `vertexTriangles[vertexTriangleStart[v] .. vertexTriangleStart[v + 1]]`. */
  vertexTriangleStart: Int32Array;
  vertexTriangles: Int32Array;
  /**
   * Per triangle, the highest and the lowest signed height above its plane (along its normal, m) of the
   * vertices of all triangles around its corners: a highest <= 0 means the neighbourhood bends away from
   * the front side, so for a point in front whose closest point is inside the face no neighbour is
   * nearer (and likewise for the back side with a lowest >= 0). Lets the walk stop without a scan.
   */
  neighbourhoodHeights: Float64Array;
}

/**
 * Per node, the best closest point found so far. `values` is the field's own array, used as scratch until
 * the output pass: squared distance (m^2) and the closest point (grid space). `band` is 1 for nodes within
 * one cell of the surface, whose closest point is exact.
 */
interface Candidates {
  values: Float32Array;
  triangleOf: Int32Array;
  band: Uint8Array;
}

/**
 * The surface for the closest-point phases: the triangles with their welded connectivity (`corners`, per
 * triangle corner its welded vertex in [0, vertexCount - 1], from `weldVertices` in boundary.ts, so an
 * unwelded mesh, even one whose duplicates differ by float noise, gets the same connectivity as the welded
 * one), the triangles around every welded vertex and each triangle's neighbourhood heights.
 */
export function createSurface(
  triangles: Float64Array,
  normals: Float64Array,
  count: number,
  corners: Int32Array,
  vertexCount: number,
): Surface {
  const cornerCount = 3 * count;
  const vertexTriangleStart = new Int32Array(vertexCount + 1);
  for (let corner = 0; corner < cornerCount; corner++) vertexTriangleStart[corners[corner] + 1]++;
  for (let v = 0; v < vertexCount; v++) vertexTriangleStart[v + 1] += vertexTriangleStart[v];
  const fill = vertexTriangleStart.slice(0, vertexCount);
  const vertexTriangles = new Int32Array(cornerCount);
  for (let corner = 0; corner < cornerCount; corner++)
    vertexTriangles[fill[corners[corner]]++] = Math.floor(corner / 3);
  const neighbourhoodHeights = new Float64Array(2 * count);
  for (let t = 0; t < count; t++) {
    const o = 9 * t;
    const nx = normals[3 * t];
    const ny = normals[3 * t + 1];
    const nz = normals[3 * t + 2];
    const offset = nx * triangles[o] + ny * triangles[o + 1] + nz * triangles[o + 2];
    let highest = 0;
    let lowest = 0;
    for (let corner = 0; corner < 3; corner++) {
      const vertex = corners[3 * t + corner];
      for (let e = vertexTriangleStart[vertex]; e < vertexTriangleStart[vertex + 1]; e++) {
        const other = 9 * vertexTriangles[e];
        for (let k = 0; k < 9; k += 3) {
          const height =
            nx * triangles[other + k] + ny * triangles[other + k + 1] + nz * triangles[other + k + 2] - offset;
          if (height > highest) highest = height;
          if (height < lowest) lowest = height;
        }
      }
    }
    neighbourhoodHeights[2 * t] = highest;
    neighbourhoodHeights[2 * t + 1] = lowest;
  }
  return { triangles, normals, count, corners, vertexTriangleStart, vertexTriangles, neighbourhoodHeights };
}

/**
 * Phase 1: every node within one cell of a triangle's bounding box (and within two cells of its plane)
 * gets the exact closest point on that triangle if it is nearer than the node's best so far. Nodes within
 * one cell of some triangle are marked as band nodes: their closest point is then the exact one, and they
 * separate inside from outside (any grid edge that crosses the surface has both ends within one cell).
 */
export function* bakeNarrowBand(grid: Grid, surface: Surface): Generator<number, Candidates, void> {
  const { nx, ny, nz, nodeCount } = grid;
  const { triangles, normals, count } = surface;
  const values = new Float32Array(nodeCount * FIELD_NODE_STRIDE).fill(Number.POSITIVE_INFINITY);
  const triangleOf = new Int32Array(nodeCount).fill(-1);
  const band = new Uint8Array(nodeCount);
  const scratch = new Float64Array(4);
  const h = grid.cellSize;
  const inverseCellSize = 1 / h;
  const bandSquared = h * h * (1 + 1e-6);
  const planeLimit = 2 * h;
  const progressChunk = Math.max(1, Math.floor(count / 32));
  for (let t = 0; t < count; t++) {
    if (t % progressChunk === 0) yield (0.15 * t) / count;
    const o = 9 * t;
    const i0 = Math.max(
      0,
      Math.ceil(Math.min(triangles[o], triangles[o + 3], triangles[o + 6]) * inverseCellSize - 1 - 1e-9),
    );
    const i1 = Math.min(
      nx - 1,
      Math.floor(Math.max(triangles[o], triangles[o + 3], triangles[o + 6]) * inverseCellSize + 1 + 1e-9),
    );
    const j0 = Math.max(
      0,
      Math.ceil(Math.min(triangles[o + 1], triangles[o + 4], triangles[o + 7]) * inverseCellSize - 1 - 1e-9),
    );
    const j1 = Math.min(
      ny - 1,
      Math.floor(Math.max(triangles[o + 1], triangles[o + 4], triangles[o + 7]) * inverseCellSize + 1 + 1e-9),
    );
    const k0 = Math.max(
      0,
      Math.ceil(Math.min(triangles[o + 2], triangles[o + 5], triangles[o + 8]) * inverseCellSize - 1 - 1e-9),
    );
    const k1 = Math.min(
      nz - 1,
      Math.floor(Math.max(triangles[o + 2], triangles[o + 5], triangles[o + 8]) * inverseCellSize + 1 + 1e-9),
    );
    const normalX = normals[3 * t];
    const normalY = normals[3 * t + 1];
    const normalZ = normals[3 * t + 2];
    const planeOffset = normalX * triangles[o] + normalY * triangles[o + 1] + normalZ * triangles[o + 2];
    for (let k = k0; k <= k1; k++) {
      const z = k * h;
      for (let j = j0; j <= j1; j++) {
        const y = j * h;
        // Large triangles have large boxes: visit only the run of i within two cells of the plane.
        const planeBase = normalY * y + normalZ * z - planeOffset;
        let iStart = i0;
        let iEnd = i1;
        if (Math.abs(normalX) > 1e-12) {
          let from = (-planeLimit - planeBase) / (normalX * h);
          let to = (planeLimit - planeBase) / (normalX * h);
          if (from > to) {
            const swap = from;
            from = to;
            to = swap;
          }
          iStart = Math.max(i0, Math.ceil(from));
          iEnd = Math.min(i1, Math.floor(to));
        } else if (Math.abs(planeBase) > planeLimit) {
          continue;
        }
        const row = (k * ny + j) * nx;
        for (let i = iStart; i <= iEnd; i++) {
          const distanceSquared = closestPointOnTriangle(triangles, t, i * h, y, z, scratch);
          const n = row + i;
          const v = n * FIELD_NODE_STRIDE;
          if (distanceSquared < values[v]) {
            values[v] = distanceSquared;
            values[v + 1] = scratch[0];
            values[v + 2] = scratch[1];
            values[v + 3] = scratch[2];
            triangleOf[n] = t;
          }
          if (distanceSquared <= bandSquared) band[n] = 1;
        }
      }
    }
  }
  return { values, triangleOf, band };
}

/**
 * Phase 2: fast sweeping of closest points (the idea of Bridson's makelevelset3, propagating points).
 * Eight sweeps, one per octant direction; in each, every non-band node compares the closest points of its
 * three upwind neighbours (-x, -y, -z in the sweep's direction) with its own and adopts the nearest.
 * Closest-point rays are straight lines, monotone in every coordinate, so one sweep in each of the 8
 * directions carries every ray; a second round of 8 sweeps changed under 1% of the nodes and no final
 * error in our tests, so it is left out (phase 4's walk makes each candidate exact on the mesh).
 * Returns the number of adoptions.
 */
export function* sweepClosestPoints(grid: Grid, candidates: Candidates): Generator<number, number, void> {
  let updates = 0;
  for (let direction = 0; direction < 8; direction++) {
    yield 0.3 + (0.2 * direction) / 8;
    updates += sweep(grid, candidates, direction & 1 ? -1 : 1, direction & 2 ? -1 : 1, direction & 4 ? -1 : 1);
  }
  return updates;
}

/** One sweep of {@link sweepClosestPoints} in direction (stepX, stepY, stepZ), each +1 or -1. */
export function sweep(grid: Grid, candidates: Candidates, stepX: number, stepY: number, stepZ: number): number {
  const { nx, ny, nz } = grid;
  const h = grid.cellSize;
  const { values, triangleOf, band } = candidates;
  const offsetX = stepX;
  const offsetY = stepY * nx;
  const offsetZ = stepZ * nx * ny;
  let updates = 0;
  for (let kk = 0; kk < nz; kk++) {
    const k = stepZ > 0 ? kk : nz - 1 - kk;
    const z = k * h;
    for (let jj = 0; jj < ny; jj++) {
      const j = stepY > 0 ? jj : ny - 1 - jj;
      const y = j * h;
      const row = (k * ny + j) * nx;
      for (let ii = 0; ii < nx; ii++) {
        const i = stepX > 0 ? ii : nx - 1 - ii;
        const n = row + i;
        if (band[n] === 1) continue;
        const x = i * h;
        const v = n * FIELD_NODE_STRIDE;
        let best = values[v];
        let from = -1;
        // Nodes without a candidate hold infinite coordinates, hence an infinite distance.
        if (ii > 0) {
          const m = n - offsetX;
          const w = m * FIELD_NODE_STRIDE;
          const dx = x - values[w + 1];
          const dy = y - values[w + 2];
          const dz = z - values[w + 3];
          const distanceSquared = dx * dx + dy * dy + dz * dz;
          if (distanceSquared < best) {
            best = distanceSquared;
            from = m;
          }
        }
        if (jj > 0) {
          const m = n - offsetY;
          const w = m * FIELD_NODE_STRIDE;
          const dx = x - values[w + 1];
          const dy = y - values[w + 2];
          const dz = z - values[w + 3];
          const distanceSquared = dx * dx + dy * dy + dz * dz;
          if (distanceSquared < best) {
            best = distanceSquared;
            from = m;
          }
        }
        if (kk > 0) {
          const m = n - offsetZ;
          const w = m * FIELD_NODE_STRIDE;
          const dx = x - values[w + 1];
          const dy = y - values[w + 2];
          const dz = z - values[w + 3];
          const distanceSquared = dx * dx + dy * dy + dz * dz;
          if (distanceSquared < best) {
            best = distanceSquared;
            from = m;
          }
        }
        if (from < 0) continue;
        values[v] = best;
        const w = from * FIELD_NODE_STRIDE;
        values[v + 1] = values[w + 1];
        values[v + 2] = values[w + 2];
        values[v + 3] = values[w + 3];
        triangleOf[n] = triangleOf[from];
        updates++;
      }
    }
  }
  return updates;
}

/** Most triangles a node's closest-point walk may step through. */
const MAXIMUM_WALK_STEPS = 64;

/**
 * Phase 4: the final closest point of every non-band node, by a local search on the welded mesh. The
 * swept candidate is a point of some triangle but, where triangles are smaller than cells, often not of
 * the nearest one (errors up to a quarter of a cell), and next to medial points (e.g. a sphere's center)
 * it can be far off. So each node starts from the nearest of its swept triangle and the final triangles
 * of its already refined neighbours (-x, -y, -z in scan order), then steps to the nearest triangle around
 * the current closest feature while one is nearer (at most 64 steps). A face foot needs no scan when the
 * neighbourhood bends away from the node's side of the plane (see `neighbourhoodHeights`). Leaves the
 * squared distance and closest point in `candidates.values` and returns the steps taken.
 */
export function* refineClosestPoints(
  grid: Grid,
  surface: Surface,
  candidates: Candidates,
): Generator<number, number, void> {
  const { nx, ny, nz } = grid;
  const h = grid.cellSize;
  const { values, triangleOf, band } = candidates;
  const { triangles, normals, neighbourhoodHeights: heights } = surface;
  const closest = new Float64Array(5);
  const trial = new Float64Array(4);
  let walkSteps = 0;
  const strideZ = nx * ny;
  const sliceChunk = Math.max(1, Math.floor(nz / 24));
  for (let k = 0, n = 0; k < nz; k++) {
    if (k % sliceChunk === 0) yield 0.5 + (0.45 * k) / nz;
    const z = k * h;
    for (let j = 0; j < ny; j++) {
      const y = j * h;
      for (let i = 0; i < nx; i++, n++) {
        if (band[n] === 1) continue;
        const x = i * h;
        // Start from the nearest of the swept triangle and the final triangles of the neighbours already
        // refined (-x, -y, -z in scan order): the walk from there is short.
        let t = triangleOf[n];
        let distanceSquared = closestPointOnTriangle(triangles, t, x, y, z, closest);
        for (let neighbour = 0; neighbour < 3; neighbour++) {
          const m =
            neighbour === 0 ? (i > 0 ? n - 1 : -1) : neighbour === 1 ? (j > 0 ? n - nx : -1) : k > 0 ? n - strideZ : -1;
          if (m < 0) continue;
          const other = triangleOf[m];
          if (other === t) continue;
          const candidate = closestPointOnTriangle(triangles, other, x, y, z, trial);
          if (candidate < distanceSquared) {
            distanceSquared = candidate;
            t = other;
            closest[0] = trial[0];
            closest[1] = trial[1];
            closest[2] = trial[2];
            closest[3] = trial[3];
          }
        }
        for (let step = 0; step < MAXIMUM_WALK_STEPS; step++) {
          if (closest[3] === TriangleFeature.face) {
            // A face foot is final if the neighbourhood bends away from the node's side of the plane.
            const side =
              (x - closest[0]) * normals[3 * t] +
              (y - closest[1]) * normals[3 * t + 1] +
              (z - closest[2]) * normals[3 * t + 2];
            if (side >= 0 ? heights[2 * t] <= 0 : heights[2 * t + 1] >= 0) break;
          }
          const next = nearestAroundFeature(surface, t, closest[3], x, y, z, distanceSquared, trial, closest);
          if (next < 0) break;
          walkSteps++;
          t = next;
          distanceSquared = closest[4];
        }
        const v = n * FIELD_NODE_STRIDE;
        values[v] = distanceSquared;
        values[v + 1] = closest[0];
        values[v + 2] = closest[1];
        values[v + 3] = closest[2];
        triangleOf[n] = t;
      }
    }
  }
  return walkSteps;
}

/**
 * Phase 5: writes the field's node values over `candidates.values`: distance = sign |p - q| and gradient
 * = sign (p - q) / |p - q| for the closest point q (recomputed in double precision for band nodes), or
 * the closest triangle's outward normal when p is on the surface.
 */
export function writeOutput(
  grid: Grid,
  surface: Surface,
  candidates: Candidates,
  inside: Uint8Array,
  orientation: number,
) {
  const { nx, ny, nz } = grid;
  const h = grid.cellSize;
  const { values, triangleOf, band } = candidates;
  const { triangles, normals } = surface;
  const closest = new Float64Array(4);
  const tiny = 1e-6 * h;
  for (let k = 0, n = 0; k < nz; k++) {
    const z = k * h;
    for (let j = 0; j < ny; j++) {
      const y = j * h;
      for (let i = 0; i < nx; i++, n++) {
        const x = i * h;
        const v = n * FIELD_NODE_STRIDE;
        if (band[n] === 1) {
          closestPointOnTriangle(triangles, triangleOf[n], x, y, z, closest);
        } else {
          closest[0] = values[v + 1];
          closest[1] = values[v + 2];
          closest[2] = values[v + 3];
        }
        const dx = x - closest[0];
        const dy = y - closest[1];
        const dz = z - closest[2];
        const distance = Math.sqrt(dx * dx + dy * dy + dz * dz);
        const sign = inside[n] === 1 ? -1 : 1;
        values[v] = sign * distance;
        if (distance > tiny) {
          const scale = sign / distance;
          values[v + 1] = dx * scale;
          values[v + 2] = dy * scale;
          values[v + 3] = dz * scale;
        } else {
          const t = triangleOf[n];
          values[v + 1] = orientation * normals[3 * t];
          values[v + 2] = orientation * normals[3 * t + 1];
          values[v + 3] = orientation * normals[3 * t + 2];
        }
      }
    }
  }
}

/**
 * One step of the closest-point walk: the triangle nearest to (x, y, z), if nearer than `distanceSquared`,
 * among the triangles (welded connectivity) around the vertices of triangle `t` that bound `feature`, the
 * part of t that holds the current closest point: that vertex, the two ends of that edge, or, for a
 * point inside the face, all three vertices (where the surface is concave as seen from the node, a
 * neighbour can be nearer than the foot of the perpendicular). Returns the triangle and writes its
 * closest point, feature and squared distance to `out[0..4]`; returns -1 if none is nearer.
 */
function nearestAroundFeature(
  surface: Surface,
  t: number,
  feature: number,
  x: number,
  y: number,
  z: number,
  distanceSquared: number,
  trial: Float64Array,
  out: Float64Array,
): number {
  const { corners, vertexTriangleStart, vertexTriangles, triangles, normals } = surface;
  // Which corners of t to scan around: bit c set for corner c (a = 0, b = 1, c = 2).
  const cornerMask = FEATURE_CORNERS[feature];
  let best = -1;
  let bestDistanceSquared = distanceSquared;
  for (let corner = 0; corner < 3; corner++) {
    if ((cornerMask & (1 << corner)) === 0) continue;
    const vertex = corners[3 * t + corner];
    for (let e = vertexTriangleStart[vertex]; e < vertexTriangleStart[vertex + 1]; e++) {
      const other = vertexTriangles[e];
      if (other === t) continue;
      // Rejection: the current closest point lies on t, so the shared vertex is no nearer than it; if
      // (x, y, z) is in the vertex region of `other` there (both of its edges from the vertex point away),
      // `other` cannot be nearer either.
      const shared = corners[3 * other] === vertex ? 0 : corners[3 * other + 1] === vertex ? 1 : 2;
      const o = 9 * other;
      const v = o + 3 * shared;
      const u = o + 3 * ((shared + 1) % 3);
      const w = o + 3 * ((shared + 2) % 3);
      const px = x - triangles[v];
      const py = y - triangles[v + 1];
      const pz = z - triangles[v + 2];
      const alongU =
        px * (triangles[u] - triangles[v]) +
        py * (triangles[u + 1] - triangles[v + 1]) +
        pz * (triangles[u + 2] - triangles[v + 2]);
      const alongW =
        px * (triangles[w] - triangles[v]) +
        py * (triangles[w + 1] - triangles[v + 1]) +
        pz * (triangles[w + 2] - triangles[v + 2]);
      if (alongU <= 0 && alongW <= 0) continue;
      // Rejection: the distance to the triangle's plane is a lower bound of the distance to it.
      const height = normals[3 * other] * px + normals[3 * other + 1] * py + normals[3 * other + 2] * pz;
      if (height * height >= bestDistanceSquared) continue;
      const candidate = closestPointOnTriangle(triangles, other, x, y, z, trial);
      if (candidate < bestDistanceSquared) {
        bestDistanceSquared = candidate;
        best = other;
        out[0] = trial[0];
        out[1] = trial[1];
        out[2] = trial[2];
        out[3] = trial[3];
        out[4] = candidate;
      }
    }
  }
  return best;
}

/** Per {@link TriangleFeature}, the corners of the triangle that bound it, as bits (a = 1, b = 2, c = 4). */
const FEATURE_CORNERS = Int32Array.of(0b111, 0b001, 0b010, 0b100, 0b011, 0b101, 0b110);
