/**
 * The `determinism` scenario of the WebGPU harness page: the same scene built twice on the WebGPU backend
 * and stepped the same number of frames must end bit-identical (the counting sort is stable, so no atomic
 * race orders the particles; see neighbours/sort.wgsl). Results are plain numbers for
 * tests/webgpu.test.ts to assert on.
 */
import type { WebGPUEngine } from '@babylonjs/core/Engines/webgpuEngine.js';
import type { FluidSimulationOptions } from '../../src';
import { restingPool } from '../restingPool';

/** Options of {@link gpuDeterminism}. */
export interface DeterminismOptions {
  /** Frames each run steps. */
  frames: number;
  /** `projection.freeSurface` (default true, as the simulation's). */
  freeSurface?: boolean;
}

/** Result of {@link gpuDeterminism}. */
export interface DeterminismResult {
  /** Particles in each run. */
  particles: number;
  /** Both runs hold the same particle ids. */
  sameIds: boolean;
  /** Ids the steps reported removed (`lastRemoved()`), in the first run. */
  removed: number;
  /** Both runs reported the same removed ids in the same order. */
  sameRemovals: boolean;
  /** Largest |difference| of a position or velocity component between the runs (m, m/s). */
  largestDifference: number;
  /** Particles whose position or velocity differs at all. */
  differing: number;
  /** Mean speed of the first run at the end (m/s), so a scene at rest cannot pass trivially. */
  meanSpeed: number;
}

/** Each particle's position and velocity by id, and the removed ids in the order the steps reported them. */
interface State {
  particles: Map<number, number[]>;
  removed: number[];
}

async function run(engine: WebGPUEngine, options: DeterminismOptions): Promise<State> {
  const extra: FluidSimulationOptions = { projection: { freeSurface: options.freeSurface ?? true } };
  // A 10-deep block dropped 5 cm in its box, so every particle moves and many change cells.
  const simulation = restingPool(10, 0.025, 0.05, { backend: 'webgpu', engine, ...extra });
  await simulation.ready();
  const water = simulation.materials()[0];
  const half = Math.floor(options.frames / 2);
  let drain = -1;
  const removed: number[] = [];
  for (let k = 0; k < options.frames; k++) {
    if (k === half) {
      // A drain over a corner takes 160 particles in one step: the removed particles' bucket is longer than
      // `rankParticles` ranks, so `rankBuckets` orders it, and `lastRemoved()` reports them in that order
      // (left in the atomics' order, the two runs reported different orders). Then a block is spawned.
      drain = simulation.addDrain({ min: [0, 0, 0], max: [0.2, 1, 0.2] });
    }
    if (k === half + 1) {
      simulation.removeDrain(drain);
      await simulation.readback();
      simulation.spawnBlock({ min: [0.1, 0.6, 0.1], max: [0.3, 0.8, 0.3], material: water });
    }
    simulation.step();
    removed.push(...simulation.lastRemoved());
  }
  await simulation.readback();
  const particles = new Map<number, number[]>();
  const { Position, Velocity } = simulation;
  for (const id of simulation.particles()) {
    particles.set(id, [Position.x[id], Position.y[id], Position.z[id], Velocity.x[id], Velocity.y[id], Velocity.z[id]]);
  }
  simulation.dispose();
  return { particles, removed };
}

/** Two runs of the same dropped block on the GPU, compared particle by particle (by entity id). */
export async function gpuDeterminism(engine: WebGPUEngine, options: DeterminismOptions): Promise<DeterminismResult> {
  const first = await run(engine, options);
  const second = await run(engine, options);
  let sameIds = first.particles.size === second.particles.size;
  let largestDifference = 0;
  let differing = 0;
  let speed = 0;
  for (const [id, a] of first.particles) {
    const b = second.particles.get(id);
    if (!b) {
      sameIds = false;
      continue;
    }
    let differs = false;
    for (let c = 0; c < 6; c++) {
      const d = Math.abs(a[c] - b[c]);
      if (!(d === 0)) differs = true;
      largestDifference = Math.max(largestDifference, Number.isNaN(d) ? Infinity : d);
    }
    if (differs) differing++;
    speed += Math.hypot(a[3], a[4], a[5]);
  }
  const sameRemovals = first.removed.join() === second.removed.join();
  return {
    particles: first.particles.size,
    sameIds,
    removed: first.removed.length,
    sameRemovals,
    largestDifference,
    differing,
    meanSpeed: speed / first.particles.size,
  };
}
