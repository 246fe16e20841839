/**
 * Emitter and drain entities: what `FluidSimulation.addEmitter`, `setEmitterTransform`, `addDrain` and their
 * removals do, on the context (the facade keeps the public calls and their TSDoc; docs/ARCHITECTURE.md,
 * "Layers"). The emit-and-drain system that runs them each step is `cpu.ts`.
 */
import { addComponent } from 'bitecs';
import { DrainShape, EmitterShape } from '../../components';
import {
  checkKnownKeys,
  checkNumber,
  checkVector3,
  type Vector3Input,
  type Vector3Tuple,
  withDefault,
} from '../../core/checks';
import { FluidCapacityError, FluidError } from '../../core/errors';
import { checkOption, DRAIN_OPTIONS, EMITTER_OPTIONS } from '../../core/schema';
import type { SimulationContext } from '../context';
import { createEntity, destroyEntity } from '../entityIds';
import { isMaterialEntity } from '../material';
import {
  DRAIN_OPTION_NAMES,
  type DrainOptions,
  EMITTER_OPTION_NAMES,
  EMITTER_TRANSFORM_NAMES,
  type EmitterOptions,
  type EmitterTransform,
} from '../options';
import { maximumNozzleRadius } from '../validate';
import { nozzleLayer } from './cpu';

/** True if `id` is a live emitter entity of the context. */
export function isEmitterEntity(ctx: SimulationContext, id: number): boolean {
  return ctx.events.emitters.includes(id);
}

/** True if `id` is a live drain entity of the context. */
export function isDrainEntity(ctx: SimulationContext, id: number): boolean {
  return ctx.events.drains.includes(id);
}

/** Throws {@link FluidCapacityError} if emitters and drains together fill `maxEmitters`. */
function checkEmitterRoom(ctx: SimulationContext): void {
  const events = ctx.events;
  const maxEmitters = ctx.settings.maxEmitters;
  if (events.emitters.length + events.drains.length >= maxEmitters) {
    throw new FluidCapacityError(`maxEmitters (${maxEmitters}) reached; cannot add an emitter or drain`);
  }
}

/** A checked direction, normalised; throws {@link FluidError} for a zero vector. */
function unitDirection(direction: Vector3Tuple): Vector3Tuple {
  const length = Math.hypot(direction[0], direction[1], direction[2]);
  if (length < 1e-9) throw new FluidError('direction has zero length; an emitter needs a direction');
  return [direction[0] / length, direction[1] / length, direction[2] / length];
}

/** The emission rate (particles per second) from `rate`, `litresPerSecond` or the nozzle's full flow. */
function emitterRate(options: EmitterOptions, shape: number, radius: number, speed: number, spacing: number): number {
  if (options.rate !== undefined && options.litresPerSecond !== undefined) {
    throw new FluidError('give either rate (particles per second) or litresPerSecond, not both');
  }
  if (options.litresPerSecond !== undefined) {
    const litres = checkOption('litresPerSecond', EMITTER_OPTIONS.litresPerSecond, options.litresPerSecond);
    return checkOption('rate (from litresPerSecond)', EMITTER_OPTIONS.rate, (litres * 1e-3) / spacing ** 3);
  }
  const fullFlow = (nozzleLayer(shape, radius, spacing) * speed) / spacing;
  return checkOption('rate', EMITTER_OPTIONS.rate, withDefault(options.rate, fullFlow));
}

/** `FluidSimulation.addEmitter`: checks the options, adds the nozzle entity, returns its id. */
export function addEmitterEntity(ctx: SimulationContext, options: EmitterOptions): number {
  if (typeof options !== 'object' || options === null) throw new FluidError('addEmitter options must be an object');
  checkKnownKeys('addEmitter', options, EMITTER_OPTION_NAMES);
  checkEmitterRoom(ctx);
  if (!isMaterialEntity(ctx.materials, options.material)) {
    throw new FluidError(`material is ${String(options.material)}, which is not a material entity of this simulation`);
  }
  const position = checkVector3('position', options.position);
  const direction = unitDirection(checkVector3('direction', withDefault<Vector3Input>(options.direction, [0, -1, 0])));
  const shapeName = withDefault<string>(options.shape, 'circle');
  if (shapeName !== 'circle' && shapeName !== 'square') {
    throw new FluidError(`shape is '${shapeName}'; allowed values are 'circle', 'square'`);
  }
  const shape = shapeName === 'circle' ? EmitterShape.circle : EmitterShape.square;
  const r = ctx.settings.particleRadius;
  const radius = checkNumber(
    'radius',
    withDefault(options.radius, 2 * r),
    EMITTER_OPTIONS.radius.min,
    maximumNozzleRadius(ctx.settings),
  );
  const speed = checkOption('speed', EMITTER_OPTIONS.speed, withDefault(options.speed, EMITTER_OPTIONS.speed.default));
  const rate = emitterRate(options, shape, radius, speed, 2 * r);
  const spread = checkOption(
    'spread',
    EMITTER_OPTIONS.spread,
    withDefault(options.spread, EMITTER_OPTIONS.spread.default),
  );
  const lifetime = checkOption(
    'lifetime',
    EMITTER_OPTIONS.lifetime,
    withDefault(options.lifetime, EMITTER_OPTIONS.lifetime.default),
  );
  const enabled = withDefault(options.enabled, true);
  if (typeof enabled !== 'boolean') throw new FluidError(`enabled is ${String(enabled)}; it must be a boolean`);
  const eid = createEntity(ctx);
  const e = ctx.components.Emitter;
  addComponent(ctx.world, eid, e);
  e.enabled[eid] = enabled ? 1 : 0;
  e.shape[eid] = shape;
  e.radius[eid] = radius;
  e.positionX[eid] = position[0];
  e.positionY[eid] = position[1];
  e.positionZ[eid] = position[2];
  e.directionX[eid] = direction[0];
  e.directionY[eid] = direction[1];
  e.directionZ[eid] = direction[2];
  e.rate[eid] = rate;
  e.speed[eid] = speed;
  e.spread[eid] = spread;
  e.material[eid] = options.material;
  e.lifetime[eid] = lifetime;
  e.owed[eid] = 0;
  e.blocked[eid] = 0;
  ctx.events.emitters.push(eid);
  return eid;
}

