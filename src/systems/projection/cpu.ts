/**
 * Coarse pressure projection: the global half of the incompressibility solve of the PBF solver
 * (README, "How the solver reads the papers"). The density constraints of Macklin & Müller (2013) are
 * solved by Jacobi iterations, whose corrections reach about one kernel radius per iteration: a column
 * of water 30 particles deep cannot feel its floor within the 2 x 3 iterations of a frame, sags, and
 * the corrections that catch up later throw it back up. This system gives the solve the missing global
 * reach once per substep, before the positions are predicted: it makes the particles' velocity field
 * free of divergence on a coarse staggered grid (cell size about h), the pressure projection of grid
 * solvers (a pressure Poisson equation, as MPS solves on particles, Premoze et al. 2003, eq. 14), and
 * hands the change back to the particles as an increment, so their own detail is kept. The density
 * constraints then only fix what is local.
 *
 * The projection conserves momentum exactly: each particle spreads its mass and momentum over the faces
 * around it with trilinear weights normalised over the faces that carry fluid, the faces' velocities
 * change by -grad phi / rho_f with rho_f the face's own mass per cell volume (so a light fluid is pushed
 * harder than a heavy one: buoyancy on the grid), and each particle takes back the same weighted sum:
 * the momentum the particles gain is then sum_f M_f dv_f = -H^2 sum_f (phi_b - phi_a), which telescopes to
 * the pressure at the walls. That part, and the velocity change of the faces on a collider, is what a
 * coupled collider receives.
 *
 * One substep, in order (each a function below, the WGSL passes mirror them):
 * 1. plan: the grid covers the particles' bounding box with two cells of margin, cell size
 *    `projectionCellSize` doubled up to three times until the box fits `maxCells`;
 * 2. occupancy: each particle marks its cell as fluid;
 * 3. cells: every cell centre's nearest collider; a cell without particles is solid where that collider's
 *    surface lies between it and the fluid side, else air;
 * 4. faces: a face between a solid and another cell, or across a wall thinner than a cell, is solid (the
 *    collider's surface velocity along the axis); a face with fluid on a side is open; else dead;
 * 5. scatter: each particle adds m w and m w v (w: trilinear weights normalised over the non-dead faces)
 *    to the faces of each axis, and, with a full neighbourhood, its density error of the last solve to its
 *    cell;
 * 6. solve: A phi = b over the fluid cells, A phi = sum over open faces of (H^2 / M_f) (phi_c - phi_n)
 *    (phi = 0 in air), b the divergence target minus the divergence of the face velocities; the target
 *    is beta (rho / rho0 - 1) H / dt, which spreads a compressed cell and draws fluid into an expanded one
 *    (beta per substep); Jacobi-preconditioned conjugate gradients from the last substep's phi when the grid
 *    is the same (phi = p dt does not change in water at rest);
 * 7. changes: dv_f = -(phi_b - phi_a) H^2 / M_f on open faces, the collider's velocity minus the fluid's on
 *    solid faces;
 * 8. gather: each particle gets the weighted changes: v += dv, x* += dt dv; coupled colliders receive
 *    minus what their faces gave the fluid.
 */
import { colliderSurfaceVelocity, fluidSideDistance } from '../collide/cpu';
import { COLLIDER_FRAME_STRIDE, type SimulationContext } from '../context';
import { ColliderShape } from '../../components';
import { addBodyImpulse } from '../couple/cpu';
import {
  CellType,
  CLOSED_FACE_MASS,
  FaceKind,
  GRID_MARGIN,
  MAX_COARSENING,
  type ProjectionPlan,
  type ProjectionState,
} from './state';

/**
 * A face between two cells that both lie within a cell of the same collider, whose normals point away
 * from each other along the face's axis by more than this cosine, crosses a wall thinner than a cell (a
 * glass): it is solid.
 */
const THIN_WALL_NORMAL = 0.5;

/**
 * A cell is fluid when its particles' rest volumes fill at least this fraction of it: its centre is then
 * in the liquid, so the free surface (phi = 0 in the air cells) lies within half a cell of where the
 * particles end. Sparser cells are air; their particles take the changes of the faces around them.
 */
const FLUID_CELL_FILL = 0.5;

/**
 * Step 1: the grid over the particles' start-of-substep positions. Returns false when there are no
 * particles. A box too large for `maxCells` even at the coarsest size is cut around its centre (the
 * particles outside get no projection: spray far from the water).
 */
