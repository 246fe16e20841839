/**
 * Fluid-fluid interaction (Müller et al. 2005) on the WebGPU backend against the CPU reference, run in the
 * harness page (gpu.html): each scene is built twice, once per backend, with the same calls (so the same
 * entity ids), stepped in lockstep, and compared per entity after a readback. Scenes (all small, for
 * SwiftShader on shared cores):
 * - `separation`: the buoyancy test's 500 / 1000 mixture (number-density constraint), 432 particles;
 * - `temperature`: a hot and a cold half diffusing (thermal diffusivity) in a tank whose floor heats them
 *   (a heated collider, `heatTransfer`);
 * - `tension`: a square drop of one liquid in another without gravity (interface tension) with surface
 *   tension on both;
 * - `color`: a red and a blue half mixing their render colors (color diffusivity);
 * - `pairs`: two materials with different interface tensions and thermal and color diffusivities, both
 *   channels non-uniform (the pair means sigma_ij and c_ij of multifluid/interaction.ts);
 * - `coupled`: the 500 / 1000 mixture under a box coupled with a rigid body (the number-density wall shares
 *   of the apply pass, couple/apply.wgsl).
 * The `temperature` scene takes options for a water-like diffusivity (`diffusivity`, `temperatures`) and a
 * diffusivity that needs tens of parts per substep. Also `multiFluidSolvers`: the PBF solver runs every
 * feature on WebGPU; WCSPH on WebGPU refuses them; and `multiFluidSnapshot`: a WebGPU snapshot after
 * diffusion restored on the CPU.
 */
import type { WebGPUEngine } from '@babylonjs/core/Engines/webgpuEngine.js';
import { FluidSimulation } from '../../src';
import { gpuOf } from './air';

/** The scenes of {@link multiFluidParity}. */
export type MultiFluidScene = 'separation' | 'temperature' | 'tension' | 'color' | 'pairs' | 'coupled';

/** Options of {@link multiFluidParity}. */
export interface MultiFluidParityOptions {
  /** Which scene. */
  scene: MultiFluidScene;
  /** Steps (of 1/60 s) run on both backends. */
  steps: number;
  /** Steps after which the backends are compared per particle (each 1-based, at most `steps`). */
  compareAt: number[];
  /** `temperature` scene: false leaves the colliders' heat transfer off (default true). */
  heat?: boolean;
  /** `temperature` scene: the water's thermal diffusivity (m^2/s, default 2e-3). */
  diffusivity?: number;
  /** `temperature` scene: the hot (left) and cold (right) half's temperatures (K, default [350, 290]). */
  temperatures?: [number, number];
  /**
   * `tension` scene: also steps a third simulation, on the CPU, with both tensions 0, and reports how far
   * its particles are from the CPU's with tension (`maxControlDifference`). Default false.
   */
  control?: boolean;
  /**
   * `temperature` scene: the water's rest density follows the temperature, alpha / T with alpha =
   * 1000 x 320 kg K/m^3 (eq. 16; 914 to 1103 kg/m^3 between 350 and 290 K), which turns on the
   * number-density constraint. Default false.
   */
  expands?: boolean;
  /**
   * After the comparison at this step, game code sets the first 20 particles' `Temperature` to 380 K and
   * `Color` to (0.5, 0.5, 0.5) on both backends and calls `markParticlesChanged` (the WebGPU backend
   * uploads them at the next step). Default: no edit.
   */
  editAfter?: number;
}

