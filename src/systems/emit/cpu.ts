/**
 * Emit and drain (docs/ARCHITECTURE.md, "The step", step 1): the first system of a step. Ages every particle by the step's
 * duration and removes those past their lifetime or inside an enabled drain; then each enabled nozzle
 * emitter adds whole cross-section layers of particles. A layer is the spawn lattice (spacing 2r) cut to
 * the nozzle's disc or square; layers leave the nozzle at the emitter's rate, so at the rate
 * `layerCount x speed / 2r` the jet is a coherent column at rest density. A layer that became due part way
 * through the step starts the distance it has already travelled down the nozzle axis. At the capacity an
 * emitter stops for the step and says so (`Emitter.blocked`, `stats.emitterBlocked`); it never throws for
 * that. Invalid emitter or drain values (a NaN position, a negative rate) throw a {@link FluidError}
 * naming the value before anything changes.
 */
import { DrainShape, EmitterShape } from '../../components';
import { FluidError } from '../../core/errors';
import { allows, COORDINATE_RULE, DRAIN_OPTIONS, EMITTER_OPTIONS, type OptionRule, rangeText } from '../../core/schema';
import type { SimulationContext } from '../context';
import { createParticle, destroyParticle } from '../entities';

/** Next number in [0, 1) of the simulation's deterministic generator (mulberry32). */
export function nextRandom(ctx: SimulationContext): number {
  const events = ctx.events;
  events.randomState = (events.randomState + 0x6d2b79f5) >>> 0;
  let t = events.randomState;
  t = Math.imul(t ^ (t >>> 15), t | 1);
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
}

/** Throws {@link FluidError} if component field `name` of entity `eid` is outside `rule`'s range. */
function checkValue(name: string, eid: number, value: number, rule: OptionRule): void {
  if (!allows(rule, value)) {
    throw new FluidError(`${name}[${eid}] is ${value}; allowed range is ${rangeText(rule)}`);
  }
}

const EMITTER_VECTOR_FIELDS = [
  'positionX',
  'positionY',
  'positionZ',
  'directionX',
  'directionY',
  'directionZ',
] as const;
const DRAIN_VECTOR_FIELDS = ['minX', 'minY', 'minZ', 'maxX', 'maxY', 'maxZ'] as const;

/**
 * Validates every emitter and drain (the values game code may have edited, and `Emitter.owed`, which a
 * snapshot carries): throws {@link FluidError} naming the component, the entity and the allowed range.
 */
export function checkEmittersAndDrains(ctx: SimulationContext): void {
  const e = ctx.components.Emitter;
  const slotOfMaterial = ctx.materials.slotOfEntity;
  for (const eid of ctx.events.emitters) {
    for (const field of EMITTER_VECTOR_FIELDS) checkValue(`Emitter.${field}`, eid, e[field][eid], COORDINATE_RULE);
    checkValue('Emitter.radius', eid, e.radius[eid], EMITTER_OPTIONS.radius);
    checkValue('Emitter.rate', eid, e.rate[eid], EMITTER_OPTIONS.rate);
    checkValue('Emitter.speed', eid, e.speed[eid], EMITTER_OPTIONS.speed);
    checkValue('Emitter.spread', eid, e.spread[eid], EMITTER_OPTIONS.spread);
    checkValue('Emitter.lifetime', eid, e.lifetime[eid], EMITTER_OPTIONS.lifetime);
    if (e.shape[eid] !== EmitterShape.circle && e.shape[eid] !== EmitterShape.square) {
      throw new FluidError(
        `Emitter.shape[${eid}] is ${e.shape[eid]}; allowed values are ${EmitterShape.circle} (circle), ${EmitterShape.square} (square)`,
      );
    }
    const dx = e.directionX[eid];
    const dy = e.directionY[eid];
    const dz = e.directionZ[eid];
    if (!(dx * dx + dy * dy + dz * dz > 1e-18)) {
      throw new FluidError(`Emitter.direction of ${eid} is [${dx}, ${dy}, ${dz}]; it must not be zero`);
    }
    const material = e.material[eid];
    if (!(material < slotOfMaterial.length && slotOfMaterial[material] >= 0)) {
      throw new FluidError(`Emitter.material[${eid}] is ${material}, which is not a material entity`);
    }
    // What the rate owes is below one layer after a step (one layer while blocked), so at most the capacity
    // or, for a nozzle wider than that, its layer (counted only then: a loop over the nozzle).
    const owed = e.owed[eid];
    if (!(owed >= 0 && owed <= ctx.settings.capacity)) {
      const largest = Math.max(
        ctx.settings.capacity,
        nozzleLayer(e.shape[eid], e.radius[eid], 2 * ctx.settings.particleRadius),
      );
      if (!(owed >= 0 && owed <= largest)) {
        throw new FluidError(
          `Emitter.owed[${eid}] is ${owed}; allowed range is [0, ${largest}] particles (the capacity, or one cross-section layer of a wider nozzle)`,
        );
      }
    }
  }
  const d = ctx.components.Drain;
  for (const eid of ctx.events.drains) {
    for (const field of DRAIN_VECTOR_FIELDS) checkValue(`Drain.${field}`, eid, d[field][eid], COORDINATE_RULE);
    checkValue('Drain.radius', eid, d.radius[eid], DRAIN_OPTIONS.liveRadius);
    if (d.shape[eid] !== DrainShape.box && d.shape[eid] !== DrainShape.sphere) {
      throw new FluidError(
        `Drain.shape[${eid}] is ${d.shape[eid]}; allowed values are ${DrainShape.box} (box), ${DrainShape.sphere} (sphere)`,
      );
    }
  }
}

