/** Emitters, drains, lifetimes and volume spawns: counts, rates, capacity and determinism. */
import { describe, expect, it } from 'vitest';
import { bakeSignedDistanceField, createSphereMesh, FluidCapacityError, FluidError, FluidSimulation } from '../src';

function scene(capacity = 32768) {
  const simulation = new FluidSimulation({ particleRadius: 0.025, capacity });
  const water = simulation.addMaterial({});
  simulation.addCollider({ shape: 'box', min: [-1, 0, -1], max: [1, 2, 1], container: true });
  return { simulation, water };
}

describe('nozzle emitter', () => {
  it('pours at its rate, as a coherent jet at rest spacing with the nozzle speed', () => {
    const { simulation, water } = scene();
    const emitter = simulation.addEmitter({ material: water, position: [0, 1.5, 0], radius: 0.05, speed: 2 });
    const e = simulation.components.Emitter;
    // A 0.05 m circle on a 0.05 m lattice: the center and its four neighbours, 5 per layer.
    // Coherent rate: 5 particles x 2 m/s / 0.05 m = 200 per second.
    expect(e.rate[emitter]).toBeCloseTo(200, 9);
    let emitted = 0;
    const ids = new Set<number>();
    for (let frame = 0; frame < 60; frame++) {
      simulation.step();
      emitted += simulation.stats.emittedCount;
      for (const id of simulation.lastEmitted()) ids.add(id);
    }
    // One second at 200 per second, to within one layer.
    expect(Math.abs(emitted - 200)).toBeLessThanOrEqual(5);
    expect(ids.size).toBe(emitted);
    expect(simulation.particleCount).toBe(emitted);
    // The first layers have fallen; the newest ones leave the nozzle at about 2 m/s downwards, 2r apart.
    const newest = simulation.lastEmitted();
    expect(newest.length).toBeGreaterThan(0);
    for (const id of newest) expect(simulation.Velocity.y[id]).toBeLessThan(-1.8);
    console.log(`nozzle: ${emitted} particles emitted in 1 s at a set rate of ${e.rate[emitter]} per second`);
  });

  it('litres per second set the volume rate; editing the component retunes and disables it', () => {
    const { simulation, water } = scene();
    // 1 l/s = 1e-3 m^3/s over (0.05 m)^3 per particle = 8 particles per second.
    const emitter = simulation.addEmitter({ material: water, position: [0, 1.5, 0], litresPerSecond: 1 });
    expect(simulation.components.Emitter.rate[emitter]).toBeCloseTo(8, 9);
    simulation.components.Emitter.rate[emitter] = 600;
    for (let frame = 0; frame < 30; frame++) simulation.step();
    const afterHalfSecond = simulation.particleCount;
    expect(Math.abs(afterHalfSecond - 300)).toBeLessThanOrEqual(13);
    simulation.components.Emitter.enabled[emitter] = 0;
    for (let frame = 0; frame < 30; frame++) simulation.step();
    expect(simulation.particleCount).toBe(afterHalfSecond);
    simulation.components.Emitter.rate[emitter] = -1;
    simulation.components.Emitter.enabled[emitter] = 1;
    expect(() => simulation.step()).toThrowError(/Emitter.rate\[\d+\] is -1; allowed range is \[0, 1000000000\]/);
  });

  it('stops at the capacity and says so, without throwing', () => {
    const { simulation, water } = scene(100);
    const emitter = simulation.addEmitter({ material: water, position: [0, 1.5, 0], radius: 0.1, speed: 3 });
    let blockedSeen = false;
    for (let frame = 0; frame < 60; frame++) {
      simulation.step();
      blockedSeen ||= simulation.stats.emitterBlocked;
    }
    expect(blockedSeen).toBe(true);
    expect(simulation.components.Emitter.blocked[emitter]).toBe(1);
    expect(simulation.particleCount).toBeLessThanOrEqual(100);
    expect(simulation.particleCount).toBeGreaterThan(80);
  });

  it('a spread jet is deterministic: two runs give identical particles', () => {
    const run = () => {
      const { simulation, water } = scene();
      simulation.addEmitter({ material: water, position: [0, 1.5, 0], direction: [1, -1, 0], spread: 0.3 });
      for (let frame = 0; frame < 40; frame++) simulation.step();
      return Array.from(simulation.particles(), (id) => simulation.Position.x[id] + 3 * simulation.Position.y[id]);
    };
    const first = run();
    expect(first.length).toBeGreaterThan(50);
    expect(run()).toEqual(first);
  });

  it('rejects bad options with the value and the range', () => {
    const { simulation, water } = scene();
    expect(() => simulation.addEmitter({ material: 999, position: [0, 0, 0] })).toThrowError(/material is 999/);
    expect(() => simulation.addEmitter({ material: water, position: [0, 0, 0], speed: -2 })).toThrowError(
      /speed is -2; allowed range is \[0, 10000\]/,
    );
    expect(() => simulation.addEmitter({ material: water, position: [0, 0, 0], direction: [0, 0, 0] })).toThrowError(
      /direction has zero length/,
    );
    expect(() => simulation.addEmitter({ material: water, position: [0, 0, 0], rate: 5, litresPerSecond: 1 })).toThrow(
      FluidError,
    );
    expect(() => simulation.addDrain({ min: [0, 0, 0], max: [0, 1, 1] })).toThrowError(
      /max\[0\] \(0\) must be greater/,
    );
  });
});

