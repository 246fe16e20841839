/**
 * White water on the CPU (Ihmsen, Akinci, Akinci and Teschner 2012, "Unified spray, foam and bubbles for
 * particle-based fluids"; docs/white-water.md): a step-end system after `publish`, on the fluid's final
 * positions and velocities and the last substep's half neighbour lists. It changes nothing of the fluid.
 *
 * 1. Generation. Per fluid particle, from its neighbours j within h and the weight w = 1 - |x_ij| / h:
 *    - the kinetic energy per unit mass E = |v_i|^2 / 2, clamped and scaled into I_k (0: nothing more is done);
 *    - trapped air sum_j |v_ij| (1 - v^_ij . x^_ij) w, clamped and scaled into I_ta;
 *    - the outward normal n_i, the direction from the weighted centre of its neighbours (sum_j x_j w / sum_j w)
 *      to it, where that centre lies more than 0.1 h away (the surface; the paper uses the color field's
 *      gradient, which points the same way), else none; the curvature sum_j (1 - n_i . n_j) w over surface
 *      neighbours behind it (x_ji . n_i < 0), counted where it moves along its normal (v^_i . n_i >= 0.6),
 *      clamped and scaled into I_wc;
 *    - n_d = I_k (k_ta I_ta + k_wc I_wc) dt new particles (at most DIFFUSE_MOST_PER_PARTICLE), rounded up with
 *      probability its fraction, placed
 *      in the cylinder of radius r around the particle's path over the step, x_d = x_i + r_d (cos t e1 +
 *      sin t e2) + u dt v_i, with velocity v_i + r_d (cos t e1 + sin t e2) (the paper's, in its units).
 *    The clamp is Phi(I, min, max) = (min(I, max) - min(I, min)) / (max - min). The random numbers come from a
 *    hash of the particle's entity id and the step count, so runs repeat bit for bit. At the capacity the
 *    rest are dropped (`stats.diffuseDroppedCount`).
 * 2. Advection of every diffuse particle, the new ones included (the paper's order). Each one counts the fluid
 *    particles within h (a hash grid of the fluid built here) and is classified: spray below
 *    `settings.diffuseSprayNeighbours`, a bubble above `settings.diffuseBubbleNeighbours`, foam between. Spray
 *    is ballistic, v += dt (g - drag v). Foam moves with the fluid's velocity v_f interpolated at its place
 *    (weights (h^2 - r^2)^3). A bubble gets v += dt (-k_b g) + k_d (v_f - v). Then x += dt v, the colliders
 *    push it back to their fluid side (it is a point), and it ages; it is deleted when its age reaches its
 *    lifetime (the paper ages foam only; every kind ages here so that spray resting on a dry floor and bubbles
 *    held under a lid disappear too) or when it is not finite.
 */
import { fluidSideDistance, fluidSidePoint } from '../collide/cpu';
import { COLLIDER_FRAME_STRIDE, type SimulationContext } from '../context';
import { hashCell } from '../neighbours/cpu';
import {
  DIFFUSE_ALONG_NORMAL,
  DIFFUSE_MOST_PER_PARTICLE,
  DIFFUSE_SURFACE_OFFSET,
  DiffuseKind,
  type DiffuseState,
} from './state';

/** A 32-bit integer hash (the "lowbias32" mix of Wellons): the white water's random numbers. */
export function hash32(value: number): number {
  let x = value >>> 0;
  x ^= x >>> 16;
  x = Math.imul(x, 0x7feb352d);
  x ^= x >>> 15;
  x = Math.imul(x, 0x846ca68b);
  x ^= x >>> 16;
  return x >>> 0;
}

/** The clamp of the potentials: (min(I, max) - min(I, min)) / (max - min), in [0, 1]. */
export function potentialClamp(value: number, low: number, high: number): number {
  return (Math.min(value, high) - Math.min(value, low)) / (high - low);
}

