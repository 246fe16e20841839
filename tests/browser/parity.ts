/**
 * Parity scenarios of the WebGPU backend against the CPU reference, run in the harness page (gpu.html):
 * the same scene is built twice, once per backend, with the same calls (so the same entity ids), and the
 * results are compared per entity. Results are plain numbers for the Node-side test to assert on.
 */
import type { WebGPUEngine } from '@babylonjs/core/Engines/webgpuEngine.js';
import { bakeSignedDistanceField, createBoxMesh, FluidSimulation } from '../../src';
import { collideParticles, colliderPoseSystem, computeWallWeights } from '../../src/systems/collide/cpu';
import type { SimulationContext } from '../../src/systems/context';
import { computeCorrections, computeLambda } from '../../src/systems/density/cpu';
import { applyCorrections } from '../../src/systems/density/shared';
import { gatherSceneSystem, gatherSystem } from '../../src/systems/gather';
import { word } from '../../src/systems/gpu/layout';
import type { NeighbourMode } from '../../src/systems/gpu/shaderSource';
import { Contact, ParticleInfo } from '../../src/systems/gpu/structs';
import { neighbourModeForTests } from '../../src/systems/gpu/testHooks';
import { neighbourSystem } from '../../src/systems/neighbours/cpu';
import { predictSystem } from '../../src/systems/predict/cpu';

/** Variations of the kernel-parity scene (for diagnosis). */
export interface KernelSceneOptions {
  substeps?: number;
  iterations?: number;
  mesh?: boolean;
  sphere?: boolean;
  vorticity?: number;
  viscosity?: number;
  /** Compare the kernels at this solver iteration of the first substep (default 1). */
  iteration?: number;
  /**
   * A gentle scene instead: no gravity, both blocks at rest density with a swirling velocity field
   * (0.3 m/s), so particles hardly move within a substep and both backends see the same neighbours.
   */
  swirl?: boolean;
  /** The WebGPU solver's neighbour mode (default: what the device's limits give, `'list'` here). */
  neighbourMode?: NeighbourMode;
}

/** Builds the kernel-parity scene on one backend: a falling, compressed block in a box tank with a sphere, a rotated mesh box. */
export function kernelScene(
  backend: 'cpu' | 'webgpu',
  engine: WebGPUEngine,
  options: KernelSceneOptions = {},
): FluidSimulation {
  neighbourModeForTests.mode = options.neighbourMode;
  const simulation = new FluidSimulation({
    particleRadius: 0.025,
    capacity: 4096,
    backend,
    engine,
    mirror: 'off',
    projection: false,
    substeps: options.substeps ?? 2,
    iterations: options.iterations ?? 3,
    gravity: options.swirl ? [0, 0, 0] : [0, -9.81, 0],
  });
  neighbourModeForTests.mode = undefined;
  const water = simulation.addMaterial({ vorticity: options.vorticity ?? 0.01, viscosity: options.viscosity ?? 0.01 });
  const oil = simulation.addMaterial({
    restDensity: 700,
    viscosity: options.viscosity ?? 0.05,
    vorticity: options.vorticity ?? 0.01,
  });
  // The tank is offset from the spawn lattice so that no particle sits exactly on a sample of the wall
  // weight table, whose piecewise-linear slope jumps there (float32 and float64 would pick different sides).
  simulation.addCollider({
    shape: 'box',
    min: [-0.0137, -0.0071, -0.0093],
    max: [0.8119, 0.8, 0.5087],
    container: true,
    friction: 0.3,
  });
  if (options.sphere !== false) {
    simulation.addCollider({ shape: 'sphere', center: [0.4, 0.05, 0.25], radius: 0.08, restitution: 0.2 });
  }
  let mesh = -1;
  if (options.mesh !== false) {
    const field = bakeSignedDistanceField(createBoxMesh([-0.06, -0.06, -0.06], [0.06, 0.06, 0.06]), { resolution: 24 });
    mesh = simulation.addCollider({ shape: 'mesh', field });
    simulation.setColliderTransform(mesh, {
      position: [0.65, 0.08, 0.25],
      rotation: [0, 0.3826834, 0, 0.9238795],
      teleport: true,
    });
  }
  // Two blocks falling onto the floor and the colliders: compressed predicted positions give non-zero lambdas.
  simulation.spawnBlock({ min: [0.02, 0.0, 0.02], max: [0.5, 0.25, 0.48], material: water, velocity: [0.3, -2.5, 0] });
  simulation.spawnBlock({ min: [0.5, 0.1, 0.02], max: [0.78, 0.3, 0.48], material: oil, velocity: [-0.5, -1.5, 0.2] });
  if (mesh >= 0) simulation.setColliderTransform(mesh, { position: [0.62, 0.08, 0.25] });
  if (options.swirl) {
    const { Position, Velocity } = simulation;
    for (const eid of simulation.particles()) {
      const x = Position.x[eid] - 0.4;
      const y = Position.y[eid] - 0.15;
      const z = Position.z[eid] - 0.25;
      Velocity.x[eid] = -1.5 * z + 0.3 * Math.sin(20 * y);
      Velocity.y[eid] = 0.2 * Math.cos(15 * x);
      Velocity.z[eid] = 1.5 * x;
    }
  }
  return simulation;
}