export function planGrid(ctx: SimulationContext, state: ProjectionState): boolean {
  const s = ctx.solver;
  const n = s.count;
  if (n === 0) return false;
  const base = ctx.settings.projectionCellSize;
  const inverse = 1 / base;
  const low = [Number.POSITIVE_INFINITY, Number.POSITIVE_INFINITY, Number.POSITIVE_INFINITY];
  const high = [Number.NEGATIVE_INFINITY, Number.NEGATIVE_INFINITY, Number.NEGATIVE_INFINITY];
  const positions = [s.positionX, s.positionY, s.positionZ];
  for (let a = 0; a < 3; a++) {
    const p = positions[a];
    let lo = low[a];
    let hi = high[a];
    for (let i = 0; i < n; i++) {
      const c = Math.floor(p[i] * inverse);
      if (c < lo) lo = c;
      if (c > hi) hi = c;
    }
    low[a] = lo;
    high[a] = hi;
  }
  // Coupled bodies with a mass are rigid fluid (see classifyCells): the grid covers them whole.
  const coupling = ctx.components.BodyCoupling;
  for (let slot = 0; slot < ctx.colliders.count; slot++) {
    const eid = ctx.colliders.entity[slot];
    if (coupling.coupled[eid] !== 1 || !(coupling.mass[eid] > 0)) continue;
    colliderWorldBounds(ctx, slot, bounds);
    for (let a = 0; a < 3; a++) {
      low[a] = Math.min(low[a], Math.floor(bounds[a] * inverse));
      high[a] = Math.max(high[a], Math.floor(bounds[a + 3] * inverse));
    }
  }
  const plan = state.plan;
  for (let level = 0; level <= MAX_COARSENING; level++) {
    const factor = 1 << level;
    let cells = 1;
    for (let a = 0; a < 3; a++) {
      const from = Math.floor(low[a] / factor) - GRID_MARGIN;
      const to = Math.floor(high[a] / factor) + GRID_MARGIN;
      plan.origin[a] = from;
      plan.dims[a] = to - from + 1;
      cells *= plan.dims[a];
    }
    plan.cellSize = base * factor;
    plan.cells = cells;
    if (cells <= state.maxCells) return true;
  }
  // Still too large: shrink the longest axis around its centre until the grid fits.
  while (plan.cells > state.maxCells) {
    let a = 0;
    if (plan.dims[1] > plan.dims[a]) a = 1;
    if (plan.dims[2] > plan.dims[a]) a = 2;
    const cut = Math.max(1, Math.ceil(plan.dims[a] * (1 - state.maxCells / plan.cells)));
    plan.origin[a] += cut >> 1;
    plan.dims[a] -= cut;
    plan.cells = plan.dims[0] * plan.dims[1] * plan.dims[2];
  }
  return true;
}

const bounds = new Float64Array(6);

/**
 * World bounding box (min xyz, max xyz) of a box, sphere, capsule or mesh collider in its end-of-substep
 * pose, from its local bounds' eight corners; a plane gives an empty box.
 */
function colliderWorldBounds(ctx: SimulationContext, slot: number, out: Float64Array): void {
  const c = ctx.components.Collider;
  const eid = ctx.colliders.entity[slot];
  const shape = c.shape[eid];
  let lo: [number, number, number];
  let hi: [number, number, number];
  if (shape === ColliderShape.box) {
    lo = [c.ax[eid], c.ay[eid], c.az[eid]];
    hi = [c.bx[eid], c.by[eid], c.bz[eid]];
  } else if (shape === ColliderShape.mesh) {
    const field = ctx.colliders.fields[c.field[eid]];
    if (field === undefined) {
      out.fill(0);
      out[0] = out[1] = out[2] = Number.POSITIVE_INFINITY;
      out[3] = out[4] = out[5] = Number.NEGATIVE_INFINITY;
      return;
    }
    lo = [...field.min];
    hi = [...field.max];
  } else if (shape === ColliderShape.plane) {
    out[0] = out[1] = out[2] = Number.POSITIVE_INFINITY;
    out[3] = out[4] = out[5] = Number.NEGATIVE_INFINITY;
    return;
  } else {
    const r = c.radius[eid];
    const b = shape === ColliderShape.capsule ? [c.bx[eid], c.by[eid], c.bz[eid]] : [c.ax[eid], c.ay[eid], c.az[eid]];
    lo = [Math.min(c.ax[eid], b[0]) - r, Math.min(c.ay[eid], b[1]) - r, Math.min(c.az[eid], b[2]) - r];
    hi = [Math.max(c.ax[eid], b[0]) + r, Math.max(c.ay[eid], b[1]) + r, Math.max(c.az[eid], b[2]) + r];
  }
  const f = ctx.colliders.frames;
  const o = slot * COLLIDER_FRAME_STRIDE;
  const scale = f[o + 12];
  out[0] = out[1] = out[2] = Number.POSITIVE_INFINITY;
  out[3] = out[4] = out[5] = Number.NEGATIVE_INFINITY;
  for (let k = 0; k < 8; k++) {
    const x = k & 1 ? hi[0] : lo[0];
    const y = k & 2 ? hi[1] : lo[1];
    const z = k & 4 ? hi[2] : lo[2];
    for (let a = 0; a < 3; a++) {
      const w = scale * (f[o + 3 * a] * x + f[o + 3 * a + 1] * y + f[o + 3 * a + 2] * z) + f[o + 9 + a];
      if (w < out[a]) out[a] = w;
      if (w > out[a + 3]) out[a + 3] = w;
    }
  }
}