/** Step-end system: generates new diffuse particles, then advects, classifies and deletes every one. */
export function diffuseSystem(ctx: SimulationContext): void {
  const state = ctx.diffuse;
  const pool = state.particles;
  const stats = ctx.stats;
  if (pool.capacity === 0) return;
  buildFluidGrid(ctx, state);
  generateDiffuse(ctx, state);
  stats.diffuseRemovedCount = advectDiffuse(ctx, state);
  let spray = 0;
  let foam = 0;
  for (let d = 0; d < pool.count; d++) {
    if (pool.kind[d] === DiffuseKind.spray) spray++;
    else if (pool.kind[d] === DiffuseKind.foam) foam++;
  }
  stats.diffuseCount = pool.count;
  stats.diffuseSprayCount = spray;
  stats.diffuseFoamCount = foam;
  stats.diffuseBubbleCount = pool.count - spray - foam;
}

/**
 * Counting sort of the fluid particles' places into the grid of cell size h (final positions): numbered
 * densely over the particles' bounding box when it has few enough cells, else hashed.
 */
function buildFluidGrid(ctx: SimulationContext, state: DiffuseState): void {
  const s = ctx.solver;
  const n = s.count;
  const inverseH = 1 / ctx.settings.kernelRadius;
  const { cellStart, cellEntries, cellOf, tableMask, grid } = state;
  let minX = 0x7fffffff;
  let minY = 0x7fffffff;
  let minZ = 0x7fffffff;
  let maxX = -0x7fffffff;
  let maxY = -0x7fffffff;
  let maxZ = -0x7fffffff;
  for (let i = 0; i < n; i++) {
    const cx = Math.floor(s.positionX[i] * inverseH);
    const cy = Math.floor(s.positionY[i] * inverseH);
    const cz = Math.floor(s.positionZ[i] * inverseH);
    if (cx < minX) minX = cx;
    if (cx > maxX) maxX = cx;
    if (cy < minY) minY = cy;
    if (cy > maxY) maxY = cy;
    if (cz < minZ) minZ = cz;
    if (cz > maxZ) maxZ = cz;
  }
  // One cell of margin on every side: a point's 27 cells then lie inside the box or it has no neighbour.
  const nx = maxX - minX + 3;
  const ny = maxY - minY + 3;
  const nz = maxZ - minZ + 3;
  grid.dense = n > 0 && nx * ny * nz <= tableMask + 1;
  grid.origin[0] = minX - 1;
  grid.origin[1] = minY - 1;
  grid.origin[2] = minZ - 1;
  grid.dims[0] = nx;
  grid.dims[1] = ny;
  grid.dims[2] = nz;
  const buckets = grid.dense ? nx * ny * nz : tableMask + 1;
  cellStart.fill(0, 0, buckets + 1);
  for (let i = 0; i < n; i++) {
    const cx = Math.floor(s.positionX[i] * inverseH);
    const cy = Math.floor(s.positionY[i] * inverseH);
    const cz = Math.floor(s.positionZ[i] * inverseH);
    const cell = grid.dense
      ? cx - grid.origin[0] + nx * (cy - grid.origin[1] + ny * (cz - grid.origin[2]))
      : hashCell(cx, cy, cz, tableMask);
    cellOf[i] = cell;
    cellStart[cell + 1]++;
  }
  for (let b = 1; b <= buckets; b++) cellStart[b] += cellStart[b - 1];
  // Fill each bucket from its end, so that cellStart[b + 1] ends at bucket b's start; then shift back.
  for (let i = n - 1; i >= 0; i--) cellEntries[--cellStart[cellOf[i] + 1]] = i;
  cellStart.copyWithin(0, 1, buckets + 1);
  cellStart[buckets] = n;
}

/** The fluid neighbours of one point: their count within h and the weighted mean of their velocity. */
const sample = { count: 0, velocityX: 0, velocityY: 0, velocityZ: 0, weightSum: 0 };

