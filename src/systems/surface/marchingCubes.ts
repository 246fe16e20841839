/**
 * Isosurface of the color field (Müller, Charypar & Gross 2003, sections 3.3 and 4.2):
 *
 *   c_S(x) = sum_j (m_j / rho_j) W_poly6(x - x_j, h)          (eq. 15, kernel eq. 20)
 *
 * sampled on a grid of nodes at integer multiples of `cellSize` (world origin at node (0, 0, 0), so the
 * grid does not swim as the fluid moves) and triangulated where c_S = `isoLevel`.
 *
 * Sparse: nodes live in bricks of 8 x 8 x 8 kept in a hash table of brick coordinates; a brick exists only
 * where a particle's kernel support (plus one node on the low side, see below) reaches. No dense grid over
 * the domain. Each particle adds its kernel to the nodes within h (the "splat"), so the cost is
 * proportional to the particles, not to the domain.
 *
 * Triangulation: every cube cell is split into six tetrahedra along its main diagonal (the Freudenthal /
 * Kuhn split: tetrahedron (0, e_a, e_a + e_b, 1,1,1) for each permutation (a, b, c) of the axes), and each
 * tetrahedron is polygonised on its own (marching tetrahedra). The split of a cell face is the same seen
 * from both cells sharing it, and a tetrahedron face crossed by the surface holds exactly one segment, so
 * the marching-cubes ambiguity does not arise: the surface is a closed 2-manifold (every edge shared by
 * exactly two triangles, consistently oriented) wherever it does not leave the bricks, which it never
 * does (the field is 0 < isoLevel outside them). A node counts as inside when c_S > isoLevel (strictly),
 * so an edge crosses the surface when exactly one of its ends is inside.
 *
 * Vertices are shared: a vertex is identified by its grid edge (start node, direction), so neighbouring
 * triangles index the same vertex and the mesh is indexed and closed. Triangles are wound counter-
 * clockwise seen from outside (right-hand rule: (b - a) x (c - a) points out of the fluid); the
 * orientation of each tetrahedron case is fixed once, exactly, from integer corner coordinates.
 * Normals are -grad c_S / |grad c_S| (eq. 24), the gradient taken by central differences of the grid
 * field at both ends of the vertex's edge and interpolated.
 *
 * Buffers only grow; in the steady state an extraction allocates nothing.
 */
import { FluidError } from '../../core/errors';
import { poly6Coefficient } from '../../core/kernels';
import { hashCell } from '../neighbours/cpu';
import { resolveSurfaceExtractionOptions, type SurfaceExtractionOptions } from './extractionOptions';
import { LevelSetSmoother, type SparseBrickGrid } from './levelSet';
import type { SurfaceParticleArrays } from './particles';
import { TET_AXES, TET_CASE_STRIDE, TET_CASES } from './tetrahedra';

/** Nodes along each edge of a brick (a power of two). */
const BRICK = 8;
/** log2 of {@link BRICK}. */
const BRICK_SHIFT = 3;
/** Nodes per brick. */
const BRICK_NODES = BRICK * BRICK * BRICK;
/** Vertex-table entries per node: one per edge direction bit mask 1..7 (0 unused). */
const DIRECTIONS = 8;
/** Largest |node coordinate|: particles farther than this many cells from the origin are refused. */
const NODE_LIMIT = 2 ** 28;
/** Edge parameters are kept this far from the ends, so no triangle collapses to a point. */
const EDGE_MARGIN = 1e-4;

/** An indexed triangle mesh in grow-only buffers; entries beyond the counts are stale. */
export interface SurfaceMesh {
  /** Number of vertices written. */
  readonly vertexCount: number;
  /** Number of indices written (3 per triangle). */
  readonly indexCount: number;
  /** x, y, z per vertex (m, world space). */
  readonly positions: Float32Array;
  /** Unit outward normal per vertex (x, y, z). */
  readonly normals: Float32Array;
  /** Three vertex indices per triangle, counter-clockwise seen from outside (right-hand rule). */
  readonly indices: Uint32Array;
}

/** Node-index offset of each cube corner (bit 0: +x, bit 1: +y, bit 2: +z) within one brick. */
const CORNER_OFFSET = new Int32Array([
  0,
  1,
  BRICK,
  BRICK + 1,
  BRICK * BRICK,
  BRICK * BRICK + 1,
  BRICK * BRICK + BRICK,
  BRICK * BRICK + BRICK + 1,
]);

