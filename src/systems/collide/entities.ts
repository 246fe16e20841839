/**
 * Collider entities: what `FluidSimulation.addCollider`, `setColliderTransform`, `takeBodyImpulse` and
 * `removeCollider` do, on the context (the facade keeps the public calls and their TSDoc; docs/ARCHITECTURE.md,
 * "Layers"). The shape options are read by the shape modules (`shapes/`); the pose is committed by `cpu.ts`.
 */
import { addComponent, entityExists, hasComponent } from 'bitecs';
import { type BodyCouplingStore, MATERIAL_DEFAULTS } from '../../components';
import { checkKnownKeys, checkNumber, checkQuaternion, checkVector3, withDefault } from '../../core/checks';
import { FluidCapacityError, FluidError } from '../../core/errors';
import { COLLIDER_OPTIONS, checkOption, TEMPERATURE_RULE } from '../../core/schema';
import type { SimulationContext } from '../context';
import { createEntity, destroyEntity } from '../entityIds';
import { checkScaling } from '../gather';
import {
  type BodyImpulse,
  COLLIDER_OPTION_NAMES,
  COLLIDER_TRANSFORM_NAMES,
  type ColliderOptions,
  type ColliderTransform,
  RIGID_BODY_OPTION_NAMES,
} from '../options';
import type { SignedDistanceField } from '../sdf/field';
import { commitColliderPose } from './cpu';
import { readColliderGeometry } from './shapes';

/** True if `id` is a live collider entity of the context's world. */
export function isColliderEntity(ctx: SimulationContext, id: number): boolean {
  return (
    Number.isInteger(id) &&
    id > 0 &&
    id < ctx.entityCapacity &&
    entityExists(ctx.world, id) &&
    hasComponent(ctx.world, id, ctx.components.Collider)
  );
}

/** Zeroes the impulse accumulators of collider `id`. */
function clearBodyImpulse(b: BodyCouplingStore, id: number): void {
  b.impulseX[id] = 0;
  b.impulseY[id] = 0;
  b.impulseZ[id] = 0;
  b.angularImpulseX[id] = 0;
  b.angularImpulseY[id] = 0;
  b.angularImpulseZ[id] = 0;
}

/** The checked non-shape options of a collider. */
interface ColliderMaterial {
  friction: number;
  restitution: number;
  temperature: number;
  heatTransfer: number;
  container: boolean;
  wallWeights: boolean;
  coupled: boolean;
  centerOfMass: readonly number[];
  bodyMass: number;
}

/** Checks a collider's options other than its shape; throws {@link FluidError} naming a bad one. */
function readColliderMaterial(ctx: SimulationContext, options: ColliderOptions): ColliderMaterial {
  const settings = ctx.settings;
  const friction = checkOption('friction', COLLIDER_OPTIONS.friction, withDefault(options.friction, 0));
  const restitution = checkOption('restitution', COLLIDER_OPTIONS.restitution, withDefault(options.restitution, 0));
  const temperature = checkNumber(
    'temperature',
    withDefault(options.temperature, MATERIAL_DEFAULTS.initialTemperature),
    TEMPERATURE_RULE.min,
    TEMPERATURE_RULE.max,
  );
  const heatTransfer = checkOption('heatTransfer', COLLIDER_OPTIONS.heatTransfer, withDefault(options.heatTransfer, 0));
  if (heatTransfer > 0 && settings.solver === 'mps') {
    throw new FluidError(
      `heatTransfer is implemented for solvers 'pbf' and 'sph' only (this simulation uses 'mps'); leave it 0`,
    );
  }
  const container = withDefault(options.container, false);
  if (typeof container !== 'boolean') throw new FluidError(`container is ${String(container)}; it must be a boolean`);
  const wallWeights = withDefault(options.wallWeights, true);
  if (typeof wallWeights !== 'boolean') {
    throw new FluidError(`wallWeights is ${String(wallWeights)}; it must be a boolean`);
  }
  const rigidBody = options.rigidBody;
  if (rigidBody !== undefined && (typeof rigidBody !== 'object' || rigidBody === null)) {
    throw new FluidError(`rigidBody is ${String(rigidBody)}; it must be an object ({ centerOfMass })`);
  }
  if (rigidBody !== undefined) checkKnownKeys('rigidBody', rigidBody, RIGID_BODY_OPTION_NAMES);
  const centerOfMass =
    rigidBody?.centerOfMass === undefined ? [0, 0, 0] : checkVector3('rigidBody.centerOfMass', rigidBody.centerOfMass);
  const bodyMass = rigidBody?.mass === undefined ? 0 : checkNumber('rigidBody.mass', rigidBody.mass, 0, 1e9);
  return {
    friction,
    restitution,
    temperature,
    heatTransfer,
    container,
    wallWeights,
    coupled: rigidBody !== undefined,
    centerOfMass,
    bodyMass,
  };
}

