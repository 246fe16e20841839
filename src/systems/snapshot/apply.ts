/**
 * Checks that a decoded snapshot fits a simulation (settings within the option schema, limits, components)
 * and applies it: entities, components, the solver's bookkeeping, statistics and settings, the warm starts.
 */

import { addComponent, addEntity, removeEntity } from 'bitecs';
import type { FluidSettings, FluidSolver } from '../../components';
import { FluidError } from '../../core/errors';
import { checkOption, choiceText, SIMULATION_OPTIONS, SOLVERS } from '../../core/schema';
import type { SimulationContext } from '../context';
import { emptyDiffuseStats } from '../diffuse/state';
import { restoreFreedIds } from '../entityIds';
import { resolveMpsSettings } from '../mps/settings';
import { mpsOptionsFromSnapshot, restoreMpsState } from '../mps/state';
import type { FluidSimulationOptions } from '../options';
import type { SignedDistanceField } from '../sdf/field';
import { checkLiveSettings } from '../validate';
import { writeComponentValues } from './components';
import {
  type DecodedSnapshot,
  type EntityIndex,
  type FromSnapshotOptions,
  type SavedProjection,
  SNAPSHOT_CAPACITY_FLOOR,
  storeFields,
} from './format';

/** The saved setting `key` as a number (throws {@link FluidError} naming it if absent or not a number). */
function numberSetting(decoded: DecodedSnapshot, key: string): number {
  const value = decoded.settings.get(key);
  if (typeof value !== 'number') throw new FluidError(`corrupt: the snapshot's setting '${key}' is missing`);
  return value;
}

/** Settings a simulation fixes at creation and cannot take from a snapshot: they must be equal. */
const FIXED_SETTINGS = ['particleRadius', 'kernelRadius'] as const;

/** Option names of `FluidSimulation` the saved settings map to (the backend is the caller's choice). */
const OPTION_SETTINGS = [
  'particleRadius',
  'kernelRadius',
  'capacity',
  'maxMaterials',
  'maxColliders',
  'maxEmitters',
  'timeStep',
  'substeps',
  'iterations',
  'maxSpeed',
] as const;

/** Projection option names and the settings keys they are saved under. */
const PROJECTION_SETTINGS = [
  ['tolerance', 'projectionTolerance'],
  ['maxIterations', 'projectionMaxIterations'],
  ['densityRelaxation', 'projectionDensityRelaxation'],
] as const;

/** White water's live option names and the settings keys they are saved under. */
const DIFFUSE_SETTINGS = [
  ['sprayNeighbours', 'diffuseSprayNeighbours'],
  ['bubbleNeighbours', 'diffuseBubbleNeighbours'],
] as const;

/** WCSPH option names and the settings keys they are saved under. */
const SPH_SETTINGS = [
  ['speedOfSound', 'sphSpeedOfSound'],
  ['viscosity', 'sphViscosity'],
  ['surfaceTension', 'sphSurfaceTension'],
  ['surfaceThreshold', 'sphSurfaceThreshold'],
  ['courantNumber', 'sphCourantNumber'],
  ['maxSubsteps', 'sphMaxSubsteps'],
] as const;

/**
 * The solver the snapshot was saved with: its `solver` setting, `'pbf'` for snapshots written before the
 * solver option existed (format version 1 without the key). Throws {@link FluidError} for another value.
 */
function savedSolver(decoded: DecodedSnapshot): FluidSolver {
  const value = decoded.settings.get('solver');
  if (value === undefined) return 'pbf';
  if ((SOLVERS as readonly unknown[]).includes(value)) return value as FluidSolver;
  throw new FluidError(
    `corrupt: the snapshot's setting 'solver' is ${String(value)}; allowed values are ${choiceText(SOLVERS)}`,
  );
}