/** Adds the fluid particles of entries `start` .. `end` within h of (x, y, z) to {@link sample}. */
function sampleRange(
  ctx: SimulationContext,
  state: DiffuseState,
  start: number,
  end: number,
  x: number,
  y: number,
  z: number,
): void {
  const s = ctx.solver;
  const h = ctx.settings.kernelRadius;
  const hSquared = h * h;
  const entries = state.cellEntries;
  const { positionX, positionY, positionZ, velocityX, velocityY, velocityZ } = s;
  for (let k = start; k < end; k++) {
    const j = entries[k];
    const rx = x - positionX[j];
    const ry = y - positionY[j];
    const rz = z - positionZ[j];
    const r2 = rx * rx + ry * ry + rz * rz;
    if (r2 >= hSquared) continue;
    const q = hSquared - r2;
    const w = q * q * q;
    sample.count++;
    sample.weightSum += w;
    sample.velocityX += w * velocityX[j];
    sample.velocityY += w * velocityY[j];
    sample.velocityZ += w * velocityZ[j];
  }
}

/** Counts the fluid particles within h of (x, y, z) and interpolates their velocity into {@link sample}. */
function sampleFluid(ctx: SimulationContext, state: DiffuseState, x: number, y: number, z: number): void {
  const inverseH = 1 / ctx.settings.kernelRadius;
  const { cellStart, cellEntries, tableMask, grid } = state;
  const s = ctx.solver;
  const cx = Math.floor(x * inverseH);
  const cy = Math.floor(y * inverseH);
  const cz = Math.floor(z * inverseH);
  sample.count = 0;
  sample.weightSum = 0;
  sample.velocityX = 0;
  sample.velocityY = 0;
  sample.velocityZ = 0;
  if (grid.dense) {
    // The 27 cells as 9 rows of three consecutive cells (x fastest): one range of entries per row.
    // Indexed, not destructured: this runs for every diffuse particle, and destructuring would iterate.
    const dims = grid.dims;
    const nx = dims[0];
    const ny = dims[1];
    const nz = dims[2];
    const lx = cx - grid.origin[0];
    const ly = cy - grid.origin[1];
    const lz = cz - grid.origin[2];
    // A point in the margin still reaches the fluid's outer cells (a point beyond it reaches none); the
    // margin's cells are empty, so the rows are clipped to the box.
    if (lx >= 0 && ly >= 0 && lz >= 0 && lx < nx && ly < ny && lz < nz) {
      const firstX = Math.max(0, lx - 1);
      const lastX = Math.min(nx - 1, lx + 1);
      for (let dz = -1; dz <= 1; dz++) {
        const rowZ = lz + dz;
        if (rowZ < 0 || rowZ >= nz) continue;
        for (let dy = -1; dy <= 1; dy++) {
          const rowY = ly + dy;
          if (rowY < 0 || rowY >= ny) continue;
          const row = nx * (rowY + ny * rowZ);
          sampleRange(ctx, state, cellStart[row + firstX], cellStart[row + lastX + 1], x, y, z);
        }
      }
    }
  } else {
    const { positionX, positionY, positionZ } = s;
    for (let dz = -1; dz <= 1; dz++) {
      for (let dy = -1; dy <= 1; dy++) {
        for (let dx = -1; dx <= 1; dx++) {
          const cell = hashCell(cx + dx, cy + dy, cz + dz, tableMask);
          // Distinct cells may share a bucket: a particle counts only from its own cell, so once.
          const start = cellStart[cell];
          const end = cellStart[cell + 1];
          for (let k = start; k < end; k++) {
            const j = cellEntries[k];
            if (
              Math.floor(positionX[j] * inverseH) !== cx + dx ||
              Math.floor(positionY[j] * inverseH) !== cy + dy ||
              Math.floor(positionZ[j] * inverseH) !== cz + dz
            ) {
              continue;
            }
            sampleRange(ctx, state, k, k + 1, x, y, z);
          }
        }
      }
    }
  }
  const total = sample.weightSum;
  if (total > 0) {
    sample.velocityX /= total;
    sample.velocityY /= total;
    sample.velocityZ /= total;
  }
}

