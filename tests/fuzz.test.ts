/**
 * Property-based fuzzing of the headless simulation (fast-check, fixed seed, so every run is the same).
 *
 * Each case builds a tiny simulation from a random option set (valid values mostly, hostile ones, such as
 * NaN, infinities, zero, negative, huge, wrong types, now and then), gives it a material, a box container and
 * a block of water, then plays a random script of API calls (spawns, removals, emitters, drains, colliders,
 * poses, materials, bad ids, bad arguments), component edits by "game code" (valid values and hostile ones,
 * into Position, Velocity, Particle, FluidMaterial, Collider, Emitter, Drain and the settings) and runs of
 * steps (with valid and absurd time steps). Properties:
 *
 * - every exception is a `FluidError`, and a refused call leaves the whole state (the snapshot bytes) unchanged;
 * - a hostile edit is caught by the next step, which names the edited component and changes nothing;
 *   undoing the hostile edits lets the next step succeed (nothing was corrupted);
 * - after every step that did not throw, every live particle's position, velocity, density and age are
 *   finite;
 * - the particle count changes only through spawns, `removeParticle`, emitters, drains and lifetimes (the
 *   step's `lastEmitted()` and `lastRemoved()`); the entity bookkeeping (the world's query, `particles()`,
 *   `isParticle`) agrees with it and stays within the capacity.
 */
import { query } from 'bitecs';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  bakeSignedDistanceField,
  createSphereMesh,
  FluidError,
  type FluidMaterialOptions,
  FluidSimulation,
  type FluidSimulationOptions,
  type Vector3Tuple,
} from '../src';
import { threadTestHooks } from '../src/systems/parallel/pool';
import { crc32 } from '../src/systems/snapshot/format';
import { nodeStartsWorkers } from './helpers';

/** The seed of the whole run; change it to explore, keep it fixed in the repository. */
const SEED = 20261122;
/** Scenarios (each a simulation and its script). */
const RUNS = Number(process.env.FUZZ_RUNS ?? 400);

// ---- Value generators ------------------------------------------------------------------------------

/** Values no argument of the API accepts (wrong type, NaN, infinite, malformed vectors). */
const alwaysInvalid: readonly unknown[] = [
  Number.NaN,
  Number.POSITIVE_INFINITY,
  Number.NEGATIVE_INFINITY,
  null,
  '1',
  [Number.NaN, 0, 0],
  [1, 2],
  {},
];
/** Values most arguments refuse (negative, zero, huge), some accept (a rate of 0). */
const oftenInvalid: readonly unknown[] = [-1, 0, 1e12, -1e12, 1e300, [0, 0, 1e12], [0, 0, 0], [-1, -1, -1]];

/** `fc.record` with every key required in its type too. */
function record<T>(model: { [K in keyof T]: fc.Arbitrary<T[K]> }): fc.Arbitrary<T> {
  return fc.record(model) as fc.Arbitrary<T>;
}

const range = (min: number, max: number) => fc.double({ min, max, noNaN: true, noDefaultInfinity: true });

function vector(min: number, max: number): fc.Arbitrary<[number, number, number]> {
  return fc.tuple(range(min, max), range(min, max), range(min, max));
}

/** A box: `min` in [low, high] and `max` = min + a size in [0, size] per axis. */
function box(low: number, high: number, size: number) {
  return fc
    .tuple(vector(low, high), vector(0, size))
    .map(([min, extent]): { min: Vector3Tuple; max: Vector3Tuple } => ({
      min,
      max: [min[0] + extent[0], min[1] + extent[1], min[2] + extent[2]],
    }));
}

/** An optional option: absent (the default) half of the time. */
function optional<T>(arbitrary: fc.Arbitrary<T>): fc.Arbitrary<T | undefined> {
  return fc.option(arbitrary, { nil: undefined, freq: 2 });
}

/** Names the argument a draw had replaced by a hostile value, and the value. */
interface Corruption {
  readonly corrupted?: string;
  readonly hostileValue?: unknown;
}

/**
 * Valid draws of `valid`; a quarter of them with one of `keys` (each an argument the call reads) replaced
 * by a hostile value.
 */
function sometimesCorrupted<T extends object>(
  valid: fc.Arbitrary<T>,
  keys: readonly (keyof T & string)[],
): fc.Arbitrary<T & Corruption> {
  const corruption = record({
    key: fc.constantFrom(...keys),
    value: fc.constantFrom(...alwaysInvalid, ...oftenInvalid),
  });
  return fc
    .tuple(valid, fc.oneof({ weight: 3, arbitrary: fc.constant(undefined) }, { weight: 1, arbitrary: corruption }))
    .map(([value, bad]) =>
      bad === undefined
        ? value
        : ({ ...value, [bad.key]: bad.value, corrupted: bad.key, hostileValue: bad.value } as T & Corruption),
    );
}

/** Constructor options at a tiny scale (tens of particles): valid ones, a quarter with one hostile value. */
const constructorOptions = sometimesCorrupted(
  record({
    particleRadius: optional(range(0.04, 0.09)),
    kernelRatio: optional(range(3, 8)),
    capacity: optional(fc.integer({ min: 20, max: 200 })),
    maxMaterials: optional(fc.integer({ min: 1, max: 3 })),
    maxColliders: optional(fc.integer({ min: 1, max: 4 })),
    maxEmitters: optional(fc.integer({ min: 1, max: 4 })),
    gravity: optional(vector(-15, 15)),
    timeStep: optional(range(1 / 240, 1 / 30)),
    substeps: optional(fc.integer({ min: 1, max: 3 })),
    iterations: optional(fc.integer({ min: 1, max: 4 })),
    maxSpeed: optional(range(0.5, 40)),
    backend: optional(fc.constantFrom('cpu' as const, 'auto' as const)),
    threads: optional(fc.integer({ min: 1, max: 3 })),
  }),
  [
    'particleRadius',
    'kernelRatio',
    'capacity',
    'maxMaterials',
    'maxColliders',
    'maxEmitters',
    'gravity',
    'timeStep',
    'substeps',
    'iterations',
    'maxSpeed',
    'backend',
    'threads',
  ],
);

