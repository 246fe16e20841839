/**
 * Trapped air and boiling (Müller et al. 2005, sections 3.4 and 4.4) on the WebGPU backend against the CPU
 * reference, run in the harness page (gpu.html). Each scene is built twice, once per backend, with the same
 * calls (so the same entity ids), and stepped in lockstep with a readback after every GPU step. Scenes (all
 * small, for SwiftShader on shared cores):
 * - `airKernelParity`: a water slab falling in a glass above a pool on its floor, with air particles above
 *   the slab (free surface), inside it and alone in the glass (isolated): after step 1, the color fields
 *   per particle and the sets of particles that generate air and that are deleted, on both backends;
 * - `airPour`: a jet poured into a shallow pool: air counts over time on both backends;
 * - `airBoil`: a pot of water on a hot plate: boiled counts and where the vapour leaves;
 * - `airBuoyancy`: a bubble at the bottom of a pool rising by eq. 17: positions per particle.
 */

import type { WebGPUEngine } from '@babylonjs/core/Engines/webgpuEngine.js';
import { FluidSimulation } from '../../src';
import type { SimulationContext } from '../../src/systems/context';
import { gatherSceneSystem } from '../../src/systems/gather';
import { State } from '../../src/systems/gpu/structs';
import type { GpuContext } from '../../src/systems/gpu/systems';
import { updateMultiFluidFeatures } from '../../src/systems/multifluid/features';
import type { FluidSystem } from '../../src/systems/system';

const RADIUS = 0.01;
const KERNEL_RADIUS = 4 * RADIUS;

/** The private context of a simulation. */
function contextOf(simulation: FluidSimulation): SimulationContext {
  return (simulation as unknown as { context: SimulationContext }).context;
}

/** The running WebGPU backend of `simulation` (its test hooks), undefined on the CPU backend. */
export function gpuOf(simulation: FluidSimulation): GpuContext | undefined {
  return (simulation as unknown as { gpuContext?: GpuContext }).gpuContext;
}

/** The CPU fields of one particle as air.ts computed them at the end of a step. */
interface Fields {
  particleGradient: [number, number, number];
  surfaceGradient: [number, number, number];
  numberDensity: number;
}

/** Result of {@link airKernelParity}. */
export interface AirKernelParityResult {
  backend: string;
  particles: number;
  /** Entities whose liquid particle generated air at step 1 (CPU: recomputed from its fields). */
  generatedCpu: number[];
  generatedGpu: number[];
  /** Air entities deleted at step 1. */
  deletedCpu: number[];
  deletedGpu: number[];
  /** Per entity in the symmetric differences: the CPU's |grad c^P| h / threshold - 1 (its margin). */
  generatedMargins: number[];
  deletedMargins: number[];
  /** Largest |grad c^P| difference over the particles, relative to 1 / h (dimensionless). */
  maxParticleGradientDifference: number;
  /** Largest |grad c^S| difference relative to 1 / h. */
  maxSurfaceGradientDifference: number;
  /** Largest number density difference relative to the rest lattice's (kernelSum). */
  maxNumberDensityDifference: number;
  /** Largest |x_cpu - x_gpu| after step 1 (m). */
  maxPositionDifference: number;
  /** Air particles generated on each backend by step 2 (the GPU's arrive one step later). */
  airGeneratedCpu: number;
  airGeneratedGpu: number;
}

/** The slab scene of {@link airKernelParity}. */
function slabScene(backend: 'cpu' | 'webgpu', engine: WebGPUEngine) {
  const simulation = new FluidSimulation({
    projection: false,
    particleRadius: RADIUS,
    capacity: 8192,
    iterations: 3,
    backend,
    engine,
  });
  const water = simulation.addMaterial({ restDensity: 1000, numberDensity: true });
  const air = simulation.addMaterial({ restDensity: 100, numberDensity: true, surfaceColor: 0, color: [1, 1, 1] });
  const material = simulation.components.FluidMaterial;
  material.airMaterial[water] = air;
  material.airGenerationThreshold[water] = 0.6;
  material.artificialBuoyancy[air] = 5;
  simulation.addCollider({ shape: 'box', min: [-0.1, 0, -0.1], max: [0.1, 0.4, 0.1], container: true });
  // A pool on the glass's floor (8 x 2 x 8): its bottom layer has no upward grad(c^P) thanks to the
  // floor's virtual wall particles (Harada et al. 2007), so it generates nothing.
  simulation.spawnBlock({ min: [-0.08, 0, -0.08], max: [0.08, 0.04, 0.08], material: water });
  // A slab 16 x 6 x 16 cm in the air (8 x 3 x 8 = 192 particles): its underside generates air.
  const slab = simulation.spawnBlock({ min: [-0.08, 0.1, -0.08], max: [0.08, 0.16, 0.08], material: water });
  // A layer of air on top of it (4 x 1 x 4): at the free surface, deleted.
  simulation.spawnBlock({ min: [-0.04, 0.16, -0.04], max: [0.04, 0.18, 0.04], material: air });
  // One air particle alone near the glass's top corner: isolated, deleted.
  simulation.spawnBlock({ min: [0.06, 0.3, 0.06], max: [0.08, 0.32, 0.08], material: air });
  // Four slab particles in the middle layer at the center turn into air: inside the water, kept.
  const { Particle, Position } = simulation.components;
  for (const id of slab) {
    if (Math.abs(Position.y[id] - 0.13) < 0.005 && Math.abs(Position.x[id]) < 0.02 && Math.abs(Position.z[id]) < 0.02) {
      Particle.material[id] = air;
    }
  }
  return { simulation, water, air };
}

