/**
 * Save and load (src/systems/snapshot/): a CPU simulation restored from a snapshot, into a new simulation,
 * into another existing one and into itself, continues bit-identically to the one that was saved (every
 * component value compared with Object.is, the entity ids, the last step's ids, the statistics, and the
 * snapshot bytes after the same steps); snapshot -> restore -> snapshot gives the same bytes; wrong and
 * corrupt snapshots each give their FluidError and change nothing; the plugin's async wrappers continue a
 * scene identically and drop the followers of colliders the snapshot does not have. The WebGPU backend:
 * a GPU snapshot restored on the CPU and a CPU snapshot restored on the GPU (headless Chromium, the
 * `snapshot` scenario of tests/browser/snapshot.ts).
 */
import { FreeCamera } from '@babylonjs/core/Cameras/freeCamera.js';
import { NullEngine } from '@babylonjs/core/Engines/nullEngine.js';
import { Vector3 } from '@babylonjs/core/Maths/math.vector.js';
import { CreateBox } from '@babylonjs/core/Meshes/Builders/boxBuilder.js';
import { TransformNode } from '@babylonjs/core/Meshes/transformNode.js';
import { Scene } from '@babylonjs/core/scene.js';
import { hasComponent } from 'bitecs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  bakeSignedDistanceField,
  createSphereMesh,
  FluidError,
  FluidPlugin,
  FluidSimulation,
  type FluidSimulationOptions,
  type SignedDistanceField,
  SNAPSHOT_CAPACITY_FLOOR,
} from '../src';
import { SIMULATION_OPTIONS } from '../src/core/schema';
import { crc32 } from '../src/systems/snapshot/format';
import { type GpuPage, openGpuPage } from './browser/driver';
import type { SnapshotScenarioResult } from './browser/snapshot';

const OPTIONS: FluidSimulationOptions = {
  particleRadius: 0.025,
  capacity: 1500,
  maxMaterials: 4,
  maxColliders: 6,
  maxEmitters: 4,
};

let rockField: SignedDistanceField | undefined;

function rock(): SignedDistanceField {
  rockField ??= bakeSignedDistanceField(createSphereMesh(0.07, 12), { resolution: 12 });
  return rockField;
}

/** Entity ids of the scene's colliders (the same in every restored copy: restoring keeps ids). */
interface SceneIds {
  paddle: number;
  rock: number;
}

/**
 * Two materials in a box tank with a moving capsule paddle and a turning mesh rock, two emitters (one with
 * a random spread and a lifetime), a drain, and a block with two particles removed (gaps in the ids). First a
 * pool of 1300 particles spawned and removed in a scrambled order, as a game that ran a while: the entity ids
 * run out at frame 13 (1515 of them: capacity + maxMaterials + maxColliders + maxEmitters + 1), after which
 * the emitters reuse freed ids, the one freed longest ago first, before and after the snapshot.
 */
function buildScene(): { simulation: FluidSimulation; ids: SceneIds } {
  const simulation = new FluidSimulation(OPTIONS);
  const water = simulation.addMaterial({});
  const pool = simulation.spawnBlock({ min: [0, 0, 0], max: [0.5, 0.5, 0.65], material: water });
  for (let k = 0; k < pool.length; k++) simulation.removeParticle(pool[(k * 7) % pool.length]);
  const oil = simulation.addMaterial({ restDensity: 800, viscosity: 0.05, color: [0.9, 0.7, 0.1] });
  simulation.addCollider({ shape: 'box', min: [0, 0, 0], max: [0.6, 0.6, 0.4], container: true, friction: 0.1 });
  const paddle = simulation.addCollider({ shape: 'capsule', a: [0, 0, 0], b: [0, 0, 0.4], radius: 0.03 });
  const rockCollider = simulation.addCollider({ shape: 'mesh', field: rock(), restitution: 0.2 });
  simulation.setColliderTransform(rockCollider, { position: [0.3, 0.1, 0.2], teleport: true });
  const block = simulation.spawnBlock({ min: [0, 0, 0], max: [0.2, 0.2, 0.4], material: water });
  simulation.removeParticle(block[3]);
  simulation.removeParticle(block[40]);
  simulation.addEmitter({ material: oil, position: [0.45, 0.5, 0.2], spread: 0.4, speed: 1.5, lifetime: 0.5 });
  simulation.addEmitter({ material: water, position: [0.15, 0.5, 0.2], direction: [0.3, -1, 0], radius: 0.05 });
  simulation.addDrain({ shape: 'sphere', center: [0.55, 0.05, 0.35], radius: 0.1 });
  return { simulation, ids: { paddle, rock: rockCollider } };
}

/** One frame of the scene: the paddle sweeps along x, the rock turns, then a step. */
function drive(simulation: FluidSimulation, ids: SceneIds, frame: number): void {
  simulation.setColliderTransform(ids.paddle, { position: [0.3 + 0.2 * Math.sin(frame / 6), 0.12, 0] });
  const angle = frame / 10;
  simulation.setColliderTransform(ids.rock, { rotation: [0, Math.sin(angle), 0, Math.cos(angle)] });
  simulation.step();
}

