/**
 * WCSPH parity scenario of the WebGPU backend against the CPU reference (run in the harness page,
 * gpu.html): the same small scene (210 particles falling into a box tank with a sphere) built on both
 * backends with the same calls, so the same entity ids, stepped in lockstep with a readback after every
 * step (the GPU plans each step's substeps from the mirrored velocities, which are then current).
 */
import type { WebGPUEngine } from '@babylonjs/core/Engines/webgpuEngine.js';
import { FluidSimulation } from '../../src';

/** Per step, the two backends compared. */
export interface SphParityStep {
  /** Substeps each backend used. */
  substepsCpu: number;
  substepsGpu: number;
  /** Largest position difference over the particles (m). */
  maxPositionDifference: number;
  /** Largest velocity difference (m/s). */
  maxVelocityDifference: number;
  /** Largest density difference relative to 1000 kg/m^3. */
  maxDensityDifference: number;
  /** Largest temperature difference (K). */
  maxTemperatureDifference: number;
  /** `stats.meanNeighbourCount` and `stats.meanDensityError` of each backend (the errors differ by definition, see the test). */
  neighboursCpu: number;
  neighboursGpu: number;
  densityErrorCpu: number;
  densityErrorGpu: number;
  /** Mean height of the particles on each backend (m). */
  meanHeightCpu: number;
  meanHeightGpu: number;
  /** The particle with the largest position difference: [cpu x y z vx vy vz rho, gpu ...]. */
  worst: number[];
  /** Largest drift |v| dt of the step's last substep on the CPU, over the particle radius. */
  maxDriftOverRadius: number;
}

/** Result of {@link sphParity}. */
export interface SphParityResult {
  particles: number;
  backend: string;
  /** Largest change of a particle's temperature over the steps on the CPU (K). */
  temperatureChange: number;
  steps: SphParityStep[];
  nonFinite: number;
  outside: number;
}

function scene(backend: 'cpu' | 'webgpu', engine: WebGPUEngine, args: SphParityOptions): FluidSimulation {
  const simulation = new FluidSimulation({
    particleRadius: 0.025,
    capacity: 400,
    backend,
    engine,
    solver: 'sph',
    substeps: args.substeps,
    timeStep: args.timeStep,
    gravity: args.gravity,
    sph: { maxSubsteps: args.maxSubsteps, speedOfSound: args.speedOfSound, courantNumber: args.courantNumber },
  });
  // Several fluids (`fluids`): water and a lighter oil with the number-density estimate, their own
  // viscosities (eq. 9), interface tension (eq. 10-11), temperature diffusion (eq. 13-15), a
  // temperature-dependent rest density on the oil (eq. 16) and a heated sphere.
  const fluids = args.fluids === true;
  const shared = { numberDensity: fluids, interfaceTension: fluids ? 2 : 0, diffusivity: fluids ? 0.002 : 0 };
  const water = simulation.addMaterial(fluids ? { ...shared, interfaceColor: -0.5, dynamicViscosity: 5 } : {});
  simulation.addCollider({ shape: 'box', min: [0, 0, 0], max: [0.6, 0.6, 0.25], container: true });
  simulation.addCollider({
    shape: 'sphere',
    center: [0.45, 0.05, 0.125],
    radius: 0.08,
    temperature: 400,
    heatTransfer: fluids ? 2 : 0,
  });
  const ids = simulation.spawnBlock({
    min: [0, 0.1, 0],
    max: [0.35, 0.4, 0.25],
    material: water,
    velocity: [args.velocity ?? 0.5, 0, 0],
  });
  if (fluids) {
    const oil = simulation.addMaterial({
      ...shared,
      restDensity: 700,
      temperatureDensity: 700 * 293.15,
      interfaceColor: 0.5,
      dynamicViscosity: 20,
    });
    for (const id of ids) {
      if (simulation.Position.x[id] > 0.175) simulation.components.Particle.material[id] = oil;
      simulation.components.Temperature[id] = 280 + 40 * simulation.Position.y[id];
    }
  }
  return simulation;
}

