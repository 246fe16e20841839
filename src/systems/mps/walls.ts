/**
 * Walls (colliders) in the MPS solver as ghost particles that are never stored: Harada et al.'s wall
 * weight idea (2007, eq. 12) applied to the MPS weight. Behind a flat wall the virtual particles continue
 * the spawn lattice (spacing 2r, first layer r behind the surface, 4 x 4 lateral offsets averaged: the
 * layout of `wallWeightTable`), and their sums are tabulated over the distance d in [0, r_e] once:
 * - Z(d) = sum w: the ghost number density, so a particle resting on a wall (d = r) has n = n0 and is not a
 *   free surface;
 * - s(d) = sum w depth / |x|^2: the ghosts' first moment along the wall normal, for the gradient (eq. 5);
 * - a(d) = sum w depth^2 / |x|^2 and b(d) = sum w lateral^2 / |x|^2 / 2: the ghosts' second moments,
 *   normal and tangential, for the gradient of the hydrostatic ghost pressure;
 * - m(d) = sum w depth: for the ghosts' term of the Laplacian (eq. 7).
 * A ghost g of particle i carries the pressure p_g = p_i + rho g . (x_g - x_i): the particle's own pressure
 * extrapolated hydrostatically (zero normal gradient of p - rho g . x; Adami et al. 2012 use the same
 * idea for SPH walls). So the ghosts complete the particle's neighbourhood in eq. 5 and eq. 7, and a
 * particle against a wall is held by the same pressure gradient as one inside the fluid.
 * A container box counts its six faces as six walls; other shapes, meshes included, count their nearest
 * surface as one flat wall (as `computeWallWeights` does). Colliders whose `wallWeights` is 0 are left out.
 * For colliders coupled with a rigid body, each wall's share of the gradient sums is also recorded per
 * particle (`MpsCouplingList`), from which cpu.ts computes the pressure load on the body.
 */
import { ColliderShape } from '../../components';
import { WALL_WEIGHT_SAMPLES } from '../../core/kernels';
import { fluidSideDistance, fluidSidePoint } from '../collide/cpu';
import { COLLIDER_FRAME_STRIDE, type SimulationContext } from '../context';
import { addCouplingEntry, type MpsWallTables, type MpsWallTerms } from './wallTables';

const distanceScratch = new Float64Array(4);

function addWall(
  terms: MpsWallTerms,
  tables: MpsWallTables,
  full: boolean,
  samplesPerMetre: number,
  gravity: readonly number[],
  coupledSlot: number,
  i: number,
  d: number,
  nx: number,
  ny: number,
  nz: number,
): void {
  const position = (d > 0 ? d : 0) * samplesPerMetre;
  const k = position < WALL_WEIGHT_SAMPLES - 1 ? Math.floor(position) : WALL_WEIGHT_SAMPLES - 1;
  const t = position - k;
  const z = tables.numberDensity;
  terms.numberDensity[i] += z[k] + t * (z[k + 1] - z[k]);
  if (!full) return;
  const s = tables.firstMoment[k] + t * (tables.firstMoment[k + 1] - tables.firstMoment[k]);
  const a = tables.normalMoment[k] + t * (tables.normalMoment[k + 1] - tables.normalMoment[k]);
  const b = tables.tangentialMoment[k] + t * (tables.tangentialMoment[k + 1] - tables.tangentialMoment[k]);
  const m = tables.depthSum[k] + t * (tables.depthSum[k + 1] - tables.depthSum[k]);
  // Ghosts lie behind the wall: x_g - x_i = -depth n + lateral.
  terms.firstMomentX[i] -= s * nx;
  terms.firstMomentY[i] -= s * ny;
  terms.firstMomentZ[i] -= s * nz;
  const gx = gravity[0];
  const gy = gravity[1];
  const gz = gravity[2];
  const gn = gx * nx + gy * ny + gz * nz;
  // M g with M = a n n^T + b (I - n n^T).
  terms.hydrostaticX[i] += a * gn * nx + b * (gx - gn * nx);
  terms.hydrostaticY[i] += a * gn * ny + b * (gy - gn * ny);
  terms.hydrostaticZ[i] += a * gn * nz + b * (gz - gn * nz);
  terms.hydrostaticLaplacian[i] -= m * gn;
  if (coupledSlot < 0) return;
  const list = terms.coupling;
  const o = 6 * addCouplingEntry(list, i, coupledSlot);
  const moments = list.moments;
  moments[o] = -s * nx;
  moments[o + 1] = -s * ny;
  moments[o + 2] = -s * nz;
  moments[o + 3] = a * gn * nx + b * (gx - gn * nx);
  moments[o + 4] = a * gn * ny + b * (gy - gn * ny);
  moments[o + 5] = a * gn * nz + b * (gz - gn * nz);
}

