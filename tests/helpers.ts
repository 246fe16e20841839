import { createEntityIndex, createWorld } from 'bitecs';
import { expect } from 'vitest';
import { createFluidComponents, type FluidSettings } from '../src/components';
import type { FluidSimulation } from '../src/index';
import { createSimulationContext, type SimulationContext } from '../src/systems/context';
import { gatherMaterials } from '../src/systems/gather';
import { registerMaterial, resolveMaterial, writeMaterial } from '../src/systems/material';
import { resolveSphSettings } from '../src/systems/sph/settings';
import type { SphCouplingParityResult } from './browser/coupling';

/** A deterministic pseudo-random generator (mulberry32) so tests are reproducible. */
export function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * A bare solver context holding particles at `positions` (x, y, z triples), one default water material,
 * no colliders, ready for individual systems to run on. Particle i has entity id i + 1.
 */
export function contextWithParticles(positions: ArrayLike<number>, particleRadius = 0.025): SimulationContext {
  const n = positions.length / 3;
  const settings: FluidSettings = {
    particleRadius,
    kernelRadius: 4 * particleRadius,
    capacity: Math.max(n, 1),
    maxMaterials: 1,
    maxColliders: 1,
    maxEmitters: 1,
    threads: 1,
    webAssembly: true,
    gravity: [0, 0, 0],
    timeStep: 1 / 60,
    substeps: 2,
    iterations: 3,
    maxSpeed: 100,
    projection: true,
    projectionTolerance: 1e-3,
    projectionMaxIterations: 200,
    projectionDensityRelaxation: 0.2,
    projectionFreeSurface: false,
    backend: 'cpu',
    solver: 'pbf',
    diffuseCapacity: 0,
    diffuseSprayNeighbours: 6,
    diffuseBubbleNeighbours: 20,
    ...resolveSphSettings(undefined, 4 * particleRadius),
  };
  const entityCapacity = n + 3;
  const components = createFluidComponents(entityCapacity);
  const entityIndex = createEntityIndex();
  const context = createSimulationContext(settings, createWorld(entityIndex), components, entityCapacity, entityIndex);
  const materialEntity = n + 1;
  writeMaterial(components.FluidMaterial, materialEntity, resolveMaterial({}, context.lattice.kernelSum));
  registerMaterial(context.materials, materialEntity);
  gatherMaterials(context);
  const s = context.solver;
  for (let i = 0; i < n; i++) {
    s.entity[i] = i + 1;
    s.placeOfEntity[i + 1] = i;
    s.positionX[i] = s.predictedX[i] = positions[3 * i];
    s.positionY[i] = s.predictedY[i] = positions[3 * i + 1];
    s.positionZ[i] = s.predictedZ[i] = positions[3 * i + 2];
    s.mass[i] = context.materials.mass[0];
    s.material[i] = 0;
  }
  s.count = n;
  context.substepTimeStep = settings.timeStep / settings.substeps;
  return context;
}

/**
 * The largest over the mean distance of the particles `ids` from their center (positions from `position`):
 * sqrt(3) x 0.75 = 1.3 for a cube's lattice, 1 for a sphere's shell. The tension tests' roundness measure.
 */
export function largestOverMeanDistance(
  ids: ArrayLike<number>,
  position: { x: ArrayLike<number>; y: ArrayLike<number>; z: ArrayLike<number> },
): number {
  const list = Array.from(ids);
  const center = [0, 0, 0];
  for (const id of list) {
    center[0] += position.x[id] / list.length;
    center[1] += position.y[id] / list.length;
    center[2] += position.z[id] / list.length;
  }
  const distances = list.map((id) =>
    Math.hypot(position.x[id] - center[0], position.y[id] - center[1], position.z[id] - center[2]),
  );
  const mean = distances.reduce((sum, d) => sum + d, 0) / distances.length;
  return Math.max(...distances) / mean;
}

/**
 * The momentum of the particles `ids` of `simulation` (each with its material's particle mass) and the sum of
 * the masses times their speeds: [px, py, pz, sum m |v|], in kg m/s. The momentum tests' measure.
 */
export function momentumOf(simulation: FluidSimulation, ids: ArrayLike<number>): [number, number, number, number] {
  const { Particle, Velocity, FluidMaterial } = simulation.components;
  const p: [number, number, number, number] = [0, 0, 0, 0];
  for (const id of Array.from(ids)) {
    const m = FluidMaterial.particleMass[Particle.material[id]];
    p[0] += m * Velocity.x[id];
    p[1] += m * Velocity.y[id];
    p[2] += m * Velocity.z[id];
    p[3] += m * Math.hypot(Velocity.x[id], Velocity.y[id], Velocity.z[id]);
  }
  return p;
}

/**
 * Logs a coupled-bodies parity run (tests/browser/coupling.ts, `sphCouplingParity` with either solver): per step
 * the substeps and the box's and the mesh's impulses relative to the CPU's, then the sums over the steps.
 */
export function logCouplingParity(label: string, result: SphCouplingParityResult): void {
  const show = (c: SphCouplingParityResult['sums']['box']) =>
    `linear ${c.linearRelative.toExponential(2)} angular ${c.angularRelative.toExponential(2)} (CPU lift ${c.cpu.linear[1].toFixed(4)} N s)`;
  for (const step of result.steps) {
    console.log(
      `${label} coupling step: substeps ${step.substepsCpu}/${step.substepsGpu}; box ${show(step.box)}; mesh ${show(step.mesh)}; particles ${step.particles.position.toExponential(2)} m, ${step.particles.velocity.toExponential(2)} m/s`,
    );
  }
  console.log(
    `${label} coupling, ${result.particles} particles, sums over the steps: box ${show(result.sums.box)}; mesh ${show(result.sums.mesh)}`,
  );
}

/** The largest relative differences a coupled-bodies parity run may show (see {@link checkCouplingParity}). */
export interface CouplingParityBounds {
  /** Per step, the box's and the mesh's linear and angular impulses against the CPU's. */
  readonly stepLinear: number;
  readonly stepAngular: number;
  /** Summed over the steps. */
  readonly sumLinear: number;
  readonly sumAngular: number;
}

/**
 * Logs a coupled-bodies parity run ({@link logCouplingParity}) and checks what both solvers' runs share: the
 * pool's 384 particles, finite GPU values, the same substeps every step, and the impulses within `bounds`.
 */
export function checkCouplingParity(
  label: string,
  result: SphCouplingParityResult,
  bounds: CouplingParityBounds,
): void {
  logCouplingParity(label, result);
  expect(result.particles).toBe(384);
  expect(result.nonFinite).toBe(0);
  for (const step of result.steps) {
    expect(step.substepsGpu).toBe(step.substepsCpu);
    for (const body of [step.box, step.mesh]) {
      expect(body.linearRelative).toBeLessThan(bounds.stepLinear);
      expect(body.angularRelative).toBeLessThan(bounds.stepAngular);
    }
  }
  for (const body of [result.sums.box, result.sums.mesh]) {
    expect(body.linearRelative).toBeLessThan(bounds.sumLinear);
    expect(body.angularRelative).toBeLessThan(bounds.sumAngular);
  }
}

/**
 * Whether this Node starts worker threads for the CPU backend: it reaches `worker_threads` through
 * `process.getBuiltinModule` (Node 20.16 and newer on 20, 22.3 and newer), as src/systems/parallel/pool.ts does.
 */
export const nodeStartsWorkers = typeof (process as { getBuiltinModule?: unknown }).getBuiltinModule === 'function';