interface Comparison {
  /** max |gpu - cpu| over particles. */
  maxAbsolute: number;
  /** max |cpu| over particles (the scale the error is relative to). */
  scale: number;
  /** maxAbsolute / scale. */
  relative: number;
  /** Particles compared. */
  count: number;
  /** The entity with the largest difference and its two values (for diagnosis). */
  worst: { entity: number; cpu: number[]; gpu: number[] };
  nonFinite: number;
}

function compare(cpu: Map<number, number[]>, gpu: Map<number, number[]>): Comparison {
  let maxAbsolute = 0;
  let scale = 0;
  let count = 0;
  let nonFinite = 0;
  let worst = { entity: -1, cpu: [] as number[], gpu: [] as number[] };
  for (const [eid, a] of cpu) {
    const b = gpu.get(eid);
    if (!b) throw new Error(`entity ${eid} missing on the GPU`);
    let difference = 0;
    let magnitude = 0;
    for (let k = 0; k < a.length; k++) {
      if (!Number.isFinite(b[k])) nonFinite++;
      difference += (a[k] - b[k]) ** 2;
      magnitude += a[k] ** 2;
    }
    if (Math.sqrt(difference) > maxAbsolute) worst = { entity: eid, cpu: a, gpu: b };
    maxAbsolute = Math.max(maxAbsolute, Math.sqrt(difference));
    scale = Math.max(scale, Math.sqrt(magnitude));
    count++;
  }
  if (gpu.size !== cpu.size) throw new Error(`GPU has ${gpu.size} particles, CPU ${cpu.size}`);
  return { maxAbsolute, scale, relative: scale > 0 ? maxAbsolute / scale : maxAbsolute, count, nonFinite, worst };
}

/**
 * Runs the CPU simulation's first substep by hand up to and including the neighbour search (gather, collider
 * poses, predict, neighbours) and returns its context, for comparing the next system with its GPU passes.
 */
export function firstSubstepUpToNeighbours(simulation: FluidSimulation): SimulationContext {
  const ctx = simulation.internalContext;
  ctx.frameTimeStep = simulation.settings.timeStep;
  ctx.substepTimeStep = simulation.settings.timeStep / simulation.settings.substeps;
  ctx.substepIndex = 0;
  gatherSystem(ctx);
  colliderPoseSystem(ctx);
  predictSystem(ctx);
  neighbourSystem(ctx);
  return ctx;
}

/** Result of {@link kernelParity}. */
export interface KernelParityResult {
  particles: number;
  density: Comparison;
  lambda: Comparison;
  wallGradient: Comparison;
  correction: Comparison;
  collided: Comparison;
  contacts: { cpu: number; gpu: number; agree: number };
  step: { position: Comparison; velocity: Comparison };
}

/**
 * Each kernel of the first substep against its CPU system on the same input: densities and lambdas (first
 * solver iteration), position corrections, positions after apply + collide; then a whole step.
 */