/** The particle's cell if its whole stencil (one cell on every side) lies inside the grid, else -1. */
function stencilCell(gx: number, gy: number, gz: number, dims: Int32Array): number {
  const cx = Math.floor(gx);
  const cy = Math.floor(gy);
  const cz = Math.floor(gz);
  if (cx < 1 || cy < 1 || cz < 1 || cx > dims[0] - 2 || cy > dims[1] - 2 || cz > dims[2] - 2) return -1;
  return (cz * dims[1] + cy) * dims[0] + cx;
}

/** Step 2: fluid cells, from the particles' start-of-substep positions. */
export function markFluidCells(ctx: SimulationContext, state: ProjectionState): void {
  const s = ctx.solver;
  const n = s.count;
  const { plan, type, count, cellMass } = state;
  type.fill(CellType.air, 0, plan.cells);
  count.fill(0, 0, plan.cells);
  cellMass.fill(0, 0, plan.cells);
  const inverse = 1 / plan.cellSize;
  const [ox, oy, oz] = plan.origin;
  const volume = state.errorSum; // per cell: the particles' rest volume (reused; the scatter refills it)
  volume.fill(0, 0, plan.cells);
  const inverseRestDensity = ctx.materials.inverseRestDensity;
  for (let i = 0; i < n; i++) {
    const cell = stencilCell(s.positionX[i] * inverse - ox, s.positionY[i] * inverse - oy, s.positionZ[i] * inverse - oz, plan.dims);
    if (cell < 0) continue;
    count[cell]++;
    cellMass[cell] += s.mass[i];
    volume[cell] += s.mass[i] * inverseRestDensity[s.material[i]];
  }
  const half = FLUID_CELL_FILL * plan.cellSize ** 3;
  for (let c = 0; c < plan.cells; c++) if (volume[c] >= half) type[c] = CellType.fluid;
}

const sample = new Float64Array(4);
const surfaceVelocity = new Float64Array(3);

/** Fluid-side distance (m) of world point p to collider `slot` and the world normal, into `sample`. */
function worldDistance(ctx: SimulationContext, slot: number, px: number, py: number, pz: number): void {
  const frames = ctx.colliders.frames;
  const o = slot * COLLIDER_FRAME_STRIDE;
  const wx = px - frames[o + 9];
  const wy = py - frames[o + 10];
  const wz = pz - frames[o + 11];
  const scale = frames[o + 12];
  const inverseScale = 1 / scale;
  const lx = (frames[o] * wx + frames[o + 3] * wy + frames[o + 6] * wz) * inverseScale;
  const ly = (frames[o + 1] * wx + frames[o + 4] * wy + frames[o + 7] * wz) * inverseScale;
  const lz = (frames[o + 2] * wx + frames[o + 5] * wy + frames[o + 8] * wz) * inverseScale;
  fluidSideDistance(ctx, ctx.colliders.entity[slot], lx, ly, lz, sample);
  const nx = sample[1];
  const ny = sample[2];
  const nz = sample[3];
  sample[0] *= scale;
  sample[1] = frames[o] * nx + frames[o + 1] * ny + frames[o + 2] * nz;
  sample[2] = frames[o + 3] * nx + frames[o + 4] * ny + frames[o + 5] * nz;
  sample[3] = frames[o + 6] * nx + frames[o + 7] * ny + frames[o + 8] * nz;
}

/** Cell coordinates (x, y, z) of cell index c into `out`. */
function cellCoordinates(c: number, dims: Int32Array, out: Int32Array): void {
  const nx = dims[0];
  const ny = dims[1];
  out[0] = c % nx;
  out[1] = Math.floor(c / nx) % ny;
  out[2] = Math.floor(c / (nx * ny));
}

