/**
 * Surface particles (Müller, Charypar & Gross 2003, section 4, eq. 23 and 24): the gradient of the color
 * field at each particle,
 *
 *   n_i = grad c_S(x_i) = sum_j (m_j / rho_j) grad W_poly6(x_i - x_j, h),
 *   grad W_poly6(r, h) = -6 * 315 / (64 pi h^9) (h^2 - |r|^2)^2 r,
 *
 * is near zero inside the fluid (the neighbourhood is symmetric) and large at the free surface. A particle
 * with |n_i| > l is a surface particle (eq. 23); its outward normal is -n_i / |n_i| (eq. 24). These are the
 * points with normals that point splatting draws (section 4.1).
 *
 * Neighbours are found with a hash grid of cell size h over the compact particle arrays (counting sort by
 * cell hash). Buffers only grow.
 */
import { FluidError } from '../../core/errors';
import { poly6Coefficient } from '../../core/kernels';
import { hashCell } from '../neighbours/cpu';
import type { SurfaceParticleArrays } from './particles';

/**
 * Default threshold l of eq. 23 as a multiple of 1 / h: |n| > 0.75 / h. On a cubic lattice of spacing 2 r
 * with h = 4 r (the defaults), particles of the outer layer (faces, edges, corners) have |n| between 1.07 / h
 * and 1.19 / h, and every deeper particle 0 (tests/surface.test.ts prints these).
 *
 * This l is used by {@link SurfaceParticleDetector} only, i.e. by the `'splats'` render mode (its
 * `surface.surfaceThreshold` option). The WCSPH solver's `surfaceThreshold` (`SphOptions`, in 1/m, default
 * 0.5 / h) is a separate setting: it gates that solver's surface tension force (eq. 19 of the same paper)
 * and does not change which particles get splats, nor does this one change the solver.
 */
export const DEFAULT_SURFACE_THRESHOLD = 0.75;

/** Settings of a {@link SurfaceParticleDetector}. */
export interface SurfaceParticleOptions {
  /** Kernel radius h of the color field (m, finite, > 0). */
  kernelRadius: number;
  /**
   * Threshold l of eq. 23 in units of 1 / h (dimensionless, > 0): a particle is on the surface when
   * |grad c_S| > threshold / h. Default {@link DEFAULT_SURFACE_THRESHOLD}.
   */
  threshold?: number;
}

/**
 * Finds the surface particles of a set of particles (eq. 23) and their outward normals (eq. 24). One
 * detector keeps its buffers between calls.
 */
export class SurfaceParticleDetector {
  /** Kernel radius h (m). */
  readonly kernelRadius: number;
  /** Threshold l of eq. 23 in 1/m (the option times 1 / h). */
  readonly threshold: number;
  /** Number of surface particles found by the last {@link SurfaceParticleDetector.detect}. */
  count = 0;
  /** Index (into the input arrays) of each surface particle; entries `0 .. count - 1`. */
  indices = new Uint32Array(0);
  /** Unit outward normal -n / |n| of each surface particle (x, y, z). */
  normals = new Float32Array(0);
  /** |n| = |grad c_S| (1/m) of every input particle, as of the last call. */
  gradientLength = new Float64Array(0);
  private cellHash = new Int32Array(0);
  private order = new Int32Array(0);
  private bucketStart = new Int32Array(0);
  private readonly cellHashes = new Int32Array(27);

  /** Validates the settings (bad values throw {@link FluidError} naming the value and its range). */
  constructor(options: SurfaceParticleOptions) {
    const h = options?.kernelRadius;
    if (!(typeof h === 'number' && h > 0 && Number.isFinite(h))) {
      throw new FluidError(`kernelRadius is ${String(h)}; it must be a finite number > 0 (m)`);
    }
    const threshold = options.threshold ?? DEFAULT_SURFACE_THRESHOLD;
    if (!(typeof threshold === 'number' && threshold > 0 && Number.isFinite(threshold))) {
      throw new FluidError(`threshold is ${String(threshold)}; it must be a finite number > 0 (units of 1 / h)`);
    }
    this.kernelRadius = h;
    this.threshold = threshold / h;
  }

  private reserve(count: number): void {
    if (count <= this.order.length) return;
    const size = Math.max(count, 2 * this.order.length, 64);
    this.indices = new Uint32Array(size);
    this.normals = new Float32Array(3 * size);
    this.gradientLength = new Float64Array(size);
    this.cellHash = new Int32Array(size);
    this.order = new Int32Array(size);
  }

