/**
 * The anisotropic particles on the CPU backend (mirrored by ellipsoids.wgsl on WebGPU; docs/rendering.md,
 * "Anisotropic particles"), after Yu and Turk 2013, "Reconstructing surfaces of particle-based fluids using
 * anisotropic kernels". After a step, from the solver's half neighbour lists of its last substep and its final
 * positions: per particle the weighted mean xw and covariance C of itself and its neighbours within the kernel
 * radius h (weights w = 1 - (d / h)^3, the paper's), the principal axes of C (Jacobi rotations), and an
 * ellipsoid along them:
 *
 * - centre x + lambda (xw - x) (the paper's smoothing, `smoothing`);
 * - semi-axes proportional to the eigenvalues sigma_1 >= sigma_2 >= sigma_3, each at least sigma_1 / k_r
 *   (`maxStretch`), scaled so that the ellipsoid's volume is the drawn sphere's (radius R): an interior
 *   particle, whose covariance is isotropic, stays the sphere of radius R. (The paper scales by a constant k_s
 *   instead; keeping the volume keeps a stream as thick as its particles' volume.)
 * - fewer than N_epsilon neighbours (`minNeighbours`): a sphere of radius k_n R (`isolatedScale`);
 * - then widened along the velocity v over `motionStretch` steps of travel: M + (s dt / 2)^2 v v^T, M the
 *   shape matrix sum_k a_k a_k^T of the semi-axes a_k (the output, `ELLIPSOID_FLOATS`).
 *
 * Read by the plugin's screen-space water (plugin/ellipsoidParticles.ts) through
 * `FluidSimulation.writeEllipsoids`. Allocates nothing once its scratch arrays have the capacity.
 */
import type { SimulationContext } from '../context';
import { ELLIPSOID_FLOATS, JACOBI_SWEEPS, type ResolvedAnisotropy } from './settings';

/** Per-place sums of the covariance pass: weight, weighted offsets (3), weighted products (6), neighbours. */
export interface EllipsoidScratch {
  weight: Float64Array;
  offset: Float64Array;
  products: Float64Array;
  neighbours: Int32Array;
  /** The 3 x 3 matrix and eigenvectors of the decomposition, and the shape written (row-major). */
  readonly matrix: Float64Array;
  readonly vectors: Float64Array;
  readonly shape: Float64Array;
}

/** Empty scratch arrays (they grow to the solver's particle count on first use). */
export function createEllipsoidScratch(): EllipsoidScratch {
  return {
    weight: new Float64Array(0),
    offset: new Float64Array(0),
    products: new Float64Array(0),
    neighbours: new Int32Array(0),
    matrix: new Float64Array(9),
    vectors: new Float64Array(9),
    shape: new Float64Array(9),
  };
}

/**
 * Diagonalises the symmetric 3 x 3 `matrix` (row-major, overwritten: its diagonal ends as the eigenvalues) by
 * `JACOBI_SWEEPS` cyclic sweeps of Jacobi rotations; `vectors` receives the eigenvectors as columns. The same
 * rotations in the same order as `eigen` in ellipsoids.wgsl.
 */
export function jacobiEigen(matrix: Float64Array, vectors: Float64Array): void {
  vectors.fill(0);
  vectors[0] = 1;
  vectors[4] = 1;
  vectors[8] = 1;
  for (let sweep = 0; sweep < JACOBI_SWEEPS; sweep++) {
    rotate(matrix, vectors, 0, 1, 2);
    rotate(matrix, vectors, 0, 2, 1);
    rotate(matrix, vectors, 1, 2, 0);
  }
}

/**
 * One Jacobi rotation of the symmetric `a` in the plane (p, q) (r the third axis) that zeroes a_pq: A' = P^T A P
 * with P_pp = P_qq = c, P_pq = s, P_qp = -s, t = s / c the smaller root of t^2 + 2 theta t - 1 = 0, theta =
 * (a_qq - a_pp) / (2 a_pq); then a'_pp = a_pp - t a_pq, a'_qq = a_qq + t a_pq, and V' = V P.
 */
function rotate(a: Float64Array, v: Float64Array, p: number, q: number, r: number): void {
  const apq = a[3 * p + q];
  if (apq === 0) return;
  const theta = (a[3 * q + q] - a[3 * p + p]) / (2 * apq);
  const t = (theta >= 0 ? 1 : -1) / (Math.abs(theta) + Math.sqrt(theta * theta + 1));
  const c = 1 / Math.sqrt(t * t + 1);
  const s = t * c;
  a[3 * p + p] -= t * apq;
  a[3 * q + q] += t * apq;
  a[3 * p + q] = 0;
  a[3 * q + p] = 0;
  const arp = a[3 * r + p];
  const arq = a[3 * r + q];
  const rp = c * arp - s * arq;
  const rq = s * arp + c * arq;
  a[3 * r + p] = rp;
  a[3 * p + r] = rp;
  a[3 * r + q] = rq;
  a[3 * q + r] = rq;
  for (let k = 0; k < 9; k += 3) {
    const vkp = v[k + p];
    const vkq = v[k + q];
    v[k + p] = c * vkp - s * vkq;
    v[k + q] = s * vkp + c * vkq;
  }
}