/** Every value of the state, labelled: particles, every store of every other entity, the last step's ids, stats. */
function stateOf(simulation: FluidSimulation): { labels: string[]; values: number[] } {
  const labels: string[] = [];
  const values: number[] = [];
  const push = (label: string, value: number): void => {
    labels.push(label);
    values.push(value);
  };
  const context = simulation.internalContext;
  const stores = Object.entries(simulation.components as unknown as Record<string, unknown>).sort(([a], [b]) =>
    a < b ? -1 : 1,
  );
  const fieldsOf = (store: unknown): [string, ArrayLike<number>][] =>
    ArrayBuffer.isView(store)
      ? [['', store as unknown as ArrayLike<number>]]
      : Object.entries(store as Record<string, ArrayLike<number>>).sort(([a], [b]) => (a < b ? -1 : 1));
  // The solver's order (it fixes the summation order of the next step), then every particle by id.
  for (const eid of simulation.particles()) push('solver order', eid);
  for (const eid of Array.from(simulation.particles()).sort((a, b) => a - b)) {
    push('particle id', eid);
    for (const name of ['Density', 'Particle', 'Position', 'Velocity']) {
      const store = stores.find(([storeName]) => storeName === name)?.[1];
      for (const [key, array] of fieldsOf(store)) push(`${name}.${key}[${eid}]`, array[eid]);
    }
  }
  const others = [
    ...context.materials.entity.subarray(0, context.materials.count),
    ...context.colliders.entity.subarray(0, context.colliders.count),
    ...context.events.emitters,
    ...context.events.drains,
  ];
  for (const eid of others) {
    push('entity id', eid);
    for (const [name, store] of stores) {
      if (['Density', 'Particle', 'Position', 'Velocity'].includes(name)) continue;
      for (const [key, array] of fieldsOf(store)) push(`${name}.${key}[${eid}]`, array[eid]);
    }
  }
  for (const eid of simulation.lastEmitted()) push('emitted', eid);
  for (const eid of simulation.lastRemoved()) push('removed', eid);
  const stats = simulation.stats;
  push('stepCount', stats.stepCount);
  push('particleCount', stats.particleCount);
  push('meanDensityError', stats.meanDensityError);
  push('maxDensityError', stats.maxDensityError);
  push('meanNeighbourCount', stats.meanNeighbourCount);
  push('random state', context.events.randomState);
  return { labels, values };
}

/** The first value that differs bit for bit (Object.is), or '' when every value is identical. */
function firstDifference(
  a: ReturnType<typeof stateOf>,
  b: ReturnType<typeof stateOf>,
  skip: (label: string) => boolean = () => false,
): string {
  const length = Math.max(a.values.length, b.values.length);
  for (let k = 0; k < length; k++) {
    if (skip(a.labels[k] ?? '')) continue;
    if (a.labels[k] !== b.labels[k] || !Object.is(a.values[k], b.values[k])) {
      return `#${k}: ${a.labels[k]} = ${a.values[k]} against ${b.labels[k]} = ${b.values[k]}`;
    }
  }
  return '';
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let k = 0; k < a.length; k++) if (a[k] !== b[k]) return false;
  return true;
}

/** Payload sections of a snapshot: tag -> [content start, content end). */
function sectionsOf(snapshot: Uint8Array): Map<string, [number, number]> {
  const view = new DataView(snapshot.buffer, snapshot.byteOffset, snapshot.byteLength);
  const sections = new Map<string, [number, number]>();
  let at = 20;
  while (at < snapshot.length) {
    const tag = String.fromCharCode(...snapshot.subarray(at, at + 4));
    const length = view.getUint32(at + 4, true);
    sections.set(tag, [at + 8, at + 8 + length]);
    at += 8 + length;
  }
  return sections;
}

/** A copy with the numeric setting `key` set to `value` and the checksum recomputed (settings are key, type 0, f64). */
function withSetting(snapshot: Uint8Array, key: string, value: number): Uint8Array {
  const name = new TextEncoder().encode(key);
  const copy = snapshot.slice();
  const view = new DataView(copy.buffer);
  const [start, end] = sectionsOf(snapshot).get('SETT') ?? [0, 0];
  for (let at = start + 2; at + name.length + 9 <= end; at++) {
    if (view.getUint16(at - 2, true) !== name.length || copy[at + name.length] !== 0) continue;
    if (!name.every((byte, k) => copy[at + k] === byte)) continue;
    view.setFloat64(at + name.length + 1, value, true);
    return withChecksum(copy);
  }
  throw new Error(`the snapshot has no numeric setting ${key}`);
}

/** A copy with the header's checksum recomputed (a damaged payload that the checksum cannot catch). */
function withChecksum(snapshot: Uint8Array): Uint8Array {
  const copy = snapshot.slice();
  new DataView(copy.buffer).setUint32(16, crc32(copy, 20), true);
  return copy;
}