type ConstructorDraw = typeof constructorOptions extends fc.Arbitrary<infer T> ? T : never;

/** Where "game code" writes, the values it writes, and whether the simulation must refuse them. */
interface EditTarget {
  /** Component and field, as the error message names it (`Position.x`, `FluidMaterial.viscosity`). */
  readonly name: string;
  /** Valid values (the simulation must accept them). */
  readonly valid: fc.Arbitrary<number>;
  /** Values the next step must refuse. */
  readonly hostile: readonly number[];
}

const finiteOnly = [Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY];

const particleTargets: readonly EditTarget[] = [
  { name: 'Position.x', valid: range(-1, 2), hostile: finiteOnly },
  { name: 'Position.y', valid: fc.oneof(range(-1, 2), fc.constant(1e6)), hostile: finiteOnly },
  { name: 'Position.z', valid: range(-1, 2), hostile: finiteOnly },
  { name: 'Velocity.x', valid: range(-20, 20), hostile: finiteOnly },
  { name: 'Velocity.y', valid: fc.oneof(range(-20, 20), fc.constant(1e4)), hostile: finiteOnly },
  { name: 'Velocity.z', valid: range(-20, 20), hostile: finiteOnly },
  { name: 'Particle.lifetime', valid: range(0, 2), hostile: [Number.NaN, -1, Number.POSITIVE_INFINITY, 1e10] },
  { name: 'Particle.age', valid: range(0, 5), hostile: finiteOnly },
  // Particle.material: the interpreter writes a material id for "valid", these for "hostile".
  { name: 'Particle.material', valid: fc.constant(0), hostile: [0, 99999, 4294967295] },
];

const materialTargets: readonly EditTarget[] = [
  { name: 'FluidMaterial.restDensity', valid: range(500, 2000), hostile: [Number.NaN, -1, 0, 1e10] },
  { name: 'FluidMaterial.viscosity', valid: range(0, 1), hostile: [Number.NaN, -0.1, 2] },
  { name: 'FluidMaterial.vorticity', valid: range(0, 1), hostile: [Number.NaN, -1, 1e4] },
  { name: 'FluidMaterial.artificialPressureStrength', valid: range(0, 1), hostile: [-1, 11, Number.NaN] },
  { name: 'FluidMaterial.artificialPressureExponent', valid: range(1, 8), hostile: [0, 17, Number.NaN] },
  { name: 'FluidMaterial.artificialPressureDistance', valid: range(0, 0.5), hostile: [-0.1, 1, Number.NaN] },
  { name: 'FluidMaterial.relaxation', valid: range(0.001, 1), hostile: [0, -1, 1e7, Number.NaN] },
];

const colliderTargets: readonly EditTarget[] = [
  { name: 'Collider.friction', valid: range(0, 2), hostile: [-1, 101, Number.NaN] },
  { name: 'Collider.restitution', valid: range(0, 1), hostile: [-0.5, 1.5, Number.NaN] },
  { name: 'Collider.positionX', valid: range(-0.3, 0.3), hostile: finiteOnly },
  { name: 'Collider.positionY', valid: range(-0.3, 0.3), hostile: finiteOnly },
  { name: 'Collider.rotationX', valid: range(-1, 1), hostile: finiteOnly },
  // Not 0: the other components may all be 0, and a zero quaternion is refused (gather.ts).
  { name: 'Collider.rotationW', valid: fc.oneof(range(-1, -0.05), range(0.05, 1)), hostile: finiteOnly },
  { name: 'Collider.scale', valid: range(0.5, 2), hostile: [0, -1, 1e7, Number.NaN] },
  // Collider.shape: "valid" rewrites the collider's own shape.
  { name: 'Collider.shape', valid: fc.constant(0), hostile: [7, 200] },
];

const emitterTargets: readonly EditTarget[] = [
  { name: 'Emitter.rate', valid: range(0, 400), hostile: [-1, 1e10, Number.NaN] },
  { name: 'Emitter.speed', valid: range(0, 5), hostile: [-1, 1e5, Number.NaN] },
  { name: 'Emitter.spread', valid: range(0, 3), hostile: [-0.1, 4, Number.NaN] },
  { name: 'Emitter.lifetime', valid: range(0, 2), hostile: [-1, 1e10, Number.NaN] },
  { name: 'Emitter.radius', valid: range(0.05, 0.15), hostile: [0, -1, 1e5, Number.NaN] },
  { name: 'Emitter.positionY', valid: range(0.3, 0.9), hostile: finiteOnly },
  { name: 'Emitter.directionX', valid: range(-1, 1), hostile: finiteOnly },
];

const drainTargets: readonly EditTarget[] = [
  { name: 'Drain.minX', valid: range(-0.2, 0.2), hostile: finiteOnly },
  { name: 'Drain.maxY', valid: range(0, 0.3), hostile: finiteOnly },
  { name: 'Drain.radius', valid: range(0, 0.3), hostile: [-1, 1e8, Number.NaN] },
];

const settingTargets: readonly EditTarget[] = [
  { name: 'settings.gravity[1]', valid: range(-30, 30), hostile: [Number.NaN, 1e4, Number.NEGATIVE_INFINITY] },
  { name: 'settings.substeps', valid: fc.integer({ min: 1, max: 3 }), hostile: [0, 1.5, 33, Number.NaN] },
  { name: 'settings.iterations', valid: fc.integer({ min: 1, max: 4 }), hostile: [0, 2.5, 65] },
  { name: 'settings.maxSpeed', valid: range(0.5, 100), hostile: [0, -1, 1e5, Number.NaN] },
  { name: 'timeStep', valid: range(1 / 240, 1 / 30), hostile: [0, -1 / 60, 10, Number.NaN] },
];

