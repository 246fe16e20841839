/**
 * Collisions with colliders, analytic (box, sphere, capsule, plane) or signed distance fields baked from
 * meshes, solved inside the density constraint loop (Algorithm 1, line 14 of Macklin & Müller 2013). Each
 * particle is taken into the collider's local space (l = R^T (x - t) / s for a pose of rotation R,
 * translation t and uniform scale s), its signed distance d to the shape (negative inside) and the distance
 * gradient are evaluated, and the particle is projected to keep s d >= r (solid) or s d <= -r (container),
 * r = particle radius. Colliders move between steps; within a step their pose is interpolated per substep,
 * so a moving collider pushes particles with its own velocity. The relative path of each particle over the
 * substep (from its start-of-substep position in the start pose to its current one in the end pose) is
 * sphere-traced, so a fast or thin wall cannot be crossed within one substep (no tunnelling).
 */

import { ColliderShape } from '../../components';
import { WALL_WEIGHT_SAMPLES } from '../../core/kernels';
import { COLLIDER_FRAME_STRIDE, POSE_SIZE, type SimulationContext } from '../context';
import { addPendingPush, flushPendingPushes, opposePendingPushes, recordWallGradient } from '../couple/cpu';
import { EXTRA_PROJECTIONS, MAXIMUM_MARCH_STEPS } from './constants';
import { boxDistance, capsuleDistance, meshDistance, planeDistance, sphereDistance } from './shapes';
import { containerCollideInWebAssembly, containerWallsInWebAssembly } from './wasm';

/**
 * Writes a pose to `frames[offset .. offset + POSE_SIZE - 1]`: the rotation matrix of quaternion
 * (qx, qy, qz, qw) (normalised here; row-major, local to world), the translation and the uniform scale.
 */
export function writePose(
  frames: Float64Array,
  offset: number,
  qx: number,
  qy: number,
  qz: number,
  qw: number,
  tx: number,
  ty: number,
  tz: number,
  scale: number,
): void {
  const length = Math.sqrt(qx * qx + qy * qy + qz * qz + qw * qw);
  if (length > 0) {
    qx /= length;
    qy /= length;
    qz /= length;
    qw /= length;
  } else {
    qw = 1;
  }
  frames[offset] = 1 - 2 * (qy * qy + qz * qz);
  frames[offset + 1] = 2 * (qx * qy - qz * qw);
  frames[offset + 2] = 2 * (qx * qz + qy * qw);
  frames[offset + 3] = 2 * (qx * qy + qz * qw);
  frames[offset + 4] = 1 - 2 * (qx * qx + qz * qz);
  frames[offset + 5] = 2 * (qy * qz - qx * qw);
  frames[offset + 6] = 2 * (qx * qz - qy * qw);
  frames[offset + 7] = 2 * (qy * qz + qx * qw);
  frames[offset + 8] = 1 - 2 * (qx * qx + qy * qy);
  frames[offset + 9] = tx;
  frames[offset + 10] = ty;
  frames[offset + 11] = tz;
  frames[offset + 12] = scale;
}

function interpolatePose(ctx: SimulationContext, eid: number, t: number, frames: Float64Array, offset: number): void {
  const c = ctx.components.Collider;
  const px = c.previousPositionX[eid] + (c.positionX[eid] - c.previousPositionX[eid]) * t;
  const py = c.previousPositionY[eid] + (c.positionY[eid] - c.previousPositionY[eid]) * t;
  const pz = c.previousPositionZ[eid] + (c.positionZ[eid] - c.previousPositionZ[eid]) * t;
  let ax = c.previousRotationX[eid];
  let ay = c.previousRotationY[eid];
  let az = c.previousRotationZ[eid];
  let aw = c.previousRotationW[eid];
  const bx = c.rotationX[eid];
  const by = c.rotationY[eid];
  const bz = c.rotationZ[eid];
  const bw = c.rotationW[eid];
  // Shortest arc, then normalised linear interpolation (close to slerp for the small per-step angles).
  if (ax * bx + ay * by + az * bz + aw * bw < 0) {
    ax = -ax;
    ay = -ay;
    az = -az;
    aw = -aw;
  }
  writePose(
    frames,
    offset,
    ax + (bx - ax) * t,
    ay + (by - ay) * t,
    az + (bz - az) * t,
    aw + (bw - aw) * t,
    px,
    py,
    pz,
    c.previousScale[eid] + (c.scale[eid] - c.previousScale[eid]) * t,
  );
}