  /**
   * Computes n_i for every particle and keeps those with |n_i| > l. Returns the number found (also in
   * `count`); their indices and normals are in `indices` and `normals`. Non-finite positions throw
   * {@link FluidError}.
   */
  detect(particles: SurfaceParticleArrays): number {
    const { count, x, y, z, volume } = particles;
    this.reserve(count);
    const h = this.kernelRadius;
    const h2 = h * h;
    const inverseH = 1 / h;
    // Cells of size h. Over a compact bounding box they are numbered densely (no collisions); particles
    // spread far apart are hashed into a power-of-two table instead.
    let minX = Number.POSITIVE_INFINITY;
    let minY = Number.POSITIVE_INFINITY;
    let minZ = Number.POSITIVE_INFINITY;
    let maxX = Number.NEGATIVE_INFINITY;
    let maxY = Number.NEGATIVE_INFINITY;
    let maxZ = Number.NEGATIVE_INFINITY;
    for (let i = 0; i < count; i++) {
      const cx = Math.floor(x[i] * inverseH);
      const cy = Math.floor(y[i] * inverseH);
      const cz = Math.floor(z[i] * inverseH);
      if (
        !Number.isFinite(cx + cy + cz) ||
        Math.abs(cx) > 2 ** 30 ||
        Math.abs(cy) > 2 ** 30 ||
        Math.abs(cz) > 2 ** 30
      ) {
        throw new FluidError(`particle ${i} is at [${x[i]}, ${y[i]}, ${z[i]}]; positions must be finite (m)`);
      }
      if (cx < minX) minX = cx;
      if (cy < minY) minY = cy;
      if (cz < minZ) minZ = cz;
      if (cx > maxX) maxX = cx;
      if (cy > maxY) maxY = cy;
      if (cz > maxZ) maxZ = cz;
    }
    const spanX = maxX - minX + 1;
    const spanY = maxY - minY + 1;
    const spanZ = maxZ - minZ + 1;
    const dense = count > 0 && spanX * spanY * spanZ <= Math.max(4096, 8 * count);
    let tableSize = 64;
    if (dense) tableSize = spanX * spanY * spanZ;
    else while (tableSize < 2 * count) tableSize *= 2;
    if (this.bucketStart.length < tableSize + 1) this.bucketStart = new Int32Array(tableSize + 1);
    const mask = tableSize - 1;
    const { cellHash, order, bucketStart } = this;
    bucketStart.fill(0, 0, tableSize + 1);
    for (let i = 0; i < count; i++) {
      const cx = Math.floor(x[i] * inverseH);
      const cy = Math.floor(y[i] * inverseH);
      const cz = Math.floor(z[i] * inverseH);
      const key = dense ? ((cz - minZ) * spanY + (cy - minY)) * spanX + (cx - minX) : hashCell(cx, cy, cz, mask);
      cellHash[i] = key;
      bucketStart[key + 1]++;
    }
    for (let b = 1; b <= tableSize; b++) bucketStart[b] += bucketStart[b - 1];
    // Counting sort: `order` lists the particles bucket by bucket (cursor borrowed from the next start).
    for (let i = 0; i < count; i++) order[bucketStart[cellHash[i]]++] = i;
    for (let b = tableSize; b > 0; b--) bucketStart[b] = bucketStart[b - 1];
    bucketStart[0] = 0;
    const scale = -6 * poly6Coefficient(h);
    const hashes = this.cellHashes;
    let found = 0;
    for (let i = 0; i < count; i++) {
      const px = x[i];
      const py = y[i];
      const pz = z[i];
      const cx = Math.floor(px * inverseH);
      const cy = Math.floor(py * inverseH);
      const cz = Math.floor(pz * inverseH);
      let nx = 0;
      let ny = 0;
      let nz = 0;
      // The buckets of the 27 cells around; -1 for a cell outside the dense box or a repeated hash bucket.
      for (let cell = 0; cell < 27; cell++) {
        const ox = cx + (cell % 3) - 1;
        const oy = cy + (Math.floor(cell / 3) % 3) - 1;
        const oz = cz + Math.floor(cell / 9) - 1;
        if (dense) {
          const outside = ox < minX || ox > maxX || oy < minY || oy > maxY || oz < minZ || oz > maxZ;
          hashes[cell] = outside ? -1 : ((oz - minZ) * spanY + (oy - minY)) * spanX + (ox - minX);
        } else {
          const hash = hashCell(ox, oy, oz, mask);
          let seen = false;
          for (let earlier = 0; earlier < cell && !seen; earlier++) seen = hashes[earlier] === hash;
          hashes[cell] = seen ? -1 : hash;
        }
      }
      for (let cell = 0; cell < 27; cell++) {
        const hash = hashes[cell];
        if (hash < 0) continue;
        for (let place = bucketStart[hash]; place < bucketStart[hash + 1]; place++) {
          const j = order[place];
          const rx = px - x[j];
          const ry = py - y[j];
          const rz = pz - z[j];
          const r2 = rx * rx + ry * ry + rz * rz;
          if (r2 >= h2 || j === i) continue;
          const d = h2 - r2;
          const w = scale * volume[j] * d * d;
          nx += w * rx;
          ny += w * ry;
          nz += w * rz;
        }
      }
      const length = Math.sqrt(nx * nx + ny * ny + nz * nz);
      this.gradientLength[i] = length;
      if (length > this.threshold) {
        this.indices[found] = i;
        this.normals[3 * found] = -nx / length;
        this.normals[3 * found + 1] = -ny / length;
        this.normals[3 * found + 2] = -nz / length;
        found++;
      }
    }
    this.count = found;
    return found;
  }
}
