/**
 * White water on the WebGPU backend against the CPU reference (diffuse/diffuse.wgsl against diffuse/cpu.ts),
 * for tests/webgpu.test.ts: the dam break of tests/diffuse.test.ts at r = 3 cm run on the CPU to its first
 * impact, saved, and restored into a CPU and a WebGPU simulation (the same state, rounded to float32 on the GPU,
 * the same step count and so the same random numbers); both step in lockstep, the GPU read back after every
 * step. Per step: what each generated, dropped and deleted, and its live spray, foam and bubbles; at the end the
 * GPU's diffuse particles (mirrored by the readback) outside the tank or not finite; then the GPU restored to
 * the saved state and stepped once (its pool emptied by the restore), and the same impact with room for 64
 * diffuse particles on the GPU (drops at the capacity).
 */
import type { WebGPUEngine } from '@babylonjs/core/Engines/webgpuEngine.js';
import { FluidSimulation } from '../../src';

/** One backend's white-water figures after one step. */
export interface DiffuseStepFigures {
  generated: number;
  dropped: number;
  removed: number;
  spray: number;
  foam: number;
  bubble: number;
}

/** Result of {@link diffuseParity}. */
export interface DiffuseParityResult {
  backend: string;
  particles: number;
  cpu: DiffuseStepFigures[];
  gpu: DiffuseStepFigures[];
  /** Diffuse particles the GPU's pool holds at the end (mirrored), and of them outside the tank or not finite. */
  gpuMirrored: number;
  gpuOutside: number;
  /** After `restore(saved)` on the GPU and one step: the diffuse particles mirrored, and generated in that step. */
  restoredMirrored: number;
  restoredGenerated: number;
  /** The impact with room for 64 diffuse particles, 6 steps on the GPU: the most mirrored, and the drops. */
  smallPoolMirrored: number;
  smallPoolDropped: number;
}

const TANK_MAX: [number, number, number] = [3, 1.5, 0.8];

function figures(simulation: FluidSimulation): DiffuseStepFigures {
  const s = simulation.stats;
  return {
    generated: s.diffuseGeneratedCount,
    dropped: s.diffuseDroppedCount,
    removed: s.diffuseRemovedCount,
    spray: s.diffuseSprayCount,
    foam: s.diffuseFoamCount,
    bubble: s.diffuseBubbleCount,
  };
}

/** The dam break run on the CPU to its first impact (frame 36), with room for `capacity` diffuse particles, saved. */
function damBreakAtImpact(capacity: number): Uint8Array {
  const source = new FluidSimulation({ particleRadius: 0.03, capacity: 4000, diffuse: { capacity } });
  const water = source.addMaterial({});
  source.addCollider({ shape: 'box', min: [0, 0, 0], max: TANK_MAX, container: true });
  source.spawnBlock({ min: [0, 0, 0], max: [0.8, 1.0, 0.8], material: water });
  // The front reaches the far wall at about frame 35.
  for (let frame = 0; frame < 36; frame++) source.step();
  const saved = source.snapshot();
  source.dispose();
  return saved;
}

/** See the file comment; `steps` lockstep steps after the restore (default 4). */
export async function diffuseParity(engine: WebGPUEngine, steps = 4): Promise<DiffuseParityResult> {
  const saved = damBreakAtImpact(20000);
  const cpu = FluidSimulation.fromSnapshot(saved);
  const gpu = FluidSimulation.fromSnapshot(saved, { backend: 'webgpu', engine, mirror: 'off' });
  await gpu.ready();
  const result: DiffuseParityResult = {
    backend: gpu.backend,
    particles: cpu.particleCount,
    cpu: [],
    gpu: [],
    gpuMirrored: 0,
    gpuOutside: 0,
    restoredMirrored: 0,
    restoredGenerated: 0,
    smallPoolMirrored: 0,
    smallPoolDropped: 0,
  };
  for (let step = 0; step < steps; step++) {
    cpu.step();
    gpu.step();
    await gpu.readback();
    result.cpu.push(figures(cpu));
    result.gpu.push(figures(gpu));
  }
  const pool = gpu.diffuseParticles;
  result.gpuMirrored = pool.count;
  for (let d = 0; d < pool.count; d++) {
    const position = [pool.positionX[d], pool.positionY[d], pool.positionZ[d]];
    const inside = position.every((value, axis) => value >= -1e-4 && value <= TANK_MAX[axis] + 1e-4);
    if (!inside || !Number.isFinite(pool.velocityX[d] + pool.velocityY[d] + pool.velocityZ[d])) result.gpuOutside++;
  }
  // A restore empties the GPU's pool too: after one step it holds only what that step made.
  gpu.restore(saved);
  gpu.step();
  await gpu.readback();
  result.restoredMirrored = gpu.diffuseParticles.count;
  result.restoredGenerated = gpu.stats.diffuseGeneratedCount;
  cpu.dispose();
  gpu.dispose();
  // At the capacity new diffuse particles are dropped: the same impact with room for 64.
  const small = FluidSimulation.fromSnapshot(damBreakAtImpact(64), { backend: 'webgpu', engine, mirror: 'off' });
  await small.ready();
  for (let frame = 0; frame < 6; frame++) {
    small.step();
    await small.readback();
    result.smallPoolMirrored = Math.max(result.smallPoolMirrored, small.diffuseParticles.count);
    result.smallPoolDropped += small.stats.diffuseDroppedCount;
  }
  small.dispose();
  return result;
}