const distanceScratch = new Float64Array(4);

/** Makes the collider's current pose its previous one: the next step starts from here (no sweep). */
export function commitColliderPose(ctx: SimulationContext, eid: number): void {
  const c = ctx.components.Collider;
  c.previousPositionX[eid] = c.positionX[eid];
  c.previousPositionY[eid] = c.positionY[eid];
  c.previousPositionZ[eid] = c.positionZ[eid];
  c.previousRotationX[eid] = c.rotationX[eid];
  c.previousRotationY[eid] = c.rotationY[eid];
  c.previousRotationZ[eid] = c.rotationZ[eid];
  c.previousRotationW[eid] = c.rotationW[eid];
  c.previousScale[eid] = c.scale[eid];
}

/**
 * End of a step, on every backend: each collider's pose becomes its previous one, so the next step sweeps
 * it from where this one ended (without this a moving collider would be swept from an older pose).
 */
export function commitColliderPoses(ctx: SimulationContext): void {
  const table = ctx.colliders;
  for (let slot = 0; slot < table.count; slot++) commitColliderPose(ctx, table.entity[slot]);
}

/** Substep system: poses of every collider at the start and end of this substep (of `ctx.substepCount`). */
export function colliderPoseSystem(ctx: SimulationContext): void {
  const table = ctx.colliders;
  const substeps = ctx.substepCount;
  const t0 = ctx.substepIndex / substeps;
  const t1 = (ctx.substepIndex + 1) / substeps;
  for (let slot = 0; slot < table.count; slot++) {
    const eid = table.entity[slot];
    interpolatePose(ctx, eid, t1, table.frames, slot * COLLIDER_FRAME_STRIDE);
    interpolatePose(ctx, eid, t0, table.frames, slot * COLLIDER_FRAME_STRIDE + POSE_SIZE);
  }
}

/** What `sweptContact` found: the push (local units, x, y, z), the normal into the fluid (local), 1 if the particle started inside. */
const contactScratch = new Float64Array(7);

/**
 * The contact of a particle with collider `eid` (any shape but a container box): the local push that puts it at
 * distance `localRadius` on the fluid side, from its local point (lx, ly, lz) at the end pose and its world
 * position (startX, startY, startZ) at the start of the substep (the start pose is at `s0` in `frames`), into
 * `result` (see {@link contactScratch}); false where it needs none.
 */