/** The options that create a simulation with the snapshot's settings (backend, engine and mirror aside). */
export function snapshotSimulationOptions(decoded: DecodedSnapshot): FluidSimulationOptions {
  const options: Record<string, unknown> = {};
  for (const key of OPTION_SETTINGS) options[key] = numberSetting(decoded, key);
  const gravity = decoded.settings.get('gravity');
  if (!Array.isArray(gravity) || gravity.length !== 3) {
    throw new FluidError("corrupt: the snapshot's setting 'gravity' is missing");
  }
  options.gravity = [gravity[0], gravity[1], gravity[2]];
  options.solver = savedSolver(decoded);
  // The WCSPH settings (absent from snapshots written before the solver option: the defaults apply).
  const sph: Record<string, number> = {};
  for (const [option, key] of SPH_SETTINGS) {
    const value = decoded.settings.get(key);
    if (typeof value === 'number') sph[option] = value;
  }
  options.sph = sph;
  // The PBF projection's settings (absent from snapshots written before it existed: the defaults apply).
  if (decoded.settings.get('projection') === false) options.projection = false;
  else {
    const projection: Record<string, number | boolean> = {};
    for (const [option, key] of PROJECTION_SETTINGS) {
      const value = decoded.settings.get(key);
      if (typeof value === 'number') projection[option] = value;
    }
    // Absent from snapshots written before it existed, which ran without it: false (it is the default since).
    const freeSurface = decoded.settings.get('projectionFreeSurface');
    projection.freeSurface = typeof freeSurface === 'boolean' ? freeSurface : false;
    options.projection = projection;
  }
  // White water's settings (absent from snapshots written before it existed: off). Its diffuse particles are
  // not saved: a restored simulation starts with none and generates them again.
  const diffuseCapacity = decoded.settings.get('diffuseCapacity');
  if (typeof diffuseCapacity === 'number' && diffuseCapacity > 0) {
    const diffuse: Record<string, number> = { capacity: diffuseCapacity };
    for (const [option, key] of DIFFUSE_SETTINGS) {
      const value = decoded.settings.get(key);
      if (typeof value === 'number') diffuse[option] = value;
    }
    options.diffuse = diffuse;
  }
  // The MPS settings (absent from snapshots of the other solvers and from older ones: the defaults apply).
  if (options.solver === 'mps') options.mps = mpsOptionsFromSnapshot((key) => decoded.settings.get(key));
  return options as FluidSimulationOptions;
}

/**
 * The settings of `ctx` with the snapshot's values of those that may change between steps (the fixed ones,
 * the limits and the backend are this simulation's): a new object, `ctx` is unchanged.
 */
export function savedLiveSettings(ctx: SimulationContext, decoded: DecodedSnapshot): FluidSettings {
  const result = { ...ctx.settings, gravity: [...ctx.settings.gravity] } as FluidSettings;
  const settings = result as unknown as Record<string, unknown>;
  for (const [key, value] of decoded.settings) {
    if ((FIXED_SETTINGS as readonly string[]).includes(key) || key === 'backend' || key === 'sphMaxSubsteps') continue;
    if (key === 'threads' || key === 'webAssembly' || key === 'diffuseCapacity') continue;
    if (['capacity', 'maxMaterials', 'maxColliders', 'maxEmitters'].includes(key)) continue;
    const current = settings[key];
    if (Array.isArray(current) && Array.isArray(value) && current.length === value.length) {
      for (let k = 0; k < value.length; k++) current[k] = value[k];
    } else if (typeof current === 'number' && typeof value === 'number') {
      settings[key] = value;
    } else if (typeof current === 'boolean' && typeof value === 'boolean') {
      settings[key] = value;
    }
  }
  return result;
}

/**
 * The capacity `FluidSimulation.fromSnapshot` creates: the caller's `capacity`, else the snapshot's own when it
 * is at most `maxCapacity` (default: {@link SNAPSHOT_CAPACITY_FLOOR} or 4 times the saved particles). Throws
 * {@link FluidError} before anything is allocated when the snapshot asks for more, or a value is out of range.
 */