function expectFluidError(action: () => void, message: RegExp): void {
  let caught: unknown;
  try {
    action();
  } catch (error) {
    caught = error;
  }
  expect(caught).toBeInstanceOf(FluidError);
  expect((caught as Error).message).toMatch(message);
}

const SAVED_AT = 30;
const CONTINUED = 25;

describe('snapshot and restore on the CPU', () => {
  // The reference: SAVED_AT frames, a snapshot, CONTINUED more frames.
  let ids: SceneIds;
  let saved: Uint8Array;
  let reference: FluidSimulation;
  let finalState: ReturnType<typeof stateOf>;
  let finalSnapshot: Uint8Array;
  let emittedTotal = 0;
  let removedTotal = 0;
  /** The id a material added after the continued frames gets in a run that was never saved. */
  let nextId = 0;
  /** Stores written with a distinctive value at the rock collider's id without being its components. */
  const marked: string[] = [];
  /** Particle ids game code removed just before the snapshot. */
  const freedBeforeSnapshot: number[] = [];
  /** Entity ids free at the snapshot (every id below the entity capacity was handed out by then). */
  const freeAtSnapshot: number[] = [];

  /** The reference run up to the snapshot: SAVED_AT frames, then game code removes 12 particles. */
  function runToSnapshot(simulation: FluidSimulation, sceneIds: SceneIds): void {
    for (let frame = 0; frame < SAVED_AT; frame++) {
      drive(simulation, sceneIds, frame);
      if (simulation !== reference) continue;
      emittedTotal += simulation.stats.emittedCount;
      removedTotal += simulation.stats.removedCount;
    }
    // Freed ids queue for reuse behind every id freed before them (the pool's first).
    const particles = simulation.particles();
    for (let k = 0; k < 12; k++) {
      const eid = particles[7 * k + 3];
      simulation.removeParticle(eid);
      if (simulation === reference) freedBeforeSnapshot.push(eid);
    }
    if (simulation === reference) {
      const alive = (eid: number): boolean =>
        simulation.isParticle(eid) ||
        simulation.isMaterial(eid) ||
        simulation.isCollider(eid) ||
        simulation.isEmitter(eid) ||
        simulation.isDrain(eid);
      // The entity capacity: capacity + maxMaterials + maxColliders + maxEmitters + 1.
      for (let eid = 1; eid < 1500 + 4 + 6 + 4 + 1; eid++) if (!alive(eid)) freeAtSnapshot.push(eid);
    }
    // Values a store holds for a collider without the collider carrying it as a bitecs component (as a
    // coupling store written by id does) are saved too: mark every such float64 field at the rock.
    const world = simulation.world;
    const labels: string[] = [];
    for (const [name, store] of Object.entries(simulation.components as unknown as Record<string, object>)) {
      if (hasComponent(world, sceneIds.rock, store)) continue;
      const fields = ArrayBuffer.isView(store) ? { '': store } : (store as Record<string, unknown>);
      for (const [key, array] of Object.entries(fields)) {
        if (!(array instanceof Float64Array)) continue;
        array[sceneIds.rock] = 0.5 + labels.length;
        labels.push(`${name}.${key}`);
      }
    }
    if (simulation === reference) marked.push(...labels);
  }

  beforeAll(() => {
    const scene = buildScene();
    reference = scene.simulation;
    ids = scene.ids;
    runToSnapshot(reference, ids);
    saved = reference.snapshot();
    for (let frame = SAVED_AT; frame < SAVED_AT + CONTINUED; frame++) {
      drive(reference, ids, frame);
      emittedTotal += reference.stats.emittedCount;
      removedTotal += reference.stats.removedCount;
    }
    finalState = stateOf(reference);
    finalSnapshot = reference.snapshot();
    // A twin run, never saved, for the next id.
    const twin = buildScene();
    runToSnapshot(twin.simulation, twin.ids);
    for (let frame = SAVED_AT; frame < SAVED_AT + CONTINUED; frame++) drive(twin.simulation, twin.ids, frame);
    nextId = twin.simulation.addMaterial({});
  });

  it('the scene exercises emitters, lifetimes, the drain, both materials and the moving colliders', () => {
    console.log(
      `snapshot scene: ${reference.particleCount} particles after ${SAVED_AT + CONTINUED} frames, ${emittedTotal} emitted, ${removedTotal} removed; snapshot ${saved.length} bytes`,
    );
    expect(emittedTotal).toBeGreaterThan(150);
    expect(removedTotal).toBeGreaterThan(20);
    // The emitters reused ids free at the snapshot afterwards (the pool's, freed longest ago); the ids game
    // code removed just before the snapshot wait behind them, unused.
    expect(freeAtSnapshot.filter((eid) => reference.isParticle(eid)).length).toBeGreaterThan(50);
    expect(freedBeforeSnapshot.filter((eid) => reference.isParticle(eid))).toEqual([]);
    expect(marked.length).toBeGreaterThan(10);
    const materials = new Set(Array.from(reference.particles(), (eid) => reference.components.Particle.material[eid]));
    expect(materials.size).toBe(2);
    // The paddle sits where the last frame put it, the rock turned: previous poses differ from the first.
    const c = reference.components.Collider;
    expect(c.previousRotationY[ids.rock]).not.toBe(0);
    expect(c.previousPositionX[ids.paddle]).not.toBe(0);
  });

  it('restored into a new simulation, it continues bit-identically (every component, ids, stats, bytes)', () => {
    const restored = FluidSimulation.fromSnapshot(saved);
    expect(restored.particleCount).toBeGreaterThan(100);
    for (let frame = SAVED_AT; frame < SAVED_AT + CONTINUED; frame++) drive(restored, ids, frame);
    expect(firstDifference(stateOf(restored), finalState)).toBe('');
    expect(sameBytes(restored.snapshot(), finalSnapshot)).toBe(true);
    // The next id handed out (a reused one) is the same too.
    expect(restored.addMaterial({})).toBe(nextId);
  });

  it('restored into another running simulation and into itself, it continues bit-identically', () => {
    // Another scene, stepped, with other ids, fields and particle orders: everything is replaced.
    const other = new FluidSimulation(OPTIONS);
    const lava = other.addMaterial({ restDensity: 2000 });
    other.addCollider({ shape: 'sphere', center: [0, 0, 0], radius: 0.2 });
    other.addCollider({ shape: 'mesh', field: bakeSignedDistanceField(createSphereMesh(0.1, 8), { resolution: 8 }) });
    other.spawnBlock({ min: [-0.5, 0.3, -0.2], max: [0.1, 0.6, 0.2], material: lava });
    other.addEmitter({ material: lava, position: [0, 1, 0], spread: 0.2 });
    for (let frame = 0; frame < 5; frame++) other.step();
    other.restore(saved);
    expect(sameBytes(other.snapshot(), saved)).toBe(true);
    for (let frame = SAVED_AT; frame < SAVED_AT + CONTINUED; frame++) drive(other, ids, frame);
    expect(firstDifference(stateOf(other), finalState)).toBe('');

    // The reference itself, CONTINUED frames past the snapshot, goes back and does them again.
    reference.restore(saved);
    for (let frame = SAVED_AT; frame < SAVED_AT + CONTINUED; frame++) drive(reference, ids, frame);
    expect(firstDifference(stateOf(reference), finalState)).toBe('');
    expect(sameBytes(reference.snapshot(), finalSnapshot)).toBe(true);
  });

  it('the comparison sees a change of one position by 1e-12 m', () => {
    const nudged = FluidSimulation.fromSnapshot(saved);
    // A particle of the block (no lifetime), deep in the water.
    const eid = Array.from(nudged.particles()).find(
      (id) => nudged.components.Particle.lifetime[id] === 0 && nudged.Density[id] > 900,
    );
    expect(eid).toBeDefined();
    nudged.Position.y[eid as number] += 1e-12;
    for (let frame = SAVED_AT; frame < SAVED_AT + CONTINUED; frame++) drive(nudged, ids, frame);
    expect(firstDifference(stateOf(nudged), finalState)).not.toBe('');
  });

  it("the particles' order in the solver's arrays changes the values: the snapshot keeps it", () => {
    const reordered = FluidSimulation.fromSnapshot(saved);
    const solver = reordered.internalContext.solver;
    const byId = Array.from(solver.entity.subarray(0, solver.count)).sort((a, b) => a - b);
    byId.forEach((eid, place) => {
      solver.entity[place] = eid;
      solver.placeOfEntity[eid] = place;
    });
    for (let frame = SAVED_AT; frame < SAVED_AT + CONTINUED; frame++) drive(reordered, ids, frame);
    // Component values differ, not only the order.
    expect(firstDifference(stateOf(reordered), finalState, (label) => label === 'solver order')).not.toBe('');
  });

  it('snapshot -> restore -> snapshot gives the same bytes; the meshes fields come back equal', () => {
    const restored = FluidSimulation.fromSnapshot(saved);
    expect(sameBytes(restored.snapshot(), saved)).toBe(true);
    // The values stores hold for the rock without being its components.
    const stores = restored.components as unknown as Record<string, Record<string, Float64Array> | Float64Array>;
    marked.forEach((label, k) => {
      const [name, key] = label.split('.');
      const store = stores[name];
      const array = ArrayBuffer.isView(store) ? store : store[key];
      expect(array[ids.rock], label).toBe(0.5 + k);
    });
    const field = restored.fields[restored.components.Collider.field[ids.rock]];
    expect(field).toBeDefined();
    expect(field?.nodeCounts).toEqual(rock().nodeCounts);
    expect(Array.from(field?.values ?? [])).toEqual(Array.from(rock().values));
    // Restored into a simulation that has the same field already, the field object is shared.
    const holder = new FluidSimulation(OPTIONS);
    holder.addCollider({ shape: 'mesh', field: rock() });
    holder.restore(saved);
    expect(holder.fields[holder.components.Collider.field[ids.rock]]).toBe(rock());
  });

  it('reports the snapshot size per particle', () => {
    const sizeWith = (blocks: number): { bytes: number; particles: number } => {
      const simulation = new FluidSimulation(OPTIONS);
      const water = simulation.addMaterial({});
      for (let k = 0; k < blocks; k++) {
        simulation.spawnBlock({ min: [0.3 * k, 0, 0], max: [0.3 * k + 0.25, 0.25, 0.25], material: water });
      }
      simulation.step();
      return { bytes: simulation.snapshot().length, particles: simulation.particleCount };
    };
    const one = sizeWith(1);
    const four = sizeWith(4);
    const perParticle = (four.bytes - one.bytes) / (four.particles - one.particles);
    const rockBytes = rock().values.length * 4;
    console.log(
      `snapshot size: ${perParticle.toFixed(2)} bytes per particle (${four.bytes} bytes for ${four.particles} particles, ${one.bytes} for ${one.particles}); a mesh field ${rockBytes} bytes (${rock().values.length / 4} nodes x 16 bytes); the test scene ${saved.length} bytes`,
    );
    // Id 4 + solver order 4 + Position 24 + Velocity 24 + Particle 20 + Density 8 + Temperature 8
    // + Color 24 + membership bits (116-118), + the projection's density error 8 (124-126), + its warm
    // start, 12 bytes per solved cell of its grid (at most 1.5 per particle; cells near the surface are not solved).
    expect(perParticle).toBeGreaterThan(124);
    expect(perParticle).toBeLessThan(127.5);
  });

  it('the checksum is the standard CRC-32', () => {
    expect(crc32(new TextEncoder().encode('123456789'))).toBe(0xcbf43926);
  });

  it('wrong and corrupt snapshots give their FluidError and change nothing', () => {
    const target = FluidSimulation.fromSnapshot(saved);
    const before = target.snapshot();
    const flipped = saved.slice();
    flipped[Math.floor(saved.length / 2)] ^= 0x10;
    expectFluidError(() => target.restore(flipped), /^corrupt: checksum mismatch/);
    expectFluidError(() => target.restore(saved.slice(0, saved.length - 7)), /^corrupt: truncated/);
    expectFluidError(() => target.restore(saved.slice(0, 12)), /^corrupt: truncated to 12 bytes/);
    const magic = saved.slice();
    magic[0] = 0x50;
    expectFluidError(() => target.restore(magic), /^not a fluid snapshot/);
    expectFluidError(() => target.restore(new Uint8Array(0)), /^not a fluid snapshot/);
    expectFluidError(() => target.restore(new TextEncoder().encode('{"particles": []}')), /^not a fluid snapshot/);
    const future = saved.slice();
    new DataView(future.buffer).setUint32(8, 7, true);
    expectFluidError(() => target.restore(future), /^format version 7 is newer than supported 1/);
    expectFluidError(
      () => target.restore([1, 2, 3] as unknown as Uint8Array),
      /^snapshot is object; it must be the Uint8Array/,
    );
    // Damage the checksum cannot see (recomputed): the structure checks name the section.
    const sections = sectionsOf(saved);
    const entities = saved.slice();
    const [entitiesStart] = sections.get('ENTS') ?? [0];
    new DataView(entities.buffer).setUint32(entitiesStart, 99999, true);
    expectFluidError(() => target.restore(withChecksum(entities)), /^corrupt: section 'ENTS'/);
    const order = saved.slice();
    const [orderStart] = sections.get('ORDR') ?? [0];
    new DataView(order.buffer).setUint32(orderStart, 1e6, true);
    expectFluidError(() => target.restore(withChecksum(order)), /^corrupt: section 'ORDR' ends before its contents/);
    // Limits of the target.
    const small = new FluidSimulation({ ...OPTIONS, capacity: 100 });
    const particles = FluidSimulation.fromSnapshot(saved).particleCount;
    expectFluidError(
      () => small.restore(saved),
      new RegExp(`^capacity 100 is smaller than the snapshot's ${particles} particles`),
    );
    expectFluidError(() => new FluidSimulation({ ...OPTIONS, maxColliders: 2 }).restore(saved), /^maxColliders 2 is/);
    expectFluidError(
      () => new FluidSimulation({ ...OPTIONS, particleRadius: 0.02 }).restore(saved),
      /^particleRadius is 0.02 here but 0.025 in the snapshot/,
    );
    // Nothing changed in the target, which still continues like the reference.
    expect(sameBytes(target.snapshot(), before)).toBe(true);
    for (let frame = SAVED_AT; frame < SAVED_AT + CONTINUED; frame++) drive(target, ids, frame);
    expect(firstDifference(stateOf(target), finalState)).toBe('');
  });

  it('a valid checksum is no valid content: out-of-range values are refused naming the section, store, field and entity, before anything changes', () => {
    const target = FluidSimulation.fromSnapshot(saved);
    const before = target.snapshot();
    /** A snapshot of the saved scene after `corrupt` edited it (written by the library: its checksum is valid). */
    const crafted = (corrupt: (source: FluidSimulation) => void): Uint8Array => {
      const source = FluidSimulation.fromSnapshot(saved);
      corrupt(source);
      return source.snapshot();
    };
    const particle = (source: FluidSimulation): number => source.particles()[7];
    const [water, oil] = target.materials();
    const emitter = target.emitters()[0];
    const drain = target.drains()[0];
    const cases: [string, Uint8Array, RegExp][] = [
      [
        'NaN position',
        crafted((s) => {
          s.Position.x[particle(s)] = Number.NaN;
        }),
        /^snapshot section 'COMP': Position\.x\[\d+\] is NaN/,
      ],
      [
        'huge position',
        crafted((s) => {
          s.Position.y[particle(s)] = 1e308;
        }),
        /^snapshot section 'COMP': Position\.y\[\d+\] is 1e\+308; it must be a finite number in \[-1000000000000, 1000000000000\] m/,
      ],
      [
        'infinite velocity',
        crafted((s) => {
          s.Velocity.z[particle(s)] = Number.POSITIVE_INFINITY;
        }),
        /^snapshot section 'COMP': Velocity\.z\[\d+\] is Infinity/,
      ],
      [
        'material 9999',
        crafted((s) => {
          s.components.Particle.material[particle(s)] = 9999;
        }),
        /^snapshot section 'COMP': Particle\.material\[\d+\] is 9999, which is not a material entity/,
      ],
      [
        'negative lifetime',
        crafted((s) => {
          s.components.Particle.lifetime[particle(s)] = -1;
        }),
        /^snapshot section 'COMP': Particle\.lifetime\[\d+\] is -1/,
      ],
      [
        'NaN temperature',
        crafted((s) => {
          s.components.Temperature[particle(s)] = Number.NaN;
        }),
        /^snapshot section 'COMP': Temperature\[\d+\] is NaN/,
      ],
      [
        'color above 1',
        crafted((s) => {
          s.components.Color.red[particle(s)] = 2;
        }),
        /^snapshot section 'COMP': Color\.red\[\d+\] is 2; allowed range is \[0, 1\]/,
      ],
      [
        'zero collider radius',
        crafted((s) => {
          s.components.Collider.radius[ids.paddle] = 0;
        }),
        new RegExp(`^snapshot section 'COMP': Collider\\.radius\\[${ids.paddle}\\] is 0`),
      ],
      [
        'field index 99999',
        crafted((s) => {
          s.components.Collider.field[ids.rock] = 99999;
        }),
        new RegExp(`^snapshot section 'COMP': Collider\\.field\\[${ids.rock}\\] is 99999`),
      ],
      [
        'zero quaternion',
        crafted((s) => {
          const c = s.components.Collider;
          c.rotationX[ids.rock] = 0;
          c.rotationY[ids.rock] = 0;
          c.rotationZ[ids.rock] = 0;
          c.rotationW[ids.rock] = 0;
        }),
        new RegExp(`^snapshot section 'COMP': Collider\\.rotation of ${ids.rock} is \\[0, 0, 0, 0\\] with length 0`),
      ],
      [
        'NaN previous position',
        crafted((s) => {
          s.components.Collider.previousPositionX[ids.paddle] = Number.NaN;
        }),
        new RegExp(`^snapshot section 'COMP': Collider\\.previousPositionX\\[${ids.paddle}\\] is NaN`),
      ],
      [
        'negative viscosity',
        crafted((s) => {
          s.components.FluidMaterial.viscosity[oil] = -1;
        }),
        new RegExp(`^snapshot section 'COMP': FluidMaterial\\.viscosity\\[${oil}\\] is -1`),
      ],
      [
        'air material 9999',
        crafted((s) => {
          s.components.FluidMaterial.airMaterial[water] = 9999;
        }),
        new RegExp(`^snapshot section 'COMP': FluidMaterial\\.airMaterial\\[${water}\\] is 9999`),
      ],
      [
        'emitter rate 1e300',
        crafted((s) => {
          s.components.Emitter.rate[emitter] = 1e300;
        }),
        new RegExp(`^snapshot section 'COMP': Emitter\\.rate\\[${emitter}\\] is 1e\\+300`),
      ],
      [
        'emitter owed NaN',
        crafted((s) => {
          s.components.Emitter.owed[emitter] = Number.NaN;
        }),
        new RegExp(`^snapshot section 'COMP': Emitter\\.owed\\[${emitter}\\] is NaN`),
      ],
      [
        'emitter owed 1e300',
        crafted((s) => {
          s.components.Emitter.owed[emitter] = 1e300;
        }),
        new RegExp(`^snapshot section 'COMP': Emitter\\.owed\\[${emitter}\\] is 1e\\+300; allowed range is \\[0, `),
      ],
      [
        'drain shape 99',
        crafted((s) => {
          s.components.Drain.shape[drain] = 99;
        }),
        new RegExp(`^snapshot section 'COMP': Drain\\.shape\\[${drain}\\] is 99`),
      ],
      [
        'statistic NaN',
        crafted((s) => {
          Object.assign(s.stats, { meanDensityError: Number.NaN });
        }),
        /^snapshot section 'STAT': meanDensityError is NaN/,
      ],
      [
        'substeps 1e9',
        withSetting(saved, 'substeps', 1e9),
        /^the snapshot's settings\.substeps is 1000000000; allowed range is \[1, 32\]/,
      ],
    ];
    // An emitter's id swapped with the drain's in section 'ORDR' (lists: particles, materials, colliders,
    // emitters, drains; each a u32 count and the ids).
    const swapped = saved.slice();
    const view = new DataView(swapped.buffer);
    let at = (sectionsOf(saved).get('ORDR') ?? [0])[0];
    const listStart: number[] = [];
    for (let list = 0; list < 5; list++) {
      listStart.push(at);
      at += 4 + 4 * view.getUint32(at, true);
    }
    const emitterAt = listStart[3] + 4;
    const drainAt = listStart[4] + 4;
    const [emitterId, drainId] = [view.getUint32(emitterAt, true), view.getUint32(drainAt, true)];
    view.setUint32(emitterAt, drainId, true);
    view.setUint32(drainAt, emitterId, true);
    cases.push([
      'emitter id swapped with the drain id',
      withChecksum(swapped),
      new RegExp(
        `^snapshot section 'COMP': entity ${drainId} is listed with the emitters \\(section 'ORDR'\\) but has no Emitter component`,
      ),
    ]);
    for (const [what, bytes, message] of cases) {
      expect(() => target.restore(bytes), what).toThrowError(message);
      expect(() => FluidSimulation.fromSnapshot(bytes), what).toThrowError(message);
      expect(sameBytes(target.snapshot(), before), `${what}: the target changed`).toBe(true);
    }
    // The target was never touched: it continues like the reference.
    for (let frame = SAVED_AT; frame < SAVED_AT + CONTINUED; frame++) drive(target, ids, frame);
    expect(sameBytes(target.snapshot(), finalSnapshot)).toBe(true);
  });

  it('a save file does not decide a large allocation: fromSnapshot bounds the capacity it asks for', () => {
    const particles = FluidSimulation.fromSnapshot(saved).particleCount;
    // The saved capacity rewritten to 4,194,304 behind a recomputed checksum (a 4 GiB allocation once).
    const bomb = withSetting(saved, 'capacity', SIMULATION_OPTIONS.capacity.max);
    expectFluidError(
      () => FluidSimulation.fromSnapshot(bomb),
      new RegExp(
        `^the snapshot asks for capacity 4194304 for its ${particles} particles, more than maxCapacity ${SNAPSHOT_CAPACITY_FLOOR}`,
      ),
    );
    // The caller decides: its own capacity (at least the saved particles), or a larger limit for a trusted file.
    expect(FluidSimulation.fromSnapshot(bomb, { capacity: 2000 }).settings.capacity).toBe(2000);
    expectFluidError(
      () => FluidSimulation.fromSnapshot(bomb, { capacity: particles - 1 }),
      new RegExp(`^capacity ${particles - 1} is smaller than the snapshot's ${particles} particles`),
    );
    const trusted = withSetting(saved, 'capacity', 2 * SNAPSHOT_CAPACITY_FLOOR);
    expectFluidError(() => FluidSimulation.fromSnapshot(trusted), /more than maxCapacity 131072/);
    expect(FluidSimulation.fromSnapshot(trusted, { maxCapacity: 2 * SNAPSHOT_CAPACITY_FLOOR }).settings.capacity).toBe(
      2 * SNAPSHOT_CAPACITY_FLOOR,
    );
    expectFluidError(() => FluidSimulation.fromSnapshot(saved, { maxCapacity: 0 }), /^maxCapacity is 0; allowed range/);
    expectFluidError(
      () => FluidSimulation.fromSnapshot(saved, 'x' as unknown as object),
      /^fromSnapshot options are x; they must be an object/,
    );
    // An ordinary save keeps its own capacity, so it continues bit-identically (the test above).
    expect(FluidSimulation.fromSnapshot(saved).settings.capacity).toBe(OPTIONS.capacity);
  });
});