const coordinates = new Int32Array(3);

/** Step 3: every cell centre's nearest collider; empty cells on a collider's far side are solid. */
export function classifyCells(ctx: SimulationContext, state: ProjectionState): void {
  const { plan, type, distance, nearest, normalX, normalY, normalZ, cellBody, bodyCells, bodyDensity } = state;
  const coupling = ctx.components.BodyCoupling;
  bodyCells.fill(0, 0, ctx.colliders.count);
  const size = plan.cellSize;
  const [ox, oy, oz] = plan.origin;
  const colliders = ctx.colliders.count;
  for (let c = 0; c < plan.cells; c++) {
    nearest[c] = -1;
    cellBody[c] = -1;
    distance[c] = Number.POSITIVE_INFINITY;
    if (colliders === 0) continue;
    cellCoordinates(c, plan.dims, coordinates);
    const px = (coordinates[0] + ox + 0.5) * size;
    const py = (coordinates[1] + oy + 0.5) * size;
    const pz = (coordinates[2] + oz + 0.5) * size;
    for (let slot = 0; slot < colliders; slot++) {
      worldDistance(ctx, slot, px, py, pz);
      if (sample[0] < distance[c]) {
        distance[c] = sample[0];
        nearest[c] = slot;
        normalX[c] = sample[1];
        normalY[c] = sample[2];
        normalZ[c] = sample[3];
      }
    }
    cellBody[c] = -1;
    if (type[c] !== CellType.air || distance[c] >= 0) continue;
    const eid = ctx.colliders.entity[nearest[c]];
    const inside =
      coordinates[0] > 0 &&
      coordinates[1] > 0 &&
      coordinates[2] > 0 &&
      coordinates[0] < plan.dims[0] - 1 &&
      coordinates[1] < plan.dims[1] - 1 &&
      coordinates[2] < plan.dims[2] - 1;
    if (inside && coupling.coupled[eid] === 1 && coupling.mass[eid] > 0) {
      type[c] = CellType.fluid;
      cellBody[c] = nearest[c];
      bodyCells[nearest[c]]++;
    } else {
      type[c] = CellType.solid;
    }
  }
  const volume = size ** 3;
  for (let slot = 0; slot < ctx.colliders.count; slot++) {
    const cells = bodyCells[slot];
    bodyDensity[slot] = cells > 0 ? coupling.mass[ctx.colliders.entity[slot]] / (cells * volume) : 0;
  }
}

/** Step 4: the kind of every face and the velocity of the solid ones. */
export function classifyFaces(ctx: SimulationContext, state: ProjectionState): void {
  const { plan, type, distance, nearest, faceKind, velocity } = state;
  const normals = [state.normalX, state.normalY, state.normalZ];
  const dims = plan.dims;
  const strides = [1, dims[0], dims[0] * dims[1]];
  const size = plan.cellSize;
  const [ox, oy, oz] = plan.origin;
  for (let a = 0; a < 3; a++) {
    const stride = strides[a];
    const kind = faceKind[a];
    const u = velocity[a];
    const normal = normals[a];
    for (let c = 0; c < plan.cells; c++) {
      kind[c] = FaceKind.dead;
      u[c] = 0;
      const below = c - stride;
      if (below < 0) continue;
      const ta = type[below];
      const tb = type[c];
      if (ta !== CellType.fluid && tb !== CellType.fluid) continue;
      let slot = -1;
      if (ta === CellType.solid) slot = nearest[below];
      else if (tb === CellType.solid) slot = nearest[c];
      else if (
        nearest[below] >= 0 &&
        nearest[below] === nearest[c] &&
        distance[below] > 0 &&
        distance[c] > 0 &&
        distance[below] + distance[c] < size &&
        normal[below] < -THIN_WALL_NORMAL &&
        normal[c] > THIN_WALL_NORMAL
      ) {
        slot = nearest[c];
      }
      if (slot < 0) {
        kind[c] = FaceKind.open;
        continue;
      }
      kind[c] = slot;
      cellCoordinates(c, dims, coordinates);
      // The face centre: the lower face of cell c along axis a.
      const px = (coordinates[0] + ox + (a === 0 ? 0 : 0.5)) * size;
      const py = (coordinates[1] + oy + (a === 1 ? 0 : 0.5)) * size;
      const pz = (coordinates[2] + oz + (a === 2 ? 0 : 0.5)) * size;
      colliderSurfaceVelocity(ctx, slot, px, py, pz, surfaceVelocity);
      // A collider coupled with a rigid body is a still wall here (see bodyImpulses).
      u[c] = ctx.components.BodyCoupling.coupled[ctx.colliders.entity[slot]] === 1 ? 0 : surfaceVelocity[a];
    }
  }
}