/**
 * Marching-tetrahedra extraction of the color-field isosurface on a sparse grid (see the module notes).
 * One extractor keeps its buffers between calls: call {@link SurfaceExtractor.extract} every frame.
 */
export class SurfaceExtractor implements SurfaceMesh {
  /** Kernel radius h of the color field (m). */
  readonly kernelRadius: number;
  /** Grid cell size (m). */
  readonly cellSize: number;
  /** Iso-level of the surface. */
  readonly isoLevel: number;

  /** Vertices of the last extraction. */
  vertexCount = 0;
  /** Indices of the last extraction (3 per triangle). */
  indexCount = 0;
  /** x, y, z per vertex (m); grows (a new array) when an extraction needs more room. */
  positions = new Float32Array(3 * 1024);
  /** Unit outward normal per vertex; grows with `positions`. */
  normals = new Float32Array(3 * 1024);
  /** Triangle indices, counter-clockwise seen from outside; grows when needed. */
  indices = new Uint32Array(3 * 2048);

  /** Number of bricks in use. */
  private brickCount = 0;
  /** Brick coordinates per slot. */
  private brickX = new Int32Array(64);
  private brickY = new Int32Array(64);
  private brickZ = new Int32Array(64);
  /** Color field per node: slot * 512 + (z * 8 + y) * 8 + x. */
  private values = new Float32Array(64 * BRICK_NODES);
  /** Open-addressing hash table of brick slots (-1: empty); its size is a power of two. */
  private table = new Int32Array(256).fill(-1);
  /** Vertex of each grid edge (node id * 8 + direction), -1 when none. */
  private edgeVertex = new Int32Array(64 * BRICK_NODES * DIRECTIONS).fill(-1);
  /** The edge key of each vertex, to clear `edgeVertex` before the next extraction. */
  private vertexKey = new Int32Array(1024);
  /** Per-axis squared offsets of a particle's node box. */
  private offsets = new Float64Array(3 * 64);
  /** Scratch of the current cell: corner values, node ids. */
  private readonly cornerValue = new Float64Array(8);
  private readonly cornerNode = new Int32Array(8);
  private readonly neighbourSlot = new Int32Array(8);
  /** A one-brick cache of `nodeValue`. */
  private cachedBrick = -1;
  private cachedX = 0;
  private cachedY = 0;
  private cachedZ = 0;
  private readonly gradientScratch = new Float64Array(6);
  /** The level-set smoother when `smoothing` is set. */
  private readonly smoother: LevelSetSmoother | undefined;
  /** The sparse grid as the smoother sees it. */
  private readonly grid: SparseBrickGrid;

  /** Validates the settings (bad values throw {@link FluidError} naming the value and its range). */
  constructor(options: SurfaceExtractionOptions) {
    const resolved = resolveSurfaceExtractionOptions(options);
    this.kernelRadius = resolved.kernelRadius;
    this.cellSize = resolved.cellSize;
    this.isoLevel = resolved.isoLevel;
    this.smoother = resolved.smoothing === undefined ? undefined : new LevelSetSmoother(resolved.smoothing);
    const extractor = this;
    this.grid = {
      get brickCount(): number {
        return extractor.brickCount;
      },
      get brickX(): Int32Array {
        return extractor.brickX;
      },
      get brickY(): Int32Array {
        return extractor.brickY;
      },
      get brickZ(): Int32Array {
        return extractor.brickZ;
      },
      get values(): Float32Array {
        return extractor.values;
      },
      findBrick: (bx: number, by: number, bz: number): number => extractor.findBrick(bx, by, bz),
    };
  }

  /** Forgets the level-set smoothing's carried field (after a teleport or a restore). No-op without smoothing. */
  resetSmoothing(): void {
    this.smoother?.reset();
  }

  /** Number of grid bricks (8^3 nodes each) the last extraction used. */
  get activeBricks(): number {
    return this.brickCount;
  }

  /** Number of triangles of the last extraction. */
  get triangleCount(): number {
    return this.indexCount / 3;
  }

  /**
   * Rebuilds the mesh from `particles` (positions and volumes m_j / rho_j): splats the color field onto
   * the sparse grid and triangulates its isosurface. Returns this extractor (the mesh). A non-finite
   * position, a non-positive volume or a position beyond 2^28 cells from the origin throws
   * {@link FluidError} naming the particle.
   */
  extract(particles: SurfaceParticleArrays): SurfaceMesh {
    this.clear();
    this.splat(particles);
    this.smoother?.smooth(this.grid, this.isoLevel);
    this.polygonise();
    return this;
  }

