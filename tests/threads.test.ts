/**
 * Threads (src/systems/parallel/): the PBF pair loops run in fixed partitions of the sorted particles that
 * worker threads share, so every thread count must give bit-identical steps, with particles created and
 * removed all the time, with neighbour lists that outgrow their array, across a snapshot, and after
 * `dispose()` ended the workers.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FluidSimulation } from '../src';
import { threadTestHooks } from '../src/systems/parallel/pool';
import { openGpuPage } from './browser/driver';
import type { BrowserThreadsResult } from './browser/threads';

/**
 * A dam break of 2,304 particles in a closed tank, with a hose adding particles and a drain removing them,
 * vorticity confinement on (every kernel of the partitioned loops runs).
 */
function damBreak(threads: number, overlapping = false): FluidSimulation {
  const simulation = new FluidSimulation({ particleRadius: 0.025, capacity: overlapping ? 7200 : 6000, threads });
  const water = simulation.addMaterial({ vorticity: 0.05 });
  simulation.addCollider({ shape: 'box', min: [0, 0, 0], max: [1.6, 1.2, 0.6], container: true });
  simulation.spawnBlock({ min: [0, 0, 0], max: [0.6, 0.8, 0.6], material: water });
  // Two more blocks shifted by half a spacing: three times the density, lists longer than the array holds.
  if (overlapping) {
    simulation.spawnBlock({ min: [0.025, 0.025, 0.025], max: [0.625, 0.825, 0.625], material: water });
    simulation.spawnBlock({ min: [0.025, 0, 0.025], max: [0.625, 0.8, 0.625], material: water });
  }
  simulation.addEmitter({ material: water, position: [1.2, 0.9, 0.3], direction: [0, -1, 0], speed: 1, rate: 600 });
  simulation.addDrain({ shape: 'sphere', center: [1.5, 0, 0.3], radius: 0.15 });
  return simulation;
}

/** Whether the particles of `a` and `b` hold exactly the same positions and velocities. */
function sameState(a: FluidSimulation, b: FluidSimulation): boolean {
  const ids = a.particles();
  const other = b.particles();
  if (ids.length !== other.length) return false;
  for (let k = 0; k < ids.length; k++) {
    const e = ids[k];
    if (other[k] !== e) return false;
    if (
      a.Position.x[e] !== b.Position.x[e] ||
      a.Position.y[e] !== b.Position.y[e] ||
      a.Position.z[e] !== b.Position.z[e]
    )
      return false;
    if (
      a.Velocity.x[e] !== b.Velocity.x[e] ||
      a.Velocity.y[e] !== b.Velocity.y[e] ||
      a.Velocity.z[e] !== b.Velocity.z[e]
    )
      return false;
  }
  return true;
}