function sweptContact(
  ctx: SimulationContext,
  eid: number,
  frames: Float64Array,
  s0: number,
  inverseStartScale: number,
  lx: number,
  ly: number,
  lz: number,
  startX: number,
  startY: number,
  startZ: number,
  localRadius: number,
  result: Float64Array,
): boolean {
  const out = distanceScratch;
  fluidSidePoint[0] = lx;
  fluidSidePoint[1] = ly;
  fluidSidePoint[2] = lz;
  fluidSideDistance(ctx, eid, fluidSidePoint, out, localRadius);
  let endDistance = out[0];
  let nx = out[1];
  let ny = out[2];
  let nz = out[3];
  let ex = lx;
  let ey = ly;
  let ez = lz;
  let startDistance = Number.NaN;
  // Swept test: the path from the particle's start-of-substep position (in the collider's start pose)
  // to its current one (end pose) is the relative motion. If it enters the wall, the particle is put
  // back where it entered, not pushed through the nearest face, which for a thin or fast wall may be
  // the far side (no tunnelling).
  const qx = startX - frames[s0 + 9];
  const qy = startY - frames[s0 + 10];
  const qz = startZ - frames[s0 + 11];
  const sx = (frames[s0] * qx + frames[s0 + 3] * qy + frames[s0 + 6] * qz) * inverseStartScale;
  const sy = (frames[s0 + 1] * qx + frames[s0 + 4] * qy + frames[s0 + 7] * qz) * inverseStartScale;
  const sz = (frames[s0 + 2] * qx + frames[s0 + 5] * qy + frames[s0 + 8] * qz) * inverseStartScale;
  const pathX = lx - sx;
  const pathY = ly - sy;
  const pathZ = lz - sz;
  const pathLength = Math.sqrt(pathX * pathX + pathY * pathY + pathZ * pathZ);
  // The distance is 1-Lipschitz: a path shorter than both distances cannot touch the surface.
  if (pathLength > (endDistance > 0 ? endDistance : 0)) {
    fluidSidePoint[0] = sx;
    fluidSidePoint[1] = sy;
    fluidSidePoint[2] = sz;
    fluidSideDistance(ctx, eid, fluidSidePoint, out, 0);
    startDistance = out[0];
    if (startDistance > 0 && pathLength > startDistance + (endDistance > 0 ? endDistance : 0)) {
      // Sphere tracing along the path to the first surface contact.
      let t = 0;
      let hit = false;
      const contactTolerance = 1e-6 * localRadius;
      for (let march = 0; march < MAXIMUM_MARCH_STEPS && t < 1; march++) {
        fluidSidePoint[0] = sx + t * pathX;
        fluidSidePoint[1] = sy + t * pathY;
        fluidSidePoint[2] = sz + t * pathZ;
        fluidSideDistance(ctx, eid, fluidSidePoint, out, contactTolerance);
        if (out[0] < contactTolerance) {
          hit = true;
          break;
        }
        t += out[0] / pathLength;
      }
      if (hit) {
        ex = sx + t * pathX;
        ey = sy + t * pathY;
        ez = sz + t * pathZ;
        endDistance = out[0];
        nx = out[1];
        ny = out[2];
        nz = out[3];
      }
    }
  }
  if (endDistance >= localRadius) return false;
  // Push from the current local point to the contact point lifted to distance r.
  let fx = ex + (localRadius - endDistance) * nx;
  let fy = ey + (localRadius - endDistance) * ny;
  let fz = ez + (localRadius - endDistance) * nz;
  // In a concave corner (the inside of a mesh container, a crease of a solid) one push along the
  // nearest wall's normal can leave the particle too close to the next wall: project again.
  for (let round = 0; round < EXTRA_PROJECTIONS; round++) {
    fluidSidePoint[0] = fx;
    fluidSidePoint[1] = fy;
    fluidSidePoint[2] = fz;
    fluidSideDistance(ctx, eid, fluidSidePoint, out, localRadius);
    const deficit = localRadius - out[0];
    if (deficit <= 1e-3 * localRadius) break;
    fx += deficit * out[1];
    fy += deficit * out[2];
    fz += deficit * out[3];
  }
  result[0] = fx - lx;
  result[1] = fy - ly;
  result[2] = fz - lz;
  result[3] = nx;
  result[4] = ny;
  result[5] = nz;
  if (Number.isNaN(startDistance)) {
    fluidSidePoint[0] = sx;
    fluidSidePoint[1] = sy;
    fluidSidePoint[2] = sz;
    fluidSideDistance(ctx, eid, fluidSidePoint, out, 0);
    startDistance = out[0];
  }
  // A particle whose center was already inside the wall at the start of the substep (a collider
  // added or teleported onto the fluid, a particle spawned inside) is moved out without gaining
  // velocity: its start position moves with it (pre-stabilisation, Macklin et al. 2014, section
  // 4.4), so the overlap neither explodes nor pushes a coupled body.
  result[6] = startDistance < 0 ? 1 : 0;
  return true;
}

/**
 * Projects every particle's predicted position out of (or into, for containers) every collider and
 * records the contact (collider slot, normal into the fluid, approach speed) for the velocity system.
 * Solids are projected first and containers last, so that a particle squeezed between a solid and a
 * container wall ends inside the container: fluid never leaves a container.
 */
