/**
 * Baking a triangle mesh into a {@link SignedDistanceField}.
 *
 * Harada et al. 2007 (section 3) represent walls of any shape by a distance function precomputed on a
 * grid from their polygon mesh. This bake computes the distance to the triangles at every grid node (in
 * our tests equal to a brute-force minimum over all triangles at every sampled node, i.e. exact up to
 * float32 rounding), its outward unit gradient, and the sign:
 *
 * 1. Narrow band: every node within one cell of a triangle's bounding box (and two cells of its plane)
 *    gets the exact closest point on that triangle (face, edge or vertex region, Ericson 2005) and keeps
 *    the nearest over all triangles. Nodes within one cell of the surface ("band nodes") then hold their
 *    exact closest point.
 * 2. Fast sweeping of closest points (the idea of Bridson's makelevelset3, propagating points): one sweep
 *    per octant direction; each node adopts the nearest of its three upwind neighbours' closest points.
 * 3. Sign from generalised winding numbers (Jacobson et al. 2013) with the fast hierarchy of Barill et
 *    al. 2018: inside iff |w| >= 0.5, so either triangle orientation works, unwelded vertices need no
 *    repair, overlapping parts add up and small holes do not flip the inside. The grid edges crossed by
 *    a triangle are marked; the nodes joined by uncrossed edges form components on which w is constant
 *    where the surface is closed; each component takes the sign of 32 winding numbers spread over it if
 *    they agree, else (a hole) w is evaluated at each of its nodes.
 * 4. Refinement: the swept candidates are a fraction of a cell off where triangles are smaller than cells
 *    and near medial points, so each node walks over the welded mesh from the best of its own and its
 *    neighbours' candidates to the nearest triangle around the current closest feature, while one is
 *    nearer.
 * 5. Output: distance = sign |p - q| and gradient = sign (p - q) / |p - q| for the closest point q; on
 *    the surface itself the gradient is the closest triangle's outward normal.
 */

import { checkInteger, checkNumber } from '../../core/checks';
import { FluidError } from '../../core/errors';
import { FIELD_NODE_STRIDE, SignedDistanceField } from './field';
import { closestPointOnTriangle, TriangleFeature } from './triangle';
import { WindingNumberTree } from './winding';

/** A triangle mesh in its own space: what {@link bakeSignedDistanceField} reads. */
export interface TriangleMesh {
  /** Vertex positions as x, y, z triples (m, mesh space); every coordinate must be finite. */
  positions: ArrayLike<number>;
  /**
   * Three vertex indices per triangle (integers in [0, vertex count - 1]). Either orientation works, and
   * vertices need not be shared between triangles (an unwelded mesh gives the same field).
   */
  indices: ArrayLike<number>;
}

/** Options of {@link bakeSignedDistanceField}; every one is optional. */
export interface BakeOptions {
  /**
   * Distance between grid nodes (m), finite and > 0. Wins over `resolution` when both are given.
   * Default: the mesh's longest bounding-box side divided by `resolution`.
   */
  cellSize?: number;
  /**
   * Number of cells along the longest side of the mesh's bounding box when `cellSize` is not given: an
   * integer in [4, 1024], default 64.
   */
  resolution?: number;
  /**
   * Extra space (m, >= 0) around the mesh's bounding box on every side, so that the field is exact a
   * little way outside the mesh. Default: the larger of 3 cells and 5% of the longest bounding-box side.
   */
  margin?: number;
  /**
   * Called with increasing fractions in [0, 1] as the bake advances (about a hundred calls per bake, the
   * first with 0 and the last with 1), for a progress bar. Phases: narrow band up to 0.15, sign up to 0.3,
   * sweeping up to 0.5, refinement up to 0.95, output up to 1. An exception thrown by the callback
   * aborts the bake.
   */
  onProgress?: (fraction: number) => void;
}