export async function kernelParity(
  engine: WebGPUEngine,
  options: KernelSceneOptions = {},
): Promise<KernelParityResult> {
  const cpu = kernelScene('cpu', engine, options);
  const gpu = kernelScene('webgpu', engine, options);
  await gpu.ready();
  // CPU: the first substep's systems by hand, up to the first iteration's collisions.
  const ctx = firstSubstepUpToNeighbours(cpu);
  const s = ctx.solver;
  s.contactCollider.fill(-1, 0, s.count);
  const cpuDensity = new Map<number, number[]>();
  const cpuLambda = new Map<number, number[]>();
  const cpuCorrection = new Map<number, number[]>();
  const cpuWall = new Map<number, number[]>();
  const gpuWall = new Map<number, number[]>();
  const iterations = options.iteration ?? 1;
  for (let iteration = 1; iteration <= iterations; iteration++) {
    computeWallWeights(ctx);
    computeLambda(ctx);
    computeCorrections(ctx);
    if (iteration === iterations) {
      for (let i = 0; i < s.count; i++) {
        cpuDensity.set(s.entity[i], [s.density[i]]);
        cpuLambda.set(s.entity[i], [s.lambda[i]]);
        cpuWall.set(s.entity[i], [s.wallGradientX[i], s.wallGradientY[i], s.wallGradientZ[i]]);
        cpuCorrection.set(s.entity[i], [s.deltaX[i], s.deltaY[i], s.deltaZ[i]]);
      }
    }
    applyCorrections(ctx);
    collideParticles(ctx);
  }
  const cpuCollided = new Map<number, number[]>();
  const cpuContact = new Map<number, number>();
  for (let i = 0; i < s.count; i++) {
    cpuCollided.set(s.entity[i], [s.predictedX[i], s.predictedY[i], s.predictedZ[i]]);
    cpuContact.set(s.entity[i], s.contactCollider[i]);
  }
  // GPU: the same step up to the first collide pass.
  const solver = gpu.gpuSolver;
  if (!solver) throw new Error('no GPU solver');
  // The CPU part of the GPU step (pipeline.ts: webGpuSystems) before the passes.
  gatherSceneSystem(gpu.internalContext);
  solver.stepUntil('collide', iterations);
  const n = gpu.particleCount;
  const info = new Uint32Array(await solver.readBuffer('sortedInfo', n * ParticleInfo.size));
  const solve = new Float32Array(await solver.readBuffer('solve', n * 16));
  const delta = new Float32Array(await solver.readBuffer('delta', n * 16));
  const wall = new Float32Array(await solver.readBuffer('wall', n * 16));
  const predicted = new Float32Array(await solver.readBuffer('sortedPredicted', n * 16));
  const contact = new Int32Array(await solver.readBuffer('contact', n * Contact.size));
  const gpuDensity = new Map<number, number[]>();
  const gpuLambda = new Map<number, number[]>();
  const gpuCorrection = new Map<number, number[]>();
  const gpuCollided = new Map<number, number[]>();
  const contacts = { cpu: 0, gpu: 0, agree: 0 };
  for (let k = 0; k < n; k++) {
    const eid = info[(k * ParticleInfo.size) / 4];
    gpuDensity.set(eid, [solve[4 * k]]);
    gpuLambda.set(eid, [solve[4 * k + 1]]);
    gpuWall.set(eid, [wall[4 * k], wall[4 * k + 1], wall[4 * k + 2]]);
    gpuCorrection.set(eid, [delta[4 * k], delta[4 * k + 1], delta[4 * k + 2]]);
    gpuCollided.set(eid, [predicted[4 * k], predicted[4 * k + 1], predicted[4 * k + 2]]);
    const gpuSlot = contact[word(Contact, 'collider', k * Contact.size)];
    const cpuSlot = cpuContact.get(eid) ?? -2;
    if (gpuSlot >= 0) contacts.gpu++;
    if (cpuSlot >= 0) contacts.cpu++;
    if (gpuSlot === cpuSlot && cpuSlot >= 0) contacts.agree++;
  }
  gpu.dispose();
  // A whole step on both backends from the same start.
  const cpuStep = kernelScene('cpu', engine, options);
  const gpuStep = kernelScene('webgpu', engine, options);
  await gpuStep.ready();
  cpuStep.step();
  gpuStep.step();
  await gpuStep.readback();
  const positions = (simulation: FluidSimulation) => {
    const map = new Map<number, number[]>();
    for (const eid of simulation.particles())
      map.set(eid, [simulation.Position.x[eid], simulation.Position.y[eid], simulation.Position.z[eid]]);
    return map;
  };
  const velocities = (simulation: FluidSimulation) => {
    const map = new Map<number, number[]>();
    for (const eid of simulation.particles())
      map.set(eid, [simulation.Velocity.x[eid], simulation.Velocity.y[eid], simulation.Velocity.z[eid]]);
    return map;
  };
  const step = {
    position: compare(positions(cpuStep), positions(gpuStep)),
    velocity: compare(velocities(cpuStep), velocities(gpuStep)),
  };
  gpuStep.dispose();
  return {
    particles: n,
    density: compare(cpuDensity, gpuDensity),
    lambda: compare(cpuLambda, gpuLambda),
    wallGradient: compare(cpuWall, gpuWall),
    correction: compare(cpuCorrection, gpuCorrection),
    collided: compare(cpuCollided, gpuCollided),
    contacts,
    step,
  };
}