/** The comparison after one step. */
export interface MultiFluidParityStep {
  /** The step (1-based). */
  step: number;
  /** Largest |x_cpu - x_gpu| over the particles (m). */
  maxPositionDifference: number;
  /** Largest |T_cpu - T_gpu| (K). */
  maxTemperatureDifference: number;
  /** The particle with the largest temperature difference: CPU x, y, z, T, then GPU x, y, z, T. */
  worstTemperature: number[];
  /** Largest color difference over the three channels (dimensionless). */
  maxColorDifference: number;
  /** Spread of the temperatures on the CPU, max - min (K): how far diffusion and heating have gone. */
  temperatureSpreadCpu: number;
  /** Mean temperature on the CPU (K). */
  meanTemperatureCpu: number;
  /** Mean temperature on the WebGPU backend (K). */
  meanTemperatureGpu: number;
  /** Mean red channel of the first half's particles on the CPU (starts at 1). */
  meanRedCpu: number;
  /** The same on the WebGPU backend. */
  meanRedGpu: number;
  /** Largest |x - x0| on the CPU since the start (m): how far the particles moved. */
  maxDisplacementCpu: number;
  /** Fraction of the light particles above the heavy median on each backend (`separation` only). */
  separationCpu: number;
  /** The same on the WebGPU backend. */
  separationGpu: number;
  /** Largest |T - T0| on the CPU since the start (K): how far the temperatures moved. */
  maxTemperatureChangeCpu: number;
  /** `control` only: largest |x_cpu - x_control| (m), the control run without tension (else 0). */
  maxControlDifference: number;
  /**
   * `coupled` only: the impulses the fluid gave the coupled box since the previous comparison (both
   * backends' `takeBodyImpulse`), linear (N s) then angular (N m s): CPU, then WebGPU.
   */
  impulseCpu: number[];
  /** The same on the WebGPU backend. */
  impulseGpu: number[];
  /** `coupled` only: |J_gpu - J_cpu| / |J_cpu| of the linear impulses (else 0). */
  linearImpulseRelative: number;
  /** `stats.meanDensityError` of the CPU simulation after the step. */
  meanDensityErrorCpu: number;
  /** `stats.meanDensityError` of the WebGPU simulation after its readback. */
  meanDensityErrorGpu: number;
  /** `stats.fullNeighbourhoodCount` of the CPU simulation (the particles the density error covers). */
  fullNeighbourhoodCpu: number;
  /** `stats.fullNeighbourhoodCount` of the WebGPU simulation. */
  fullNeighbourhoodGpu: number;
}

/** Result of {@link multiFluidParity}. */
export interface MultiFluidParityResult {
  /** The WebGPU simulation's backend after the run ('webgpu' unless it fell back to the CPU). */
  backend: string;
  /** Particles of the scene. */
  particles: number;
  /** Separation fraction at the start (`separation` only, else 0). */
  separationMixed: number;
  /** The comparisons, one per step of `compareAt`. */
  steps: MultiFluidParityStep[];
  /** Non-finite positions or temperatures read back from the GPU. */
  nonFinite: number;
  /** The WebGPU simulation's `stats.diffusionLimitedSubsteps` at the end (0 when its estimate held). */
  diffusionLimitedSubsteps: number;
}

/** mulberry32: deterministic uniform numbers in [0, 1) (the same generator as tests/helpers.ts). */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

interface BuiltScene {
  simulation: FluidSimulation;
  ids: Uint32Array;
  /** Material of the light fluid (`separation`) or of the first half. */
  light: number;
  /** The particles of the first half (red / hot). */
  first: Set<number>;
  /** `coupled`: the coupled box's collider entity (else -1). */
  body: number;
}

/** Position (m) of the `coupled` scene's box: just above the mixture's top layer (y = 0.475 m). */
const COUPLED_BOX_POSITION: [number, number, number] = [0.15, 0.55, 0.1];

