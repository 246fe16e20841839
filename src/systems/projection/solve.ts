/**
 * Step 6 of the coarse projection (projection/cpu.ts): the pressure Poisson equation over the fluid cells,
 * solved by Jacobi-preconditioned conjugate gradients, warm started from the last substep's phi.
 */

import type { SimulationContext } from '../context';
import { CellType, FaceKind, type ProjectionPlan, type ProjectionState } from './state';
import { closedFaceMass, faceMobility } from './transfer';
import { assemblePressureSystemInWebAssembly, conjugateGradientsInWebAssembly } from './wasm';

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
 * A phi = b over the fluid cells by Jacobi-preconditioned conjugate gradients. The faces' coefficients and the
 * system's assembly in WebAssembly where the CPU module runs (solve.wat, the same values bit for bit).
 */
export function solvePressure(ctx: SimulationContext, state: ProjectionState): void {
  // The warm start moves phi only; the faces' coefficients do not read it.
  warmStart(state);
  const size = state.plan.cellSize;
  const relaxation = (ctx.settings.projectionDensityRelaxation * size) / ctx.substepTimeStep;
  let fluid = assemblePressureSystemInWebAssembly(ctx, state, size * size, closedFaceMass(ctx, size), relaxation);
  if (fluid < 0) {
    faceCoefficients(ctx, state);
    fluid = assembleRightHandSide(state, relaxation);
  }
  removeEnclosedMeans(state, fluid);
  const { rightHandSide, fluidCells, phi } = state;
  let normB = 0;
  for (let q = 0; q < fluid; q++) normB += rightHandSide[fluidCells[q]] ** 2;
  normB = Math.sqrt(normB);
  state.iterations = 0;
  state.relativeResidual = 0;
  if (!(normB > 0)) {
    phi.fill(0, 0, state.plan.cells);
    return;
  }
  conjugateGradients(ctx, state, fluid, normB);
}

/** The open faces' velocities and A's coefficients H^2 k_f; faces with too little mass are closed. */
function faceCoefficients(ctx: SimulationContext, state: ProjectionState): void {
  const { plan, faceKind, mass, volume, volumeFlux, velocity, coefficient } = state;
  const cells = plan.cells;
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
}

/**
 * Lists the fluid cells (phi = 0 elsewhere) and writes b (`relaxation` (beta H / dt) times the cell's density
 * error, minus the divergence of the face velocities) and A's diagonal for each; returns how many fluid cells
 * there are.
 */
function assembleRightHandSide(state: ProjectionState, relaxation: number): number {
  const { plan, type, faceKind, velocity, errorSum, errorCount, diagonal, phi, rightHandSide, fluidCells } = state;
  const cells = plan.cells;
  const nx = plan.dims[0];
  const nxy = plan.dims[0] * plan.dims[1];
  const [kx, ky, kz] = state.coefficient;
  let fluid = 0;
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
  return fluid;
}

/**
 * out = A x over the first `fluid` fluid cells; x is zero in every other cell (phi = 0 in air), so no cell
 * type is tested.
 */
function applyPressureMatrix(state: ProjectionState, fluid: number, x: Float64Array, out: Float64Array): void {
  const { plan, diagonal, fluidCells } = state;
  const nx = plan.dims[0];
  const nxy = plan.dims[0] * plan.dims[1];
  const [kx, ky, kz] = state.coefficient;
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
}

/**
 * Jacobi-preconditioned conjugate gradients from the warm-started phi until the residual is below
 * `projectionTolerance` times |b| or `projectionMaxIterations` are done; records the iterations and the final
 * relative residual. In WebAssembly where the CPU module runs (solve.wat, the same results bit for bit).
 */
function conjugateGradients(ctx: SimulationContext, state: ProjectionState, fluid: number, normB: number): void {
  if (conjugateGradientsInWebAssembly(ctx, state, fluid, normB)) {
    ctx.stats.webAssembly = true;
    return;
  }
  const { diagonal, phi, rightHandSide, residual, preconditioned, direction, product, fluidCells } = state;
  direction.fill(0, 0, state.plan.cells);
  applyPressureMatrix(state, fluid, phi, product);
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
    applyPressureMatrix(state, fluid, direction, product);
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