/**
 * Mean |rho / rho0 - 1| over particles with a full neighbourhood (the particle and all its neighbours have
 * at least `full` neighbours within h), from positions alone (poly6, equal masses): the same measure for
 * both backends, close to `stats.meanDensityError` of the CPU backend.
 */
function densityError(
  positions: Float64Array,
  count: number,
  h: number,
  mass: number,
  restDensity: number,
  full: number,
): { error: number; counted: number } {
  const poly6 = 315 / (64 * Math.PI * h ** 9);
  const neighbours: number[][] = [];
  const density = new Float64Array(count);
  for (let i = 0; i < count; i++) {
    neighbours.push([]);
    density[i] = mass * poly6 * h ** 6;
  }
  for (let i = 0; i < count; i++) {
    for (let j = i + 1; j < count; j++) {
      const dx = positions[3 * i] - positions[3 * j];
      const dy = positions[3 * i + 1] - positions[3 * j + 1];
      const dz = positions[3 * i + 2] - positions[3 * j + 2];
      const r2 = dx * dx + dy * dy + dz * dz;
      if (r2 >= h * h) continue;
      const w = mass * poly6 * (h * h - r2) ** 3;
      density[i] += w;
      density[j] += w;
      neighbours[i].push(j);
      neighbours[j].push(i);
    }
  }
  let sum = 0;
  let counted = 0;
  for (let i = 0; i < count; i++) {
    if (neighbours[i].length < full || neighbours[i].some((j) => neighbours[j].length < full)) continue;
    sum += Math.abs(density[i] / restDensity - 1);
    counted++;
  }
  return { error: counted > 0 ? sum / counted : Number.NaN, counted };
}

/** One backend's dam-break figures. */
export interface DamBreakFigures {
  /** Surge front (largest x, m) at 0.1 s and 0.2 s (it reaches the far wall at about 0.22 s). */
  frontTenthSecond: number;
  frontFifthSecond: number;
  /** Density error (see `densityError`) at 1 s and at 2 s. */
  densityErrorOneSecond: number;
  densityErrorTwoSeconds: number;
  /** Particles with a full neighbourhood at 2 s. */
  fullNeighbourhoods: number;
  /** The backend's own `stats.meanDensityError` at 2 s. */
  statsDensityError: number;
  /** Mean height (m) at 2 s. */
  meanHeight: number;
  nonFinite: number;
  particles: number;
  outside: number;
}

/**
 * The dam break of tests/physics.test.ts (768 particles, a 0.4 x 0.6 x 0.4 m column) in a shorter tank
 * (0.8 m, so that a pool about 0.3 m deep forms and has particles with full neighbourhoods), 2 s, on both backends.
 */