export function collideParticles(ctx: SimulationContext): void {
  const table = ctx.colliders;
  if (table.count === 0) return;
  const s = ctx.solver;
  const n = s.count;
  const r = ctx.settings.particleRadius;
  const c = ctx.components.Collider;
  const frames = table.frames;
  const dt = ctx.substepTimeStep;
  const { positionX, positionY, positionZ, predictedX, predictedY, predictedZ, velocityX, velocityY, velocityZ } = s;
  const { contactCollider, contactNormalX, contactNormalY, contactNormalZ, contactApproachSpeed } = s;
  const contact = contactScratch;
  // Pending pushes exist only with coupled colliders (this pass's) or the coupled walls' share (accumulated
  // before it); without either there is nothing to oppose or hand over, and the per-particle checks are skipped.
  let pendingPushes = ctx.coupling.count > 0;
  for (let slot = 0; slot < table.count; slot++) {
    if (ctx.components.BodyCoupling.coupled[table.entity[slot]] === 1) pendingPushes = true;
  }
  for (let visit = 0; visit < 2 * table.count; visit++) {
    const slot = visit % table.count;
    const eid = table.entity[slot];
    // First round: solids; second round: containers.
    if ((c.container[eid] === 1) !== visit >= table.count) continue;
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
    // The start-of-substep pose, for the swept test and the surface velocity.
    const s0 = o + POSE_SIZE;
    const startScale = frames[s0 + 12];
    const inverseStartScale = 1 / startScale;
    // Everything below is in local units: the particle radius too.
    const localRadius = r * inverseScale;
    const container = c.container[eid] === 1;
    const coupled = ctx.components.BodyCoupling.coupled[eid] === 1;
    const containerBox = c.shape[eid] === ColliderShape.box && container;
    const minX = c.ax[eid] + localRadius;
    const minY = c.ay[eid] + localRadius;
    const minZ = c.az[eid] + localRadius;
    const maxX = c.bx[eid] - localRadius;
    const maxY = c.by[eid] - localRadius;
    const maxZ = c.bz[eid] - localRadius;
    if (
      containerBox &&
      !pendingPushes &&
      containerCollideInWebAssembly(ctx, slot, inverseScale, minX, minY, minZ, maxX, maxY, maxZ)
    )
      continue;
    for (let i = 0; i < n; i++) {
      // World to local: R^T (x - t) / s.
      const wx = predictedX[i] - tx;
      const wy = predictedY[i] - ty;
      const wz = predictedZ[i] - tz;
      const lx = (r00 * wx + r10 * wy + r20 * wz) * inverseScale;
      const ly = (r01 * wx + r11 * wy + r21 * wz) * inverseScale;
      const lz = (r02 * wx + r12 * wy + r22 * wz) * inverseScale;
      let nx: number;
      let ny: number;
      let nz: number;
      // Local displacement that puts the particle back on the fluid side, at distance r from the wall.
      let pushX: number;
      let pushY: number;
      let pushZ: number;
      let penetrating = false;
      if (containerBox) {
        // Exact projection into the box shrunk by r, axis by axis (a corner is fixed in one go).
        const cx = lx < minX ? minX : lx > maxX ? maxX : lx;
        const cy = ly < minY ? minY : ly > maxY ? maxY : ly;
        const cz = lz < minZ ? minZ : lz > maxZ ? maxZ : lz;
        pushX = cx - lx;
        pushY = cy - ly;
        pushZ = cz - lz;
        // Inside, the push is 0 (the square root only where it is not: the same test, sqrt(s) = 0 where s = 0).
        const depthSquared = pushX * pushX + pushY * pushY + pushZ * pushZ;
        if (depthSquared === 0) continue;
        const depth = Math.sqrt(depthSquared);
        nx = pushX / depth;
        ny = pushY / depth;
        nz = pushZ / depth;
      } else {
        if (
          !sweptContact(
            ctx,
            eid,
            frames,
            s0,
            inverseStartScale,
            lx,
            ly,
            lz,
            positionX[i],
            positionY[i],
            positionZ[i],
            localRadius,
            contact,
          )
        ) {
          continue;
        }
        pushX = contact[0];
        pushY = contact[1];
        pushZ = contact[2];
        nx = contact[3];
        ny = contact[4];
        nz = contact[5];
        penetrating = contact[6] === 1;
      }
      // Back to world space: the push (s R push) and the normal (R n).
      const worldPushX = scale * (r00 * pushX + r01 * pushY + r02 * pushZ);
      const worldPushY = scale * (r10 * pushX + r11 * pushY + r12 * pushZ);
      const worldPushZ = scale * (r20 * pushX + r21 * pushY + r22 * pushZ);
      predictedX[i] += worldPushX;
      predictedY[i] += worldPushY;
      predictedZ[i] += worldPushZ;
      if (penetrating) {
        positionX[i] += worldPushX;
        positionY[i] += worldPushY;
        positionZ[i] += worldPushZ;
      }
      const wnx = r00 * nx + r01 * ny + r02 * nz;
      const wny = r10 * nx + r11 * ny + r12 * nz;
      const wnz = r20 * nx + r21 * ny + r22 * nz;
      // Coupled colliders' pushes wait until the end of the pass; this push takes back what it undoes of
      // another collider's (see `addPendingPush` in couple/cpu.ts).
      if (pendingPushes) opposePendingPushes(ctx, i, slot, worldPushX, worldPushY, worldPushZ);
      if (coupled && !penetrating) addPendingPush(ctx, i, slot, worldPushX, worldPushY, worldPushZ);
      // Velocity of the collider's surface at this particle over the substep (rigid motion and scaling):
      // where the local point l was at the start of the substep, s0 R0 l + t0.
      const px = startScale * (frames[s0] * lx + frames[s0 + 1] * ly + frames[s0 + 2] * lz) + frames[s0 + 9];
      const py = startScale * (frames[s0 + 3] * lx + frames[s0 + 4] * ly + frames[s0 + 5] * lz) + frames[s0 + 10];
      const pz = startScale * (frames[s0 + 6] * lx + frames[s0 + 7] * ly + frames[s0 + 8] * lz) + frames[s0 + 11];
      const ux = (wx + tx - px) / dt;
      const uy = (wy + ty - py) / dt;
      const uz = (wz + tz - pz) / dt;
      if (contactCollider[i] !== slot) {
        const approach = (velocityX[i] - ux) * wnx + (velocityY[i] - uy) * wny + (velocityZ[i] - uz) * wnz;
        contactApproachSpeed[i] = approach < 0 ? approach : 0;
      }
      contactCollider[i] = slot;
      contactNormalX[i] = wnx;
      contactNormalY[i] = wny;
      contactNormalZ[i] = wnz;
    }
  }
  if (pendingPushes) flushPendingPushes(ctx);
}