  /** Empties the grid and the mesh (clearing only what the last extraction used). */
  private clear(): void {
    const edgeVertex = this.edgeVertex;
    const keys = this.vertexKey;
    for (let v = 0; v < this.vertexCount; v++) edgeVertex[keys[v]] = -1;
    this.vertexCount = 0;
    this.indexCount = 0;
    this.table.fill(-1);
    this.brickCount = 0;
    this.cachedBrick = -1;
  }

  /** The slot of brick (bx, by, bz), or -1. */
  private findBrick(bx: number, by: number, bz: number): number {
    const table = this.table;
    const mask = table.length - 1;
    let place = hashCell(bx, by, bz, mask);
    for (;;) {
      const slot = table[place];
      if (slot < 0) return -1;
      if (this.brickX[slot] === bx && this.brickY[slot] === by && this.brickZ[slot] === bz) return slot;
      place = (place + 1) & mask;
    }
  }

  /** The slot of brick (bx, by, bz), made (with zero values) when missing. */
  private insertBrick(bx: number, by: number, bz: number): number {
    const table = this.table;
    const mask = table.length - 1;
    let place = hashCell(bx, by, bz, mask);
    for (;;) {
      const slot = table[place];
      if (slot < 0) break;
      if (this.brickX[slot] === bx && this.brickY[slot] === by && this.brickZ[slot] === bz) return slot;
      place = (place + 1) & mask;
    }
    const slot = this.brickCount++;
    if (slot >= this.brickX.length) this.growBricks();
    this.brickX[slot] = bx;
    this.brickY[slot] = by;
    this.brickZ[slot] = bz;
    this.values.fill(0, slot * BRICK_NODES, (slot + 1) * BRICK_NODES);
    if (2 * this.brickCount > table.length) {
      this.rehash();
      return slot;
    }
    table[place] = slot;
    return slot;
  }

  private growBricks(): void {
    const size = 2 * this.brickX.length;
    const grow = (old: Int32Array<ArrayBuffer>): Int32Array<ArrayBuffer> => {
      const grown = new Int32Array(size);
      grown.set(old);
      return grown;
    };
    this.brickX = grow(this.brickX);
    this.brickY = grow(this.brickY);
    this.brickZ = grow(this.brickZ);
    const values = new Float32Array(size * BRICK_NODES);
    values.set(this.values);
    this.values = values;
    this.edgeVertex = new Int32Array(size * BRICK_NODES * DIRECTIONS).fill(-1);
  }

  /** Doubles the hash table and inserts every brick again. */
  private rehash(): void {
    const table = new Int32Array(2 * this.table.length).fill(-1);
    const mask = table.length - 1;
    for (let slot = 0; slot < this.brickCount; slot++) {
      let place = hashCell(this.brickX[slot], this.brickY[slot], this.brickZ[slot], mask);
      while (table[place] >= 0) place = (place + 1) & mask;
      table[place] = slot;
    }
    this.table = table;
  }