describe('drains and lifetimes', () => {
  it('a drain in the floor empties a tank, and reports every removed id once', () => {
    const simulation = new FluidSimulation({ particleRadius: 0.025 });
    const water = simulation.addMaterial({});
    simulation.addCollider({ shape: 'box', min: [-0.5, 0, -0.5], max: [0.5, 1, 0.5], container: true });
    simulation.spawnBlock({ min: [-0.5, 0, -0.5], max: [0.5, 0.3, 0.5], material: water });
    const total = simulation.particleCount;
    const drain = simulation.addDrain({ min: [-0.1, -1, -0.1], max: [0.1, 0.06, 0.1] });
    const removed = new Set<number>();
    const counts: number[] = [];
    for (let frame = 0; frame < 600; frame++) {
      simulation.step();
      for (const id of simulation.lastRemoved()) {
        expect(removed.has(id) && simulation.isParticle(id)).toBe(false);
        removed.add(id);
      }
      expect(simulation.components.Drain.removedCount[drain]).toBe(simulation.stats.removedCount);
      if (frame % 60 === 59) counts.push(simulation.particleCount);
    }
    console.log(`drain: ${total} particles, left after each second: ${counts.join(', ')}`);
    expect(removed.size + simulation.particleCount).toBe(total);
    // The level falls every second, and more than half the tank is gone after 10 s.
    for (let k = 1; k < counts.length; k++) expect(counts[k]).toBeLessThan(counts[k - 1]);
    expect(simulation.particleCount).toBeLessThan(total / 2);
  });

  it('emitted particles die at their lifetime', () => {
    const { simulation, water } = scene();
    simulation.addEmitter({ material: water, position: [0, 1.5, 0], lifetime: 0.5 });
    let maxAge = 0;
    for (let frame = 0; frame < 90; frame++) {
      simulation.step();
      for (const id of simulation.particles()) maxAge = Math.max(maxAge, simulation.components.Particle.age[id]);
    }
    // Ages advance by 1/60 s per step; a particle is removed at the first step where its age reaches 0.5 s.
    expect(maxAge).toBeLessThan(0.5);
    expect(maxAge).toBeGreaterThan(0.45);
    expect(simulation.stats.removedCount).toBeGreaterThan(0);
  });
});

describe('volume spawns', () => {
  it('a sphere and a baked mesh fill their volume on the rest lattice', () => {
    const { simulation, water } = scene();
    const spacing = 0.05;
    const sphere = simulation.spawn({ shape: 'sphere', center: [0, 1, 0], radius: 0.3, material: water });
    // Lattice points whose particle lies inside: centers within 0.3 - r, about (4/3) pi 0.275^3 / spacing^3.
    const expected = ((4 / 3) * Math.PI * 0.275 ** 3) / spacing ** 3;
    expect(Math.abs(sphere.length / expected - 1)).toBeLessThan(0.1);
    const field = bakeSignedDistanceField(createSphereMesh(1, 32), { resolution: 40 });
    const mesh = simulation.spawn({
      shape: 'mesh',
      field,
      position: [0, 0.5, 0],
      rotation: [0, 0.38, 0, 0.92],
      scaling: 0.3,
      material: water,
    });
    // Every particle lies inside the scaled sphere placed at the position.
    for (const id of mesh) {
      const { x, y, z } = simulation.Position;
      expect(Math.hypot(x[id], y[id] - 0.5, z[id])).toBeLessThan(0.3 - 0.025 + 1e-3);
    }
    expect(Math.abs(mesh.length / expected - 1)).toBeLessThan(0.1);
    expect(() => simulation.spawn({ shape: 'sphere', center: [0, 1, 0], radius: 5, material: water })).toThrow(
      FluidCapacityError,
    );
  });
});
