/**
 * Steps 5, 7 and 8 of the coarse projection (projection/cpu.ts): the particles' mass, volume and flux scattered
 * to the faces, the faces' velocity changes, and the changes gathered back to the particles and the coupled
 * bodies.
 */

import { colliderSurfaceVelocity } from '../collide/cpu';
import type { SimulationContext } from '../context';
import { addBodyImpulse } from '../couple/cpu';
import { cellCoordinates } from './grid';
import {
  faceChangesInWebAssembly,
  faceTransfersInWebAssembly,
  gatherParticlesInWebAssembly,
  scatterParticlesInWebAssembly,
} from './wasm';

/** Scratch of the cell coordinates and the collider surface velocities (no arrays per substep). */
const coordinates = new Int32Array(3);
const surfaceVelocity = new Float64Array(3);

import {
  CellType,
  CLOSED_FACE_MASS,
  FaceKind,
  lightestRestDensity,
  type ProjectionPlan,
  type ProjectionState,
  SINGLE_DENSITY_TOLERANCE,
} from './state';

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
  if (scatterParticlesInWebAssembly(ctx, state)) ctx.stats.webAssembly = true;
  else scatterParticles(ctx, state);
  scatterBodies(ctx, state);
}

/** Step 5's particle loop (scatterParticlesInWebAssembly does the same in WebAssembly, bit for bit). */
function scatterParticles(ctx: SimulationContext, state: ProjectionState): void {
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
    // The state's sums now differ from those the WebAssembly scatter left in the memory.
    ctx.cpuKernels.gridInMemory = false;
    const density = bodyDensity[slot];
    const halfVolume = 0.5 * size ** 3;
    const half = density * halfVolume;
    const share = shareWeight(density);
    cellCoordinates(c, dims, coordinates);
    for (let a = 0; a < 3; a++) {
      for (let side = 0; side < 2; side++) {
        const f = c + side * strides[a];
        if (faceKind[a][f] === FaceKind.dead) continue;
        surfaceVelocity[0] = (coordinates[0] + ox + (a === 0 ? side : 0.5)) * size;
        surfaceVelocity[1] = (coordinates[1] + oy + (a === 1 ? side : 0.5)) * size;
        surfaceVelocity[2] = (coordinates[2] + oz + (a === 2 ? side : 0.5)) * size;
        colliderSurfaceVelocity(ctx, slot, surfaceVelocity, surfaceVelocity);
        mass[a][f] += half;
        volume[a][f] += halfVolume;
        volumeFlux[a][f] += halfVolume * surfaceVelocity[a];
        shareVolume[a][f] += halfVolume * share;
      }
    }
  }
}

/**
 * How much a face's volume-weighted velocity changes per unit of pressure impulse H^2 dphi across it
 * (1/kg). Pressure pushes each particle by its share weight (1 / rho), so a face holding light and heavy
 * fluid moves as their volume-weighted mean of 1 / rho: the variable-density Poisson equation,
 * div(grad(p) / rho) = div(u) / dt.
 * - Between two full cells (`ProjectionState.full`) on a face that holds fluid of one rest density rho0:
 *   1 / (rho0 V_full), V_full the rest volume of a full cell's particles (`ProjectionState.fullVolume`), the
 *   same on every such face.
 * - Elsewhere (beside a wall, a body, the surface layers, where fluids of two densities meet): S_f / V_f^2
 *   (S_f the face's sum of w V / rho, V_f its sum of w V), the mean of 1 / rho over the volume the particles
 *   put on the face; one fluid: 1 / M_f, the face's own mass, so a face the fluid only partly fills moves as
 *   much as its fluid is pushed. Where fluids meet, the face's mass carries their real density contrast
 *   (with the full-cell mobility there, a 10:1 mixture separating kept stirring: mean speed 0.070 m/s after
 *   4 s against 0.034).
 *
 * Why not 1 / M_f everywhere (which made the pressure impulses telescope, the particles gaining exactly
 * what the walls gave): M_f counts the particles the trilinear weights put on the face, which scatter by
 * 10-20% around rho0 H^3 in water at rest. To hold a column up with 1 / M_f each face's pressure step had to
 * be proportional to its M_f, which no pressure field can be; the solve left each face a velocity of about
 * g dt times its mass's scatter, which stirred deep pools (docs/method.md, "Still water"). The momentum the full
 * faces give beyond the telescoped pressure is taken back evenly (`gatherFromGrid`). In WebAssembly: solve.wat's
 * `$faceMobility`, the same operations.
 */
export function faceMobility(state: ProjectionState, a: number, c: number): number {
  const v = state.volume[a][c];
  if (!(v > 0)) return 0;
  const plan = state.plan;
  const below = c - (a === 0 ? 1 : a === 1 ? plan.dims[0] : plan.dims[0] * plan.dims[1]);
  const share = state.shareVolume[a][c];
  // One rest density on the face: then M_f S_f = V_f^2 (Cauchy-Schwarz makes it larger for several).
  const full =
    state.full[c] === 1 &&
    below >= 0 &&
    state.full[below] === 1 &&
    state.mass[a][c] * share <= v * v * (1 + SINGLE_DENSITY_TOLERANCE);
  return share / (v * (full ? state.fullVolume : v));
}

