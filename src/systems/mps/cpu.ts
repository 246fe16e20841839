/**
 * Moving Particle Semi-implicit (MPS) substep on the CPU, after Premoze et al. 2003, section 3.2,
 * Algorithm 1:
 * 1. forces: u* = u + dt (nu lap u + g), r* = r + dt u* (eq. 9-10; no surface tension term);
 * 2. particle number density n* at r* (section 3.1);
 * 3. pressure Poisson equation lap p = -(rho / dt^2) (n* - n0) / n0 (eq. 14) over the neighbour graph, with
 *    p = 0 on free-surface particles n* < beta n0 (eq. 18), solved by conjugate gradients (pcg.ts);
 * 4. velocity correction u' = -(dt / rho) grad p (eq. 15), u = u* + u', r = r* + dt u' (eq. 16-17).
 *
 * Operators (section 3.1), for dimension d = 3 and interaction radius r_e = the kernel radius h:
 * - weight w(r) = r_e / r - 1 for r < r_e, else 0. The extracted text of eq. 3 reads "r_e / r"; the "- 1"
 *   of the MPS weight (Koshizuka & Oka 1996) makes w continuous at r_e, which the paper's cut-off implies.
 *   w is singular at r = 0: distances below 0.1 r_e count as 0.1 r_e (w <= 9), which only acts on
 *   overlapping spawns;
 * - number density n_i = sum_{j != i} w(|r_j - r_i|); its rest value n0 is that sum over the spawn lattice
 *   (spacing 2r), as PBF takes its rest density from the lattice (`latticeKernelSum`);
 * - Laplacian (eq. 7): <lap phi>_i = 2d / (lambda n0) sum_j (phi_j - phi_i) w_ij, with lambda (eq. 8) over the
 *   same lattice, lambda = sum_j w_j r_j^2 / sum_j w_j (the discrete form of the integrals);
 * - divergence (eq. 6) and gradient (eq. 5); in the gradient p^_i, the smallest pressure among i and its
 *   neighbours, replaces the paper's p_i (Koshizuka & Oka 1996): it changes nothing for a linear pressure
 *   field in a full neighbourhood and keeps every pair repulsive. Without it the 0.8 m hydrostatic column of
 *   tests/mps.test.ts keeps a mean speed of about 0.1 m/s and a 1% number-density error after 4 s, against
 *   0.003 m/s and 0.2% with it (measured with the source relaxation gamma 1; with the default 0.1 now 0.020
 *   m/s and 0.34%).
 *
 * Choices, documented where the paper leaves room:
 * - Eq. 14 as extracted divides by dt; it is dimensionally right with dt^2 (dt u' = -dt^2 grad p / rho is
 *   the displacement that restores n0), which is used here.
 * - Source term. To first order in dt, n* - n0 = (n - n0) - n0 dt <div u*> (eq. 11 with n' = n* - n), where n
 *   is the number density at the start of the substep (every pair within r_e at r, found on its own grid of
 *   r, not on the neighbour list of r*). The right-hand side is assembled in that split
 *   form, gamma (n - n0) / n0 - dt <div u*>, with the divergence of eq. 6 and gamma =
 *   `MpsSettings.sourceRelaxation`: gamma = 1 is eq. 14, gamma < 1 the mixed source of Tanaka &
 *   Masunaga (2010), which removes the compression rate fully and an accumulated density error partly
 *   (the default, 0.1: with 1 a column 50 particles deep at 1 cm particles turned unstable; see settings.ts).
 * - The linear system, multiplied by -lambda n0 / (2d), reads
 *   sum_j w_ij (p_i - p_j) + c_i p_i = lambda rho_i [gamma (n_i - n0) - d sum_j (D_j - D_i) . r_ij w_ij / r_ij^2]
 *   / (2d dt^2) + (wall ghost term), D = r* - r the substep's displacement, j over all fluid neighbours;
 *   the p_j of free-surface neighbours is 0 (Dirichlet) and moves to no side. The matrix is symmetric
 *   (w_ij = w_ji), diagonally dominant, and positive definite once a connected body of fluid has a free
 *   surface; c_i = lambda n0 rho_i alpha / (2d dt^2) is the compressibility term lap p - (rho alpha / dt^2) p
 *   (alpha = `MpsSettings.compressibility`, 1/Pa, water's by default), which keeps it positive definite
 *   for a filled, closed container and is negligible otherwise.
 * - Pressures below zero after the solve are set to 0 (a liquid does not pull; the usual MPS practice).
 * - Walls (colliders): see walls.ts. They are ghost particles tabulated behind each wall (Harada et al.'s
 *   wall weight, with the MPS weight), which add to n (a particle resting on the floor has n = n0 and is no
 *   free surface) and carry the particle's pressure extrapolated hydrostatically, p_g = p_i + rho g . (x_g -
 *   x_i), in the Laplacian (a known term moved to the right-hand side) and in the gradient. The collision
 *   projection of collide/cpu.ts runs on r* and again on the corrected positions, as PBF runs it inside its
 *   constraint loop, for containers, boxes and mesh SDFs alike; the velocity is then (x_new - x) / dt with
 *   the contact response of velocity/cpu.ts, which equals u* + u' (eq. 16) wherever no collision acted.
 *   A collider coupled with a rigid body receives the collision and contact impulses (couple/cpu.ts) and
 *   the pressure load of its ghosts in the momentum-conserving pair form (`addWallPressureImpulses`).
 * - Viscosity: nu lap u with eq. 7, explicit, on the neighbour list of r* (the neighbour search runs once per
 *   substep, after gravity; gravity is uniform, so lap (u + dt g) = lap u). The default nu = 0.01 m^2/s is
 *   far above water's 1e-6: at particle spacings of centimetres the method needs it to damp the pressure
 *   noise (with 1e-6 the same column keeps a mean speed of about 0.09 m/s after 4 s; measured). The explicit
 *   step is limited to dt nu 2d / lambda <= 0.5 (stability of explicit diffusion); a larger nu is
 *   reduced to that.
 * - Particle collisions (`mpsCollisionSystem`, the collision model of MPS codes): pairs closer than 0.9 of
 *   the lattice spacing lose their approach velocity (restitution 0.2) before the pressure solve. The MPS
 *   pressure barely resists two particles closing in on each other (their number densities rise, but the
 *   Laplacian spreads the pressure over all neighbours); without collisions such pairs build up and the
 *   dam break of tests/mps.test.ts gains energy when they are pushed apart (kinetic plus potential energy
 *   rose from 2.8 to 9.3 J/kg in 0.15 s; measured), with them it loses energy throughout.
 * - Per-material rest density rho_i (the `MaterialTable`) enters the right-hand side and the correction
 *   u' = -(dt / rho_i) grad p; n0 is geometric and shared.
 * - Each correction dt u' is clamped to one particle radius (a safeguard, as in PBF; it does not act in a
 *   settled fluid).
 * - After the correction the number density is evaluated again at the new positions (same neighbour list,
 *   walls at the new positions) and `density` is set to rho0 n / n0, so the `Density` component and
 *   `stats.meanDensityError` / `maxDensityError` (publish.ts, the same particle selection as PBF) report
 *   |n / n0 - 1| at the end of the step.
 */

