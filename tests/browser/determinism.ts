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
  /** `projection: { freeSurface: true }` instead of the defaults. */
  freeSurface?: boolean;
}

/** Result of {@link gpuDeterminism}. */
export interface DeterminismResult {
  /** Particles in each run. */
  particles: number;
  /** Both runs hold the same particle ids. */
  sameIds: boolean;
  /** Largest |difference| of a position or velocity component between the runs (m, m/s). */
  largestDifference: number;
  /** Particles whose position or velocity differs at all. */
  differing: number;
  /** Mean speed of the first run at the end (m/s), so a scene at rest cannot pass trivially. */
  meanSpeed: number;
}

type State = Map<number, number[]>;

async function run(engine: WebGPUEngine, options: DeterminismOptions): Promise<State> {
  const extra: FluidSimulationOptions = options.freeSurface ? { projection: { freeSurface: true } } : {};
  // A 10-deep block dropped 5 cm in its box, so every particle moves and many change cells.
  const simulation = restingPool(10, 0.025, 0.05, { backend: 'webgpu', engine, ...extra });
  await simulation.ready();
  for (let k = 0; k < options.frames; k++) simulation.step();
  await simulation.readback();
  const state: State = new Map();
  const { Position, Velocity } = simulation;
  for (const id of simulation.particles()) {
    state.set(id, [Position.x[id], Position.y[id], Position.z[id], Velocity.x[id], Velocity.y[id], Velocity.z[id]]);
  }
  simulation.dispose();
  return state;
}

/** Two runs of the same dropped block on the GPU, compared particle by particle (by entity id). */
export async function gpuDeterminism(engine: WebGPUEngine, options: DeterminismOptions): Promise<DeterminismResult> {
  const first = await run(engine, options);
  const second = await run(engine, options);
  let sameIds = first.size === second.size;
  let largestDifference = 0;
  let differing = 0;
  let speed = 0;
  for (const [id, a] of first) {
    const b = second.get(id);
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
  return { particles: first.size, sameIds, largestDifference, differing, meanSpeed: speed / first.size };
}