/** Removes particles past their lifetime or inside a drain; records their ids. */
function drainParticles(ctx: SimulationContext): void {
  const s = ctx.solver;
  const { Position, Particle } = ctx.components;
  const d = ctx.components.Drain;
  const drains = ctx.events.drains;
  const removed = ctx.events.removed;
  const dt = ctx.frameTimeStep;
  for (const eid of drains) d.removedCount[eid] = 0;
  let removedCount = 0;
  // Backwards: the particle that fills a removed place comes from the end, which was already visited.
  for (let place = s.count - 1; place >= 0; place--) {
    const eid = s.entity[place];
    const age = Particle.age[eid] + dt;
    Particle.age[eid] = age;
    const lifetime = Particle.lifetime[eid];
    let remove = lifetime > 0 && age >= lifetime;
    if (!remove) {
      const x = Position.x[eid];
      const y = Position.y[eid];
      const z = Position.z[eid];
      for (let k = 0; k < drains.length; k++) {
        const drain = drains[k];
        if (d.enabled[drain] === 0) continue;
        let inside: boolean;
        if (d.shape[drain] === DrainShape.box) {
          inside =
            x >= d.minX[drain] &&
            x <= d.maxX[drain] &&
            y >= d.minY[drain] &&
            y <= d.maxY[drain] &&
            z >= d.minZ[drain] &&
            z <= d.maxZ[drain];
        } else {
          const dx = x - d.minX[drain];
          const dy = y - d.minY[drain];
          const dz = z - d.minZ[drain];
          inside = dx * dx + dy * dy + dz * dz <= d.radius[drain] * d.radius[drain];
        }
        if (inside) {
          d.removedCount[drain]++;
          remove = true;
          break;
        }
      }
    }
    if (remove) {
      removed[removedCount++] = eid;
      destroyParticle(ctx, eid);
    }
  }
  ctx.stats.removedCount = removedCount;
}

/**
 * Number of lattice points (spacing `spacing`) of a nozzle cross-section of radius (or half side)
 * `radius`; with `out` (long enough: see `nozzleLayerCapacity`), writes each point's coordinates across the
 * nozzle (a, b in metres) as consecutive pairs.
 */
export function nozzleLayer(shape: number, radius: number, spacing: number, out?: Float64Array): number {
  const extent = Math.floor(radius / spacing + 1e-9);
  const limitSquared = (radius / spacing) ** 2 + 1e-9;
  let count = 0;
  for (let i = -extent; i <= extent; i++) {
    for (let j = -extent; j <= extent; j++) {
      if (shape === EmitterShape.circle && i * i + j * j > limitSquared) continue;
      if (out) {
        out[2 * count] = i * spacing;
        out[2 * count + 1] = j * spacing;
      }
      count++;
    }
  }
  return count;
}

