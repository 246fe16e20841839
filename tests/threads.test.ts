/**
 * Threads (src/systems/parallel/): with more than one thread the PBF pair loops run in fixed partitions of
 * the sorted particles that worker threads share, so every thread count from 2 up must give bit-identical
 * steps, with particles created and removed all the time, with neighbour lists that outgrow their array,
 * across a snapshot, and after `dispose()` ended the workers; and the partitions must make the one-thread
 * loops' sums, but for their order (rounding).
 */
import { availableParallelism } from 'node:os';
import type { AbstractEngine } from '@babylonjs/core/Engines/abstractEngine.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FluidSimulation } from '../src';
import type { SimulationContext } from '../src/systems/context';
import { computeCorrections, computeLambda } from '../src/systems/density/cpu';
import { applyCorrections } from '../src/systems/density/shared';
import { gatherSystem } from '../src/systems/gather';
import { neighbourSystem } from '../src/systems/neighbours/cpu';
import { hardwareThreads, THREADS_MIN_PARTICLES, threadTestHooks } from '../src/systems/parallel/pool';
import { resolveSimulationOptions } from '../src/systems/settings';
import { openGpuPage } from './browser/driver';
import type { BrowserThreadsResult } from './browser/threads';
import { nodeStartsWorkers } from './helpers';

/**
 * A dam break of 2,304 particles in a closed tank, with a hose adding particles and a drain removing them,
 * vorticity confinement on (every kernel of the partitioned loops runs). In TypeScript only: with the
 * WebAssembly module the neighbour lists of every thread count come from its one-thread search, and these
 * tests are about the partitions' own kernels (tests/wasm.test.ts runs two threads with the module).
 */
