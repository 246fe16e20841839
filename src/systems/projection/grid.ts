/**
 * Steps 1-4 of the coarse projection (projection/cpu.ts): the grid over the particles, which cells are fluid,
 * solid or air, the surface layers left to the density constraints, and which faces are open, solid or dead.
 */

import { colliderSurfaceVelocity, fluidSideDistance, fluidSidePoint, writePose } from '../collide/cpu';
import { SHAPES } from '../collide/shapes';
import { COLLIDER_FRAME_STRIDE, type SimulationContext } from '../context';
import {
  BODY_SURFACE_REACH,
  CellType,
  FaceKind,
  FLUID_CELL_FILL,
  fullCellVolume,
  GRID_MARGIN,
  type ProjectionState,
  SURFACE_LAYERS,
  THIN_BODY_DEPTH,
  THIN_WALL_NORMAL,
} from './state';
import {
  classifyFacesInWebAssembly,
  erodeSurfaceCellsInWebAssembly,
  markFluidCellsInWebAssembly,
  markSolvedParticlesInWebAssembly,
} from './wasm';

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
  state.fullVolume = fullCellVolume(base, ctx.lattice.spacing, ctx.lattice.kernelSum);
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
  if (!SHAPES[shape].localBounds(c, eid, ctx.colliders.fields, lo, hi)) return;
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
 * Step 2: each particle's grid coordinates and cell (-1 when its stencil leaves the grid), the cells' rest
 * volumes, and the fluid cells. In WebAssembly where the CPU module runs (grid.wat, the same results bit for bit).
 */
export function markFluidCells(ctx: SimulationContext, state: ProjectionState): void {
  const s = ctx.solver;
  const n = s.count;
  const { plan, type, cellVolume, particleCell, particleGrid } = state;
  const half = FLUID_CELL_FILL * plan.cellSize ** 3;
  // A new grid: nothing of the last one in the module's memory counts (CpuKernels.gridInMemory).
  ctx.cpuKernels.gridInMemory = false;
  ctx.cpuKernels.systemInMemory = false;
  ctx.cpuKernels.particlesMarkedInMemory = false;
  ctx.cpuKernels.cellsInMemory = false;
  if (markFluidCellsInWebAssembly(ctx, state, half)) {
    ctx.stats.webAssembly = true;
    return;
  }
  type.fill(CellType.air, 0, plan.cells);
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
    // A NaN coordinate (a particle that blew up) stores cell 0 and adds nothing (a NaN index writes nothing).
    const cell = (cz * ny + cy) * nx + cx;
    particleCell[i] = cell;
    cellVolume[cell] += s.mass[i] * inverseRestDensity[s.material[i]];
  }
  for (let c = 0; c < plan.cells; c++) if (cellVolume[c] >= half) type[c] = CellType.fluid;
}

/**
 * Step 3c, in the still-water mode only: `projectionSolved` is 1 for each particle whose cell the solve holds
 * (fluid after the surface layers grew back) or that only a thin coupled body beside it keeps out of the
 * solve (fluid as classified, `besideBody`), else 0 (see `SolverState.projectionSolved`; the GPU's
 * `solvedParticles` in grid.wgsl).
 */
export function markSolvedParticles(ctx: SimulationContext, state: ProjectionState): void {
  if (markSolvedParticlesInWebAssembly(ctx, state)) return;
  const s = ctx.solver;
  const { particleCell, type, besideBody } = state;
  const classified = state.near;
  const solved = s.projectionSolved;
  for (let i = 0; i < s.count; i++) {
    const cell = particleCell[i];
    solved[i] =
      cell >= 0 && (type[cell] === CellType.fluid || (besideBody[cell] === 1 && classified[cell] === CellType.fluid))
        ? 1
        : 0;
  }
}

/** Scratch of the distance queries and the collider surface velocities (no arrays per substep). */
const sample = new Float64Array(4);
const surfaceVelocity = new Float64Array(3);

/** Fluid-side distance (m) of world point `point` to collider `slot` and the world normal, into `sample`. */
function worldDistance(ctx: SimulationContext, slot: number, point: Float64Array): void {
  const frames = ctx.colliders.frames;
  const o = slot * COLLIDER_FRAME_STRIDE;
  const wx = point[0] - frames[o + 9];
  const wy = point[1] - frames[o + 10];
  const wz = point[2] - frames[o + 11];
  const scale = frames[o + 12];
  const inverseScale = 1 / scale;
  const lx = (frames[o] * wx + frames[o + 3] * wy + frames[o + 6] * wz) * inverseScale;
  const ly = (frames[o + 1] * wx + frames[o + 4] * wy + frames[o + 7] * wz) * inverseScale;
  const lz = (frames[o + 2] * wx + frames[o + 5] * wy + frames[o + 8] * wz) * inverseScale;
  fluidSidePoint[0] = lx;
  fluidSidePoint[1] = ly;
  fluidSidePoint[2] = lz;
  fluidSideDistance(ctx, ctx.colliders.entity[slot], fluidSidePoint, sample);
  const nx = sample[1];
  const ny = sample[2];
  const nz = sample[3];
  sample[0] *= scale;
  sample[1] = frames[o] * nx + frames[o + 1] * ny + frames[o + 2] * nz;
  sample[2] = frames[o + 3] * nx + frames[o + 4] * ny + frames[o + 5] * nz;
  sample[3] = frames[o + 6] * nx + frames[o + 7] * ny + frames[o + 8] * nz;
}