/** Adds the layers each enabled emitter owes for this step. */
function emitParticles(ctx: SimulationContext): void {
  const e = ctx.components.Emitter;
  const s = ctx.solver;
  const capacity = ctx.settings.capacity;
  const spacing = 2 * ctx.settings.particleRadius;
  const dt = ctx.frameTimeStep;
  const emitted = ctx.events.emitted;
  let emittedCount = 0;
  let blocked = false;
  for (const eid of ctx.events.emitters) {
    e.blocked[eid] = 0;
    if (e.enabled[eid] === 0 || e.rate[eid] === 0) continue;
    const rate = e.rate[eid];
    const speed = e.speed[eid];
    const spread = e.spread[eid];
    const cosineSpread = Math.cos(spread);
    const material = e.material[eid];
    const lifetime = e.lifetime[eid];
    // Nozzle frame: unit direction d and two unit vectors u, v across it.
    let dx = e.directionX[eid];
    let dy = e.directionY[eid];
    let dz = e.directionZ[eid];
    const length = Math.sqrt(dx * dx + dy * dy + dz * dz);
    dx /= length;
    dy /= length;
    dz /= length;
    // u = d x (0, 1, 0) or d x (1, 0, 0) when d is nearly vertical.
    let ux = Math.abs(dy) < 0.9 ? -dz : 0;
    let uy = Math.abs(dy) < 0.9 ? 0 : dz;
    let uz = Math.abs(dy) < 0.9 ? dx : -dy;
    const uLength = Math.sqrt(ux * ux + uy * uy + uz * uz);
    ux /= uLength;
    uy /= uLength;
    uz /= uLength;
    const vx = dy * uz - dz * uy;
    const vy = dz * ux - dx * uz;
    const vz = dx * uy - dy * ux;
    const layerCount = nozzleLayer(e.shape[eid], e.radius[eid], spacing);
    if (ctx.events.layer.length < 2 * layerCount) ctx.events.layer = new Float64Array(4 * layerCount);
    const layer = ctx.events.layer;
    nozzleLayer(e.shape[eid], e.radius[eid], spacing, layer);
    let owed = e.owed[eid] + rate * dt;
    while (owed >= layerCount) {
      if (s.count + layerCount > capacity) {
        e.blocked[eid] = 1;
        blocked = true;
        owed = layerCount;
        break;
      }
      // This layer became due (owed - layerCount) / rate seconds ago and has travelled that far.
      const travelled = (speed * (owed - layerCount)) / rate;
      const cx = e.positionX[eid] + travelled * dx;
      const cy = e.positionY[eid] + travelled * dy;
      const cz = e.positionZ[eid] + travelled * dz;
      for (let point = 0; point < layerCount; point++) {
        const a = layer[2 * point];
        const b = layer[2 * point + 1];
        let jx = dx;
        let jy = dy;
        let jz = dz;
        if (spread > 0) {
          // A direction uniform over the cone of half-angle `spread` around d.
          const cosine = 1 - nextRandom(ctx) * (1 - cosineSpread);
          const sine = Math.sqrt(Math.max(0, 1 - cosine * cosine));
          const angle = 2 * Math.PI * nextRandom(ctx);
          const cu = Math.cos(angle) * sine;
          const cv = Math.sin(angle) * sine;
          jx = cosine * dx + cu * ux + cv * vx;
          jy = cosine * dy + cu * uy + cv * vy;
          jz = cosine * dz + cu * uz + cv * vz;
        }
        const id = createParticle(
          ctx,
          cx + a * ux + b * vx,
          cy + a * uy + b * vy,
          cz + a * uz + b * vz,
          speed * jx,
          speed * jy,
          speed * jz,
          material,
          lifetime,
        );
        emitted[emittedCount++] = id;
      }
      owed -= layerCount;
    }
    e.owed[eid] = owed;
  }
  ctx.stats.emittedCount = emittedCount;
  ctx.stats.emitterBlocked = blocked;
}

/** The step-start system: validate, age and drain, then emit. */
export function emitSystem(ctx: SimulationContext): void {
  checkEmittersAndDrains(ctx);
  drainParticles(ctx);
  emitParticles(ctx);
}

/**
 * The WebGPU backend's step-start system: validate and emit on the CPU (new particles are uploaded before
 * the step); ageing, lifetimes and drains run on the GPU (predict/predict.wgsl).
 */
export function emitOnlySystem(ctx: SimulationContext): void {
  checkEmittersAndDrains(ctx);
  emitParticles(ctx);
}