describe('FluidPlugin snapshot and restore (NullEngine, CPU backend)', () => {
  it('continues a scene with a followed mesh and emitter node identically and drops unknown followers', async () => {
    const engine = new NullEngine();
    try {
      const scene = new Scene(engine);
      new FreeCamera('camera', new Vector3(0, 1, -3), scene);
      const fluid = await FluidPlugin.create(scene, { particleRadius: 0.04, capacity: 2000, useDeltaTime: false });
      const errors: string[] = [];
      fluid.onErrorObservable.add((error) => errors.push(error.message));
      const water = fluid.simulation.addMaterial({});
      fluid.simulation.addCollider({ shape: 'box', min: [-0.6, 0, -0.4], max: [0.6, 1, 0.4], container: true });
      const crate = CreateBox('crate', { size: 0.2 }, scene);
      crate.position.set(0.1, 0.15, 0);
      crate.rotation.set(0, 0.3, 0);
      const crateCollider = await fluid.addMeshCollider(crate, { resolution: 10 });
      const tap = new TransformNode('tap', scene);
      tap.position.set(-0.3, 0.8, 0);
      const emitter = fluid.addEmitter({ material: water, node: tap, speed: 1 });
      fluid.spawn({ shape: 'box', min: [-0.6, 0, -0.4], max: [-0.2, 0.3, 0.4], material: water });
      const render = (frames: number): void => {
        for (let frame = 0; frame < frames; frame++) scene.render();
      };
      render(10);
      const saved = await fluid.snapshot();
      render(10);
      const state = stateOf(fluid.simulation);
      // A collider added after the snapshot: restore drops its follower (its id is not a collider there).
      const late = CreateBox('late', { size: 0.1 }, scene);
      late.position.set(0.4, 0.5, 0);
      const lateCollider = await fluid.addMeshCollider(late, { resolution: 8 });
      render(3);
      await fluid.restore(saved);
      expect(fluid.simulation.isCollider(lateCollider)).toBe(false);
      expect(fluid.simulation.isCollider(crateCollider)).toBe(true);
      expect(fluid.simulation.isEmitter(emitter)).toBe(true);
      // The same ten frames again: the mesh and the node drive the same poses, so the same state.
      render(10);
      expect(firstDifference(stateOf(fluid.simulation), state)).toBe('');
      // A bad snapshot rejects, changes nothing, and stepping goes on.
      const stepCount = fluid.simulation.stats.stepCount;
      await expect(fluid.restore(new Uint8Array(3))).rejects.toThrow(/^not a fluid snapshot/);
      expect(fluid.simulation.isCollider(crateCollider)).toBe(true);
      // The crate is still followed.
      crate.position.set(0.2, 0.2, 0.05);
      render(2);
      const c = fluid.simulation.components.Collider;
      // Babylon's world matrices are float32.
      expect(c.positionX[crateCollider]).toBeCloseTo(0.2, 6);
      expect(c.positionY[crateCollider]).toBeCloseTo(0.2, 6);
      expect(c.positionZ[crateCollider]).toBeCloseTo(0.05, 6);
      expect(fluid.simulation.stats.stepCount).toBe(stepCount + 2);
      expect(errors).toEqual([]);
      fluid.dispose();
    } finally {
      engine.dispose();
    }
  });
});