/**
 * Writes the ellipsoid at `o`: centre (x, y, z), material slot `slot`, and shape M = `shape` plus the motion
 * stretch (stretch^2) v v^T, `stretch` = s dt / 2 (see `ELLIPSOID_FLOATS`).
 */
function writeEllipsoid(
  out: Float32Array,
  o: number,
  x: number,
  y: number,
  z: number,
  slot: number,
  shape: Float64Array,
  vx: number,
  vy: number,
  vz: number,
  stretch: number,
): void {
  const s2 = stretch * stretch;
  out[o] = x;
  out[o + 1] = y;
  out[o + 2] = z;
  out[o + 3] = slot;
  out[o + 4] = shape[0] + s2 * vx * vx;
  out[o + 5] = shape[1] + s2 * vx * vy;
  out[o + 6] = shape[2] + s2 * vx * vz;
  out[o + 7] = shape[4] + s2 * vy * vy;
  out[o + 8] = shape[5] + s2 * vy * vz;
  out[o + 9] = shape[8] + s2 * vz * vz;
  out[o + 10] = 0;
  out[o + 11] = 0;
}

/** Sets `shape` (row-major 3 x 3) to a sphere of radius `radius`: radius^2 I. */
function sphereShape(shape: Float64Array, radius: number): void {
  shape.fill(0);
  const r2 = radius * radius;
  shape[0] = r2;
  shape[4] = r2;
  shape[8] = r2;
}

/** Grows `scratch` to `count` places. */
function ensureScratch(scratch: EllipsoidScratch, count: number): void {
  if (scratch.weight.length >= count) return;
  const size = Math.max(count, 2 * scratch.weight.length);
  scratch.weight = new Float64Array(size);
  scratch.offset = new Float64Array(3 * size);
  scratch.products = new Float64Array(6 * size);
  scratch.neighbours = new Int32Array(size);
}

/**
 * Writes the ellipsoid of each of the first `count` particles of `ids` (entity ids) to `out`
 * (`ELLIPSOID_FLOATS` floats each, in the order of `ids`; see `ELLIPSOID_FLOATS`), drawn radius `radius` (m).
 * A particle the last step did not leave where it is (created, moved by a destruction's swap or by game code
 * since) is a sphere of radius `radius` at its `Position`.
 */