function build(backend: 'cpu' | 'webgpu', engine: WebGPUEngine, args: BuildOptions): BuiltScene {
  const { scene, heat = true, expands = false } = args;
  if (scene === 'separation' || scene === 'coupled') {
    // The buoyancy test of tests/multifluid.test.ts (seed 7), 6 x 18 x 4 = 432 particles.
    const simulation = new FluidSimulation({
      projection: false,
      particleRadius: 0.025,
      capacity: 1024,
      backend,
      engine,
    });
    const heavy = simulation.addMaterial({ restDensity: 1000, numberDensity: true });
    const light = simulation.addMaterial({ restDensity: 500, numberDensity: true });
    simulation.addCollider({ shape: 'box', min: [0, 0, 0], max: [0.37, 1.5, 0.27], container: true });
    // `coupled`: a lower block (240 particles, top centers at 0.475 m) under the box.
    const top = scene === 'coupled' ? 0.5 : 0.9;
    const ids = simulation.spawnBlock({ min: [0, 0, 0], max: [0.3, top, 0.2], material: heavy });
    const next = random(7);
    const { Particle, Position } = simulation.components;
    for (const id of ids) {
      if (next() < 0.5) Particle.material[id] = light;
      Position.x[id] += (next() - 0.5) * 0.015;
      Position.y[id] += (next() - 0.5) * 0.015;
      Position.z[id] += (next() - 0.5) * 0.015;
    }
    if (scene === 'coupled') {
      // A box coupled with a rigid body (center of mass off its center), held at a fixed pose 0.025 m above
      // the top particles' centers: the mixture presses on it through the wall weights of the
      // number-density solve (the wall shares the apply pass decodes from solve.y).
      const body = simulation.addCollider({
        shape: 'box',
        min: [-0.08, -0.05, -0.06],
        max: [0.08, 0.05, 0.06],
        rigidBody: { centerOfMass: [0.01, -0.01, 0] },
      });
      simulation.setColliderTransform(body, { position: COUPLED_BOX_POSITION, teleport: true });
      return { simulation, ids, light, first: new Set(), body };
    }
    return { simulation, ids, light, first: new Set(), body: -1 };
  }
  if (scene === 'pairs') {
    // No gravity: a 0.1 m square column of oil (interface color +0.5, sigma^i 0, thermal diffusivity
    // 5e-4, color diffusivity 3e-3 m^2/s) in a 0.2 m block of water (-0.5, sigma^i 2 N/m, 2e-3 and 1e-3
    // m^2/s); the left half at 350 K and the right at 290 K, the bottom half red and the top half blue, so
    // both channels cross the material interface.
    const simulation = new FluidSimulation({
      particleRadius: 0.0125,
      capacity: 1024,
      backend,
      engine,
      gravity: [0, 0, 0],
      projection: false,
    });
    const water = simulation.addMaterial({
      interfaceColor: -0.5,
      interfaceTension: 2,
      diffusivity: 2e-3,
      colorDiffusivity: 1e-3,
    });
    const oil = simulation.addMaterial({
      restDensity: 800,
      interfaceColor: 0.5,
      interfaceTension: 0,
      diffusivity: 5e-4,
      colorDiffusivity: 3e-3,
    });
    const ids = simulation.spawnBlock({ min: [0, 0, 0], max: [0.2, 0.2, 0.1], material: water });
    const { Particle, Position, Temperature, Color } = simulation.components;
    const inner = new Set<number>();
    for (const id of ids) {
      const x = Position.x[id];
      const y = Position.y[id];
      if (x > 0.05 && x < 0.15 && y > 0.05 && y < 0.15) {
        Particle.material[id] = oil;
        inner.add(id);
      }
      Temperature[id] = x < 0.1 ? 350 : 290;
      const red = y < 0.1 ? 1 : 0;
      Color.red[id] = red;
      Color.green[id] = 0;
      Color.blue[id] = 1 - red;
    }
    return { simulation, ids, light: oil, first: inner, body: -1 };
  }
  if (scene === 'temperature') {
    // A 0.2 x 0.1 x 0.1 m block (320 particles), its left half at 350 K, the right at 290 K, thermal
    // diffusivity 2e-3 m^2/s (fast, to see it within a few steps), in a tank whose floor (a heated plane,
    // 400 K, 20 1/s) heats the bottom layer; a cold sphere (250 K) touches the block's side.
    const simulation = new FluidSimulation({
      projection: false,
      particleRadius: 0.0125,
      capacity: 1024,
      backend,
      engine,
    });
    const water = simulation.addMaterial({
      diffusivity: args.diffusivity ?? 2e-3,
      temperatureDensity: expands ? 1000 * 320 : 0,
    });
    simulation.addCollider({ shape: 'box', min: [-0.0031, 0, -0.0047], max: [0.2, 0.4, 0.1], container: true });
    simulation.addCollider({
      shape: 'plane',
      point: [0, 0, 0],
      normal: [0, 1, 0],
      temperature: 400,
      heatTransfer: heat ? 20 : 0,
    });
    simulation.addCollider({
      shape: 'sphere',
      center: [0.23, 0.04, 0.05],
      radius: 0.04,
      temperature: 250,
      heatTransfer: heat ? 5 : 0,
    });
    const [hotTemperature, coldTemperature] = args.temperatures ?? [350, 290];
    const hot = simulation.spawnBlock({
      min: [0, 0, 0],
      max: [0.1, 0.1, 0.1],
      material: water,
      temperature: hotTemperature,
    });
    const cold = simulation.spawnBlock({
      min: [0.1, 0, 0],
      max: [0.19, 0.1, 0.1],
      material: water,
      temperature: coldTemperature,
    });
    const ids = new Uint32Array([...hot, ...cold]);
    return { simulation, ids, light: water, first: new Set(hot), body: -1 };
  }
  if (scene === 'tension') {
    // No gravity: a 0.1 m cube of oil (interface color +0.5) in the middle of a 0.2 m cube of water (-0.5),
    // interface tension 2 N/m, surface tension 0.5 N/m on both (the outer cube's corners round off too).
    const simulation = new FluidSimulation({
      particleRadius: 0.0125,
      capacity: 1024,
      backend,
      engine,
      gravity: [0, 0, 0],
      projection: false,
    });
    // `tensionScale` 0: the control run without tension.
    const scale = args.tensionScale ?? 1;
    const water = simulation.addMaterial({
      interfaceColor: -0.5,
      interfaceTension: 2 * scale,
      surfaceTension: 0.5 * scale,
    });
    const oil = simulation.addMaterial({
      restDensity: 800,
      interfaceColor: 0.5,
      interfaceTension: 2 * scale,
      surfaceTension: 0.5 * scale,
    });
    const ids = simulation.spawnBlock({ min: [0, 0, 0], max: [0.2, 0.2, 0.1], material: water });
    const { Particle, Position } = simulation.components;
    const inner = new Set<number>();
    for (const id of ids) {
      const x = Position.x[id];
      const y = Position.y[id];
      if (x > 0.05 && x < 0.15 && y > 0.05 && y < 0.15) {
        Particle.material[id] = oil;
        inner.add(id);
      }
    }
    return { simulation, ids, light: oil, first: inner, body: -1 };
  }
  // color: a red and a blue half of one water (color diffusivity 2e-3 m^2/s) resting in a tank.
  const simulation = new FluidSimulation({
    projection: false,
    particleRadius: 0.0125,
    capacity: 1024,
    backend,
    engine,
  });
  const water = simulation.addMaterial({ colorDiffusivity: 2e-3 });
  simulation.addCollider({ shape: 'box', min: [-0.0031, 0, -0.0047], max: [0.2, 0.4, 0.1], container: true });
  const red = simulation.spawnBlock({ min: [0, 0, 0], max: [0.1, 0.1, 0.1], material: water, color: [1, 0, 0] });
  const blue = simulation.spawnBlock({ min: [0.1, 0, 0], max: [0.2, 0.1, 0.1], material: water, color: [0, 0, 1] });
  return { simulation, ids: new Uint32Array([...red, ...blue]), light: water, first: new Set(red), body: -1 };
}