describe('snapshot and restore across backends (WebGPU in headless Chromium)', () => {
  let gpu: GpuPage;

  beforeAll(async () => {
    gpu = await openGpuPage();
  }, 300_000);

  afterAll(async () => {
    await gpu?.close();
  });

  it('a GPU snapshot restores on the CPU and a CPU snapshot on the GPU, within float32 tolerance', async () => {
    const result = await gpu.run<SnapshotScenarioResult>('snapshot');
    console.log(`snapshot across backends: ${JSON.stringify(result)}`);
    expect(result.particles).toBeGreaterThan(300);
    // GPU -> CPU: the restored components are the GPU's read-back ones, exactly (float32 values in float64).
    expect(result.gpuToCpu.sameIds).toBe(true);
    expect(result.gpuToCpu.largestDifference).toBe(0);
    // A restore while a readback is in flight is refused (the readback would overwrite the restored state).
    expect(result.inFlightError).toMatch(/^FluidError: restore: WebGPU readbacks are in flight/);
    // CPU -> GPU (into a running GPU simulation): the uploaded buffers are the CPU's components rounded to
    // float32 (relative difference at most 2^-24), with the same ids and material slots.
    expect(result.cpuToGpu.sameIds).toBe(true);
    expect(result.cpuToGpu.materialsMatch).toBe(true);
    expect(result.cpuToGpu.largestRelativeDifference).toBeLessThanOrEqual(2 ** -24);
    // One step from the same state on both backends (float32 against float64, 2 substeps x 3 iterations;
    // the GPU also gathers neighbours anew each iteration, the CPU once per substep, see webgpu.test.ts):
    // positions within 0.5 mm (2% of the particle radius), velocities within 5 cm/s; the same ids, the
    // emitter's particles included (its random spread runs on the CPU for both).
    for (const step of [result.gpuToCpuStep, result.cpuToGpuStep]) {
      expect(step.sameIds).toBe(true);
      expect(step.largestPositionDifference).toBeLessThan(5e-4);
      expect(step.largestVelocityDifference).toBeLessThan(5e-2);
      expect(step.emitted).toBeGreaterThan(0);
    }
    expect(result.nonFinite).toBe(0);
    expect(gpu.consoleErrors).toEqual([]);
  }, 300_000);
});