import { FluidError } from '../../core/errors';
import { collideParticles } from '../collide/cpu';
import { largestComponentSpeed, largestSpeed, type SimulationContext } from '../context';
import { hashCell } from '../neighbours/cpu';
import { MPS_MINIMUM_DISTANCE_FRACTION, type MpsState } from './data';
import { solveConjugateGradient } from './pcg';
import {
  addWallPressureImpulses,
  applyPressureCorrection,
  assemblePressureEquation,
  mpsViscosityScale,
} from './pressure';
import { mpsState } from './state';
import { computeMpsWallTerms } from './walls';

/**
 * Step-start system (after gather): the step's substep count. At least `settings.substeps`, and so many that
 * no particle moves more than `courantNumber` lattice spacings 2r per substep: ceil(dt v / (C 2r)) with v the
 * largest speed at the start of the step plus |g| dt (at most `settings.maxSpeed`), capped at `maxSubsteps`.
 * A pool at rest keeps the fixed substeps; a falling block gets more while it is fast (MPS codes keep the
 * Courant number near 0.2; the semi-implicit pressure does not stop a particle that crosses a neighbour's
 * place within one substep).
 */
export function mpsSubstepSystem(ctx: SimulationContext): void {
  planMpsSubsteps(ctx, largestSpeed(ctx.solver));
}

/**
 * Sets the step's substep count for the largest speed `speed` (m/s) at its start (see {@link mpsSubstepSystem}):
 * v = min(maxSpeed, speed + |g| dt).
 */