type EditKind = 'particle' | 'material' | 'collider' | 'emitter' | 'drain' | 'settings';

/** An edit: a target of one kind, which entity (an index into the live ones), valid (2/3) or hostile, the value. */
function edit(component: EditKind, targets: readonly EditTarget[]) {
  return fc
    .record({
      target: fc.integer({ min: 0, max: targets.length - 1 }),
      pick: fc.nat(),
      hostile: fc.integer({ min: 0, max: 2 }).map((draw) => draw === 0),
      hostileIndex: fc.nat(),
    })
    .chain(({ target, pick, hostile, hostileIndex }) =>
      targets[target].valid.map((validValue) => ({
        kind: 'edit' as const,
        component,
        name: targets[target].name,
        pick,
        hostile,
        value: hostile ? targets[target].hostile[hostileIndex % targets[target].hostile.length] : validValue,
      })),
    );
}

type EditAction = ReturnType<typeof edit> extends fc.Arbitrary<infer T> ? T : never;

/** An entity id: one of the live entities of a kind (by index; 6 in 7), or an id that is none. */
const idPick = fc.oneof(
  { weight: 6, arbitrary: record({ live: fc.constant(true), index: fc.nat() }) },
  {
    weight: 1,
    arbitrary: record({
      live: fc.constant(false),
      index: fc.constantFrom(-1, 0, 1.5, 99999, Number.NaN, Number.POSITIVE_INFINITY),
    }),
  },
);

type IdPick = typeof idPick extends fc.Arbitrary<infer T> ? T : never;

const common = {
  container: fc.constantFrom(false, false, true),
  friction: optional(range(0, 1)),
  restitution: optional(range(0, 1)),
};
const commonKeys = ['container', 'friction', 'restitution'] as const;

function kind<K extends string>(name: K): fc.Arbitrary<K> {
  return fc.constant(name);
}

const action = fc.oneof(
  { weight: 14, arbitrary: record({ kind: kind('steps'), count: fc.integer({ min: 1, max: 30 }) }) },
  {
    weight: 2,
    arbitrary: sometimesCorrupted(record({ kind: kind('stepWith'), timeStep: range(1 / 240, 1 / 30) }), ['timeStep']),
  },
  {
    weight: 2,
    arbitrary: sometimesCorrupted(
      record({
        kind: kind('spawnBlock'),
        box: box(0.05, 0.5, 0.4),
        material: idPick,
        velocity: optional(vector(-2, 2)),
      }),
      ['box', 'velocity'],
    ),
  },
  {
    weight: 1,
    arbitrary: sometimesCorrupted(
      record({ kind: kind('spawnSphere'), center: vector(0.2, 0.8), radius: range(0.1, 0.25), material: idPick }),
      ['center', 'radius'],
    ),
  },
  {
    weight: 1,
    arbitrary: sometimesCorrupted(
      record({
        kind: kind('spawnMesh'),
        position: vector(0.3, 0.7),
        rotation: optional(fc.tuple(range(-1, 1), range(-1, 1), range(-1, 1), range(0.5, 1))),
        scaling: range(0.5, 2),
        material: idPick,
      }),
      ['position', 'rotation', 'scaling'],
    ),
  },
  { weight: 3, arbitrary: record({ kind: kind('removeParticle'), id: idPick }) },
  {
    weight: 2,
    arbitrary: sometimesCorrupted(
      record({
        kind: kind('addEmitter'),
        position: vector(0.2, 0.8),
        direction: optional(vector(-1, 1).filter(([x, y, z]) => Math.hypot(x, y, z) > 1e-3)),
        radius: optional(range(0.05, 0.2)),
        rate: optional(range(0, 300)),
        speed: optional(range(0, 4)),
        spread: optional(range(0, 1)),
        lifetime: optional(range(0, 2)),
        shape: optional(fc.constantFrom('circle' as const, 'square' as const)),
        material: idPick,
      }),
      ['position', 'direction', 'radius', 'rate', 'speed', 'spread', 'lifetime', 'shape'],
    ),
  },
  { weight: 1, arbitrary: record({ kind: kind('removeEmitter'), id: idPick }) },
  {
    weight: 1,
    arbitrary: sometimesCorrupted(record({ kind: kind('addBoxDrain'), box: box(-0.1, 0.6, 0.4) }), ['box']),
  },
  {
    weight: 1,
    arbitrary: sometimesCorrupted(
      record({ kind: kind('addSphereDrain'), center: vector(-0.1, 0.8), radius: range(0.01, 0.2) }),
      ['center', 'radius'],
    ),
  },
  { weight: 1, arbitrary: record({ kind: kind('removeDrain'), id: idPick }) },
  {
    weight: 1,
    arbitrary: sometimesCorrupted(
      record({
        kind: kind('addMaterial'),
        restDensity: optional(range(500, 2000)),
        viscosity: optional(range(0, 0.5)),
        vorticity: optional(range(0, 0.5)),
        relaxation: optional(range(0.001, 1)),
        color: optional(vector(0, 1)),
      }),
      ['restDensity', 'viscosity', 'vorticity', 'relaxation', 'color'],
    ),
  },
  {
    weight: 1,
    arbitrary: sometimesCorrupted(
      record({ kind: kind('addSphere'), center: vector(0.1, 0.9), radius: range(0.03, 0.2), ...common }),
      ['center', 'radius', ...commonKeys],
    ),
  },
  {
    weight: 1,
    arbitrary: sometimesCorrupted(
      record({
        kind: kind('addCapsule'),
        a: vector(0.1, 0.9),
        b: vector(0.1, 0.9),
        radius: range(0.03, 0.2),
        ...common,
      }),
      ['a', 'b', 'radius', ...commonKeys],
    ),
  },
  {
    weight: 1,
    arbitrary: sometimesCorrupted(
      record({
        kind: kind('addPlane'),
        point: vector(0, 0.3),
        normal: vector(-1, 1).filter(([x, y, z]) => Math.hypot(x, y, z) > 1e-3),
        ...common,
      }),
      ['point', 'normal', ...commonKeys],
    ),
  },
  {
    weight: 1,
    arbitrary: sometimesCorrupted(record({ kind: kind('addBox'), box: box(0.1, 0.6, 0.3), ...common }), [
      'box',
      ...commonKeys,
    ]),
  },
  {
    weight: 1,
    arbitrary: sometimesCorrupted(record({ kind: kind('addMesh'), ...common }), [...commonKeys]),
  },
  { weight: 1, arbitrary: record({ kind: kind('removeCollider'), id: idPick }) },
  {
    weight: 2,
    arbitrary: sometimesCorrupted(
      record({
        kind: kind('setColliderTransform'),
        id: idPick,
        position: optional(vector(-0.2, 0.2)),
        rotation: optional(fc.tuple(range(-1, 1), range(-1, 1), range(-1, 1), range(0.5, 1))),
        scaling: optional(range(0.8, 1.2)),
        teleport: fc.boolean(),
      }),
      ['position', 'rotation', 'scaling'],
    ),
  },
  {
    weight: 1,
    arbitrary: sometimesCorrupted(
      record({
        kind: kind('setEmitterTransform'),
        id: idPick,
        position: optional(vector(0.2, 0.8)),
        direction: optional(vector(-1, 1).filter(([x, y, z]) => Math.hypot(x, y, z) > 1e-3)),
      }),
      ['position', 'direction'],
    ),
  },
  { weight: 1, arbitrary: record({ kind: kind('markParticlesChanged'), ids: fc.array(idPick, { maxLength: 4 }) }) },
  { weight: 3, arbitrary: edit('particle', particleTargets) },
  { weight: 2, arbitrary: edit('material', materialTargets) },
  { weight: 1, arbitrary: edit('collider', colliderTargets) },
  { weight: 1, arbitrary: edit('emitter', emitterTargets) },
  { weight: 1, arbitrary: edit('drain', drainTargets) },
  { weight: 1, arbitrary: edit('settings', settingTargets) },
);