  /** Adds every particle's kernel to the nodes within h, making the bricks it touches. */
  private splat(particles: SurfaceParticleArrays): void {
    const { count, x, y, z, volume } = particles;
    const h = this.kernelRadius;
    const h2 = h * h;
    const c = this.cellSize;
    const inverseCell = 1 / c;
    const coefficient = poly6Coefficient(h);
    const span = Math.ceil(2 * h * inverseCell) + 3;
    if (this.offsets.length < 3 * span) this.offsets = new Float64Array(3 * span);
    const offsets = this.offsets;
    for (let k = 0; k < count; k++) {
      const px = x[k];
      const py = y[k];
      const pz = z[k];
      const weight = volume[k] * coefficient;
      if (!(weight > 0 && Number.isFinite(weight))) {
        throw new FluidError(`particle ${k} has volume ${volume[k]}; it must be a finite number > 0 (m^3)`);
      }
      const limit = NODE_LIMIT * c;
      if (!(Math.abs(px) < limit && Math.abs(py) < limit && Math.abs(pz) < limit)) {
        throw new FluidError(
          `particle ${k} is at [${px}, ${py}, ${pz}]; positions must be finite and within ${limit} m of the origin`,
        );
      }
      // Nodes within h, and the bricks of that box extended by one node on the low side: a cell whose
      // corner is inside the surface then always has its lowest corner in a brick (edge vertices are
      // keyed by their lower node).
      const x0 = Math.ceil((px - h) * inverseCell);
      const y0 = Math.ceil((py - h) * inverseCell);
      const z0 = Math.ceil((pz - h) * inverseCell);
      const x1 = Math.floor((px + h) * inverseCell);
      const y1 = Math.floor((py + h) * inverseCell);
      const z1 = Math.floor((pz + h) * inverseCell);
      for (let i = x0; i <= x1; i++) offsets[i - x0] = (i * c - px) ** 2;
      for (let j = y0; j <= y1; j++) offsets[span + j - y0] = (j * c - py) ** 2;
      for (let l = z0; l <= z1; l++) offsets[2 * span + l - z0] = (l * c - pz) ** 2;
      const bx0 = (x0 - 1) >> BRICK_SHIFT;
      const by0 = (y0 - 1) >> BRICK_SHIFT;
      const bz0 = (z0 - 1) >> BRICK_SHIFT;
      const bx1 = x1 >> BRICK_SHIFT;
      const by1 = y1 >> BRICK_SHIFT;
      const bz1 = z1 >> BRICK_SHIFT;
      for (let bz = bz0; bz <= bz1; bz++) {
        const lz0 = Math.max(z0, bz << BRICK_SHIFT);
        const lz1 = Math.min(z1, (bz << BRICK_SHIFT) + BRICK - 1);
        for (let by = by0; by <= by1; by++) {
          const ly0 = Math.max(y0, by << BRICK_SHIFT);
          const ly1 = Math.min(y1, (by << BRICK_SHIFT) + BRICK - 1);
          for (let bx = bx0; bx <= bx1; bx++) {
            const slot = this.insertBrick(bx, by, bz);
            const lx0 = Math.max(x0, bx << BRICK_SHIFT);
            const lx1 = Math.min(x1, (bx << BRICK_SHIFT) + BRICK - 1);
            const values = this.values;
            const base = slot * BRICK_NODES;
            for (let l = lz0; l <= lz1; l++) {
              const dz = offsets[2 * span + l - z0];
              if (dz >= h2) continue;
              const rowZ = base + ((l - (bz << BRICK_SHIFT)) << (2 * BRICK_SHIFT));
              for (let j = ly0; j <= ly1; j++) {
                const dyz = dz + offsets[span + j - y0];
                if (dyz >= h2) continue;
                const row = rowZ + ((j - (by << BRICK_SHIFT)) << BRICK_SHIFT) - (bx << BRICK_SHIFT);
                // Only the nodes of this row inside the kernel's sphere.
                const halfWidth = Math.sqrt(h2 - dyz);
                const first = Math.max(lx0, Math.ceil((px - halfWidth) * inverseCell));
                const last = Math.min(lx1, Math.floor((px + halfWidth) * inverseCell));
                for (let i = first; i <= last; i++) {
                  const d = h2 - dyz - offsets[i - x0];
                  if (d > 0) values[row + i] += weight * d * d * d;
                }
              }
            }
          }
        }
      }
    }
  }

  /** The color field at global node (i, j, k): 0 outside the bricks. */
  private nodeValue(i: number, j: number, k: number): number {
    const bx = i >> BRICK_SHIFT;
    const by = j >> BRICK_SHIFT;
    const bz = k >> BRICK_SHIFT;
    if (this.cachedBrick < 0 || bx !== this.cachedX || by !== this.cachedY || bz !== this.cachedZ) {
      this.cachedBrick = this.findBrick(bx, by, bz);
      this.cachedX = bx;
      this.cachedY = by;
      this.cachedZ = bz;
      if (this.cachedBrick < 0) return 0;
    }
    const local = ((((k & (BRICK - 1)) << BRICK_SHIFT) | (j & (BRICK - 1))) << BRICK_SHIFT) | (i & (BRICK - 1));
    return this.values[this.cachedBrick * BRICK_NODES + local];
  }

