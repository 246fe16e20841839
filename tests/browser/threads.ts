/**
 * The CPU backend's worker threads in a browser page (tests/threads.test.ts): two simulations of the same
 * dam break, one asking for `reference` threads and one for `threads`, stepped in turn, and a third asking for
 * `threads` without WebAssembly. On a cross-origin isolated page (web workers over `SharedArrayBuffer`) 2 and 3
 * threads must step exactly alike, and the pair loops of the workers in WebAssembly (the threads' module on
 * its shared memory) exactly as in TypeScript; on a page without isolation all run on one thread, without an
 * error.
 */
import type { WebGPUEngine } from '@babylonjs/core/Engines/webgpuEngine.js';
import { FluidSimulation } from '../../src';

/** What the `threads` scenario reports. */
export interface BrowserThreadsResult {
  /** `globalThis.crossOriginIsolated` of the page. */
  readonly isolated: boolean;
  /** `stats.threads` of the simulation that asked for `threads`, after the last step. */
  readonly threads: number;
  /** Partitions its workers ran over all steps. */
  readonly workerPartitions: number;
  /** Particles of each simulation. */
  readonly particles: number;
  /** Whether all three hold the same positions and velocities, bit for bit, after the last step. */
  readonly same: boolean;
  /** `stats.webAssembly` of the simulation that asked for `threads`, after the last step. */
  readonly webAssembly: boolean;
  /** Whether its pair loops had the threads' module (shared memory) after the last step. */
  readonly sharedModule: boolean;
}

function damBreak(threads: number, webAssembly = true): FluidSimulation {
  const simulation = new FluidSimulation({ particleRadius: 0.025, capacity: 3000, threads, webAssembly });
  const water = simulation.addMaterial({ vorticity: 0.05 });
  simulation.addCollider({ shape: 'box', min: [0, 0, 0], max: [1.6, 1.2, 0.6], container: true });
  simulation.spawnBlock({ min: [0, 0, 0], max: [0.6, 0.8, 0.6], material: water });
  return simulation;
}

/** Steps both simulations `steps` times (the CPU backend; the engine is not used). */
export async function browserThreads(
  _engine: WebGPUEngine,
  args: { reference: number; threads: number; steps: number },
): Promise<BrowserThreadsResult> {
  const one = damBreak(args.reference);
  const many = damBreak(args.threads);
  const typescript = damBreak(args.threads, false);
  // The modules compile asynchronously on a page's thread; steps before would run the TypeScript loops.
  await Promise.all([one.ready(), many.ready()]);
  let workerPartitions = 0;
  for (let step = 0; step < args.steps; step++) {
    one.step();
    many.step();
    typescript.step();
    workerPartitions += many.stats.workerPartitions;
    // A frame's pause, as a game's frames have: a web worker starts only while the page's event loop turns.
    await new Promise((resolve) => setTimeout(resolve, 16));
  }
  let same = true;
  for (const other of [many, typescript]) {
    for (const id of one.particles()) {
      if (one.Position.x[id] !== other.Position.x[id] || one.Position.y[id] !== other.Position.y[id]) same = false;
      if (one.Position.z[id] !== other.Position.z[id] || one.Velocity.y[id] !== other.Velocity.y[id]) same = false;
    }
  }
  const result = {
    isolated: (globalThis as { crossOriginIsolated?: boolean }).crossOriginIsolated === true,
    threads: many.stats.threads,
    workerPartitions,
    particles: one.particles().length,
    same,
    webAssembly: many.stats.webAssembly,
    sharedModule: many.internalContext.cpuKernels.shared !== undefined,
  };
  one.dispose();
  many.dispose();
  typescript.dispose();
  return result;
}