/** What {@link build} reads: the parity options and, for the `tension` control run, a tension factor. */
interface BuildOptions extends Omit<MultiFluidParityOptions, 'steps' | 'compareAt'> {
  /** `tension` scene: factor of both tensions (default 1; 0 for the control run). */
  tensionScale?: number;
}

/** Largest |x_a - x_b| over `ids` between two simulations of the same scene (m). */
function largestPositionDifference(ids: Uint32Array, a: FluidSimulation, b: FluidSimulation): number {
  let largest = 0;
  const p = a.components.Position;
  const q = b.components.Position;
  for (const id of ids) {
    largest = Math.max(largest, Math.hypot(p.x[id] - q.x[id], p.y[id] - q.y[id], p.z[id] - q.z[id]));
  }
  return largest;
}

/** The impulse a simulation's coupled body took since the last call: linear then angular components. */
function takeImpulse(simulation: FluidSimulation, body: number): number[] {
  const { impulse, angularImpulse } = simulation.takeBodyImpulse(body);
  return [...impulse, ...angularImpulse];
}

/** Fraction of the light particles above the median height of the heavy ones. */
function separation(built: BuiltScene): number {
  const { Particle, Position } = built.simulation.components;
  const heavy: number[] = [];
  const light: number[] = [];
  for (const id of built.ids) (Particle.material[id] === built.light ? light : heavy).push(Position.y[id]);
  if (light.length === 0 || heavy.length === 0) return 0;
  heavy.sort((a, b) => a - b);
  const median = heavy[heavy.length >> 1];
  return light.filter((y) => y > median).length / light.length;
}