type Action = typeof action extends fc.Arbitrary<infer T> ? T : never;

const scenario = record({
  options: constructorOptions,
  material: sometimesCorrupted(
    record({ viscosity: optional(range(0, 0.3)), restDensity: optional(range(800, 1200)) }),
    ['viscosity', 'restDensity'],
  ),
  block: record({ height: range(0.1, 0.5), width: range(0.1, 0.5) }),
  actions: fc.array(action, { minLength: 10, maxLength: 40 }),
});

// ---- The interpreter ---------------------------------------------------------------------------------

/** What the whole run did, printed at the end. */
const tally = {
  scenarios: 0,
  constructorRejected: 0,
  actions: 0,
  stepsTaken: 0,
  stepsRefused: 0,
  stepsDiscarded: 0,
  hostileEdits: 0,
  hostileEditsCaught: 0,
  validEdits: 0,
  apiErrors: 0,
  emitted: 0,
  removedByStep: 0,
  removedByCall: 0,
  spawned: 0,
  largestCount: 0,
  /** Accepted scenarios whose `settings.threads` is above 1 (drawn, or the default on this machine). */
  askedForWorkers: 0,
  /** Scenarios whose last step ran the pair loops on workers (`stats.threads` above 1). */
  withWorkers: 0,
};

/** A small closed mesh's field, for mesh colliders and mesh spawns (baked once). */
const sphereField = bakeSignedDistanceField(createSphereMesh(0.15, 12), { resolution: 12 });

function toOptions(draw: ConstructorDraw): FluidSimulationOptions {
  const options: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(draw)) {
    if (value !== undefined && key !== 'kernelRatio' && key !== 'corrupted' && key !== 'hostileValue') {
      options[key] = value;
    }
  }
  if (draw.kernelRatio !== undefined) {
    const radius = typeof draw.particleRadius === 'number' ? draw.particleRadius : 0.025;
    options.kernelRadius = typeof draw.kernelRatio === 'number' ? draw.kernelRatio * radius : draw.kernelRatio;
  }
  return options as FluidSimulationOptions;
}

/** Runs `call`; a thrown error must be a FluidError (the property fails otherwise). Returns the error. */
function attempt(description: string, call: () => void): FluidError | undefined {
  try {
    call();
    return undefined;
  } catch (error) {
    if (!(error instanceof FluidError)) {
      throw new Error(`${description} threw ${String(error)} (${(error as Error)?.stack ?? ''}), not a FluidError`);
    }
    return error;
  }
}

/** A hostile edit waiting for the next step, with how to undo it and whether it still applies. */
interface PendingEdit {
  readonly name: string;
  readonly hostile: boolean;
  readonly undo: () => void;
  readonly applies: () => boolean;
}

/** A readable one-line description of an action (infinities and NaN spelled out). */
function describeAction(a: Action): string {
  return JSON.stringify(a, (_key, value) =>
    typeof value === 'number' && !Number.isFinite(value) ? String(value) : value,
  );
}

/** `min` and `max` of a drawn box, or, where the box was replaced by a hostile value, that value for both. */
function corners(value: unknown): { min: Vector3Tuple; max: Vector3Tuple } {
  if (typeof value === 'object' && value !== null && 'min' in value && 'max' in value) {
    return value as { min: Vector3Tuple; max: Vector3Tuple };
  }
  return { min: value as Vector3Tuple, max: value as Vector3Tuple };
}