describe('threads: the partitioned pair loops', () => {
  it('1, 2 and 3 threads step bit-identically, and the workers run partitions', () => {
    const simulations = [damBreak(1), damBreak(2), damBreak(3)];
    const workerPartitions = [0, 0, 0];
    let counts = '';
    for (let step = 0; step < 60; step++) {
      simulations.forEach((simulation, k) => {
        simulation.step();
        workerPartitions[k] += simulation.stats.workerPartitions;
      });
      if (step % 10 === 9) {
        expect(sameState(simulations[0], simulations[1]), `2 threads differ at step ${step + 1}`).toBe(true);
        expect(sameState(simulations[0], simulations[2]), `3 threads differ at step ${step + 1}`).toBe(true);
        counts += ` ${simulations[0].stats.particleCount}`;
      }
    }
    console.log(
      `threads: particle counts${counts}; partitions run by workers over 60 steps: ${workerPartitions.join(', ')} ` +
        `(threads ${simulations.map((simulation) => simulation.stats.threads).join(', ')})`,
    );
    // The hose and the drain changed the count: the plan followed.
    expect(new Set(counts.trim().split(' ')).size).toBeGreaterThan(1);
    expect(simulations.map((simulation) => simulation.stats.threads)).toEqual([1, 2, 3]);
    expect(workerPartitions[0]).toBe(0);
    // Each step runs about 60 partitioned jobs of 16 partitions: the workers took a real share.
    expect(workerPartitions[1]).toBeGreaterThan(60 * 16);
    expect(workerPartitions[2]).toBeGreaterThan(60 * 16);
    for (const simulation of simulations) simulation.dispose();
  });

  it('neighbour lists that outgrow their array give the same steps on 1 and 2 threads', () => {
    const one = damBreak(1, true);
    const two = damBreak(2, true);
    one.step();
    two.step();
    // Three times the number density: more pairs than the array's 24 per unit of capacity.
    const halfPairs = (one.stats.meanNeighbourCount * one.stats.particleCount) / 2;
    expect(halfPairs).toBeGreaterThan(24 * one.settings.capacity);
    expect(sameState(one, two)).toBe(true);
    for (let step = 0; step < 8; step++) {
      one.step();
      two.step();
    }
    expect(sameState(one, two)).toBe(true);
    expect(Number.isFinite(two.stats.maxDensityError)).toBe(true);
    one.dispose();
    two.dispose();
  });

  it('a snapshot taken on 2 threads continues bit-identically on 1 and on 3', () => {
    const reference = damBreak(2);
    for (let step = 0; step < 20; step++) reference.step();
    const saved = reference.snapshot();
    const one = FluidSimulation.fromSnapshot(saved, { threads: 1 });
    const three = FluidSimulation.fromSnapshot(saved, { threads: 3 });
    for (let step = 0; step < 20; step++) {
      reference.step();
      one.step();
      three.step();
    }
    expect(sameState(reference, one)).toBe(true);
    expect(sameState(reference, three)).toBe(true);
    expect(three.stats.threads).toBe(3);
    // The thread count is not saved: the bytes are the same whatever ran them.
    const bytes = (simulation: FluidSimulation) => Array.from(simulation.snapshot());
    expect(bytes(one)).toEqual(bytes(reference));
    for (const simulation of [reference, one, three]) simulation.dispose();
  });

  it('dispose() ends the workers; the simulation goes on alone with the same results', () => {
    const alone = damBreak(1);
    const shared = damBreak(2);
    for (let step = 0; step < 10; step++) {
      alone.step();
      shared.step();
    }
    expect(shared.stats.threads).toBe(2);
    shared.dispose();
    for (let step = 0; step < 10; step++) {
      alone.step();
      shared.step();
    }
    expect(shared.stats.threads).toBe(1);
    expect(shared.stats.workerPartitions).toBe(0);
    expect(sameState(alone, shared)).toBe(true);
    alone.dispose();
  });

  describe('small scenes with the workers started at once', () => {
    beforeAll(() => {
      threadTestHooks.minParticles = 0;
    });
    afterAll(() => {
      threadTestHooks.minParticles = 2000;
    });

    it('a 300-particle pool on 2 threads matches 1 thread over 200 steps', () => {
      const make = (threads: number) => {
        const simulation = new FluidSimulation({ particleRadius: 0.04, capacity: 600, threads });
        const water = simulation.addMaterial({});
        simulation.addCollider({ shape: 'box', min: [0, 0, 0], max: [0.6, 0.6, 0.6], container: true });
        simulation.spawnBlock({ min: [0, 0, 0], max: [0.4, 0.24, 0.4], material: water });
        return simulation;
      };
      const one = make(1);
      const two = make(2);
      let workerPartitions = 0;
      for (let step = 0; step < 200; step++) {
        one.step();
        two.step();
        workerPartitions += two.stats.workerPartitions;
      }
      expect(two.stats.threads).toBe(2);
      expect(workerPartitions).toBeGreaterThan(0);
      expect(sameState(one, two)).toBe(true);
      one.dispose();
      two.dispose();
    });
  });

  it('the threads option is checked: a count outside [1, 8] is refused by name', () => {
    expect(() => new FluidSimulation({ threads: 0 })).toThrow(/threads/);
    expect(() => new FluidSimulation({ threads: 9 })).toThrow(/threads.*\[1, 8\]|threads/);
    expect(() => new FluidSimulation({ threads: 1.5 })).toThrow(/threads/);
    expect(new FluidSimulation({ threads: 4 }).settings.threads).toBe(4);
  });
});

describe('threads in headless Chromium (the CPU backend in a page)', () => {
  it('a cross-origin isolated page shares the pair loops with web workers and steps exactly as one thread', async () => {
    const page = await openGpuPage({ crossOriginIsolated: true });
    try {
      const result = await page.run<BrowserThreadsResult>('threads', { threads: 2, steps: 30 });
      console.log(`threads, isolated page: ${JSON.stringify(result)}`);
      expect(result.isolated).toBe(true);
      expect(result.particles).toBe(2304);
      expect(result.threads).toBe(2);
      expect(result.workerPartitions).toBeGreaterThan(30 * 16);
      expect(result.same).toBe(true);
      expect(page.consoleErrors).toEqual([]);
    } finally {
      await page.close();
    }
  });

  it('a page without isolation runs on one thread, without an error, with the same results', async () => {
    const page = await openGpuPage();
    try {
      const result = await page.run<BrowserThreadsResult>('threads', { threads: 2, steps: 10 });
      console.log(`threads, page without isolation: ${JSON.stringify(result)}`);
      expect(result.isolated).toBe(false);
      expect(result.threads).toBe(1);
      expect(result.workerPartitions).toBe(0);
      expect(result.same).toBe(true);
      expect(page.consoleErrors).toEqual([]);
    } finally {
      await page.close();
    }
  });
});
