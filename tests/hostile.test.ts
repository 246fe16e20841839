/**
 * Hostile input to every public entry point: NaN and infinite vectors, zero and negative radii, densities,
 * rates and capacities, absurd time steps, ids that are no entity of the kind asked for, null options, a
 * disposed plugin, a mesh with no triangles. Each gets a `FluidError` that names the argument (or the
 * component and entity) and the allowed range, and leaves the simulation as it was. Frame hitches: a 1 s
 * frame takes `maxStepsPerFrame` ordinary steps, drops the rest and says so.
 */
import { FreeCamera } from '@babylonjs/core/Cameras/freeCamera.js';
import { NullEngine } from '@babylonjs/core/Engines/nullEngine.js';
import { Vector3 } from '@babylonjs/core/Maths/math.vector.js';
import { CreateBox } from '@babylonjs/core/Meshes/Builders/boxBuilder.js';
import { Mesh } from '@babylonjs/core/Meshes/mesh.js';
import { TransformNode } from '@babylonjs/core/Meshes/transformNode.js';
import { Scene } from '@babylonjs/core/scene.js';
import { afterEach, describe, expect, it } from 'vitest';
import {
  bakeSignedDistanceField,
  createBoxMesh,
  createGlassMesh,
  createSphereMesh,
  createTorusMesh,
  FluidError,
  FluidPlugin,
  FluidSimulation,
  type FluidSimulationOptions,
  poly6,
  SignedDistanceField,
  spiky,
  spikyGradient,
  type Vector3Tuple,
} from '../src';

/** Asserts that `call` throws a FluidError whose message matches `message`. */
function expectFluidError(call: () => unknown, message: RegExp): void {
  let thrown: unknown;
  try {
    call();
  } catch (error) {
    thrown = error;
  }
  expect(thrown, `expected a FluidError matching ${message}`).toBeInstanceOf(FluidError);
  expect((thrown as Error).message).toMatch(message);
}

/** A small tank: a box container, a block of water, a tap with a lifetime and a drain, after 10 steps. */
function tank() {
  const simulation = new FluidSimulation({ particleRadius: 0.05, capacity: 600 });
  const water = simulation.addMaterial({});
  const box = simulation.addCollider({ shape: 'box', min: [0, 0, 0], max: [1, 1, 0.5], container: true });
  const ball = simulation.addCollider({ shape: 'sphere', center: [0.7, 0.2, 0.25], radius: 0.1 });
  const plane = simulation.addCollider({ shape: 'plane', point: [0, 0, 0], normal: [0, 1, 0] });
  simulation.spawnBlock({ min: [0, 0, 0], max: [0.4, 0.4, 0.5], material: water });
  const tap = simulation.addEmitter({ material: water, position: [0.8, 0.8, 0.25], rate: 120, lifetime: 1 });
  const drain = simulation.addDrain({ shape: 'sphere', center: [0.95, 0.05, 0.25], radius: 0.08 });
  for (let step = 0; step < 10; step++) simulation.step();
  return { simulation, water, box, ball, plane, tap, drain };
}

/** Everything a refused step must leave alone: ids, positions, velocities, ages. */
function state(simulation: FluidSimulation): number[] {
  const values: number[] = [simulation.particleCount, simulation.stats.stepCount];
  const { Position, Velocity } = simulation;
  const age = simulation.components.Particle.age;
  for (const eid of Array.from(simulation.particles()).sort((a, b) => a - b)) {
    values.push(eid, Position.x[eid], Position.y[eid], Velocity.y[eid], age[eid]);
  }
  return values;
}