/**
 * Step 1 of the slab scene on both backends: the CPU's fields and decisions (a system inserted before
 * `trappedAir` records which entity each place held; air.ts leaves its fields per place in the context)
 * against the GPU's (the `airFields` buffer: per place (grad c^P, number density), (grad c^S, decision
 * bits), with `info` for the entities).
 */
export async function airKernelParity(engine: WebGPUEngine): Promise<AirKernelParityResult> {
  const cpu = slabScene('cpu', engine);
  const gpu = slabScene('webgpu', engine);
  await gpu.simulation.ready();
  const cpuContext = contextOf(cpu.simulation);
  let placeEntities = new Uint32Array(0);
  const record: FluidSystem = {
    name: 'recordPlaces',
    stage: 'step-end',
    run: (ctx) => {
      placeEntities = ctx.solver.entity.slice(0, ctx.solver.count);
    },
  };
  const holder = cpu.simulation as unknown as { systems: readonly FluidSystem[] };
  const list = [...holder.systems];
  list.splice(
    list.findIndex((system) => system.name === 'trappedAir'),
    0,
    record,
  );
  holder.systems = list;
  cpu.simulation.step();
  gpu.simulation.step();
  await gpu.simulation.readback();
  const h = KERNEL_RADIUS;
  const kernelSum = cpuContext.lattice.kernelSum;
  const airState = cpuContext.solver.multiFluid.air;
  const store = cpu.simulation.components.FluidMaterial;
  const cpuFields = new Map<number, Fields>();
  const generatedCpu: number[] = [];
  const cpuMargins = new Map<number, number>();
  placeEntities.forEach((eid, place) => {
    const fields: Fields = {
      particleGradient: [
        airState.particleGradientX[place],
        airState.particleGradientY[place],
        airState.particleGradientZ[place],
      ],
      surfaceGradient: [
        airState.surfaceGradientX[place],
        airState.surfaceGradientY[place],
        airState.surfaceGradientZ[place],
      ],
      numberDensity: airState.numberDensity[place],
    };
    cpuFields.set(eid, fields);
    const length = Math.hypot(...fields.particleGradient);
    const m = cpu.simulation.components.Particle.material[eid];
    if (m === cpu.water) {
      const threshold = store.airGenerationThreshold[m] / h;
      cpuMargins.set(eid, length / threshold - 1);
      if (fields.particleGradient[1] > 0 && length > threshold) generatedCpu.push(eid);
    } else {
      cpuMargins.set(eid, length * h - store.airDeletionBoundaryThreshold[m]);
    }
  });
  const deletedCpu = Array.from(cpu.simulation.lastRemoved()).sort((a, b) => a - b);
  // The GPU's fields and decisions, per place of the last sort (the order of `info`).
  const solver = gpuOf(gpu.simulation)?.solver;
  if (!solver) throw new Error('no WebGPU solver');
  const count = gpuOf(gpu.simulation)?.gpuCount ?? 0;
  const fieldWords = new Float32Array(await solver.readBuffer('airFields', count * 32));
  const info = new Uint32Array(await solver.readBuffer('info', count * 16));
  const generatedGpu: number[] = [];
  const deletedGpu: number[] = [];
  let maxParticleGradientDifference = 0;
  let maxSurfaceGradientDifference = 0;
  let maxNumberDensityDifference = 0;
  for (let place = 0; place < count; place++) {
    const eid = info[4 * place];
    const o = 8 * place;
    const flags = fieldWords[o + 7];
    if (flags === 1) generatedGpu.push(eid);
    if (flags === 2) deletedGpu.push(eid);
    const fields = cpuFields.get(eid);
    if (!fields) continue;
    const [px, py, pz] = fields.particleGradient;
    const [sx, sy, sz] = fields.surfaceGradient;
    maxParticleGradientDifference = Math.max(
      maxParticleGradientDifference,
      Math.hypot(px - fieldWords[o], py - fieldWords[o + 1], pz - fieldWords[o + 2]) * h,
    );
    maxSurfaceGradientDifference = Math.max(
      maxSurfaceGradientDifference,
      Math.hypot(sx - fieldWords[o + 4], sy - fieldWords[o + 5], sz - fieldWords[o + 6]) * h,
    );
    maxNumberDensityDifference = Math.max(
      maxNumberDensityDifference,
      Math.abs(fields.numberDensity - fieldWords[o + 3]) / kernelSum,
    );
  }
  generatedCpu.sort((a, b) => a - b);
  generatedGpu.sort((a, b) => a - b);
  deletedGpu.sort((a, b) => a - b);
  const difference = (a: number[], b: number[]) => [
    ...a.filter((x) => !b.includes(x)),
    ...b.filter((x) => !a.includes(x)),
  ];
  const generatedMargins = difference(generatedCpu, generatedGpu).map((eid) => cpuMargins.get(eid) ?? Number.NaN);
  const deletedMargins = difference(deletedCpu, deletedGpu).map((eid) => cpuMargins.get(eid) ?? Number.NaN);
  let maxPositionDifference = 0;
  const a = cpu.simulation.components.Position;
  const b = gpu.simulation.components.Position;
  for (const eid of cpu.simulation.particles()) {
    if (!gpu.simulation.particles().includes(eid)) continue;
    maxPositionDifference = Math.max(
      maxPositionDifference,
      Math.hypot(a.x[eid] - b.x[eid], a.y[eid] - b.y[eid], a.z[eid] - b.z[eid]),
    );
  }
  const airGeneratedCpu = cpu.simulation.stats.airGeneratedCount;
  // The GPU creates step 1's candidates at the start of step 2.
  gpu.simulation.step();
  await gpu.simulation.readback();
  const airGeneratedGpu = gpu.simulation.stats.airGeneratedCount;
  const result: AirKernelParityResult = {
    backend: gpu.simulation.stats.backend,
    particles: count,
    generatedCpu,
    generatedGpu,
    deletedCpu,
    deletedGpu,
    generatedMargins,
    deletedMargins,
    maxParticleGradientDifference,
    maxSurfaceGradientDifference,
    maxNumberDensityDifference,
    maxPositionDifference,
    airGeneratedCpu,
    airGeneratedGpu,
  };
  cpu.simulation.dispose();
  gpu.simulation.dispose();
  return result;
}