export function planMpsSubsteps(ctx: SimulationContext, speed: number): void {
  const settings = ctx.settings;
  const g = settings.gravity;
  const dt = ctx.frameTimeStep;
  const bound = Math.min(settings.maxSpeed, speed + Math.hypot(g[0], g[1], g[2]) * dt);
  const mps = mpsState(ctx).settings;
  const needed = Math.ceil((dt * bound) / (mps.courantNumber * 2 * settings.particleRadius));
  const count = Math.max(settings.substeps, Math.min(mps.maxSubsteps, needed));
  ctx.substepCount = count;
  ctx.substepTimeStep = dt / count;
}

/**
 * Step-start system of the WebGPU backend's MPS: the same substep planning without reading the GPU's velocities
 * back within the step, as WCSPH's `sphMirroredSubstepSystem` (sph/cpu.ts): from the `Velocity` components
 * when they hold the velocities the previous step ended with (`WebGpuSolver.velocitiesCurrent`), else from
 * `settings.maxSpeed` (more substeps than needed, never too few).
 */
export function mpsMirroredSubstepSystem(ctx: SimulationContext): void {
  if (ctx.gpu !== undefined && !ctx.gpu.solver.velocitiesCurrent()) {
    planMpsSubsteps(ctx, ctx.settings.maxSpeed);
    return;
  }
  planMpsSubsteps(ctx, largestComponentSpeed(ctx));
}

/**
 * Substep system, after the neighbour search: explicit viscosity nu lap u (eq. 7, 9) on the predicted
 * positions, added to the velocity and to the predicted position (r* = r + dt u*, eq. 10).
 */
export function mpsViscositySystem(ctx: SimulationContext): void {
  const state = mpsState(ctx);
  const nu = state.settings.kinematicViscosity;
  if (nu === 0) return;
  const s = ctx.solver;
  const n = s.count;
  const re = ctx.settings.kernelRadius;
  const reSquared = re * re;
  const floor = MPS_MINIMUM_DISTANCE_FRACTION * re;
  const dt = ctx.substepTimeStep;
  const { predictedX, predictedY, predictedZ, velocityX, velocityY, velocityZ, neighbourStart, neighbours } = s;
  const { deltaX, deltaY, deltaZ } = s;
  deltaX.fill(0, 0, n);
  deltaY.fill(0, 0, n);
  deltaZ.fill(0, 0, n);
  for (let i = 0; i < n; i++) {
    const xi = predictedX[i];
    const yi = predictedY[i];
    const zi = predictedZ[i];
    const end = neighbourStart[i + 1];
    for (let k = neighbourStart[i]; k < end; k++) {
      const j = neighbours[k];
      const rx = xi - predictedX[j];
      const ry = yi - predictedY[j];
      const rz = zi - predictedZ[j];
      const r2 = rx * rx + ry * ry + rz * rz;
      if (r2 >= reSquared) continue;
      const r = Math.sqrt(r2);
      const w = re / (r > floor ? r : floor) - 1;
      const ux = w * (velocityX[j] - velocityX[i]);
      const uy = w * (velocityY[j] - velocityY[i]);
      const uz = w * (velocityZ[j] - velocityZ[i]);
      deltaX[i] += ux;
      deltaY[i] += uy;
      deltaZ[i] += uz;
      deltaX[j] -= ux;
      deltaY[j] -= uy;
      deltaZ[j] -= uz;
    }
  }
  // Explicit diffusion is stable for dt nu 2d / lambda <= 0.5 (the diagonal of eq. 7 is 2d / lambda).
  const scale = mpsViscosityScale(state, dt);
  for (let i = 0; i < n; i++) {
    const dvx = scale * deltaX[i];
    const dvy = scale * deltaY[i];
    const dvz = scale * deltaZ[i];
    velocityX[i] += dvx;
    velocityY[i] += dvy;
    velocityZ[i] += dvz;
    predictedX[i] += dt * dvx;
    predictedY[i] += dt * dvy;
    predictedZ[i] += dt * dvz;
  }
}