export function snapshotCapacity(decoded: DecodedSnapshot, saved: number, options: FromSnapshotOptions): number {
  const rule = SIMULATION_OPTIONS.capacity;
  const particles = decoded.particles.length;
  if (options.capacity !== undefined) {
    const capacity = checkOption('capacity', rule, options.capacity);
    if (capacity < particles) {
      throw new FluidError(`capacity ${capacity} is smaller than the snapshot's ${particles} particles`);
    }
    return capacity;
  }
  const limit =
    options.maxCapacity === undefined
      ? Math.max(SNAPSHOT_CAPACITY_FLOOR, 4 * particles)
      : checkOption('maxCapacity', rule, options.maxCapacity);
  if (saved > limit) {
    throw new FluidError(
      `the snapshot asks for capacity ${saved} for its ${particles} particles, more than maxCapacity ${limit}; pass fromSnapshot a capacity, or a maxCapacity of at least ${saved} if the file is trusted`,
    );
  }
  return saved;
}

/**
 * Checks that the snapshot fits the simulation of `ctx` (same particle and kernel radius; capacities and
 * entity ids within its limits). Throws {@link FluidError} naming the limit; changes nothing.
 */
export function checkSnapshotFits(ctx: SimulationContext, decoded: DecodedSnapshot): void {
  const settings = ctx.settings;
  const solver = savedSolver(decoded);
  if (solver !== settings.solver) {
    throw new FluidError(
      `solver is '${settings.solver}' here but '${solver}' in the snapshot; restore into a simulation created with solver '${solver}' (FluidSimulation.fromSnapshot does)`,
    );
  }
  // A saved setting out of range (the option schema, core/schema.ts) throws here, before anything changed.
  checkLiveSettings(savedLiveSettings(ctx, decoded), "the snapshot's settings.");
  // A saved MPS setting out of range throws here, before anything changed.
  if (solver === 'mps') resolveMpsSettings(mpsOptionsFromSnapshot((key) => decoded.settings.get(key)));
  for (const key of FIXED_SETTINGS) {
    const saved = numberSetting(decoded, key);
    if (!Object.is(saved, settings[key])) {
      throw new FluidError(
        `${key} is ${settings[key]} here but ${saved} in the snapshot; restore into a simulation created with the snapshot's ${key} (FluidSimulation.fromSnapshot does)`,
      );
    }
  }
  // WCSPH's substep cap sizes the WebGPU backend's pose buffer at creation (gpu/backend.ts): fixed too.
  const savedMaxSubsteps = decoded.settings.get('sphMaxSubsteps');
  if (solver === 'sph' && typeof savedMaxSubsteps === 'number' && savedMaxSubsteps !== settings.sphMaxSubsteps) {
    throw new FluidError(
      `sph.maxSubsteps is ${settings.sphMaxSubsteps} here but ${savedMaxSubsteps} in the snapshot; it is fixed at creation: restore into a simulation created with sph.maxSubsteps ${savedMaxSubsteps} (FluidSimulation.fromSnapshot does)`,
    );
  }
  const limits: [string, number, number, string][] = [
    ['capacity', settings.capacity, decoded.particles.length, 'particles'],
    ['maxMaterials', settings.maxMaterials, decoded.materials.length, 'materials'],
    ['maxColliders', settings.maxColliders, decoded.colliders.length, 'colliders'],
    ['maxEmitters', settings.maxEmitters, decoded.emitters.length + decoded.drains.length, 'emitters and drains'],
  ];
  for (const [name, limit, needed, what] of limits) {
    if (limit < needed) {
      throw new FluidError(
        `${name} ${limit} is smaller than the snapshot's ${needed} ${what}; create the simulation with a larger ${name} (or use FluidSimulation.fromSnapshot)`,
      );
    }
  }
  if (decoded.maxId >= ctx.entityCapacity) {
    throw new FluidError(
      `the snapshot's entity ids reach ${decoded.maxId}, beyond this simulation's entity capacity ${ctx.entityCapacity} (capacity + maxMaterials + maxColliders + maxEmitters + 1); create it with limits whose entity capacity exceeds ${decoded.maxId} (FluidSimulation.fromSnapshot without a smaller capacity does: freed ids are reused only once every id has been handed out, so a long run's ids span its whole id space)`,
    );
  }
  const stores = ctx.components as unknown as Record<string, unknown>;
  for (const store of decoded.stores) {
    if (!(store.name in stores)) {
      throw new FluidError(`the snapshot has a component '${store.name}' that this simulation does not have`);
    }
    const keys = new Set(storeFields(stores[store.name]).map(([key]) => key));
    for (const field of store.fields) {
      if (!keys.has(field.key)) {
        throw new FluidError(
          `the snapshot has a field '${store.name}${field.key ? `.${field.key}` : ''}' that this simulation does not have`,
        );
      }
    }
  }
}