/** What a bake did and how long each phase took; for benchmarks and tests. */
export interface BakeStatistics {
  /** Triangles in the mesh, and those dropped for a zero area. */
  triangleCount: number;
  degenerateTriangleCount: number;
  /** Grid nodes along x, y, z, their total, and the cell size (m). */
  nodeCounts: [number, number, number];
  nodeCount: number;
  cellSize: number;
  /** Nodes within one cell of the surface (exact closest point from the narrow band). */
  bandNodeCount: number;
  /** 6-connected components of the other nodes, and how many needed w at every node (leaky ones). */
  componentCount: number;
  fullyEvaluatedComponentCount: number;
  /** Winding numbers evaluated, and nodes of the winding-number tree. */
  windingEvaluations: number;
  windingTreeNodes: number;
  /** Closest points the sweeps adopted, and triangles stepped through by the final closest-point walks. */
  sweepUpdates: number;
  walkSteps: number;
  /** Milliseconds per phase, in order: checks and setup, narrow band, sign, sweeping, refinement, output, total. */
  milliseconds: {
    prepare: number;
    band: number;
    sign: number;
    sweep: number;
    refine: number;
    output: number;
    total: number;
  };
}

/** Most grid nodes a bake may allocate (2 * 256^3; about 27 bytes each while baking, 16 in the field). */
const MAXIMUM_NODE_COUNT = 2 * 256 * 256 * 256;

/** Most grid nodes along one axis (the limit of {@link SignedDistanceField}'s node counts). */
const MAXIMUM_AXIS_NODES = 100000;

/** Winding numbers sampled per component of nodes (joined by uncrossed grid edges) before trusting their agreement. */
const COMPONENT_SAMPLES = 32;

const now = (): number => (typeof performance !== 'undefined' ? performance.now() : Date.now());

/**
 * Bakes a closed triangle mesh into a signed distance field: distances (m) negative inside the solid,
 * with unit gradients pointing out of it, on a regular grid covering the mesh's bounding box plus
 * `margin` on every side. This is the wall representation of Harada et al. 2007 (section 3, a distance
 * function precomputed from a polygon mesh); the bake goes further with exact point-triangle distances
 * (faces, edges and vertices) at every node, closest-point fast sweeping, and generalised winding
 * numbers (Jacobson et al. 2013; Barill et al. 2018) for the sign, so triangle orientation, unwelded
 * vertices and small holes do not matter.
 *
 * Cost: about linear in triangles plus grid nodes; a 100k-triangle mesh at resolution 128 takes a few
 * seconds on one core. Bake once (at load time or offline) and share the field between colliders.
 *
 * @param mesh - Positions (m) and triangle indices, see {@link TriangleMesh}.
 * @param options - Grid size and progress callback, see {@link BakeOptions}.
 * @returns The field, in the mesh's own space.
 * @throws FluidError if the mesh has no triangles, a non-finite coordinate, an index out of range, only
 * zero-area triangles, or encloses no volume (an open sheet); or if an option is out of range or the grid
 * would exceed 2 * 256^3 nodes.
 */
export function bakeSignedDistanceField(mesh: TriangleMesh, options: BakeOptions = {}): SignedDistanceField {
  return bakeSignedDistanceFieldWithStatistics(mesh, options).field;
}

/** What a bake returns: the field and the statistics of how it was made. */
interface BakeResult {
  field: SignedDistanceField;
  statistics: BakeStatistics;
}

/**
 * {@link bakeSignedDistanceField} that also reports what the bake did and how long each phase took
 * (internal: for benchmarks and tests; not exported from the package).
 */
export function bakeSignedDistanceFieldWithStatistics(mesh: TriangleMesh, options: BakeOptions = {}): BakeResult {
  const steps = bakeSteps(mesh, options);
  for (;;) {
    const next = steps.next();
    if (next.done) return next.value;
    options.onProgress?.(next.value);
  }
}