/** Counts of air (or vapour) and of the rest. */
function census(simulation: FluidSimulation, air: number): { air: number; liquid: number } {
  const material = simulation.components.Particle.material;
  let airCount = 0;
  let liquid = 0;
  for (const id of simulation.particles()) {
    if (material[id] === air) airCount++;
    else liquid++;
  }
  return { air: airCount, liquid };
}

/** Options of {@link airPour}. */
export interface AirPourOptions {
  /** Frames of pouring, then of settling (1/60 s each). */
  pourFrames: number;
  settleFrames: number;
  /** Capacity of each simulation. */
  capacity: number;
  /** The solver (default 'pbf'). */
  solver?: 'pbf' | 'sph';
}

/** One backend's run of {@link airPour}. */
export interface AirPourRun {
  /** Air particles alive after every frame. */
  airCounts: number[];
  /** Particles alive after every frame. */
  particleCounts: number[];
  /** Air particles generated in total. */
  generated: number;
  /** Largest particle count seen. */
  mostParticles: number;
  /** Non-finite positions read back. */
  nonFinite: number;
}

/** Result of {@link airPour}. */
export interface AirPourResult {
  backend: string;
  cpu: AirPourRun;
  gpu: AirPourRun;
}

/** A jet poured from 0.3 m into a glass with a 4 cm pool, with trapped air (as tests/multifluid-air.test.ts). */
function pourScene(backend: 'cpu' | 'webgpu', engine: WebGPUEngine, capacity: number, solver: 'pbf' | 'sph') {
  const simulation = new FluidSimulation({
    projection: false,
    particleRadius: RADIUS,
    capacity,
    iterations: 3,
    backend,
    engine,
    solver,
  });
  const water = simulation.addMaterial({ restDensity: 1000, numberDensity: true });
  const air = simulation.addMaterial({ restDensity: 100, numberDensity: true, surfaceColor: 0, color: [1, 1, 1] });
  const material = simulation.components.FluidMaterial;
  material.airMaterial[water] = air;
  material.airGenerationThreshold[water] = 0.6;
  material.artificialBuoyancy[air] = 5;
  simulation.addCollider({ shape: 'box', min: [-0.08, 0, -0.08], max: [0.08, 0.5, 0.08], container: true });
  simulation.spawnBlock({ min: [-0.08, 0, -0.08], max: [0.08, 0.04, 0.08], material: water });
  const emitter = simulation.addEmitter({
    material: water,
    position: [0, 0.3, 0],
    radius: 0.02,
    speed: 2.5,
    spread: 0.2,
  });
  return { simulation, air, emitter };
}

/** The pouring scene on both backends in lockstep: air counts per frame. */
export async function airPour(engine: WebGPUEngine, args: AirPourOptions): Promise<AirPourResult> {
  const solver = args.solver ?? 'pbf';
  const built = [pourScene('cpu', engine, args.capacity, solver), pourScene('webgpu', engine, args.capacity, solver)];
  await built[1].simulation.ready();
  const runs: AirPourRun[] = built.map(() => ({
    airCounts: [],
    particleCounts: [],
    generated: 0,
    mostParticles: 0,
    nonFinite: 0,
  }));
  for (let frame = 1; frame <= args.pourFrames + args.settleFrames; frame++) {
    for (let k = 0; k < 2; k++) {
      const { simulation, air, emitter } = built[k];
      if (frame === args.pourFrames + 1) simulation.components.Emitter.enabled[emitter] = 0;
      simulation.step();
      await simulation.readback();
      const run = runs[k];
      run.generated += simulation.stats.airGeneratedCount;
      run.airCounts.push(census(simulation, air).air);
      const particles = simulation.particles();
      run.particleCounts.push(particles.length);
      run.mostParticles = Math.max(run.mostParticles, particles.length, simulation.stats.particleCount);
      const { Position } = simulation.components;
      for (const id of particles)
        if (!Number.isFinite(Position.x[id] + Position.y[id] + Position.z[id])) run.nonFinite++;
    }
  }
  const backend = built[1].simulation.stats.backend;
  for (const { simulation } of built) simulation.dispose();
  return { backend, cpu: runs[0], gpu: runs[1] };
}

