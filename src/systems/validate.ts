/**
 * The checks before a step (and before a snapshot is restored) of what game code may have edited: the live
 * settings and the components. Each failure names the value and the allowed range (core/schema.ts).
 */
import type { FluidSettings } from '../components';
import { POSITION_LIMIT } from '../core/checks';
import { FluidError } from '../core/errors';
import {
  allows,
  checkOption,
  EMITTER_OPTIONS,
  type OptionRule,
  PROJECTION_OPTIONS,
  rangeText,
  SIMULATION_OPTIONS,
} from '../core/schema';
import { SHAPE_NAMES, SHAPES } from './collide/shapes';
import type { SimulationContext } from './context';
import { checkDiffuseMaterials, checkDiffuseSettings } from './diffuse/settings';
import { gatherColliders, gatherMaterials } from './gather';
import { checkMultiFluidComponents } from './multifluid/validate';
import { checkFreeSurface } from './settings';
import { checkSphSettings } from './sph/settings';

/** Checks one live setting; its name (`prefix` + `name`) is only built for the message (nothing per step). */
function checkLive(prefix: string, name: string, rule: OptionRule, value: unknown): void {
  if (!allows(rule, value)) checkOption(prefix + name, rule, value);
}

/**
 * Checks the settings that may change between steps (`simulation.settings`: gravity, timeStep, substeps, iterations,
 * maxSpeed, the projection's and, for `solver: 'sph'`, WCSPH's) against the option schema; `prefix` starts
 * each name in a message (`'settings.'`). Throws {@link FluidError}; changes nothing.
 */
export function checkLiveSettings(settings: FluidSettings, prefix: string): void {
  const rules = SIMULATION_OPTIONS;
  const gravity = settings.gravity;
  if (!Array.isArray(gravity) || gravity.length !== 3) {
    throw new FluidError(`${prefix}gravity is ${String(gravity)}; it must be an array of 3 finite numbers`);
  }
  for (let axis = 0; axis < 3; axis++) {
    if (!(Math.abs(gravity[axis]) <= rules.gravity.max))
      checkOption(`${prefix}gravity[${axis}]`, rules.gravity, gravity[axis]);
  }
  checkLive(prefix, 'timeStep', rules.timeStep, settings.timeStep);
  checkLive(prefix, 'substeps', rules.substeps, settings.substeps);
  checkLive(prefix, 'iterations', rules.iterations, settings.iterations);
  checkLive(prefix, 'maxSpeed', rules.maxSpeed, settings.maxSpeed);
  if (typeof settings.projection !== 'boolean') {
    throw new FluidError(`${prefix}projection is ${String(settings.projection)}; it must be true or false`);
  }
  const projection = PROJECTION_OPTIONS;
  checkLive(prefix, 'projectionTolerance', projection.tolerance, settings.projectionTolerance);
  checkLive(prefix, 'projectionMaxIterations', projection.maxIterations, settings.projectionMaxIterations);
  checkLive(prefix, 'projectionDensityRelaxation', projection.densityRelaxation, settings.projectionDensityRelaxation);
  // The name is only built for the message (nothing per step).
  if (typeof settings.projectionFreeSurface !== 'boolean') {
    checkFreeSurface(`${prefix}projectionFreeSurface`, settings.projectionFreeSurface);
  }
  if (settings.solver === 'sph') checkSphSettings(settings);
  if (settings.diffuseCapacity > 0) checkDiffuseSettings(settings, prefix);
}

/**
 * Checks every value game code may have edited since the last step, before the step changes anything:
 * emitter nozzle radii against {@link maximumNozzleRadius} (the emit system checks the other emitter and
 * drain values first thing), materials and collider poses (the checks of the gather system), each
 * collider's shape parameters, and the particles' `Position`, `Velocity`, `Particle.material`,
 * `Particle.lifetime` and `Particle.age`: when `particles` is true (the CPU backend, whose step reads every
 * particle component) of each live particle, else (WebGPU) of each particle whose upload the step carries. Throws a
 * {@link FluidError} naming the component, the entity and the allowed range; nothing is changed then, so
 * the game can correct the value and step again.
 */
export function checkComponents(ctx: SimulationContext, particles: boolean): void {
  const largestNozzle = maximumNozzleRadius(ctx.settings);
  const e = ctx.components.Emitter;
  for (const eid of ctx.events.emitters) {
    if (!(e.radius[eid] <= largestNozzle)) {
      throw new FluidError(
        `Emitter.radius[${eid}] is ${e.radius[eid]}; allowed range is [${EMITTER_OPTIONS.radius.min}, ${largestNozzle}]`,
      );
    }
  }
  gatherMaterials(ctx);
  gatherColliders(ctx);
  checkColliderShapes(ctx);
  checkParticleComponents(ctx, particles);
  // Fluid-fluid interaction fields, the particles' Temperature and Color, and the features the WCSPH and
  // MPS solvers do not implement.
  checkMultiFluidComponents(ctx, particles);
  checkDiffuseMaterials(ctx);
}

