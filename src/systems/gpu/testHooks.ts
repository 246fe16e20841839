/**
 * The WebGPU solver's hooks for the parity tests and the benchmark (gpu/backend.ts: `stepUntil`,
 * `readBuffer`, `profileStep`): recording a step only up to a named pass, reading a buffer back at once,
 * timing every pass of a step by waiting for the GPU after each, and choosing the neighbour mode and the adapter
 * the passes are sized for.
 */
import type { StorageBuffer } from '@babylonjs/core/Buffers/storageBuffer.js';
import type { WebGPUEngine } from '@babylonjs/core/Engines/webgpuEngine.js';
import type { AdapterDescription } from './buffers';
import { dispatchPass, type Pass } from './compile';
import type { NeighbourMode } from './shaderSource';

/**
 * @internal For the tests: when `mode` is set, every WebGPU solver created from then on takes it instead of
 * the mode its device's limits give (tests/browser/neighbours.ts compares the two).
 */
export const neighbourModeForTests: { mode: NeighbourMode | undefined } = { mode: undefined };

/**
 * @internal For the tests: when `description` is set, every WebGPU solver created from then on sizes its passes
 * for that adapter instead of its own (tests/browser/projection.ts runs the projection as on a GPU: the solve's
 * 256 threads, the cell passes over the largest grid).
 */
export const adapterForTests: { description: AdapterDescription | undefined } = { description: undefined };

/**
 * Dispatches `passes` in order up to and including the `occurrence`-th pass named `stopAfter` (1 = its
 * first run); throws when the step has no such pass. A step cut between the projection's `carry` and `plan`
 * leaves the bounds `carry` gathered for the next step's (`plan` empties them, projection/grid.wgsl).
 */
export function dispatchUntil(passes: readonly Pass[], stopAfter: string, occurrence: number): void {
  let seen = 0;
  for (const pass of passes) {
    dispatchPass(pass);
    if (pass.name === stopAfter && ++seen === occurrence) return;
  }
  throw new Error(`no pass ${stopAfter} (occurrence ${occurrence}) in the step`);
}

/** The first `bytes` of `buffer`, read back now (a copy). */
export async function readBufferBytes(buffer: StorageBuffer, bytes: number): Promise<ArrayBuffer> {
  const view = await buffer.read(0, bytes, undefined, true);
  return view.buffer.slice(view.byteOffset, view.byteOffset + bytes) as ArrayBuffer;
}

/**
 * Submits what `engine` recorded, waits for it, then dispatches the passes `passes` returns, each submitted
 * and waited for: milliseconds per pass name (the scan levels as `scan`; summed over substeps and iterations).
 */
export async function profilePasses(
  engine: WebGPUEngine,
  passes: () => readonly Pass[],
): Promise<Record<string, number>> {
  const device = engine._device;
  const times: Record<string, number> = {};
  engine.flushFramebuffer();
  await device.queue.onSubmittedWorkDone();
  for (const pass of passes()) {
    const start = performance.now();
    dispatchPass(pass);
    engine.flushFramebuffer();
    await device.queue.onSubmittedWorkDone();
    const name = pass.name.startsWith('scan') ? 'scan' : pass.name;
    times[name] = (times[name] ?? 0) + performance.now() - start;
  }
  return times;
}