/** One backend's run of {@link airBoil}. */
export interface AirBoilRun {
  /** Frame of the first boiling (-1: none). */
  firstBoilFrame: number;
  /** Particles boiled in total (stats.boiledCount summed). */
  boiled: number;
  /** Vapour particles that disappeared (deleted). */
  left: number;
  /** Of those, the ones last seen within h of the nominal water level or above. */
  leftAtSurface: number;
  /** Highest height (m) at which a particle was first seen as vapour. */
  boiledHighest: number;
  /** Liquid particles at the start and at the end. */
  liquidStart: number;
  liquidEnd: number;
  /** Vapour alive at the end. */
  vapourEnd: number;
}

/** Result of {@link airBoil}. */
export interface AirBoilResult {
  backend: string;
  cpu: AirBoilRun;
  gpu: AirBoilRun;
}

/** The boiling test's pot of tests/multifluid-air.test.ts: 320 particles over a 700 K plate. */
function potScene(backend: 'cpu' | 'webgpu', engine: WebGPUEngine, probability: number) {
  const simulation = new FluidSimulation({
    projection: false,
    particleRadius: RADIUS,
    capacity: 1000,
    iterations: 3,
    backend,
    engine,
  });
  const water = simulation.addMaterial({ restDensity: 1000, numberDensity: true, diffusivity: 0.0003 });
  const vapour = simulation.addMaterial({
    restDensity: 100,
    numberDensity: true,
    surfaceColor: 0,
    diffusivity: 0.0003,
    color: [1, 1, 1],
  });
  const material = simulation.components.FluidMaterial;
  material.airMaterial[water] = vapour;
  material.boilingTemperature[water] = 373.15;
  material.boilingProbability[water] = probability;
  material.artificialBuoyancy[vapour] = 5;
  simulation.addCollider({ shape: 'box', min: [-0.08, 0, -0.08], max: [0.08, 0.4, 0.08], container: true });
  simulation.addCollider({
    shape: 'box',
    min: [-1, -1, -1],
    max: [1, 0, 1],
    wallWeights: false,
    temperature: 700,
    heatTransfer: 2,
  });
  simulation.spawnBlock({ min: [-0.08, 0, -0.08], max: [0.08, 0.1, 0.08], material: water });
  return { simulation, vapour, water };
}

/** The pot on both backends in lockstep for `frames` frames. */
export async function airBoil(
  engine: WebGPUEngine,
  args: { frames: number; probability: number },
): Promise<AirBoilResult> {
  const built = [potScene('cpu', engine, args.probability), potScene('webgpu', engine, args.probability)];
  await built[1].simulation.ready();
  const runs: AirBoilRun[] = [];
  for (const { simulation, vapour } of built) {
    const { Particle, Position } = simulation.components;
    const run: AirBoilRun = {
      firstBoilFrame: -1,
      boiled: 0,
      left: 0,
      leftAtSurface: 0,
      boiledHighest: 0,
      liquidStart: census(simulation, vapour).liquid,
      liquidEnd: 0,
      vapourEnd: 0,
    };
    // Last seen height of each vapour particle, and the water level when it was seen.
    const vapourSeen = new Map<number, [number, number]>();
    for (let frame = 1; frame <= args.frames; frame++) {
      simulation.step();
      await simulation.readback();
      if (simulation.stats.boiledCount > 0) {
        if (run.firstBoilFrame < 0) run.firstBoilFrame = frame;
        run.boiled += simulation.stats.boiledCount;
      }
      const alive = new Set(simulation.particles());
      for (const [id, [height, level]] of vapourSeen) {
        if (alive.has(id)) continue;
        run.left++;
        if (height >= level - KERNEL_RADIUS) run.leftAtSurface++;
        vapourSeen.delete(id);
      }
      const level = (census(simulation, vapour).liquid * (2 * RADIUS) ** 3) / 0.16 ** 2;
      for (const id of alive) {
        if (Particle.material[id] !== vapour) continue;
        if (!vapourSeen.has(id)) run.boiledHighest = Math.max(run.boiledHighest, Position.y[id]);
        vapourSeen.set(id, [Position.y[id], level]);
      }
    }
    const end = census(simulation, vapour);
    run.liquidEnd = end.liquid;
    run.vapourEnd = end.air;
    runs.push(run);
  }
  const backend = built[1].simulation.stats.backend;
  for (const { simulation } of built) simulation.dispose();
  return { backend, cpu: runs[0], gpu: runs[1] };
}

/** Result of {@link airBuoyancy}. */
export interface AirBuoyancyResult {
  backend: string;
  /** Air particles of the bubble. */
  bubble: number;
  /** Per compared step: the largest |x_cpu - x_gpu| over all particles (m). */
  maxPositionDifference: number[];
  /** Per compared step: the bubble's mean height on each backend (m), and with b = 0 on the CPU. */
  meanHeightCpu: number[];
  meanHeightGpu: number[];
  meanHeightWithoutBuoyancy: number[];
  /** The same without buoyancy (b = 0) on both backends: the solver's own difference. */
  maxPositionDifferenceWithoutBuoyancy: number[];
  meanHeightWithoutBuoyancyGpu: number[];
  /** The bubble's mean vertical velocity (m/s): CPU and GPU with b = 5, then CPU and GPU with b = 0. */
  meanVelocities: number[][];
}

