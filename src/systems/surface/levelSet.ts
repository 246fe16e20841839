/**
 * Level-set smoothing of the reconstructed surface over time (Premoze et al. 2003, section 4), on the
 * sparse brick grid of the surface extraction. The embedding function phi (positive inside) is carried
 * from one extraction to the next and advanced by eq. 29,
 *
 *   d phi / d tau = |grad phi| (F + mu H),
 *
 * where F is the force term that makes the interface track the particles (eq. 30) and H the mean curvature
 * of the level sets, H = div(grad phi / |grad phi|), which favours smaller area (smoothness).
 *
 * Choices made here (documented departures from the paper):
 * - F is the isotropic color field of the particles (the poly6 sum of eq. 15 of Müller et al. 2003, which
 *   the grid already holds) relative to the iso-level: F = (c_S - iso) / iso (clamped, see Units), in place
 *   of eq. 31's 1 / (1 + (d / r)^2) kernel with threshold T; the anisotropic distance of eq. 32 is not used.
 * - The paper iterates to convergence each frame from the last frame's phi. Here each extraction starts
 *   from a blend of the last phi and the particle field, phi_0 = w phi_last + (1 - w) (c_S - iso)
 *   (w = `temporalWeight`), then takes `iterations` explicit steps: a bounded cost per frame and a surface
 *   that cannot lag far behind fast water.
 * - Units: tau and the front speed are in grid cells (F = 1 moves the surface one cell per unit tau); mu is
 *   in cells. Steps are dtau = 0.2. The curvature term is stable for mu <= 0.8 (explicit diffusion limit
 *   dtau mu <= 1 / 6). The force term is stable under the upwind CFL condition dtau |F| (|n_x| + |n_y| +
 *   |n_z|) <= 1, i.e. |F| <= 1 / (sqrt(3) dtau) = 2.89 for any direction n: F is clamped to that range.
 *   F >= -1 always (c_S >= 0); F > 2.89 only where c_S > 1.94 iso, about twice the bulk value (strongly
 *   compressed particles), where the clamp only slows the front.
 * - The F term uses first-order Godunov upwinding (Osher & Sethian), the curvature term central
 *   differences (mean curvature times |grad phi|, the 3D formula with mixed derivatives).
 * - The curvature flow is volume-preserving: H is replaced by H - mean(H) over the interface nodes, since
 *   plain mean-curvature flow shrinks every convex blob (a sphere of radius R loses volume at a rate set by
 *   2 / R); this way a round drop keeps its size and only bumps are smoothed.
 * - Nodes where the color field is exactly 0 (no particle within h) are kept outside, so the surface
 *   never leaves the particles' neighbourhood and the extraction's closedness guarantee holds.
 */
import { FluidError } from '../../core/errors';
import { checkOption, SURFACE_OPTIONS } from '../../core/schema';
import { hashCell } from '../neighbours/cpu';

/** Nodes along a brick edge (matches marchingCubes.ts). */
const BRICK = 8;
const BRICK_SHIFT = 3;
const BRICK_NODES = BRICK * BRICK * BRICK;
/** A brick with a one-node halo on every side. */
const PADDED = BRICK + 2;
const PADDED_NODES = PADDED * PADDED * PADDED;
/** Pseudo-time step in grid units. */
const TIME_STEP = 0.2;
/** Largest |F| (cells per unit tau): the 3D upwind CFL bound 1 / (sqrt(3) dtau). */
const MAX_SPEED = 1 / (Math.sqrt(3) * TIME_STEP);

/** Settings of the level-set smoothing; every field is optional. */
export interface LevelSetOptions {
  /** Explicit steps of eq. 29 per extraction, an integer in [1, 50]. Default 4. */
  iterations?: number;
  /** Weight mu of the mean-curvature term (grid cells), in [0, 0.8]. Default 0.5. */
  curvatureWeight?: number;
  /** Share w of the last extraction's phi in the starting value, in [0, 0.95]. Default 0.5. */
  temporalWeight?: number;
}