/** Options of {@link sphParity}: the scene's settings (default: the simulation's defaults). */
export interface SphParityOptions {
  /** Steps compared (default 10). */
  steps?: number;
  substeps?: number;
  /** `sph.maxSubsteps`. */
  maxSubsteps?: number;
  timeStep?: number;
  gravity?: [number, number, number];
  /** `sph.speedOfSound` (m/s). */
  speedOfSound?: number;
  /** `sph.courantNumber`. */
  courantNumber?: number;
  /** Initial x velocity of the block (m/s, default 0.5). */
  velocity?: number;
  /** Two fluids with every multi-fluid term of the WCSPH solver (see `scene`). */
  fluids?: boolean;
}

/** Runs `args.steps` (default 10) steps of the scene on both backends and compares them after every step. */
export async function sphParity(engine: WebGPUEngine, args: SphParityOptions = {}): Promise<SphParityResult> {
  const cpu = scene('cpu', engine, args);
  const gpu = scene('webgpu', engine, args);
  await gpu.ready();
  const initial = new Map<number, number>();
  for (const id of cpu.particles()) initial.set(id, cpu.components.Temperature[id]);
  const steps: SphParityStep[] = [];
  let nonFinite = 0;
  let outside = 0;
  for (let step = 0; step < (args.steps ?? 10); step++) {
    cpu.step();
    gpu.step();
    await gpu.readback();
    const result: SphParityStep = {
      substepsCpu: cpu.stats.solverSubsteps,
      substepsGpu: gpu.stats.solverSubsteps,
      maxPositionDifference: 0,
      maxVelocityDifference: 0,
      maxDensityDifference: 0,
      maxTemperatureDifference: 0,
      neighboursCpu: cpu.stats.meanNeighbourCount,
      neighboursGpu: gpu.stats.meanNeighbourCount,
      densityErrorCpu: cpu.stats.meanDensityError,
      densityErrorGpu: gpu.stats.meanDensityError,
      meanHeightCpu: 0,
      meanHeightGpu: 0,
      worst: [],
      maxDriftOverRadius: 0,
    };
    const substepTime = cpu.settings.timeStep / cpu.stats.solverSubsteps;
    const ids = cpu.particles();
    for (const id of ids) {
      const a = [cpu.Position.x[id], cpu.Position.y[id], cpu.Position.z[id]];
      const b = [gpu.Position.x[id], gpu.Position.y[id], gpu.Position.z[id]];
      const va = [cpu.Velocity.x[id], cpu.Velocity.y[id], cpu.Velocity.z[id]];
      const vb = [gpu.Velocity.x[id], gpu.Velocity.y[id], gpu.Velocity.z[id]];
      if (!b.concat(vb).every(Number.isFinite)) nonFinite++;
      if (b.some((v, axis) => v < 0 || v > (axis === 2 ? 0.25 : 0.6))) outside++;
      const difference = Math.hypot(a[0] - b[0], a[1] - b[1], a[2] - b[2]);
      if (difference > result.maxPositionDifference) {
        result.maxPositionDifference = difference;
        result.worst = [...a, ...va, cpu.Density[id], ...b, ...vb, gpu.Density[id]];
      }
      result.maxVelocityDifference = Math.max(
        result.maxVelocityDifference,
        Math.hypot(va[0] - vb[0], va[1] - vb[1], va[2] - vb[2]),
      );
      result.maxDensityDifference = Math.max(
        result.maxDensityDifference,
        Math.abs(cpu.Density[id] - gpu.Density[id]) / 1000,
      );
      result.maxTemperatureDifference = Math.max(
        result.maxTemperatureDifference,
        Math.abs(cpu.components.Temperature[id] - gpu.components.Temperature[id]),
      );
      result.maxDriftOverRadius = Math.max(
        result.maxDriftOverRadius,
        (Math.hypot(va[0], va[1], va[2]) * substepTime) / cpu.settings.particleRadius,
      );
      result.meanHeightCpu += a[1] / ids.length;
      result.meanHeightGpu += b[1] / ids.length;
    }
    steps.push(result);
  }
  let temperatureChange = 0;
  for (const id of cpu.particles()) {
    temperatureChange = Math.max(temperatureChange, Math.abs(cpu.components.Temperature[id] - (initial.get(id) ?? 0)));
  }
  const particles = cpu.particleCount;
  const backend = gpu.backend;
  cpu.dispose();
  gpu.dispose();
  return { particles, backend, steps, nonFinite, outside, temperatureChange };
}