/** A 12 cm pool whose bottom-center particles are air (b = `buoyancy`), neither generation nor deletion. */
function bubbleScene(backend: 'cpu' | 'webgpu', engine: WebGPUEngine, buoyancy: number) {
  const simulation = new FluidSimulation({
    projection: false,
    particleRadius: RADIUS,
    capacity: 1024,
    iterations: 3,
    backend,
    engine,
  });
  const water = simulation.addMaterial({ restDensity: 1000, numberDensity: true });
  const air = simulation.addMaterial({ restDensity: 100, numberDensity: true, surfaceColor: 0 });
  simulation.components.FluidMaterial.artificialBuoyancy[air] = buoyancy;
  simulation.addCollider({ shape: 'box', min: [-0.06, 0, -0.06], max: [0.06, 0.3, 0.06], container: true });
  const ids = simulation.spawnBlock({ min: [-0.06, 0, -0.06], max: [0.06, 0.12, 0.06], material: water });
  const bubble: number[] = [];
  const { Particle, Position } = simulation.components;
  for (const id of ids) {
    if (Math.abs(Position.x[id]) < 0.021 && Math.abs(Position.z[id]) < 0.021 && Position.y[id] < 0.05) {
      Particle.material[id] = air;
      bubble.push(id);
    }
  }
  return { simulation, bubble };
}

/** The bubble on both backends (and without buoyancy on the CPU), compared at the steps `compareAt`. */
export async function airBuoyancy(
  engine: WebGPUEngine,
  args: { steps: number; compareAt: number[] },
): Promise<AirBuoyancyResult> {
  const cpu = bubbleScene('cpu', engine, 5);
  const gpu = bubbleScene('webgpu', engine, 5);
  const plain = bubbleScene('cpu', engine, 0);
  const plainGpu = bubbleScene('webgpu', engine, 0);
  await gpu.simulation.ready();
  await plainGpu.simulation.ready();
  const result: AirBuoyancyResult = {
    backend: gpu.simulation.stats.backend,
    bubble: cpu.bubble.length,
    maxPositionDifference: [],
    meanHeightCpu: [],
    meanHeightGpu: [],
    meanHeightWithoutBuoyancy: [],
    maxPositionDifferenceWithoutBuoyancy: [],
    meanHeightWithoutBuoyancyGpu: [],
    meanVelocities: [],
  };
  const meanHeight = (built: { simulation: FluidSimulation; bubble: number[] }) =>
    built.bubble.reduce((sum, id) => sum + built.simulation.components.Position.y[id], 0) / built.bubble.length;
  for (let step = 1; step <= args.steps; step++) {
    cpu.simulation.step();
    gpu.simulation.step();
    plain.simulation.step();
    plainGpu.simulation.step();
    await gpu.simulation.readback();
    await plainGpu.simulation.readback();
    if (!args.compareAt.includes(step)) continue;
    const largestDifference = (first: FluidSimulation, second: FluidSimulation) => {
      const a = first.components.Position;
      const b = second.components.Position;
      let largest = 0;
      for (const id of first.particles()) {
        largest = Math.max(largest, Math.hypot(a.x[id] - b.x[id], a.y[id] - b.y[id], a.z[id] - b.z[id]));
      }
      return largest;
    };
    result.maxPositionDifference.push(largestDifference(cpu.simulation, gpu.simulation));
    result.maxPositionDifferenceWithoutBuoyancy.push(largestDifference(plain.simulation, plainGpu.simulation));
    result.meanHeightWithoutBuoyancyGpu.push(meanHeight(plainGpu));
    result.meanVelocities.push(
      [cpu, gpu, plain, plainGpu].map(
        (built) =>
          built.bubble.reduce((sum, id) => sum + built.simulation.components.Velocity.y[id], 0) / built.bubble.length,
      ),
    );
    result.meanHeightCpu.push(meanHeight(cpu));
    result.meanHeightGpu.push(meanHeight(gpu));
    result.meanHeightWithoutBuoyancy.push(meanHeight(plain));
  }
  for (const built of [cpu, gpu, plain, plainGpu]) built.simulation.dispose();
  return result;
}

/** Result of {@link airBuoyancyKernel}. */
export interface AirBuoyancyKernelResult {
  backend: string;
  /** Air particles compared. */
  bubble: number;
  /** The CPU's velocity change of eq. 17 in the first substep, per air particle (m/s, y component). */
  changeCpu: number[];
  /** The GPU's. */
  changeGpu: number[];
  /** Largest |dv_cpu - dv_gpu| over the air particles (all three components, m/s). */
  maxChangeDifference: number;
  /** Largest |dv_cpu| (m/s). */
  maxChangeCpu: number;
  /** Largest velocity change of a water particle on the GPU (must be 0: eq. 17 acts on air only). */
  maxWaterChangeGpu: number;
}

/**
 * Eq. 17 alone, in the first substep of the bubble scene from the same state on both backends: the CPU's
 * velocities just before and after `artificialBuoyancy` (systems inserted around it), the GPU's `delta`
 * (the substep's velocities) after the pass before `buoyancy` and after `buoyancy` (two solvers built the
 * same way, recorded up to each with `stepUntil`).
 */