/** Options of {@link bakeSignedDistanceFieldAsync}: those of the synchronous bake plus the slice length. */
export interface AsyncBakeOptions extends BakeOptions {
  /**
   * Longest stretch of baking (ms) between two returns to the event loop, so a page keeps drawing while
   * a large mesh bakes. Range [1, 1000]. Default 12. The bake's own chunks (about a hundred per bake)
   * bound how finely it can be sliced.
   */
  sliceMilliseconds?: number;
}

const nextTask = (): Promise<void> => new Promise((resolve) => setTimeout(resolve, 0));

/**
 * {@link bakeSignedDistanceField} without freezing the page: the same bake, cut into slices of about
 * `sliceMilliseconds` with a return to the event loop between them, reporting `onProgress` as it goes.
 * The result is identical to the synchronous bake's. Rejects with the same {@link FluidError}s.
 */
export async function bakeSignedDistanceFieldAsync(
  mesh: TriangleMesh,
  options: AsyncBakeOptions = {},
): Promise<SignedDistanceField> {
  const slice = checkNumber('sliceMilliseconds', options.sliceMilliseconds ?? 12, 1, 1000);
  const steps = bakeSteps(mesh, options);
  let sliceStart = now();
  for (;;) {
    const next = steps.next();
    if (next.done) return next.value.field;
    options.onProgress?.(next.value);
    if (now() - sliceStart > slice) {
      await nextTask();
      sliceStart = now();
    }
  }
}

/**
 * The bake as a generator: yields its progress fraction at the end of each chunk of work (the points
 * where a caller may report progress or return to the event loop) and returns the field.
 */
