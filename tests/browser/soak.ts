/**
 * Long runs. The soak scene (used by tests/soak.test.ts on the CPU in Node, and by the `soak` scenario of
 * the WebGPU harness page): a pool of water that lives forever in a closed box, a tap that pours into it
 * particles living 1.5 s, and a sideways jet of particles living 1 s whose arc runs through a drain above the
 * pool. Emitters, lifetimes and the drain keep replacing particles (so entity ids are freed and reused all
 * the time) while the count stays about constant. Figures sampled along the run: particle count, kinetic
 * plus potential energy, the fastest particle, non-finite values and memory.
 */
import type { WebGPUEngine } from '@babylonjs/core/Engines/webgpuEngine.js';
import { FluidSimulation, type FluidSimulationOptions } from '../../src';

/** The box the fluid lives in, metres: [0, 0, 0] to this corner. */
export const SOAK_BOX: readonly [number, number, number] = [0.8, 0.8, 0.4];

/** The soak scene: about 100 particles of radius 0.05 m (the default). */
export function createSoakScene(options: FluidSimulationOptions = {}): FluidSimulation {
  const simulation = new FluidSimulation({ particleRadius: 0.05, capacity: 400, ...options });
  const water = simulation.addMaterial({});
  simulation.addCollider({ shape: 'box', min: [0, 0, 0], max: [...SOAK_BOX], container: true });
  simulation.spawnBlock({ min: [0, 0, 0], max: [0.4, 0.32, 0.4], material: water });
  // A tap pouring into the pool; its particles live 1.5 s.
  simulation.addEmitter({ material: water, position: [0.6, 0.7, 0.2], rate: 30, speed: 2, lifetime: 1.5 });
  // A sideways jet whose arc (0.17 s to x = 0.35, 0.14 m of fall) runs through a drain well above the pool;
  // what misses it lives 1 s.
  simulation.addEmitter({
    material: water,
    position: [0.1, 0.75, 0.2],
    direction: [1, 0, 0],
    rate: 20,
    speed: 1.5,
    lifetime: 1,
  });
  simulation.addDrain({ shape: 'sphere', center: [0.35, 0.62, 0.2], radius: 0.08 });
  return simulation;
}

/** Figures of the particles as the components hold them now. */
export interface SoakFigures {
  /** Live particles. */
  count: number;
  /** Kinetic plus potential energy (J), potential measured from the floor (y = 0). */
  energy: number;
  /** Kinetic energy (J). */
  kinetic: number;
  /** The fastest particle's speed (m/s). */
  fastest: number;
  /** Lowest and highest particle y (m). */
  lowest: number;
  highest: number;
  /** Particles with a non-finite position or velocity component. */
  nonFinite: number;
  /** Largest live entity id. */
  largestId: number;
}

/** Energy and the other figures of the live particles (gravity from the settings, mass from the material). */
export function soakFigures(simulation: FluidSimulation): SoakFigures {
  const { Position, Velocity } = simulation;
  const { Particle, FluidMaterial } = simulation.components;
  const gravity = -simulation.settings.gravity[1];
  const figures: SoakFigures = {
    count: simulation.particleCount,
    energy: 0,
    kinetic: 0,
    fastest: 0,
    lowest: Number.POSITIVE_INFINITY,
    highest: Number.NEGATIVE_INFINITY,
    nonFinite: 0,
    largestId: 0,
  };
  for (const eid of simulation.particles()) {
    const mass = FluidMaterial.particleMass[Particle.material[eid]];
    const speedSquared = Velocity.x[eid] ** 2 + Velocity.y[eid] ** 2 + Velocity.z[eid] ** 2;
    const y = Position.y[eid];
    if (!Number.isFinite(speedSquared + y + Position.x[eid] + Position.z[eid])) {
      figures.nonFinite++;
      continue;
    }
    figures.kinetic += 0.5 * mass * speedSquared;
    figures.energy += 0.5 * mass * speedSquared + mass * gravity * y;
    figures.fastest = Math.max(figures.fastest, Math.sqrt(speedSquared));
    figures.lowest = Math.min(figures.lowest, y);
    figures.highest = Math.max(figures.highest, y);
    figures.largestId = Math.max(figures.largestId, eid);
  }
  return figures;
}

