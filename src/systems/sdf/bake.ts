/**
 * Baking a triangle mesh into a {@link SignedDistanceField}.
 *
 * Harada et al. 2007 (section 3) represent walls of any shape by a distance function precomputed on a
 * grid from their polygon mesh. This bake computes the distance to the triangles at every grid node (in
 * our tests equal to a brute-force minimum over all triangles at every sampled node, i.e. exact up to
 * float32 rounding), its outward unit gradient, and the sign:
 *
 * 0. Open-mesh check (boundary.ts): with vertices welded by position, the edges shared by an odd number
 *    of triangles surround the holes; when the holes' vector area exceeds 1% of the surface's area (a
 *    terrain or a plane is about 100%, a box without its top 20%), the mesh bounds no volume and the bake
 *    throws before any grid work.
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

import { COORDINATE_LIMIT, checkInteger, checkNumber } from '../../core/checks';
import { FluidError } from '../../core/errors';
import { MAXIMUM_HOLE_AREA_FRACTION, type MeshBoundary, measureBoundary, weldVertices } from './boundary';
import {
  bakeNarrowBand,
  createSurface,
  type Grid,
  refineClosestPoints,
  sweepClosestPoints,
  writeOutput,
} from './closestPoints';
import { SignedDistanceField } from './field';
import { classifyInside } from './sign';
import { triangleCross } from './triangle';
import { WindingNumberTree } from './winding';

/** Scratch of the triangles' cross products (no arrays per call). */
const cross = new Float64Array(3);

/** A triangle mesh in its own space: what {@link bakeSignedDistanceField} reads. */
export interface TriangleMesh {
  /** Vertex positions as x, y, z triples (m, mesh space); every coordinate must be finite. */
  positions: ArrayLike<number>;
  /**
   * Three vertex indices per triangle (integers in [0, vertex count - 1]). Either orientation works, and
   * vertices need not be shared between triangles (an unwelded mesh gives the same field). The triangles
   * must close a solid: holes may take up to 1% of the surface's area (see `boundary.ts`).
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
  /** Edges shared by an odd number of triangles after welding vertices by position (0 for a closed mesh). */
  boundaryEdgeCount: number;
  /**
   * Area of the holes those edges surround, as a fraction of the surface's area (at most 0.01, else the
   * bake throws; see `boundary.ts`).
   */
  holeAreaFraction: number;
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
 * zero-area triangles, holes larger than 1% of its area (an open sheet: a terrain, a plane, a box without
 * its top; see `boundary.ts`), or encloses no volume; or if an option is out of range or the grid would
 * exceed 2 * 256^3 nodes.
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
    const area = triangleCross(positions, 3 * indices[3 * t], 3 * indices[3 * t + 1], 3 * indices[3 * t + 2], cross);
    if (area > areaTolerance) kept[keptCount++] = t;
  }
  if (keptCount === 0) {
    throw new FluidError(
      `all ${triangleCount} triangles of the mesh are degenerate (zero area, longest bounding-box side ` +
        `${longestSide} m); a signed distance field needs a surface`,
    );
  }

  // An open mesh (a sheet) bounds no volume: refuse it before any grid work (see boundary.ts).
  const welded = weldVertices(positions, indices, kept, keptCount);
  const boundary = measureBoundary(welded);
  const holeAreaFraction = boundary.holeArea / boundary.surfaceArea;
  if (!(holeAreaFraction <= MAXIMUM_HOLE_AREA_FRACTION)) {
    throw new FluidError(openMeshMessage(boundary));
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
    const inverseLength = 1 / triangleCross(triangles, o, o + 3, o + 6, cross);
    normals[3 * t] = cross[0] * inverseLength;
    normals[3 * t + 1] = cross[1] * inverseLength;
    normals[3 * t + 2] = cross[2] * inverseLength;
  }

  const surface = createSurface(triangles, normals, keptCount, welded.corners, welded.vertexCount);
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
        `${signs.largestWinding.toFixed(3)}). Its faces cancel (a double-sided sheet: every face twice, facing ` +
        `both ways) or it is thinner than one cell (${cellSize} m); close the mesh (add the missing faces so ` +
        'that it bounds a solid) or bake with a smaller cellSize',
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
      boundaryEdgeCount: boundary.boundaryEdgeCount,
      holeAreaFraction,
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

/**
 * The error message for a mesh whose holes are too large (see `boundary.ts`): what was measured, the
 * allowed range, and what to do instead.
 */
function openMeshMessage(boundary: MeshBoundary): string {
  const { boundaryEdgeCount, edgeCount, weldTolerance, holeCount, holeArea, surfaceArea } = boundary;
  const round = (value: number): number => Number(value.toPrecision(3));
  return (
    `the mesh encloses no volume: it is open, with ${boundaryEdgeCount} of its ${edgeCount} edges on a rim (used ` +
    `by one triangle, or an odd number, after welding vertices within ${round(weldTolerance)} m) around ` +
    `${holeCount} ${holeCount === 1 ? 'hole' : 'holes'} of ${round(holeArea)} m^2, ` +
    `${round((100 * holeArea) / surfaceArea)}% of its ${round(surfaceArea)} m^2 surface; the holes may take ` +
    `[0, ${100 * MAXIMUM_HOLE_AREA_FRACTION}%] of the surface. An open sheet (a terrain, a plane, a box without ` +
    'its top) has no inside: close the mesh (add the missing faces so that it bounds a solid) or give the sheet ' +
    'a thickness (at least one particle radius and two cells). To hold fluid, use a closed solid with a cavity ' +
    "(like createGlassMesh) or the analytic container { shape: 'box', min, max, container: true }. If the mesh " +
    `should be closed, merge its vertices by distance: vertices farther apart than ${round(weldTolerance)} m ` +
    'are not joined'
  );
}

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
    if (typeof value !== 'number' || !(Math.abs(value) <= COORDINATE_LIMIT)) {
      const vertex = Math.floor(place / 3);
      throw new FluidError(
        `vertex ${vertex} has coordinate ${'xyz'[place % 3]} = ${String(value)} (mesh.positions[${place}]); ` +
          `every coordinate must be a finite number in [-${COORDINATE_LIMIT}, ${COORDINATE_LIMIT}] (the mesh's own space, m)`,
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