/** The 8 faces of one axis around a particle and their weights, normalised over non-dead faces. */
interface Stencil {
  readonly face: Int32Array;
  readonly weight: Float64Array;
}

const stencil: Stencil = { face: new Int32Array(8), weight: new Float64Array(8) };

/**
 * The faces of axis a around grid point (gx, gy, gz) and their trilinear weights, normalised over the
 * faces that are not dead (all zero when every face is dead). Face coordinates of axis a are integer
 * along a (the cell's lower face) and cell centres (half-integers) across.
 */
function faceStencil(state: ProjectionState, a: number, gx: number, gy: number, gz: number, out: Stencil): void {
  const dims = state.plan.dims;
  const nx = dims[0];
  const nxy = dims[0] * dims[1];
  const fx = a === 0 ? gx : gx - 0.5;
  const fy = a === 1 ? gy : gy - 0.5;
  const fz = a === 2 ? gz : gz - 0.5;
  const bx = Math.floor(fx);
  const by = Math.floor(fy);
  const bz = Math.floor(fz);
  const tx = fx - bx;
  const ty = fy - by;
  const tz = fz - bz;
  const base = bz * nxy + by * nx + bx;
  const kind = state.faceKind[a];
  let total = 0;
  for (let k = 0; k < 8; k++) {
    const dx = k & 1;
    const dy = (k >> 1) & 1;
    const dz = k >> 2;
    const f = base + dz * nxy + dy * nx + dx;
    const w = kind[f] === FaceKind.dead ? 0 : (dx ? tx : 1 - tx) * (dy ? ty : 1 - ty) * (dz ? tz : 1 - tz);
    out.face[k] = f;
    out.weight[k] = w;
    total += w;
  }
  const scale = total > 0 ? 1 / total : 0;
  for (let k = 0; k < 8; k++) out.weight[k] *= scale;
}

/** Step 5: mass and momentum on the faces, density errors in the cells. */
export function scatterToGrid(ctx: SimulationContext, state: ProjectionState): void {
  const s = ctx.solver;
  const n = s.count;
  const { plan, mass, momentum, errorSum, errorCount } = state;
  for (let a = 0; a < 3; a++) {
    mass[a].fill(0, 0, plan.cells);
    momentum[a].fill(0, 0, plan.cells);
  }
  errorSum.fill(0, 0, plan.cells);
  errorCount.fill(0, 0, plan.cells);
  const inverse = 1 / plan.cellSize;
  const [ox, oy, oz] = plan.origin;
  const full = ctx.lattice.fullNeighbourhood;
  const velocities = [s.velocityX, s.velocityY, s.velocityZ];
  for (let i = 0; i < n; i++) {
    const gx = s.positionX[i] * inverse - ox;
    const gy = s.positionY[i] * inverse - oy;
    const gz = s.positionZ[i] * inverse - oz;
    const cell = stencilCell(gx, gy, gz, plan.dims);
    if (cell < 0) continue;
    if (s.neighbourCount[i] >= full) {
      errorSum[cell] += s.constraint[i];
      errorCount[cell]++;
    }
    const m = s.mass[i];
    for (let a = 0; a < 3; a++) {
      faceStencil(state, a, gx, gy, gz, stencil);
      const v = m * velocities[a][i];
      const ma = mass[a];
      const pa = momentum[a];
      for (let k = 0; k < 8; k++) {
        const w = stencil.weight[k];
        if (w === 0) continue;
        ma[stencil.face[k]] += m * w;
        pa[stencil.face[k]] += v * w;
      }
    }
  }
  scatterBodies(ctx, state);
}

/**
 * The rigid-fluid cells' share of the faces: each adds half its mass (the body's density times the cell's
 * volume) to each of its six faces, moving with the body's surface velocity at the face centre.
 */
function scatterBodies(ctx: SimulationContext, state: ProjectionState): void {
  const { plan, cellBody, bodyDensity, faceKind, mass, momentum } = state;
  const dims = plan.dims;
  const strides = [1, dims[0], dims[0] * dims[1]];
  const size = plan.cellSize;
  const [ox, oy, oz] = plan.origin;
  for (let c = 0; c < plan.cells; c++) {
    const slot = cellBody[c];
    if (slot < 0) continue;
    const share = 0.5 * bodyDensity[slot] * size ** 3;
    cellCoordinates(c, dims, coordinates);
    for (let a = 0; a < 3; a++) {
      for (let side = 0; side < 2; side++) {
        const f = c + side * strides[a];
        if (faceKind[a][f] === FaceKind.dead) continue;
        const px = (coordinates[0] + ox + (a === 0 ? side : 0.5)) * size;
        const py = (coordinates[1] + oy + (a === 1 ? side : 0.5)) * size;
        const pz = (coordinates[2] + oz + (a === 2 ? side : 0.5)) * size;
        colliderSurfaceVelocity(ctx, slot, px, py, pz, surfaceVelocity);
        mass[a][f] += share;
        momentum[a][f] += share * surfaceVelocity[a];
      }
    }
  }
}

