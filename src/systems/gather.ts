/**
 * Frame-start system: validates the components game code may have edited (materials, colliders,
 * particle positions and velocities) and copies them into the solver's dense arrays. A NaN or an
 * out-of-range value throws a {@link FluidError} before anything is changed.
 */
import { ColliderShape } from '../components';
import { checkNumber, checkVector3, POSITION_LIMIT } from '../core/checks';
import { FluidError } from '../core/errors';
import { poly6 } from '../core/kernels';
import { allows, COLLIDER_OPTIONS, MATERIAL_OPTIONS, rangeText } from '../core/schema';
import type { SimulationContext } from './context';

function checkMaterialValue(name: string, eid: number, value: number, min: number, max: number): void {
  if (!(value >= min && value <= max)) {
    throw new FluidError(`FluidMaterial.${name}[${eid}] is ${value}; allowed range is [${min}, ${max}]`);
  }
}

/** The PBF material fields the gather checks (core/schema.ts has their rules), in the order of the messages. */
const PBF_MATERIAL_NAMES = [
  'restDensity',
  'particleMass',
  'viscosity',
  'vorticity',
  'artificialPressureStrength',
  'artificialPressureExponent',
  'artificialPressureDistance',
  'relaxation',
] as const;

/** Gathers and validates materials into the material table. */
export function gatherMaterials(ctx: SimulationContext): void {
  const m = ctx.materials;
  const store = ctx.components.FluidMaterial;
  const h = ctx.settings.kernelRadius;
  const freeSurface = ctx.settings.projection && ctx.settings.projectionFreeSurface;
  for (let slot = 0; slot < m.count; slot++) {
    const eid = m.entity[slot];
    const rho0 = store.restDensity[eid];
    for (const name of PBF_MATERIAL_NAMES) {
      const rule = MATERIAL_OPTIONS[name];
      checkMaterialValue(name, eid, store[name][eid], rule.min, rule.max);
    }
    m.inverseRestDensity[slot] = 1 / rho0;
    m.mass[slot] = store.particleMass[eid];
    m.viscosity[slot] = store.viscosity[eid];
    m.vorticity[slot] = store.vorticity[eid];
    m.relaxation[slot] = store.relaxation[eid] * ctx.lattice.gradientSum;
    m.artificialPressureScale[slot] = store.artificialPressureStrength[eid] / ctx.lattice.gradientSum;
    m.artificialPressureExponent[slot] = store.artificialPressureExponent[eid];
    m.inverseArtificialPressureWeight[slot] = 1 / poly6(store.artificialPressureDistance[eid] * h, h);
    // Still water (`ProjectionOptions.freeSurface`): eq. 13's value at the rest spacing, subtracted from it.
    m.artificialPressureRestPower[slot] = freeSurface
      ? (poly6(2 * ctx.settings.particleRadius, h) * m.inverseArtificialPressureWeight[slot]) **
        m.artificialPressureExponent[slot]
      : 0;
    const mu = store.dynamicViscosity[eid];
    m.dynamicViscosity[slot] = mu >= 0 ? mu : ctx.settings.sphViscosity;
  }
}

/** Smallest uniform collider scale accepted (`COLLIDER_OPTIONS.scale`, core/schema.ts). */
export const MIN_SCALE = COLLIDER_OPTIONS.scale.min;
/** Largest uniform collider scale accepted. */
export const MAX_SCALE = COLLIDER_OPTIONS.scale.max;

function checkFinite(name: string, eid: number, value: number): void {
  if (!Number.isFinite(value)) throw new FluidError(`${name}[${eid}] is ${value}; it must be a finite number`);
}

const COLLIDER_FINITE_FIELDS = [
  'positionX',
  'positionY',
  'positionZ',
  'rotationX',
  'rotationY',
  'rotationZ',
  'rotationW',
  'ax',
  'ay',
  'az',
  'bx',
  'by',
  'bz',
  'radius',
  'scale',
  'previousPositionX',
  'previousPositionY',
  'previousPositionZ',
  'previousRotationX',
  'previousRotationY',
  'previousRotationZ',
  'previousRotationW',
  'previousScale',
] as const;

/** The position fields of a collider's pose, within `POSITION_LIMIT` (core/checks.ts). */
const COLLIDER_POSITION_FIELDS = [
  'positionX',
  'positionY',
  'positionZ',
  'previousPositionX',
  'previousPositionY',
  'previousPositionZ',
] as const;

/**
 * Smallest length a collider's rotation quaternion may have: the poses normalise it (as `addCollider` and
 * `setColliderTransform` do), so any other length means the same rotation, but a zero one means none.
 */
export const MIN_QUATERNION_LENGTH = 1e-9;

/** Throws {@link FluidError} if collider `eid`'s quaternion `which` (`rotation` or `previousRotation`) is zero. */
function checkQuaternionLength(eid: number, which: string, x: number, y: number, z: number, w: number): void {
  const length = Math.hypot(x, y, z, w);
  if (!(length >= MIN_QUATERNION_LENGTH)) {
    throw new FluidError(
      `Collider.${which} of ${eid} is [${x}, ${y}, ${z}, ${w}] with length ${length}; a rotation quaternion must have length at least ${MIN_QUATERNION_LENGTH} (it is normalised)`,
    );
  }
}