/** The sparse grid of an extraction, as the smoother reads and writes it. */
export interface SparseBrickGrid {
  /** Number of bricks in use. */
  readonly brickCount: number;
  /** Brick coordinates per slot. */
  readonly brickX: Int32Array;
  /** Brick coordinates per slot. */
  readonly brickY: Int32Array;
  /** Brick coordinates per slot. */
  readonly brickZ: Int32Array;
  /** Field per node (slot * 512 + (z * 8 + y) * 8 + x): the color field in, the smoothed field out. */
  readonly values: Float32Array;
  /** The slot of brick (bx, by, bz), or -1. */
  findBrick(bx: number, by: number, bz: number): number;
}

/**
 * Validates level-set settings and fills in the defaults, without allocating a smoother's buffers. Bad
 * values throw {@link FluidError} naming the value and its range.
 */
export function resolveLevelSetOptions(options: LevelSetOptions = {}): Required<LevelSetOptions> {
  if (typeof options !== 'object' || options === null) throw new FluidError('level-set options must be an object');
  const rules = SURFACE_OPTIONS;
  return {
    iterations: checkOption('iterations', rules.iterations, options.iterations ?? rules.iterations.default),
    curvatureWeight: checkOption(
      'curvatureWeight',
      rules.curvatureWeight,
      options.curvatureWeight ?? rules.curvatureWeight.default,
    ),
    temporalWeight: checkOption(
      'temporalWeight',
      rules.temporalWeight,
      options.temporalWeight ?? rules.temporalWeight.default,
    ),
  };
}

/** Carries phi between extractions and smooths it (eq. 29). Buffers only grow. */
export class LevelSetSmoother {
  /** Steps per extraction. */
  readonly iterations: number;
  /** mu of eq. 29 (cells). */
  readonly curvatureWeight: number;
  /** w, the last phi's share of the start value. */
  readonly temporalWeight: number;
  private phi = new Float32Array(0);
  private next = new Float32Array(0);
  /** Per node: mean curvature times |grad phi|, and |grad phi| (central differences). */
  private curvature = new Float32Array(0);
  private gradient = new Float32Array(0);
  private lastCount = 0;
  private lastX = new Int32Array(0);
  private lastY = new Int32Array(0);
  private lastZ = new Int32Array(0);
  private lastPhi = new Float32Array(0);
  private lastTable = new Int32Array(64).fill(-1);
  private readonly padded = new Float64Array(PADDED_NODES);
  private readonly around = new Int32Array(27);

  /** Validates the settings (bad values throw {@link FluidError} naming the value and its range). */
  constructor(options: LevelSetOptions = {}) {
    const resolved = resolveLevelSetOptions(options);
    this.iterations = resolved.iterations;
    this.curvatureWeight = resolved.curvatureWeight;
    this.temporalWeight = resolved.temporalWeight;
  }

  /** Forgets the carried phi: the next extraction starts from the particle field alone. */
  reset(): void {
    this.lastCount = 0;
    this.lastTable.fill(-1);
  }