/** The mass (kg) below which a face is closed: CLOSED_FACE_MASS times the lightest fluid's mass per cell. */
function closedFaceMass(ctx: SimulationContext, cellSize: number): number {
  const m = ctx.materials;
  let lightest = Number.POSITIVE_INFINITY;
  for (let slot = 0; slot < m.count; slot++) lightest = Math.min(lightest, 1 / m.inverseRestDensity[slot]);
  const bodies = ctx.projection.bodyDensity;
  for (let slot = 0; slot < ctx.colliders.count; slot++) if (bodies[slot] > 0) lightest = Math.min(lightest, bodies[slot]);
  return CLOSED_FACE_MASS * lightest * cellSize ** 3;
}

/** True when `plan` and `previous` describe the same grid. */
function samePlan(plan: ProjectionPlan, previous: ProjectionPlan): boolean {
  return (
    plan.cellSize === previous.cellSize &&
    plan.origin[0] === previous.origin[0] &&
    plan.origin[1] === previous.origin[1] &&
    plan.origin[2] === previous.origin[2] &&
    plan.dims[0] === previous.dims[0] &&
    plan.dims[1] === previous.dims[1] &&
    plan.dims[2] === previous.dims[2]
  );
}

/**
 * Step 6: face velocities (momentum / mass; the collider's on solid faces), closed faces, and
 * A phi = b over the fluid cells by Jacobi-preconditioned conjugate gradients.
 */
export function solvePressure(ctx: SimulationContext, state: ProjectionState): void {
  const { plan, type, faceKind, mass, momentum, velocity, errorSum, errorCount, diagonal, phi, rightHandSide } = state;
  const { residual, preconditioned, direction, product } = state;
  const cells = plan.cells;
  const strides = [1, plan.dims[0], plan.dims[0] * plan.dims[1]];
  const size = plan.cellSize;
  const area = size * size;
  const closedMass = closedFaceMass(ctx, size);
  for (let a = 0; a < 3; a++) {
    const kind = faceKind[a];
    for (let c = 0; c < cells; c++) {
      if (kind[c] !== FaceKind.open) continue;
      if (mass[a][c] < closedMass) kind[c] = FaceKind.closed;
      else velocity[a][c] = momentum[a][c] / mass[a][c];
    }
  }
  const relaxation = (ctx.settings.projectionDensityRelaxation * size) / ctx.substepTimeStep;
  const warm = samePlan(plan, state.previousPlan);
  let normB = 0;
  for (let c = 0; c < cells; c++) {
    if (type[c] !== CellType.fluid) {
      phi[c] = 0;
      rightHandSide[c] = 0;
      diagonal[c] = 0;
      continue;
    }
    if (!warm) phi[c] = 0;
    let divergence = 0;
    let d = 0;
    for (let a = 0; a < 3; a++) {
      const upper = c + strides[a];
      const u = velocity[a];
      // Closed faces neither carry flux nor change; their velocity counts as zero.
      if (faceKind[a][upper] !== FaceKind.closed) divergence += u[upper];
      if (faceKind[a][c] !== FaceKind.closed) divergence -= u[c];
      if (faceKind[a][upper] === FaceKind.open) d += area / mass[a][upper];
      if (faceKind[a][c] === FaceKind.open) d += area / mass[a][c];
    }
    const error = errorCount[c] > 0 ? errorSum[c] / errorCount[c] : 0;
    const b = relaxation * error - divergence;
    rightHandSide[c] = b;
    diagonal[c] = d;
    normB += b * b;
  }
  normB = Math.sqrt(normB);
  state.iterations = 0;
  state.relativeResidual = 0;
  if (!(normB > 0)) {
    phi.fill(0, 0, cells);
    return;
  }
  const applyA = (x: Float64Array, out: Float64Array): void => {
    for (let c = 0; c < cells; c++) {
      if (type[c] !== CellType.fluid) {
        out[c] = 0;
        continue;
      }
      let sum = diagonal[c] * x[c];
      for (let a = 0; a < 3; a++) {
        const upper = c + strides[a];
        const lower = c - strides[a];
        if (faceKind[a][upper] === FaceKind.open) sum -= (area / mass[a][upper]) * x[upper];
        if (faceKind[a][c] === FaceKind.open) sum -= (area / mass[a][c]) * x[lower];
      }
      out[c] = sum;
    }
  };
  applyA(phi, product);
  let rz = 0;
  let rr = 0;
  for (let c = 0; c < cells; c++) {
    const r = type[c] === CellType.fluid ? rightHandSide[c] - product[c] : 0;
    residual[c] = r;
    const z = diagonal[c] > 0 ? r / diagonal[c] : 0;
    preconditioned[c] = z;
    direction[c] = z;
    rz += r * z;
    rr += r * r;
  }
  const tolerance = ctx.settings.projectionTolerance * normB;
  const maxIterations = ctx.settings.projectionMaxIterations;
  let iteration = 0;
  while (Math.sqrt(rr) > tolerance && iteration < maxIterations) {
    applyA(direction, product);
    let pAp = 0;
    for (let c = 0; c < cells; c++) pAp += direction[c] * product[c];
    if (!(pAp > 0)) break;
    const alpha = rz / pAp;
    let rzNext = 0;
    rr = 0;
    for (let c = 0; c < cells; c++) {
      phi[c] += alpha * direction[c];
      const r = residual[c] - alpha * product[c];
      residual[c] = r;
      const z = diagonal[c] > 0 ? r / diagonal[c] : 0;
      preconditioned[c] = z;
      rzNext += r * z;
      rr += r * r;
    }
    const beta = rzNext / rz;
    rz = rzNext;
    for (let c = 0; c < cells; c++) direction[c] = preconditioned[c] + beta * direction[c];
    iteration++;
  }
  state.iterations = iteration;
  state.relativeResidual = Math.sqrt(rr) / normB;
}