function* bakeSteps(mesh: TriangleMesh, options: BakeOptions): Generator<number, BakeResult, void> {
  const startTime = now();
  if (typeof options !== 'object' || options === null) {
    throw new FluidError(`bake options are ${String(options)}; they must be an object`);
  }
  const onProgress = options.onProgress;
  if (onProgress !== undefined && typeof onProgress !== 'function') {
    throw new FluidError(`onProgress is ${String(onProgress)}; it must be a function`);
  }
  yield 0;

  // ---- Checks and grid -------------------------------------------------------------------------------
  const { positions, indices } = checkMesh(mesh);
  const triangleCount = indices.length / 3;
  let minX = Number.POSITIVE_INFINITY;
  let minY = Number.POSITIVE_INFINITY;
  let minZ = Number.POSITIVE_INFINITY;
  let maxX = Number.NEGATIVE_INFINITY;
  let maxY = Number.NEGATIVE_INFINITY;
  let maxZ = Number.NEGATIVE_INFINITY;
  for (let place = 0; place < indices.length; place++) {
    const v = 3 * indices[place];
    const x = positions[v];
    const y = positions[v + 1];
    const z = positions[v + 2];
    if (x < minX) minX = x;
    if (x > maxX) maxX = x;
    if (y < minY) minY = y;
    if (y > maxY) maxY = y;
    if (z < minZ) minZ = z;
    if (z > maxZ) maxZ = z;
  }
  const longestSide = Math.max(maxX - minX, maxY - minY, maxZ - minZ);

  // Drop zero-area triangles (they add nothing to the surface); fail if nothing is left.
  const areaTolerance = 1e-14 * longestSide * longestSide;
  const kept = new Int32Array(triangleCount);
  let keptCount = 0;
  for (let t = 0; t < triangleCount; t++) {
    const a = 3 * indices[3 * t];
    const b = 3 * indices[3 * t + 1];
    const c = 3 * indices[3 * t + 2];
    const abx = positions[b] - positions[a];
    const aby = positions[b + 1] - positions[a + 1];
    const abz = positions[b + 2] - positions[a + 2];
    const acx = positions[c] - positions[a];
    const acy = positions[c + 1] - positions[a + 1];
    const acz = positions[c + 2] - positions[a + 2];
    const nx = aby * acz - abz * acy;
    const ny = abz * acx - abx * acz;
    const nz = abx * acy - aby * acx;
    if (Math.sqrt(nx * nx + ny * ny + nz * nz) > areaTolerance) kept[keptCount++] = t;
  }
  if (keptCount === 0) {
    throw new FluidError(
      `all ${triangleCount} triangles of the mesh are degenerate (zero area, longest bounding-box side ` +
        `${longestSide} m); a signed distance field needs a surface`,
    );
  }

  const resolution = options.resolution === undefined ? 64 : checkInteger('resolution', options.resolution, 4, 1024);
  let cellSize: number;
  if (options.cellSize !== undefined) {
    const value: unknown = options.cellSize;
    if (!(typeof value === 'number' && Number.isFinite(value) && value > 0)) {
      throw new FluidError(`cellSize is ${String(value)}; it must be a finite number > 0 (m)`);
    }
    cellSize = value;
  } else {
    cellSize = longestSide / resolution;
  }
  const margin =
    options.margin === undefined
      ? Math.max(3 * cellSize, 0.05 * longestSide)
      : checkNumber('margin', options.margin, 0, Number.MAX_VALUE);
  const low = [minX - margin, minY - margin, minZ - margin];
  const high = [maxX + margin, maxY + margin, maxZ + margin];
  const counts: [number, number, number] = [0, 0, 0];
  const origin: [number, number, number] = [0, 0, 0];
  for (let axis = 0; axis < 3; axis++) {
    const cells = Math.max(1, Math.ceil((high[axis] - low[axis]) / cellSize - 1e-9));
    counts[axis] = cells + 1;
    // Center the grid on the padded box (it covers it, with under one cell of slack in total).
    origin[axis] = 0.5 * (low[axis] + high[axis]) - 0.5 * cells * cellSize;
  }
  const [nx, ny, nz] = counts;
  const nodeCount = nx * ny * nz;
  if (!(nodeCount <= MAXIMUM_NODE_COUNT)) {
    throw new FluidError(
      `the grid would have ${nx} x ${ny} x ${nz} = ${nodeCount} nodes (cellSize ${cellSize} m, margin ${margin} m); ` +
        `at most ${MAXIMUM_NODE_COUNT} (2 * 256^3) are allowed: use a larger cellSize or a smaller resolution`,
    );
  }
  if (Math.max(nx, ny, nz) > MAXIMUM_AXIS_NODES) {
    throw new FluidError(
      `the grid would have ${nx} x ${ny} x ${nz} nodes (cellSize ${cellSize} m); at most ${MAXIMUM_AXIS_NODES} ` +
        'along one axis are allowed: use a larger cellSize',
    );
  }

  // Triangles in grid space (relative to the origin, in metres), nine numbers each, and unit normals.
  const triangles = new Float64Array(9 * keptCount);
  const normals = new Float64Array(3 * keptCount);
  for (let t = 0; t < keptCount; t++) {
    const source = kept[t];
    for (let corner = 0; corner < 3; corner++) {
      const v = 3 * indices[3 * source + corner];
      triangles[9 * t + 3 * corner] = positions[v] - origin[0];
      triangles[9 * t + 3 * corner + 1] = positions[v + 1] - origin[1];
      triangles[9 * t + 3 * corner + 2] = positions[v + 2] - origin[2];
    }
    const o = 9 * t;
    const abx = triangles[o + 3] - triangles[o];
    const aby = triangles[o + 4] - triangles[o + 1];
    const abz = triangles[o + 5] - triangles[o + 2];
    const acx = triangles[o + 6] - triangles[o];
    const acy = triangles[o + 7] - triangles[o + 1];
    const acz = triangles[o + 8] - triangles[o + 2];
    const crossX = aby * acz - abz * acy;
    const crossY = abz * acx - abx * acz;
    const crossZ = abx * acy - aby * acx;
    const inverseLength = 1 / Math.sqrt(crossX * crossX + crossY * crossY + crossZ * crossZ);
    normals[3 * t] = crossX * inverseLength;
    normals[3 * t + 1] = crossY * inverseLength;
    normals[3 * t + 2] = crossZ * inverseLength;
  }

  const surface = createSurface(triangles, normals, keptCount);
  const grid: Grid = { nx, ny, nz, cellSize, nodeCount };
  const prepareTime = now();

  const candidates = yield* bakeNarrowBand(grid, surface);
  let bandNodeCount = 0;
  for (let n = 0; n < nodeCount; n++) bandNodeCount += candidates.band[n];
  const bandTime = now();

  // The sign (phase 3) needs only the band, so it runs before the sweep: an open mesh fails early.
  const tree = new WindingNumberTree(triangles, keptCount);
  const signs = yield* classifyInside(grid, surface, tree);
  if (!signs.anyInside) {
    throw new FluidError(
      'the mesh encloses no volume: no grid node has a winding number |w| >= 0.5 (largest sampled ' +
        `${signs.largestWinding.toFixed(3)}). It is open (a single sheet, a terrain, a plane) or thinner than one ` +
        `cell (${cellSize} m); close the mesh (add the missing faces so that it bounds a solid) or bake with a ` +
        'smaller cellSize',
    );
  }
  const signTime = now();

  const sweepUpdates = yield* sweepClosestPoints(grid, candidates);
  const sweepTime = now();

  const walkSteps = yield* refineClosestPoints(grid, surface, candidates);
  const refineTime = now();

  yield 0.95;
  writeOutput(grid, surface, candidates, signs.inside, signs.orientation);
  const field = new SignedDistanceField({ origin, cellSize, nodeCounts: [nx, ny, nz], values: candidates.values });
  const endTime = now();
  yield 1;
  return {
    field,
    statistics: {
      triangleCount,
      degenerateTriangleCount: triangleCount - keptCount,
      nodeCounts: [nx, ny, nz],
      nodeCount,
      cellSize,
      bandNodeCount,
      componentCount: signs.componentCount,
      fullyEvaluatedComponentCount: signs.fullyEvaluatedComponentCount,
      windingEvaluations: tree.evaluations,
      windingTreeNodes: tree.size,
      sweepUpdates,
      walkSteps,
      milliseconds: {
        prepare: prepareTime - startTime,
        band: bandTime - prepareTime,
        sign: signTime - bandTime,
        sweep: sweepTime - signTime,
        refine: refineTime - sweepTime,
        output: endTime - refineTime,
        total: endTime - startTime,
      },
    },
  };
}

