/**
 * The page's 'neighbourLists' scenario (tests/webgpu.test.ts): the GPU's per-substep neighbour lists
 * (neighbours/lists.wgsl) against the CPU's neighbour pairs of the same first substep, and the first
 * lambda pass reading the lists against the same pass visiting the 27 cells (`'cells'` mode, forced through
 * `neighbourMode` of the kernel-parity scene) on the same input.
 */
import type { WebGPUEngine } from '@babylonjs/core/Engines/webgpuEngine.js';
import { FluidSimulation } from '../../src';
import { gatherSceneSystem } from '../../src/systems/gather';
import { solverSizes } from '../../src/systems/gpu/buffers';
import type { NeighbourMode } from '../../src/systems/gpu/shaderSource';
import { NEIGHBOUR_OVERFLOW, ParticleInfo } from '../../src/systems/gpu/structs';
import { neighbourModeForTests } from '../../src/systems/gpu/testHooks';
import { firstSubstepUpToNeighbours, kernelScene } from './parity';

/** Result of {@link neighbourLists}. */
export interface NeighbourListResult {
  /** Particles of the scene. */
  particles: number;
  /** Words per particle of the lists. */
  stride: number;
  /** Neighbour pairs within h on the CPU (each pair once). */
  cpuPairs: number;
  /** Neighbour pairs in the GPU's lists (each pair once; a pair listed by one side only counts as missing). */
  gpuPairs: number;
  /** Pairs listed by one particle of the pair and not by the other (the lists must be symmetric). */
  oneSided: number;
  /** CPU pairs the GPU lists lack, and GPU pairs the CPU lacks. */
  missing: number;
  extra: number;
  /** Of those, pairs whose distance is within 1e-5 h of h (float32 against float64 rounding). */
  borderline: number;
  /** The longest list that did not overflow. */
  longest: number;
  /**
   * The first lambda pass in the two modes: the largest difference of density and of lambda relative to
   * the largest value (the same neighbours in the same order; pairs at exactly h may fall on either side
   * where the two shaders round the distance differently, at a weight of about 0).
   */
  densityDifference: number;
  lambdaDifference: number;
  /** Lists that overflowed (length NEIGHBOUR_OVERFLOW). */
  overflowed: number;
  /**
   * A block spawned three times on one lattice (see `crowdedBlock`): its particles, its lists that
   * overflowed, and its first lambda pass in the two modes compared as above.
   */
  crowdedParticles: number;
  crowdedOverflowed: number;
  crowdedDensityDifference: number;
  crowdedLambdaDifference: number;
}

/** A kernel-parity scene on WebGPU whose solver takes neighbour mode `mode`. */
async function sceneIn(engine: WebGPUEngine, mode: NeighbourMode): Promise<FluidSimulation> {
  const simulation = kernelScene('webgpu', engine, { neighbourMode: mode });
  await simulation.ready();
  if (simulation.gpuSolver?.neighbourMode !== mode) throw new Error(`the solver did not take mode ${mode}`);
  return simulation;
}

/** Per entity: density and lambda after the first lambda pass. */
async function firstLambda(simulation: FluidSimulation): Promise<Map<number, [number, number]>> {
  const solver = simulation.gpuSolver;
  if (!solver) throw new Error('no GPU solver');
  gatherSceneSystem(simulation.internalContext);
  solver.stepUntil('lambda', 1);
  const n = simulation.particleCount;
  const info = new Uint32Array(await solver.readBuffer('sortedInfo', n * ParticleInfo.size));
  const solve = new Float32Array(await solver.readBuffer('solve', n * 16));
  simulation.dispose();
  const result = new Map<number, [number, number]>();
  for (let k = 0; k < n; k++) result.set(info[(k * ParticleInfo.size) / 4], [solve[4 * k], solve[4 * k + 1]]);
  return result;
}

/**
 * The first substep's neighbour lists of `simulation` (its first step recorded up to them; then disposed):
 * per particle the length word and the entries, `stride` words each, and the entity at each sorted place.
 */
async function readLists(
  simulation: FluidSimulation,
): Promise<{ lists: Uint32Array; stride: number; entities: Uint32Array }> {
  const solver = simulation.gpuSolver;
  if (!solver) throw new Error('no GPU solver');
  gatherSceneSystem(simulation.internalContext);
  solver.stepUntil('neighbourList', 1);
  const n = simulation.particleCount;
  const { bucketLength, neighbourStride } = solverSizes(simulation.internalContext);
  const table = new Uint32Array(await solver.readBuffer('buckets', (bucketLength + n * neighbourStride) * 4));
  const info = new Uint32Array(await solver.readBuffer('sortedInfo', n * ParticleInfo.size));
  const entities = new Uint32Array(n);
  for (let k = 0; k < n; k++) entities[k] = info[(k * ParticleInfo.size) / 4];
  simulation.dispose();
  return { lists: table.subarray(bucketLength), stride: neighbourStride, entities };
}

/**
 * A block spawned three times on nearly the same lattice in a box, on WebGPU in neighbour mode `mode`: every
 * particle with two near twins, three times the neighbours of water at rest, more than a list holds.
 */
