/**
 * Two-way coupling with rigid bodies, the fluid-on-body half (docs/ARCHITECTURE.md, "The step": the density and
 * velocity entries). Every change of a particle's momentum that a coupled collider causes is added, with the
 * opposite sign, to the collider's `BodyCoupling` impulse accumulators (Newton's third law), with its angular
 * impulse about the body's center of mass:
 * - the collision projection: a push dx of particle i within a substep of length dt changes its velocity
 *   v = (x* - x) / dt by dx / dt, so the body receives -m_i dx / dt, at the contact point;
 * - the wall-weight pressure (Harada et al. 2007, eq. 12, entering PBF as in density/cpu.ts): the body's
 *   share of the particle's wall-gradient correction dx = lambda_i (m_i / rho0) grad Z_body, times the
 *   same clamp factor the correction got, gives -m_i dx / dt;
 * - the contact response (restitution, friction): -m_i (v_after - v_before).
 * The body-on-fluid half needs nothing here: a coupled collider moves like any collider, from its pose at
 * the start of the step to the pose its rigid body reached, and pushes the fluid with that motion.
 */

import { COLLIDER_FRAME_STRIDE, type SimulationContext } from '../context';
import { type CouplingWallList, PENDING_PUSHES, PENDING_STRIDE } from './state';

/** The world-space center of mass of collider `eid` in slot `slot` at the end of the current substep. */
function centerOfMass(ctx: SimulationContext, slot: number, eid: number, out: Float64Array): void {
  const f = ctx.colliders.frames;
  const o = slot * COLLIDER_FRAME_STRIDE;
  const b = ctx.components.BodyCoupling;
  const s = f[o + 12];
  const lx = b.centerOfMassX[eid];
  const ly = b.centerOfMassY[eid];
  const lz = b.centerOfMassZ[eid];
  out[0] = s * (f[o] * lx + f[o + 1] * ly + f[o + 2] * lz) + f[o + 9];
  out[1] = s * (f[o + 3] * lx + f[o + 4] * ly + f[o + 5] * lz) + f[o + 10];
  out[2] = s * (f[o + 6] * lx + f[o + 7] * ly + f[o + 8] * lz) + f[o + 11];
}

const center = new Float64Array(3);

/**
 * Adds the impulse (jx, jy, jz) (N s, world space) acting on collider `eid` (slot `slot`) at world point
 * (px, py, pz) to its accumulators: linear, and angular (p - c) x j about its center of mass c.
 */
export function addBodyImpulse(
  ctx: SimulationContext,
  slot: number,
  eid: number,
  jx: number,
  jy: number,
  jz: number,
  px: number,
  py: number,
  pz: number,
): void {
  const b = ctx.components.BodyCoupling;
  centerOfMass(ctx, slot, eid, center);
  const rx = px - center[0];
  const ry = py - center[1];
  const rz = pz - center[2];
  b.impulseX[eid] += jx;
  b.impulseY[eid] += jy;
  b.impulseZ[eid] += jz;
  b.angularImpulseX[eid] += ry * jz - rz * jy;
  b.angularImpulseY[eid] += rz * jx - rx * jz;
  b.angularImpulseZ[eid] += rx * jy - ry * jx;
}

/** Records that collider slot `slot` added wall gradient (gx, gy, gz) to particle `i`. */
export function recordWallGradient(
  list: CouplingWallList,
  i: number,
  slot: number,
  gx: number,
  gy: number,
  gz: number,
): void {
  if (list.count === list.particle.length) {
    const size = 2 * list.particle.length;
    const particle = new Int32Array(size);
    particle.set(list.particle);
    const slots = new Int32Array(size);
    slots.set(list.slot);
    const gradient = new Float64Array(3 * size);
    gradient.set(list.gradient);
    list.particle = particle;
    list.slot = slots;
    list.gradient = gradient;
  }
  const k = list.count++;
  list.particle[k] = i;
  list.slot[k] = slot;
  list.gradient[3 * k] = gx;
  list.gradient[3 * k + 1] = gy;
  list.gradient[3 * k + 2] = gz;
}

/*
 * Pending pushes. Within one solver iteration a coupled collider moves a particle by its share of the wall
 * pressure and by the collision projection; the body receives -m dx / dt for that displacement dx. It is
 * handed over only at the end of the collision pass, less what other colliders pushed back against it in
 * the meantime: a particle squeezed between a body and another wall (a rock resting on the pool's floor)
 * is held by that wall, which takes the part it undoes. Without this every iteration would charge the body
 * the same overlap again (2 substeps x 3 iterations of a full particle radius for a pinched particle) and
 * throw a resting body off the floor. The force then acts at the particle's final position; both pushes
 * are along the wall's normal, so moving the point along it changes no torque.
 */