export async function damBreakParity(engine: WebGPUEngine): Promise<{ cpu: DamBreakFigures; webgpu: DamBreakFigures }> {
  const run = async (backend: 'cpu' | 'webgpu'): Promise<DamBreakFigures> => {
    const simulation = new FluidSimulation({ projection: false, particleRadius: 0.025, backend, engine });
    const water = simulation.addMaterial({});
    simulation.addCollider({ shape: 'box', min: [0, 0, 0], max: [0.8, 1, 0.4], container: true });
    simulation.spawnBlock({ min: [0, 0, 0], max: [0.4, 0.6, 0.4], material: water });
    await simulation.ready();
    const h = simulation.settings.kernelRadius;
    const mass = simulation.components.FluidMaterial.particleMass[water];
    const full = simulation.internalContext.lattice.fullNeighbourhood;
    const figures: DamBreakFigures = {
      frontTenthSecond: 0,
      frontFifthSecond: 0,
      densityErrorOneSecond: 0,
      densityErrorTwoSeconds: 0,
      fullNeighbourhoods: 0,
      statsDensityError: 0,
      meanHeight: 0,
      nonFinite: 0,
      particles: 0,
      outside: 0,
    };
    const snapshot = () => {
      const ids = simulation.particles();
      const positions = new Float64Array(3 * ids.length);
      ids.forEach((eid, k) => {
        positions[3 * k] = simulation.Position.x[eid];
        positions[3 * k + 1] = simulation.Position.y[eid];
        positions[3 * k + 2] = simulation.Position.z[eid];
      });
      return positions;
    };
    for (let frame = 1; frame <= 120; frame++) {
      simulation.step();
      if (frame !== 6 && frame !== 12 && frame !== 60 && frame !== 120) continue;
      await simulation.readback();
      const positions = snapshot();
      const count = positions.length / 3;
      let front = 0;
      for (let k = 0; k < positions.length; k += 3) front = Math.max(front, positions[k]);
      if (frame === 6) figures.frontTenthSecond = front;
      if (frame === 12) figures.frontFifthSecond = front;
      if (frame === 60) figures.densityErrorOneSecond = densityError(positions, count, h, mass, 1000, full).error;
      if (frame === 120) {
        const measured = densityError(positions, count, h, mass, 1000, full);
        figures.densityErrorTwoSeconds = measured.error;
        figures.fullNeighbourhoods = measured.counted;
        let height = 0;
        for (let k = 0; k < positions.length; k += 3) {
          if (!Number.isFinite(positions[k] + positions[k + 1] + positions[k + 2])) figures.nonFinite++;
          if (
            positions[k] < 0 ||
            positions[k] > 0.8 ||
            positions[k + 1] < 0 ||
            positions[k + 2] < 0 ||
            positions[k + 2] > 0.4
          ) {
            figures.outside++;
          }
          height += positions[k + 1];
        }
        figures.meanHeight = height / count;
        figures.particles = count;
        figures.statsDensityError = simulation.stats.meanDensityError;
      }
    }
    simulation.dispose();
    return figures;
  };
  return { cpu: await run('cpu'), webgpu: await run('webgpu') };
}

/** Counts of one backend's emit-and-drain run, per step. */
export interface EmitDrainCounts {
  particleCounts: number[];
  emitted: number;
  removed: number;
  nonFinite: number;
}

/** Result of {@link emitDrainParity}. */
export interface EmitDrainResult {
  cpu: EmitDrainCounts;
  webgpu: EmitDrainCounts;
  /** The first step after which the live particle sets differ, with the particles only one backend has. */
  firstDifference?: { step: number; onlyCpu: number[][]; onlyGpu: number[][] };
}

function emitDrainScene(backend: 'cpu' | 'webgpu', engine: WebGPUEngine): FluidSimulation {
  const simulation = new FluidSimulation({ projection: false, particleRadius: 0.025, capacity: 3000, backend, engine });
  const water = simulation.addMaterial({});
  simulation.addCollider({ shape: 'box', min: [-0.013, -0.011, -0.017], max: [1.2, 1.2, 0.8], container: true });
  simulation.addEmitter({
    position: [0.3, 0.9, 0.4],
    direction: [0, -1, 0],
    radius: 0.06,
    rate: 150,
    speed: 1.5,
    material: water,
  });
  simulation.addEmitter({
    position: [0.7, 0.9, 0.4],
    direction: [1, 0, 0],
    radius: 0.06,
    rate: 100,
    speed: 1,
    material: water,
    lifetime: 0.3,
  });
  // Rates give a layer of 5 particles every 2r of travel (no overlap). The drain catches the first jet in free fall, so the counts do not depend on a splash (chaotic, and
  // float32 on the GPU).
  simulation.addDrain({ shape: 'box', min: [0, 0.3, 0], max: [0.6, 0.5, 0.8] });
  return simulation;
}

