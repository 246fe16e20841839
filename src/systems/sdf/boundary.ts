/**
 * The open-mesh check of the bake (sdf/bake.ts): how much of a triangle mesh's boundary is left open.
 *
 * Generalised winding numbers give a sensible inside for a closed surface with small holes, but an open
 * sheet (a terrain, a plane, a box without its top) bounds nothing: w is below 0.5 almost everywhere and
 * only the folds of a wavy sheet push it over, so the "inside" would be a few scattered pockets. The check
 * therefore looks at the mesh itself:
 *
 * 1. Vertices are welded by position: two vertices within {@link WELD_TOLERANCE} times the longest
 *    bounding-box side are one, so duplicated vertices along UV seams and hard edges (equal positions,
 *    different indices) and float noise join up. A hash of cells of 16 tolerances finds every vertex
 *    within the tolerance in a point's cell and, near a cell face, the cells across it.
 * 2. Every side of every triangle is listed under its lower welded vertex (compressed rows); the sides
 *    with the same two ends are one edge. The boundary is the set of edges shared by an odd number of
 *    triangles (the boundary of the surface modulo 2): empty for a closed mesh whatever its triangle
 *    orientation, one loop around every hole.
 * 3. Each connected piece of the boundary is a hole; its area is the length of its vector area,
 *    (1/2) sum (p - c) x (q - c) over its edges p -> q (directed as in their triangle, c the piece's
 *    centroid): for a closed loop this is the area vector of any patch that would close the hole, and it
 *    is what the hole takes away from the winding numbers far from it (the dipole of Barill et al. 2018).
 *    A slit (a cut whose two sides stay joined at its ends) or a T-junction has a boundary but almost no
 *    vector area, so it hardly counts; two parts that should meet but whose vertices are farther apart
 *    than the tolerance leave one hole per rim.
 *
 * The bake throws when the holes' area exceeds {@link MAXIMUM_HOLE_AREA_FRACTION} of the surface's area,
 * and takes the connectivity of its closest-point walk from the same weld (so an unwelded mesh whose
 * duplicates differ by float noise walks like the welded one; a walk step may then miss at most the gap
 * between two welded vertices).
 * Cost: linear in triangles (a hash of weld cells and arrays indexed by welded vertex).
 */

import { triangleCross } from './triangle';

/** Scratch of the triangles' cross products (no arrays per call). */
const cross = new Float64Array(3);

/**
 * Two vertices closer than this fraction of the mesh's longest bounding-box side are welded for the
 * open-mesh check: 1e-4, 0.1 mm on a 1 m mesh (Blender's default merge distance), far above float32
 * rounding (6e-8 relative). Welding never makes a closed mesh look open (a closed surface stays closed
 * when vertices are identified), so the tolerance errs on the generous side.
 */
export const WELD_TOLERANCE = 1e-4;

/** Side of the weld's hash cells in weld tolerances: most points are farther than one from every face. */
const WELD_CELL = 16;

/**
 * Largest area of the holes, as a fraction of the surface's area, that a mesh may have and still bake:
 * 0.01. One missing triangle of a 2,023-triangle sphere is 0.07% and six of a 3,968-triangle one 0.23%; a
 * plane is 100%, a 1 m terrain with 5 cm waves 88%, an open-topped cube 20%, and a 10:1 cup without
 * thickness (radius r, height 10 r) 4.8%.
 */
export const MAXIMUM_HOLE_AREA_FRACTION = 0.01;

/** A mesh's kept triangles with their vertices welded by position (see {@link weldVertices}). */
export interface WeldedMesh {
  /** Distance (m) within which vertices were welded: {@link WELD_TOLERANCE} times the longest side. */
  tolerance: number;
  /** Number of welded vertices. */
  vertexCount: number;
  /** Per welded vertex, the position (m) of the first mesh vertex welded into it: x, y, z. */
  positions: Float64Array;
  /** Number of triangles (the `keptCount` welded). */
  triangleCount: number;
  /** Per triangle corner (three per triangle, in `kept` order), its welded vertex. */
  corners: Int32Array;
}

