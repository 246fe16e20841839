/**
 * The CPU backend's loops in WebAssembly (src/systems/wasm/state.ts; grid.wat, transfer.wat, solve.wat,
 * neighbours.wat, density.wat, velocity.wat, collide.wat): the committed module is the assembly of their text,
 * every kernel runs, and a run gives the same results bit for bit as the TypeScript loops (one material or two,
 * one thread or two, PBF, WCSPH and MPS, the hashed grid, lists that outgrow their array, a NaN particle, a
 * turning, moving, scaled container box).
 */
import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { committedModule, WASM_MODULE } from '../scripts/assembleWasm.mjs';
import { FluidError, FluidSimulation, type FluidSimulationOptions } from '../src';
import { THREADS_MIN_PARTICLES, threadTestHooks } from '../src/systems/parallel/pool';
import { projectionSystem } from '../src/systems/projection/cpu';
import { RESIDENT_SOLVER_ARRAYS, WASM_PARTITION_KERNELS } from '../src/systems/wasm/state';
import { openGpuPage } from './browser/driver';
import type { BrowserWasmResult } from './browser/wasm';

/**
 * A dam break in a box tank with a sphere (walls, collisions), spawned with `materials` materials. The tank has
 * friction and restitution, so the velocity pass reads its contacts (normals, approach speeds).
 */
function damBreak(options: FluidSimulationOptions, materials: number): FluidSimulation {
  // One thread unless a check asks for more: these checks count the one-thread loops' kernel calls.
  const simulation = new FluidSimulation({ particleRadius: 0.025, capacity: 4000, threads: 1, ...options });
  simulation.addCollider({
    shape: 'box',
    min: [0, 0, 0],
    max: [1.6, 1, 0.5],
    container: true,
    friction: 0.3,
    restitution: 0.4,
  });
  simulation.addCollider({ shape: 'sphere', center: [0.9, 0.1, 0.25], radius: 0.12 });
  const water = simulation.addMaterial({ vorticity: 0.05 });
  simulation.spawnBlock({ min: [0, 0, 0], max: [0.5, 0.6, 0.5], material: water });
  if (materials > 1) {
    const oil = simulation.addMaterial({ restDensity: 900 });
    simulation.spawnBlock({ min: [0, 0.62, 0], max: [0.5, 0.8, 0.5], material: oil });
  }
  return simulation;
}

/** Positions and velocities of every particle, by entity, after `frames` steps. */
function run(simulation: FluidSimulation, frames: number): { state: Map<number, number[]>; used: boolean[] } {
  const used: boolean[] = [];
  for (let frame = 0; frame < frames; frame++) {
    simulation.step();
    used.push(simulation.stats.webAssembly);
  }
  const state = new Map<number, number[]>();
  const { Position, Velocity } = simulation;
  for (const eid of simulation.particles()) {
    state.set(eid, [
      Position.x[eid],
      Position.y[eid],
      Position.z[eid],
      Velocity.x[eid],
      Velocity.y[eid],
      Velocity.z[eid],
    ]);
  }
  simulation.dispose();
  return { state, used };
}

/** Particles of `a` whose position or velocity differs from `b`'s in any bit (or that `b` lacks). */
function differingParticles(a: Map<number, number[]>, b: Map<number, number[]>): number {
  let differing = 0;
  for (const [entity, values] of a) {
    const other = b.get(entity);
    if (!other || values.some((value, k) => !Object.is(value, other[k]))) differing++;
  }
  return differing;
}

/** The kernels' calls: each export of the simulation's module is wrapped in a counter. */
type KernelCalls = Record<
  | 'denseNeighbours'
  | 'scatterParticles'
  | 'gatherParticles'
  | 'conjugateGradients'
  | 'markFluidCells'
  | 'erodeSurfaceCells'
  | 'markSolvedParticles'
  | 'classifyFaces'
  | 'assemblePressureSystem'
  | 'faceChanges'
  | 'faceTransfers'
  | 'lambda'
  | 'corrections'
  | 'xsphVorticity'
  | 'confinement'
  | 'containerWalls'
  | 'applyCorrections'
  | 'containerCollide',
  number
>;