describe('hostile arguments', () => {
  it('constructor: NaN, infinite, zero, negative and huge options name the option and its range', () => {
    const cases: Array<[unknown, RegExp]> = [
      [null, /options must be an object/],
      [{ particleRadius: 0 }, /particleRadius is 0; allowed range is \[0\.0001, 100\]/],
      [{ particleRadius: Number.POSITIVE_INFINITY }, /particleRadius is Infinity; allowed range/],
      [{ capacity: -1 }, /capacity is -1; allowed range is \[1, 4194304\]/],
      [{ capacity: Number.NaN }, /capacity is NaN/],
      [{ maxMaterials: 0 }, /maxMaterials is 0; allowed range is \[1, 1024\]/],
      [{ maxColliders: 1e9 }, /maxColliders is 1000000000; allowed range is \[1, 4096\]/],
      [{ maxEmitters: -3 }, /maxEmitters is -3; allowed range is \[1, 4096\]/],
      [{ gravity: 'down' }, /gravity is down; it must be an array of 3 finite numbers/],
      [{ gravity: [0, Number.NaN, 0] }, /gravity\[1\] is NaN; allowed range is \[-1000, 1000\]/],
      [{ gravity: [0, -9.81] }, /gravity has 2 components; it must have 3/],
      [{ timeStep: -1 / 60 }, /timeStep is -0\.0166\d*; allowed range is \[0\.000001, 0\.1\]/],
      [{ substeps: 1.5 }, /substeps is 1\.5; it must be an integer in \[1, 32\]/],
      [{ maxSpeed: 0 }, /maxSpeed is 0; allowed range is \[0\.000001, 10000\]/],
      // null is no default: it is refused like any other value that is not a number or an object.
      [{ solver: 'mps', mps: null }, /^mps options must be an object/],
      [{ solver: 'mps', mps: { tolerance: null } }, /^mps\.tolerance is null; allowed range/],
      [{ solver: 'sph', sph: { speedOfSound: null } }, /speedOfSound is null/],
    ];
    for (const [options, message] of cases) {
      expectFluidError(() => new FluidSimulation(options as FluidSimulationOptions), message);
    }
  });

  it('step(0), step(-1), step(10), step(NaN) are refused, never clamped, and change nothing', () => {
    const { simulation } = tank();
    const before = state(simulation);
    for (const timeStep of [0, -1 / 60, 10, Number.NaN, Number.POSITIVE_INFINITY, '0.016' as unknown as number]) {
      expectFluidError(() => simulation.step(timeStep), /timeStep is .*; allowed range is \[0\.000001, 0\.1\]/);
    }
    expect(state(simulation)).toEqual(before);
    simulation.settings.timeStep = 10;
    expectFluidError(() => simulation.step(), /^settings\.timeStep is 10; allowed range is \[0\.000001, 0\.1\]/);
    simulation.settings.timeStep = 1 / 60;
    simulation.step(0.1); // the largest step accepted
    expect(simulation.stats.stepCount).toBe(11);
  });

  it('zero and negative radii, densities, rates and capacities name the argument and its range', () => {
    const { simulation, water } = tank();
    expectFluidError(() => simulation.addMaterial({ restDensity: 0 }), /restDensity is 0; allowed range is \[0\.001, /);
    expectFluidError(() => simulation.addMaterial({ particleMass: -1 }), /particleMass is -1; allowed range/);
    expectFluidError(() => simulation.addMaterial({ color: [2, 0, 0] }), /color\[0\] is 2; allowed range is \[0, 1\]/);
    expectFluidError(
      () => simulation.addCollider({ shape: 'sphere', center: [0, 0, 0], radius: -1 }),
      /radius is -1; allowed range is \[0\.000001, /,
    );
    expectFluidError(
      () => simulation.addCollider({ shape: 'capsule', a: [0, 0, 0], b: [0, Number.NaN, 0], radius: 0.1 }),
      /b\[1\] is NaN/,
    );
    expectFluidError(
      () => simulation.addEmitter({ material: water, position: [0, 0, 0], rate: -1 }),
      /rate is -1; allowed range is \[0, 1000000000\]/,
    );
    expectFluidError(
      () => simulation.addEmitter({ material: water, position: [0, 0, 0], radius: 0 }),
      /radius is 0; allowed range is \[0\.000001, /,
    );
    // A nozzle whose cross-section alone would exceed the capacity (600 particles of radius 0.05 m).
    expectFluidError(
      () => simulation.addEmitter({ material: water, position: [0, 0, 0], radius: 100 }),
      /radius is 100; allowed range is \[0\.000001, 1\.48\d*\]/,
    );
    expectFluidError(
      () => simulation.addEmitter({ material: water, position: [0, Number.POSITIVE_INFINITY, 0] }),
      /position\[1\] is Infinity; allowed range is \[-10000000, 10000000\]/,
    );
    expectFluidError(
      () => simulation.addDrain({ shape: 'sphere', center: [0, 0, 0], radius: 0 }),
      /radius is 0; allowed range/,
    );
    expectFluidError(
      () => simulation.spawn({ shape: 'sphere', center: [0, 0, 0], radius: 0, material: water }),
      /radius is 0; allowed range is \[0\.05, /,
    );
    // A volume of 10^21 lattice points is refused, not searched (the call returns at once).
    expectFluidError(
      () => simulation.spawn({ shape: 'sphere', center: [0, 0, 0], radius: 1e6, material: water }),
      /the volume spans 20000001 x 20000001 x 20000001 lattice points .*at most 100000000 are searched/,
    );
    const cube = bakeSignedDistanceField(createBoxMesh([0, 0, 0], [1, 1, 1]), { resolution: 8 });
    expectFluidError(
      () => simulation.spawn({ shape: 'mesh', field: cube, scaling: 1e6, material: water }),
      /lattice points .*at most 100000000 are searched/,
    );
  });

  it('ids that are no entity of the kind asked for, and null options, are refused', () => {
    const { simulation, water, box, tap, drain } = tank();
    const particle = simulation.particles()[0];
    const before = state(simulation);
    for (const id of [-1, 0, 1.5, Number.NaN, 1e9, water, box, tap, drain]) {
      expectFluidError(() => simulation.removeParticle(id), /removeParticle: .* is not a live particle entity/);
    }
    expectFluidError(
      () => simulation.markParticlesChanged([particle, water]),
      /markParticlesChanged: \d+ is not a live particle/,
    );
    expectFluidError(
      () => simulation.markParticlesChanged(null as unknown as number),
      /ids is null; it must be an entity id/,
    );
    expectFluidError(() => simulation.removeCollider(particle), /removeCollider: \d+ is not a collider entity/);
    expectFluidError(() => simulation.setColliderTransform(water, { position: [0, 0, 0] }), /is not a collider entity/);
    expectFluidError(() => simulation.removeEmitter(drain), /removeEmitter: \d+ is not an emitter entity/);
    expectFluidError(() => simulation.setEmitterTransform(box, {}), /is not an emitter entity/);
    expectFluidError(() => simulation.removeDrain(tap), /removeDrain: \d+ is not a drain entity/);
    expectFluidError(
      () => simulation.spawnBlock({ min: [0, 0, 0], max: [1, 1, 1], material: particle }),
      /material is \d+, which is not a material entity/,
    );
    expectFluidError(() => simulation.addEmitter({ material: box, position: [0, 0, 0] }), /not a material entity/);
    const nulls: Array<[() => unknown, RegExp]> = [
      [() => simulation.addMaterial(null as unknown as object), /addMaterial options must be an object/],
      [
        () => simulation.addCollider(null as unknown as { shape: 'box'; min: Vector3Tuple; max: Vector3Tuple }),
        /addCollider options/,
      ],
      [
        () => simulation.addEmitter(null as unknown as { material: number; position: Vector3Tuple }),
        /addEmitter options/,
      ],
      [() => simulation.addDrain(null as unknown as { min: Vector3Tuple; max: Vector3Tuple }), /addDrain options/],
      [
        () =>
          simulation.spawn(
            null as unknown as { shape: 'sphere'; center: Vector3Tuple; radius: number; material: number },
          ),
        /spawn options/,
      ],
      [() => simulation.setColliderTransform(box, null as unknown as object), /transform must be an object/],
      [() => simulation.setEmitterTransform(tap, null as unknown as object), /transform must be an object/],
      [() => simulation.particles({} as unknown as Uint32Array), /into is \[object Object\]; it must be a Uint32Array/],
      [() => simulation.particles(new Uint32Array(1)), /into has length 1; it needs at least/],
      [() => simulation.setColliderTransform(box, { scaling: [1, 2, 1] }), /only uniform scaling/],
      [() => simulation.setColliderTransform(box, { rotation: [0, 0, 0, 0] }), /rotation has length 0/],
      [() => simulation.setEmitterTransform(tap, { direction: [0, 0, 0] }), /direction has zero length/],
      [
        () => simulation.setColliderTransform(box, { teleport: 'yes' as unknown as boolean }),
        /teleport is yes; it must be a boolean/,
      ],
      [
        () => simulation.setColliderTransform(box, { teleport: null as unknown as boolean }),
        /teleport is null; it must be a boolean/,
      ],
    ];
    for (const [call, message] of nulls) expectFluidError(call, message);
    expect(state(simulation)).toEqual(before);
    simulation.step();
  });

  it('every public call that throws leaves the whole state unchanged (the snapshot bytes are equal)', () => {
    const { simulation, water, box, ball, tap, drain } = tank();
    const particle = simulation.particles()[0];
    const block = { min: [0, 0, 0] as Vector3Tuple, max: [0.2, 0.2, 0.2] as Vector3Tuple, material: water };
    // Failing calls of every public method that changes or reads the state; a method added to the class must
    // be listed here (or among the queries that cannot fail), else this test fails.
    const failing: Record<string, Array<() => unknown>> = {
      addMaterial: [
        () => simulation.addMaterial({ restDensity: -1 }),
        () => simulation.addMaterial({ viscosity: 0.1, airMaterial: 9999 }),
        () => simulation.addMaterial({ airMaterial: box }),
        () => simulation.addMaterial({ viscosty: 0.5 } as unknown as object),
      ],
      spawnBlock: [
        () => simulation.spawnBlock({ ...block, material: box }),
        () => simulation.spawnBlock({ ...block, max: [0.2, Number.NaN, 0.2] }),
        () => simulation.spawnBlock({ ...block, min: [0, 0, 0], max: [100, 100, 100] }),
      ],
      spawn: [
        () => simulation.spawn({ shape: 'sphere', center: [0.5, 0.5, 0.25], radius: -1, material: water }),
        () => simulation.spawn({ shape: 'sphere', center: [0.5, 0.5, 0.25], radius: 0.1, material: tap }),
      ],
      removeParticle: [() => simulation.removeParticle(water), () => simulation.removeParticle(Number.NaN)],
      markParticlesChanged: [() => simulation.markParticlesChanged([particle, box])],
      addCollider: [
        () => simulation.addCollider({ shape: 'sphere', center: [0, 0, 0], radius: 0 }),
        () => simulation.addCollider({ shape: 'box', min: [1, 1, 1], max: [0, 0, 0] }),
        () => simulation.addCollider({ shape: 'sphere', center: [0, 0, 0], radius: 0.1, restitution: 2 }),
      ],
      setColliderTransform: [
        () => simulation.setColliderTransform(ball, { position: [0.1, 0.1, 0.1], rotation: [0, 0, 0, 0] }),
        () => simulation.setColliderTransform(ball, { position: [0.1, 0.1, 0.1], scaling: -1 }),
        () => simulation.setColliderTransform(ball, { position: [0.1, 0.1, 0.1], teleport: 1 as unknown as boolean }),
        () => simulation.setColliderTransform(water, { position: [0, 0, 0] }),
      ],
      takeBodyImpulse: [() => simulation.takeBodyImpulse(ball)],
      particlesInsideCollider: [() => simulation.particlesInsideCollider(water)],
      removeCollider: [() => simulation.removeCollider(tap)],
      addEmitter: [
        () => simulation.addEmitter({ material: water, position: [0, 0, 0], rate: -1 }),
        () => simulation.addEmitter({ material: drain, position: [0, 0, 0] }),
      ],
      setEmitterTransform: [
        () => simulation.setEmitterTransform(tap, { position: [0.1, 0.1, 0.1], direction: [Number.NaN, 0, 0] }),
        () => simulation.setEmitterTransform(drain, { position: [0.1, 0.1, 0.1] }),
      ],
      removeEmitter: [() => simulation.removeEmitter(drain)],
      addDrain: [() => simulation.addDrain({ shape: 'sphere', center: [0, 0, 0], radius: -1 })],
      removeDrain: [() => simulation.removeDrain(tap)],
      particles: [() => simulation.particles(new Uint32Array(1))],
      writeEllipsoids: [
        () => simulation.writeEllipsoids(new Float32Array(12), simulation.particles(), 2, 0.01),
        () => simulation.writeEllipsoids(new Float32Array(24), simulation.particles(), 2, Number.NaN),
        () => simulation.writeEllipsoids(new Float32Array(24), simulation.particles(), 2, 0.01, { smoothing: -1 }),
      ],
      step: [() => simulation.step(0), () => simulation.step(Number.NaN)],
      restore: [
        () => simulation.restore(new Uint8Array(40)),
        () => simulation.restore(simulation.snapshot().slice(0, 100)),
      ],
    };
    // Queries that read the state and cannot fail on it, and the lifecycle (readback, ready, dispose).
    const queries = [
      'materials',
      'colliders',
      'emitters',
      'drains',
      'isMaterial',
      'isParticle',
      'isCollider',
      'isEmitter',
      'isDrain',
      'lastEmitted',
      'lastRemoved',
      'snapshot',
    ];
    const lifecycle = ['ready', 'readback', 'dispose'];
    const prototype = FluidSimulation.prototype as unknown as Record<string, unknown>;
    const methods = Object.getOwnPropertyNames(prototype).filter(
      (name) => name !== 'constructor' && typeof Object.getOwnPropertyDescriptor(prototype, name)?.value === 'function',
    );
    // TypeScript's private methods are on the prototype too: those are the ones the declaration file hides.
    const privateMethods = [
      'startGpu',
      'useSystems',
      'stopGpu',
      'notify',
      'deviceLost',
      'deviceRestored',
      'newEntity',
      'describeEntity',
      'restoreDecoded',
    ];
    const unlisted = methods.filter(
      (name) =>
        !(name in failing) && !queries.includes(name) && !lifecycle.includes(name) && !privateMethods.includes(name),
    );
    expect(unlisted, 'public methods without failing calls in this test').toEqual([]);
    for (const [name, calls] of Object.entries(failing)) {
      for (const call of calls) {
        const before = simulation.snapshot();
        expect(call, `${name}: ${call.toString()}`).toThrowError(FluidError);
        const after = simulation.snapshot();
        expect(
          after.length === before.length && after.every((byte, k) => byte === before[k]),
          `${name} changed the state: ${call.toString()}`,
        ).toBe(true);
      }
    }
    simulation.step();
  });

  it('a transform call that throws changes nothing: a bad direction leaves the emitter where it was', () => {
    const { simulation, tap } = tank();
    const e = simulation.components.Emitter;
    const pose = () => [e.positionX[tap], e.positionY[tap], e.positionZ[tap], e.directionX[tap], e.directionY[tap]];
    const before = pose();
    expectFluidError(
      () => simulation.setEmitterTransform(tap, { position: [0.1, 0.1, 0.1], direction: [Number.NaN, 0, 0] }),
      /direction\[0\] is NaN/,
    );
    expectFluidError(
      () => simulation.setEmitterTransform(tap, { position: [0.1, 0.1, 0.1], direction: [0, 0, 0] }),
      /direction has zero length/,
    );
    expect(pose()).toEqual(before);
    simulation.setEmitterTransform(tap, { position: [0.1, 0.1, 0.1], direction: [0, -2, 0] });
    expect(pose()).toEqual([0.1, 0.1, 0.1, 0, -1]);
  });
});

describe('hostile component edits', () => {
  it('each is refused by the next step, naming the component, before anything changes; fixing it resumes', () => {
    const { simulation, water, box, ball, plane, tap, drain } = tank();
    const c = simulation.components;
    const particle = simulation.particles()[3];
    const other = simulation.particles()[4];
    const edits: Array<[string, () => () => void, RegExp]> = [];
    const settings = simulation.settings as unknown as { [key: string]: number };
    /** An edit of one array element, undone by writing back the old value. */
    const edit = (
      name: string,
      store: { [index: number]: number } | { [key: string]: number },
      id: string | number,
      value: number,
      message: RegExp,
    ) => {
      const array = store as { [key: string | number]: number };
      edits.push([
        name,
        () => {
          const old = array[id];
          array[id] = value;
          return () => {
            array[id] = old;
          };
        },
        message,
      ]);
    };
    edit(
      'NaN position',
      c.Position.x,
      particle,
      Number.NaN,
      new RegExp(`Position\\.x\\[${particle}\\] is NaN; it must be a finite number`),
    );
    edit('infinite velocity', c.Velocity.z, particle, Number.NEGATIVE_INFINITY, /Velocity\.z\[\d+\] is -Infinity/);
    edit(
      'a finite but huge position',
      c.Position.x,
      particle,
      1e308,
      new RegExp(
        `^Position\\.x\\[${particle}\\] is 1e\\+308; it must be a finite number in \\[-1000000000000, 1000000000000\\] m`,
      ),
    );
    edit(
      'a NaN previous collider position',
      c.Collider.previousPositionX,
      ball,
      Number.NaN,
      new RegExp(`^Collider\\.previousPositionX\\[${ball}\\] is NaN`),
    );
    edit(
      'a huge collider position',
      c.Collider.positionY,
      ball,
      1e300,
      new RegExp(`^Collider\\.positionY\\[${ball}\\] is 1e\\+300; it must be a finite number in`),
    );
    edit(
      'a zero previous collider scale',
      c.Collider.previousScale,
      ball,
      0,
      new RegExp(`^Collider\\.previousScale\\[${ball}\\] is 0; allowed range`),
    );
    edits.push([
      'a zero collider quaternion',
      () => {
        const old = [c.Collider.rotationX[ball], c.Collider.rotationW[ball]];
        c.Collider.rotationX[ball] = 0;
        c.Collider.rotationW[ball] = 0;
        return () => {
          c.Collider.rotationX[ball] = old[0];
          c.Collider.rotationW[ball] = old[1];
        };
      },
      new RegExp(`^Collider\\.rotation of ${ball} is \\[0, 0, 0, 0\\] with length 0`),
    ]);
    edit('NaN owed emission', c.Emitter.owed, tap, Number.NaN, new RegExp(`^Emitter\\.owed\\[${tap}\\] is NaN`));
    edit('huge owed emission', c.Emitter.owed, tap, 1e300, new RegExp(`^Emitter\\.owed\\[${tap}\\] is 1e\\+300`));
    edit(
      'a material id past the table',
      c.Particle.material,
      particle,
      99999,
      /Particle\.material\[\d+\] is 99999, which is not a material entity/,
    );
    edit(
      'a particle as material',
      c.Particle.material,
      particle,
      other,
      new RegExp(`Particle\\.material\\[${particle}\\] is ${other}, which is not a material`),
    );
    edit(
      'NaN lifetime',
      c.Particle.lifetime,
      particle,
      Number.NaN,
      /Particle\.lifetime\[\d+\] is NaN; allowed range is \[0, 1000000000\]/,
    );
    edit('negative lifetime', c.Particle.lifetime, particle, -1, /Particle\.lifetime\[\d+\] is -1/);
    edit(
      'an emitter shape that is none',
      c.Emitter.shape,
      tap,
      99,
      new RegExp(`Emitter\\.shape\\[${tap}\\] is 99; allowed values are 0 \\(circle\\), 1 \\(square\\)`),
    );
    edit(
      'a drain shape that is none',
      c.Drain.shape,
      drain,
      99,
      new RegExp(`Drain\\.shape\\[${drain}\\] is 99; allowed values are 0 \\(box\\), 1 \\(sphere\\)`),
    );
    edit('infinite age', c.Particle.age, particle, Number.POSITIVE_INFINITY, /Particle\.age\[\d+\] is Infinity/);
    edit(
      'negative viscosity',
      c.FluidMaterial.viscosity,
      water,
      -0.5,
      new RegExp(`FluidMaterial\\.viscosity\\[${water}\\] is -0\\.5; allowed range is \\[0, 1\\]`),
    );
    edit(
      'zero rest density',
      c.FluidMaterial.restDensity,
      water,
      0,
      /FluidMaterial\.restDensity\[\d+\] is 0; allowed range/,
    );
    edit('NaN relaxation', c.FluidMaterial.relaxation, water, Number.NaN, /FluidMaterial\.relaxation\[\d+\] is NaN/);
    edit(
      'zero sphere radius',
      c.Collider.radius,
      ball,
      0,
      new RegExp(`Collider\\.radius\\[${ball}\\] is 0; allowed range is \\[0\\.000001, 10000000\\]`),
    );
    edit('unknown shape', c.Collider.shape, ball, 9, /Collider\.shape\[\d+\] is 9; allowed values are 0 to 4/);
    edit(
      'inverted box',
      c.Collider.bx,
      box,
      -1,
      /Collider box \d+: max x \(Collider\.bx, -1\) must be greater than min/,
    );
    edit(
      'zero plane normal',
      c.Collider.by,
      plane,
      0,
      /Collider plane \d+: the normal .* has length 0; it must be a unit vector/,
    );
    edit(
      'zero scale',
      c.Collider.scale,
      box,
      0,
      /Collider\.scale\[\d+\] is 0; allowed range is \[0\.000001, 1000000\]/,
    );
    edit(
      'negative friction',
      c.Collider.friction,
      box,
      -1,
      /Collider\.friction\[\d+\] is -1; allowed range is \[0, 100\]/,
    );
    edit('NaN rotation', c.Collider.rotationW, box, Number.NaN, /Collider\.rotationW\[\d+\] is NaN/);
    edit(
      'huge nozzle',
      c.Emitter.radius,
      tap,
      1e4,
      /Emitter\.radius\[\d+\] is 10000; allowed range is \[0\.000001, 1\.48\d*\]/,
    );
    edit(
      'NaN rate',
      c.Emitter.rate,
      tap,
      Number.NaN,
      /Emitter\.rate\[\d+\] is NaN; allowed range is \[0, 1000000000\]/,
    );
    edit(
      'a collider as emitter material',
      c.Emitter.material,
      tap,
      box,
      /Emitter\.material\[\d+\] is \d+, which is not a material entity/,
    );
    edit(
      'negative drain radius',
      c.Drain.radius,
      drain,
      -1,
      /Drain\.radius\[\d+\] is -1; allowed range is \[0, 10000000\]/,
    );
    edit('zero substeps', settings, 'substeps', 0, /settings\.substeps is 0; allowed range is \[1, 32\]/);
    edit('huge iterations', settings, 'iterations', 1000, /settings\.iterations is 1000/);
    edit('NaN speed clamp', settings, 'maxSpeed', Number.NaN, /settings\.maxSpeed is NaN/);
    for (const [name, write, message] of edits) {
      const undo = write();
      const before = state(simulation);
      expectFluidError(() => simulation.step(), message);
      // Refused before anything changed: no particle emitted, aged, drained or moved.
      expect(state(simulation), name).toEqual(before);
      undo();
      simulation.step();
      expect(simulation.stats.stepCount, name).toBe(before[1] + 1);
    }
    const { Position, Velocity } = simulation;
    for (const eid of simulation.particles()) {
      expect(Number.isFinite(Position.x[eid] + Position.y[eid] + Position.z[eid] + Velocity.y[eid])).toBe(true);
    }
  });

  it('a field with a NaN value is refused when it is made, not when the fluid meets it', () => {
    const values = new Float32Array(2 * 2 * 2 * 4).fill(1);
    values[13] = Number.NaN;
    expectFluidError(
      () => new SignedDistanceField({ origin: [0, 0, 0], cellSize: 0.1, nodeCounts: [2, 2, 2], values }),
      /values\[13\] \(node 3\) is NaN; every distance and gradient must be finite/,
    );
  });
});

describe('hostile meshes, kernels and shapes', () => {
  it('a mesh with no triangles, NaN vertices or bad indices is refused by the bake', () => {
    const cases: Array<[unknown, RegExp]> = [
      [
        { positions: new Float32Array(0), indices: new Uint32Array(0) },
        /mesh\.indices has 0 entries; the mesh has no triangles/,
      ],
      [{ positions: [0, 0, 0, 1, 0, 0, 0, 1, 0], indices: [0, 1] }, /mesh\.indices has 2 entries/],
      [{ positions: [0, 0, 0, 1, Number.NaN, 0, 0, 1, 0], indices: [0, 1, 2] }, /vertex 1 has coordinate y = NaN/],
      [
        { positions: [1e15, 0, 0, 1e15 + 1, 0, 0, 1e15, 1, 0], indices: [0, 1, 2] },
        /^vertex 0 has coordinate x = 1000000000000000 \(mesh\.positions\[0\]\); every coordinate must be a finite number in \[-10000000, 10000000\]/,
      ],
      [
        { positions: [0, 0, 0, 1, 0, 0, 0, 1, 0], indices: [0, 1, 7] },
        /mesh\.indices\[2\] \(triangle 0\) is 7; vertex indices must be integers in \[0, 2\]/,
      ],
      [{ positions: [0, 0, 0, 1, 0, 0, 2, 0, 0], indices: [0, 1, 2] }, /all 1 triangles of the mesh are degenerate/],
      [{ positions: [0, 0, 0, 1, 0, 0, 0, 1, 0], indices: [0, 1, 2] }, /the mesh encloses no volume/],
      [null, /mesh is null; it must be an object/],
    ];
    for (const [mesh, message] of cases) {
      expectFluidError(() => bakeSignedDistanceField(mesh as { positions: number[]; indices: number[] }), message);
    }
    const cube = createBoxMesh([0, 0, 0], [1, 1, 1]);
    expectFluidError(
      () => bakeSignedDistanceField(cube, { resolution: 2 }),
      /resolution is 2; allowed range is \[4, 1024\]/,
    );
    expectFluidError(
      () => bakeSignedDistanceField(cube, { cellSize: -1 }),
      /cellSize is -1; it must be a finite number > 0/,
    );
    expectFluidError(() => bakeSignedDistanceField(cube, { cellSize: 1e-6 }), /the grid would have .* nodes/);
  });

  it('kernels refuse a negative or NaN distance and a zero, negative or infinite kernel radius', () => {
    expectFluidError(() => poly6(-0.01, 0.1), /r is -0\.01; the distance must be a number >= 0/);
    expectFluidError(() => poly6(0.05, 0), /h is 0; the kernel radius must be a finite number > 0/);
    expectFluidError(() => spiky(Number.NaN, 0.1), /r is NaN/);
    expectFluidError(() => spiky(0.05, Number.POSITIVE_INFINITY), /h is Infinity/);
    expectFluidError(() => spikyGradient(Number.NaN, 0, 0, 0.1, [0, 0, 0]), /the offset is \[NaN, 0, 0\]/);
    expectFluidError(() => spikyGradient(0.01, 0, 0, -0.1, [0, 0, 0]), /h is -0\.1/);
    expect(poly6(Number.POSITIVE_INFINITY, 0.1)).toBe(0);
    expect(poly6(0.05, 0.1)).toBeGreaterThan(0);
  });

  it('shape builders refuse zero and negative sizes', () => {
    expectFluidError(() => createSphereMesh(0, 8), /radius is 0; allowed range/);
    expectFluidError(() => createSphereMesh(1, 2), /segments is 2; allowed range is \[3, 4096\]/);
    expectFluidError(() => createBoxMesh([0, 0, 0], [0, 1, 1]), /box min\[0\] = 0 must be less than max\[0\] = 0/);
    expectFluidError(() => createTorusMesh(0.1, 0.2, 8, 8), /minorRadius 0\.2 must be less than majorRadius 0\.1/);
    expectFluidError(
      () => createGlassMesh({ wallThickness: -0.001 }),
      /wallThickness is -0\.001; allowed range is \(0, 0\.04\)/,
    );
  });
});

describe('FluidPlugin: hostile input, disposal and frame hitches', () => {
  const engines: NullEngine[] = [];
  afterEach(() => {
    for (const engine of engines.splice(0)) engine.dispose();
  });

  function createScene(): { engine: NullEngine; scene: Scene } {
    const engine = new NullEngine();
    engines.push(engine);
    const scene = new Scene(engine);
    new FreeCamera('camera', new Vector3(0, 1, -3), scene);
    return { engine, scene };
  }

  /** The plugin's water and the same water stepped headless, for comparison. */
  async function water(scene: Scene, maxStepsPerFrame = 3) {
    const fluid = await FluidPlugin.create(scene, { particleRadius: 0.05, capacity: 2000, maxStepsPerFrame });
    const reference = new FluidSimulation({ particleRadius: 0.05, capacity: 2000 });
    for (const simulation of [fluid.simulation, reference]) {
      const material = simulation.addMaterial({});
      simulation.addCollider({ shape: 'box', min: [0, 0, 0], max: [1, 1, 0.4], container: true });
      simulation.spawnBlock({ min: [0, 0, 0], max: [0.4, 0.6, 0.4], material });
    }
    return { fluid, reference };
  }

  it('a 1 s frame takes maxStepsPerFrame ordinary steps, drops the rest and says so; the fluid stays calm', async () => {
    const { engine, scene } = createScene();
    const { fluid, reference } = await water(scene);
    const drops: number[] = [];
    fluid.onTimeDroppedObservable.add((seconds) => drops.push(seconds));
    let milliseconds = 1000 / 60;
    engine.getDeltaTime = () => milliseconds;
    for (let frame = 0; frame < 30; frame++) scene.render();
    const settled = fluid.simulation.stats.stepCount;
    expect(settled).toBeGreaterThanOrEqual(29);
    expect(drops).toEqual([]);
    milliseconds = 1000; // a tab switch: the next frame is a second late
    scene.render();
    expect(fluid.stepsLastFrame).toBe(3);
    expect(fluid.simulation.stats.stepCount).toBe(settled + 3);
    // 60 or 61 steps were due (the carried fraction of a step); all but 3 are dropped, announced once.
    expect(drops.length).toBe(1);
    expect(drops[0]).toBeGreaterThanOrEqual(57 / 60 - 1e-9);
    expect(drops[0]).toBeLessThanOrEqual(58 / 60 + 1e-9);
    expect(fluid.droppedTime).toBe(drops[0]);
    // The hitch frame was three ordinary fixed steps: the same particles as a simulation stepped as often.
    for (let step = 0; step < fluid.simulation.stats.stepCount; step++) reference.step();
    const { Position, Velocity } = fluid.simulation;
    let fastest = 0;
    for (const eid of fluid.simulation.particles()) {
      expect(Position.x[eid]).toBe(reference.Position.x[eid]);
      expect(Position.y[eid]).toBe(reference.Position.y[eid]);
      const speed = Math.hypot(Velocity.x[eid], Velocity.y[eid], Velocity.z[eid]);
      expect(Number.isFinite(speed)).toBe(true);
      fastest = Math.max(fastest, speed);
    }
    // No particle is faster than a fall from the top of the 1 m container: sqrt(2 g 1 m) = 4.43 m/s.
    expect(fastest).toBeLessThan(Math.sqrt(2 * 9.81 * 1));
    milliseconds = 1000 / 60;
    scene.render();
    expect(fluid.stepsLastFrame).toBeLessThanOrEqual(2);
    expect(fluid.stepsLastFrame).toBeGreaterThanOrEqual(1);
    expect(drops.length).toBe(1);
  });

  it('absurd frame durations (1e300 ms, NaN, negative) neither throw nor take more than maxStepsPerFrame steps', async () => {
    const { engine, scene } = createScene();
    const { fluid } = await water(scene, 2);
    const errors: Error[] = [];
    fluid.onErrorObservable.add((error) => errors.push(error));
    for (const milliseconds of [1e300, Number.NaN, -5, Number.POSITIVE_INFINITY, 0]) {
      const before = fluid.simulation.stats.stepCount;
      engine.getDeltaTime = () => milliseconds;
      expect(() => scene.render()).not.toThrow();
      expect(fluid.simulation.stats.stepCount - before).toBe(milliseconds === 1e300 ? 2 : 0);
      expect(Number.isFinite(fluid.droppedTime)).toBe(true);
    }
    // The accumulator is sane again: an ordinary frame takes one step.
    engine.getDeltaTime = () => 1000 / 60;
    scene.render();
    expect(fluid.stepsLastFrame).toBeGreaterThanOrEqual(1);
    expect(fluid.stepsLastFrame).toBeLessThanOrEqual(2);
    expect(errors).toEqual([]);
  });

  it('refuses a disposed plugin, a missing scene, a non-mesh, an empty mesh and NaN nodes', async () => {
    const { engine, scene } = createScene();
    engine.getDeltaTime = () => 1000 / 60;
    await expect(FluidPlugin.create(null as unknown as Scene)).rejects.toThrow(
      /scene is null; FluidPlugin\.create needs a Babylon Scene/,
    );
    await expect(FluidPlugin.create(scene, { maxStepsPerFrame: 0 })).rejects.toThrow(
      /maxStepsPerFrame is 0; it must be an integer in \[1, 1000\]/,
    );
    await expect(FluidPlugin.create(scene, { timeScale: Number.NaN })).rejects.toThrow(/timeScale is NaN/);
    await expect(FluidPlugin.create(scene, { renderMod: 'points' } as never)).rejects.toThrow(
      /^FluidPlugin\.create has no option 'renderMod'; did you mean 'renderMode'\?/,
    );
    await expect(FluidPlugin.create(scene, { particleRadus: 0.01 } as never)).rejects.toThrow(
      /has no option 'particleRadus'; did you mean 'particleRadius'\?/,
    );
    const { fluid } = await water(scene);
    await expect(fluid.addMeshCollider(null as unknown as Mesh)).rejects.toThrow(
      /addMeshCollider: mesh is null; it must be a Babylon mesh/,
    );
    await expect(fluid.addMeshCollider(new Mesh('empty', scene))).rejects.toThrow(
      /mesh 'empty' has no vertex positions/,
    );
    const node = new TransformNode('nozzle', scene);
    const material = fluid.simulation.addMaterial({});
    expectFluidError(
      () => fluid.addEmitter({ material, node: {} as TransformNode }),
      /node is \[object Object\]; it must be a Babylon TransformNode/,
    );
    expectFluidError(
      () => fluid.addEmitter({ material, node, localPosition: [0, Number.NaN, 0] }),
      /localPosition\[1\] is NaN/,
    );
    expectFluidError(
      () => fluid.addEmitter({ material, node, localDirection: [0, 0, 0] }),
      /maps its local direction to zero length/,
    );
    const box = CreateBox('crate', { size: 0.2 }, scene);
    await fluid.addMeshCollider(box, { resolution: 8 });
    box.position.y = Number.NaN;
    const errors: Error[] = [];
    fluid.onErrorObservable.add((error) => errors.push(error));
    scene.render();
    expect(errors[0]).toBeInstanceOf(FluidError);
    expect(errors[0].message).toMatch(/'crate' has a non-finite world matrix/);
    box.position.y = 0.5;
    fluid.dispose();
    const calls: Array<[string, () => unknown]> = [
      ['addEmitter', () => fluid.addEmitter({ material, position: [0, 0, 0] })],
      ['addDrain', () => fluid.addDrain({ min: [0, 0, 0], max: [1, 1, 1] })],
      ['removeDrain', () => fluid.removeDrain(1)],
      ['removeEmitter', () => fluid.removeEmitter(1)],
      ['removeCollider', () => fluid.removeCollider(1)],
      ['spawn', () => fluid.spawn({ shape: 'sphere', center: [0.5, 0.5, 0.2], radius: 0.1, material })],
      ['markParticlesChanged', () => fluid.markParticlesChanged([])],
    ];
    for (const [name, call] of calls) expectFluidError(call, new RegExp(`${name}: the plugin is disposed`));
    await expect(fluid.addMeshCollider(box)).rejects.toThrow(/addMeshCollider: the plugin is disposed/);
    const steps = fluid.simulation.stats.stepCount;
    expect(() => scene.render()).not.toThrow();
    expect(fluid.simulation.stats.stepCount).toBe(steps);
    fluid.simulation.step(); // the simulation itself stays usable headless
  });
});