/**
 * Velocity of collider `slot`'s surface at world point `point` (x, y, z) over the current substep, written to
 * `out` (which may be `point`; the point comes in an array, as `fluidSidePoint` explains).
 */
export function colliderSurfaceVelocity(
  ctx: SimulationContext,
  slot: number,
  point: Float64Array,
  out: Float64Array,
): void {
  const x = point[0];
  const y = point[1];
  const z = point[2];
  const f = ctx.colliders.frames;
  const o = slot * COLLIDER_FRAME_STRIDE;
  const wx = x - f[o + 9];
  const wy = y - f[o + 10];
  const wz = z - f[o + 11];
  const inverseScale = 1 / f[o + 12];
  const lx = (f[o] * wx + f[o + 3] * wy + f[o + 6] * wz) * inverseScale;
  const ly = (f[o + 1] * wx + f[o + 4] * wy + f[o + 7] * wz) * inverseScale;
  const lz = (f[o + 2] * wx + f[o + 5] * wy + f[o + 8] * wz) * inverseScale;
  const s0 = o + POSE_SIZE;
  const startScale = f[s0 + 12];
  const sx = startScale * (f[s0] * lx + f[s0 + 1] * ly + f[s0 + 2] * lz) + f[s0 + 9];
  const sy = startScale * (f[s0 + 3] * lx + f[s0 + 4] * ly + f[s0 + 5] * lz) + f[s0 + 10];
  const sz = startScale * (f[s0 + 6] * lx + f[s0 + 7] * ly + f[s0 + 8] * lz) + f[s0 + 11];
  const dt = ctx.substepTimeStep;
  out[0] = (x - sx) / dt;
  out[1] = (y - sy) / dt;
  out[2] = (z - sz) / dt;
}

/**
 * Adds the wall term of one wall at fluid-side distance `d` (< h) with unit normal n (into the fluid,
 * world space) to particle i: Z(d) to `wallWeight[i]` and Z'(d) n to `wallGradient[i]`.
 */
function addWall(
  ctx: SimulationContext,
  slot: number,
  coupled: boolean,
  table: Float64Array,
  samplesPerMetre: number,
  i: number,
  d: number,
  nx: number,
  ny: number,
  nz: number,
): void {
  const s = ctx.solver;
  const position = (d > 0 ? d : 0) * samplesPerMetre;
  const k = position < WALL_WEIGHT_SAMPLES - 1 ? Math.floor(position) : WALL_WEIGHT_SAMPLES - 1;
  const t = position - k;
  const difference = table[k + 1] - table[k];
  const slope = difference * samplesPerMetre;
  s.wallWeight[i] += table[k] + t * difference;
  s.wallGradientX[i] += slope * nx;
  s.wallGradientY[i] += slope * ny;
  s.wallGradientZ[i] += slope * nz;
  if (coupled) recordWallGradient(ctx.coupling, i, slot, slope * nx, slope * ny, slope * nz);
}