/** Validates collider parameters and poses. */
export function gatherColliders(ctx: SimulationContext): void {
  const c = ctx.components.Collider;
  const t = ctx.colliders;
  for (let slot = 0; slot < t.count; slot++) {
    const eid = t.entity[slot];
    for (let f = 0; f < COLLIDER_FINITE_FIELDS.length; f++) {
      const field = COLLIDER_FINITE_FIELDS[f];
      if (!Number.isFinite(c[field][eid])) checkFinite(`Collider.${field}`, eid, c[field][eid]);
    }
    for (let f = 0; f < COLLIDER_POSITION_FIELDS.length; f++) {
      const field = COLLIDER_POSITION_FIELDS[f];
      if (!(Math.abs(c[field][eid]) <= POSITION_LIMIT)) {
        throw new FluidError(
          `Collider.${field}[${eid}] is ${c[field][eid]}; it must be a finite number in [-${POSITION_LIMIT}, ${POSITION_LIMIT}] m`,
        );
      }
    }
    checkQuaternionLength(eid, 'rotation', c.rotationX[eid], c.rotationY[eid], c.rotationZ[eid], c.rotationW[eid]);
    checkQuaternionLength(
      eid,
      'previousRotation',
      c.previousRotationX[eid],
      c.previousRotationY[eid],
      c.previousRotationZ[eid],
      c.previousRotationW[eid],
    );
    for (const name of ['friction', 'restitution'] as const) {
      const rule = COLLIDER_OPTIONS[name];
      if (!allows(rule, c[name][eid])) {
        throw new FluidError(`Collider.${name}[${eid}] is ${c[name][eid]}; allowed range is ${rangeText(rule)}`);
      }
    }
    for (const name of ['scale', 'previousScale'] as const) {
      if (!(c[name][eid] >= MIN_SCALE && c[name][eid] <= MAX_SCALE)) {
        throw new FluidError(
          `Collider.${name}[${eid}] is ${c[name][eid]}; allowed range is [${MIN_SCALE}, ${MAX_SCALE}]`,
        );
      }
    }
    if (c.shape[eid] === ColliderShape.mesh && t.fields[c.field[eid]] === undefined) {
      throw new FluidError(
        `Collider.field[${eid}] is ${c.field[eid]}; it must index the simulation's fields (0 to ${t.fields.length - 1})`,
      );
    }
  }
}

/** Copies particle components into the dense solver arrays, in the order of the last sort. */
export function gatherParticles(ctx: SimulationContext): void {
  const s = ctx.solver;
  const { Position, Velocity, Particle } = ctx.components;
  const slotOf = ctx.materials.slotOfEntity;
  const massOf = ctx.materials.mass;
  const n = s.count;
  for (let i = 0; i < n; i++) {
    const eid = s.entity[i];
    const x = Position.x[eid];
    const y = Position.y[eid];
    const z = Position.z[eid];
    const vx = Velocity.x[eid];
    const vy = Velocity.y[eid];
    const vz = Velocity.z[eid];
    // One comparison chain catches NaN and infinities in all six values.
    if (!Number.isFinite(x + y + z + vx + vy + vz)) {
      const names = ['Position.x', 'Position.y', 'Position.z', 'Velocity.x', 'Velocity.y', 'Velocity.z'];
      const values = [x, y, z, vx, vy, vz];
      for (let k = 0; k < 6; k++) checkFinite(names[k], eid, values[k]);
      throw new FluidError(`particle ${eid} has a non-finite position or velocity`);
    }
    const slot = slotOf[Particle.material[eid]];
    if (slot < 0) {
      throw new FluidError(`Particle.material[${eid}] is ${Particle.material[eid]}, which is not a material entity`);
    }
    s.positionX[i] = x;
    s.positionY[i] = y;
    s.positionZ[i] = z;
    s.velocityX[i] = vx;
    s.velocityY[i] = vy;
    s.velocityZ[i] = vz;
    s.material[i] = slot;
    s.mass[i] = massOf[slot];
  }
}

/**
 * The WebGPU backend's frame-start system: materials and colliders (the particles live on the GPU; edits
 * game code marks are validated when they are uploaded).
 */
export function gatherSceneSystem(ctx: SimulationContext): void {
  gatherMaterials(ctx);
  gatherColliders(ctx);
}

/** The frame-start system: materials, colliders, then particles. */
export function gatherSystem(ctx: SimulationContext): void {
  gatherMaterials(ctx);
  gatherColliders(ctx);
  gatherParticles(ctx);
}

/** Checks a uniform scaling given as a number or as `[s, s, s]`; returns the number. */
export function checkScaling(value: unknown): number {
  if (typeof value === 'number') return checkNumber('scaling', value, MIN_SCALE, MAX_SCALE);
  const [x, y, z] = checkVector3('scaling', value, MAX_SCALE);
  const largest = Math.max(Math.abs(x), Math.abs(y), Math.abs(z));
  if (Math.abs(x - y) > 1e-4 * largest || Math.abs(x - z) > 1e-4 * largest) {
    throw new FluidError(
      `scaling is [${x}, ${y}, ${z}]; only uniform scaling (equal components) is allowed: bake the scaled mesh instead`,
    );
  }
  return checkNumber('scaling', x, MIN_SCALE, MAX_SCALE);
}