/** The kind of a diffuse particle with `count` fluid neighbours within h. */
function kindOf(ctx: SimulationContext, count: number): number {
  if (count === 0 || count < ctx.settings.diffuseSprayNeighbours) return DiffuseKind.spray;
  return count > ctx.settings.diffuseBubbleNeighbours ? DiffuseKind.bubble : DiffuseKind.foam;
}

const distanceScratch = new Float64Array(4);

/**
 * Moves the point at place `d` of the pool back to the fluid side of every collider (a point, no radius) and
 * removes its velocity into the wall.
 */
function collideDiffuse(ctx: SimulationContext, d: number): void {
  const table = ctx.colliders;
  const pool = ctx.diffuse.particles;
  const frames = table.frames;
  for (let slot = 0; slot < table.count; slot++) {
    const eid = table.entity[slot];
    const o = slot * COLLIDER_FRAME_STRIDE;
    const scale = frames[o + 12];
    const wx = pool.positionX[d] - frames[o + 9];
    const wy = pool.positionY[d] - frames[o + 10];
    const wz = pool.positionZ[d] - frames[o + 11];
    // World to local: R^T (x - t) / s.
    const lx = (frames[o] * wx + frames[o + 3] * wy + frames[o + 6] * wz) / scale;
    const ly = (frames[o + 1] * wx + frames[o + 4] * wy + frames[o + 7] * wz) / scale;
    const lz = (frames[o + 2] * wx + frames[o + 5] * wy + frames[o + 8] * wz) / scale;
    fluidSidePoint[0] = lx;
    fluidSidePoint[1] = ly;
    fluidSidePoint[2] = lz;
    fluidSideDistance(ctx, eid, fluidSidePoint, distanceScratch, 0);
    const distance = distanceScratch[0] * scale;
    if (!(distance < 0)) continue;
    // The local normal to world: R n.
    const ax = distanceScratch[1];
    const ay = distanceScratch[2];
    const az = distanceScratch[3];
    const nx = frames[o] * ax + frames[o + 1] * ay + frames[o + 2] * az;
    const ny = frames[o + 3] * ax + frames[o + 4] * ay + frames[o + 5] * az;
    const nz = frames[o + 6] * ax + frames[o + 7] * ay + frames[o + 8] * az;
    pool.positionX[d] -= distance * nx;
    pool.positionY[d] -= distance * ny;
    pool.positionZ[d] -= distance * nz;
    const into = pool.velocityX[d] * nx + pool.velocityY[d] * ny + pool.velocityZ[d] * nz;
    if (into < 0) {
      pool.velocityX[d] -= into * nx;
      pool.velocityY[d] -= into * ny;
      pool.velocityZ[d] -= into * nz;
    }
  }
}

/** Copies pool place `from` to place `to`. */
function moveDiffuse(state: DiffuseState, from: number, to: number): void {
  const p = state.particles;
  p.positionX[to] = p.positionX[from];
  p.positionY[to] = p.positionY[from];
  p.positionZ[to] = p.positionZ[from];
  p.velocityX[to] = p.velocityX[from];
  p.velocityY[to] = p.velocityY[from];
  p.velocityZ[to] = p.velocityZ[from];
  p.kind[to] = p.kind[from];
  p.age[to] = p.age[from];
  p.lifetime[to] = p.lifetime[from];
  p.material[to] = p.material[from];
}