/**
 * The local point `fluidSideDistance` reads, which its callers write just before the call: coordinates passed
 * in an array rather than as arguments are not boxed when the engine does not inline the call (a call with
 * three float arguments allocated three heap numbers; the projection's cell and face classification made 490 KB
 * of garbage a frame at 10k particles).
 */
export const fluidSidePoint = new Float64Array(3);

/**
 * Signed distance of local point `point` = (lx, ly, lz) to collider `eid`'s surface in local units (times the
 * pose's scale for metres), measured on the fluid side (positive where the fluid belongs), and the unit normal
 * pointing to the fluid side (local space), written to out = [d, nx, ny, nz] (`out` may be `point`). A mesh
 * collider samples its signed distance field (trilinear, see `SignedDistanceField`) and, where d >=
 * `normalWithin` (local units), skips the normal: out[1..3] are then stale and must not be read.
 */
export function fluidSideDistance(
  ctx: SimulationContext,
  eid: number,
  point: Float64Array,
  out: Float64Array,
  normalWithin = Number.POSITIVE_INFINITY,
): void {
  const c = ctx.components.Collider;
  const shape = c.shape[eid];
  // A switch over the shape modules' distances (collide/shapes/): direct calls, the point in its array (a call
  // the engine does not inline boxes its float arguments).
  switch (shape) {
    case ColliderShape.box:
      boxDistance(c, eid, point, out);
      break;
    case ColliderShape.mesh:
      meshDistance(c, eid, ctx.colliders.fields[c.field[eid]]!, point[0], point[1], point[2], out, normalWithin);
      break;
    case ColliderShape.plane:
      planeDistance(c, eid, point, out);
      break;
    case ColliderShape.capsule:
      capsuleDistance(c, eid, point, out);
      break;
    default:
      sphereDistance(c, eid, point, out);
  }
  if (c.container[eid] === 1) {
    out[0] = -out[0];
    out[1] = -out[1];
    out[2] = -out[2];
    out[3] = -out[3];
  }
}

/**
 * Wall weights of every particle from every collider within h (Harada et al. 2007, section 4.1): the
 * walls' density contribution Z and its gradient, so particles next to a wall see a full neighbourhood and
 * neither stack against it nor stop short of it. A container box counts its six faces as six walls; other
 * shapes, meshes included, count their nearest surface as one flat wall (the paper's approximation).
 * Colliders whose `wallWeights` is 0 are left out.
 */