/** An action's arguments without the interpreter's tags (kind, corruption, ids). */
function withoutTags<T extends object>(a: T): Omit<T, 'kind' | 'corrupted' | 'hostileValue' | 'id'> {
  const {
    kind: _kind,
    corrupted: _corrupted,
    hostileValue: _hostileValue,
    id: _id,
    ...rest
  } = a as T & {
    kind?: unknown;
    corrupted?: unknown;
    hostileValue?: unknown;
    id?: unknown;
  };
  return rest as Omit<T, 'kind' | 'corrupted' | 'hostileValue' | 'id'>;
}

class Run {
  readonly simulation: FluidSimulation;
  readonly materials: number[] = [];
  readonly colliders: number[] = [];
  readonly emitters: number[] = [];
  readonly drains: number[] = [];
  expectedCount = 0;
  pending: PendingEdit[] = [];
  constructor(simulation: FluidSimulation) {
    this.simulation = simulation;
  }

  /** The live entity `pick` names in `list`, or an id that is none (then `onBad` is called). */
  pickFrom(list: ArrayLike<number>, pick: IdPick, onBad: () => void = () => {}): number {
    if (pick.live && list.length > 0) return list[pick.index % list.length];
    onBad();
    return pick.live ? 99999 : pick.index;
  }

  /** A live particle, or an id that is none (then `onBad` is called). */
  pickParticle(pick: IdPick, onBad: () => void = () => {}): number {
    return this.pickFrom(this.simulation.particles(), pick, onBad);
  }

  /** Checks the bookkeeping and, after a completed step, that every particle value is finite. */
  checkInvariants(afterStep: boolean, description: string): void {
    const simulation = this.simulation;
    const count = simulation.particleCount;
    expect(count, `particle count after ${description}`).toBe(this.expectedCount);
    expect(count).toBeLessThanOrEqual(simulation.settings.capacity);
    expect(query(simulation.world, [simulation.components.Particle]).length).toBe(count);
    const ids = simulation.particles();
    expect(ids.length).toBe(count);
    expect(new Set(ids).size).toBe(count);
    tally.largestCount = Math.max(tally.largestCount, count);
    if (!afterStep) return;
    const { Position, Velocity, Density } = simulation;
    const age = simulation.components.Particle.age;
    for (const eid of ids) {
      const sum = Position.x[eid] + Position.y[eid] + Position.z[eid] + Velocity.x[eid] + Velocity.y[eid];
      if (!Number.isFinite(sum + Velocity.z[eid] + Density[eid] + age[eid])) {
        throw new Error(`after ${description}: particle ${eid} has a non-finite value`);
      }
    }
  }

  /** The message of the last step's FluidError ('' if it completed), for the recovery's failure message. */
  lastError = '';

  /** One step; returns true if it completed. Applies the count model either way. */
  step(timeStep: number | undefined, description: string): boolean {
    const simulation = this.simulation;
    const before = simulation.particleCount;
    const stepsBefore = simulation.stats.stepCount;
    const hostile = this.pending.filter((entry) => entry.hostile && entry.applies());
    const error = attempt(description, () => (timeStep === undefined ? simulation.step() : simulation.step(timeStep)));
    this.lastError = error?.message ?? '';
    if (error === undefined) {
      expect(
        hostile.map((entry) => entry.name),
        `a step accepted hostile edits (${description})`,
      ).toEqual([]);
      this.expectedCount = before + simulation.stats.emittedCount - simulation.stats.removedCount;
      tally.stepsTaken++;
      tally.emitted += simulation.stats.emittedCount;
      tally.removedByStep += simulation.stats.removedCount;
      this.pending = [];
      this.checkInvariants(true, description);
      return true;
    }
    expect(simulation.stats.stepCount).toBe(stepsBefore);
    if (error.message.startsWith('the step produced')) {
      // The solve produced a non-finite value: the step was discarded after emitting and draining.
      tally.stepsDiscarded++;
      this.expectedCount = before + simulation.stats.emittedCount - simulation.stats.removedCount;
    } else {
      // Refused before anything changed.
      tally.stepsRefused++;
      expect(simulation.particleCount, `a refused step changed the count (${error.message})`).toBe(before);
      if (hostile.length > 0 && timeStep === undefined) {
        tally.hostileEditsCaught++;
        const named = hostile.some((entry) => error.message.includes(entry.name));
        expect(named, `'${error.message}' names none of ${hostile.map((e) => e.name).join(', ')}`).toBe(true);
      }
    }
    this.checkInvariants(false, description);
    return false;
  }

  /** After a refused step: undo every edit since the last completed step; the next step must complete. */
  recover(description: string): void {
    for (let k = this.pending.length - 1; k >= 0; k--) this.pending[k].undo();
    this.pending = [];
    const completed = this.step(undefined, `the step after undoing the edits (${description})`);
    expect(completed, `the simulation did not recover after ${description}: ${this.lastError}`).toBe(true);
  }