  /**
   * Replaces the color field in `grid.values` by the smoothed field, shifted so that the same `isoLevel`
   * is its surface (phi + iso), and keeps phi for the next call.
   */
  smooth(grid: SparseBrickGrid, isoLevel: number): void {
    const count = grid.brickCount;
    const size = count * BRICK_NODES;
    if (this.phi.length < size) {
      const grown = Math.max(size, 2 * this.phi.length);
      this.phi = new Float32Array(grown);
      this.next = new Float32Array(grown);
      this.curvature = new Float32Array(grown);
      this.gradient = new Float32Array(grown);
    }
    const values = grid.values;
    const inverseIso = 1 / isoLevel;
    // Start: the particle field, blended with the last phi where that brick existed.
    const w = this.temporalWeight;
    for (let slot = 0; slot < count; slot++) {
      const last = this.findLast(grid.brickX[slot], grid.brickY[slot], grid.brickZ[slot]);
      const base = slot * BRICK_NODES;
      const lastBase = last * BRICK_NODES;
      for (let node = 0; node < BRICK_NODES; node++) {
        const particleField = values[base + node] - isoLevel;
        this.phi[base + node] = last >= 0 ? w * this.lastPhi[lastBase + node] + (1 - w) * particleField : particleField;
      }
    }
    const mu = this.curvatureWeight;
    const padded = this.padded;
    for (let iteration = 0; iteration < this.iterations; iteration++) {
      const phi = this.phi;
      const next = this.next;
      const curvature = this.curvature;
      const gradient = this.gradient;
      let curvatureSum = 0;
      let interfaceNodes = 0;
      for (let slot = 0; slot < count; slot++) {
        this.gatherPadded(grid, slot, phi, -isoLevel);
        const base = slot * BRICK_NODES;
        for (let z = 0; z < BRICK; z++)
          for (let y = 0; y < BRICK; y++)
            for (let x = 0; x < BRICK; x++) {
              const node = base + (((z << BRICK_SHIFT) | y) << BRICK_SHIFT) + x;
              const p = ((z + 1) * PADDED + (y + 1)) * PADDED + (x + 1);
              const c = padded[p];
              const xm = padded[p - 1];
              const xp = padded[p + 1];
              const ym = padded[p - PADDED];
              const yp = padded[p + PADDED];
              const zm = padded[p - PADDED * PADDED];
              const zp = padded[p + PADDED * PADDED];
              // Force term, Godunov upwind: the front moves outward (phi grows) where F > 0. |F| is kept
              // within the CFL bound (module notes).
              const force = (values[node] - isoLevel) * inverseIso;
              const speed = force > MAX_SPEED ? MAX_SPEED : force < -MAX_SPEED ? -MAX_SPEED : force;
              const backX = c - xm;
              const forwardX = xp - c;
              const backY = c - ym;
              const forwardY = yp - c;
              const backZ = c - zm;
              const forwardZ = zp - c;
              let gradient2: number;
              if (speed > 0) {
                gradient2 =
                  Math.min(backX, 0) ** 2 +
                  Math.max(forwardX, 0) ** 2 +
                  Math.min(backY, 0) ** 2 +
                  Math.max(forwardY, 0) ** 2 +
                  Math.min(backZ, 0) ** 2 +
                  Math.max(forwardZ, 0) ** 2;
              } else {
                gradient2 =
                  Math.max(backX, 0) ** 2 +
                  Math.min(forwardX, 0) ** 2 +
                  Math.max(backY, 0) ** 2 +
                  Math.min(forwardY, 0) ** 2 +
                  Math.max(backZ, 0) ** 2 +
                  Math.min(forwardZ, 0) ** 2;
              }
              next[node] = c + TIME_STEP * speed * Math.sqrt(gradient2);
              curvature[node] = 0;
              gradient[node] = 0;
              if (mu > 0) {
                // Mean curvature times |grad phi|: (laplacian |g|^2 - g^T Hessian g) / |g|^2.
                const gx = 0.5 * (xp - xm);
                const gy = 0.5 * (yp - ym);
                const gz = 0.5 * (zp - zm);
                const g2 = gx * gx + gy * gy + gz * gz;
                if (g2 > 1e-12) {
                  const xx = xp - 2 * c + xm;
                  const yy = yp - 2 * c + ym;
                  const zz = zp - 2 * c + zm;
                  const xy =
                    0.25 *
                    (padded[p + 1 + PADDED] - padded[p + 1 - PADDED] - padded[p - 1 + PADDED] + padded[p - 1 - PADDED]);
                  const s = PADDED * PADDED;
                  const xz = 0.25 * (padded[p + 1 + s] - padded[p + 1 - s] - padded[p - 1 + s] + padded[p - 1 - s]);
                  const yz =
                    0.25 *
                    (padded[p + PADDED + s] - padded[p + PADDED - s] - padded[p - PADDED + s] + padded[p - PADDED - s]);
                  const numerator =
                    xx * (gy * gy + gz * gz) +
                    yy * (gx * gx + gz * gz) +
                    zz * (gx * gx + gy * gy) -
                    2 * (gx * gy * xy + gx * gz * xz + gy * gz * yz);
                  const length = Math.sqrt(g2);
                  curvature[node] = numerator / g2;
                  gradient[node] = length;
                  // The mean over the interface (nodes with a neighbour on the other side).
                  const inside = c > 0;
                  if (
                    xm > 0 !== inside ||
                    xp > 0 !== inside ||
                    ym > 0 !== inside ||
                    yp > 0 !== inside ||
                    zm > 0 !== inside ||
                    zp > 0 !== inside
                  ) {
                    curvatureSum += numerator / (g2 * length);
                    interfaceNodes++;
                  }
                }
              }
            }
      }
      if (mu > 0) {
        // Volume-preserving flow: the mean curvature of the interface is taken out, so a sphere stays put
        // and only bumps are smoothed.
        const meanCurvature = interfaceNodes > 0 ? curvatureSum / interfaceNodes : 0;
        for (let node = 0; node < size; node++) {
          next[node] += TIME_STEP * mu * (curvature[node] - meanCurvature * gradient[node]);
        }
      }
      this.phi = next;
      this.next = phi;
    }
    // Out: phi + iso where a particle is within h; outside (0) elsewhere. Keep phi for the next call.
    const phi = this.phi;
    for (let node = 0; node < size; node++) {
      values[node] = values[node] > 0 ? phi[node] + isoLevel : 0;
    }
    this.remember(grid);
  }

