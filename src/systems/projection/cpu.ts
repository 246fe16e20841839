/**
 * Coarse pressure projection: the global half of the incompressibility solve of the PBF solver
 * (docs/method.md, "Still water"). The density constraints of Macklin & Müller (2013) are
 * solved by Jacobi iterations, whose corrections reach about one kernel radius per iteration: a column
 * of water 30 particles deep cannot feel its floor within the 2 x 3 iterations of a frame, sags, and
 * the corrections that catch up later throw it back up. This system gives the solve the missing global
 * reach once per substep, after the positions are predicted and the neighbours found, before the density
 * constraints: it makes the particles' velocity field free of divergence on a staggered grid of cell size
 * h, the pressure projection of grid solvers (a pressure Poisson equation, as MPS solves on particles,
 * Premoze et al. 2003, eq. 14), and hands the change back to the particles as an increment, so their own detail is kept. The density
 * constraints then only fix what is local.
 *
 * Each particle spreads its mass, rest volume and volume flux over the faces around it with trilinear
 * weights normalised over the faces that carry fluid; the faces' volume-weighted velocities are made free
 * of divergence (volume, not mass, is what incompressible fluids keep: a bubble rising through water is a
 * zero volume flux but a downward mass flux), and each particle (and each rigid-fluid body) is pushed by
 * -grad phi / rho of its own density (its share weight; a light fluid is pushed harder than a heavy one:
 * buoyancy on the grid). Between two cells full of fluid a face's mobility is its mean of 1 / rho over a
 * full cell's rest volume, not over the mass the particles happen to put on it (see `faceMobility`), so
 * water at rest is held up evenly; the momentum those faces give beyond the telescoped pressure is taken
 * back from all particles alike, so the particles gain exactly the pressure the walls exert. That pressure,
 * and the velocity change of the faces on a collider, is what a coupled collider receives.
 *
 * One substep, in order (each a function of grid.ts, transfer.ts or solve.ts; the WebGPU passes of
 * projection/gpu.ts mirror them):
 * 1. plan: cells of the kernel radius h over the predicted positions' bounding box (and coupled bodies
 *    with a mass) with two cells of margin; a box beyond `maxCells` is cut around its center;
 * 2. occupancy: each particle marks its cell as fluid;
 * 3. cells: every cell center's nearest collider; a cell without particles is solid where that collider's
 *    surface lies between it and the fluid side, else air;
 * 3b. surface: fluid cells within SURFACE_LAYERS cells of air are left to the density constraints; with
 *    `projection.freeSurface` (the default) they grow back over water 2 SURFACE_LAYERS + 1 cells thick, and
 *    each particle whose cell the solve holds is marked for the s_corr rest offset (`projectionSolved`);
 * 4. faces: a face between a solid and another cell, or across a wall thinner than a cell, is solid (the
 *    collider's surface velocity along the axis); a face with fluid on a side is open; else dead;
 * 5. scatter: each particle adds m w, V w, V w v and its share weights (w: trilinear weights normalised over
 *    the non-dead faces) to the faces of each axis, and, with a full neighbourhood, its density error of the last solve to its
 *    cell;
 * 6. solve: A phi = b over the fluid cells, A phi = sum over open faces of H^2 k_f (phi_c - phi_n), k_f the
 *    face's mobility (1 / (rho0 V_full) between full cells, 1 / M_f elsewhere, for one fluid; see faceMobility)
 *    (phi = 0 in air), b the divergence target minus the divergence of the face velocities; the target
 *    is beta (rho / rho0 - 1) H / dt, which spreads a compressed cell and draws fluid into an expanded one
 *    (beta per substep); Jacobi-preconditioned conjugate gradients from the last substep's phi when the grid
 *    is the same (phi = p dt does not change in water at rest);
 * 7. changes: dv_f = -(phi_b - phi_a) H^2 k_f on open faces, the collider's velocity minus the fluid's on
 *    solid faces;
 * 8. gather: each particle gets the weighted changes: v += dv, x* += dt dv; coupled colliders receive
 *    minus what their faces gave the fluid.
 */

import type { SimulationContext } from '../context';
import { classifyCells, classifyFaces, erodeSurfaceCells, markFluidCells, markSolvedParticles, planGrid } from './grid';
import { solvePressure } from './solve';
import { faceChanges, gatherFromGrid, scatterToGrid } from './transfer';

/** The substep system (after predict): the whole projection; see the file comment. */
export function projectionSystem(ctx: SimulationContext): void {
  const state = ctx.projection;
  const freeSurface = ctx.settings.projectionFreeSurface;
  if (!ctx.settings.projection || !planGrid(ctx, state)) {
    // No solve this substep: no particle takes the s_corr rest offset (markSolvedParticles sets them all else).
    if (freeSurface) ctx.solver.projectionSolved.fill(0, 0, ctx.solver.count);
    return;
  }
  markFluidCells(ctx, state);
  classifyCells(ctx, state);
  erodeSurfaceCells(ctx, state);
  if (freeSurface) markSolvedParticles(ctx, state);
  classifyFaces(ctx, state);
  scatterToGrid(ctx, state);
  solvePressure(ctx, state);
  faceChanges(ctx, state);
  gatherFromGrid(ctx, state);
  const previous = state.previousPlan;
  previous.cellSize = state.plan.cellSize;
  previous.origin.set(state.plan.origin);
  previous.dims.set(state.plan.dims);
  previous.cells = state.plan.cells;
  ctx.stats.projectionIterations = Math.max(ctx.stats.projectionIterations, state.iterations);
}
