/**
 * The CPU backend's WebAssembly pair loops in a browser page (tests/wasm.test.ts): two simulations of the
 * same dam break, with `webAssembly` on (after `ready()`) and off, stepped in turn; they must end bit-identical,
 * the first having run every step in WebAssembly.
 */
import type { WebGPUEngine } from '@babylonjs/core/Engines/webgpuEngine.js';
import { FluidSimulation } from '../../src';

/** What the `webAssembly` scenario reports. */
export interface BrowserWasmResult {
  /** Steps whose `stats.webAssembly` was true, of the simulation with `webAssembly` on and the one with it off. */
  readonly stepsOn: number;
  readonly stepsOff: number;
  /** Particles of each simulation. */
  readonly particles: number;
  /** Whether both hold the same positions and velocities, bit for bit, after the last step. */
  readonly same: boolean;
}

function damBreak(webAssembly: boolean): FluidSimulation {
  const simulation = new FluidSimulation({ particleRadius: 0.025, capacity: 3000, webAssembly });
  const water = simulation.addMaterial({ vorticity: 0.05 });
  simulation.addCollider({ shape: 'box', min: [0, 0, 0], max: [1.6, 1.2, 0.6], container: true });
  simulation.spawnBlock({ min: [0, 0, 0], max: [0.6, 0.8, 0.6], material: water });
  return simulation;
}

/** Steps both simulations `steps` times (the CPU backend; the engine is not used). */
export async function browserWasm(_engine: WebGPUEngine, args: { steps: number }): Promise<BrowserWasmResult> {
  const on = damBreak(true);
  const off = damBreak(false);
  await on.ready();
  let stepsOn = 0;
  let stepsOff = 0;
  for (let step = 0; step < args.steps; step++) {
    on.step();
    off.step();
    if (on.stats.webAssembly) stepsOn++;
    if (off.stats.webAssembly) stepsOff++;
  }
  const stores = [
    [on.Position.x, off.Position.x],
    [on.Position.y, off.Position.y],
    [on.Position.z, off.Position.z],
    [on.Velocity.x, off.Velocity.x],
    [on.Velocity.y, off.Velocity.y],
    [on.Velocity.z, off.Velocity.z],
  ];
  let same = true;
  for (const id of on.particles()) for (const [a, b] of stores) if (!Object.is(a[id], b[id])) same = false;
  const result = { stepsOn, stepsOff, particles: on.particles().length, same };
  on.dispose();
  off.dispose();
  return result;
}