  /** Copies the padded brick of `slot` (one-node halo; `outside` where no brick is) from `field`. */
  private gatherPadded(grid: SparseBrickGrid, slot: number, field: Float32Array, outside: number): void {
    const around = this.around;
    const bx = grid.brickX[slot];
    const by = grid.brickY[slot];
    const bz = grid.brickZ[slot];
    for (let k = 0; k < 27; k++) {
      const dx = (k % 3) - 1;
      const dy = (Math.floor(k / 3) % 3) - 1;
      const dz = Math.floor(k / 9) - 1;
      around[k] = k === 13 ? slot : grid.findBrick(bx + dx, by + dy, bz + dz);
    }
    const padded = this.padded;
    for (let pz = 0; pz < PADDED; pz++) {
      const lz = pz - 1;
      const oz = lz < 0 ? 0 : lz >= BRICK ? 2 : 1;
      for (let py = 0; py < PADDED; py++) {
        const ly = py - 1;
        const oy = ly < 0 ? 0 : ly >= BRICK ? 2 : 1;
        for (let px = 0; px < PADDED; px++) {
          const lx = px - 1;
          const ox = lx < 0 ? 0 : lx >= BRICK ? 2 : 1;
          const source = around[oz * 9 + oy * 3 + ox];
          padded[(pz * PADDED + py) * PADDED + px] =
            source < 0
              ? outside
              : field[
                  source * BRICK_NODES +
                    ((((lz & (BRICK - 1)) << BRICK_SHIFT) | (ly & (BRICK - 1))) << BRICK_SHIFT) +
                    (lx & (BRICK - 1))
                ];
        }
      }
    }
  }

  /** The slot of brick (bx, by, bz) in the last extraction, or -1. */
  private findLast(bx: number, by: number, bz: number): number {
    if (this.lastCount === 0) return -1;
    const table = this.lastTable;
    const mask = table.length - 1;
    let place = hashCell(bx, by, bz, mask);
    for (;;) {
      const slot = table[place];
      if (slot < 0) return -1;
      if (this.lastX[slot] === bx && this.lastY[slot] === by && this.lastZ[slot] === bz) return slot;
      place = (place + 1) & mask;
    }
  }

  /** Keeps this extraction's bricks and phi for the next call. */
  private remember(grid: SparseBrickGrid): void {
    const count = grid.brickCount;
    if (this.lastX.length < count) {
      const size = Math.max(count, 2 * this.lastX.length);
      this.lastX = new Int32Array(size);
      this.lastY = new Int32Array(size);
      this.lastZ = new Int32Array(size);
      this.lastPhi = new Float32Array(size * BRICK_NODES);
    }
    this.lastX.set(grid.brickX.subarray(0, count));
    this.lastY.set(grid.brickY.subarray(0, count));
    this.lastZ.set(grid.brickZ.subarray(0, count));
    this.lastPhi.set(this.phi.subarray(0, count * BRICK_NODES));
    let tableSize = this.lastTable.length;
    while (tableSize < 2 * count) tableSize *= 2;
    if (tableSize !== this.lastTable.length) this.lastTable = new Int32Array(tableSize);
    const table = this.lastTable;
    table.fill(-1);
    const mask = tableSize - 1;
    for (let slot = 0; slot < count; slot++) {
      let place = hashCell(this.lastX[slot], this.lastY[slot], this.lastZ[slot], mask);
      while (table[place] >= 0) place = (place + 1) & mask;
      table[place] = slot;
    }
    this.lastCount = count;
  }
}