export function computeEllipsoids(
  ctx: SimulationContext,
  options: ResolvedAnisotropy,
  radius: number,
  ids: Uint32Array,
  count: number,
  out: Float32Array,
  scratch: EllipsoidScratch,
): void {
  const s = ctx.solver;
  // The places the last step's lists cover (see `SolverState.listedCount`).
  const n = Math.min(s.listedCount, s.count);
  ensureScratch(scratch, n);
  const { weight, offset, products, neighbours: neighbourCount, matrix, vectors, shape } = scratch;
  const { positionX, positionY, positionZ, velocityX, velocityY, velocityZ, neighbourStart, neighbours } = s;
  const h = ctx.settings.kernelRadius;
  const inverseH = 1 / h;
  const h2 = h * h;
  weight.fill(1, 0, n);
  offset.fill(0, 0, 3 * n);
  products.fill(0, 0, 6 * n);
  neighbourCount.fill(0, 0, n);
  // Each pair of the half lists adds to both particles: d = x_j - x_i to i, -d to j, d d^T to both.
  for (let i = 0; i < n; i++) {
    const end = neighbourStart[i + 1];
    const xi = positionX[i];
    const yi = positionY[i];
    const zi = positionZ[i];
    for (let k = neighbourStart[i]; k < end; k++) {
      const j = neighbours[k];
      const dx = positionX[j] - xi;
      const dy = positionY[j] - yi;
      const dz = positionZ[j] - zi;
      const r2 = dx * dx + dy * dy + dz * dz;
      if (r2 >= h2) continue;
      const q = Math.sqrt(r2) * inverseH;
      const w = 1 - q * q * q;
      weight[i] += w;
      weight[j] += w;
      neighbourCount[i]++;
      neighbourCount[j]++;
      offset[3 * i] += w * dx;
      offset[3 * i + 1] += w * dy;
      offset[3 * i + 2] += w * dz;
      offset[3 * j] -= w * dx;
      offset[3 * j + 1] -= w * dy;
      offset[3 * j + 2] -= w * dz;
      const xx = w * dx * dx;
      const xy = w * dx * dy;
      const xz = w * dx * dz;
      const yy = w * dy * dy;
      const yz = w * dy * dz;
      const zz = w * dz * dz;
      products[6 * i] += xx;
      products[6 * i + 1] += xy;
      products[6 * i + 2] += xz;
      products[6 * i + 3] += yy;
      products[6 * i + 4] += yz;
      products[6 * i + 5] += zz;
      products[6 * j] += xx;
      products[6 * j + 1] += xy;
      products[6 * j + 2] += xz;
      products[6 * j + 3] += yy;
      products[6 * j + 4] += yz;
      products[6 * j + 5] += zz;
    }
  }
  const { Position, Velocity, Particle } = ctx.components;
  const { placeOfEntity, entity } = s;
  const slotOfEntity = ctx.materials.slotOfEntity;
  const lambda = options.smoothing;
  const inverseStretch = 1 / options.maxStretch;
  const stretch = (options.motionStretch * ctx.settings.timeStep) / 2;
  for (let p = 0; p < count; p++) {
    const eid = ids[p];
    const o = ELLIPSOID_FLOATS * p;
    // The particle's material now (boiling changes it after the step's gather; so may game code).
    const slot = slotOfEntity[Particle.material[eid]];
    const i = eid < placeOfEntity.length ? placeOfEntity[eid] : -1;
    // A particle created since the last step, one that took a destroyed one's place (its arrays hold the
    // other's values) or one game code moved since: a sphere where it is.
    if (
      i < 0 ||
      i >= n ||
      entity[i] !== eid ||
      positionX[i] !== Position.x[eid] ||
      positionY[i] !== Position.y[eid] ||
      positionZ[i] !== Position.z[eid]
    ) {
      sphereShape(shape, radius);
      const vx = Velocity.x[eid];
      const vy = Velocity.y[eid];
      const vz = Velocity.z[eid];
      writeEllipsoid(out, o, Position.x[eid], Position.y[eid], Position.z[eid], slot, shape, vx, vy, vz, stretch);
      continue;
    }
    const vx = velocityX[i];
    const vy = velocityY[i];
    const vz = velocityZ[i];
    const inverseWeight = 1 / weight[i];
    const mx = offset[3 * i] * inverseWeight;
    const my = offset[3 * i + 1] * inverseWeight;
    const mz = offset[3 * i + 2] * inverseWeight;
    const cx = positionX[i] + lambda * mx;
    const cy = positionY[i] + lambda * my;
    const cz = positionZ[i] + lambda * mz;
    if (neighbourCount[i] < options.minNeighbours) {
      sphereShape(shape, options.isolatedScale * radius);
      writeEllipsoid(out, o, cx, cy, cz, slot, shape, vx, vy, vz, stretch);
      continue;
    }
    // C = sum w d d^T / sum w - m m^T (offsets from x_i, so float32 on the GPU keeps its digits).
    const c = 6 * i;
    matrix[0] = products[c] * inverseWeight - mx * mx;
    matrix[1] = products[c + 1] * inverseWeight - mx * my;
    matrix[2] = products[c + 2] * inverseWeight - mx * mz;
    matrix[4] = products[c + 3] * inverseWeight - my * my;
    matrix[5] = products[c + 4] * inverseWeight - my * mz;
    matrix[8] = products[c + 5] * inverseWeight - mz * mz;
    matrix[3] = matrix[1];
    matrix[6] = matrix[2];
    matrix[7] = matrix[5];
    jacobiEigen(matrix, vectors);
    // The eigenvalues in descending order (a, b, c: their columns).
    let a = 0;
    let b = 1;
    let e = 2;
    let swap = a;
    if (matrix[4 * b] > matrix[4 * a]) {
      swap = a;
      a = b;
      b = swap;
    }
    if (matrix[4 * e] > matrix[4 * a]) {
      swap = a;
      a = e;
      e = swap;
    }
    if (matrix[4 * e] > matrix[4 * b]) {
      swap = b;
      b = e;
      e = swap;
    }
    const largest = matrix[4 * a];
    if (!(largest > 0)) {
      sphereShape(shape, radius);
      writeEllipsoid(out, o, cx, cy, cz, slot, shape, vx, vy, vz, stretch);
      continue;
    }
    const floor = largest * inverseStretch;
    const middle = Math.max(matrix[4 * b], floor);
    const smallest = Math.max(matrix[4 * e], floor);
    const scale = radius / Math.cbrt(largest * middle * smallest);
    shape.fill(0);
    addAxis(shape, vectors, a, Math.min(radius, largest * scale));
    addAxis(shape, vectors, b, Math.min(radius, middle * scale));
    addAxis(shape, vectors, e, Math.min(radius, smallest * scale));
    writeEllipsoid(out, o, cx, cy, cz, slot, shape, vx, vy, vz, stretch);
  }
}

/** Adds a a^T to `shape` for the semi-axis a = eigenvector `column` of `vectors` times `length`. */
function addAxis(shape: Float64Array, vectors: Float64Array, column: number, length: number): void {
  const x = vectors[column] * length;
  const y = vectors[3 + column] * length;
  const z = vectors[6 + column] * length;
  shape[0] += x * x;
  shape[1] += x * y;
  shape[2] += x * z;
  shape[4] += y * y;
  shape[5] += y * z;
  shape[8] += z * z;
}