/**
 * The most energy the scene can hold: every particle the capacity allows at the top of the box with the
 * faster nozzle's speed, plus the fall from the highest nozzle (J). An exploding fluid passes it at once.
 */
export function soakEnergyBound(simulation: FluidSimulation, particles: number): number {
  const { Particle, FluidMaterial } = simulation.components;
  const anyParticle = simulation.particles()[0];
  const mass = FluidMaterial.particleMass[Particle.material[anyParticle]];
  const gravity = -simulation.settings.gravity[1];
  return particles * mass * (gravity * SOAK_BOX[1] + 0.5 * 2 ** 2);
}

/** Arguments of the `soak` scenario. */
export interface SoakArguments {
  /** Steps of 1/60 s. Default 10000. */
  steps?: number;
  /** Steps between two samples (each a readback of the particles). Default 250. */
  sampleEvery?: number;
  /** Substeps per step. Default 1 (SwiftShader runs every pass on the CPU; 2 doubles the run's time). */
  substeps?: number;
  /** Constraint iterations per substep. Default 2. */
  iterations?: number;
}

/** One sample of the `soak` scenario, after a readback. */
export interface SoakSample extends SoakFigures {
  /** Steps taken. */
  step: number;
  /** Bytes of GPU buffers the solver holds (`WebGpuSolver.bufferBytes`). */
  gpuBytes: number;
  /** Chromium's `performance.memory.usedJSHeapSize` (bytes; coarse: Chromium rounds it), if the page has it. */
  heapBytes?: number;
}

/** Result of the `soak` scenario. */
export interface SoakResult {
  backend: string;
  samples: SoakSample[];
  /** The energy bound of {@link soakEnergyBound} for the capacity. */
  energyBound: number;
  /** Errors thrown by steps or readbacks (message), which the run survived. */
  errors: string[];
  /** Wall milliseconds per step, averaged over the run (step, submit, and the sampling readbacks). */
  millisecondsPerStep: number;
  /** Particles emitted and removed over the run (lastEmitted / lastRemoved of every step). */
  emitted: number;
  removed: number;
}

/**
 * The WebGPU soak: the soak scene on the WebGPU backend (mirror 'on-demand'), `steps` steps submitted
 * back to back, with a readback and a sample every `sampleEvery` steps.
 */
export async function soakScenario(engine: WebGPUEngine, args: SoakArguments = {}): Promise<SoakResult> {
  const steps = args.steps ?? 10_000;
  const sampleEvery = args.sampleEvery ?? 250;
  const simulation = createSoakScene({
    substeps: args.substeps ?? 1,
    iterations: args.iterations ?? 2,
    backend: 'webgpu',
    engine,
    mirror: 'on-demand',
  });
  await simulation.ready();
  const memory = (performance as Performance & { memory?: { usedJSHeapSize: number } }).memory;
  const result: SoakResult = {
    backend: simulation.backend,
    samples: [],
    energyBound: soakEnergyBound(simulation, simulation.settings.capacity),
    errors: [],
    millisecondsPerStep: 0,
    emitted: 0,
    removed: 0,
  };
  const sample = async (step: number) => {
    await simulation.readback();
    result.samples.push({
      step,
      ...soakFigures(simulation),
      gpuBytes: simulation.gpuSolver?.bufferBytes ?? 0,
      heapBytes: memory?.usedJSHeapSize,
    });
  };
  await sample(0);
  const start = performance.now();
  for (let step = 1; step <= steps; step++) {
    try {
      simulation.step();
      result.emitted += simulation.stats.emittedCount;
      result.removed += simulation.stats.removedCount;
    } catch (error) {
      result.errors.push(error instanceof Error ? error.message : String(error));
    }
    if (step % sampleEvery === 0) await sample(step);
  }
  result.millisecondsPerStep = (performance.now() - start) / steps;
  // Removals reach the CPU with readbacks and are reported by the step after: one more step reports those
  // the last sample read (its own emissions are not counted: the last sample is the end of the run).
  simulation.step();
  result.removed += simulation.stats.removedCount;
  simulation.dispose();
  return result;
}