/** Index of `field` in the context's field list, adding it to the list (or to a free place) if it is not there. */
function registerField(ctx: SimulationContext, field: SignedDistanceField): number {
  const fields = ctx.colliders.fields;
  const index = fields.indexOf(field);
  if (index >= 0) return index;
  const free = fields.indexOf(undefined);
  if (free >= 0) {
    fields[free] = field;
    return free;
  }
  fields.push(field);
  return fields.length - 1;
}

/** `FluidSimulation.addCollider`: checks the options, adds the entity at the identity pose, returns its id. */
export function addColliderEntity(ctx: SimulationContext, options: ColliderOptions): number {
  if (typeof options !== 'object' || options === null) throw new FluidError('addCollider options must be an object');
  // Unknown keys of a known shape (an unknown shape is named by readColliderGeometry).
  if (Object.hasOwn(COLLIDER_OPTION_NAMES, options.shape)) {
    checkKnownKeys(`addCollider({ shape: '${options.shape}' })`, options, COLLIDER_OPTION_NAMES[options.shape]);
  }
  const table = ctx.colliders;
  const maxColliders = ctx.settings.maxColliders;
  if (table.count >= maxColliders) {
    throw new FluidCapacityError(`maxColliders (${maxColliders}) reached; cannot add a collider`);
  }
  const m = readColliderMaterial(ctx, options);
  const { shape, a, b, radius, field } = readColliderGeometry(options);
  const eid = createEntity(ctx);
  const c = ctx.components.Collider;
  addComponent(ctx.world, eid, c);
  c.shape[eid] = shape;
  c.container[eid] = m.container ? 1 : 0;
  c.friction[eid] = m.friction;
  c.restitution[eid] = m.restitution;
  c.temperature[eid] = m.temperature;
  c.heatTransfer[eid] = m.heatTransfer;
  c.ax[eid] = a[0];
  c.ay[eid] = a[1];
  c.az[eid] = a[2];
  c.bx[eid] = b[0];
  c.by[eid] = b[1];
  c.bz[eid] = b[2];
  c.radius[eid] = radius;
  c.field[eid] = field === undefined ? -1 : registerField(ctx, field);
  c.wallWeights[eid] = m.wallWeights ? 1 : 0;
  c.scale[eid] = 1;
  c.positionX[eid] = 0;
  c.positionY[eid] = 0;
  c.positionZ[eid] = 0;
  c.rotationX[eid] = 0;
  c.rotationY[eid] = 0;
  c.rotationZ[eid] = 0;
  c.rotationW[eid] = 1;
  commitColliderPose(ctx, eid);
  const coupling = ctx.components.BodyCoupling;
  coupling.coupled[eid] = m.coupled ? 1 : 0;
  coupling.centerOfMassX[eid] = m.centerOfMass[0];
  coupling.centerOfMassY[eid] = m.centerOfMass[1];
  coupling.centerOfMassZ[eid] = m.centerOfMass[2];
  coupling.mass[eid] = m.bodyMass;
  clearBodyImpulse(coupling, eid);
  table.entity[table.count] = eid;
  table.count++;
  return eid;
}