/** Result of {@link sphRefusals}: the error messages (empty when nothing was thrown) and what changed. */
export interface SphRefusalsResult {
  backend: string;
  /** `addCollider` with `rigidBody` on the WebGPU backend (accepted since WCSPH couples on the GPU). */
  addColliderError: string;
  /** `step()` after restoring a snapshot (taken on the CPU) that holds a coupled collider. */
  stepError: string;
  /** Colliders before and after the coupled `addCollider`. */
  collidersBefore: number;
  collidersAfter: number;
  /** Particles before and after that `step` (its emitter adds some). */
  particlesBefore: number;
  particlesAfter: number;
  /** `settings.sphMaxSubsteps` edited: the step's error. */
  maxSubstepsError: string;
  /**
   * Substeps of three steps with `mirror: 'off'`: the first from the uploaded components, the second
   * without a readback (the `maxSpeed` bound), the third after an awaited `readback()`.
   */
  substepsMirrorOff: number[];
}

/**
 * WCSPH on the WebGPU backend: editing `settings.sphMaxSubsteps` (fixed at creation) is refused by `step()`;
 * a collider coupled with a rigid body is accepted by `addCollider`, and a step after restoring a snapshot
 * (taken on the CPU) that holds one runs. Also the substep planning without current velocities.
 */
export async function sphRefusals(engine: WebGPUEngine): Promise<SphRefusalsResult> {
  const make = (backend: 'cpu' | 'webgpu') => {
    const simulation = new FluidSimulation({ particleRadius: 0.025, capacity: 400, backend, engine, solver: 'sph' });
    const water = simulation.addMaterial({});
    simulation.addCollider({ shape: 'box', min: [0, 0, 0], max: [0.6, 0.6, 0.25], container: true });
    simulation.addEmitter({ position: [0.3, 0.4, 0.125], direction: [0, -1, 0], material: water, rate: 600 });
    return simulation;
  };
  const message = (run: () => void): string => {
    try {
      run();
    } catch (error) {
      return String((error as Error).message);
    }
    return '';
  };
  const gpu = make('webgpu');
  await gpu.ready();
  const collidersBefore = gpu.internalContext.colliders.count;
  const addColliderError = message(() =>
    gpu.addCollider({ shape: 'sphere', center: [0.3, 0.1, 0.1], radius: 0.05, rigidBody: {} }),
  );
  const collidersAfter = gpu.internalContext.colliders.count;
  const cpu = make('cpu');
  cpu.addCollider({ shape: 'sphere', center: [0.3, 0.1, 0.1], radius: 0.05, rigidBody: {} });
  cpu.step();
  await gpu.readback();
  gpu.restore(cpu.snapshot());
  const particlesBefore = gpu.particleCount;
  const stepError = message(() => gpu.step());
  await gpu.readback();
  const particlesAfter = gpu.particleCount;
  const fresh = make('webgpu');
  await fresh.ready();
  fresh.settings.sphMaxSubsteps = 4096;
  const maxSubstepsError = message(() => fresh.step());
  const planned = new FluidSimulation({
    particleRadius: 0.025,
    capacity: 400,
    backend: 'webgpu',
    engine,
    solver: 'sph',
    mirror: 'off',
  });
  planned.spawnBlock({ min: [0, 0, 0], max: [0.2, 0.2, 0.2], material: planned.addMaterial({}) });
  await planned.ready();
  const substepsMirrorOff: number[] = [];
  planned.step();
  substepsMirrorOff.push(planned.stats.solverSubsteps);
  planned.step();
  substepsMirrorOff.push(planned.stats.solverSubsteps);
  await planned.readback();
  planned.step();
  substepsMirrorOff.push(planned.stats.solverSubsteps);
  planned.dispose();
  const backend = gpu.backend;
  cpu.dispose();
  gpu.dispose();
  fresh.dispose();
  return {
    backend,
    addColliderError,
    stepError,
    collidersBefore,
    collidersAfter,
    particlesBefore,
    particlesAfter,
    maxSubstepsError,
    substepsMirrorOff,
  };
}
