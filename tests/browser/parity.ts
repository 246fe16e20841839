/**
 * Parity scenarios of the WebGPU backend against the CPU reference, run in the harness page (gpu.html):
 * the same scene is built twice, once per backend, with the same calls (so the same entity ids), and the
 * results are compared per entity. Results are plain numbers for the Node-side test to assert on.
 */
import type { WebGPUEngine } from '@babylonjs/core/Engines/webgpuEngine.js';
import { bakeSignedDistanceField, createBoxMesh, FluidSimulation } from '../../src';
import { collideParticles, colliderPoseSystem, computeWallWeights } from '../../src/systems/collide/cpu';
import { applyCorrections, computeCorrections, computeLambda } from '../../src/systems/density/cpu';
import { gatherColliders, gatherMaterials, gatherSystem } from '../../src/systems/gather';
import { ParticleInfo } from '../../src/systems/gpu/structs';
import { neighbourSystem } from '../../src/systems/neighbours/cpu';
import { predictSystem } from '../../src/systems/predict/cpu';

/** Builds the kernel-parity scene on one backend: a falling, compressed block in a box tank with a sphere, a rotated mesh box. */
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
}

function kernelScene(
  backend: 'cpu' | 'webgpu',
  engine: WebGPUEngine,
  options: KernelSceneOptions = {},
): FluidSimulation {
  const simulation = new FluidSimulation({
    particleRadius: 0.025,
    capacity: 4096,
    backend,
    engine,
    mirror: 'off',
    substeps: options.substeps ?? 2,
    iterations: options.iterations ?? 3,
    gravity: options.swirl ? [0, 0, 0] : [0, -9.81, 0],
  });
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
  const ctx = cpu.internalContext;
  ctx.frameTimeStep = cpu.settings.timeStep;
  ctx.substepTimeStep = cpu.settings.timeStep / cpu.settings.substeps;
  ctx.substepIndex = 0;
  gatherSystem(ctx);
  colliderPoseSystem(ctx);
  predictSystem(ctx);
  neighbourSystem(ctx);
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
  gatherMaterials(gpu.internalContext);
  gatherColliders(gpu.internalContext);
  solver.stepUntil('collide', iterations);
  const n = gpu.particleCount;
  const info = new Uint32Array(await solver.readBuffer('sortedInfo', n * ParticleInfo.size));
  const solve = new Float32Array(await solver.readBuffer('solve', n * 16));
  const delta = new Float32Array(await solver.readBuffer('delta', n * 16));
  const wall = new Float32Array(await solver.readBuffer('wall', n * 16));
  const predicted = new Float32Array(await solver.readBuffer('sortedPredicted', n * 16));
  const contact = new Int32Array(await solver.readBuffer('contact', n * 32));
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
    const gpuSlot = contact[8 * k + 4];
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