  apply(a: Action): void {
    const simulation = this.simulation;
    const description = describeAction(a);
    tally.actions++;
    switch (a.kind) {
      case 'steps': {
        for (let k = 0; k < a.count; k++) {
          if (!this.step(undefined, description)) {
            this.recover(description);
            break;
          }
        }
        return;
      }
      case 'stepWith': {
        const completed = this.step(a.timeStep, description);
        if (a.corrupted !== undefined) expect(completed, `${description} was accepted`).toBe(false);
        if (!completed) this.recover(description);
        return;
      }
      case 'edit':
        this.applyEdit(a);
        this.checkInvariants(false, description);
        return;
      default:
        break;
    }
    const before = simulation.particleCount;
    let spawned = 0;
    let removed = 0;
    /** True when the call must be refused: an id that is no entity of its kind. */
    let badId = false;
    const material = (pick: IdPick) => this.pickFrom(this.materials, pick, () => (badId = true));
    const stateBefore = simulation.snapshot();
    const error = attempt(description, () => {
      switch (a.kind) {
        case 'spawnBlock':
          spawned = simulation.spawnBlock({
            ...corners(a.box),
            material: material(a.material),
            velocity: a.velocity,
          }).length;
          break;
        case 'spawnSphere':
          spawned = simulation.spawn({
            shape: 'sphere',
            center: a.center,
            radius: a.radius,
            material: material(a.material),
          }).length;
          break;
        case 'spawnMesh':
          spawned = simulation.spawn({
            shape: 'mesh',
            field: sphereField,
            position: a.position,
            rotation: a.rotation,
            scaling: a.scaling,
            material: material(a.material),
          }).length;
          break;
        case 'removeParticle':
          simulation.removeParticle(this.pickParticle(a.id, () => (badId = true)));
          removed = 1;
          break;
        case 'addEmitter':
          this.emitters.push(simulation.addEmitter({ ...withoutTags(a), material: material(a.material) }));
          break;
        case 'removeEmitter': {
          const id = this.pickFrom(this.emitters, a.id, () => (badId = true));
          simulation.removeEmitter(id);
          this.emitters.splice(this.emitters.indexOf(id), 1);
          break;
        }
        case 'addBoxDrain':
          this.drains.push(simulation.addDrain(corners(a.box)));
          break;
        case 'addSphereDrain':
          this.drains.push(simulation.addDrain({ shape: 'sphere', center: a.center, radius: a.radius }));
          break;
        case 'removeDrain': {
          const id = this.pickFrom(this.drains, a.id, () => (badId = true));
          simulation.removeDrain(id);
          this.drains.splice(this.drains.indexOf(id), 1);
          break;
        }
        case 'addMaterial':
          this.materials.push(simulation.addMaterial(withoutTags(a)));
          break;
        case 'addSphere':
          this.colliders.push(simulation.addCollider({ ...withoutTags(a), shape: 'sphere' }));
          break;
        case 'addCapsule':
          this.colliders.push(simulation.addCollider({ ...withoutTags(a), shape: 'capsule' }));
          break;
        case 'addPlane':
          this.colliders.push(simulation.addCollider({ ...withoutTags(a), shape: 'plane' }));
          break;
        case 'addBox':
          this.colliders.push(simulation.addCollider({ ...withoutTags(a), ...corners(a.box), shape: 'box' }));
          break;
        case 'addMesh':
          this.colliders.push(simulation.addCollider({ ...withoutTags(a), shape: 'mesh', field: sphereField }));
          break;
        case 'removeCollider': {
          const id = this.pickFrom(this.colliders, a.id, () => (badId = true));
          simulation.removeCollider(id);
          this.colliders.splice(this.colliders.indexOf(id), 1);
          break;
        }
        case 'setColliderTransform':
          simulation.setColliderTransform(
            this.pickFrom(this.colliders, a.id, () => (badId = true)),
            withoutTags(a),
          );
          break;
        case 'setEmitterTransform':
          simulation.setEmitterTransform(
            this.pickFrom(this.emitters, a.id, () => (badId = true)),
            withoutTags(a),
          );
          break;
        case 'markParticlesChanged':
          simulation.markParticlesChanged(a.ids.map((pick) => this.pickParticle(pick, () => (badId = true))));
          break;
      }
    });
    const corruption = a as Corruption;
    if (badId || (corruption.corrupted !== undefined && alwaysInvalid.includes(corruption.hostileValue))) {
      expect(error, `${description} was accepted`).toBeInstanceOf(FluidError);
    }
    if (error !== undefined) {
      tally.apiErrors++;
      // A refused call changes nothing: the whole state (the snapshot's bytes) is as before.
      expect(simulation.particleCount, `a refused ${a.kind} changed the count (${error.message})`).toBe(before);
      expect(
        sameBytes(simulation.snapshot(), stateBefore),
        `a refused ${a.kind} changed the state (${error.message})`,
      ).toBe(true);
    } else {
      this.expectedCount = before + spawned - removed;
      tally.spawned += spawned;
      tally.removedByCall += removed;
    }
    this.checkInvariants(false, description);
  }