/**
 * Largest nozzle radius (m) an emitter may have: 2r (sqrt(capacity / pi) + 1), at most 1e4, so that one
 * cross-section layer holds about the capacity at most (a larger one could never be emitted, and laying it
 * out would take memory and time in proportion to its area).
 */
export function maximumNozzleRadius(settings: Pick<FluidSettings, 'particleRadius' | 'capacity'>): number {
  return Math.min(
    EMITTER_OPTIONS.radius.max,
    2 * settings.particleRadius * (Math.sqrt(settings.capacity / Math.PI) + 1),
  );
}

/** Shape codes and the parameters each shape needs: positive radii, box min below max, a unit plane normal. */
function checkColliderShapes(ctx: SimulationContext): void {
  const c = ctx.components.Collider;
  const table = ctx.colliders;
  for (let slot = 0; slot < table.count; slot++) {
    const eid = table.entity[slot];
    const shape = c.shape[eid];
    if (shape >= SHAPE_NAMES.length) {
      throw new FluidError(
        `Collider.shape[${eid}] is ${shape}; allowed values are 0 to ${SHAPE_NAMES.length - 1} (${SHAPE_NAMES.join(', ')})`,
      );
    }
    SHAPES[shape].check(c, eid);
  }
}

/**
 * Live particles' components: on the CPU backend (`all` true) every live particle's; on the WebGPU backend
 * those of the particles whose upload the step carries (appends and `markParticlesChanged` edits; the
 * others live on the GPU).
 */
function checkParticleComponents(ctx: SimulationContext, all: boolean): void {
  if (all) {
    const s = ctx.solver;
    const { Position, Velocity, Particle } = ctx.components;
    const slotOfEntity = ctx.materials.slotOfEntity;
    const limit = POSITION_LIMIT;
    const { min: shortest, max: longest } = EMITTER_OPTIONS.lifetime;
    for (let place = 0; place < s.count; place++) {
      const eid = s.entity[place];
      // One chain of comparisons, as strict as checkParticle's checks, passes a valid particle without a call;
      // checkParticle names what fails.
      const lifetime = Particle.lifetime[eid];
      if (
        !(
          Math.abs(Position.x[eid]) <= limit &&
          Math.abs(Position.y[eid]) <= limit &&
          Math.abs(Position.z[eid]) <= limit &&
          Number.isFinite(Velocity.x[eid] + Velocity.y[eid] + Velocity.z[eid] + Particle.age[eid]) &&
          slotOfEntity[Particle.material[eid]] >= 0 &&
          lifetime >= shortest &&
          lifetime <= longest
        )
      ) {
        checkParticle(ctx, eid);
      }
    }
  } else {
    ctx.gpu?.solver.forEachPendingUpload((eid) => checkParticle(ctx, eid));
  }
}

/**
 * Particle `eid`'s components: a position within {@link POSITION_LIMIT}, a finite velocity, a
 * material entity, a lifetime and a finite age.
 */
function checkParticle(ctx: SimulationContext, eid: number): void {
  const { Position, Velocity, Particle } = ctx.components;
  const limit = POSITION_LIMIT;
  // One chain of comparisons catches NaN, infinities and huge positions in all six values (the solvers clamp
  // a finite velocity to maxSpeed); the loop below only names the culprit.
  if (
    !(
      Math.abs(Position.x[eid]) <= limit &&
      Math.abs(Position.y[eid]) <= limit &&
      Math.abs(Position.z[eid]) <= limit &&
      Number.isFinite(Velocity.x[eid] + Velocity.y[eid] + Velocity.z[eid])
    )
  ) {
    for (const axis of ['x', 'y', 'z'] as const) {
      const value = Position[axis][eid];
      if (!(Math.abs(value) <= limit)) {
        throw new FluidError(
          `Position.${axis}[${eid}] is ${value}; it must be a finite number in [-${limit}, ${limit}] m`,
        );
      }
    }
    for (const axis of ['x', 'y', 'z'] as const) {
      const value = Velocity[axis][eid];
      if (!Number.isFinite(value))
        throw new FluidError(`Velocity.${axis}[${eid}] is ${value}; it must be a finite number`);
    }
  }
  const material = Particle.material[eid];
  if (!(ctx.materials.slotOfEntity[material] >= 0)) {
    throw new FluidError(`Particle.material[${eid}] is ${material}, which is not a material entity of this simulation`);
  }
  const lifetime = Particle.lifetime[eid];
  if (!allows(EMITTER_OPTIONS.lifetime, lifetime)) {
    throw new FluidError(
      `Particle.lifetime[${eid}] is ${lifetime}; allowed range is ${rangeText(EMITTER_OPTIONS.lifetime)} seconds (0 lives forever)`,
    );
  }
  if (!Number.isFinite(Particle.age[eid])) {
    throw new FluidError(`Particle.age[${eid}] is ${Particle.age[eid]}; it must be a finite number of seconds`);
  }
}