/** `FluidSimulation.setEmitterTransform`: moves the nozzle center and/or turns its direction. */
export function setEmitterPose(ctx: SimulationContext, id: number, transform: EmitterTransform): void {
  if (!isEmitterEntity(ctx, id)) throw new FluidError(`setEmitterTransform: ${String(id)} is not an emitter entity`);
  if (typeof transform !== 'object' || transform === null) {
    throw new FluidError('setEmitterTransform: transform must be an object');
  }
  checkKnownKeys('setEmitterTransform', transform, EMITTER_TRANSFORM_NAMES);
  // Both checked before either is written: a call that throws changes nothing.
  const position = transform.position === undefined ? undefined : checkVector3('position', transform.position);
  const direction =
    transform.direction === undefined ? undefined : unitDirection(checkVector3('direction', transform.direction));
  const e = ctx.components.Emitter;
  if (position !== undefined) {
    e.positionX[id] = position[0];
    e.positionY[id] = position[1];
    e.positionZ[id] = position[2];
  }
  if (direction !== undefined) {
    e.directionX[id] = direction[0];
    e.directionY[id] = direction[1];
    e.directionZ[id] = direction[2];
  }
}

/** `FluidSimulation.removeEmitter` (its particles stay). */
export function removeEmitterEntity(ctx: SimulationContext, id: number): void {
  if (!isEmitterEntity(ctx, id)) throw new FluidError(`removeEmitter: ${String(id)} is not an emitter entity`);
  const emitters = ctx.events.emitters;
  emitters.splice(emitters.indexOf(id), 1);
  destroyEntity(ctx, id);
}

/** `FluidSimulation.addDrain`: checks the options, adds the drain entity, returns its id. */
export function addDrainEntity(ctx: SimulationContext, options: DrainOptions): number {
  if (typeof options !== 'object' || options === null) throw new FluidError('addDrain options must be an object');
  if (options.shape === 'sphere') checkKnownKeys("addDrain({ shape: 'sphere' })", options, DRAIN_OPTION_NAMES.sphere);
  else if (options.shape === undefined || options.shape === 'box')
    checkKnownKeys('addDrain', options, DRAIN_OPTION_NAMES.box);
  checkEmitterRoom(ctx);
  const enabled = withDefault(options.enabled, true);
  if (typeof enabled !== 'boolean') throw new FluidError(`enabled is ${String(enabled)}; it must be a boolean`);
  let shape: number;
  let min: [number, number, number];
  let max: [number, number, number] = [0, 0, 0];
  let radius = 0;
  if (options.shape === 'sphere') {
    shape = DrainShape.sphere;
    min = checkVector3('center', options.center);
    radius = checkOption('radius', DRAIN_OPTIONS.radius, options.radius);
  } else if (options.shape === undefined || options.shape === 'box') {
    shape = DrainShape.box;
    min = checkVector3('min', options.min);
    max = checkVector3('max', options.max);
    for (let axis = 0; axis < 3; axis++) {
      if (!(max[axis] > min[axis])) {
        throw new FluidError(`max[${axis}] (${max[axis]}) must be greater than min[${axis}] (${min[axis]})`);
      }
    }
  } else {
    throw new FluidError(
      `shape is '${String((options as { shape?: unknown }).shape)}'; allowed values are 'box', 'sphere'`,
    );
  }
  const eid = createEntity(ctx);
  const d = ctx.components.Drain;
  addComponent(ctx.world, eid, d);
  d.enabled[eid] = enabled ? 1 : 0;
  d.shape[eid] = shape;
  d.minX[eid] = min[0];
  d.minY[eid] = min[1];
  d.minZ[eid] = min[2];
  d.maxX[eid] = max[0];
  d.maxY[eid] = max[1];
  d.maxZ[eid] = max[2];
  d.radius[eid] = radius;
  d.removedCount[eid] = 0;
  ctx.events.drains.push(eid);
  return eid;
}

/** `FluidSimulation.removeDrain`. */
export function removeDrainEntity(ctx: SimulationContext, id: number): void {
  if (!isDrainEntity(ctx, id)) throw new FluidError(`removeDrain: ${String(id)} is not a drain entity`);
  const drains = ctx.events.drains;
  drains.splice(drains.indexOf(id), 1);
  destroyEntity(ctx, id);
}