function countKernelCalls(simulation: FluidSimulation): KernelCalls {
  const kernels = simulation.internalContext.cpuKernels;
  const module = kernels.exports;
  if (!module) throw new Error('the WebAssembly module is not there');
  const calls: KernelCalls = {
    denseNeighbours: 0,
    scatterParticles: 0,
    gatherParticles: 0,
    conjugateGradients: 0,
    markFluidCells: 0,
    erodeSurfaceCells: 0,
    markSolvedParticles: 0,
    classifyFaces: 0,
    assemblePressureSystem: 0,
    faceChanges: 0,
    faceTransfers: 0,
    lambda: 0,
    corrections: 0,
    xsphVorticity: 0,
    confinement: 0,
    containerWalls: 0,
    applyCorrections: 0,
    containerCollide: 0,
  };
  const counted =
    (
      name: Exclude<
        keyof KernelCalls,
        'denseNeighbours' | 'conjugateGradients' | 'classifyFaces' | 'assemblePressureSystem'
      >,
    ) =>
    (...values: number[]) => {
      calls[name]++;
      module[name](...values);
    };
  kernels.exports = {
    memory: module.memory,
    denseNeighbours: (...values: number[]) => {
      calls.denseNeighbours++;
      return module.denseNeighbours(...values);
    },
    scatterParticles: counted('scatterParticles'),
    gatherParticles: counted('gatherParticles'),
    conjugateGradients: (...values: number[]) => {
      calls.conjugateGradients++;
      return module.conjugateGradients(...values);
    },
    markFluidCells: counted('markFluidCells'),
    erodeSurfaceCells: counted('erodeSurfaceCells'),
    markSolvedParticles: counted('markSolvedParticles'),
    classifyFaces: (...values: number[]) => {
      calls.classifyFaces++;
      return module.classifyFaces(...values);
    },
    assemblePressureSystem: (...values: number[]) => {
      calls.assemblePressureSystem++;
      return module.assemblePressureSystem(...values);
    },
    faceChanges: counted('faceChanges'),
    faceTransfers: counted('faceTransfers'),
    lambda: counted('lambda'),
    corrections: counted('corrections'),
    xsphVorticity: counted('xsphVorticity'),
    confinement: counted('confinement'),
    containerWalls: counted('containerWalls'),
    applyCorrections: counted('applyCorrections'),
    containerCollide: counted('containerCollide'),
  };
  return calls;
}

/** The partition kernels' calls on the stepping thread: each is wrapped in a counter. */
function countPartitionCalls(simulation: FluidSimulation): Record<(typeof WASM_PARTITION_KERNELS)[number], number> {
  const kernels = simulation.internalContext.cpuKernels;
  const shared = kernels.shared;
  if (!shared) throw new Error("the threads' WebAssembly module is not there");
  const calls = Object.fromEntries(WASM_PARTITION_KERNELS.map((name) => [name, 0])) as Record<
    (typeof WASM_PARTITION_KERNELS)[number],
    number
  >;
  kernels.shared = {
    ...shared,
    partitions: shared.partitions.map((kernel, k) => (partition: number, ...values: number[]) => {
      calls[WASM_PARTITION_KERNELS[k]]++;
      kernel(partition, ...values);
    }),
  };
  return calls;
}