function damBreak(threads: number, overlapping = false): FluidSimulation {
  const simulation = new FluidSimulation({
    particleRadius: 0.025,
    capacity: overlapping ? 7200 : 6000,
    threads,
    webAssembly: false,
  });
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

/** The private context of a simulation (for checks of one system on the solver's arrays). */
function contextOf(simulation: FluidSimulation): SimulationContext {
  return (simulation as unknown as { context: SimulationContext }).context;
}

/** The largest difference of a position or velocity component between the particles of `a` and `b`. */
function largestDifference(a: FluidSimulation, b: FluidSimulation): number {
  let largest = 0;
  for (const e of a.particles()) {
    largest = Math.max(
      largest,
      Math.abs(a.Position.x[e] - b.Position.x[e]),
      Math.abs(a.Position.y[e] - b.Position.y[e]),
      Math.abs(a.Position.z[e] - b.Position.z[e]),
      Math.abs(a.Velocity.x[e] - b.Velocity.x[e]),
      Math.abs(a.Velocity.y[e] - b.Velocity.y[e]),
      Math.abs(a.Velocity.z[e] - b.Velocity.z[e]),
    );
  }
  return largest;
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
  it('the partitions make the one-thread sums: 2 threads agree with 1 to rounding after the first steps', () => {
    const one = damBreak(1);
    const two = damBreak(2);
    for (let step = 0; step < 2; step++) {
      one.step();
      two.step();
    }
    // The same terms summed in another order: differences of a few ulps (the flow is chaotic, so they grow
    // later: about 2e-8 m after 32 steps, millimetres after 64).
    const difference = largestDifference(one, two);
    console.log(`threads: 1 against 2 threads after 2 steps, largest difference ${difference.toExponential(2)}`);
    expect(difference).toBeGreaterThan(0);
    expect(difference).toBeLessThan(1e-12);
    one.dispose();
    two.dispose();
  });

  it('2 and 3 threads step bit-identically, and the workers run partitions', () => {
    const simulations = [damBreak(2), damBreak(3)];
    const workerPartitions = [0, 0];
    let counts = '';
    for (let step = 0; step < 60; step++) {
      simulations.forEach((simulation, k) => {
        simulation.step();
        workerPartitions[k] += simulation.stats.workerPartitions;
      });
      if (step % 10 === 9) {
        expect(sameState(simulations[0], simulations[1]), `3 threads differ at step ${step + 1}`).toBe(true);
        counts += ` ${simulations[0].stats.particleCount}`;
      }
    }
    console.log(
      `threads: particle counts${counts}; partitions run by workers over 60 steps: ${workerPartitions.join(', ')} ` +
        `(threads ${simulations.map((simulation) => simulation.stats.threads).join(', ')})`,
    );
    // The hose and the drain changed the count: the plan followed.
    expect(new Set(counts.trim().split(' ')).size).toBeGreaterThan(1);
    expect(simulations.map((simulation) => simulation.stats.threads)).toEqual([2, 3]);
    // Each step runs about 60 partitioned jobs of 16 partitions: the workers took a real share.
    expect(workerPartitions[0]).toBeGreaterThan(60 * 16);
    expect(workerPartitions[1]).toBeGreaterThan(60 * 16);
    for (const simulation of simulations) simulation.dispose();
  });

  it('neighbour lists that outgrow their array: 2 and 3 threads step alike', () => {
    const two = damBreak(2, true);
    const three = damBreak(3, true);
    for (const simulation of [two, three]) simulation.step();
    // Three times the number density: more pairs than the array's 24 per unit of capacity.
    const halfPairs = (two.stats.meanNeighbourCount * two.stats.particleCount) / 2;
    expect(halfPairs).toBeGreaterThan(24 * two.settings.capacity);
    expect(sameState(two, three)).toBe(true);
    for (let step = 0; step < 8; step++) {
      two.step();
      three.step();
    }
    expect(sameState(two, three)).toBe(true);
    expect(Number.isFinite(two.stats.maxDensityError)).toBe(true);
    for (const simulation of [two, three]) simulation.dispose();
  });

  it('on the same state the partition kernels make the one-thread sums: lists, lambda, corrections, 3 iterations', () => {
    // The triple-dense blocks (68 neighbours a particle, every constraint violated, corrections clamped): the
    // steps of such a scene part after a step (a contact flag or a clamp flips on a rounding difference), so
    // the kernels are compared pass by pass, here, on one state.
    const one = contextOf(damBreak(1, true));
    const two = contextOf(damBreak(2, true));
    for (const ctx of [one, two]) {
      gatherSystem(ctx);
      const s = ctx.solver;
      s.predictedX.set(s.positionX);
      s.predictedY.set(s.positionY);
      s.predictedZ.set(s.positionZ);
      neighbourSystem(ctx);
    }
    const a = one.solver;
    const b = two.solver;
    const n = a.count;
    const largest = (x: Float64Array, y: Float64Array, scale: number) => {
      let d = 0;
      for (let i = 0; i < n; i++) d = Math.max(d, Math.abs(x[i] - y[i]) / scale);
      return d;
    };
    // The same sorted particles and the same half lists, entry for entry.
    expect(Array.from(b.entity.subarray(0, n))).toEqual(Array.from(a.entity.subarray(0, n)));
    expect(Array.from(b.neighbourStart.subarray(0, n + 1))).toEqual(Array.from(a.neighbourStart.subarray(0, n + 1)));
    const pairs = a.neighbourStart[n];
    expect(Array.from(b.neighbours.subarray(0, pairs))).toEqual(Array.from(a.neighbours.subarray(0, pairs)));
    expect(Array.from(b.neighbourCount.subarray(0, n))).toEqual(Array.from(a.neighbourCount.subarray(0, n)));
    const figures: string[] = [];
    for (let iteration = 0; iteration < 3; iteration++) {
      computeLambda(one);
      computeLambda(two);
      const density = largest(a.density, b.density, 1000);
      const lambda = largest(a.lambda, b.lambda, 1e-4);
      computeCorrections(one);
      computeCorrections(two);
      const delta = Math.max(
        largest(a.deltaX, b.deltaX, 1),
        largest(a.deltaY, b.deltaY, 1),
        largest(a.deltaZ, b.deltaZ, 1),
      );
      applyCorrections(one);
      applyCorrections(two);
      figures.push(`${density.toExponential(1)} ${lambda.toExponential(1)} ${delta.toExponential(1)}`);
      // Relative to water's density, to lambda's scale (1e-4 m^2 here) and in metres: rounding, which this
      // compressed state amplifies a few times per iteration, far below any physical change.
      expect(density).toBeLessThan(1e-12);
      expect(lambda).toBeLessThan(1e-10);
      expect(delta).toBeLessThan(1e-12);
    }
    console.log(`threads: density, lambda and correction differences per iteration: ${figures.join('; ')}`);
  });

  it('a snapshot taken on 2 threads continues bit-identically on 3, and its bytes do not hold the count', () => {
    const reference = damBreak(2);
    for (let step = 0; step < 20; step++) reference.step();
    const saved = reference.snapshot();
    const two = FluidSimulation.fromSnapshot(saved, { threads: 2 });
    const three = FluidSimulation.fromSnapshot(saved, { threads: 3 });
    for (let step = 0; step < 20; step++) {
      reference.step();
      two.step();
      three.step();
    }
    expect(sameState(reference, two)).toBe(true);
    expect(sameState(reference, three)).toBe(true);
    expect(three.stats.threads).toBe(3);
    // The thread count is not saved: the bytes are the same whatever ran them.
    const bytes = (simulation: FluidSimulation) => Array.from(simulation.snapshot());
    expect(bytes(three)).toEqual(bytes(reference));
    for (const simulation of [reference, two, three]) simulation.dispose();
  });

  it('dispose() ends the workers; the simulation goes on alone with the same results', () => {
    const alone = damBreak(3);
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
      threadTestHooks.minParticles = THREADS_MIN_PARTICLES;
    });

    it('a 300-particle pool on 2 threads matches 3 threads over 200 steps', () => {
      const make = (threads: number) => {
        const simulation = new FluidSimulation({ particleRadius: 0.04, capacity: 600, threads });
        const water = simulation.addMaterial({});
        simulation.addCollider({ shape: 'box', min: [0, 0, 0], max: [0.6, 0.6, 0.6], container: true });
        simulation.spawnBlock({ min: [0, 0, 0], max: [0.4, 0.24, 0.4], material: water });
        return simulation;
      };
      const three = make(3);
      const two = make(2);
      let workerPartitions = 0;
      for (let step = 0; step < 200; step++) {
        three.step();
        two.step();
        workerPartitions += two.stats.workerPartitions;
      }
      expect(two.stats.threads).toBe(2);
      expect(workerPartitions).toBeGreaterThan(0);
      expect(sameState(three, two)).toBe(true);
      three.dispose();
      two.dispose();
    });
  });

  it('the threads option is checked: a count outside [1, 8] is refused by name; unset, the hardware threads, at most 2', () => {
    expect(() => new FluidSimulation({ threads: 0 })).toThrow(/threads/);
    expect(() => new FluidSimulation({ threads: 9 })).toThrow(/threads.*\[1, 8\]|threads/);
    expect(() => new FluidSimulation({ threads: 1.5 })).toThrow(/threads/);
    expect(new FluidSimulation({ threads: 4 }).settings.threads).toBe(4);
    // The default: the hardware threads, at most 2, where a worker can start (a Node without
    // process.getBuiltinModule starts none, and defaults to 1).
    const byDefault = (hardware: number) => (nodeStartsWorkers ? Math.min(2, hardware) : 1);
    expect(new FluidSimulation({}).settings.threads).toBe(byDefault(availableParallelism()));
    // A browser's count (navigator.hardwareConcurrency) comes first: one core gives one thread, twelve give two.
    const had = Object.getOwnPropertyDescriptor(globalThis, 'navigator');
    try {
      for (const [hardwareConcurrency, threads] of [
        [1, 1],
        [2, 2],
        [12, 2],
      ]) {
        Object.defineProperty(globalThis, 'navigator', { value: { hardwareConcurrency }, configurable: true });
        expect(hardwareThreads()).toBe(hardwareConcurrency);
        expect(new FluidSimulation({}).settings.threads).toBe(byDefault(threads));
      }
    } finally {
      if (had) Object.defineProperty(globalThis, 'navigator', had);
      else Reflect.deleteProperty(globalThis, 'navigator');
    }
    // On WebGPU the loops run on the GPU: one thread unless asked (an engine that reports compute shaders).
    const engine = { isWebGPU: true, getCaps: () => ({ supportComputeShaders: true }) } as unknown as AbstractEngine;
    expect(resolveSimulationOptions({ backend: 'webgpu', engine }).settings.threads).toBe(1);
    expect(resolveSimulationOptions({ backend: 'auto', engine }).settings.threads).toBe(1);
    expect(resolveSimulationOptions({ backend: 'webgpu', engine, threads: 2 }).settings.threads).toBe(2);
    expect(resolveSimulationOptions({ backend: 'auto' }).settings.threads).toBe(byDefault(availableParallelism()));
  });
});

