/**
 * Coarse pressure projection: the global half of the incompressibility solve of the PBF solver
 * (README, "Still water: the coarse pressure projection"). The density constraints of Macklin & Müller (2013) are
 * solved by Jacobi iterations, whose corrections reach about one kernel radius per iteration: a column
 * of water 30 particles deep cannot feel its floor within the 2 x 3 iterations of a frame, sags, and
 * the corrections that catch up later throw it back up. This system gives the solve the missing global
 * reach once per substep, after the positions are predicted and the neighbours found, before the density
 * constraints: it makes the particles' velocity field free of divergence on a staggered grid of cell size
 * h, the pressure projection of grid solvers (a pressure Poisson equation, as MPS solves on particles,
 * Premoze et al. 2003, eq. 14), and hands the change back to the particles as an increment, so their own detail is kept. The density
 * constraints then only fix what is local.
 *
 * The projection conserves momentum exactly: each particle spreads its mass, rest volume and volume flux
 * over the faces around it with trilinear weights normalised over the faces that carry fluid; the faces'
 * volume-weighted velocities are made free of divergence (volume, not mass, is what incompressible fluids
 * keep: a bubble rising through water is a zero volume flux but a downward mass flux), each particle is
 * pushed by -grad phi times its share weight (about 1 / rho, so a light fluid is pushed harder than a
 * heavy one: buoyancy on the grid), and the momentum the particles gain is -H^2 sum_f (phi_b - phi_a),
 * which telescopes to the pressure at the walls. That part, and the velocity change of the faces on a collider, is what a
 * coupled collider receives.
 *
 * One substep, in order (each a function below, the WGSL passes mirror them):
 * 1. plan: cells of the kernel radius h over the predicted positions' bounding box (and coupled bodies
 *    with a mass) with two cells of margin; a box beyond `maxCells` is cut around its center;
 * 2. occupancy: each particle marks its cell as fluid;
 * 3. cells: every cell center's nearest collider; a cell without particles is solid where that collider's
 *    surface lies between it and the fluid side, else air;
 * 3b. surface: fluid cells within SURFACE_LAYERS cells of air are left to the density constraints;
 * 4. faces: a face between a solid and another cell, or across a wall thinner than a cell, is solid (the
 *    collider's surface velocity along the axis); a face with fluid on a side is open; else dead;
 * 5. scatter: each particle adds m w, V w, V w v and its share weights (w: trilinear weights normalised over
 *    the non-dead faces) to the faces of each axis, and, with a full neighbourhood, its density error of the last solve to its
 *    cell;
 * 6. solve: A phi = b over the fluid cells, A phi = sum over open faces of H^2 k_f (phi_c - phi_n), k_f the
 *    face's mobility (1 / M_f for one fluid, see faceMobility)
 *    (phi = 0 in air), b the divergence target minus the divergence of the face velocities; the target
 *    is beta (rho / rho0 - 1) H / dt, which spreads a compressed cell and draws fluid into an expanded one
 *    (beta per substep); Jacobi-preconditioned conjugate gradients from the last substep's phi when the grid
 *    is the same (phi = p dt does not change in water at rest);
 * 7. changes: dv_f = -(phi_b - phi_a) H^2 k_f on open faces, the collider's velocity minus the fluid's on
 *    solid faces;
 * 8. gather: each particle gets the weighted changes: v += dv, x* += dt dv; coupled colliders receive
 *    minus what their faces gave the fluid.
 */

import { ColliderShape } from '../../components';
import { colliderSurfaceVelocity, fluidSideDistance, writePose } from '../collide/cpu';
import { COLLIDER_FRAME_STRIDE, type SimulationContext } from '../context';
import { addBodyImpulse } from '../couple/cpu';
import { CellType, CLOSED_FACE_MASS, FaceKind, GRID_MARGIN, type ProjectionPlan, type ProjectionState } from './state';

/**
 * A face between two cells that both lie within a cell of the same collider, whose normals point away
 * from each other along the face's axis by more than this cosine, crosses a wall thinner than a cell (a
 * glass): it is solid.
 */
const THIN_WALL_NORMAL = 0.5;

/**
 * A cell is fluid when its particles' rest volumes fill at least this fraction of it: its center is then
 * in the liquid, so the free surface (phi = 0 in the air cells) lies within half a cell of where the
 * particles end. Sparser cells are air; their particles take the changes of the faces around them.
 */
const FLUID_CELL_FILL = 0.5;

/**
 * Step 1: the grid over the particles' predicted positions. Returns false when there are no particles. A
 * box too large for `maxCells` is cut around its center (the particles outside get no projection: spray
 * far from the water).
 */