/**
 * Ghost sums of every particle at positions (x, y, z) from every collider within r_e: the number density
 * only (`full` false), or with the gradient and Laplacian sums and the coupled colliders' shares of them
 * in `terms.coupling` (`full` true).
 */
export function computeMpsWallTerms(
  ctx: SimulationContext,
  tables: MpsWallTables,
  terms: MpsWallTerms,
  x: Float64Array,
  y: Float64Array,
  z: Float64Array,
  full: boolean,
): void {
  const n = ctx.solver.count;
  terms.numberDensity.fill(0, 0, n);
  if (full) {
    terms.firstMomentX.fill(0, 0, n);
    terms.firstMomentY.fill(0, 0, n);
    terms.firstMomentZ.fill(0, 0, n);
    terms.hydrostaticX.fill(0, 0, n);
    terms.hydrostaticY.fill(0, 0, n);
    terms.hydrostaticZ.fill(0, 0, n);
    terms.hydrostaticLaplacian.fill(0, 0, n);
    terms.coupling.count = 0;
  }
  const table = ctx.colliders;
  const c = ctx.components.Collider;
  const frames = table.frames;
  const re = ctx.settings.kernelRadius;
  const gravity = ctx.settings.gravity;
  const out = distanceScratch;
  const samplesPerMetre = WALL_WEIGHT_SAMPLES / re;
  for (let slot = 0; slot < table.count; slot++) {
    const eid = table.entity[slot];
    if (c.wallWeights[eid] === 0) continue;
    const o = slot * COLLIDER_FRAME_STRIDE;
    const r00 = frames[o];
    const r01 = frames[o + 1];
    const r02 = frames[o + 2];
    const r10 = frames[o + 3];
    const r11 = frames[o + 4];
    const r12 = frames[o + 5];
    const r20 = frames[o + 6];
    const r21 = frames[o + 7];
    const r22 = frames[o + 8];
    const tx = frames[o + 9];
    const ty = frames[o + 10];
    const tz = frames[o + 11];
    const scale = frames[o + 12];
    const inverseScale = 1 / scale;
    const localRe = re * inverseScale;
    const containerBox = c.shape[eid] === ColliderShape.box && c.container[eid] === 1;
    const coupledSlot = full && ctx.components.BodyCoupling.coupled[eid] === 1 ? slot : -1;
    const minX = c.ax[eid];
    const minY = c.ay[eid];
    const minZ = c.az[eid];
    const maxX = c.bx[eid];
    const maxY = c.by[eid];
    const maxZ = c.bz[eid];
    for (let i = 0; i < n; i++) {
      const wx = x[i] - tx;
      const wy = y[i] - ty;
      const wz = z[i] - tz;
      const lx = (r00 * wx + r10 * wy + r20 * wz) * inverseScale;
      const ly = (r01 * wx + r11 * wy + r21 * wz) * inverseScale;
      const lz = (r02 * wx + r12 * wy + r22 * wz) * inverseScale;
      if (containerBox) {
        const dMinX = lx - minX;
        const dMaxX = maxX - lx;
        const dMinY = ly - minY;
        const dMaxY = maxY - ly;
        const dMinZ = lz - minZ;
        const dMaxZ = maxZ - lz;
        if (dMinX < localRe)
          addWall(terms, tables, full, samplesPerMetre, gravity, coupledSlot, i, scale * dMinX, r00, r10, r20);
        if (dMaxX < localRe)
          addWall(terms, tables, full, samplesPerMetre, gravity, coupledSlot, i, scale * dMaxX, -r00, -r10, -r20);
        if (dMinY < localRe)
          addWall(terms, tables, full, samplesPerMetre, gravity, coupledSlot, i, scale * dMinY, r01, r11, r21);
        if (dMaxY < localRe)
          addWall(terms, tables, full, samplesPerMetre, gravity, coupledSlot, i, scale * dMaxY, -r01, -r11, -r21);
        if (dMinZ < localRe)
          addWall(terms, tables, full, samplesPerMetre, gravity, coupledSlot, i, scale * dMinZ, r02, r12, r22);
        if (dMaxZ < localRe)
          addWall(terms, tables, full, samplesPerMetre, gravity, coupledSlot, i, scale * dMaxZ, -r02, -r12, -r22);
        continue;
      }
      fluidSidePoint[0] = lx;
      fluidSidePoint[1] = ly;
      fluidSidePoint[2] = lz;
      fluidSideDistance(ctx, eid, fluidSidePoint, out, localRe);
      if (out[0] >= localRe) continue;
      const nx = out[1];
      const ny = out[2];
      const nz = out[3];
      addWall(
        terms,
        tables,
        full,
        samplesPerMetre,
        gravity,
        coupledSlot,
        i,
        scale * out[0],
        r00 * nx + r01 * ny + r02 * nz,
        r10 * nx + r11 * ny + r12 * nz,
        r20 * nx + r21 * ny + r22 * nz,
      );
    }
  }
}