async function crowdedBlock(engine: WebGPUEngine, mode: NeighbourMode): Promise<FluidSimulation> {
  neighbourModeForTests.mode = mode;
  const simulation = new FluidSimulation({
    particleRadius: 0.025,
    capacity: 4096,
    backend: 'webgpu',
    engine,
    mirror: 'off',
  });
  neighbourModeForTests.mode = undefined;
  simulation.addCollider({ shape: 'box', min: [-0.5, 0, -0.5], max: [0.5, 1, 0.5], container: true });
  const water = simulation.addMaterial({});
  // Each copy a little off the last (no two particles coincide: the separating offset of coincident ones
  // depends on their sorted order, which the sort's atomics may change from run to run).
  for (let copy = 0; copy < 3; copy++) {
    const offset = [0.006 * copy, 0.004 * copy, 0.002 * copy];
    simulation.spawnBlock({
      min: [-0.2 + offset[0], offset[1], -0.2 + offset[2]],
      max: [0.2 + offset[0], 0.3 + offset[1], 0.2 + offset[2]],
      material: water,
    });
  }
  await simulation.ready();
  return simulation;
}

/** The largest difference of density and of lambda between two first lambda passes, relative to the largest value. */
function lambdaDifferences(
  a: Map<number, [number, number]>,
  b: Map<number, [number, number]>,
): { density: number; lambda: number } {
  let densityScale = 0;
  let lambdaScale = 0;
  let density = 0;
  let lambda = 0;
  for (const [entity, [densityA, lambdaA]] of a) {
    const other = b.get(entity);
    if (!other) throw new Error(`entity ${entity} missing`);
    densityScale = Math.max(densityScale, Math.abs(densityA));
    lambdaScale = Math.max(lambdaScale, Math.abs(lambdaA));
    density = Math.max(density, Math.abs(other[0] - densityA));
    lambda = Math.max(lambda, Math.abs(other[1] - lambdaA));
  }
  return { density: density / densityScale, lambda: lambda / Math.max(lambdaScale, Number.MIN_VALUE) };
}

/** See the file's comment. */
export async function neighbourLists(engine: WebGPUEngine): Promise<NeighbourListResult> {
  // CPU: the first substep up to the neighbour search; its pairs by entity.
  const cpu = kernelScene('cpu', engine);
  const ctx = firstSubstepUpToNeighbours(cpu);
  const s = ctx.solver;
  const h = ctx.settings.kernelRadius;
  const key = (a: number, b: number) => (a < b ? `${a},${b}` : `${b},${a}`);
  const cpuPairs = new Set<string>();
  const place = new Map<number, number>();
  for (let i = 0; i < s.count; i++) {
    place.set(s.entity[i], i);
    for (let k = s.neighbourStart[i]; k < s.neighbourStart[i + 1]; k++) {
      cpuPairs.add(key(s.entity[i], s.entity[s.neighbours[k]]));
    }
  }
  // GPU: the same substep up to the lists.
  const gpu = await sceneIn(engine, 'list');
  const n = gpu.particleCount;
  const { lists, stride, entities } = await readLists(gpu);
  const entityAt = (k: number) => entities[k];
  const listed = new Map<string, number>();
  let longest = 0;
  let overflowed = 0;
  for (let k = 0; k < n; k++) {
    const length = lists[k * stride];
    if (length === NEIGHBOUR_OVERFLOW) overflowed++;
    else longest = Math.max(longest, length);
    for (let slot = 1; slot <= length; slot++) {
      const pair = key(entityAt(k), entityAt(lists[k * stride + slot]));
      listed.set(pair, (listed.get(pair) ?? 0) + 1);
    }
  }
  let oneSided = 0;
  const gpuPairs = new Set<string>();
  for (const [pair, times] of listed) {
    if (times === 2) gpuPairs.add(pair);
    else oneSided++;
  }
  const distance = (pair: string) => {
    const [a, b] = pair.split(',').map((text) => place.get(Number(text)) ?? -1);
    return Math.hypot(
      s.predictedX[a] - s.predictedX[b],
      s.predictedY[a] - s.predictedY[b],
      s.predictedZ[a] - s.predictedZ[b],
    );
  };
  let missing = 0;
  let extra = 0;
  let borderline = 0;
  for (const pair of cpuPairs) {
    if (gpuPairs.has(pair)) continue;
    missing++;
    if (Math.abs(distance(pair) - h) < 1e-5 * h) borderline++;
  }
  for (const pair of gpuPairs) {
    if (cpuPairs.has(pair)) continue;
    extra++;
    if (Math.abs(distance(pair) - h) < 1e-5 * h) borderline++;
  }
  // The two modes on the same input: the first lambda pass, in the scene and in a crowded block.
  const first = lambdaDifferences(
    await firstLambda(await sceneIn(engine, 'list')),
    await firstLambda(await sceneIn(engine, 'cells')),
  );
  const crowded = await crowdedBlock(engine, 'list');
  const crowdedCount = crowded.particleCount;
  const crowdedLists = (await readLists(crowded)).lists;
  let crowdedOverflowed = 0;
  for (let k = 0; k < crowdedCount; k++) if (crowdedLists[k * stride] === NEIGHBOUR_OVERFLOW) crowdedOverflowed++;
  const crowdedFirst = lambdaDifferences(
    await firstLambda(await crowdedBlock(engine, 'list')),
    await firstLambda(await crowdedBlock(engine, 'cells')),
  );
  return {
    particles: n,
    stride,
    cpuPairs: cpuPairs.size,
    gpuPairs: gpuPairs.size,
    oneSided,
    missing,
    extra,
    borderline,
    longest,
    overflowed,
    densityDifference: first.density,
    lambdaDifference: first.lambda,
    crowdedParticles: crowdedCount,
    crowdedOverflowed,
    crowdedDensityDifference: crowdedFirst.density,
    crowdedLambdaDifference: crowdedFirst.lambda,
  };
}