/** `FluidSimulation.setColliderTransform`: checks and writes the pose the next step moves the collider to. */
export function setColliderPose(ctx: SimulationContext, id: number, transform: ColliderTransform): void {
  if (!isColliderEntity(ctx, id)) {
    throw new FluidError(`setColliderTransform: ${String(id)} is not a collider entity`);
  }
  if (typeof transform !== 'object' || transform === null) {
    throw new FluidError('setColliderTransform: transform must be an object');
  }
  checkKnownKeys('setColliderTransform', transform, COLLIDER_TRANSFORM_NAMES);
  const c = ctx.components.Collider;
  const position = transform.position === undefined ? undefined : checkVector3('position', transform.position);
  const rotation = transform.rotation === undefined ? undefined : checkQuaternion('rotation', transform.rotation);
  const scaling = transform.scaling === undefined ? undefined : checkScaling(transform.scaling);
  if (transform.teleport !== undefined && typeof transform.teleport !== 'boolean') {
    throw new FluidError(`teleport is ${String(transform.teleport)}; it must be a boolean`);
  }
  if (scaling !== undefined) c.scale[id] = scaling;
  if (position) {
    c.positionX[id] = position[0];
    c.positionY[id] = position[1];
    c.positionZ[id] = position[2];
  }
  if (rotation) {
    c.rotationX[id] = rotation[0];
    c.rotationY[id] = rotation[1];
    c.rotationZ[id] = rotation[2];
    c.rotationW[id] = rotation[3];
  }
  if (transform.teleport === true) commitColliderPose(ctx, id);
}

/** `FluidSimulation.takeBodyImpulse`: reads and clears collider `id`'s impulse accumulators. */
export function takeBodyImpulse(ctx: SimulationContext, id: number, out?: BodyImpulse): BodyImpulse {
  const b = ctx.components.BodyCoupling;
  if (!isColliderEntity(ctx, id) || b.coupled[id] !== 1) {
    throw new FluidError(`takeBodyImpulse: ${String(id)} is not a collider coupled with a rigid body`);
  }
  const result = out ?? { impulse: [0, 0, 0], angularImpulse: [0, 0, 0] };
  result.impulse[0] = b.impulseX[id];
  result.impulse[1] = b.impulseY[id];
  result.impulse[2] = b.impulseZ[id];
  result.angularImpulse[0] = b.angularImpulseX[id];
  result.angularImpulse[1] = b.angularImpulseY[id];
  result.angularImpulse[2] = b.angularImpulseZ[id];
  clearBodyImpulse(b, id);
  return result;
}

/** `FluidSimulation.removeCollider`: drops the collider from the table (and its field if unused). */
export function removeColliderEntity(ctx: SimulationContext, id: number): void {
  if (!isColliderEntity(ctx, id)) throw new FluidError(`removeCollider: ${String(id)} is not a collider entity`);
  const table = ctx.colliders;
  for (let slot = 0; slot < table.count; slot++) {
    if (table.entity[slot] === id) {
      table.entity[slot] = table.entity[table.count - 1];
      table.count--;
      break;
    }
  }
  ctx.components.BodyCoupling.coupled[id] = 0;
  clearBodyImpulse(ctx.components.BodyCoupling, id);
  ctx.gpu?.solver.forgetCollider(id);
  const c = ctx.components.Collider;
  const fieldIndex = c.field[id];
  c.field[id] = -1;
  if (fieldIndex >= 0) {
    let used = false;
    for (let slot = 0; slot < table.count; slot++) if (c.field[table.entity[slot]] === fieldIndex) used = true;
    if (!used) table.fields[fieldIndex] = undefined;
  }
  destroyEntity(ctx, id);
}