/** Advects, collides, ages and deletes the live diffuse particles; returns how many were deleted. */
function advectDiffuse(ctx: SimulationContext, state: DiffuseState): number {
  const pool = state.particles;
  const dt = ctx.frameTimeStep;
  const [gx, gy, gz] = ctx.settings.gravity;
  const store = ctx.components.FluidMaterial;
  let removed = 0;
  let d = 0;
  while (d < pool.count) {
    const x = pool.positionX[d];
    const y = pool.positionY[d];
    const z = pool.positionZ[d];
    sampleFluid(ctx, state, x, y, z);
    const kind = kindOf(ctx, sample.count);
    const material = pool.material[d];
    let vx = pool.velocityX[d];
    let vy = pool.velocityY[d];
    let vz = pool.velocityZ[d];
    if (kind === DiffuseKind.spray) {
      const drag = store.diffuseSprayDrag[material];
      vx += dt * (gx - drag * vx);
      vy += dt * (gy - drag * vy);
      vz += dt * (gz - drag * vz);
    } else if (kind === DiffuseKind.foam) {
      vx = sample.velocityX;
      vy = sample.velocityY;
      vz = sample.velocityZ;
    } else {
      const buoyancy = store.diffuseBuoyancy[material];
      const drag = store.diffuseDrag[material];
      vx += -dt * buoyancy * gx + drag * (sample.velocityX - vx);
      vy += -dt * buoyancy * gy + drag * (sample.velocityY - vy);
      vz += -dt * buoyancy * gz + drag * (sample.velocityZ - vz);
    }
    pool.kind[d] = kind;
    pool.velocityX[d] = vx;
    pool.velocityY[d] = vy;
    pool.velocityZ[d] = vz;
    pool.positionX[d] = x + dt * vx;
    pool.positionY[d] = y + dt * vy;
    pool.positionZ[d] = z + dt * vz;
    collideDiffuse(ctx, d);
    const age = pool.age[d] + dt;
    pool.age[d] = age;
    const finite =
      Number.isFinite(pool.positionX[d] + pool.positionY[d] + pool.positionZ[d]) &&
      Number.isFinite(pool.velocityX[d] + pool.velocityY[d] + pool.velocityZ[d]);
    if (age >= pool.lifetime[d] || !finite) {
      pool.count--;
      if (d < pool.count) moveDiffuse(state, pool.count, d);
      removed++;
      continue;
    }
    d++;
  }
  return removed;
}

/**
 * The fluid particles' potentials from the half neighbour lists into `state`: trapped air and neighbour
 * weights (first pass), the outward normals, then the curvature (second pass), when some particle is fast
 * enough to generate. Returns false (and computes nothing) when no particle's kinetic energy per unit mass is
 * above its material's `diffuseEnergyMin`.
 */