/**
 * Welds the vertices of the triangles `kept[0 .. keptCount - 1]` of a mesh (indices into its triangle
 * list) by position: a vertex within the tolerance ({@link WELD_TOLERANCE} times the longest side of the
 * triangles' bounding box) of an earlier welded vertex joins it. Indices must be valid (the bake checks
 * them first). Linear in the number of triangles.
 *
 * @param positions - Vertex positions, x, y, z per vertex (m).
 * @param indices - Three vertex indices per triangle.
 * @param kept - The triangles to weld (the bake passes those with a non-zero area).
 * @param keptCount - How many entries of `kept` to read.
 * @returns The welded vertices and each corner's welded vertex, see {@link WeldedMesh}.
 */
export function weldVertices(
  positions: ArrayLike<number>,
  indices: ArrayLike<number>,
  kept: Int32Array,
  keptCount: number,
): WeldedMesh {
  // ---- Bounding box --------------------------------------------------------------------------------------
  let minX = Number.POSITIVE_INFINITY;
  let minY = Number.POSITIVE_INFINITY;
  let minZ = Number.POSITIVE_INFINITY;
  let maxX = Number.NEGATIVE_INFINITY;
  let maxY = Number.NEGATIVE_INFINITY;
  let maxZ = Number.NEGATIVE_INFINITY;
  for (let place = 0; place < keptCount; place++) {
    const t = kept[place];
    for (let corner = 0; corner < 3; corner++) {
      const v = 3 * indices[3 * t + corner];
      minX = Math.min(minX, positions[v]);
      maxX = Math.max(maxX, positions[v]);
      minY = Math.min(minY, positions[v + 1]);
      maxY = Math.max(maxY, positions[v + 1]);
      minZ = Math.min(minZ, positions[v + 2]);
      maxZ = Math.max(maxZ, positions[v + 2]);
    }
  }
  const longestSide = Math.max(maxX - minX, maxY - minY, maxZ - minZ);
  const weldTolerance = WELD_TOLERANCE * longestSide;

  // ---- Weld vertices by position -------------------------------------------------------------------------
  // Cells of WELD_CELL tolerances: a point within the tolerance of p lies in p's cell or, along an axis on
  // which p is within the tolerance of a cell face, in the neighbour across that face (at most 8 cells,
  // almost always 1).
  const vertexCount = Math.floor(positions.length / 3);
  const weldOf = new Int32Array(vertexCount).fill(-1);
  const maximumWelded = Math.min(vertexCount, 3 * keptCount);
  const weldedPositions = new Float64Array(3 * maximumWelded);
  const nextInCell = new Int32Array(maximumWelded);
  let cellTableSize = 1;
  while (cellTableSize < 2 * maximumWelded) cellTableSize *= 2;
  const cellMask = cellTableSize - 1;
  // Per slot: cell i, j, k and the first welded vertex in the cell (-1: empty slot).
  const cellTable = new Int32Array(4 * cellTableSize);
  for (let slot = 0; slot < cellTableSize; slot++) cellTable[4 * slot + 3] = -1;
  const inverseCell = 1 / (WELD_CELL * weldTolerance);
  const faceFraction = 1 / WELD_CELL;
  const toleranceSquared = weldTolerance * weldTolerance;
  /** The slot of cell (i, j, k) in the cell table: its own, or the empty slot where it would go. */
  const cellSlot = (i: number, j: number, k: number): number => {
    let hash = Math.imul(i, 0x8da6b343) ^ Math.imul(j, 0xd8163841) ^ Math.imul(k, 0xcb1ab31f);
    hash ^= hash >>> 15;
    let slot = hash & cellMask;
    while (cellTable[4 * slot + 3] >= 0) {
      const o = 4 * slot;
      if (cellTable[o] === i && cellTable[o + 1] === j && cellTable[o + 2] === k) return slot;
      slot = (slot + 1) & cellMask;
    }
    return slot;
  };
  /** The first welded vertex within the tolerance of (x, y, z) in cell (i, j, k), or -1. */
  const findInCell = (i: number, j: number, k: number, x: number, y: number, z: number): number => {
    for (let other = cellTable[4 * cellSlot(i, j, k) + 3]; other >= 0; other = nextInCell[other]) {
      const dx = weldedPositions[3 * other] - x;
      const dy = weldedPositions[3 * other + 1] - y;
      const dz = weldedPositions[3 * other + 2] - z;
      if (dx * dx + dy * dy + dz * dz <= toleranceSquared) return other;
    }
    return -1;
  };
  let weldedCount = 0;
  const weld = (vertex: number): number => {
    const known = weldOf[vertex];
    if (known >= 0) return known;
    const x = positions[3 * vertex];
    const y = positions[3 * vertex + 1];
    const z = positions[3 * vertex + 2];
    const cellX = (x - minX) * inverseCell;
    const cellY = (y - minY) * inverseCell;
    const cellZ = (z - minZ) * inverseCell;
    const i = Math.floor(cellX);
    const j = Math.floor(cellY);
    const k = Math.floor(cellZ);
    // The neighbour to look at along each axis (0: none).
    const stepI = cellX - i < faceFraction ? -1 : cellX - i > 1 - faceFraction ? 1 : 0;
    const stepJ = cellY - j < faceFraction ? -1 : cellY - j > 1 - faceFraction ? 1 : 0;
    const stepK = cellZ - k < faceFraction ? -1 : cellZ - k > 1 - faceFraction ? 1 : 0;
    let found = findInCell(i, j, k, x, y, z);
    for (let neighbour = 1; neighbour < 8 && found < 0; neighbour++) {
      if ((neighbour & 1 && stepI === 0) || (neighbour & 2 && stepJ === 0) || (neighbour & 4 && stepK === 0)) continue;
      found = findInCell(
        neighbour & 1 ? i + stepI : i,
        neighbour & 2 ? j + stepJ : j,
        neighbour & 4 ? k + stepK : k,
        x,
        y,
        z,
      );
    }
    if (found >= 0) {
      weldOf[vertex] = found;
      return found;
    }
    const slot = cellSlot(i, j, k);
    const o = 4 * slot;
    cellTable[o] = i;
    cellTable[o + 1] = j;
    cellTable[o + 2] = k;
    const welded = weldedCount++;
    weldedPositions[3 * welded] = x;
    weldedPositions[3 * welded + 1] = y;
    weldedPositions[3 * welded + 2] = z;
    nextInCell[welded] = cellTable[o + 3];
    cellTable[o + 3] = welded;
    weldOf[vertex] = welded;
    return welded;
  };
  const cornerWelds = new Int32Array(3 * keptCount);
  for (let place = 0; place < keptCount; place++) {
    const t = kept[place];
    for (let corner = 0; corner < 3; corner++) cornerWelds[3 * place + corner] = weld(indices[3 * t + corner]);
  }
  return {
    tolerance: weldTolerance,
    vertexCount: weldedCount,
    positions: weldedPositions.subarray(0, 3 * weldedCount),
    triangleCount: keptCount,
    corners: cornerWelds,
  };
}