/** Cell coordinates (x, y, z) of cell index c into `out`. */
export function cellCoordinates(c: number, dims: Int32Array, out: Int32Array): void {
  const nx = dims[0];
  const ny = dims[1];
  out[0] = c % nx;
  out[1] = Math.floor(c / nx) % ny;
  out[2] = Math.floor(c / (nx * ny));
}

/**
 * Whether collider `slot` is a coupled body too thin for the projection grid of `cellSize` (m): no point inside
 * it lies {@link THIN_BODY_DEPTH} cells deep (its shape's `insideDepth` times its scale), so no cell need lie
 * wholly inside it (both backends; gpu/scene.ts writes it for the GPU).
 */
export function isThinCoupledBody(ctx: SimulationContext, slot: number, cellSize: number): boolean {
  const c = ctx.components.Collider;
  const eid = ctx.colliders.entity[slot];
  if (ctx.components.BodyCoupling.coupled[eid] !== 1) return false;
  const depth = SHAPES[c.shape[eid]].insideDepth(c, eid, ctx.colliders.fields) * c.scale[eid];
  return depth < THIN_BODY_DEPTH * cellSize;
}

/** Scratch of `cellCoordinates` calls. */
const coordinates = new Int32Array(3);
/** A cell's center (m), handed to `worldDistance` in an array (float arguments of a call not inlined are boxed). */
const center = new Float64Array(3);

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

/**
 * Step 3: every cell center's nearest collider; empty cells on a collider's far side are solid, and the cells
 * within {@link BODY_SURFACE_REACH} cells of a thin coupled body are marked (`ProjectionState.besideBody`).
 */