/** Step 7: each face's velocity change. */
export function faceChanges(state: ProjectionState): void {
  const { plan, type, faceKind, phi, mass, momentum, velocity, change } = state;
  const strides = [1, plan.dims[0], plan.dims[0] * plan.dims[1]];
  const area = plan.cellSize * plan.cellSize;
  for (let a = 0; a < 3; a++) {
    const stride = strides[a];
    const kind = faceKind[a];
    const d = change[a];
    for (let c = 0; c < plan.cells; c++) {
      const k = kind[c];
      if (k === FaceKind.open) {
        const below = c - stride;
        const upper = type[c] === CellType.fluid ? phi[c] : 0;
        const lower = type[below] === CellType.fluid ? phi[below] : 0;
        d[c] = (-(upper - lower) * area) / mass[a][c];
      } else if (k >= 0) {
        const average = mass[a][c] > 0 ? momentum[a][c] / mass[a][c] : 0;
        d[c] = velocity[a][c] - average;
      } else {
        d[c] = 0;
      }
    }
  }
}

/**
 * Step 8: each particle inside the grid gets the weighted changes: v += dv, x* += dt dv. A coupled
 * collider receives minus what its solid faces gave the fluid: M_f dv_f plus the pressure the telescoped
 * open faces leave at it, H^2 (phi of the fluid cell above the face - phi of the one below).
 */
export function gatherFromGrid(ctx: SimulationContext, state: ProjectionState): void {
  const s = ctx.solver;
  const n = s.count;
  const { plan, change } = state;
  const inverse = 1 / plan.cellSize;
  const [ox, oy, oz] = plan.origin;
  const dt = ctx.substepTimeStep;
  const velocities = [s.velocityX, s.velocityY, s.velocityZ];
  const predicted = [s.predictedX, s.predictedY, s.predictedZ];
  for (let i = 0; i < n; i++) {
    const gx = s.positionX[i] * inverse - ox;
    const gy = s.positionY[i] * inverse - oy;
    const gz = s.positionZ[i] * inverse - oz;
    if (stencilCell(gx, gy, gz, plan.dims) < 0) continue;
    for (let a = 0; a < 3; a++) {
      faceStencil(state, a, gx, gy, gz, stencil);
      const d = change[a];
      let dv = 0;
      for (let k = 0; k < 8; k++) dv += stencil.weight[k] * d[stencil.face[k]];
      velocities[a][i] += dv;
      predicted[a][i] += dt * dv;
    }
  }
  bodyImpulses(ctx, state);
}