export function planGrid(ctx: SimulationContext, state: ProjectionState): boolean {
  const s = ctx.solver;
  const n = s.count;
  if (n === 0) return false;
  const base = ctx.settings.kernelRadius;
  const inverse = 1 / base;
  const low = lowScratch;
  const high = highScratch;
  for (let a = 0; a < 3; a++) {
    const p = a === 0 ? s.predictedX : a === 1 ? s.predictedY : s.predictedZ;
    let lo = Number.POSITIVE_INFINITY;
    let hi = Number.NEGATIVE_INFINITY;
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
  plan.cellSize = base;
  plan.cells = 1;
  for (let a = 0; a < 3; a++) {
    plan.origin[a] = low[a] - GRID_MARGIN;
    plan.dims[a] = high[a] - low[a] + 1 + 2 * GRID_MARGIN;
    plan.cells *= plan.dims[a];
  }
  // Still too large: shrink the longest axis around its center until the grid fits.
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
const poseScratch = new Float64Array(13);
/** Scratch of planGrid and colliderWorldBounds (no arrays per substep). */
const lowScratch = new Float64Array(3);
const highScratch = new Float64Array(3);
const localLow = new Float64Array(3);
const localHigh = new Float64Array(3);

/**
 * World bounding box (min xyz, max xyz) of a box, sphere, capsule or mesh collider over the step: the union
 * of its local bounds' eight corners in its pose at the start of the step and at the end (the substeps
 * interpolate between the two); a plane gives an empty box.
 */
function colliderWorldBounds(ctx: SimulationContext, slot: number, out: Float64Array): void {
  const c = ctx.components.Collider;
  const eid = ctx.colliders.entity[slot];
  const shape = c.shape[eid];
  out[0] = out[1] = out[2] = Number.POSITIVE_INFINITY;
  out[3] = out[4] = out[5] = Number.NEGATIVE_INFINITY;
  const lo = localLow;
  const hi = localHigh;
  if (shape === ColliderShape.box) {
    lo[0] = c.ax[eid];
    lo[1] = c.ay[eid];
    lo[2] = c.az[eid];
    hi[0] = c.bx[eid];
    hi[1] = c.by[eid];
    hi[2] = c.bz[eid];
  } else if (shape === ColliderShape.mesh) {
    const field = ctx.colliders.fields[c.field[eid]];
    if (field === undefined) return;
    for (let a = 0; a < 3; a++) {
      lo[a] = field.min[a];
      hi[a] = field.max[a];
    }
  } else if (shape === ColliderShape.plane) {
    return;
  } else {
    // Sphere (center a) or capsule (segment a-b), grown by the radius.
    const r = c.radius[eid];
    const capsule = shape === ColliderShape.capsule;
    for (let a = 0; a < 3; a++) {
      const start = (a === 0 ? c.ax : a === 1 ? c.ay : c.az)[eid];
      const end = capsule ? (a === 0 ? c.bx : a === 1 ? c.by : c.bz)[eid] : start;
      lo[a] = Math.min(start, end) - r;
      hi[a] = Math.max(start, end) + r;
    }
  }
  for (let which = 0; which < 2; which++) {
    const f = poseScratch;
    if (which === 0) {
      writePose(
        f,
        0,
        c.previousRotationX[eid],
        c.previousRotationY[eid],
        c.previousRotationZ[eid],
        c.previousRotationW[eid],
        c.previousPositionX[eid],
        c.previousPositionY[eid],
        c.previousPositionZ[eid],
        c.previousScale[eid],
      );
    } else {
      writePose(
        f,
        0,
        c.rotationX[eid],
        c.rotationY[eid],
        c.rotationZ[eid],
        c.rotationW[eid],
        c.positionX[eid],
        c.positionY[eid],
        c.positionZ[eid],
        c.scale[eid],
      );
    }
    for (let k = 0; k < 8; k++) {
      const x = k & 1 ? hi[0] : lo[0];
      const y = k & 2 ? hi[1] : lo[1];
      const z = k & 4 ? hi[2] : lo[2];
      for (let a = 0; a < 3; a++) {
        const w = f[12] * (f[3 * a] * x + f[3 * a + 1] * y + f[3 * a + 2] * z) + f[9 + a];
        if (w < out[a]) out[a] = w;
        if (w > out[a + 3]) out[a + 3] = w;
      }
    }
  }
}

/**
 * Step 2: each particle's grid coordinates and cell (-1 when its stencil leaves the grid), the cells'
 * particle counts, masses and rest volumes, and the fluid cells.
 */
export function markFluidCells(ctx: SimulationContext, state: ProjectionState): void {
  const s = ctx.solver;
  const n = s.count;
  const { plan, type, count, cellMass, cellVolume, particleCell, particleGrid } = state;
  type.fill(CellType.air, 0, plan.cells);
  count.fill(0, 0, plan.cells);
  cellMass.fill(0, 0, plan.cells);
  cellVolume.fill(0, 0, plan.cells);
  const inverse = 1 / plan.cellSize;
  const [ox, oy, oz] = plan.origin;
  const [nx, ny, nz] = plan.dims;
  const inverseRestDensity = ctx.materials.inverseRestDensity;
  for (let i = 0; i < n; i++) {
    const gx = s.predictedX[i] * inverse - ox;
    const gy = s.predictedY[i] * inverse - oy;
    const gz = s.predictedZ[i] * inverse - oz;
    particleGrid[3 * i] = gx;
    particleGrid[3 * i + 1] = gy;
    particleGrid[3 * i + 2] = gz;
    const cx = Math.floor(gx);
    const cy = Math.floor(gy);
    const cz = Math.floor(gz);
    if (cx < 1 || cy < 1 || cz < 1 || cx > nx - 2 || cy > ny - 2 || cz > nz - 2) {
      particleCell[i] = -1;
      continue;
    }
    const cell = (cz * ny + cy) * nx + cx;
    particleCell[i] = cell;
    count[cell]++;
    cellMass[cell] += s.mass[i];
    cellVolume[cell] += s.mass[i] * inverseRestDensity[s.material[i]];
  }
  const half = FLUID_CELL_FILL * plan.cellSize ** 3;
  for (let c = 0; c < plan.cells; c++) if (cellVolume[c] >= half) type[c] = CellType.fluid;
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

/**
 * The cells whose collider distance the step needs: fluid cells and their 6 neighbours (every face that
 * is not dead has one on a side), and the cells inside a coupled body with a mass (rigid fluid). The others
 * are air whatever lies there: a grid over spray far from the water costs no distance queries.
 */
function markNearCells(ctx: SimulationContext, state: ProjectionState): void {
  const { plan, type, near } = state;
  const [nx, ny, nz] = plan.dims;
  const nxy = nx * ny;
  near.fill(0, 0, plan.cells);
  for (let c = 0; c < plan.cells; c++) {
    if (type[c] !== CellType.fluid) continue;
    near[c] = 1;
    if (c >= 1) near[c - 1] = 1;
    if (c + 1 < plan.cells) near[c + 1] = 1;
    if (c >= nx) near[c - nx] = 1;
    if (c + nx < plan.cells) near[c + nx] = 1;
    if (c >= nxy) near[c - nxy] = 1;
    if (c + nxy < plan.cells) near[c + nxy] = 1;
  }
  const coupling = ctx.components.BodyCoupling;
  const inverse = 1 / plan.cellSize;
  const [ox, oy, oz] = plan.origin;
  for (let slot = 0; slot < ctx.colliders.count; slot++) {
    const eid = ctx.colliders.entity[slot];
    if (coupling.coupled[eid] !== 1 || !(coupling.mass[eid] > 0)) continue;
    colliderWorldBounds(ctx, slot, bounds);
    const x0 = Math.max(0, Math.floor(bounds[0] * inverse) - ox);
    const y0 = Math.max(0, Math.floor(bounds[1] * inverse) - oy);
    const z0 = Math.max(0, Math.floor(bounds[2] * inverse) - oz);
    const x1 = Math.min(nx - 1, Math.floor(bounds[3] * inverse) - ox);
    const y1 = Math.min(ny - 1, Math.floor(bounds[4] * inverse) - oy);
    const z1 = Math.min(nz - 1, Math.floor(bounds[5] * inverse) - oz);
    for (let z = z0; z <= z1; z++) {
      for (let y = y0; y <= y1; y++) {
        for (let x = x0; x <= x1; x++) near[(z * ny + y) * nx + x] = 1;
      }
    }
  }
}

/** Step 3: every cell center's nearest collider; empty cells on a collider's far side are solid. */
export function classifyCells(ctx: SimulationContext, state: ProjectionState): void {
  const { plan, type, distance, nearest, normalX, normalY, normalZ, cellBody, bodyCells, bodyDensity } = state;
  const near = state.near;
  const coupling = ctx.components.BodyCoupling;
  bodyCells.fill(0, 0, ctx.colliders.count);
  const size = plan.cellSize;
  const [ox, oy, oz] = plan.origin;
  const colliders = ctx.colliders.count;
  if (colliders > 0) markNearCells(ctx, state);
  for (let c = 0; c < plan.cells; c++) {
    nearest[c] = -1;
    cellBody[c] = -1;
    distance[c] = Number.POSITIVE_INFINITY;
    if (colliders === 0 || near[c] === 0) continue;
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

/**
 * Cell layers under a free surface that the projection leaves to the density constraints
 * ({@link erodeSurfaceCells}).
 */
export const SURFACE_LAYERS = 2;

/**
 * Step 3b: the fluid cells of particles within {@link SURFACE_LAYERS} cells (6-neighbour steps) of an air
 * cell are left to the density constraints: they become air (pressure 0) for the solve. The projection is
 * there for the modes longer than a few particle spacings, which Jacobi iterations converge slowly; near a
 * free surface the local constraints converge well, and a surface resolved by coarse cells would smooth what
 * acts on the surface itself (tension, splashes, small drops, a stream landing in a shallow pool). A blob or
 * a pool less than 2 SURFACE_LAYERS + 1 cells across gets no projection.
 */
export function erodeSurfaceCells(state: ProjectionState): void {
  const { plan, type, cellBody, count } = state;
  const nx = plan.dims[0];
  const nxy = plan.dims[0] * plan.dims[1];
  const last = plan.cells - nxy;
  // count (particles per cell) is not read after the cells are marked: here it flags the cells to erode.
  for (let layer = 0; layer < SURFACE_LAYERS; layer++) {
    for (let c = 0; c < plan.cells; c++) {
      count[c] = 0;
      if (type[c] !== CellType.fluid || cellBody[c] >= 0) continue;
      if (
        c < nxy ||
        c >= last ||
        type[c - 1] === CellType.air ||
        type[c + 1] === CellType.air ||
        type[c - nx] === CellType.air ||
        type[c + nx] === CellType.air ||
        type[c - nxy] === CellType.air ||
        type[c + nxy] === CellType.air
      ) {
        count[c] = 1;
      }
    }
    for (let c = 0; c < plan.cells; c++) if (count[c] === 1) type[c] = CellType.air;
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
      // The face center: the lower face of cell c along axis a.
      const px = (coordinates[0] + ox + (a === 0 ? 0 : 0.5)) * size;
      const py = (coordinates[1] + oy + (a === 1 ? 0 : 0.5)) * size;
      const pz = (coordinates[2] + oz + (a === 2 ? 0 : 0.5)) * size;
      colliderSurfaceVelocity(ctx, slot, px, py, pz, surfaceVelocity);
      u[c] = surfaceVelocity[a];
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
 * The faces of axis a around particle i (grid coordinates from `markFluidCells`) and their trilinear
 * weights, normalised over the faces that are not dead (all zero when every face is dead). Face
 * coordinates of axis a are integer along a (the cell's lower face) and cell centers across.
 */
function faceStencil(state: ProjectionState, a: number, i: number, out: Stencil): void {
  const dims = state.plan.dims;
  const nx = dims[0];
  const nxy = dims[0] * dims[1];
  const g = state.particleGrid;
  const fx = a === 0 ? g[3 * i] : g[3 * i] - 0.5;
  const fy = a === 1 ? g[3 * i + 1] : g[3 * i + 1] - 0.5;
  const fz = a === 2 ? g[3 * i + 2] : g[3 * i + 2] - 0.5;
  const bx = Math.floor(fx);
  const by = Math.floor(fy);
  const bz = Math.floor(fz);
  const tx = fx - bx;
  const ty = fy - by;
  const tz = fz - bz;
  const ux = 1 - tx;
  const uy = 1 - ty;
  const uz = 1 - tz;
  const base = bz * nxy + by * nx + bx;
  const kind = state.faceKind[a];
  const face = out.face;
  const weight = out.weight;
  face[0] = base;
  face[1] = base + 1;
  face[2] = base + nx;
  face[3] = base + nx + 1;
  face[4] = base + nxy;
  face[5] = base + nxy + 1;
  face[6] = base + nxy + nx;
  face[7] = base + nxy + nx + 1;
  weight[0] = ux * uy * uz;
  weight[1] = tx * uy * uz;
  weight[2] = ux * ty * uz;
  weight[3] = tx * ty * uz;
  weight[4] = ux * uy * tz;
  weight[5] = tx * uy * tz;
  weight[6] = ux * ty * tz;
  weight[7] = tx * ty * tz;
  let total = 0;
  for (let k = 0; k < 8; k++) {
    if (kind[face[k]] === FaceKind.dead) weight[k] = 0;
    else total += weight[k];
  }
  if (total === 1) return;
  const scale = total > 0 ? 1 / total : 0;
  for (let k = 0; k < 8; k++) weight[k] *= scale;
}

/**
 * Per unit of mass, how much of a face's momentum change a particle of rest density rho takes: 1 / rho,
 * over the face's sum of w m / rho (its volume V_f). The same pressure gradient accelerates a light
 * particle more than a heavy one (grad p / rho), and the face's total stays its momentum change.
 */
function shareWeight(density: number): number {
  return 1 / density;
}

/**
 * Step 5: mass, volume, volume flux and share on the faces (particles, then rigid-fluid cells), density
 * errors in the cells.
 */
export function scatterToGrid(ctx: SimulationContext, state: ProjectionState): void {
  const s = ctx.solver;
  const n = s.count;
  const { plan, mass, volume, volumeFlux, shareVolume, errorSum, errorCount } = state;
  const { particleCell, particleShare } = state;
  for (let a = 0; a < 3; a++) {
    mass[a].fill(0, 0, plan.cells);
    volume[a].fill(0, 0, plan.cells);
    volumeFlux[a].fill(0, 0, plan.cells);
    shareVolume[a].fill(0, 0, plan.cells);
  }
  errorSum.fill(0, 0, plan.cells);
  errorCount.fill(0, 0, plan.cells);
  const inverseRestDensity = ctx.materials.inverseRestDensity;
  const full = ctx.lattice.fullNeighbourhood;
  const velocities = [s.velocityX, s.velocityY, s.velocityZ];
  for (let i = 0; i < n; i++) {
    const cell = particleCell[i];
    if (cell < 0) continue;
    if (s.neighbourCount[i] >= full) {
      errorSum[cell] += s.constraint[i];
      errorCount[cell]++;
    }
    const m = s.mass[i];
    const restDensity = 1 / inverseRestDensity[s.material[i]];
    const restVolume = m * inverseRestDensity[s.material[i]];
    const share = shareWeight(restDensity);
    particleShare[i] = share;
    for (let a = 0; a < 3; a++) {
      faceStencil(state, a, i, stencil);
      const flux = restVolume * velocities[a][i];
      const ma = mass[a];
      const va = volume[a];
      const qa = volumeFlux[a];
      const sa = shareVolume[a];
      for (let k = 0; k < 8; k++) {
        const w = stencil.weight[k];
        if (w === 0) continue;
        const f = stencil.face[k];
        ma[f] += m * w;
        va[f] += restVolume * w;
        qa[f] += flux * w;
        sa[f] += restVolume * w * share;
      }
    }
  }
  scatterBodies(ctx, state);
}

/**
 * The rigid-fluid cells' share of the faces: each adds half its mass (the body's density times the cell's
 * volume) to each of its six faces, moving with the body's surface velocity at the face center.
 */
function scatterBodies(ctx: SimulationContext, state: ProjectionState): void {
  const { plan, cellBody, bodyDensity, faceKind, mass, volume, volumeFlux, shareVolume } = state;
  const dims = plan.dims;
  const strides = [1, dims[0], dims[0] * dims[1]];
  const size = plan.cellSize;
  const [ox, oy, oz] = plan.origin;
  for (let c = 0; c < plan.cells; c++) {
    const slot = cellBody[c];
    if (slot < 0) continue;
    const density = bodyDensity[slot];
    const halfVolume = 0.5 * size ** 3;
    const half = density * halfVolume;
    const share = shareWeight(density);
    cellCoordinates(c, dims, coordinates);
    for (let a = 0; a < 3; a++) {
      for (let side = 0; side < 2; side++) {
        const f = c + side * strides[a];
        if (faceKind[a][f] === FaceKind.dead) continue;
        const px = (coordinates[0] + ox + (a === 0 ? side : 0.5)) * size;
        const py = (coordinates[1] + oy + (a === 1 ? side : 0.5)) * size;
        const pz = (coordinates[2] + oz + (a === 2 ? side : 0.5)) * size;
        colliderSurfaceVelocity(ctx, slot, px, py, pz, surfaceVelocity);
        mass[a][f] += half;
        volume[a][f] += halfVolume;
        volumeFlux[a][f] += halfVolume * surfaceVelocity[a];
        shareVolume[a][f] += halfVolume * share;
      }
    }
  }
}

/**
 * How much a face's volume-weighted velocity changes per unit of momentum given to it (1/kg):
 * S_f / V_f^2 (S_f the face's sum of w V / rho). Pressure pushes each particle by its share weight
 * (1 / rho), so a face holding light and heavy fluid moves as their volume-weighted mean of 1 / rho:
 * the variable-density Poisson equation, div(grad(p) / rho) = div(u) / dt. One fluid: 1 / M_f.
 */
function faceMobility(state: ProjectionState, a: number, c: number): number {
  const v = state.volume[a][c];
  return v > 0 ? state.shareVolume[a][c] / (v * v) : 0;
}

/** The momentum (N s) a face's change gives the fluid on it: du_f V_f^2 / S_f (M_f du_f for one fluid). */
function faceImpulse(state: ProjectionState, a: number, c: number): number {
  const s = state.shareVolume[a][c];
  return s > 0 ? (state.change[a][c] * state.volume[a][c] * state.volume[a][c]) / s : 0;
}

/** The mass (kg) below which a face is closed: CLOSED_FACE_MASS times the lightest fluid's mass per cell. */
function closedFaceMass(ctx: SimulationContext, cellSize: number): number {
  const m = ctx.materials;
  let lightest = Number.POSITIVE_INFINITY;
  for (let slot = 0; slot < m.count; slot++) lightest = Math.min(lightest, 1 / m.inverseRestDensity[slot]);
  const bodies = ctx.projection.bodyDensity;
  for (let slot = 0; slot < ctx.colliders.count; slot++)
    if (bodies[slot] > 0) lightest = Math.min(lightest, bodies[slot]);
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
  const { plan, type, faceKind, mass, volume, volumeFlux, velocity, errorSum, errorCount, diagonal, phi } = state;
  const { rightHandSide } = state;
  const { residual, preconditioned, direction, product, coefficient, fluidCells } = state;
  const cells = plan.cells;
  const nx = plan.dims[0];
  const nxy = plan.dims[0] * plan.dims[1];
  const size = plan.cellSize;
  const area = size * size;
  const closedMass = closedFaceMass(ctx, size);
  for (let a = 0; a < 3; a++) {
    const kind = faceKind[a];
    const k = coefficient[a];
    for (let c = 0; c < cells; c++) {
      k[c] = 0;
      if (kind[c] !== FaceKind.open) continue;
      if (mass[a][c] < closedMass) kind[c] = FaceKind.closed;
      else {
        velocity[a][c] = volumeFlux[a][c] / volume[a][c];
        k[c] = area * faceMobility(state, a, c);
      }
    }
  }
  warmStart(state);
  const relaxation = (ctx.settings.projectionDensityRelaxation * size) / ctx.substepTimeStep;
  const [kx, ky, kz] = coefficient;
  let fluid = 0;
  let normB = 0;
  for (let c = 0; c < cells; c++) {
    if (type[c] !== CellType.fluid) {
      phi[c] = 0;
      continue;
    }
    fluidCells[fluid++] = c;
    // A warm start left non-finite by a step that was discarded starts cold.
    if (!Number.isFinite(phi[c])) phi[c] = 0;
    let divergence = 0;
    for (let a = 0; a < 3; a++) {
      const upper = c + (a === 0 ? 1 : a === 1 ? nx : nxy);
      // Closed faces neither carry flux nor change: their velocity counts as zero.
      if (faceKind[a][upper] !== FaceKind.closed) divergence += velocity[a][upper];
      if (faceKind[a][c] !== FaceKind.closed) divergence -= velocity[a][c];
    }
    const error = errorCount[c] > 0 ? errorSum[c] / errorCount[c] : 0;
    const b = relaxation * error - divergence;
    rightHandSide[c] = b;
    diagonal[c] = kx[c] + kx[c + 1] + ky[c] + ky[c + nx] + kz[c] + kz[c + nxy];
  }
  removeEnclosedMeans(state, fluid);
  for (let q = 0; q < fluid; q++) normB += rightHandSide[fluidCells[q]] ** 2;
  normB = Math.sqrt(normB);
  state.iterations = 0;
  state.relativeResidual = 0;
  if (!(normB > 0)) {
    phi.fill(0, 0, cells);
    return;
  }
  // A x over the fluid cells; x is zero in every other cell (phi = 0 in air), so no cell type is tested.
  const applyA = (x: Float64Array, out: Float64Array): void => {
    for (let q = 0; q < fluid; q++) {
      const c = fluidCells[q];
      out[c] =
        diagonal[c] * x[c] -
        kx[c + 1] * x[c + 1] -
        kx[c] * x[c - 1] -
        ky[c + nx] * x[c + nx] -
        ky[c] * x[c - nx] -
        kz[c + nxy] * x[c + nxy] -
        kz[c] * x[c - nxy];
    }
  };
  direction.fill(0, 0, cells);
  applyA(phi, product);
  let rz = 0;
  let rr = 0;
  for (let q = 0; q < fluid; q++) {
    const c = fluidCells[q];
    const r = rightHandSide[c] - product[c];
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
    for (let q = 0; q < fluid; q++) {
      const c = fluidCells[q];
      pAp += direction[c] * product[c];
    }
    if (!(pAp > 0)) break;
    const alpha = rz / pAp;
    if (!Number.isFinite(alpha)) break;
    let rzNext = 0;
    rr = 0;
    for (let q = 0; q < fluid; q++) {
      const c = fluidCells[q];
      phi[c] += alpha * direction[c];
      const r = residual[c] - alpha * product[c];
      residual[c] = r;
      const z = diagonal[c] > 0 ? r / diagonal[c] : 0;
      preconditioned[c] = z;
      rzNext += r * z;
      rr += r * r;
    }
    const beta = rz > 0 ? rzNext / rz : 0;
    rz = rzNext;
    for (let q = 0; q < fluid; q++) {
      const c = fluidCells[q];
      direction[c] = preconditioned[c] + beta * direction[c];
    }
    iteration++;
  }
  state.iterations = iteration;
  state.relativeResidual = Math.sqrt(rr) / normB;
}

/**
 * Fluid enclosed by walls (no open face to an air cell) cannot change its volume: A is singular there (phi
 * is fixed up to a constant) and A phi = b has a solution only if b sums to zero over the region. Each such
 * connected region (fluid cells joined by open faces) gets the mean of its b removed: the part of the
 * divergence target no flow can meet (a density error of the whole region, a wall that moves into it).
 */
function removeEnclosedMeans(state: ProjectionState, fluid: number): void {
  const { plan, type, coefficient, rightHandSide, fluidCells, component, queue } = state;
  const nx = plan.dims[0];
  const nxy = plan.dims[0] * plan.dims[1];
  for (let q = 0; q < fluid; q++) component[fluidCells[q]] = -1;
  let label = 0;
  for (let q = 0; q < fluid; q++) {
    const seed = fluidCells[q];
    if (component[seed] >= 0) continue;
    component[seed] = label;
    queue[0] = seed;
    let head = 0;
    let tail = 1;
    let open = false;
    let sum = 0;
    while (head < tail) {
      const c = queue[head++];
      sum += rightHandSide[c];
      for (let side = 0; side < 6; side++) {
        const stride = side < 2 ? 1 : side < 4 ? nx : nxy;
        const upper = (side & 1) === 1;
        const n = upper ? c + stride : c - stride;
        const k = coefficient[side >> 1][upper ? n : c];
        if (!(k > 0)) continue;
        if (type[n] !== CellType.fluid) {
          open = true;
        } else if (component[n] < 0) {
          component[n] = label;
          queue[tail++] = n;
        }
      }
    }
    if (!open) {
      const mean = sum / tail;
      for (let m = 0; m < tail; m++) rightHandSide[queue[m]] -= mean;
    }
    label++;
  }
}

/**
 * The last substep's phi as the initial guess, moved into this substep's grid: the same cells when the
 * grid is the same, those it shares with the last grid (same cell size) otherwise, else zero. phi = p dt
 * changes little from one substep to the next (not at all in water at rest).
 */
function warmStart(state: ProjectionState): void {
  const { plan, previousPlan, phi, residual } = state;
  if (samePlan(plan, previousPlan)) return;
  const cells = plan.cells;
  if (previousPlan.cells === 0 || plan.cellSize !== previousPlan.cellSize) {
    phi.fill(0, 0, cells);
    return;
  }
  const [nx, ny] = plan.dims;
  const [px, py, pz] = previousPlan.dims;
  const dx = plan.origin[0] - previousPlan.origin[0];
  const dy = plan.origin[1] - previousPlan.origin[1];
  const dz = plan.origin[2] - previousPlan.origin[2];
  for (let c = 0; c < cells; c++) {
    const x = (c % nx) + dx;
    const y = (Math.floor(c / nx) % ny) + dy;
    const z = Math.floor(c / (nx * ny)) + dz;
    residual[c] = x >= 0 && y >= 0 && z >= 0 && x < px && y < py && z < pz ? phi[(z * py + y) * px + x] : 0;
  }
  phi.set(residual.subarray(0, cells));
}

/** Step 7: each face's velocity change. */
export function faceChanges(state: ProjectionState): void {
  const { plan, type, faceKind, phi, volume, volumeFlux, velocity, change } = state;
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
        d[c] = -(upper - lower) * area * faceMobility(state, a, c);
      } else if (k >= 0) {
        const average = volume[a][c] > 0 ? volumeFlux[a][c] / volume[a][c] : 0;
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
  const { change, volume, shareVolume, transfer, particleCell, particleShare } = state;
  const dt = ctx.substepTimeStep;
  // Per face, the change per unit of share weight: dP_f / V_f = du_f V_f / S_f.
  for (let a = 0; a < 3; a++) {
    const t = transfer[a];
    const d = change[a];
    const va = volume[a];
    const sa = shareVolume[a];
    for (let f = 0; f < state.plan.cells; f++) t[f] = d[f] !== 0 && sa[f] > 0 ? (d[f] * va[f]) / sa[f] : 0;
  }
  const velocities = [s.velocityX, s.velocityY, s.velocityZ];
  const predicted = [s.predictedX, s.predictedY, s.predictedZ];
  for (let i = 0; i < n; i++) {
    if (particleCell[i] < 0) continue;
    const share = particleShare[i];
    for (let a = 0; a < 3; a++) {
      faceStencil(state, a, i, stencil);
      const t = transfer[a];
      const face = stencil.face;
      const weight = stencil.weight;
      const dv =
        share *
        (weight[0] * t[face[0]] +
          weight[1] * t[face[1]] +
          weight[2] * t[face[2]] +
          weight[3] * t[face[3]] +
          weight[4] * t[face[4]] +
          weight[5] * t[face[5]] +
          weight[6] * t[face[6]] +
          weight[7] * t[face[7]]);
      velocities[a][i] += dv;
      predicted[a][i] += dt * dv;
    }
  }
  bodyImpulses(ctx, state);
}

/**
 * What the projection gave coupled bodies, minus what it gave the fluid through them, so the total
 * momentum is kept exactly:
 * - a body with a mass (`BodyCoupling.mass`) is rigid fluid: its cells joined the solve as a fluid of its
 *   own density moving with it (Carlson et al. 2004, "Rigid fluid"), so it is lifted or held back
 *   implicitly, in the same solve, and receives the momentum its half of each of its faces gained;
 * - a body of unknown mass is a moving wall: it receives minus the velocity change its faces gave the
 *   fluid and the pressure the open faces beside them leave there. Its velocity enters the next solve
 *   explicitly, which diverges for bodies much lighter than the water they push (the added-mass
 *   instability of staggered coupling): give coupled bodies their mass.
 */
function bodyImpulses(ctx: SimulationContext, state: ProjectionState): void {
  const coupling = ctx.components.BodyCoupling;
  const table = ctx.colliders;
  let any = false;
  for (let slot = 0; slot < table.count; slot++) if (coupling.coupled[table.entity[slot]] === 1) any = true;
  if (!any) return;
  const { plan, type, faceKind, phi, cellBody } = state;
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
          j += rigidShare(state, upperBody, a, c);
        }
        if (lowerBody >= 0 && lowerBody !== upperBody) {
          // Two bodies on one face: the lower one's share now, the upper one's below.
          addFaceImpulse(ctx, lowerBody, a, c, rigidShare(state, lowerBody, a, c), plan);
        } else if (lowerBody >= 0) {
          slot = lowerBody;
          j += rigidShare(state, lowerBody, a, c);
        }
      } else if (kind >= 0 && coupling.coupled[table.entity[kind]] === 1) {
        // A coupled body of unknown mass is a moving wall: it receives minus what its face gave the fluid,
        // the velocity change M_f dv_f and the pressure the telescoped open faces leave at the face.
        slot = kind;
        const upper = type[c] === CellType.fluid ? phi[c] : 0;
        const lower = type[below] === CellType.fluid ? phi[below] : 0;
        j = -faceImpulse(state, a, c) - area * (upper - lower);
      } else {
        continue;
      }
      if (slot >= 0 && j !== 0) addFaceImpulse(ctx, slot, a, c, j, plan);
    }
  }
}

/** The momentum (N s) face c of axis a gave the rigid-fluid half cell of body `slot` beside it. */
function rigidShare(state: ProjectionState, slot: number, a: number, c: number): number {
  const density = state.bodyDensity[slot];
  const half = 0.5 * density * state.plan.cellSize ** 3;
  const shareVolume = state.shareVolume[a][c];
  if (!(shareVolume > 0)) return 0;
  return (half * shareWeight(density) * state.change[a][c] * state.volume[a][c]) / shareVolume;
}

/** Adds impulse j along axis a to collider `slot`'s body, at the center of face c (the lower face of cell c). */
function addFaceImpulse(
  ctx: SimulationContext,
  slot: number,
  a: number,
  c: number,
  j: number,
  plan: ProjectionPlan,
): void {
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
  erodeSurfaceCells(state);
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