/**
 * Substep system, after `mpsViscositySystem`: particle collisions (the collision model of MPS codes,
 * Koshizuka & Oka 1996). Each pair closer than `collisionDistance` x 2r at r* whose members approach
 * each other loses the approaching part of its relative velocity and gets restitution e of it back,
 * momentum conserved: dv_i = -(1 + e) m_j / (m_i + m_j) ((v_i - v_j) . n) n for the unit vector n from
 * j to i when (v_i - v_j) . n < 0; r* moves by dt dv. All pairs see the velocities before the system.
 */
export function mpsCollisionSystem(ctx: SimulationContext): void {
  const state = mpsState(ctx);
  const fraction = state.settings.collisionDistance;
  if (fraction === 0) return;
  const s = ctx.solver;
  const n = s.count;
  const limit = fraction * 2 * ctx.settings.particleRadius;
  const limitSquared = limit * limit;
  const factor = 1 + state.settings.collisionRestitution;
  const dt = ctx.substepTimeStep;
  const { predictedX, predictedY, predictedZ, velocityX, velocityY, velocityZ, mass, neighbourStart, neighbours } = s;
  const { deltaX, deltaY, deltaZ } = s;
  deltaX.fill(0, 0, n);
  deltaY.fill(0, 0, n);
  deltaZ.fill(0, 0, n);
  for (let i = 0; i < n; i++) {
    const xi = predictedX[i];
    const yi = predictedY[i];
    const zi = predictedZ[i];
    const end = neighbourStart[i + 1];
    for (let k = neighbourStart[i]; k < end; k++) {
      const j = neighbours[k];
      const rx = xi - predictedX[j];
      const ry = yi - predictedY[j];
      const rz = zi - predictedZ[j];
      const r2 = rx * rx + ry * ry + rz * rz;
      if (r2 >= limitSquared || r2 === 0) continue;
      // Approach speed along r = x_i - x_j, times |r|.
      const approach =
        (velocityX[i] - velocityX[j]) * rx + (velocityY[i] - velocityY[j]) * ry + (velocityZ[i] - velocityZ[j]) * rz;
      if (approach >= 0) continue;
      const impulse = (factor * approach) / (r2 * (mass[i] + mass[j]));
      const a = impulse * mass[j];
      deltaX[i] -= a * rx;
      deltaY[i] -= a * ry;
      deltaZ[i] -= a * rz;
      const b = impulse * mass[i];
      deltaX[j] += b * rx;
      deltaY[j] += b * ry;
      deltaZ[j] += b * rz;
    }
  }
  for (let i = 0; i < n; i++) {
    velocityX[i] += deltaX[i];
    velocityY[i] += deltaY[i];
    velocityZ[i] += deltaZ[i];
    predictedX[i] += dt * deltaX[i];
    predictedY[i] += dt * deltaY[i];
    predictedZ[i] += dt * deltaZ[i];
  }
}

/**
 * Number density of every particle at the predicted positions into `out`: the pair weights over the
 * substep's neighbour list (cached in `solver.pairWeight`) plus the walls' ghost number density (with the
 * walls' gradient and Laplacian sums when `fullWalls`). The list holds the pairs closer than h = r_e at
 * r* as the neighbour search saw it. The pressure correction then moves each particle by at most one
 * particle radius r (and the collision projection out of walls), so the end-of-substep density
 * (`solver.density`, a reported value that no later solve uses) can miss a pair that the correction brought
 * within r_e, each such pair with a weight of at most r_e / (r_e - 2r) - 1 (1 for r_e = 4r) when only the
 * correction moved it.
 */
function computeNumberDensity(ctx: SimulationContext, state: MpsState, out: Float64Array, fullWalls: boolean): void {
  const s = ctx.solver;
  const n = s.count;
  const re = ctx.settings.kernelRadius;
  const reSquared = re * re;
  const floor = MPS_MINIMUM_DISTANCE_FRACTION * re;
  const { neighbourStart, neighbours } = s;
  const x = s.predictedX;
  const y = s.predictedY;
  const z = s.predictedZ;
  computeMpsWallTerms(ctx, state.lattice.wallTables, state.walls, x, y, z, fullWalls);
  out.set(state.walls.numberDensity.subarray(0, n));
  const pairWeight = s.pairWeight;
  for (let i = 0; i < n; i++) {
    const xi = x[i];
    const yi = y[i];
    const zi = z[i];
    let sum = out[i];
    const end = neighbourStart[i + 1];
    for (let k = neighbourStart[i]; k < end; k++) {
      const j = neighbours[k];
      const rx = xi - x[j];
      const ry = yi - y[j];
      const rz = zi - z[j];
      const r2 = rx * rx + ry * ry + rz * rz;
      let w = 0;
      if (r2 < reSquared) {
        const r = Math.sqrt(r2);
        w = re / (r > floor ? r : floor) - 1;
        sum += w;
        out[j] += w;
      }
      pairWeight[k] = w;
    }
    out[i] = sum;
  }
}