export function computeWallWeights(ctx: SimulationContext): void {
  const s = ctx.solver;
  const n = s.count;
  s.wallWeight.fill(0, 0, n);
  s.wallGradientX.fill(0, 0, n);
  s.wallGradientY.fill(0, 0, n);
  s.wallGradientZ.fill(0, 0, n);
  ctx.coupling.count = 0;
  const table = ctx.colliders;
  const c = ctx.components.Collider;
  const frames = table.frames;
  const h = ctx.settings.kernelRadius;
  const out = distanceScratch;
  const { predictedX, predictedY, predictedZ } = s;
  const wallTable = ctx.lattice.wallWeight;
  const samplesPerMetre = WALL_WEIGHT_SAMPLES / h;
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
    // Distances below are local; a wall within h in the world is within h / s locally.
    const localH = h * inverseScale;
    const containerBox = c.shape[eid] === ColliderShape.box && c.container[eid] === 1;
    const coupled = ctx.components.BodyCoupling.coupled[eid] === 1;
    const minX = c.ax[eid];
    const minY = c.ay[eid];
    const minZ = c.az[eid];
    const maxX = c.bx[eid];
    const maxY = c.by[eid];
    const maxZ = c.bz[eid];
    if (
      containerBox &&
      !coupled &&
      containerWallsInWebAssembly(ctx, slot, inverseScale, localH, samplesPerMetre, minX, minY, minZ, maxX, maxY, maxZ)
    )
      continue;
    for (let i = 0; i < n; i++) {
      const wx = predictedX[i] - tx;
      const wy = predictedY[i] - ty;
      const wz = predictedZ[i] - tz;
      const lx = (r00 * wx + r10 * wy + r20 * wz) * inverseScale;
      const ly = (r01 * wx + r11 * wy + r21 * wz) * inverseScale;
      const lz = (r02 * wx + r12 * wy + r22 * wz) * inverseScale;
      if (containerBox) {
        // Six faces, each a wall with its inward normal (columns of R are the local axes in world space).
        const dMinX = lx - minX;
        const dMaxX = maxX - lx;
        const dMinY = ly - minY;
        const dMaxY = maxY - ly;
        const dMinZ = lz - minZ;
        const dMaxZ = maxZ - lz;
        if (dMinX < localH) addWall(ctx, slot, coupled, wallTable, samplesPerMetre, i, scale * dMinX, r00, r10, r20);
        if (dMaxX < localH) addWall(ctx, slot, coupled, wallTable, samplesPerMetre, i, scale * dMaxX, -r00, -r10, -r20);
        if (dMinY < localH) addWall(ctx, slot, coupled, wallTable, samplesPerMetre, i, scale * dMinY, r01, r11, r21);
        if (dMaxY < localH) addWall(ctx, slot, coupled, wallTable, samplesPerMetre, i, scale * dMaxY, -r01, -r11, -r21);
        if (dMinZ < localH) addWall(ctx, slot, coupled, wallTable, samplesPerMetre, i, scale * dMinZ, r02, r12, r22);
        if (dMaxZ < localH) addWall(ctx, slot, coupled, wallTable, samplesPerMetre, i, scale * dMaxZ, -r02, -r12, -r22);
        continue;
      }
      fluidSidePoint[0] = lx;
      fluidSidePoint[1] = ly;
      fluidSidePoint[2] = lz;
      fluidSideDistance(ctx, eid, fluidSidePoint, out, localH);
      if (out[0] >= localH) continue;
      const nx = out[1];
      const ny = out[2];
      const nz = out[3];
      addWall(
        ctx,
        slot,
        coupled,
        wallTable,
        samplesPerMetre,
        i,
        scale * out[0],
        r00 * nx + r01 * ny + r02 * nz,
        r10 * nx + r11 * ny + r12 * nz,
        r20 * nx + r21 * ny + r22 * nz,
      );
    }
  }
}

/**
 * Signed distance (m) of world point (x, y, z) to collider `eid`'s surface in the collider's current pose
 * (its components, not a substep's interpolated frame), positive on the fluid side.
 */
export function colliderDistanceAt(ctx: SimulationContext, eid: number, x: number, y: number, z: number): number {
  const c = ctx.components.Collider;
  const f = poseScratch;
  writePose(f, 0, c.rotationX[eid], c.rotationY[eid], c.rotationZ[eid], c.rotationW[eid], 0, 0, 0, 1);
  const scale = c.scale[eid];
  const wx = x - c.positionX[eid];
  const wy = y - c.positionY[eid];
  const wz = z - c.positionZ[eid];
  const lx = (f[0] * wx + f[3] * wy + f[6] * wz) / scale;
  const ly = (f[1] * wx + f[4] * wy + f[7] * wz) / scale;
  const lz = (f[2] * wx + f[5] * wy + f[8] * wz) / scale;
  fluidSidePoint[0] = lx;
  fluidSidePoint[1] = ly;
  fluidSidePoint[2] = lz;
  fluidSideDistance(ctx, eid, fluidSidePoint, distanceScratch, 0);
  return distanceScratch[0] * scale;
}

/**
 * Number of live particles whose center lies inside collider `eid`'s solid (on the wall's side of its
 * surface) in its current pose, read from the `Position` components (on the WebGPU backend: as last
 * mirrored).
 */
export function countParticlesInside(ctx: SimulationContext, eid: number, particles: ArrayLike<number>): number {
  const { x, y, z } = ctx.components.Position;
  let inside = 0;
  for (let k = 0; k < particles.length; k++) {
    const p = particles[k];
    if (colliderDistanceAt(ctx, eid, x[p], y[p], z[p]) < 0) inside++;
  }
  return inside;
}

const poseScratch = new Float64Array(POSE_SIZE);
