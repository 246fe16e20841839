/**
 * Surface fitting onto walls (Harada, Koshizuka & Kawaguchi 2007, section 5.2): a vertex of the
 * reconstructed surface closer than `fitDistance` to a collider's wall is on that wall, and is moved to the
 * closest wall point with the collider's distance function d and its gradient n (eq. 19):
 *
 *   x' = x - d(x) n(x).
 *
 * Distances and gradients are the ones the solver collides with (`fluidSideDistance` of collide/cpu.ts:
 * analytic boxes, spheres, capsules, planes, and mesh signed distance fields), in each collider's current
 * pose. d is the distance on the fluid side (positive where fluid belongs, so a vertex that poked into the
 * wall is pulled back too) and n points to the fluid side. A mesh field is trilinear, so its projection is
 * repeated (at most 4 times) until the vertex is within 1e-4 of the fitting distance from the wall. A fitted
 * vertex's normal becomes the wall's (pointing out of the fluid, into the wall).
 */

import { FluidError } from '../../core/errors';
import { fluidSideDistance, fluidSidePoint, writePose } from '../collide/cpu';
import { POSE_SIZE, type SimulationContext } from '../context';
import type { FluidSimulation } from '../simulation';

const pose = new Float64Array(POSE_SIZE);
const sample = new Float64Array(4);
/** Extra projections for fields whose single projection does not land exactly on the wall. */
const REFINEMENTS = 4;

/**
 * Moves the vertices of `positions` (x, y, z per vertex, world space, the first `vertexCount`) that lie
 * within `fitDistance` of a wall of any collider of `simulation` onto that wall (eq. 19), in each collider's
 * current pose, and sets their normals (in `normals`, same layout) to the wall's normal pointing out of the
 * fluid. Colliders are visited in their table order; a vertex near two walls (a corner) ends on the last
 * one's. Typically called on a `SurfaceExtractor`'s `positions`, `normals` and `vertexCount` right
 * after `extract`.
 *
 * @param simulation - The simulation whose colliders are the walls (either backend: colliders live on the CPU).
 * @param positions - Vertex positions (m), modified in place.
 * @param normals - Unit vertex normals, same layout; those of moved vertices are replaced.
 * @param vertexCount - Number of vertices to read: an integer in [0, min(positions.length, normals.length) / 3].
 * @param fitDistance - Fitting distance (m, finite, >= 0); 0 moves nothing.
 * @returns The number of vertices moved.
 * @throws {@link FluidError} for a `fitDistance` or `vertexCount` out of range, or arrays that are not
 * `Float32Array`s.
 */
export function fitSurfaceToColliders(
  simulation: FluidSimulation,
  positions: Float32Array,
  normals: Float32Array,
  vertexCount: number,
  fitDistance: number,
): number {
  if (!(positions instanceof Float32Array) || !(normals instanceof Float32Array)) {
    throw new FluidError('fitSurfaceToColliders: positions and normals must be Float32Arrays');
  }
  const most = Math.floor(Math.min(positions.length, normals.length) / 3);
  if (!(Number.isInteger(vertexCount) && vertexCount >= 0 && vertexCount <= most)) {
    throw new FluidError(`vertexCount is ${String(vertexCount)}; it must be an integer in [0, ${most}]`);
  }
  return fitSurfaceToContextColliders(simulation.internalContext, positions, normals, vertexCount, fitDistance);
}

/**
 * @internal {@link fitSurfaceToColliders} on a simulation context (`vertexCount` is trusted): the same
 * fitting for the colliders of `ctx`. A negative or non-finite `fitDistance` throws {@link FluidError}.
 */
export function fitSurfaceToContextColliders(
  ctx: SimulationContext,
  positions: Float32Array,
  normals: Float32Array,
  vertexCount: number,
  fitDistance: number,
): number {
  if (!(typeof fitDistance === 'number' && fitDistance >= 0 && Number.isFinite(fitDistance))) {
    throw new FluidError(`fitDistance is ${String(fitDistance)}; it must be a finite number >= 0 (m)`);
  }
  const table = ctx.colliders;
  const c = ctx.components.Collider;
  let moved = 0;
  for (let slot = 0; slot < table.count; slot++) {
    const eid = table.entity[slot];
    writePose(pose, 0, c.rotationX[eid], c.rotationY[eid], c.rotationZ[eid], c.rotationW[eid], 0, 0, 0, 1);
    const r00 = pose[0];
    const r01 = pose[1];
    const r02 = pose[2];
    const r10 = pose[3];
    const r11 = pose[4];
    const r12 = pose[5];
    const r20 = pose[6];
    const r21 = pose[7];
    const r22 = pose[8];
    const tx = c.positionX[eid];
    const ty = c.positionY[eid];
    const tz = c.positionZ[eid];
    const scale = c.scale[eid];
    const inverseScale = 1 / scale;
    const localFit = fitDistance * inverseScale;
    const tolerance = 1e-4 * localFit;
    for (let v = 0; v < vertexCount; v++) {
      const p = 3 * v;
      const wx = positions[p] - tx;
      const wy = positions[p + 1] - ty;
      const wz = positions[p + 2] - tz;
      // World to local: R^T (x - t) / s.
      let lx = (r00 * wx + r10 * wy + r20 * wz) * inverseScale;
      let ly = (r01 * wx + r11 * wy + r21 * wz) * inverseScale;
      let lz = (r02 * wx + r12 * wy + r22 * wz) * inverseScale;
      fluidSidePoint[0] = lx;
      fluidSidePoint[1] = ly;
      fluidSidePoint[2] = lz;
      fluidSideDistance(ctx, eid, fluidSidePoint, sample);
      if (!(sample[0] < localFit)) continue;
      let nx = sample[1];
      let ny = sample[2];
      let nz = sample[3];
      for (let round = 0; round <= REFINEMENTS; round++) {
        const d = sample[0];
        lx -= d * sample[1];
        ly -= d * sample[2];
        lz -= d * sample[3];
        nx = sample[1];
        ny = sample[2];
        nz = sample[3];
        fluidSidePoint[0] = lx;
        fluidSidePoint[1] = ly;
        fluidSidePoint[2] = lz;
        fluidSideDistance(ctx, eid, fluidSidePoint, sample);
        if (Math.abs(sample[0]) <= tolerance) break;
      }
      // Back to world: s R l + t; the normal out of the fluid is -R n.
      positions[p] = scale * (r00 * lx + r01 * ly + r02 * lz) + tx;
      positions[p + 1] = scale * (r10 * lx + r11 * ly + r12 * lz) + ty;
      positions[p + 2] = scale * (r20 * lx + r21 * ly + r22 * lz) + tz;
      normals[p] = -(r00 * nx + r01 * ny + r02 * nz);
      normals[p + 1] = -(r10 * nx + r11 * ny + r12 * nz);
      normals[p + 2] = -(r20 * nx + r21 * ny + r22 * nz);
      moved++;
    }
  }
  return moved;
}