/** The 13 cell offsets (dx, dy, dz) after a cell in z, y, x order: each pair of cells is visited once. */
const FORWARD_CELLS: readonly number[] = (() => {
  const offsets: number[] = [];
  for (let dz = -1; dz <= 1; dz++)
    for (let dy = -1; dy <= 1; dy++)
      for (let dx = -1; dx <= 1; dx++)
        if (dz > 0 || (dz === 0 && (dy > 0 || (dy === 0 && dx > 0)))) offsets.push(dx, dy, dz);
  return offsets;
})();

/**
 * Number density n at the start-of-substep positions r into `state.startNumberDensity`, exactly: its own
 * hash grid of r (cell size r_e; each pair of particles in the same or adjacent cells once) rather than
 * the substep's neighbour list, which holds the pairs within r_e at r* and so misses pairs that separate
 * past r_e within the substep (in the dam break of tests/mps.test.ts, up to 5% of n0 for one particle in
 * its first 0.75 s; measured), plus the walls' ghost number density at r. The conjugate gradient scratch
 * vectors, free until the solve, hold the sorted positions and sums.
 */
function computeStartNumberDensity(ctx: SimulationContext, state: MpsState): void {
  const s = ctx.solver;
  const n = s.count;
  const re = ctx.settings.kernelRadius;
  const reSquared = re * re;
  const floor = MPS_MINIMUM_DISTANCE_FRACTION * re;
  const inverseRe = 1 / re;
  const mask = s.tableMask;
  const x = s.positionX;
  const y = s.positionY;
  const z = s.positionZ;
  const out = state.startNumberDensity;
  computeMpsWallTerms(ctx, state.lattice.wallTables, state.walls, x, y, z, false);
  out.set(state.walls.numberDensity.subarray(0, n));
  const { startCellX, startCellY, startCellZ, startOrder, startBucket } = state;
  // Counting sort of the places by bucket: counts, inclusive prefix sums (the end of each bucket), then
  // each place, last first, goes before its bucket's end, which leaves startBucket[b] at bucket b's start.
  startBucket.fill(0);
  for (let i = 0; i < n; i++) {
    const cx = Math.floor(x[i] * inverseRe) | 0;
    const cy = Math.floor(y[i] * inverseRe) | 0;
    const cz = Math.floor(z[i] * inverseRe) | 0;
    startCellX[i] = cx;
    startCellY[i] = cy;
    startCellZ[i] = cz;
    startBucket[hashCell(cx, cy, cz, mask)]++;
  }
  for (let b = 1; b <= mask; b++) startBucket[b] += startBucket[b - 1];
  startBucket[mask + 1] = n;
  for (let i = n - 1; i >= 0; i--) {
    startOrder[--startBucket[hashCell(startCellX[i], startCellY[i], startCellZ[i], mask)]] = i;
  }
  // Positions, cells and sums in sorted order (contiguous for the pair loop).
  const { residual: sortedX, preconditioned: sortedY, direction: sortedZ, product: sums } = state.scratch;
  const cellX = state.divergence; // free until the assembly; cells are small integers, exact in float64
  const cellY = state.minimumPressure; // free until the correction
  const cellZ = state.solution; // the warm start is written by the assembly, after this
  for (let k = 0; k < n; k++) {
    const i = startOrder[k];
    sortedX[k] = x[i];
    sortedY[k] = y[i];
    sortedZ[k] = z[i];
    cellX[k] = startCellX[i];
    cellY[k] = startCellY[i];
    cellZ[k] = startCellZ[i];
    sums[k] = 0;
  }
  const forward = FORWARD_CELLS;
  for (let k = 0; k < n; k++) {
    const xk = sortedX[k];
    const yk = sortedY[k];
    const zk = sortedZ[k];
    const cx = cellX[k];
    const cy = cellY[k];
    const cz = cellZ[k];
    let sum = sums[k];
    // The own cell: the entries after k in its bucket (the bucket may hold other cells too).
    const ownEnd = startBucket[hashCell(cx, cy, cz, mask) + 1];
    for (let m = k + 1; m < ownEnd; m++) {
      if (cellX[m] !== cx || cellY[m] !== cy || cellZ[m] !== cz) continue;
      const rx = xk - sortedX[m];
      const ry = yk - sortedY[m];
      const rz = zk - sortedZ[m];
      const r2 = rx * rx + ry * ry + rz * rz;
      if (r2 >= reSquared) continue;
      const r = Math.sqrt(r2);
      const w = re / (r > floor ? r : floor) - 1;
      sum += w;
      sums[m] += w;
    }
    for (let f = 0; f < forward.length; f += 3) {
      const ox = cx + forward[f];
      const oy = cy + forward[f + 1];
      const oz = cz + forward[f + 2];
      const b = hashCell(ox, oy, oz, mask);
      const end = startBucket[b + 1];
      for (let m = startBucket[b]; m < end; m++) {
        if (cellX[m] !== ox || cellY[m] !== oy || cellZ[m] !== oz) continue;
        const rx = xk - sortedX[m];
        const ry = yk - sortedY[m];
        const rz = zk - sortedZ[m];
        const r2 = rx * rx + ry * ry + rz * rz;
        if (r2 >= reSquared) continue;
        const r = Math.sqrt(r2);
        const w = re / (r > floor ? r : floor) - 1;
        sum += w;
        sums[m] += w;
      }
    }
    sums[k] = sum;
  }
  for (let k = 0; k < n; k++) out[startOrder[k]] += sums[k];
}