export function classifyCells(ctx: SimulationContext, state: ProjectionState): void {
  const { plan, type, distance, nearest, normalX, normalY, normalZ, cellBody, bodyCells, bodyDensity } = state;
  const { near, besideBody } = state;
  const reach = BODY_SURFACE_REACH * plan.cellSize;
  // Only the still-water mode reads which cells lie beside a thin body (erodeSurfaceCells).
  const thinBody = state.thinBody;
  const freeSurface = ctx.settings.projectionFreeSurface;
  for (let slot = 0; slot < ctx.colliders.count; slot++)
    thinBody[slot] = freeSurface && isThinCoupledBody(ctx, slot, plan.cellSize) ? 1 : 0;
  const coupling = ctx.components.BodyCoupling;
  bodyCells.fill(0, 0, ctx.colliders.count);
  const size = plan.cellSize;
  const [ox, oy, oz] = plan.origin;
  const colliders = ctx.colliders.count;
  if (colliders > 0) markNearCells(ctx, state);
  for (let c = 0; c < plan.cells; c++) {
    nearest[c] = -1;
    cellBody[c] = -1;
    besideBody[c] = 0;
    distance[c] = Number.POSITIVE_INFINITY;
    if (colliders === 0 || near[c] === 0) continue;
    cellCoordinates(c, plan.dims, coordinates);
    center[0] = (coordinates[0] + ox + 0.5) * size;
    center[1] = (coordinates[1] + oy + 0.5) * size;
    center[2] = (coordinates[2] + oz + 0.5) * size;
    for (let slot = 0; slot < colliders; slot++) {
      worldDistance(ctx, slot, center);
      if (sample[0] < reach && thinBody[slot] === 1) besideBody[c] = 1;
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
 * Step 3b: the fluid cells of particles within {@link SURFACE_LAYERS} cells (6-neighbour steps) of an air
 * cell are left to the density constraints: they become air (pressure 0) for the solve. The projection is
 * there for the modes longer than a few particle spacings, which Jacobi iterations converge slowly; near a
 * free surface the local constraints converge well, and a surface resolved by coarse cells would smooth what
 * acts on the surface itself (tension, splashes, small drops, a stream landing in a shallow pool). A blob or
 * a pool less than 2 SURFACE_LAYERS + 1 cells across gets no projection. With `projection.freeSurface` (still
 * water) the eroded layers then grow back over the fluid cells they took, except within
 * {@link BODY_SURFACE_REACH} cells of a thin coupled body (an opening): water the grid resolves joins the
 * solve up to its free surface, thinner water does not (docs/method.md, "Still-water mode"). Then marks the
 * full cells (`ProjectionState.full`).
 */
export function erodeSurfaceCells(ctx: SimulationContext, state: ProjectionState): void {
  const { plan, type, cellBody, flags, besideBody } = state;
  const nx = plan.dims[0];
  const nxy = plan.dims[0] * plan.dims[1];
  const last = plan.cells - nxy;
  const freeSurface = ctx.settings.projectionFreeSurface;
  const half = 0.499 * plan.cellSize;
  if (erodeSurfaceCellsInWebAssembly(ctx, state, SURFACE_LAYERS, freeSurface, half)) return;
  // Still water: the cell types before the erosion (`near` is not read after classifyCells).
  const classified = state.near;
  if (freeSurface) for (let c = 0; c < plan.cells; c++) classified[c] = type[c];
  // The cells to change in each layer are flagged first.
  for (let layer = 0; layer < SURFACE_LAYERS; layer++) {
    for (let c = 0; c < plan.cells; c++) {
      flags[c] = 0;
      if (type[c] !== CellType.fluid || cellBody[c] >= 0) continue;
      if (c < nxy || c >= last || besideType(type, c, nx, nxy, CellType.air)) flags[c] = 1;
    }
    for (let c = 0; c < plan.cells; c++) if (flags[c] === 1) type[c] = CellType.air;
  }
  // Still water (`projection.freeSurface`): the eroded layers grow back over the fluid cells they took (a
  // morphological opening), so the solve reaches the free surface of water at least 2 SURFACE_LAYERS + 1
  // cells thick, while thinner water (a sheet, a jet, a drop, a film a few particles deep) and the cells beside
  // a thin coupled body stay with the density constraints, as with the default.
  if (freeSurface) {
    for (let layer = 0; layer < SURFACE_LAYERS; layer++) {
      for (let c = nxy; c < last; c++) {
        flags[c] = 0;
        if (type[c] === CellType.fluid || classified[c] !== CellType.fluid || besideBody[c] === 1) continue;
        if (besideType(type, c, nx, nxy, CellType.fluid)) flags[c] = 1;
      }
      for (let c = nxy; c < last; c++) if (flags[c] === 1) type[c] = CellType.fluid;
    }
  }
  const full = state.full;
  for (let c = 0; c < plan.cells; c++) {
    full[c] = type[c] === CellType.fluid && cellBody[c] < 0 && state.distance[c] >= half ? 1 : 0;
  }
}

/** Whether one of the 6 neighbours of inner cell c (rows of nx, layers of nxy cells) has type `wanted`. */
function besideType(type: Uint8Array, c: number, nx: number, nxy: number, wanted: number): boolean {
  return (
    type[c - 1] === wanted ||
    type[c + 1] === wanted ||
    type[c - nx] === wanted ||
    type[c + nx] === wanted ||
    type[c - nxy] === wanted ||
    type[c + nxy] === wanted
  );
}

/**
 * Step 4: the kind of every face and the velocity of the solid ones. The kinds in WebAssembly where the CPU
 * module runs (grid.wat, the same kinds); the solid faces' collider velocities here.
 */
export function classifyFaces(ctx: SimulationContext, state: ProjectionState): void {
  const { plan, type, distance, nearest, faceKind, velocity } = state;
  const solidFaces = classifyFacesInWebAssembly(ctx, state, THIN_WALL_NORMAL);
  if (solidFaces) {
    for (let a = 0; a < 3; a++) velocity[a].fill(0, 0, plan.cells);
    for (let k = 0; k < solidFaces.length; k++) {
      const face = solidFaces[k];
      const a = face >= 2 * plan.cells ? 2 : face >= plan.cells ? 1 : 0;
      solidFaceVelocity(ctx, state, a, face - a * plan.cells);
    }
    return;
  }
  const normals = [state.normalX, state.normalY, state.normalZ];
  const dims = plan.dims;
  const strides = [1, dims[0], dims[0] * dims[1]];
  const size = plan.cellSize;
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
      solidFaceVelocity(ctx, state, a, c);
    }
  }
}

/** The velocity along axis a of solid face c of axis a (the lower face of cell c): its collider's surface velocity there. */
function solidFaceVelocity(ctx: SimulationContext, state: ProjectionState, a: number, c: number): void {
  const { plan } = state;
  const size = plan.cellSize;
  const [ox, oy, oz] = plan.origin;
  cellCoordinates(c, plan.dims, coordinates);
  // The face center: the lower face of cell c along axis a.
  surfaceVelocity[0] = (coordinates[0] + ox + (a === 0 ? 0 : 0.5)) * size;
  surfaceVelocity[1] = (coordinates[1] + oy + (a === 1 ? 0 : 0.5)) * size;
  surfaceVelocity[2] = (coordinates[2] + oz + (a === 2 ? 0 : 0.5)) * size;
  colliderSurfaceVelocity(ctx, state.faceKind[a][c], surfaceVelocity, surfaceVelocity);
  state.velocity[a][c] = surfaceVelocity[a];
}
