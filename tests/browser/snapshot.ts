/**
 * The `snapshot` scenario of the WebGPU harness page: save and load across backends. A scene runs on the
 * WebGPU backend; its snapshot (after a readback) is restored on the CPU and compared with the GPU's
 * read-back components, then both take one step from that state and are compared again; a snapshot of the
 * CPU simulation is then restored into the running GPU simulation (which has stepped on meanwhile), and
 * both take one more step. Results are plain numbers for tests/snapshot.test.ts to assert on.
 */
import type { WebGPUEngine } from '@babylonjs/core/Engines/webgpuEngine.js';
import { bakeSignedDistanceField, createBoxMesh, FluidSimulation } from '../../src';
import { gatherSceneSystem } from '../../src/systems/gather';
import { ParticleInfo } from '../../src/systems/gpu/structs';

/** Two simulations compared particle by particle (by entity id). */
export interface StateComparison {
  /** Both have exactly the same live particle ids. */
  sameIds: boolean;
  /** Largest |difference| of a position component (m). */
  largestPositionDifference: number;
  /** Largest |difference| of a velocity component (m/s). */
  largestVelocityDifference: number;
  /** Largest |difference| of any particle component value (position, velocity, density, age, lifetime, material). */
  largestDifference: number;
  /** Particles the emitter added in the compared step (on the GPU simulation). */
  emitted: number;
}

/** The GPU's particle buffers right after the upload of a restored state, against the CPU's components. */
export interface UploadComparison {
  /** The GPU holds exactly the CPU's particle ids. */
  sameIds: boolean;
  /** Largest |gpu - cpu| / |cpu| over positions, velocities, ages and lifetimes (float32 rounding: <= 2^-24). */
  largestRelativeDifference: number;
  /** Every particle has its material's slot on the GPU. */
  materialsMatch: boolean;
}

/** Result of {@link snapshotAcrossBackends}. */
export interface SnapshotScenarioResult {
  /** Particles when the GPU snapshot was taken. */
  particles: number;
  /** The GPU snapshot restored on the CPU against the GPU's read-back components. */
  gpuToCpu: StateComparison;
  /** After one step of each from that state. */
  gpuToCpuStep: StateComparison;
  /** The CPU's snapshot restored into the running GPU simulation: the GPU's buffers after the upload. */
  cpuToGpu: UploadComparison;
  /** The CPU's snapshot restored into the running GPU simulation, after one step of each. */
  cpuToGpuStep: StateComparison;
  /** The message of the FluidError a restore threw while a readback was in flight. */
  inFlightError: string;
  /** Non-finite positions in the final states. */
  nonFinite: number;
}

function buildScene(backend: 'cpu' | 'webgpu', engine: WebGPUEngine): FluidSimulation {
  const simulation = new FluidSimulation({
    particleRadius: 0.025,
    capacity: 2048,
    backend,
    engine,
    mirror: 'on-demand',
    projection: false,
  });
  const water = simulation.addMaterial({});
  const oil = simulation.addMaterial({ restDensity: 800, viscosity: 0.05 });
  simulation.addCollider({ shape: 'box', min: [0, 0, 0], max: [0.8, 0.8, 0.4], container: true, friction: 0.1 });
  const field = bakeSignedDistanceField(createBoxMesh([-0.05, -0.05, -0.05], [0.05, 0.05, 0.05]), { resolution: 12 });
  const crate = simulation.addCollider({ shape: 'mesh', field });
  simulation.setColliderTransform(crate, { position: [0.6, 0.06, 0.2], rotation: [0, 0.2, 0, 0.98], teleport: true });
  simulation.spawnBlock({ min: [0, 0, 0], max: [0.4, 0.3, 0.3], material: water });
  simulation.addEmitter({ material: oil, position: [0.5, 0.6, 0.2], spread: 0.3, rate: 600, speed: 1 });
  return simulation;
}

function compare(a: FluidSimulation, b: FluidSimulation): StateComparison {
  const idsA = Array.from(a.particles()).sort((x, y) => x - y);
  const idsB = Array.from(b.particles()).sort((x, y) => x - y);
  const sameIds = idsA.length === idsB.length && idsA.every((eid, k) => eid === idsB[k]);
  let largestPositionDifference = 0;
  let largestVelocityDifference = 0;
  let largestDifference = 0;
  const ca = a.components;
  const cb = b.components;
  for (const eid of idsA) {
    if (!b.isParticle(eid)) continue;
    for (const axis of ['x', 'y', 'z'] as const) {
      const position = Math.abs(ca.Position[axis][eid] - cb.Position[axis][eid]);
      const velocity = Math.abs(ca.Velocity[axis][eid] - cb.Velocity[axis][eid]);
      largestPositionDifference = Math.max(largestPositionDifference, position);
      largestVelocityDifference = Math.max(largestVelocityDifference, velocity);
      largestDifference = Math.max(largestDifference, position, velocity);
    }
    largestDifference = Math.max(
      largestDifference,
      Math.abs(ca.Density[eid] - cb.Density[eid]),
      Math.abs(ca.Particle.age[eid] - cb.Particle.age[eid]),
      Math.abs(ca.Particle.lifetime[eid] - cb.Particle.lifetime[eid]),
      Math.abs(ca.Particle.material[eid] - cb.Particle.material[eid]),
    );
  }
  return {
    sameIds,
    largestPositionDifference,
    largestVelocityDifference,
    largestDifference,
    emitted: a.stats.emittedCount,
  };
}