/** True if `a` and `b` hold the same grid and the same bits. */
function sameField(a: SignedDistanceField, b: SignedDistanceField): boolean {
  if (a.cellSize !== b.cellSize || a.values.length !== b.values.length) return false;
  for (let axis = 0; axis < 3; axis++) {
    if (a.origin[axis] !== b.origin[axis] || a.nodeCounts[axis] !== b.nodeCounts[axis]) return false;
  }
  const x = new Int32Array(a.values.buffer, a.values.byteOffset, a.values.length);
  const y = new Int32Array(b.values.buffer, b.values.byteOffset, b.values.length);
  for (let k = 0; k < x.length; k++) if (x[k] !== y[k]) return false;
  return true;
}

/**
 * Replaces the state of the simulation of `ctx` (world created with `entityIndex`) by the snapshot's:
 * every entity of the world is removed, the saved ids are created again in the saved order (freed ids
 * queued for reuse in the saved order), and the components, the solver's bookkeeping, the fields, the
 * random state, the last step's ids, the statistics and the editable settings are written. Call
 * {@link checkSnapshotFits} first. Fields equal to one the simulation already has reuse that object.
 */
export function applySnapshot(ctx: SimulationContext, entityIndex: EntityIndex, decoded: DecodedSnapshot): void {
  const world = ctx.world;
  // 1. Entities: remove every live one (bitecs clears its components and queries), then recreate the saved
  // ids through the entity index: with the saved live ids first in `dense`, addEntity hands out exactly those.
  // The freed ids follow them in the saved order, the order of their reuse (entityIds.ts), queued again below.
  const live = entityIndex.dense.slice(0, entityIndex.aliveCount);
  for (const eid of live) removeEntity(world, eid);
  entityIndex.dense.length = 0;
  for (const eid of decoded.alive) entityIndex.dense.push(eid);
  for (const eid of decoded.dead) entityIndex.dense.push(eid);
  entityIndex.sparse.length = 0;
  entityIndex.aliveCount = 0;
  entityIndex.maxId = decoded.maxId;
  for (const expected of decoded.alive) {
    const eid = addEntity(world);
    if (eid !== expected) throw new FluidError(`restore: bitecs handed out entity ${eid} instead of ${expected}`);
  }
  restoreFreedIds(ctx.entityIds, decoded.dead);

  // 2. Components: the values (snapshot/components.ts), then the memberships. Particles of a snapshot
  // written before `Temperature` and `Color` existed get them, as createParticle gives them.
  writeComponentValues(ctx.components, decoded);
  for (const store of decoded.stores) {
    const component = (ctx.components as unknown as Record<string, object>)[store.name];
    const members = store.members;
    for (let k = 0; k < decoded.alive.length; k++) {
      if ((members[k >> 3] & (1 << (k & 7))) !== 0) addComponent(world, decoded.alive[k], component);
    }
  }
  const saved = new Set(decoded.stores.map((store) => store.name));
  const { Temperature, Color } = ctx.components;
  for (const eid of decoded.particles) {
    if (!saved.has('Temperature')) addComponent(world, eid, Temperature);
    if (!saved.has('Color')) addComponent(world, eid, Color);
  }

  // 3. The solver's bookkeeping: particle order, material and collider slots, emitters and drains.
  const s = ctx.solver;
  s.placeOfEntity.fill(-1);
  s.entity.set(decoded.particles);
  for (let place = 0; place < decoded.particles.length; place++) s.placeOfEntity[decoded.particles[place]] = place;
  s.count = decoded.particles.length;
  s.listedCount = 0;
  const m = ctx.materials;
  m.slotOfEntity.fill(-1);
  m.entity.set(decoded.materials);
  for (let slot = 0; slot < decoded.materials.length; slot++) m.slotOfEntity[decoded.materials[slot]] = slot;
  m.count = decoded.materials.length;
  const c = ctx.colliders;
  c.entity.set(decoded.colliders);
  c.count = decoded.colliders.length;
  const existing = c.fields.filter((field): field is SignedDistanceField => field !== undefined);
  const fields = decoded.fields.map((field) => {
    if (field === undefined) return undefined;
    return existing.find((candidate) => sameField(candidate, field)) ?? field;
  });
  c.fields.length = 0;
  for (const field of fields) c.fields.push(field);
  const events = ctx.events;
  events.emitters.length = 0;
  for (const eid of decoded.emitters) events.emitters.push(eid);
  events.drains.length = 0;
  for (const eid of decoded.drains) events.drains.push(eid);
  events.randomState = decoded.randomState;
  const emitted = decoded.emitted.subarray(0, events.emitted.length);
  const removed = decoded.removed.subarray(0, events.removed.length);
  events.emitted.set(emitted);
  events.removed.set(removed);

  // 4. Statistics and the settings that may change between steps.
  const stats = ctx.stats as unknown as Record<string, unknown>;
  for (const [key, value] of decoded.stats) {
    if (typeof stats[key] === typeof value) stats[key] = value;
  }
  ctx.stats.emittedCount = Math.min(ctx.stats.emittedCount, emitted.length);
  ctx.stats.removedCount = Math.min(ctx.stats.removedCount, removed.length);
  const savedSettings = savedLiveSettings(ctx, decoded);
  // The gravity array is kept (game code may hold it); its values are the snapshot's.
  const gravity = ctx.settings.gravity;
  for (let axis = 0; axis < 3; axis++) gravity[axis] = savedSettings.gravity[axis];
  Object.assign(ctx.settings, { ...savedSettings, gravity });
  // White water's diffuse particles are not saved: none after a restore (they are generated again).
  ctx.diffuse.particles.count = 0;
  Object.assign(ctx.stats, emptyDiffuseStats());
  // 5. The PBF projection's warm start (a grid larger than this simulation's limit starts cold).
  restoreProjection(ctx, decoded.projection);
  // 6. The MPS solver's settings and warm-start pressures (checked by checkSnapshotFits).
  if (ctx.settings.solver === 'mps') {
    const mps = resolveMpsSettings(mpsOptionsFromSnapshot((key) => decoded.settings.get(key)));
    restoreMpsState(ctx, mps, decoded.mpsWarmStart);
  }
}

/** Restores the projection's warm start and per-particle density errors (or clears them). */
function restoreProjection(ctx: SimulationContext, saved: SavedProjection | undefined): void {
  const state = ctx.projection;
  const plan = state.previousPlan;
  const s = ctx.solver;
  const cells = saved === undefined ? 0 : saved.dims[0] * saved.dims[1] * saved.dims[2];
  if (saved === undefined || cells > state.maxCells) {
    plan.cells = 0;
    plan.cellSize = 0;
    plan.dims.fill(0);
    s.constraint.fill(0, 0, s.count);
    if (saved !== undefined) s.constraint.set(saved.constraint);
    return;
  }
  plan.cellSize = saved.cellSize;
  plan.cells = cells;
  for (let a = 0; a < 3; a++) {
    plan.origin[a] = saved.origin[a];
    plan.dims[a] = saved.dims[a];
  }
  state.phi.fill(0, 0, cells);
  for (let k = 0; k < saved.cells.length; k++) state.phi[saved.cells[k]] = saved.phi[k];
  s.constraint.set(saved.constraint);
}