/** The grid: node counts along x, y, z, cell size (m) and total nodes. Node (i, j, k) is at (i, j, k) * cellSize. */
interface Grid {
  nx: number;
  ny: number;
  nz: number;
  cellSize: number;
  nodeCount: number;
}

/** The kept triangles in grid space, with welded connectivity for the closest-point walk. */
interface Surface {
  /** Nine numbers per triangle (grid space, m). */
  triangles: Float64Array;
  /** Unit right-hand normal per triangle. */
  normals: Float64Array;
  count: number;
  /** Per triangle corner, its welded vertex (vertices at exactly the same position are one). */
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
 * Welds triangle corners at bit-identical positions (so an unwelded mesh gets the same connectivity as
 * the welded one) and lists the triangles around every welded vertex.
 */
function createSurface(triangles: Float64Array, normals: Float64Array, count: number): Surface {
  const cornerCount = 3 * count;
  let tableSize = 1;
  while (tableSize < 2 * cornerCount) tableSize *= 2;
  const table = new Int32Array(tableSize).fill(-1);
  const mask = tableSize - 1;
  const corners = new Int32Array(cornerCount);
  const firstCorner: number[] = [];
  const bits = new Float64Array(3);
  const words = new Uint32Array(bits.buffer);
  for (let corner = 0; corner < cornerCount; corner++) {
    const x = triangles[3 * corner] + 0; // + 0 turns -0 into 0
    const y = triangles[3 * corner + 1] + 0;
    const z = triangles[3 * corner + 2] + 0;
    bits[0] = x;
    bits[1] = y;
    bits[2] = z;
    let hash = 0x811c9dc5;
    for (let word = 0; word < 6; word++) hash = Math.imul(hash ^ words[word], 0x01000193);
    hash ^= hash >>> 15;
    let slot = hash & mask;
    for (;;) {
      const entry = table[slot];
      if (entry < 0) {
        table[slot] = firstCorner.length;
        corners[corner] = firstCorner.length;
        firstCorner.push(corner);
        break;
      }
      const other = 3 * firstCorner[entry];
      if (triangles[other] === x && triangles[other + 1] === y && triangles[other + 2] === z) {
        corners[corner] = entry;
        break;
      }
      slot = (slot + 1) & mask;
    }
  }
  const vertexCount = firstCorner.length;
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
function* bakeNarrowBand(grid: Grid, surface: Surface): Generator<number, Candidates, void> {
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
function* sweepClosestPoints(grid: Grid, candidates: Candidates): Generator<number, number, void> {
  let updates = 0;
  for (let direction = 0; direction < 8; direction++) {
    yield 0.3 + (0.2 * direction) / 8;
    updates += sweep(grid, candidates, direction & 1 ? -1 : 1, direction & 2 ? -1 : 1, direction & 4 ? -1 : 1);
  }
  return updates;
}

/** One sweep of {@link sweepClosestPoints} in direction (stepX, stepY, stepZ), each +1 or -1. */
function sweep(grid: Grid, candidates: Candidates, stepX: number, stepY: number, stepZ: number): number {
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
function* classifyInside(grid: Grid, surface: Surface, tree: WindingNumberTree): Generator<number, Signs, void> {
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
function* refineClosestPoints(grid: Grid, surface: Surface, candidates: Candidates): Generator<number, number, void> {
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
function writeOutput(grid: Grid, surface: Surface, candidates: Candidates, inside: Uint8Array, orientation: number) {
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

/** Checks the mesh: array-like positions and indices, finite coordinates, whole triangles, indices in range. */
function checkMesh(mesh: TriangleMesh): TriangleMesh {
  if (typeof mesh !== 'object' || mesh === null) {
    throw new FluidError(`mesh is ${String(mesh)}; it must be an object with positions and indices`);
  }
  const { positions, indices } = mesh;
  if (!isArrayLike(positions)) {
    throw new FluidError(`mesh.positions is ${String(positions)}; it must be an array of x, y, z numbers`);
  }
  if (!isArrayLike(indices)) {
    throw new FluidError(`mesh.indices is ${String(indices)}; it must be an array of vertex indices`);
  }
  if (positions.length % 3 !== 0) {
    throw new FluidError(`mesh.positions has ${positions.length} numbers; it must hold x, y, z triples`);
  }
  if (indices.length === 0 || indices.length % 3 !== 0) {
    throw new FluidError(
      `mesh.indices has ${indices.length} entries; the mesh has no triangles unless it holds a positive ` +
        'multiple of 3 (three vertex indices per triangle)',
    );
  }
  const vertexCount = positions.length / 3;
  for (let place = 0; place < positions.length; place++) {
    const value = positions[place];
    if (typeof value !== 'number' || !Number.isFinite(value)) {
      const vertex = Math.floor(place / 3);
      throw new FluidError(
        `vertex ${vertex} has coordinate ${'xyz'[place % 3]} = ${String(value)} (mesh.positions[${place}]); ` +
          'every coordinate must be a finite number',
      );
    }
  }
  for (let place = 0; place < indices.length; place++) {
    const index = indices[place];
    if (!Number.isInteger(index) || index < 0 || index >= vertexCount) {
      throw new FluidError(
        `mesh.indices[${place}] (triangle ${Math.floor(place / 3)}) is ${String(index)}; vertex indices must be ` +
          `integers in [0, ${vertexCount - 1}] (the mesh has ${vertexCount} vertices)`,
      );
    }
  }
  return { positions, indices };
}

function isArrayLike(value: unknown): value is ArrayLike<number> {
  return (
    (Array.isArray(value) || ArrayBuffer.isView(value)) && typeof (value as { length?: unknown }).length === 'number'
  );
}