/**
 * Substep system, after `mpsViscositySystem`: collide r*, number density n*, the pressure Poisson equation
 * (eq. 14) with free-surface particles at p = 0 (eq. 18) solved by Jacobi-preconditioned conjugate
 * gradients, the pressure correction (eq. 15-17), collide again, and the end-of-substep number density as
 * `solver.density` = rho0 n / n0. Iterations and residual go to `stats.pressureSolve*`.
 */
export function mpsPressureSystem(ctx: SimulationContext): void {
  const state = mpsState(ctx);
  const s = ctx.solver;
  const n = s.count;
  const stats = ctx.stats;
  if (ctx.substepIndex === 0) {
    stats.pressureSolveIterations = 0;
    stats.pressureSolveResidual = 0;
  }
  s.contactCollider.fill(-1, 0, n);
  collideParticles(ctx);
  computeStartNumberDensity(ctx, state);
  computeNumberDensity(ctx, state, state.numberDensity, true);
  assemblePressureEquation(ctx, state);
  const { matrix, solution, pressure, surface, unknownOfPlace, pressureOfEntity } = state;
  const result = solveConjugateGradient(
    matrix,
    state.rightHandSide,
    solution,
    state.settings.tolerance,
    state.settings.maxIterations,
    state.scratch,
    state.solveResult,
  );
  if (result.iterations > stats.pressureSolveIterations) stats.pressureSolveIterations = result.iterations;
  if (result.residual > stats.pressureSolveResidual) stats.pressureSolveResidual = result.residual;
  for (let i = 0; i < n; i++) {
    const u = unknownOfPlace[i];
    const p = surface[i] === 1 ? 0 : solution[u];
    if (!Number.isFinite(p)) throw new FluidError(`the pressure solve gave ${p} Pa for particle ${s.entity[i]}`);
    pressure[i] = p > 0 ? p : 0;
    pressureOfEntity[s.entity[i]] = pressure[i];
  }
  addWallPressureImpulses(ctx, state);
  applyPressureCorrection(ctx, state);
  collideParticles(ctx);
  // End-of-substep number density, reported as rho0 n / n0.
  const density = s.density;
  computeNumberDensity(ctx, state, density, false);
  const inverseN0 = 1 / state.lattice.restNumberDensity;
  const inverseRestDensity = ctx.materials.inverseRestDensity;
  for (let i = 0; i < n; i++) density[i] = (density[i] * inverseN0) / inverseRestDensity[s.material[i]];
}

/** Substep system, after the velocity update: x = x* (the end of the substep). */
export function mpsCommitSystem(ctx: SimulationContext): void {
  const s = ctx.solver;
  const n = s.count;
  s.positionX.set(s.predictedX.subarray(0, n));
  s.positionY.set(s.predictedY.subarray(0, n));
  s.positionZ.set(s.predictedZ.subarray(0, n));
}