/**
 * The pressure a coupled collider's solid faces feel, as impulses on its body: H^2 phi on each face beside
 * a fluid cell, phi extrapolated linearly from that cell and the next to the face, towards the collider.
 * The projection treats such a collider as a still wall: handing the body the velocity changes its moving
 * faces give the fluid (momentum-exact) feeds its velocity back into the next solve explicitly, which
 * diverges for bodies lighter than the water they push (the added-mass instability of staggered
 * coupling). The density constraints, which move the fluid around the body with the body's own velocity
 * (collisions, wall weights, contact response), hand the body those impulses as before (couple/cpu.ts).
 */
function bodyImpulses(ctx: SimulationContext, state: ProjectionState): void {
  const coupling = ctx.components.BodyCoupling;
  const table = ctx.colliders;
  let any = false;
  for (let slot = 0; slot < table.count; slot++) if (coupling.coupled[table.entity[slot]] === 1) any = true;
  if (!any) return;
  const { plan, type, faceKind, phi, change, cellBody, bodyDensity } = state;
  const strides = [1, plan.dims[0], plan.dims[0] * plan.dims[1]];
  const size = plan.cellSize;
  const area = size * size;
  for (let a = 0; a < 3; a++) {
    const stride = strides[a];
    for (let c = stride; c < plan.cells; c++) {
      const below = c - stride;
      const kind = faceKind[a][c];
      let j = 0;
      let slot = -1;
      if (kind === FaceKind.open || kind === FaceKind.closed) {
        // Rigid fluid: a body receives the momentum its cells' share of each face gained.
        const upperBody = cellBody[c];
        const lowerBody = cellBody[below];
        if (upperBody < 0 && lowerBody < 0) continue;
        if (upperBody >= 0) {
          slot = upperBody;
          j += 0.5 * bodyDensity[upperBody] * size * area * change[a][c];
        }
        if (lowerBody >= 0 && lowerBody !== upperBody) {
          // Two bodies on one face: the lower one's share now, the upper one's below.
          addFaceImpulse(ctx, lowerBody, a, c, 0.5 * bodyDensity[lowerBody] * size * area * change[a][c], plan);
        } else if (lowerBody >= 0) {
          slot = lowerBody;
          j += 0.5 * bodyDensity[lowerBody] * size * area * change[a][c];
        }
      } else if (kind >= 0 && coupling.coupled[table.entity[kind]] === 1) {
        // A coupled body of unknown mass, a still wall: the pressure at its face, extrapolated linearly to
        // the face from the fluid cell beside it and the next one.
        slot = kind;
        const faceValue = (cell: number, next: number): number =>
          type[cell] !== CellType.fluid ? 0 : type[next] === CellType.fluid ? 1.5 * phi[cell] - 0.5 * phi[next] : phi[cell];
        j = -area * (faceValue(c, c + stride) - faceValue(below, below - stride));
      } else {
        continue;
      }
      if (slot >= 0 && j !== 0) addFaceImpulse(ctx, slot, a, c, j, plan);
    }
  }
}

/** Adds impulse j along axis a to collider `slot`'s body, at the centre of face c (the lower face of cell c). */
function addFaceImpulse(ctx: SimulationContext, slot: number, a: number, c: number, j: number, plan: ProjectionPlan): void {
  const size = plan.cellSize;
  cellCoordinates(c, plan.dims, coordinates);
  const px = (coordinates[0] + plan.origin[0] + (a === 0 ? 0 : 0.5)) * size;
  const py = (coordinates[1] + plan.origin[1] + (a === 1 ? 0 : 0.5)) * size;
  const pz = (coordinates[2] + plan.origin[2] + (a === 2 ? 0 : 0.5)) * size;
  addBodyImpulse(ctx, slot, ctx.colliders.entity[slot], a === 0 ? j : 0, a === 1 ? j : 0, a === 2 ? j : 0, px, py, pz);
}

/** The substep system (after predict): the whole projection; see the file comment. */
export function projectionSystem(ctx: SimulationContext): void {
  const state = ctx.projection;
  if (!ctx.settings.projection || !planGrid(ctx, state)) return;
  markFluidCells(ctx, state);
  classifyCells(ctx, state);
  classifyFaces(ctx, state);
  scatterToGrid(ctx, state);
  solvePressure(ctx, state);
  faceChanges(state);
  gatherFromGrid(ctx, state);
  const previous = state.previousPlan;
  previous.cellSize = state.plan.cellSize;
  previous.origin.set(state.plan.origin);
  previous.dims.set(state.plan.dims);
  previous.cells = state.plan.cells;
  ctx.stats.projectionIterations = Math.max(ctx.stats.projectionIterations, state.iterations);
}