export function computePotentials(ctx: SimulationContext, state: DiffuseState): boolean {
  const s = ctx.solver;
  const n = s.count;
  const store = ctx.components.FluidMaterial;
  const materialEntity = ctx.materials.entity;
  const { positionX, positionY, positionZ, velocityX, velocityY, velocityZ, neighbourStart, neighbours } = s;
  let active = false;
  for (let i = 0; i < n; i++) {
    const eid = materialEntity[s.material[i]];
    const energy = 0.5 * (velocityX[i] ** 2 + velocityY[i] ** 2 + velocityZ[i] ** 2);
    if (energy > store.diffuseEnergyMin[eid]) {
      active = true;
      break;
    }
  }
  if (!active) return false;
  const h = ctx.settings.kernelRadius;
  const inverseH = 1 / h;
  const hSquared = h * h;
  const { normalX, normalY, normalZ, weightSum, trappedAir, curvature } = state;
  normalX.fill(0, 0, n);
  normalY.fill(0, 0, n);
  normalZ.fill(0, 0, n);
  weightSum.fill(0, 0, n);
  trappedAir.fill(0, 0, n);
  curvature.fill(0, 0, n);
  // Pass 1: the weighted offsets to the neighbours (into the normal arrays), their weights, trapped air.
  for (let i = 0; i < n; i++) {
    const xi = positionX[i];
    const yi = positionY[i];
    const zi = positionZ[i];
    const end = neighbourStart[i + 1];
    for (let k = neighbourStart[i]; k < end; k++) {
      const j = neighbours[k];
      const rx = xi - positionX[j];
      const ry = yi - positionY[j];
      const rz = zi - positionZ[j];
      const r2 = rx * rx + ry * ry + rz * rz;
      if (r2 >= hSquared || r2 === 0) continue;
      const r = Math.sqrt(r2);
      const w = 1 - r * inverseH;
      normalX[i] -= w * rx;
      normalY[i] -= w * ry;
      normalZ[i] -= w * rz;
      normalX[j] += w * rx;
      normalY[j] += w * ry;
      normalZ[j] += w * rz;
      weightSum[i] += w;
      weightSum[j] += w;
      const ux = velocityX[i] - velocityX[j];
      const uy = velocityY[i] - velocityY[j];
      const uz = velocityZ[i] - velocityZ[j];
      const speed = Math.sqrt(ux * ux + uy * uy + uz * uz);
      if (speed === 0) continue;
      // |v_ij| (1 - v^_ij . x^_ij) w: the same for both particles of the pair.
      const air = (speed - (ux * rx + uy * ry + uz * rz) / r) * w;
      trappedAir[i] += air;
      trappedAir[j] += air;
    }
  }
  // The outward unit normals: from the neighbours' weighted centre to the particle, at the surface only.
  const surfaceOffset = DIFFUSE_SURFACE_OFFSET * h;
  for (let i = 0; i < n; i++) {
    const total = weightSum[i];
    const ox = normalX[i];
    const oy = normalY[i];
    const oz = normalZ[i];
    const offset = Math.sqrt(ox * ox + oy * oy + oz * oz);
    // A particle without neighbours has no surface to speak of (a lone drop): no normal.
    if (total > 0 && offset > surfaceOffset * total) {
      normalX[i] = -ox / offset;
      normalY[i] = -oy / offset;
      normalZ[i] = -oz / offset;
    } else {
      normalX[i] = 0;
      normalY[i] = 0;
      normalZ[i] = 0;
    }
  }
  // Pass 2: the curvature of the surface particles, from surface neighbours behind them.
  for (let i = 0; i < n; i++) {
    const nxi = normalX[i];
    const nyi = normalY[i];
    const nzi = normalZ[i];
    const surfaceI = nxi !== 0 || nyi !== 0 || nzi !== 0;
    const xi = positionX[i];
    const yi = positionY[i];
    const zi = positionZ[i];
    const end = neighbourStart[i + 1];
    for (let k = neighbourStart[i]; k < end; k++) {
      const j = neighbours[k];
      const nxj = normalX[j];
      const nyj = normalY[j];
      const nzj = normalZ[j];
      if (!surfaceI || (nxj === 0 && nyj === 0 && nzj === 0)) continue;
      const rx = xi - positionX[j];
      const ry = yi - positionY[j];
      const rz = zi - positionZ[j];
      const r2 = rx * rx + ry * ry + rz * rz;
      if (r2 >= hSquared || r2 === 0) continue;
      const w = 1 - Math.sqrt(r2) * inverseH;
      const bend = (1 - (nxi * nxj + nyi * nyj + nzi * nzj)) * w;
      // x_ji . n_i < 0: j lies behind i; x_ij . n_j < 0: i lies behind j.
      if (-(rx * nxi + ry * nyi + rz * nzi) < 0) curvature[i] += bend;
      if (rx * nxj + ry * nyj + rz * nzj < 0) curvature[j] += bend;
    }
  }
  return true;
}

/** The generator's state: a counter hashed per draw. */
let randomState = 0;

/** The next uniform random number in [0, 1): 24 bits of the hash, exact in float32 as on the GPU. */
function nextRandom(): number {
  randomState = hash32(randomState + 0x9e3779b9);
  return (randomState >>> 8) / 16777216;
}