describe('threads in headless Chromium (the CPU backend in a page)', () => {
  it('a cross-origin isolated page shares the pair loops with web workers, in WebAssembly: 3 threads step as 2 and as the TypeScript', async () => {
    const page = await openGpuPage({ crossOriginIsolated: true });
    try {
      const result = await page.run<BrowserThreadsResult>('threads', { reference: 2, threads: 3, steps: 30 });
      console.log(`threads, isolated page: ${JSON.stringify(result)}`);
      expect(result.isolated).toBe(true);
      expect(result.particles).toBe(2304);
      expect(result.threads).toBe(3);
      expect(result.workerPartitions).toBeGreaterThan(30 * 16);
      expect(result.webAssembly).toBe(true);
      expect(result.sharedModule).toBe(true);
      expect(result.same).toBe(true);
      expect(page.consoleErrors).toEqual([]);
    } finally {
      await page.close();
    }
  });

  it('a page without isolation runs on one thread, without an error, with the same results', async () => {
    const page = await openGpuPage();
    try {
      const result = await page.run<BrowserThreadsResult>('threads', { reference: 1, threads: 2, steps: 10 });
      console.log(`threads, page without isolation: ${JSON.stringify(result)}`);
      expect(result.isolated).toBe(false);
      expect(result.threads).toBe(1);
      expect(result.workerPartitions).toBe(0);
      expect(result.webAssembly).toBe(true);
      expect(result.sharedModule).toBe(false);
      expect(result.same).toBe(true);
      expect(page.consoleErrors).toEqual([]);
    } finally {
      await page.close();
    }
  });
});