/**
 * Two emitters (one jet falling through a drain, one short-lived horizontal jet with a lifetime, which never reaches the drain or a wall) and a removal by game
 * code, 60 steps on both backends in lockstep: the live particle count after every step.
 */
export async function emitDrainParity(engine: WebGPUEngine): Promise<EmitDrainResult> {
  const cpu = emitDrainScene('cpu', engine);
  const gpu = emitDrainScene('webgpu', engine);
  await gpu.ready();
  const counts = (): EmitDrainCounts => ({ particleCounts: [], emitted: 0, removed: 0, nonFinite: 0 });
  const result: EmitDrainResult = { cpu: counts(), webgpu: counts() };
  for (let frame = 1; frame <= 60; frame++) {
    for (const [simulation, figures] of [
      [cpu, result.cpu],
      [gpu, result.webgpu],
    ] as const) {
      simulation.step();
      figures.emitted += simulation.stats.emittedCount;
      // Game code removes the particle farthest along +x (the horizontal jet's tip, the same on both).
      if (frame === 20) {
        const ids = simulation.particles();
        let farthest = ids[0];
        for (const eid of ids) if (simulation.Position.x[eid] > simulation.Position.x[farthest]) farthest = eid;
        simulation.removeParticle(farthest);
      }
      await simulation.readback();
      figures.particleCounts.push(simulation.particleCount);
    }
    if (!result.firstDifference && cpu.particleCount !== gpu.particleCount) {
      // Entity ids differ between the backends (the GPU frees removed ids one readback later, so the
      // emitters reuse other ids): the particles are described by position, lowest first.
      const lowest = (simulation: FluidSimulation) =>
        [...simulation.particles()]
          .map((eid) => [
            simulation.Position.x[eid],
            simulation.Position.y[eid],
            simulation.Position.z[eid],
            simulation.components.Particle.age[eid],
          ])
          .sort((a, b) => a[1] - b[1])
          .slice(0, 12);
      result.firstDifference = { step: frame, onlyCpu: lowest(cpu), onlyGpu: lowest(gpu) };
    }
  }
  for (const [simulation, figures] of [
    [cpu, result.cpu],
    [gpu, result.webgpu],
  ] as const) {
    for (const eid of simulation.particles()) {
      const { x, y, z } = simulation.Position;
      if (!Number.isFinite(x[eid] + y[eid] + z[eid])) figures.nonFinite++;
    }
    figures.removed = figures.emitted - simulation.particleCount;
  }
  gpu.dispose();
  return result;
}

/** Result of {@link nonFiniteRecovery}. */
export interface NonFiniteResult {
  /** The error the step after the corrupted one threw (empty if none). */
  error: string;
  /** Steps after recovery that threw. */
  laterErrors: number;
  particles: number;
  nonFinite: number;
  /** Largest distance (m) a particle moved from the last mirrored state in the recovery steps. */
  largestMove: number;
}

/**
 * A NaN written straight into the GPU's velocity buffer (as a broken kernel would): the readback finds it,
 * the next step throws a FluidError and rebuilds the GPU state from the last mirrored components, and the
 * simulation then continues with finite values.
 */