/** Runs `args.scene` on both backends for `args.steps` steps, comparing after the steps in `compareAt`. */
export async function multiFluidParity(
  engine: WebGPUEngine,
  args: MultiFluidParityOptions,
): Promise<MultiFluidParityResult> {
  const cpu = build('cpu', engine, args);
  const gpu = build('webgpu', engine, args);
  const control = args.control ? build('cpu', engine, { ...args, tensionScale: 0 }) : undefined;
  await gpu.simulation.ready();
  const separationMixed = args.scene === 'separation' ? separation(cpu) : 0;
  const start = cpu.ids.map((id) => id);
  const startX = Array.from(start, (id) => cpu.simulation.components.Position.x[id]);
  const startY = Array.from(start, (id) => cpu.simulation.components.Position.y[id]);
  const startZ = Array.from(start, (id) => cpu.simulation.components.Position.z[id]);
  const startTemperature = Array.from(start, (id) => cpu.simulation.components.Temperature[id]);
  const steps: MultiFluidParityStep[] = [];
  let nonFinite = 0;
  const compareAt = new Set(args.compareAt);
  for (let step = 1; step <= args.steps; step++) {
    cpu.simulation.step();
    gpu.simulation.step();
    control?.simulation.step();
    if (!compareAt.has(step)) continue;
    await gpu.simulation.readback();
    const a = cpu.simulation.components;
    const b = gpu.simulation.components;
    const result: MultiFluidParityStep = {
      step,
      maxPositionDifference: 0,
      maxTemperatureDifference: 0,
      worstTemperature: [],
      maxColorDifference: 0,
      temperatureSpreadCpu: 0,
      meanTemperatureCpu: 0,
      meanTemperatureGpu: 0,
      meanRedCpu: 0,
      meanRedGpu: 0,
      maxDisplacementCpu: 0,
      separationCpu: 0,
      separationGpu: 0,
      maxTemperatureChangeCpu: 0,
      maxControlDifference: control ? largestPositionDifference(cpu.ids, cpu.simulation, control.simulation) : 0,
      impulseCpu: [],
      impulseGpu: [],
      linearImpulseRelative: 0,
      meanDensityErrorCpu: cpu.simulation.stats.meanDensityError,
      meanDensityErrorGpu: gpu.simulation.stats.meanDensityError,
      fullNeighbourhoodCpu: cpu.simulation.stats.fullNeighbourhoodCount,
      fullNeighbourhoodGpu: gpu.simulation.stats.fullNeighbourhoodCount,
    };
    if (cpu.body >= 0) {
      result.impulseCpu = takeImpulse(cpu.simulation, cpu.body);
      result.impulseGpu = takeImpulse(gpu.simulation, gpu.body);
      const [a0, a1, a2] = result.impulseCpu;
      const [b0, b1, b2] = result.impulseGpu;
      result.linearImpulseRelative = Math.hypot(b0 - a0, b1 - a1, b2 - a2) / Math.hypot(a0, a1, a2);
    }
    let lowest = Number.POSITIVE_INFINITY;
    let highest = Number.NEGATIVE_INFINITY;
    cpu.ids.forEach((id, k) => {
      const x = [b.Position.x[id], b.Position.y[id], b.Position.z[id], b.Temperature[id]];
      if (!x.every(Number.isFinite)) nonFinite++;
      result.maxPositionDifference = Math.max(
        result.maxPositionDifference,
        Math.hypot(a.Position.x[id] - x[0], a.Position.y[id] - x[1], a.Position.z[id] - x[2]),
      );
      result.maxDisplacementCpu = Math.max(
        result.maxDisplacementCpu,
        Math.hypot(a.Position.x[id] - startX[k], a.Position.y[id] - startY[k], a.Position.z[id] - startZ[k]),
      );
      const temperatureDifference = Math.abs(a.Temperature[id] - b.Temperature[id]);
      if (temperatureDifference > result.maxTemperatureDifference) {
        result.maxTemperatureDifference = temperatureDifference;
        result.worstTemperature = [a.Position.x[id], a.Position.y[id], a.Position.z[id], a.Temperature[id], ...x];
      }
      result.maxColorDifference = Math.max(
        result.maxColorDifference,
        Math.abs(a.Color.red[id] - b.Color.red[id]),
        Math.abs(a.Color.green[id] - b.Color.green[id]),
        Math.abs(a.Color.blue[id] - b.Color.blue[id]),
      );
      result.maxTemperatureChangeCpu = Math.max(
        result.maxTemperatureChangeCpu,
        Math.abs(a.Temperature[id] - startTemperature[k]),
      );
      lowest = Math.min(lowest, a.Temperature[id]);
      highest = Math.max(highest, a.Temperature[id]);
      result.meanTemperatureCpu += a.Temperature[id] / cpu.ids.length;
      result.meanTemperatureGpu += b.Temperature[id] / cpu.ids.length;
    });
    result.temperatureSpreadCpu = highest - lowest;
    for (const id of cpu.first) {
      result.meanRedCpu += a.Color.red[id] / cpu.first.size;
      result.meanRedGpu += b.Color.red[id] / cpu.first.size;
    }
    if (args.scene === 'separation') {
      result.separationCpu = separation(cpu);
      result.separationGpu = separation(gpu);
    }
    steps.push(result);
    if (step === args.editAfter) {
      for (const built of [cpu, gpu]) {
        const edited = built.ids.subarray(0, 20);
        const { Temperature, Color } = built.simulation.components;
        for (const id of edited) {
          Temperature[id] = 380;
          Color.red[id] = 0.5;
          Color.green[id] = 0.5;
          Color.blue[id] = 0.5;
        }
        built.simulation.markParticlesChanged(edited);
      }
    }
  }
  const backend = gpu.simulation.stats.backend;
  const diffusionLimitedSubsteps = gpu.simulation.stats.diffusionLimitedSubsteps;
  cpu.simulation.dispose();
  gpu.simulation.dispose();
  control?.simulation.dispose();
  return { backend, particles: cpu.ids.length, separationMixed, steps, nonFinite, diffusionLimitedSubsteps };
}