/** Generates the new diffuse particles of this step (see the file's comment, item 1). */
function generateDiffuse(ctx: SimulationContext, state: DiffuseState): void {
  const stats = ctx.stats;
  stats.diffuseGeneratedCount = 0;
  stats.diffuseDroppedCount = 0;
  if (!computePotentials(ctx, state)) return;
  const s = ctx.solver;
  const n = s.count;
  const pool = state.particles;
  const dt = ctx.frameTimeStep;
  const radius = ctx.settings.particleRadius;
  const store = ctx.components.FluidMaterial;
  const materialEntity = ctx.materials.entity;
  const { positionX, positionY, positionZ, velocityX, velocityY, velocityZ } = s;
  const { normalX, normalY, normalZ, trappedAir, curvature } = state;
  const stepSeed = hash32(ctx.stats.stepCount);
  let generated = 0;
  let dropped = 0;
  for (let i = 0; i < n; i++) {
    const eid = materialEntity[s.material[i]];
    const vx = velocityX[i];
    const vy = velocityY[i];
    const vz = velocityZ[i];
    const speedSquared = vx * vx + vy * vy + vz * vz;
    const energy = potentialClamp(0.5 * speedSquared, store.diffuseEnergyMin[eid], store.diffuseEnergyMax[eid]);
    if (energy <= 0) continue;
    const speed = Math.sqrt(speedSquared);
    const air = potentialClamp(trappedAir[i], store.diffuseTrappedAirMin[eid], store.diffuseTrappedAirMax[eid]);
    const alongNormal = (vx * normalX[i] + vy * normalY[i] + vz * normalZ[i]) / speed;
    const crest =
      alongNormal >= DIFFUSE_ALONG_NORMAL
        ? potentialClamp(curvature[i], store.diffuseWaveCrestMin[eid], store.diffuseWaveCrestMax[eid])
        : 0;
    const expected = energy * (store.diffuseTrappedAirRate[eid] * air + store.diffuseWaveCrestRate[eid] * crest) * dt;
    if (!(expected > 0)) continue;
    randomState = hash32(s.entity[i] ^ stepSeed);
    const count = Math.min(DIFFUSE_MOST_PER_PARTICLE, Math.floor(expected + nextRandom()));
    if (count === 0) continue;
    // An orthonormal pair e1, e2 across the velocity.
    const ux = vx / speed;
    const uy = vy / speed;
    const uz = vz / speed;
    // a = x (or y where the velocity is nearly along x); e1 = a x u / |a x u|; e2 = u x e1.
    const alongX = Math.abs(ux) > 0.9;
    let e1x = alongX ? uz : 0;
    let e1y = alongX ? 0 : -uz;
    let e1z = alongX ? -ux : uy;
    const e1Length = Math.sqrt(e1x * e1x + e1y * e1y + e1z * e1z);
    e1x /= e1Length;
    e1y /= e1Length;
    e1z /= e1Length;
    const e2x = uy * e1z - uz * e1y;
    const e2y = uz * e1x - ux * e1z;
    const e2z = ux * e1y - uy * e1x;
    const lifetimeMin = store.diffuseLifetimeMin[eid];
    const lifetimeSpan = store.diffuseLifetimeMax[eid] - lifetimeMin;
    for (let k = 0; k < count; k++) {
      if (pool.count === pool.capacity) {
        dropped += count - k;
        break;
      }
      const across = radius * Math.sqrt(nextRandom());
      const angle = 2 * Math.PI * nextRandom();
      const along = nextRandom() * dt * speed;
      const cos = across * Math.cos(angle);
      const sin = across * Math.sin(angle);
      const ox = cos * e1x + sin * e2x;
      const oy = cos * e1y + sin * e2y;
      const oz = cos * e1z + sin * e2z;
      const d = pool.count++;
      pool.positionX[d] = positionX[i] + ox + along * ux;
      pool.positionY[d] = positionY[i] + oy + along * uy;
      pool.positionZ[d] = positionZ[i] + oz + along * uz;
      pool.velocityX[d] = vx + ox;
      pool.velocityY[d] = vy + oy;
      pool.velocityZ[d] = vz + oz;
      pool.age[d] = 0;
      pool.lifetime[d] = lifetimeMin + lifetimeSpan * nextRandom();
      pool.material[d] = eid;
      generated++;
    }
  }
  stats.diffuseGeneratedCount = generated;
  stats.diffuseDroppedCount = dropped;
}