  /** Writes an edit into a component the way game code would, remembering how to undo it. */
  applyEdit(a: EditAction): void {
    const simulation = this.simulation;
    const c = simulation.components;
    const field = a.name.split('.')[1];
    let store: { [index: number]: number } | undefined;
    let eid = 0;
    let value = a.value;
    let applies = () => true;
    const entityOf = () => eid;
    switch (a.component) {
      case 'particle': {
        const ids = simulation.particles();
        if (ids.length === 0) return;
        eid = ids[a.pick % ids.length];
        const name = a.name;
        store = name.startsWith('Position')
          ? c.Position[field as 'x']
          : name.startsWith('Velocity')
            ? c.Velocity[field as 'x']
            : c.Particle[field as 'age'];
        if (field === 'material' && !a.hostile) value = this.materials[a.pick % this.materials.length];
        applies = () => simulation.isParticle(entityOf());
        break;
      }
      case 'material':
        eid = this.materials[a.pick % this.materials.length];
        store = c.FluidMaterial[field as 'viscosity'];
        applies = () => simulation.isMaterial(entityOf());
        break;
      case 'collider':
        if (this.colliders.length === 0) return;
        eid = this.colliders[a.pick % this.colliders.length];
        store = c.Collider[field as 'friction'];
        if (field === 'shape' && !a.hostile) value = c.Collider.shape[eid];
        applies = () => simulation.isCollider(entityOf());
        break;
      case 'emitter':
        if (this.emitters.length === 0) return;
        eid = this.emitters[a.pick % this.emitters.length];
        store = c.Emitter[field as 'rate'];
        if (field === 'radius' && !a.hostile) value = Math.max(value, simulation.settings.particleRadius);
        applies = () => simulation.isEmitter(entityOf());
        break;
      case 'drain':
        if (this.drains.length === 0) return;
        eid = this.drains[a.pick % this.drains.length];
        store = c.Drain[field as 'radius'];
        applies = () => simulation.isDrain(entityOf());
        break;
      case 'settings': {
        const settings = simulation.settings;
        if (a.name === 'settings.gravity[1]') {
          const old = settings.gravity[1];
          settings.gravity[1] = value;
          this.pending.push({
            name: a.name,
            hostile: a.hostile,
            undo: () => (settings.gravity[1] = old),
            applies,
          });
        } else {
          const key = (a.name === 'timeStep' ? 'timeStep' : field) as
            | 'substeps'
            | 'iterations'
            | 'maxSpeed'
            | 'timeStep';
          const old = settings[key];
          settings[key] = value;
          this.pending.push({ name: a.name, hostile: a.hostile, undo: () => (settings[key] = old), applies });
        }
        if (a.hostile) tally.hostileEdits++;
        else tally.validEdits++;
        return;
      }
    }
    if (store === undefined) return;
    const target = store;
    const entity = eid;
    const old = target[entity];
    target[entity] = value;
    // The edit applies while its entity lives and holds the value written (a removed particle's id may be
    // reused by a new particle, whose components are then its own).
    const written = target[entity];
    const alive = applies;
    const holds = () => alive() && Object.is(target[entity], written);
    this.pending.push({
      name: a.name,
      hostile: a.hostile,
      undo: () => {
        if (holds()) target[entity] = old;
      },
      applies: holds,
    });
    if (a.hostile) tally.hostileEdits++;
    else tally.validEdits++;
  }
}

describe('fuzz: random options, calls and component edits', () => {
  // The scenes hold tens of particles: the workers start from the first particle here, so every scenario with
  // two or more threads (the default on a machine with two hardware threads) runs its pair loops on workers.
  const minParticles = threadTestHooks.minParticles;
  beforeAll(() => {
    threadTestHooks.minParticles = 1;
  });
  afterAll(() => {
    threadTestHooks.minParticles = minParticles;
  });

  it('throws only FluidErrors, catches every hostile edit, never produces NaN and loses no particle', {
    timeout: 300_000,
  }, () => {
    fc.assert(
      fc.property(scenario, (draw) => {
        tally.scenarios++;
        let simulation: FluidSimulation | undefined;
        const rejected = attempt('new FluidSimulation', () => {
          simulation = new FluidSimulation(toOptions(draw.options));
        });
        // Valid options are accepted; a value no option accepts is refused.
        try {
          if (draw.options.corrupted === undefined) expect(rejected, 'valid options were refused').toBeUndefined();
          if (alwaysInvalid.includes(draw.options.hostileValue)) {
            expect(
              rejected,
              `${draw.options.corrupted} ${String(draw.options.hostileValue)} was accepted`,
            ).toBeDefined();
          }
        } catch (error) {
          simulation?.dispose();
          throw error;
        }
        if (rejected !== undefined || simulation === undefined) {
          tally.constructorRejected++;
          return;
        }
        try {
          const run = new Run(simulation);
          const material =
            attempt('addMaterial', () =>
              run.materials.push(simulation!.addMaterial(draw.material as FluidMaterialOptions)),
            ) === undefined;
          if (draw.material.corrupted === undefined) expect(material, 'a valid material was refused').toBe(true);
          if (!material) run.materials.push(simulation.addMaterial({}));
          run.colliders.push(simulation.addCollider({ shape: 'box', min: [0, 0, 0], max: [1, 1, 1], container: true }));
          const r = simulation.settings.particleRadius;
          const spawned = attempt('spawnBlock', () => {
            run.expectedCount += simulation!.spawnBlock({
              min: [0, 0, 0],
              max: [
                Math.max(2 * r, draw.block.width),
                Math.max(2 * r, draw.block.height),
                Math.max(2 * r, draw.block.width),
              ],
              material: run.materials[0],
            }).length;
          });
          if (spawned === undefined) tally.spawned += run.expectedCount;
          run.checkInvariants(false, 'setup');
          for (const a of draw.actions) run.apply(a);
          // A last run of steps with the edits undone: the simulation is still healthy.
          run.recover('the end of the script');
          if (simulation.settings.threads > 1) tally.askedForWorkers++;
          if (simulation.stats.threads > 1) tally.withWorkers++;
        } finally {
          simulation.dispose();
        }
      }),
      { seed: SEED, numRuns: RUNS },
    );
    console.log(
      `fuzz (seed ${SEED}): ${tally.scenarios} scenarios (${tally.constructorRejected} option sets rejected), ` +
        `${tally.actions} actions, ${tally.stepsTaken} steps taken, ${tally.stepsRefused} refused, ` +
        `${tally.stepsDiscarded} discarded by the solve; ${tally.hostileEdits} hostile edits ` +
        `(${tally.hostileEditsCaught} refusals named the edit), ${tally.validEdits} valid edits; ${tally.apiErrors} ` +
        `calls refused with FluidError; particles spawned ${tally.spawned}, emitted ${tally.emitted}, removed by ` +
        `steps ${tally.removedByStep} and by calls ${tally.removedByCall}; largest count ${tally.largestCount}; ` +
        `${tally.withWorkers} scenarios ended on workers of ${tally.askedForWorkers} that asked for 2 or more threads`,
    );
    // The script generator reaches what it is for: many steps, and hostile edits caught by name.
    expect(tally.stepsTaken).toBeGreaterThan(12 * RUNS);
    expect(tally.hostileEditsCaught).toBeGreaterThan(RUNS / 8);
    expect(tally.constructorRejected).toBeGreaterThan(0);
    expect(tally.stepsDiscarded).toBe(0);
    // Workers ran most scenarios that asked for two or more threads (drawn from 1 to 3, or the default); those
    // that did not ended without particles or before a step. Draws alone ask for 2 or 3 in many scenarios, so
    // this holds on a one-core machine too. A Node without process.getBuiltinModule starts no worker.
    expect(tally.askedForWorkers).toBeGreaterThan(RUNS / 8);
    if (nodeStartsWorkers) expect(tally.withWorkers).toBeGreaterThan(tally.askedForWorkers / 2);
    else expect(tally.withWorkers).toBe(0);
  });
});