export async function airBuoyancyKernel(engine: WebGPUEngine): Promise<AirBuoyancyKernelResult> {
  const cpu = bubbleScene('cpu', engine, 5);
  const before = bubbleScene('webgpu', engine, 5);
  const after = bubbleScene('webgpu', engine, 5);
  await before.simulation.ready();
  await after.simulation.ready();
  const n = cpu.simulation.particles().length;
  const velocityBefore = new Map<number, [number, number, number]>();
  const changes = new Map<number, [number, number, number]>();
  let substepsSeen = 0;
  const capture = (into: 'before' | 'after'): FluidSystem => ({
    name: `capture-${into}`,
    stage: 'substep',
    run: (ctx) => {
      if (ctx.substepIndex !== 0 || substepsSeen > 1) return;
      const s = ctx.solver;
      for (let i = 0; i < s.count; i++) {
        const v: [number, number, number] = [s.velocityX[i], s.velocityY[i], s.velocityZ[i]];
        if (into === 'before') velocityBefore.set(s.entity[i], v);
        else {
          const b = velocityBefore.get(s.entity[i]) ?? v;
          changes.set(s.entity[i], [v[0] - b[0], v[1] - b[1], v[2] - b[2]]);
        }
      }
      substepsSeen++;
    },
  });
  const holder = cpu.simulation as unknown as { systems: readonly FluidSystem[] };
  const list = [...holder.systems];
  const at = list.findIndex((system) => system.name === 'artificialBuoyancy');
  list.splice(at + 1, 0, capture('after'));
  list.splice(at, 0, capture('before'));
  holder.systems = list;
  cpu.simulation.step();
  const solverOf = (simulation: FluidSimulation) => {
    const solver = gpuOf(simulation)?.solver;
    if (!solver) throw new Error('no WebGPU solver');
    return solver;
  };
  const read = async (simulation: FluidSimulation, stopAfter: string) => {
    const solver = solverOf(simulation);
    // The CPU part of the GPU step before the passes (pipeline.ts: webGpuSystems; validate.ts's feature flags).
    const ctx = contextOf(simulation);
    updateMultiFluidFeatures(ctx);
    gatherSceneSystem(ctx);
    solver.stepUntil(stopAfter);
    await solver.finish();
    const delta = new Float32Array(await solver.readBuffer('delta', n * 16));
    const info = new Uint32Array(await solver.readBuffer('sortedInfo', n * 16));
    const byEntity = new Map<number, [number, number, number]>();
    for (let place = 0; place < n; place++) {
      byEntity.set(info[4 * place], [delta[4 * place], delta[4 * place + 1], delta[4 * place + 2]]);
    }
    return byEntity;
  };
  // No tension, diffusion or heat here, and no vorticity pass in this scene: `viscosity` is the pass
  // before `buoyancy`.
  const gpuBefore = await read(before.simulation, 'viscosity');
  const gpuAfter = await read(after.simulation, 'buoyancy');
  const airIds = new Set(cpu.bubble);
  const changeCpu: number[] = [];
  const changeGpu: number[] = [];
  let maxChangeDifference = 0;
  let maxChangeCpu = 0;
  let maxWaterChangeGpu = 0;
  for (const [id, end] of gpuAfter) {
    const start = gpuBefore.get(id);
    if (!start) continue;
    const gpuChange = [end[0] - start[0], end[1] - start[1], end[2] - start[2]];
    if (!airIds.has(id)) {
      maxWaterChangeGpu = Math.max(maxWaterChangeGpu, Math.hypot(gpuChange[0], gpuChange[1], gpuChange[2]));
      continue;
    }
    const cpuChange = changes.get(id) ?? [Number.NaN, Number.NaN, Number.NaN];
    changeCpu.push(cpuChange[1]);
    changeGpu.push(gpuChange[1]);
    maxChangeCpu = Math.max(maxChangeCpu, Math.hypot(cpuChange[0], cpuChange[1], cpuChange[2]));
    maxChangeDifference = Math.max(
      maxChangeDifference,
      Math.hypot(cpuChange[0] - gpuChange[0], cpuChange[1] - gpuChange[1], cpuChange[2] - gpuChange[2]),
    );
  }
  const result: AirBuoyancyKernelResult = {
    backend: before.simulation.stats.backend,
    bubble: changeGpu.length,
    changeCpu,
    changeGpu,
    maxChangeDifference,
    maxChangeCpu,
    maxWaterChangeGpu,
  };
  for (const built of [cpu, before, after]) built.simulation.dispose();
  return result;
}

/** Result of {@link airPasses}. */
export interface AirPassesResult {
  /** Pass names of one profiled step without the features (defaults), and with each feature on. */
  off: string[];
  generation: string[];
  boiling: string[];
  buoyancy: string[];
  /** Pass names of one profiled WCSPH step with every air feature on (generation, boiling, buoyancy). */
  sphAir: string[];
  /** The PBF scene with every feature ran its steps on the WebGPU backend. */
  backend: string;
}

/**
 * Which passes a step records: none of the air passes with the features off, only the needed ones with
 * each on (from `profileStep`, which records the same list as `step`); and WCSPH's step with all of them.
 */