/**
 * Adds displacement (dx, dy, dz) by coupled collider `slot` to particle place `i`'s pending pushes (to that
 * collider's entry if there is one; a third collider hands the oldest entry over first).
 */
export function addPendingPush(
  ctx: SimulationContext,
  i: number,
  slot: number,
  dx: number,
  dy: number,
  dz: number,
): void {
  const pushes = ctx.solver.pendingPushes;
  const base = i * PENDING_PUSHES * PENDING_STRIDE;
  let free = -1;
  for (let e = 0; e < PENDING_PUSHES; e++) {
    const o = base + e * PENDING_STRIDE;
    if (pushes[o] === slot) {
      pushes[o + 1] += dx;
      pushes[o + 2] += dy;
      pushes[o + 3] += dz;
      return;
    }
    if (free < 0 && pushes[o] < 0) free = e;
  }
  if (free < 0) {
    flushPendingPush(ctx, i, base);
    pushes.copyWithin(base, base + PENDING_STRIDE, base + PENDING_PUSHES * PENDING_STRIDE);
    free = PENDING_PUSHES - 1;
  }
  const o = base + free * PENDING_STRIDE;
  pushes[o] = slot;
  pushes[o + 1] = dx;
  pushes[o + 2] = dy;
  pushes[o + 3] = dz;
}

/**
 * A push (px, py, pz) of particle place `i` by collider `slot`: each pending push of another collider loses
 * the part of it that this push takes back (its component against it, down to nothing).
 */
export function opposePendingPushes(
  ctx: SimulationContext,
  i: number,
  slot: number,
  px: number,
  py: number,
  pz: number,
): void {
  const pushes = ctx.solver.pendingPushes;
  const base = i * PENDING_PUSHES * PENDING_STRIDE;
  for (let e = 0; e < PENDING_PUSHES; e++) {
    const o = base + e * PENDING_STRIDE;
    if (pushes[o] < 0 || pushes[o] === slot) continue;
    const dx = pushes[o + 1];
    const dy = pushes[o + 2];
    const dz = pushes[o + 3];
    const against = px * dx + py * dy + pz * dz;
    if (against >= 0) continue;
    const keep = Math.max(0, 1 + against / (dx * dx + dy * dy + dz * dz));
    pushes[o + 1] = keep * dx;
    pushes[o + 2] = keep * dy;
    pushes[o + 3] = keep * dz;
  }
}

/** Hands the pending push at offset `o` of particle place `i` to its body (-m dx / dt at the particle) and frees it. */
function flushPendingPush(ctx: SimulationContext, i: number, o: number): void {
  const s = ctx.solver;
  const pushes = s.pendingPushes;
  const slot = pushes[o];
  pushes[o] = -1;
  const a = -s.mass[i] / ctx.substepTimeStep;
  addBodyImpulse(
    ctx,
    slot,
    ctx.colliders.entity[slot],
    a * pushes[o + 1],
    a * pushes[o + 2],
    a * pushes[o + 3],
    s.predictedX[i],
    s.predictedY[i],
    s.predictedZ[i],
  );
}

/** At the end of the collision pass: hands every pending push to its body. */
export function flushPendingPushes(ctx: SimulationContext): void {
  const pushes = ctx.solver.pendingPushes;
  const n = ctx.solver.count;
  for (let i = 0; i < n; i++) {
    const base = i * PENDING_PUSHES * PENDING_STRIDE;
    for (let e = 0; e < PENDING_PUSHES; e++) {
      const o = base + e * PENDING_STRIDE;
      if (pushes[o] >= 0) flushPendingPush(ctx, i, o);
    }
  }
}

/**
 * After the corrections were applied: the coupled colliders' share of the wall-weight pressure of this
 * iteration (their part of each particle's correction, clamped like the correction was) becomes a pending
 * push of that collider, handed to the body at the end of the collision pass.
 */
export function accumulateWallImpulses(ctx: SimulationContext): void {
  const list = ctx.coupling;
  if (list.count === 0) return;
  const s = ctx.solver;
  for (let k = 0; k < list.count; k++) {
    const i = list.particle[k];
    // dx = clamp * lambda * wallShareScale * grad Z (wallShareScale m / rho0, or V_i b_i for the
    // number-density solve, see density/numberDensity.ts: the push the density solve gave the particle).
    const scale = s.correctionScale[i] * s.lambda[i] * s.wallShareScale[i];
    if (scale === 0) continue;
    addPendingPush(
      ctx,
      i,
      list.slot[k],
      scale * list.gradient[3 * k],
      scale * list.gradient[3 * k + 1],
      scale * list.gradient[3 * k + 2],
    );
  }
}