export async function nonFiniteRecovery(engine: WebGPUEngine): Promise<NonFiniteResult> {
  const simulation = new FluidSimulation({ particleRadius: 0.025, backend: 'webgpu', engine });
  const water = simulation.addMaterial({});
  simulation.addCollider({ shape: 'box', min: [0, 0, 0], max: [0.5, 0.5, 0.5], container: true });
  simulation.spawnBlock({ min: [0, 0, 0], max: [0.3, 0.3, 0.3], material: water });
  await simulation.ready();
  for (let frame = 0; frame < 5; frame++) simulation.step();
  await simulation.readback();
  const before = new Map<number, number[]>();
  for (const eid of simulation.particles()) {
    before.set(eid, [simulation.Position.x[eid], simulation.Position.y[eid], simulation.Position.z[eid]]);
  }
  const solver = simulation.gpuSolver;
  if (!solver) throw new Error('no GPU solver');
  // Test-only access to the solver's buffers: a NaN in the first particle's velocity.
  // biome-ignore lint/complexity/useLiteralKeys: `buffers` is private; the bracket reaches it for this test only
  solver['buffers'].velocity.update(new Float32Array([Number.NaN, 0, 0, 0]), 0, 16);
  simulation.step();
  await simulation.readback();
  let error = '';
  try {
    simulation.step();
  } catch (caught) {
    error = String(caught);
  }
  let laterErrors = 0;
  for (let frame = 0; frame < 3; frame++) {
    try {
      simulation.step();
    } catch {
      laterErrors++;
    }
  }
  await simulation.readback();
  let nonFinite = 0;
  let largestMove = 0;
  for (const eid of simulation.particles()) {
    const x = simulation.Position.x[eid];
    const y = simulation.Position.y[eid];
    const z = simulation.Position.z[eid];
    if (!Number.isFinite(x + y + z)) nonFinite++;
    const start = before.get(eid);
    if (start) largestMove = Math.max(largestMove, Math.hypot(x - start[0], y - start[1], z - start[2]));
  }
  const particles = simulation.particleCount;
  simulation.dispose();
  return { error, laterErrors, particles, nonFinite, largestMove };
}

/** Result of the 'largeCapacity' scenario: the same block stepped with a small and a large capacity. */
export interface LargeCapacityResult {
  /** The two capacities. */
  capacities: [number, number];
  /** Hash buckets of the large capacity's table (the smallest power of two of at least twice the capacity). */
  largeTable: number;
  /** Particles after the steps, with each capacity. */
  particles: [number, number];
  /** Mean height (m) of the particles after the steps, with each capacity. */
  meanHeight: [number, number];
  /** Non-finite positions after the steps, both runs together. */
  nonFinite: number;
}

/**
 * A 216-particle block falling in a glass for 20 steps, once with a capacity of 1,000 and once of 1,100,000
 * (a hash table of 2^22 buckets: the sort's clear and scan over it; before 2026-11-29 the clear asked for
 * 65,568 workgroups there, past WebGPU's 65,535 a dispatch may have, and failed validation).
 */
export async function largeCapacity(engine: WebGPUEngine): Promise<LargeCapacityResult> {
  const capacities: [number, number] = [1000, 1_100_000];
  const particles: [number, number] = [0, 0];
  const meanHeight: [number, number] = [0, 0];
  let nonFinite = 0;
  for (let run = 0; run < 2; run++) {
    const simulation = new FluidSimulation({
      particleRadius: 0.025,
      backend: 'webgpu',
      engine,
      capacity: capacities[run],
    });
    try {
      const water = simulation.addMaterial({});
      simulation.addCollider({ shape: 'box', min: [0, 0, 0], max: [0.5, 0.5, 0.5], container: true });
      simulation.spawnBlock({ min: [0.1, 0.1, 0.1], max: [0.4, 0.4, 0.4], material: water });
      await simulation.ready();
      for (let frame = 0; frame < 20; frame++) simulation.step();
      await simulation.readback();
      let height = 0;
      for (const eid of simulation.particles()) {
        const y = simulation.Position.y[eid];
        if (!Number.isFinite(simulation.Position.x[eid] + y + simulation.Position.z[eid])) nonFinite++;
        height += y;
      }
      particles[run] = simulation.particleCount;
      meanHeight[run] = height / Math.max(1, simulation.particleCount);
    } finally {
      simulation.dispose();
    }
  }
  let largeTable = 1024;
  while (largeTable < 2 * capacities[1]) largeTable *= 2;
  return { capacities, largeTable, particles, meanHeight, nonFinite };
}