/** What {@link measureBoundary} found. */
export interface MeshBoundary {
  /** Distance (m) within which vertices were welded: {@link WELD_TOLERANCE} times the longest side. */
  weldTolerance: number;
  /** Vertices left after welding. */
  vertexCount: number;
  /** Distinct edges between welded vertices (edges whose two ends welded together are left out). */
  edgeCount: number;
  /** Edges shared by an odd number of triangles (1 for the rim of a sheet or a hole). */
  boundaryEdgeCount: number;
  /** Total length of all distinct edges (m). */
  edgeLength: number;
  /** Total length of the boundary edges (m). */
  boundaryLength: number;
  /** Connected pieces of the boundary (holes). */
  holeCount: number;
  /** Sum over the holes of the length of their vector areas (m^2): the area of the patches that would close them. */
  holeArea: number;
  /** Total area of the triangles measured (m^2). */
  surfaceArea: number;
}

/**
 * Measures the open boundary of a welded mesh: the edges shared by an odd number of triangles, and the
 * area of the holes they surround (see the file comment). Linear in the number of triangles.
 *
 * @param mesh - The welded triangles, from {@link weldVertices}.
 * @returns The boundary's counts, lengths and areas, see {@link MeshBoundary}.
 */
export function measureBoundary(mesh: WeldedMesh): MeshBoundary {
  const { corners: cornerWelds, vertexCount: weldedCount, positions: weldedPositions, triangleCount: keptCount } = mesh;
  let surfaceArea = 0;
  for (let t = 0; t < keptCount; t++) {
    const a = 3 * cornerWelds[3 * t];
    const b = 3 * cornerWelds[3 * t + 1];
    const c = 3 * cornerWelds[3 * t + 2];
    surfaceArea += 0.5 * triangleCross(weldedPositions, a, b, c, cross);
  }

  // ---- Count the edges -----------------------------------------------------------------------------------
  // Every triangle side (from, to) between two different welded vertices is listed under its lower vertex
  // (compressed rows), with +1 if it runs from the lower to the higher vertex and -1 if the other way.
  const rowStart = new Int32Array(weldedCount + 1);
  for (let place = 0; place < keptCount; place++) {
    for (let side = 0; side < 3; side++) {
      const from = cornerWelds[3 * place + side];
      const to = cornerWelds[3 * place + ((side + 1) % 3)];
      if (from !== to) rowStart[Math.min(from, to) + 1]++;
    }
  }
  for (let v = 0; v < weldedCount; v++) rowStart[v + 1] += rowStart[v];
  const sideCount = rowStart[weldedCount];
  const rowFill = rowStart.slice(0, weldedCount);
  const sideEnds = new Int32Array(sideCount);
  const sideDirections = new Int8Array(sideCount);
  for (let place = 0; place < keptCount; place++) {
    for (let side = 0; side < 3; side++) {
      const from = cornerWelds[3 * place + side];
      const to = cornerWelds[3 * place + ((side + 1) % 3)];
      if (from === to) continue; // both ends welded into one vertex: no edge
      const entry = rowFill[Math.min(from, to)]++;
      sideEnds[entry] = Math.max(from, to);
      sideDirections[entry] = from < to ? 1 : -1;
    }
  }
  // Per row, the sides with the same higher vertex are one edge: count its uses and sum its directions in
  // its first entry. An edge with an odd number of uses is on the boundary (its direction sum is odd, so
  // not zero: its sign orients the boundary edge). Boundary pieces by union-find over welded vertices.
  const edgeUses = new Int32Array(sideCount);
  const edgeDirections = new Int32Array(sideCount);
  const lastRow = new Int32Array(weldedCount).fill(-1);
  const firstSide = new Int32Array(weldedCount);
  const parent = new Int32Array(weldedCount);
  for (let v = 0; v < weldedCount; v++) parent[v] = v;
  const find = (v: number): number => {
    while (parent[v] !== v) {
      parent[v] = parent[parent[v]];
      v = parent[v];
    }
    return v;
  };
  const boundaryFrom: number[] = [];
  const boundaryTo: number[] = [];
  let edgeCount = 0;
  let edgeLength = 0;
  let boundaryLength = 0;
  for (let low = 0; low < weldedCount; low++) {
    const start = rowStart[low];
    const end = rowStart[low + 1];
    for (let entry = start; entry < end; entry++) {
      const high = sideEnds[entry];
      if (lastRow[high] !== low) {
        lastRow[high] = low;
        firstSide[high] = entry;
      }
      const first = firstSide[high];
      edgeUses[first]++;
      edgeDirections[first] += sideDirections[entry];
    }
    for (let entry = start; entry < end; entry++) {
      if (edgeUses[entry] === 0) continue; // a repeated side of an edge counted at its first entry
      const high = sideEnds[entry];
      const dx = weldedPositions[3 * high] - weldedPositions[3 * low];
      const dy = weldedPositions[3 * high + 1] - weldedPositions[3 * low + 1];
      const dz = weldedPositions[3 * high + 2] - weldedPositions[3 * low + 2];
      const length = Math.sqrt(dx * dx + dy * dy + dz * dz);
      edgeCount++;
      edgeLength += length;
      if ((edgeUses[entry] & 1) === 0) continue;
      boundaryLength += length;
      const forward = edgeDirections[entry] > 0;
      boundaryFrom.push(forward ? low : high);
      boundaryTo.push(forward ? high : low);
      const rootLow = find(low);
      const rootHigh = find(high);
      if (rootLow !== rootHigh) parent[rootHigh] = rootLow;
    }
  }

  // ---- Hole areas: vector area of each piece about its centroid --------------------------------------------
  const boundaryEdgeCount = boundaryFrom.length;
  const pieceOf = new Int32Array(weldedCount).fill(-1);
  const centroids: number[] = [];
  const edgesPerPiece: number[] = [];
  for (let e = 0; e < boundaryEdgeCount; e++) {
    const root = find(boundaryFrom[e]);
    if (pieceOf[root] < 0) {
      pieceOf[root] = edgesPerPiece.length;
      edgesPerPiece.push(0);
      centroids.push(0, 0, 0);
    }
    const piece = pieceOf[root];
    edgesPerPiece[piece]++;
    for (let axis = 0; axis < 3; axis++) {
      centroids[3 * piece + axis] +=
        0.5 * (weldedPositions[3 * boundaryFrom[e] + axis] + weldedPositions[3 * boundaryTo[e] + axis]);
    }
  }
  const holeCount = edgesPerPiece.length;
  for (let piece = 0; piece < holeCount; piece++) {
    for (let axis = 0; axis < 3; axis++) centroids[3 * piece + axis] /= edgesPerPiece[piece];
  }
  const vectorAreas = new Float64Array(3 * holeCount);
  for (let e = 0; e < boundaryEdgeCount; e++) {
    const piece = pieceOf[find(boundaryFrom[e])];
    const p = 3 * boundaryFrom[e];
    const q = 3 * boundaryTo[e];
    const px = weldedPositions[p] - centroids[3 * piece];
    const py = weldedPositions[p + 1] - centroids[3 * piece + 1];
    const pz = weldedPositions[p + 2] - centroids[3 * piece + 2];
    const qx = weldedPositions[q] - centroids[3 * piece];
    const qy = weldedPositions[q + 1] - centroids[3 * piece + 1];
    const qz = weldedPositions[q + 2] - centroids[3 * piece + 2];
    vectorAreas[3 * piece] += 0.5 * (py * qz - pz * qy);
    vectorAreas[3 * piece + 1] += 0.5 * (pz * qx - px * qz);
    vectorAreas[3 * piece + 2] += 0.5 * (px * qy - py * qx);
  }
  let holeArea = 0;
  for (let piece = 0; piece < holeCount; piece++) {
    holeArea += Math.hypot(vectorAreas[3 * piece], vectorAreas[3 * piece + 1], vectorAreas[3 * piece + 2]);
  }
  return {
    weldTolerance: mesh.tolerance,
    vertexCount: weldedCount,
    edgeCount,
    boundaryEdgeCount,
    edgeLength,
    boundaryLength,
    holeCount,
    holeArea,
    surfaceArea,
  };
}