/** The momentum (N s) a face's change gives the fluid on it: du_f V_f^2 / S_f (M_f du_f for one fluid). */
function faceImpulse(state: ProjectionState, a: number, c: number): number {
  const s = state.shareVolume[a][c];
  return s > 0 ? (state.change[a][c] * state.volume[a][c] * state.volume[a][c]) / s : 0;
}

/** The mass (kg) below which a face is closed: CLOSED_FACE_MASS times the lightest fluid's mass per cell. */
export function closedFaceMass(ctx: SimulationContext, cellSize: number): number {
  let lightest = lightestRestDensity(ctx.materials.inverseRestDensity, ctx.materials.count);
  const bodies = ctx.projection.bodyDensity;
  for (let slot = 0; slot < ctx.colliders.count; slot++)
    if (bodies[slot] > 0) lightest = Math.min(lightest, bodies[slot]);
  return CLOSED_FACE_MASS * lightest * cellSize ** 3;
}

/**
 * Step 7: each face's velocity change. In WebAssembly where the pressure system was assembled there
 * (transfer.wat, the same changes bit for bit).
 */
export function faceChanges(ctx: SimulationContext, state: ProjectionState): void {
  const { plan, type, faceKind, phi, volume, volumeFlux, velocity, change } = state;
  const area = plan.cellSize * plan.cellSize;
  if (faceChangesInWebAssembly(ctx, state, area)) return;
  const strides = [1, plan.dims[0], plan.dims[0] * plan.dims[1]];
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
  const { change, volume, shareVolume, transfer, particleCell } = state;
  // Per face, the change per unit of share weight: dP_f / V_f = du_f V_f / S_f; and the momentum the faces
  // between full cells give the fluid beyond the telescoped -H^2 dphi (M_f du_f; see faceMobility): the
  // difference, summed per axis, is taken back from every particle on the grid alike (a uniform velocity, free
  // of divergence), so the particles gain exactly what the walls and bodies give. In WebAssembly where the
  // changes were made there (transfer.wat, the same transfers and sums bit for bit).
  if (!faceTransfersInWebAssembly(ctx, state, state.plan.cellSize * state.plan.cellSize, excess)) {
    for (let a = 0; a < 3; a++) {
      const t = transfer[a];
      const d = change[a];
      const va = volume[a];
      const sa = shareVolume[a];
      for (let f = 0; f < state.plan.cells; f++) t[f] = d[f] !== 0 && sa[f] > 0 ? (d[f] * va[f]) / sa[f] : 0;
    }
    excessMomentum(state, excess);
  }
  let gridMass = 0;
  for (let i = 0; i < n; i++) if (particleCell[i] >= 0) gridMass += s.mass[i];
  const back = gridMass > 0 ? 1 / gridMass : 0;
  if (gatherParticlesInWebAssembly(ctx, state, back, excess)) ctx.stats.webAssembly = true;
  else gatherParticles(ctx, state, back);
  bodyImpulses(ctx, state);
}

/** Step 8's particle loop (gatherParticlesInWebAssembly does the same in WebAssembly, bit for bit). */
function gatherParticles(ctx: SimulationContext, state: ProjectionState, back: number): void {
  const s = ctx.solver;
  const n = s.count;
  const { transfer, particleCell, particleShare } = state;
  const dt = ctx.substepTimeStep;
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
            weight[7] * t[face[7]]) -
        back * excess[a];
      velocities[a][i] += dv;
      predicted[a][i] += dt * dv;
    }
  }
}

/** Scratch of the excess momentum per axis (no arrays per substep). */
const excess = new Float64Array(3);

/**
 * Per axis, the momentum (N s) the open faces between full cells give the fluid beyond the telescoped
 * pressure impulse: sum_f (M_f du_f + H^2 (phi_upper - phi_lower)), M_f du_f written as du_f V_f^2 / S_f
 * (the share weights' total; `faceImpulse`).
 */
function excessMomentum(state: ProjectionState, out: Float64Array): void {
  const { plan, type, faceKind, phi, full } = state;
  const area = plan.cellSize * plan.cellSize;
  for (let a = 0; a < 3; a++) {
    const stride = a === 0 ? 1 : a === 1 ? plan.dims[0] : plan.dims[0] * plan.dims[1];
    const kind = faceKind[a];
    let sum = 0;
    for (let c = stride; c < plan.cells; c++) {
      const below = c - stride;
      if (kind[c] !== FaceKind.open || full[c] !== 1 || full[below] !== 1) continue;
      const upper = type[c] === CellType.fluid ? phi[c] : 0;
      const lower = type[below] === CellType.fluid ? phi[below] : 0;
      sum += faceImpulse(state, a, c) + area * (upper - lower);
    }
    out[a] = sum;
  }
}

/**
 * What the projection gave coupled bodies, minus what it gave the fluid through them:
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