/** Result of {@link multiFluidSolvers}. */
export interface MultiFluidSolversResult {
  /** Steps of a PBF WebGPU scene with every feature on that ran without error. */
  pbfSteps: number;
  /** The PBF WebGPU scene's backend (it must not have fallen back to the CPU). */
  pbfBackend: string;
  /** Particles of the PBF scene. */
  pbfParticles: number;
  /**
   * Particles of the PBF scene whose position or temperature is not finite after the readback, plus 1 if
   * the readback reported a non-finite GPU state (the components then keep their last finite values, and
   * the next step throws: `pbfNextStepError`).
   */
  pbfNonFinite: number;
  /** Error of one more step after the readback ('' if none; a non-finite GPU state makes it throw). */
  pbfNextStepError: string;
  /** Largest distance a particle moved from where it was spawned (m): the readback was applied. */
  pbfMoved: number;
  /** Largest |T - 293.15 K| over the particles (K): the heated container warmed the fluid. */
  pbfWarmed: number;
  /**
   * Errors of three steps after game code marked a particle changed with a bad value: `Temperature` NaN,
   * `Color.red` 2, and (an oil particle, its material's alpha raised to 1e12 kg K/m^3) a rest density
   * alpha / T out of range; each must be a FluidError thrown before the step changed anything.
   */
  pbfBadValueErrors: string[];
  /** `stats.stepCount` advances over those three refused steps (0: none ran). */
  pbfBadValueSteps: number;
  /** Error of a step after the values were corrected ('' if none). */
  pbfCorrectedError: string;
  /**
   * Errors of a WCSPH WebGPU simulation given an interface tension, the number-density estimate and a
   * collider with heat transfer, and of its step ('' each where none).
   */
  sphErrors: string[];
  /** Pass names of that WCSPH simulation's profiled step. */
  sphPasses: string[];
}