  /**
   * Central-difference gradient of the field at global node (i, j, k), whose storage index is `node` (-1
   * when it lies in no brick), written to `out[offset..+2]`.
   */
  private nodeGradient(node: number, i: number, j: number, k: number, out: Float64Array, offset: number): void {
    if (node >= 0) {
      const local = node & (BRICK_NODES - 1);
      const lx = local & (BRICK - 1);
      const ly = (local >> BRICK_SHIFT) & (BRICK - 1);
      const lz = local >> (2 * BRICK_SHIFT);
      if (lx > 0 && lx < BRICK - 1 && ly > 0 && ly < BRICK - 1 && lz > 0 && lz < BRICK - 1) {
        // All six neighbours in the same brick.
        const values = this.values;
        out[offset] = values[node + 1] - values[node - 1];
        out[offset + 1] = values[node + BRICK] - values[node - BRICK];
        out[offset + 2] = values[node + BRICK * BRICK] - values[node - BRICK * BRICK];
        return;
      }
    }
    out[offset] = this.nodeValue(i + 1, j, k) - this.nodeValue(i - 1, j, k);
    out[offset + 1] = this.nodeValue(i, j + 1, k) - this.nodeValue(i, j - 1, k);
    out[offset + 2] = this.nodeValue(i, j, k + 1) - this.nodeValue(i, j, k - 1);
  }

  /** Triangulates every cell whose lowest corner lies in a brick. */
  private polygonise(): void {
    const iso = this.isoLevel;
    const cornerValue = this.cornerValue;
    const cornerNode = this.cornerNode;
    const neighbour = this.neighbourSlot;
    const bricks = this.brickCount;
    for (let slot = 0; slot < bricks; slot++) {
      const bx = this.brickX[slot];
      const by = this.brickY[slot];
      const bz = this.brickZ[slot];
      neighbour[0] = slot;
      for (let d = 1; d < 8; d++) neighbour[d] = this.findBrick(bx + (d & 1), by + ((d >> 1) & 1), bz + ((d >> 2) & 1));
      const values = this.values;
      for (let k = 0; k < BRICK; k++) {
        for (let j = 0; j < BRICK; j++) {
          for (let i = 0; i < BRICK; i++) {
            let insideMask = 0;
            if (i < BRICK - 1 && j < BRICK - 1 && k < BRICK - 1) {
              // All eight corners in this brick.
              const first = slot * BRICK_NODES + ((((k << BRICK_SHIFT) | j) << BRICK_SHIFT) | i);
              for (let corner = 0; corner < 8; corner++) {
                const node = first + CORNER_OFFSET[corner];
                const value = values[node];
                cornerValue[corner] = value;
                cornerNode[corner] = node;
                if (value > iso) insideMask |= 1 << corner;
              }
              if (insideMask !== 0 && insideMask !== 255) {
                this.polygoniseCell(
                  (bx << BRICK_SHIFT) + i,
                  (by << BRICK_SHIFT) + j,
                  (bz << BRICK_SHIFT) + k,
                  insideMask,
                );
              }
              continue;
            }
            for (let corner = 0; corner < 8; corner++) {
              const ci = i + (corner & 1);
              const cj = j + ((corner >> 1) & 1);
              const ck = k + ((corner >> 2) & 1);
              const s = neighbour[(ci >> BRICK_SHIFT) | ((cj >> BRICK_SHIFT) << 1) | ((ck >> BRICK_SHIFT) << 2)];
              if (s < 0) {
                cornerValue[corner] = 0;
                cornerNode[corner] = -1;
                continue;
              }
              const node =
                s * BRICK_NODES +
                ((((ck & (BRICK - 1)) << BRICK_SHIFT) | (cj & (BRICK - 1))) << BRICK_SHIFT) +
                (ci & (BRICK - 1));
              const value = values[node];
              cornerValue[corner] = value;
              cornerNode[corner] = node;
              if (value > iso) insideMask |= 1 << corner;
            }
            if (insideMask === 0 || insideMask === 255) continue;
            this.polygoniseCell((bx << BRICK_SHIFT) + i, (by << BRICK_SHIFT) + j, (bz << BRICK_SHIFT) + k, insideMask);
          }
        }
      }
    }
  }

