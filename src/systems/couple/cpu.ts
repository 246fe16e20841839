/**
 * Two-way coupling with rigid bodies, the fluid-on-body half (DESIGN.md, step 6). Every change of a
 * particle's momentum that a coupled collider causes is added, with the opposite sign, to the collider's
 * `BodyCoupling` impulse accumulators (Newton's third law), with its angular impulse about the body's
 * centre of mass:
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

/** The world-space centre of mass of collider `eid` in slot `slot` at the end of the current substep. */
function centreOfMass(ctx: SimulationContext, slot: number, eid: number, out: Float64Array): void {
  const f = ctx.colliders.frames;
  const o = slot * COLLIDER_FRAME_STRIDE;
  const b = ctx.components.BodyCoupling;
  const s = f[o + 12];
  const lx = b.centreOfMassX[eid];
  const ly = b.centreOfMassY[eid];
  const lz = b.centreOfMassZ[eid];
  out[0] = s * (f[o] * lx + f[o + 1] * ly + f[o + 2] * lz) + f[o + 9];
  out[1] = s * (f[o + 3] * lx + f[o + 4] * ly + f[o + 5] * lz) + f[o + 10];
  out[2] = s * (f[o + 6] * lx + f[o + 7] * ly + f[o + 8] * lz) + f[o + 11];
}

const centre = new Float64Array(3);

/**
 * Adds the impulse (jx, jy, jz) (N s, world space) acting on collider `eid` (slot `slot`) at world point
 * (px, py, pz) to its accumulators: linear, and angular (p - c) x j about its centre of mass c.
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
  centreOfMass(ctx, slot, eid, centre);
  const rx = px - centre[0];
  const ry = py - centre[1];
  const rz = pz - centre[2];
  b.impulseX[eid] += jx;
  b.impulseY[eid] += jy;
  b.impulseZ[eid] += jz;
  b.angularImpulseX[eid] += ry * jz - rz * jy;
  b.angularImpulseY[eid] += rz * jx - rx * jz;
  b.angularImpulseZ[eid] += rx * jy - ry * jx;
}

/** Wall-weight gradients that coupled colliders contributed in the current solver iteration. */
export interface CouplingWallList {
  /** Entries in use. */
  count: number;
  /** Particle place per entry. */
  particle: Int32Array;
  /** Collider slot per entry. */
  slot: Int32Array;
  /** The collider's share of the particle's wall-weight gradient (1/m^4, world space). */
  gradient: Float64Array;
}

/** An empty list with room for `entries` entries; it grows when needed. */
export function createCouplingWallList(entries: number): CouplingWallList {
  return {
    count: 0,
    particle: new Int32Array(entries),
    slot: new Int32Array(entries),
    gradient: new Float64Array(3 * entries),
  };
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

/**
 * After the corrections were applied: the impulses of the coupled colliders' wall-weight pressure of this
 * iteration (their share of each particle's correction, clamped like the correction was).
 */
export function accumulateWallImpulses(ctx: SimulationContext): void {
  const list = ctx.coupling;
  if (list.count === 0) return;
  const s = ctx.solver;
  const inverseRestDensity = ctx.materials.inverseRestDensity;
  const inverseDt = 1 / ctx.substepTimeStep;
  const entity = ctx.colliders.entity;
  for (let k = 0; k < list.count; k++) {
    const i = list.particle[k];
    const m = s.mass[i];
    // dx = clamp * lambda m / rho0 * grad Z; the body gets -m dx / dt.
    const scale = -m * s.correctionScale[i] * s.lambda[i] * m * inverseRestDensity[s.material[i]] * inverseDt;
    if (scale === 0) continue;
    const slot = list.slot[k];
    addBodyImpulse(
      ctx,
      slot,
      entity[slot],
      scale * list.gradient[3 * k],
      scale * list.gradient[3 * k + 1],
      scale * list.gradient[3 * k + 2],
      s.predictedX[i],
      s.predictedY[i],
      s.predictedZ[i],
    );
  }
}