/** The snapshot scene: two materials, a tank, a sphere and a mesh collider, an emitter, a drain, 5 steps. */
function snapshotScene(): FluidSimulation {
  const simulation = new FluidSimulation({ particleRadius: 0.03, capacity: 600, maxEmitters: 3 });
  const water = simulation.addMaterial({});
  const oil = simulation.addMaterial({ restDensity: 800, color: [0.9, 0.7, 0.1] });
  simulation.addCollider({ shape: 'box', min: [0, 0, 0], max: [0.6, 0.6, 0.6], container: true });
  simulation.addCollider({ shape: 'sphere', center: [0.45, 0.1, 0.3], radius: 0.06 });
  const mesh = simulation.addCollider({ shape: 'mesh', field: sphereField });
  simulation.setColliderTransform(mesh, { position: [0.15, 0.4, 0.3], scaling: 0.4, teleport: true });
  simulation.spawnBlock({ min: [0, 0, 0], max: [0.3, 0.18, 0.3], material: water });
  simulation.addEmitter({ material: oil, position: [0.45, 0.5, 0.3], speed: 1, spread: 0.3, lifetime: 2 });
  simulation.addDrain({ shape: 'box', min: [0.5, 0, 0.5], max: [0.6, 0.1, 0.6] });
  for (let step = 0; step < 5; step++) simulation.step();
  return simulation;
}

/** A copy of `bytes` with the header's checksum recomputed: damage the checksum cannot see. */
function withValidChecksum(bytes: Uint8Array): Uint8Array {
  new DataView(bytes.buffer, bytes.byteOffset).setUint32(16, crc32(bytes, 20), true);
  return bytes;
}

/** True if `a` and `b` hold the same bytes. */
function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && a.every((byte, k) => byte === b[k]);
}

describe('fuzz: untrusted snapshots', () => {
  it('CRC-valid bit flips either throw a FluidError and change nothing, or restore a state that steps without error', () => {
    const source = snapshotScene();
    const saved = source.snapshot();
    const target = FluidSimulation.fromSnapshot(saved);
    const counts = { refused: 0, accepted: 0 };
    fc.assert(
      fc.property(
        fc.array(
          fc.record({ at: fc.integer({ min: 20, max: saved.length - 1 }), bit: fc.integer({ min: 0, max: 7 }) }),
          {
            minLength: 1,
            maxLength: 3,
          },
        ),
        (flips) => {
          const bytes = saved.slice();
          for (const { at, bit } of flips) bytes[at] ^= 1 << bit;
          withValidChecksum(bytes);
          const before = target.snapshot();
          const refused = attempt('restore', () => target.restore(bytes));
          if (refused !== undefined) {
            counts.refused++;
            expect(sameBytes(target.snapshot(), before), `${refused.message}: the target changed`).toBe(true);
            return;
          }
          counts.accepted++;
          // Accepted content is valid content: the next steps run and stay finite.
          const failed = attempt('step after restore', () => {
            target.step();
            target.step();
          });
          expect(failed?.message, `flips ${JSON.stringify(flips)} were accepted, then the step threw`).toBeUndefined();
          for (const eid of target.particles()) {
            expect(Number.isFinite(target.Position.x[eid] + target.Position.y[eid] + target.Position.z[eid])).toBe(
              true,
            );
          }
          target.restore(saved);
        },
      ),
      { seed: SEED, numRuns: Number(process.env.FUZZ_SNAPSHOT_RUNS ?? 800) },
    );
    console.log(
      `fuzz snapshots (seed ${SEED}): ${counts.refused} flipped snapshots refused, ${counts.accepted} accepted`,
    );
    expect(counts.refused).toBeGreaterThan(0);
    expect(counts.accepted).toBeGreaterThan(0);
  }, 120_000);

  it('a capacity bomb never allocates: fromSnapshot refuses a saved capacity above maxCapacity before it allocates', () => {
    const saved = snapshotScene().snapshot();
    fc.assert(
      fc.property(fc.integer({ min: 1, max: 2 ** 31 }), (capacity) => {
        const bytes = saved.slice();
        const key = new TextEncoder().encode('capacity');
        const view = new DataView(bytes.buffer);
        // Settings are a u16 key length, the key, a type byte 0 and a float64.
        let at = 20;
        while (!(view.getUint16(at, true) === key.length && key.every((byte, k) => bytes[at + 2 + k] === byte))) at++;
        view.setFloat64(at + 2 + key.length + 1, capacity, true);
        withValidChecksum(bytes);
        const refused = attempt('fromSnapshot', () => {
          const restored = FluidSimulation.fromSnapshot(bytes, { maxCapacity: 20000 });
          expect(restored.settings.capacity).toBeLessThanOrEqual(20000);
        });
        if (capacity > 20000) expect(refused?.message).toMatch(/more than maxCapacity 20000|capacity/);
        else if (capacity >= 600) expect(refused).toBeUndefined();
      }),
      { seed: SEED, numRuns: 60 },
    );
  }, 60_000);
});