/**
 * Uploads a restored GPU simulation's particles (the first passes of a step, up to `append`) and compares
 * the GPU's position, velocity and bookkeeping buffers with the CPU simulation's components.
 */
async function compareUpload(gpu: FluidSimulation, cpu: FluidSimulation): Promise<UploadComparison> {
  const solver = gpu.gpuSolver;
  if (!solver) throw new Error('the GPU simulation has no GPU solver');
  gatherSceneSystem(gpu.internalContext);
  solver.stepUntil('append');
  const n = gpu.particleCount;
  const position = new Float32Array(await solver.readBuffer('position', n * 16));
  const velocity = new Float32Array(await solver.readBuffer('velocity', n * 16));
  const infoBytes = await solver.readBuffer('info', n * ParticleInfo.size);
  const info = new Uint32Array(infoBytes);
  const infoFloat = new Float32Array(infoBytes);
  const words = ParticleInfo.size / 4;
  const c = cpu.components;
  const slotOf = cpu.internalContext.materials.slotOfEntity;
  const seen = new Set<number>();
  let largestRelativeDifference = 0;
  let materialsMatch = true;
  const relative = (gpuValue: number, cpuValue: number): number =>
    cpuValue === 0 ? Math.abs(gpuValue) : Math.abs(gpuValue - cpuValue) / Math.abs(cpuValue);
  for (let k = 0; k < n; k++) {
    const eid = info[k * words + ParticleInfo.offsets.entity / 4];
    seen.add(eid);
    if (!cpu.isParticle(eid)) continue;
    const axes = ['x', 'y', 'z'] as const;
    for (let axis = 0; axis < 3; axis++) {
      largestRelativeDifference = Math.max(
        largestRelativeDifference,
        relative(position[4 * k + axis], c.Position[axes[axis]][eid]),
        relative(velocity[4 * k + axis], c.Velocity[axes[axis]][eid]),
      );
    }
    largestRelativeDifference = Math.max(
      largestRelativeDifference,
      relative(infoFloat[k * words + ParticleInfo.offsets.age / 4], c.Particle.age[eid]),
      relative(infoFloat[k * words + ParticleInfo.offsets.lifetime / 4], c.Particle.lifetime[eid]),
    );
    if (info[k * words + ParticleInfo.offsets.material / 4] !== slotOf[c.Particle.material[eid]]) {
      materialsMatch = false;
    }
  }
  const sameIds = seen.size === cpu.particleCount && Array.from(cpu.particles()).every((eid) => seen.has(eid));
  return { sameIds, largestRelativeDifference, materialsMatch };
}

function nonFinite(simulation: FluidSimulation): number {
  let count = 0;
  const { x, y, z } = simulation.Position;
  for (const eid of simulation.particles()) if (!Number.isFinite(x[eid] + y[eid] + z[eid])) count++;
  return count;
}

/** Save on the GPU and load on the CPU, and the other way round (see the file's description). */
export async function snapshotAcrossBackends(engine: WebGPUEngine): Promise<SnapshotScenarioResult> {
  const gpu = buildScene('webgpu', engine);
  await gpu.ready();
  for (let frame = 0; frame < 15; frame++) gpu.step();
  await gpu.readback();
  const fromGpu = gpu.snapshot();
  const cpu = FluidSimulation.fromSnapshot(fromGpu);
  const particles = cpu.particleCount;
  const gpuToCpu = compare(gpu, cpu);

  gpu.step();
  await gpu.readback();
  cpu.step();
  const gpuToCpuStep = compare(gpu, cpu);

  // The GPU simulation steps on; the CPU's state is then restored into it.
  const fromCpu = cpu.snapshot();
  for (let frame = 0; frame < 5; frame++) gpu.step();
  let inFlightError = '';
  try {
    gpu.restore(fromCpu);
  } catch (error) {
    inFlightError = `${(error as Error).name}: ${(error as Error).message}`;
  }
  await gpu.readback();
  gpu.restore(fromCpu);
  const cpuToGpu = await compareUpload(gpu, cpu);
  // That upload was a partial step: restore again, and take a whole step on both.
  gpu.restore(fromCpu);
  gpu.step();
  await gpu.readback();
  cpu.step();
  const cpuToGpuStep = compare(gpu, cpu);
  const result: SnapshotScenarioResult = {
    particles,
    gpuToCpu,
    gpuToCpuStep,
    cpuToGpu,
    cpuToGpuStep,
    inFlightError,
    nonFinite: nonFinite(gpu) + nonFinite(cpu),
  };
  gpu.dispose();
  return result;
}