describe('the CPU pair loops in WebAssembly', () => {
  it("the committed module is the assembly of the kernels' WebAssembly text (npm run wasm)", async () => {
    const committed = await readFile(new URL(`../${WASM_MODULE.path}`, import.meta.url), 'utf8');
    expect(committed).toBe(await committedModule());
  });

  // Every kernel's calls over the 40 frames of 2 substeps: the neighbour lists, the projection's scatter and
  // gather, XSPH and the confinement once per substep, lambda, the corrections, the tank's walls, the
  // corrections' application and the tank's collisions once per iteration (2 with the projection, 3 without).
  const cases: [string, number, FluidSimulationOptions, KernelCalls][] = [
    [
      'one material: every kernel (s_corr with the still-water offset)',
      1,
      {},
      {
        denseNeighbours: 80,
        scatterParticles: 80,
        gatherParticles: 80,
        conjugateGradients: 80,
        markFluidCells: 80,
        erodeSurfaceCells: 80,
        markSolvedParticles: 80,
        classifyFaces: 80,
        assemblePressureSystem: 80,
        faceChanges: 80,
        faceTransfers: 80,
        lambda: 160,
        corrections: 160,
        xsphVorticity: 80,
        confinement: 80,
        containerWalls: 160,
        applyCorrections: 160,
        containerCollide: 160,
      },
    ],
    [
      'one material, the pressure solve cut at 3 iterations (its iteration limit)',
      1,
      { projection: { maxIterations: 3 } },
      {
        denseNeighbours: 80,
        scatterParticles: 80,
        gatherParticles: 80,
        conjugateGradients: 80,
        markFluidCells: 80,
        erodeSurfaceCells: 80,
        markSolvedParticles: 80,
        classifyFaces: 80,
        assemblePressureSystem: 80,
        faceChanges: 80,
        faceTransfers: 80,
        lambda: 160,
        corrections: 160,
        xsphVorticity: 80,
        confinement: 80,
        containerWalls: 160,
        applyCorrections: 160,
        containerCollide: 160,
      },
    ],
    [
      'one material without the projection: every kernel (eq. 13 as written)',
      1,
      { projection: false },
      {
        denseNeighbours: 80,
        scatterParticles: 0,
        gatherParticles: 0,
        conjugateGradients: 0,
        markFluidCells: 0,
        erodeSurfaceCells: 0,
        markSolvedParticles: 0,
        classifyFaces: 0,
        assemblePressureSystem: 0,
        faceChanges: 0,
        faceTransfers: 0,
        lambda: 240,
        corrections: 240,
        xsphVorticity: 80,
        confinement: 80,
        containerWalls: 240,
        applyCorrections: 240,
        containerCollide: 240,
      },
    ],
    [
      'two materials: the corrections in TypeScript',
      2,
      {},
      {
        denseNeighbours: 80,
        scatterParticles: 80,
        gatherParticles: 80,
        conjugateGradients: 80,
        markFluidCells: 80,
        erodeSurfaceCells: 80,
        markSolvedParticles: 80,
        classifyFaces: 80,
        assemblePressureSystem: 80,
        faceChanges: 80,
        faceTransfers: 80,
        lambda: 160,
        corrections: 0,
        xsphVorticity: 80,
        confinement: 80,
        containerWalls: 160,
        applyCorrections: 160,
        containerCollide: 160,
      },
    ],
  ];
  for (const [name, materials, options, expected] of cases) {
    it(`${name}: 40 frames bit-identical to the TypeScript loops`, async () => {
      const wasm = damBreak(options, materials);
      await wasm.ready();
      const calls = countKernelCalls(wasm);
      const typescript = damBreak({ ...options, webAssembly: false }, materials);
      const a = run(wasm, 40);
      const b = run(typescript, 40);
      expect(calls).toEqual(expected);
      expect(b.used.every((used) => !used)).toBe(true);
      expect(a.used.every((used) => used)).toBe(true);
      expect(a.state.size).toBe(b.state.size);
      expect(differingParticles(a.state, b.state)).toBe(0);
    });
  }

  for (const threads of [1, 2]) {
    it(`neighbour lists that outgrow their array, ${threads} thread(s): the same lists as the TypeScript loops`, async () => {
      // Three blocks shifted by a third of a spacing: three times the number density, more pairs than the
      // array's 24 per unit of capacity, so the WebAssembly search stops, the array grows and it searches again.
      const dense = (options: FluidSimulationOptions): FluidSimulation => {
        const simulation = new FluidSimulation({ particleRadius: 0.025, capacity: 7200, threads, ...options });
        simulation.addCollider({ shape: 'box', min: [0, 0, 0], max: [1.6, 1.2, 0.7], container: true });
        const water = simulation.addMaterial({});
        for (const shift of [0, 0.05 / 3, 0.1 / 3]) {
          simulation.spawnBlock({
            min: [shift, shift, shift],
            max: [0.6 + shift, 0.8 + shift, 0.6 + shift],
            material: water,
          });
        }
        return simulation;
      };
      const wasm = dense({});
      await wasm.ready();
      const calls = countKernelCalls(wasm);
      const partitionCalls = threads > 1 ? countPartitionCalls(wasm) : undefined;
      const typescript = dense({ webAssembly: false });
      const before = wasm.internalContext.solver.neighbours.length;
      // The first step without workers, so the stepping thread runs (and counts) every partition.
      threadTestHooks.minParticles = Number.POSITIVE_INFINITY;
      try {
        wasm.step();
        typescript.step();
      } finally {
        threadTestHooks.minParticles = THREADS_MIN_PARTICLES;
      }
      const halfPairs = (wasm.stats.meanNeighbourCount * wasm.stats.particleCount) / 2;
      expect(halfPairs).toBeGreaterThan(before);
      // More searches than substeps: at least one stopped for room (with threads, 16 partitions a search).
      if (partitionCalls) {
        expect(calls.denseNeighbours).toBe(0);
        expect(partitionCalls.partitionNeighbours / 16).toBeGreaterThan(2);
      } else expect(calls.denseNeighbours).toBeGreaterThan(2);
      // One thread grows the array as the TypeScript does (the partitions of two grow it their own way).
      if (threads === 1) {
        expect(wasm.internalContext.solver.neighbours.length).toBe(typescript.internalContext.solver.neighbours.length);
      }
      const a = run(wasm, 5);
      const b = run(typescript, 5);
      expect(a.used.every((used) => used)).toBe(true);
      expect(differingParticles(a.state, b.state)).toBe(0);
    });
  }

  // Two threads: the transfers in the module's kernels, the neighbour search and the pair loops in the shared
  // module's partition kernels (parallel/kernels.wat), bit-identical to the TypeScript partitions. Without
  // workers the stepping thread runs every partition, so each kernel's calls are counted exactly: per substep
  // (2 a frame) 16 partitions of lambdaPairs, lambdaFinish and correctionPairs per iteration (2), of
  // viscosityPairs, vorticityPairs and the neighbour search once; addSpills sums the corrections' (per
  // iteration), XSPH's and the confinement's spills; the projection's stencils, sums (each partition its own
  // faces, partitionAccumulateParticles) and gather once per substep.
  const threadCases: [string, number, Record<(typeof WASM_PARTITION_KERNELS)[number], number>][] = [
    [
      'one material',
      1,
      {
        partitionLambdaPairs: 1280,
        partitionLambdaFinish: 1280,
        partitionCorrectionPairs: 1280,
        partitionAddSpills: 2560,
        partitionViscosityPairs: 640,
        partitionVorticityPairs: 640,
        partitionNeighbours: 640,
        partitionParticleStencils: 640,
        partitionGatherParticles: 640,
        partitionContainerWalls: 1280,
        partitionApplyCorrections: 1280,
        partitionContainerCollide: 1280,
        partitionAccumulateParticles: 640,
      },
    ],
    [
      'two materials (the corrections in the TypeScript partitions)',
      2,
      {
        partitionLambdaPairs: 1280,
        partitionLambdaFinish: 1280,
        partitionCorrectionPairs: 0,
        partitionAddSpills: 1280,
        partitionViscosityPairs: 640,
        partitionVorticityPairs: 640,
        partitionNeighbours: 640,
        partitionParticleStencils: 640,
        partitionGatherParticles: 640,
        partitionContainerWalls: 1280,
        partitionApplyCorrections: 1280,
        partitionContainerCollide: 1280,
        partitionAccumulateParticles: 640,
      },
    ],
  ];
  for (const [name, materials, expected] of threadCases) {
    it(`two threads, ${name}: the partitions' search and pair loops in WebAssembly, 20 frames bit-identical to the TypeScript partitions`, async () => {
      threadTestHooks.minParticles = Number.POSITIVE_INFINITY;
      try {
        const wasm = damBreak({ threads: 2 }, materials);
        await wasm.ready();
        const calls = countKernelCalls(wasm);
        const partitionCalls = countPartitionCalls(wasm);
        // The solver's per-particle arrays live in the shared memory: the kernels read and write them in place.
        const kernels = wasm.internalContext.cpuKernels;
        expect(kernels.resident.size).toBe(Object.keys(RESIDENT_SOLVER_ARRAYS).length);
        expect(kernels.resident.has(wasm.internalContext.solver.predictedX)).toBe(true);
        const typescript = damBreak({ threads: 2, webAssembly: false }, materials);
        const a = run(wasm, 20);
        const b = run(typescript, 20);
        // The transfers once per substep in the module's kernels; the lists in the partitions', its one-thread
        // search and pair loops idle.
        expect(calls).toEqual({
          denseNeighbours: 0,
          scatterParticles: 0,
          gatherParticles: 0,
          conjugateGradients: 40,
          markFluidCells: 40,
          erodeSurfaceCells: 40,
          markSolvedParticles: 40,
          classifyFaces: 40,
          assemblePressureSystem: 40,
          faceChanges: 40,
          faceTransfers: 40,
          lambda: 0,
          corrections: 0,
          xsphVorticity: 0,
          confinement: 0,
          containerWalls: 0,
          applyCorrections: 0,
          containerCollide: 0,
        });
        expect(partitionCalls).toEqual(expected);
        expect(a.used.every((used) => used)).toBe(true);
        expect(differingParticles(a.state, b.state)).toBe(0);
      } finally {
        threadTestHooks.minParticles = THREADS_MIN_PARTICLES;
      }
    });
  }

  it('two threads with a worker: the worker runs partition kernels on the shared memory, bit-identical', async () => {
    threadTestHooks.minParticles = 0;
    try {
      const wasm = damBreak({ threads: 2 }, 1);
      await wasm.ready();
      const partitionCalls = countPartitionCalls(wasm);
      const typescript = damBreak({ threads: 2, webAssembly: false }, 1);
      let workerPartitions = 0;
      for (let frame = 0; frame < 20; frame++) {
        wasm.step();
        workerPartitions += wasm.stats.workerPartitions;
      }
      const a = run(wasm, 0);
      const b = run(typescript, 20);
      expect(workerPartitions).toBeGreaterThan(0);
      // Fewer calls on the stepping thread than the partitions of the WebAssembly jobs (as counted without workers
      // in the cases above: 1280 each for lambda's two kernels, the corrections, the container's walls, the
      // corrections' application and the container's collisions, 2560 spill adds, 640 each for XSPH, the
      // confinement, the search, the stencils, the sums and the gather): the worker ran the rest.
      const ownCalls = Object.values(partitionCalls).reduce((sum, count) => sum + count, 0);
      expect(ownCalls).toBeLessThan(1280 * 6 + 2560 + 640 * 6);
      expect(differingParticles(a.state, b.state)).toBe(0);
    } finally {
      threadTestHooks.minParticles = THREADS_MIN_PARTICLES;
    }
  });

  it('a coupled body with a mass (rigid fluid) and a wall thinner than a cell: the projection bit-identical to the TypeScript', async () => {
    // The rigid-fluid cells add to the faces' sums in TypeScript after the scatter, so the assembly copies the
    // faces in again; the glass wall (1 cm, a tenth of a cell) makes solid faces between two fluid cells.
    const make = (webAssembly: boolean) => {
      const simulation = damBreak({ webAssembly }, 1);
      simulation.addCollider({ shape: 'box', min: [0.7, 0, 0], max: [0.71, 0.3, 0.5] });
      const body = simulation.addCollider({ shape: 'box', min: [0.15, 0.35, 0.15], max: [0.4, 0.6, 0.4] });
      simulation.components.BodyCoupling.coupled[body] = 1;
      simulation.components.BodyCoupling.mass[body] = 10;
      return { simulation, body };
    };
    const wasm = make(true);
    await wasm.simulation.ready();
    const calls = countKernelCalls(wasm.simulation);
    const typescript = make(false);
    let bodyCells = 0;
    let thinWallFaces = 0;
    for (let frame = 0; frame < 30; frame++) {
      wasm.simulation.step();
      typescript.simulation.step();
      const p = wasm.simulation.internalContext.projection;
      const table = wasm.simulation.internalContext.colliders;
      for (let slot = 0; slot < table.count; slot++)
        if (table.entity[slot] === wasm.body) bodyCells += p.bodyCells[slot];
      // The glass's faces: solid faces along x between two cells that are not solid (the thin-wall rule).
      const nx = p.plan.dims[0];
      for (let c = 1; c < p.plan.cells; c++) {
        if (p.faceKind[0][c] >= 0 && p.type[c] !== 2 && p.type[c - 1] !== 2 && c % nx > 0) thinWallFaces++;
      }
    }
    expect(bodyCells).toBeGreaterThan(0);
    expect(thinWallFaces).toBeGreaterThan(0);
    expect(calls.assemblePressureSystem).toBe(60);
    expect(calls.faceChanges).toBe(60);
    const coupling = [wasm, typescript].map(({ simulation, body }) => {
      const b = simulation.components.BodyCoupling;
      return [b.impulseX[body], b.impulseY[body], b.impulseZ[body]];
    });
    expect(coupling[0].some((value) => value !== 0)).toBe(true);
    expect(coupling[0].every((value, k) => Object.is(value, coupling[1][k]))).toBe(true);
    const a = run(wasm.simulation, 0);
    const b = run(typescript.simulation, 0);
    expect(a.state.size).toBe(b.state.size);
    expect(differingParticles(a.state, b.state)).toBe(0);
  });

  // The container box's walls, collisions and contacts (collide.wat) where its frame is not the identity: turned
  // about a slanted axis, scaled, moving (so the substep's start pose differs from its end pose), and full of
  // water, so that particles lie within h of all six faces.
  for (const threads of [1, 2]) {
    it(`a turning, moving, scaled container box full of water, ${threads} thread(s): its walls and collisions in WebAssembly, bit-identical`, async () => {
      const tank = (options: FluidSimulationOptions): { simulation: FluidSimulation; box: number } => {
        const simulation = new FluidSimulation({ particleRadius: 0.02, capacity: 2000, threads, ...options });
        const box = simulation.addCollider({
          shape: 'box',
          min: [-0.4, -0.25, -0.2],
          max: [0.4, 0.25, 0.2],
          container: true,
          friction: 0.3,
          restitution: 0.4,
        });
        simulation.setColliderTransform(box, { position: [1, 1, 1], scaling: 0.8, teleport: true });
        // The box spans 0.64 x 0.4 x 0.32 m around (1, 1, 1); the water fills it but a particle spacing.
        simulation.spawnBlock({ min: [0.7, 0.82, 0.86], max: [1.3, 1.18, 1.14], material: simulation.addMaterial({}) });
        return { simulation, box };
      };
      const move = (simulation: FluidSimulation, box: number, frame: number): void => {
        const half = 0.03 * frame;
        const axis = [0.3, 0.9, 0.3].map((v) => v / Math.hypot(0.3, 0.9, 0.3));
        const sine = Math.sin(half);
        simulation.setColliderTransform(box, {
          position: [
            1 + 0.04 * Math.sin(0.3 * frame),
            1.02 + 0.03 * Math.sin(0.2 * frame),
            0.98 - 0.02 * Math.sin(0.25 * frame),
          ],
          rotation: [axis[0] * sine, axis[1] * sine, axis[2] * sine, Math.cos(half)],
          scaling: 0.8 + 0.002 * frame,
        });
      };
      threadTestHooks.minParticles = Number.POSITIVE_INFINITY;
      try {
        const wasm = tank({});
        await wasm.simulation.ready();
        const calls = countKernelCalls(wasm.simulation);
        const partitionCalls = threads > 1 ? countPartitionCalls(wasm.simulation) : undefined;
        const typescript = tank({ webAssembly: false });
        for (let frame = 1; frame <= 30; frame++) {
          for (const { simulation, box } of [wasm, typescript]) {
            move(simulation, box, frame);
            simulation.step();
          }
        }
        const a = run(wasm.simulation, 0);
        const b = run(typescript.simulation, 0);
        // Per frame 2 substeps of 2 iterations, each with the walls, the application and the collisions.
        const expected = { walls: 120, apply: 120, collide: 120 };
        if (partitionCalls) {
          expect([
            partitionCalls.partitionContainerWalls,
            partitionCalls.partitionApplyCorrections,
            partitionCalls.partitionContainerCollide,
          ]).toEqual([16 * expected.walls, 16 * expected.apply, 16 * expected.collide]);
        } else {
          expect([calls.containerWalls, calls.applyCorrections, calls.containerCollide]).toEqual([
            expected.walls,
            expected.apply,
            expected.collide,
          ]);
        }
        expect(a.state.size).toBeGreaterThan(500);
        expect(differingParticles(a.state, b.state)).toBe(0);
      } finally {
        threadTestHooks.minParticles = THREADS_MIN_PARTICLES;
      }
    });
  }

  it('a particle that blew up (NaN) goes through the projection transfers as in TypeScript, without a trap', async () => {
    // Its cell and face numbers are stored as 0 (the grid's corner, dead faces): it neither adds to the faces nor
    // takes from them, and the other particles stay finite.
    const wasm = damBreak({}, 1);
    await wasm.ready();
    const typescript = damBreak({ webAssembly: false }, 1);
    for (let frame = 0; frame < 5; frame++) {
      wasm.step();
      typescript.step();
    }
    const [a, b] = [wasm, typescript].map((simulation) => {
      const ctx = simulation.internalContext;
      const s = ctx.solver;
      s.predictedX[7] = Number.NaN;
      const calls = simulation === wasm ? countKernelCalls(simulation) : undefined;
      projectionSystem(ctx);
      const n = s.count;
      const cells = ctx.projection.plan.cells;
      const p = ctx.projection;
      const particles = [s.velocityX, s.velocityY, s.velocityZ, s.predictedX, s.predictedY, s.predictedZ];
      const faces = [...p.mass, ...p.volume, ...p.volumeFlux, ...p.shareVolume, p.errorSum];
      return {
        calls: calls ? calls.scatterParticles + calls.gatherParticles : 0,
        values: [
          ...particles.map((x) => Array.from(x.subarray(0, n))),
          ...faces.map((x) => Array.from(x.subarray(0, cells))),
        ],
        finite: particles.every((x) => x.subarray(0, n).every((value, i) => i === 7 || Number.isFinite(value))),
      };
    });
    expect(a.calls).toBe(2);
    expect(b.calls).toBe(0);
    expect(a.finite).toBe(true);
    let differing = 0;
    a.values.forEach((values, k) => {
      values.forEach((value, i) => {
        if (!Object.is(value, b.values[k][i])) differing++;
      });
    });
    expect(differing).toBe(0);
    wasm.dispose();
    typescript.dispose();
  });

  it("the memory's lists follow the particles, not the simulation's capacity", async () => {
    const simulation = damBreak({ capacity: 100_000 }, 1);
    await simulation.ready();
    for (let frame = 0; frame < 3; frame++) simulation.step();
    expect(simulation.stats.webAssembly).toBe(true);
    // 1,200 particles: the lists' room is about 32 entries a particle, not the 24 per unit of capacity of the
    // solver's array (2.4 million entries, 48 MB with the per-pair caches at that length). The per-particle
    // arrays before the lists are laid out for the capacity where the solver's own arrays live in the memory
    // (a shared memory, as in Node), else for the particles.
    const kernels = simulation.internalContext.cpuKernels;
    const bytes = kernels.exports?.memory.buffer.byteLength ?? 0;
    const perParticle = kernels.at('neighbourStart');
    expect(perParticle).toBeGreaterThan(0);
    expect(bytes - perParticle).toBeGreaterThan(0);
    expect(bytes - perParticle).toBeLessThan(8 * 1024 * 1024);
    // Where the solver's arrays live there, they take no room of their own (RESIDENT_SOLVER_ARRAYS).
    if (kernels.resident.size > 0) expect(kernels.resident.has(simulation.internalContext.solver.velocityX)).toBe(true);
    else expect(perParticle).toBeLessThan(8 * 1024 * 1024);
    simulation.dispose();
  });

  for (const solver of ['sph', 'mps'] as const) {
    it(`${solver}: the neighbour lists in WebAssembly, bit-identical to the TypeScript`, async () => {
      const wasm = damBreak({ solver }, 1);
      await wasm.ready();
      const calls = countKernelCalls(wasm);
      const typescript = damBreak({ solver, webAssembly: false }, 1);
      const a = run(wasm, 10);
      const b = run(typescript, 10);
      expect(calls.denseNeighbours).toBeGreaterThan(0);
      expect(a.used.every((used) => used)).toBe(true);
      expect(differingParticles(a.state, b.state)).toBe(0);
    });
  }

  it('particles spread too far for the dense grid: the hashed search in TypeScript, the pair loops in WebAssembly', async () => {
    // Two blocks 29 m apart: more cells of h (about 300 x 7 x 7) than the table holds (8,192), so the cells
    // are hashed.
    const make = (webAssembly: boolean): FluidSimulation => {
      const simulation = new FluidSimulation({ particleRadius: 0.025, capacity: 3000, threads: 1, webAssembly });
      simulation.addCollider({ shape: 'box', min: [0, 0, 0], max: [30, 1, 0.5], container: true });
      const water = simulation.addMaterial({ vorticity: 0.05 });
      simulation.spawnBlock({ min: [0, 0, 0], max: [0.4, 0.4, 0.4], material: water });
      simulation.spawnBlock({ min: [29.5, 0, 0], max: [29.9, 0.4, 0.4], material: water });
      return simulation;
    };
    const wasm = make(true);
    await wasm.ready();
    const calls = countKernelCalls(wasm);
    const typescript = make(false);
    const a = run(wasm, 10);
    const b = run(typescript, 10);
    expect(calls.denseNeighbours).toBe(0);
    expect(calls.lambda).toBeGreaterThan(0);
    expect(differingParticles(a.state, b.state)).toBe(0);
  });

  it('a run that starts in TypeScript (the module not yet there) and goes on in WebAssembly stays bit-identical', async () => {
    const wasm = damBreak({}, 1);
    await wasm.ready();
    const kernels = wasm.internalContext.cpuKernels;
    const module = kernels.exports;
    kernels.exports = undefined;
    const typescript = damBreak({ webAssembly: false }, 1);
    for (let frame = 0; frame < 10; frame++) {
      wasm.step();
      typescript.step();
      expect(wasm.stats.webAssembly).toBe(false);
    }
    kernels.exports = module;
    const a = run(wasm, 20);
    const b = run(typescript, 20);
    expect(a.used.every((used) => used)).toBe(true);
    expect(differingParticles(a.state, b.state)).toBe(0);
  });

  it('where the runtime refuses to compile WebAssembly, runs the TypeScript loops without an error', async () => {
    const { Module, instantiate } = WebAssembly;
    const refuse = (): never => {
      throw new WebAssembly.CompileError('Wasm code generation disallowed by embedder');
    };
    WebAssembly.Module = refuse as unknown as typeof WebAssembly.Module;
    WebAssembly.instantiate = (async () => refuse()) as unknown as typeof WebAssembly.instantiate;
    let refused: FluidSimulation;
    try {
      refused = damBreak({}, 1);
    } finally {
      WebAssembly.Module = Module;
      WebAssembly.instantiate = instantiate;
    }
    await refused.ready();
    const typescript = damBreak({ webAssembly: false }, 1);
    const a = run(refused, 10);
    const b = run(typescript, 10);
    expect(a.used.some((used) => used)).toBe(false);
    expect(differingParticles(a.state, b.state)).toBe(0);
  });

  it('in a browser page (headless Chromium): every step in WebAssembly, bit-identical to the TypeScript loops', async () => {
    const page = await openGpuPage();
    try {
      const result = await page.run<BrowserWasmResult>('webAssembly', { steps: 20 });
      console.log(`webAssembly in a page: ${JSON.stringify(result)}`);
      expect(result.particles).toBeGreaterThan(1000);
      expect(result.stepsOn).toBe(20);
      expect(result.stepsOff).toBe(0);
      expect(result.same).toBe(true);
      expect(page.consoleErrors).toEqual([]);
    } finally {
      await page.close();
    }
  });

  it('refuses a webAssembly option that is not a boolean', () => {
    expect(() => new FluidSimulation({ webAssembly: 1 as unknown as boolean })).toThrow(FluidError);
    expect(() => new FluidSimulation({ webAssembly: 1 as unknown as boolean })).toThrow(
      'webAssembly is 1; it must be true or false',
    );
  });
});