export async function airPasses(engine: WebGPUEngine): Promise<AirPassesResult> {
  const names = async (
    configure: (simulation: FluidSimulation, water: number, air: number) => void,
    method: 'pbf' | 'sph' = 'pbf',
  ) => {
    const simulation = new FluidSimulation({
      particleRadius: RADIUS,
      capacity: 256,
      backend: 'webgpu',
      engine,
      solver: method,
    });
    await simulation.ready();
    const water = simulation.addMaterial({});
    const air = simulation.addMaterial({ restDensity: 100, surfaceColor: 0 });
    simulation.addCollider({ shape: 'box', min: [0, 0, 0], max: [0.1, 0.2, 0.1], container: true, temperature: 400 });
    simulation.spawnBlock({ min: [0, 0, 0], max: [0.06, 0.04, 0.06], material: water });
    configure(simulation, water, air);
    // One ordinary step sets the features and the material table; the profiled one lists its passes.
    simulation.step();
    await simulation.readback();
    const solver = gpuOf(simulation)?.solver;
    if (!solver) throw new Error('no WebGPU solver');
    const passes = Object.keys(await solver.profileStep());
    const backend = simulation.stats.backend;
    simulation.dispose();
    return { passes, backend };
  };
  const off = await names(() => {});
  const generation = await names((simulation, water, air) => {
    simulation.components.FluidMaterial.airMaterial[water] = air;
    simulation.components.FluidMaterial.airGenerationThreshold[water] = 0.6;
  });
  const boiling = await names((simulation, water, air) => {
    const material = simulation.components.FluidMaterial;
    material.airMaterial[water] = air;
    material.boilingTemperature[water] = 373.15;
  });
  const buoyancy = await names((simulation, _water, air) => {
    simulation.components.FluidMaterial.artificialBuoyancy[air] = 5;
  });
  const sph = await names((simulation, water, air) => {
    const material = simulation.components.FluidMaterial;
    material.airMaterial[water] = air;
    material.airGenerationThreshold[water] = 0.6;
    material.boilingTemperature[water] = 373.15;
    material.artificialBuoyancy[air] = 5;
  }, 'sph');
  return {
    off: off.passes,
    generation: generation.passes,
    boiling: boiling.passes,
    buoyancy: buoyancy.passes,
    sphAir: sph.passes,
    backend: generation.backend,
  };
}

/** Result of {@link airReadbackOrder}: the air bookkeeping when readbacks lag, fail or meet edits. */
export interface AirReadbackOrderResult {
  backend: string;
  /** Non-finite step: air particles created by the step after the non-finite readback (must be 0). */
  createdAfterNonFinite: number;
  /** Whether that step threw the non-finite FluidError. */
  nonFiniteThrew: boolean;
  /** A candidate with a NaN velocity put in the pending list: particles it created (must be 0). */
  createdFromNaNCandidate: number;
  /** Slab, 5 steps: air created with a readback awaited after every step, and with steps 1-3 unawaited. */
  generatedAwaited: number;
  generatedLagged: number;
  /** Pot boiled at step 1 and edited (temperature) before its readback: particles boiled, and then per
   * entity the GPU's material slot against `Particle.material` (mismatches), and vapour particles whose
   * GPU color is not the vapour's. */
  boiledBeforeEdit: number;
  materialMismatchAfterEdit: number;
  colorMismatchAfterEdit: number;
  /** Pot boiled in a step whose readback was skipped (staging busy), boiling off in the next step. */
  boiledSkipped: number;
  materialMismatchAfterSkip: number;
}

/**
 * Per live particle: the GPU's material (info) against `Particle.material` (mismatches), and the GPU
 * particles of material `vapour` whose color (attributes) is not the vapour's render color.
 */
async function compareGpuMaterials(
  simulation: FluidSimulation,
  vapour: number,
): Promise<{ material: number; color: number }> {
  const ctx = contextOf(simulation);
  const solver = gpuOf(simulation)?.solver;
  if (!solver) throw new Error('no WebGPU solver');
  const count = gpuOf(simulation)?.gpuCount ?? 0;
  const info = new Uint32Array(await solver.readBuffer('info', count * 16));
  const attributes = new Float32Array(await solver.readBuffer('attributes', ctx.entityCapacity * 16));
  const { Particle, FluidMaterial } = simulation.components;
  let material = 0;
  let color = 0;
  for (let place = 0; place < count; place++) {
    const eid = info[4 * place];
    const gpuMaterial = ctx.materials.entity[info[4 * place + 1]];
    if (gpuMaterial !== Particle.material[eid]) material++;
    if (gpuMaterial !== vapour) continue;
    const difference = Math.max(
      Math.abs(attributes[4 * eid + 1] - FluidMaterial.colorRed[vapour]),
      Math.abs(attributes[4 * eid + 2] - FluidMaterial.colorGreen[vapour]),
      Math.abs(attributes[4 * eid + 3] - FluidMaterial.colorBlue[vapour]),
    );
    if (difference > 1e-3) color++;
  }
  return { material, color };
}

/**
 * The air bookkeeping of the WebGPU backend against readbacks that fail, lag or meet game-code edits:
 * - a step flagged non-finite (the flag written into the GPU state before its readback's copy) must not
 *   let its air candidates be created; a pending candidate with a NaN velocity is never created;
 * - the slab stepped 3 times without awaiting readbacks (as the plugin's several steps per frame) must not
 *   propose the same front particles' air again: air created in the two runs;
 * - a boil followed by a `markParticlesChanged` temperature edit before its readback keeps the vapour
 *   material and color on the GPU (the CPU learns of it from the readback);
 * - boiling events of a step whose readback was skipped are read after the features turned off.
 */