  /** The six tetrahedra of the cell at global node (gi, gj, gk), given its corners' inside bits. */
  private polygoniseCell(gi: number, gj: number, gk: number, insideMask: number): void {
    for (let tet = 0; tet < 6; tet++) {
      // Corners of tetrahedron `tet`: 0, 1 << a, (1 << a) | (1 << b'), 7, in buildTetCases' order.
      const o0 = (tet * 16 + this.tetMask(tet, insideMask)) * TET_CASE_STRIDE;
      const triangles = TET_CASES[o0];
      for (let t = 0; t < triangles; t++) {
        const o = o0 + 1 + t * 6;
        const v0 = this.edgeVertexIndex(gi, gj, gk, TET_CASES[o], TET_CASES[o + 1]);
        const v1 = this.edgeVertexIndex(gi, gj, gk, TET_CASES[o + 2], TET_CASES[o + 3]);
        const v2 = this.edgeVertexIndex(gi, gj, gk, TET_CASES[o + 4], TET_CASES[o + 5]);
        this.pushTriangle(v0, v1, v2);
      }
    }
  }

  /** The 4-bit inside mask of tetrahedron `tet` from the cell's 8-bit mask. */
  private tetMask(tet: number, cellMask: number): number {
    const a = TET_AXES[2 * tet];
    const b = TET_AXES[2 * tet + 1];
    const c1 = 1 << a;
    const c2 = c1 | (1 << b);
    return (
      (cellMask & 1) | (((cellMask >> c1) & 1) << 1) | (((cellMask >> c2) & 1) << 2) | (((cellMask >> 7) & 1) << 3)
    );
  }

  /** The vertex on the edge from cube corner `start` to `end` (start a subset of end), made on first use. */
  private edgeVertexIndex(gi: number, gj: number, gk: number, start: number, end: number): number {
    const node = this.cornerNode[start];
    if (node < 0) throw new FluidError('surface extraction: an edge starts outside the grid (internal error)');
    const key = node * DIRECTIONS + (start ^ end);
    const existing = this.edgeVertex[key];
    if (existing >= 0) return existing;
    const va = this.cornerValue[start];
    const vb = this.cornerValue[end];
    let t = (this.isoLevel - va) / (vb - va);
    t = t < EDGE_MARGIN ? EDGE_MARGIN : t > 1 - EDGE_MARGIN ? 1 - EDGE_MARGIN : t;
    const ai = gi + (start & 1);
    const aj = gj + ((start >> 1) & 1);
    const ak = gk + ((start >> 2) & 1);
    const ei = gi + (end & 1);
    const ej = gj + ((end >> 1) & 1);
    const ek = gk + ((end >> 2) & 1);
    const v = this.vertexCount++;
    if (3 * this.vertexCount > this.positions.length) this.growVertices();
    const c = this.cellSize;
    const p = 3 * v;
    this.positions[p] = (ai + t * (ei - ai)) * c;
    this.positions[p + 1] = (aj + t * (ej - aj)) * c;
    this.positions[p + 2] = (ak + t * (ek - ak)) * c;
    const g = this.gradientScratch;
    this.nodeGradient(node, ai, aj, ak, g, 0);
    this.nodeGradient(this.cornerNode[end], ei, ej, ek, g, 3);
    let nx = -(g[0] + t * (g[3] - g[0]));
    let ny = -(g[1] + t * (g[4] - g[1]));
    let nz = -(g[2] + t * (g[5] - g[2]));
    let length = Math.sqrt(nx * nx + ny * ny + nz * nz);
    if (!(length > 0)) {
      // A flat spot of the field: the edge direction, from the inside end to the outside end.
      const sign = va > this.isoLevel ? 1 : -1;
      nx = sign * (ei - ai);
      ny = sign * (ej - aj);
      nz = sign * (ek - ak);
      length = Math.sqrt(nx * nx + ny * ny + nz * nz);
    }
    this.normals[p] = nx / length;
    this.normals[p + 1] = ny / length;
    this.normals[p + 2] = nz / length;
    this.edgeVertex[key] = v;
    this.vertexKey[v] = key;
    return v;
  }

  private growVertices(): void {
    const size = 2 * this.positions.length;
    const positions = new Float32Array(size);
    positions.set(this.positions);
    this.positions = positions;
    const normals = new Float32Array(size);
    normals.set(this.normals);
    this.normals = normals;
    const keys = new Int32Array(size / 3);
    keys.set(this.vertexKey);
    this.vertexKey = keys;
  }

  private pushTriangle(a: number, b: number, c: number): void {
    if (this.indexCount + 3 > this.indices.length) {
      const grown = new Uint32Array(2 * this.indices.length);
      grown.set(this.indices);
      this.indices = grown;
    }
    const o = this.indexCount;
    this.indices[o] = a;
    this.indices[o + 1] = b;
    this.indices[o + 2] = c;
    this.indexCount = o + 3;
  }
}