function errorOf(action: () => void): string {
  try {
    action();
    return '';
  } catch (error) {
    return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
  }
}

/**
 * The PBF solver on WebGPU accepts every fluid-fluid feature (materials and colliders added, a few steps
 * with them all on); the WCSPH solver on WebGPU still refuses them with a FluidError.
 */
export async function multiFluidSolvers(engine: WebGPUEngine): Promise<MultiFluidSolversResult> {
  const pbf = new FluidSimulation({ particleRadius: 0.025, capacity: 512, backend: 'webgpu', engine });
  await pbf.ready();
  const water = pbf.addMaterial({ interfaceColor: -0.5, interfaceTension: 1, surfaceTension: 0.5, diffusivity: 1e-4 });
  const oil = pbf.addMaterial({
    restDensity: 800,
    numberDensity: true,
    interfaceColor: 0.5,
    interfaceTension: 1,
    colorDiffusivity: 1e-4,
    temperatureDensity: 800 * 293.15,
  });
  pbf.addCollider({
    shape: 'box',
    min: [0, 0, 0],
    max: [0.4, 0.6, 0.2],
    container: true,
    heatTransfer: 1,
    temperature: 350,
  });
  const ids = [
    ...pbf.spawnBlock({ min: [0, 0, 0], max: [0.2, 0.2, 0.2], material: water }),
    ...pbf.spawnBlock({ min: [0.2, 0, 0], max: [0.4, 0.2, 0.2], material: oil }),
  ];
  const { Position, Temperature } = pbf.components;
  const spawned = ids.map((id) => [Position.x[id], Position.y[id], Position.z[id]]);
  let pbfSteps = 0;
  for (let frame = 0; frame < 3; frame++) {
    pbf.step();
    pbfSteps++;
  }
  await pbf.readback();
  let pbfNonFinite = 0;
  let pbfMoved = 0;
  let pbfWarmed = 0;
  ids.forEach((id, k) => {
    const values = [Position.x[id], Position.y[id], Position.z[id], Temperature[id]];
    if (!values.every(Number.isFinite)) pbfNonFinite++;
    const [x, y, z] = spawned[k];
    pbfMoved = Math.max(pbfMoved, Math.hypot(values[0] - x, values[1] - y, values[2] - z));
    pbfWarmed = Math.max(pbfWarmed, Math.abs(values[3] - 293.15));
  });
  const pbfNextStepError = errorOf(() => pbf.step());
  if (pbfNextStepError !== '') pbfNonFinite++;
  // Bad values uploaded by markParticlesChanged are refused at the step's start, as on the CPU.
  const { Color, FluidMaterial } = pbf.components;
  const waterParticle = ids[0];
  const oilParticle = ids[ids.length - 1];
  const stepsBefore = pbf.stats.stepCount;
  const pbfBadValueErrors: string[] = [];
  Temperature[waterParticle] = Number.NaN;
  pbf.markParticlesChanged([waterParticle]);
  pbfBadValueErrors.push(errorOf(() => pbf.step()));
  Temperature[waterParticle] = 300;
  Color.red[waterParticle] = 2;
  pbfBadValueErrors.push(errorOf(() => pbf.step()));
  Color.red[waterParticle] = 1;
  const alpha = FluidMaterial.temperatureDensity[oil];
  FluidMaterial.temperatureDensity[oil] = 1e12;
  pbf.markParticlesChanged([oilParticle]);
  pbfBadValueErrors.push(errorOf(() => pbf.step()));
  const pbfBadValueSteps = pbf.stats.stepCount - stepsBefore;
  FluidMaterial.temperatureDensity[oil] = alpha;
  const pbfCorrectedError = errorOf(() => pbf.step());
  const pbfBackend = pbf.stats.backend;
  pbf.dispose();
  const sph = new FluidSimulation({ particleRadius: 0.025, capacity: 512, backend: 'webgpu', engine, solver: 'sph' });
  await sph.ready();
  let sphMaterial = 0;
  const sphErrors = [
    errorOf(() => {
      sphMaterial = sph.addMaterial({ interfaceTension: 1, interfaceColor: -0.5 });
    }),
    errorOf(() => sph.addMaterial({ numberDensity: true, interfaceColor: 0.5, restDensity: 800 })),
    errorOf(() => sph.addCollider({ shape: 'plane', point: [0, 0, 0], normal: [0, 1, 0], heatTransfer: 1 })),
  ];
  sph.spawnBlock({ min: [0, 0, 0], max: [0.1, 0.1, 0.1], material: sphMaterial });
  sphErrors.push(errorOf(() => sph.step()));
  await sph.readback();
  const sphSolver = gpuOf(sph)?.solver;
  const sphPasses = sphSolver ? Object.keys(await sphSolver.profileStep()) : [];
  sph.dispose();
  return {
    pbfSteps,
    pbfBackend,
    pbfParticles: ids.length,
    pbfNonFinite,
    pbfNextStepError,
    pbfMoved,
    pbfWarmed,
    pbfBadValueErrors,
    pbfBadValueSteps,
    pbfCorrectedError,
    sphErrors,
    sphPasses,
  };
}