export async function airReadbackOrder(engine: WebGPUEngine): Promise<AirReadbackOrderResult> {
  const solverOf = (simulation: FluidSimulation) => {
    const solver = gpuOf(simulation)?.solver;
    if (!solver) throw new Error('no WebGPU solver');
    return solver;
  };
  // 1. Non-finite step: a system before `publish` sets State.nonFinite (queue order: before the copy).
  const broken = slabScene('webgpu', engine);
  await broken.simulation.ready();
  const brokenSolver = solverOf(broken.simulation);
  const internals = brokenSolver as unknown as {
    buffers: Record<string, { update(data: Uint32Array, byteOffset: number, byteLength: number): void }>;
    pendingAir: Float32Array;
    pendingAirCount: number;
  };
  let poison = true;
  const poisonSystem: FluidSystem = {
    name: 'poison',
    stage: 'step-end',
    run: () => {
      if (poison) internals.buffers.state.update(new Uint32Array([1]), State.offsets.nonFinite, 4);
      poison = false;
    },
  };
  const holder = broken.simulation as unknown as { systems: readonly FluidSystem[] };
  const list = [...holder.systems];
  list.splice(
    list.findIndex((system) => system.name === 'publish'),
    0,
    poisonSystem,
  );
  holder.systems = list;
  broken.simulation.step();
  await broken.simulation.readback();
  const before = broken.simulation.particles().length;
  let nonFiniteThrew = false;
  try {
    broken.simulation.step();
  } catch {
    nonFiniteThrew = true;
  }
  const createdAfterNonFinite = broken.simulation.particles().length - before;
  broken.simulation.step();
  await broken.simulation.readback();
  // A candidate with a NaN velocity in the pending list.
  const airSlot = contextOf(broken.simulation).materials.slotOfEntity[broken.air];
  internals.pendingAir.set([0, 0.3, 0, airSlot, Number.NaN, 0, 0, broken.air], 0);
  internals.pendingAirCount = 1;
  const beforeNaN = broken.simulation.particles().length;
  broken.simulation.step();
  const createdFromNaNCandidate = broken.simulation.particles().length - beforeNaN;
  await broken.simulation.readback();
  broken.simulation.dispose();

  // 2. Lagging readbacks: the same slab, awaited after every step, and with steps 1-3 unawaited.
  const awaited = slabScene('webgpu', engine);
  const lagged = slabScene('webgpu', engine);
  await awaited.simulation.ready();
  await lagged.simulation.ready();
  let generatedAwaited = 0;
  let generatedLagged = 0;
  for (let step = 1; step <= 5; step++) {
    awaited.simulation.step();
    await awaited.simulation.readback();
    generatedAwaited += awaited.simulation.stats.airGeneratedCount;
  }
  // (Run after the other: an await between these steps would let their readbacks arrive.)
  for (let step = 1; step <= 5; step++) {
    lagged.simulation.step();
    generatedLagged += lagged.simulation.stats.airGeneratedCount;
    if (step >= 3) await lagged.simulation.readback();
  }
  const backend = awaited.simulation.stats.backend;
  awaited.simulation.dispose();
  lagged.simulation.dispose();

  // 3. A boil (p = 1, water above its boiling temperature) edited before its readback.
  const hot = potScene('webgpu', engine, 1);
  await hot.simulation.ready();
  const ids = hot.simulation.particles();
  const { Temperature } = hot.simulation.components;
  for (const id of ids) Temperature[id] = 380;
  hot.simulation.step();
  // Before the step's readback applies: a temperature edit below boiling on every particle.
  for (const id of ids) Temperature[id] = 290;
  hot.simulation.markParticlesChanged(ids);
  hot.simulation.step();
  await hot.simulation.readback();
  const boiledBeforeEdit = census(hot.simulation, hot.vapour).air;
  const afterEdit = await compareGpuMaterials(hot.simulation, hot.vapour);
  hot.simulation.dispose();

  // 4. A boiling step whose readback is skipped (three readbacks hold every staging buffer), then off.
  const skipped = potScene('webgpu', engine, 1);
  await skipped.simulation.ready();
  const skippedSolver = solverOf(skipped.simulation);
  for (const id of skipped.simulation.particles()) skipped.simulation.components.Temperature[id] = 380;
  const busy = [skippedSolver.readback(false), skippedSolver.readback(false), skippedSolver.readback(false)];
  skipped.simulation.step();
  await Promise.all(busy);
  await Promise.all([...(gpuOf(skipped.simulation)?.inFlight ?? [])]);
  skipped.simulation.components.FluidMaterial.boilingTemperature[skipped.water] = 0;
  skipped.simulation.step();
  await skipped.simulation.readback();
  const boiledSkipped = census(skipped.simulation, skipped.vapour).air;
  const afterSkip = await compareGpuMaterials(skipped.simulation, skipped.vapour);
  skipped.simulation.dispose();

  return {
    backend,
    createdAfterNonFinite,
    nonFiniteThrew,
    createdFromNaNCandidate,
    generatedAwaited,
    generatedLagged,
    boiledBeforeEdit,
    materialMismatchAfterEdit: afterEdit.material,
    colorMismatchAfterEdit: afterEdit.color,
    boiledSkipped,
    materialMismatchAfterSkip: afterSkip.material,
  };
}