/** Result of {@link multiFluidSnapshot}. */
export interface MultiFluidSnapshotResult {
  /** The WebGPU simulation's backend. */
  backend: string;
  /** Particles compared. */
  particles: number;
  /** Largest |T0 - T_cpu| after the run (K): how far the CPU reference diffused. */
  diffusedCpu: number;
  /** Largest |T_gpu - T_cpu| of the WebGPU simulation's components after its readback (K). */
  maxReadbackDifference: number;
  /** Largest |T_restored - T_cpu| of the snapshot restored on a CPU simulation (K). */
  maxRestoredDifference: number;
  /** Largest |T_restored - T_gpu|: the snapshot keeps the components' temperatures exactly (K). */
  maxRestoredToGpuDifference: number;
}

/**
 * A WebGPU snapshot after diffusion keeps the diffused temperatures. The `temperature` scene (diffusion
 * only, no collider heat) runs on both backends with the WebGPU one in mirror mode 'on-demand' (no
 * readback of the particles while stepping): 4 steps with diffusion, then the water's diffusivity is set to
 * 0 on both and 1 more step runs (the features no longer diffuse when the readback is requested), then the
 * WebGPU simulation is read back, snapshotted and restored on a new CPU simulation; its temperatures are
 * compared with the CPU reference's.
 */
export async function multiFluidSnapshot(engine: WebGPUEngine): Promise<MultiFluidSnapshotResult> {
  const options: BuildOptions = { scene: 'temperature', heat: false };
  const cpu = build('cpu', engine, options);
  const gpu = build('webgpu', engine, options);
  gpu.simulation.mirror = 'on-demand';
  await gpu.simulation.ready();
  const initial = Array.from(cpu.ids, (id) => cpu.simulation.components.Temperature[id]);
  for (let step = 0; step < 5; step++) {
    if (step === 4) {
      for (const built of [cpu, gpu]) built.simulation.components.FluidMaterial.diffusivity[built.light] = 0;
    }
    cpu.simulation.step();
    gpu.simulation.step();
  }
  await gpu.simulation.readback();
  const restored = FluidSimulation.fromSnapshot(gpu.simulation.snapshot(), { backend: 'cpu' });
  const a = cpu.simulation.components.Temperature;
  const b = gpu.simulation.components.Temperature;
  const c = restored.components.Temperature;
  const result: MultiFluidSnapshotResult = {
    backend: gpu.simulation.stats.backend,
    particles: cpu.ids.length,
    diffusedCpu: 0,
    maxReadbackDifference: 0,
    maxRestoredDifference: 0,
    maxRestoredToGpuDifference: 0,
  };
  cpu.ids.forEach((id, k) => {
    result.diffusedCpu = Math.max(result.diffusedCpu, Math.abs(a[id] - initial[k]));
    result.maxReadbackDifference = Math.max(result.maxReadbackDifference, Math.abs(b[id] - a[id]));
    result.maxRestoredDifference = Math.max(result.maxRestoredDifference, Math.abs(c[id] - a[id]));
    result.maxRestoredToGpuDifference = Math.max(result.maxRestoredToGpuDifference, Math.abs(c[id] - b[id]));
  });
  cpu.simulation.dispose();
  gpu.simulation.dispose();
  restored.dispose();
  return result;
}
