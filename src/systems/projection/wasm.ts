/**
 * The coarse projection in WebAssembly (grid.wat, transfer.wat and solve.wat, in the CPU module of wasm/state.ts),
 * the same float64 operations in the same order as the TypeScript, so every cell, face and particle is
 * bit-identical (tests/wasm.test.ts):
 * - the grid passes of grid.ts: the cells' occupancy (markFluidCells), the surface layers and full cells
 *   (erodeSurfaceCells), the solved particles' marks (markSolvedParticles) and the faces' kinds (classifyFaces;
 *   the solid faces' collider velocities stay in TypeScript, as do the colliders' distances of classifyCells);
 * - the particle loops of scatterToGrid and gatherFromGrid (transfer.ts) with faceStencil's weights;
 * - the pressure system's assembly (faceCoefficients and assembleRightHandSide) and the conjugate gradients of
 *   solve.ts, and the faces' changes, transfers and excess momentum (faceChanges, gatherFromGrid; transfer.ts).
 * Each pass copies what it reads into the module's memory and what the TypeScript reads back out (the state holds
 * every result but what only the WebAssembly path reads: the cells' rest volumes and erosion flags and the faces'
 * transfers stay in the memory). What a pass leaves there serves the next within the substep: the gather reuses
 * the grid coordinates, face kinds and stencils the scatter left (`CpuKernels.stencilsInMemory`); the marked
 * particles serve the scatter and the solved marks (`particlesMarkedInMemory`), the eroded cells the face kinds and
 * the assembly (`cellsInMemory`); from the scatter to the gather the faces' kinds and sums stay there
 * (`gridInMemory`, unless rigid-fluid cells add to them in TypeScript), and from the assembly the pressure
 * system (`systemInMemory`). With threads (the shared
 * module) the per-particle parts run in partitions (parallel/kernels.wat): the scatter's share weights and
 * stencils, and the gather, where each particle writes only its own; then the scatter's sums in ranges of faces,
 * one a thread, each face's terms in particle order (`cutFaces`): the results are the one-thread kernels' bit for
 * bit. The rigid bodies' share of the faces, the enclosed
 * regions' means and the bodies' impulses stay in TypeScript.
 */
import type { SimulationContext, SolverState } from '../context';
import { PARTITION_COUNT } from '../parallel/kernels';
import { layOutPartitions, runPartitionedWebAssembly } from '../parallel/wasm';
import { copyFromMemory, copyIntoMemory, float64In, layOutMemory, offsetsOf, WasmKernel } from '../wasm/state';
import { type ProjectionState, SINGLE_DENSITY_TOLERANCE } from './state';

/** The solver's float64 arrays the scatter reads, besides the grid coordinates, cells, counts and masses. */
const SCATTER_READS = ['constraint', 'velocityX', 'velocityY', 'velocityZ'] as const;
/** The faces' sums the scatter makes (the three axes one after the other in the memory). */
const FACE_SUMS = ['faceMass', 'faceVolume', 'faceFlux', 'faceShare'] as const;
/** What the gather changes: the velocities and predicted positions. */
const GATHER_MOVES = ['velocityX', 'velocityY', 'velocityZ', 'predictedX', 'predictedY', 'predictedZ'] as const;

/**
 * Lays the memory out for this substep's grid; the module's exports where it could. With `partitions` (the
 * transfers, where the threads' module is there) the partition table goes in too, after everything else, so
 * the grid's arrays and the stencils stay where they are; `partitioned` then says whether it did.
 */
function prepare(ctx: SimulationContext, state: ProjectionState, partitions = false) {
  const kernels = ctx.cpuKernels;
  const wasm = kernels.exports;
  if (!wasm) return undefined;
  const s = ctx.solver;
  const n = s.count;
  const materials = ctx.materials.inverseRestDensity.length;
  const sizes = { n, pairs: s.neighbourStart[n], materials, gridCells: state.plan.cells };
  if (partitions && layOutPartitions(ctx, { ...sizes, spillRows: 0 })) return { wasm, partitioned: true };
  if (!layOutMemory(kernels, wasm.memory, sizes)) return undefined;
  return { wasm, partitioned: false };
}

/** The three axes' arrays `arrays` (first `cells` entries each) into the memory from byte `offset`, one after the other. */
function copyAxesIn(memory: WebAssembly.Memory, offset: number, arrays: readonly AxisArray[], cells: number): void {
  for (let a = 0; a < 3; a++) axisIn(memory, offset, arrays[a], a, cells).set(arrays[a].subarray(0, cells));
}

/** The three axes' arrays `arrays` (first `cells` entries each) out of the memory from byte `offset`. */
function copyAxesOut(memory: WebAssembly.Memory, offset: number, arrays: readonly AxisArray[], cells: number): void {
  for (let a = 0; a < 3; a++) arrays[a].set(axisIn(memory, offset, arrays[a], a, cells));
}

/** A per-face array of the state: int32 kinds or float64 values. */
type AxisArray = Int32Array | Float64Array;

/** Axis a's `cells` entries, of the type of `like`, of the memory's per-face array from byte `offset`. */
function axisIn(memory: WebAssembly.Memory, offset: number, like: AxisArray, a: number, cells: number): AxisArray {
  return like instanceof Int32Array
    ? new Int32Array(memory.buffer, offset + 4 * a * cells, cells)
    : float64In(memory, offset + 8 * a * cells, cells);
}

/**
 * The threads' scatter: cuts the faces of every axis (and the cells) into `owners` ranges (one a thread that
 * shares the job; one where the stepping thread runs it alone) at the
 * cells of the first particles of as many runs of partitions, into `table` (PARTITION_COUNT + 1 bounds, the first
 * and the last open-ended: every face and cell has one partition; the partitions from `owners` on get none), so
 * each owner adds up the faces of about its own particles. Any cut gives the same sums: a face gets its
 * particles' terms in their order whichever partition adds them (partitionAccumulateParticles). An owner visits
 * the particles whose stencils reach its faces; a stencil spans two layers of cells, so with 16 owners each
 * visited about 5.5 partitions (slower than the stepping thread alone), with one a thread about 1.2.
 */
function cutFaces(s: SolverState, cell: Int32Array, table: Int32Array, owners: number): void {
  const bounds = s.partitionBounds;
  table[0] = -0x80000000;
  for (let p = 1; p < owners; p++) {
    const first = bounds[Math.floor((p * PARTITION_COUNT) / owners)];
    const c = first < s.count ? cell[first] : -1;
    table[p] = Math.max(table[p - 1], c);
  }
  for (let p = owners; p <= PARTITION_COUNT; p++) table[p] = 0x7fffffff;
}

/**
 * scatterToGrid's particle loop in WebAssembly: each particle's share weight, its sums on the faces of each
 * axis (mass, volume, flux, share volume; cleared first, as the TypeScript does) and the cells' density errors;
 * false where the module is not there (the caller runs the TypeScript loop).
 */
export function scatterParticlesInWebAssembly(ctx: SimulationContext, state: ProjectionState): boolean {
  ctx.cpuKernels.stencilsInMemory = false;
  const prepared = prepare(ctx, state, true);
  if (!prepared) return false;
  const { wasm, partitioned } = prepared;
  const at = ctx.cpuKernels.at;
  const memory = wasm.memory;
  const s = ctx.solver;
  const n = s.count;
  const cells = state.plan.cells;
  const m = ctx.materials;
  // What markFluidCells left in the memory this substep (grid coordinates, cells, masses, materials) stays.
  const marked = ctx.cpuKernels.particlesMarkedInMemory;
  if (!marked) {
    float64In(memory, at('particleGrid'), 3 * n).set(state.particleGrid.subarray(0, 3 * n));
    new Int32Array(memory.buffer, at('particleCell'), n).set(state.particleCell.subarray(0, n));
    copyIntoMemory(ctx.cpuKernels, memory, 'mass', s.mass, n);
    copyIntoMemory(ctx.cpuKernels, memory, 'material', s.material, n);
    float64In(memory, at('inverseRestDensity'), m.inverseRestDensity.length).set(m.inverseRestDensity);
  }
  copyIntoMemory(ctx.cpuKernels, memory, 'neighbourCount', s.neighbourCount, n);
  for (const name of SCATTER_READS) {
    copyIntoMemory(ctx.cpuKernels, memory, name, s[name], n);
  }
  // The kernel sets the share of the particles on the grid; the others keep theirs, as in TypeScript.
  float64In(memory, at('particleShare'), n).set(state.particleShare.subarray(0, n));
  copyAxesIn(memory, at('faceKind'), state.faceKind, cells);
  for (const name of FACE_SUMS) float64In(memory, at(name), 3 * cells).fill(0);
  float64In(memory, at('errorSum'), cells).fill(0);
  new Int32Array(memory.buffer, at('errorCount'), cells).fill(0);
  const dims = state.plan.dims;
  if (partitioned) {
    // The threads make the share weights and stencils in partitions, and each partition's reach (its particles'
    // least and greatest face and cell); then they add them up, each partition for its own faces and cells.
    runPartitionedWebAssembly(ctx, WasmKernel.particleStencils, [
      at('partitionBounds'),
      ...offsetsOf(ctx.cpuKernels, [
        'particleGrid',
        'particleCell',
        'material',
        'inverseRestDensity',
        'particleShare',
        'faceKind',
      ]),
      dims[0],
      dims[0] * dims[1],
      cells,
      at('stencils'),
      at('scatterBounds'),
    ]);
    cutFaces(
      s,
      new Int32Array(memory.buffer, at('particleCell'), n),
      new Int32Array(memory.buffer, at('scatterBounds'), 3 * PARTITION_COUNT + 1),
      Math.min(PARTITION_COUNT, ctx.threads.sharingThreads),
    );
    runPartitionedWebAssembly(ctx, WasmKernel.accumulateParticles, [
      at('partitionBounds'),
      at('scatterBounds'),
      at('particleCell'),
      at('neighbourCount'),
      ctx.lattice.fullNeighbourhood,
      ...offsetsOf(ctx.cpuKernels, [
        'constraint',
        'mass',
        'material',
        'inverseRestDensity',
        'velocityX',
        'velocityY',
        'velocityZ',
        'particleShare',
        'faceMass',
        'faceVolume',
        'faceFlux',
        'faceShare',
        'errorSum',
        'errorCount',
      ]),
      cells,
      at('stencils'),
    ]);
  } else {
    wasm.scatterParticles(
      n,
      at('particleGrid'),
      at('particleCell'),
      at('neighbourCount'),
      ctx.lattice.fullNeighbourhood,
      at('constraint'),
      at('mass'),
      at('material'),
      at('inverseRestDensity'),
      at('velocityX'),
      at('velocityY'),
      at('velocityZ'),
      at('particleShare'),
      at('faceKind'),
      at('faceMass'),
      at('faceVolume'),
      at('faceFlux'),
      at('faceShare'),
      at('errorSum'),
      at('errorCount'),
      dims[0],
      dims[0] * dims[1],
      cells,
      at('stencils'),
    );
  }
  ctx.cpuKernels.stencilsInMemory = true;
  ctx.cpuKernels.gridInMemory = true;
  copyAxesOut(memory, at('faceMass'), state.mass, cells);
  copyAxesOut(memory, at('faceVolume'), state.volume, cells);
  copyAxesOut(memory, at('faceFlux'), state.volumeFlux, cells);
  copyAxesOut(memory, at('faceShare'), state.shareVolume, cells);
  state.errorSum.set(float64In(memory, at('errorSum'), cells));
  state.errorCount.set(new Int32Array(memory.buffer, at('errorCount'), cells));
  state.particleShare.set(float64In(memory, at('particleShare'), n));
  return true;
}

/**
 * gatherFromGrid's particle loop in WebAssembly: each particle on the grid gets dv = share (sum of w t) - back
 * excess per axis, v += dv and x* += dt dv; false where the module is not there (the caller runs the
 * TypeScript loop).
 */
export function gatherParticlesInWebAssembly(
  ctx: SimulationContext,
  state: ProjectionState,
  back: number,
  excess: Float64Array,
): boolean {
  // The scatter's stencils, when it ran in WebAssembly this substep (the same grid, faces and positions).
  const cached = ctx.cpuKernels.stencilsInMemory;
  ctx.cpuKernels.stencilsInMemory = false;
  // The faces' transfers, when faceTransfersInWebAssembly made them this substep.
  const transfersCached = ctx.cpuKernels.systemInMemory;
  ctx.cpuKernels.gridInMemory = false;
  ctx.cpuKernels.systemInMemory = false;
  ctx.cpuKernels.particlesMarkedInMemory = false;
  ctx.cpuKernels.cellsInMemory = false;
  const prepared = prepare(ctx, state, true);
  if (!prepared) return false;
  const { wasm, partitioned } = prepared;
  const at = ctx.cpuKernels.at;
  const memory = wasm.memory;
  const s = ctx.solver;
  const n = s.count;
  const cells = state.plan.cells;
  if (!cached) {
    float64In(memory, at('particleGrid'), 3 * n).set(state.particleGrid.subarray(0, 3 * n));
    copyAxesIn(memory, at('faceKind'), state.faceKind, cells);
  }
  new Int32Array(memory.buffer, at('particleCell'), n).set(state.particleCell.subarray(0, n));
  float64In(memory, at('particleShare'), n).set(state.particleShare.subarray(0, n));
  if (!transfersCached) copyAxesIn(memory, at('faceTransfer'), state.transfer, cells);
  for (const name of GATHER_MOVES) copyIntoMemory(ctx.cpuKernels, memory, name, s[name], n);
  const dims = state.plan.dims;
  const values = [
    at('particleGrid'),
    at('particleCell'),
    at('particleShare'),
    at('faceKind'),
    at('faceTransfer'),
    at('velocityX'),
    at('velocityY'),
    at('velocityZ'),
    at('predictedX'),
    at('predictedY'),
    at('predictedZ'),
    back,
    excess[0],
    excess[1],
    excess[2],
    ctx.substepTimeStep,
    dims[0],
    dims[0] * dims[1],
    cells,
    at('stencils'),
    cached ? 1 : 0,
  ];
  // Each particle changes only its own velocity and position: the threads share them in partitions.
  if (partitioned) runPartitionedWebAssembly(ctx, WasmKernel.gatherParticles, [at('partitionBounds'), ...values]);
  else wasm.gatherParticles(n, ...values);
  for (const name of GATHER_MOVES) copyFromMemory(ctx.cpuKernels, memory, name, s[name], n);
  return true;
}

/**
 * conjugateGradients (solve.ts) in WebAssembly: phi over the `fluid` fluid cells from the warm start, and the
 * state's iterations and relative residual (against `normB`); false where the module is not there (the caller
 * runs the TypeScript loop). It lays the memory out as the transfers do, so the scatter's stencils stay where
 * the gather finds them.
 */
export function conjugateGradientsInWebAssembly(
  ctx: SimulationContext,
  state: ProjectionState,
  fluid: number,
  normB: number,
): boolean {
  const wasm = prepare(ctx, state)?.wasm;
  if (!wasm) return false;
  const at = ctx.cpuKernels.at;
  const memory = wasm.memory;
  const cells = state.plan.cells;
  const dims = state.plan.dims;
  // The assembly in WebAssembly left A, phi and the fluid cells in the memory (CpuKernels.systemInMemory); the
  // enclosed regions' means may have changed b since.
  if (!ctx.cpuKernels.systemInMemory) {
    float64In(memory, at('diagonal'), cells).set(state.diagonal.subarray(0, cells));
    copyAxesIn(memory, at('coefficient'), state.coefficient, cells);
    float64In(memory, at('phi'), cells).set(state.phi.subarray(0, cells));
    new Int32Array(memory.buffer, at('fluidCells'), fluid).set(state.fluidCells.subarray(0, fluid));
  }
  float64In(memory, at('rightHandSide'), cells).set(state.rightHandSide.subarray(0, cells));
  const iterations = wasm.conjugateGradients(
    fluid,
    at('fluidCells'),
    cells,
    at('diagonal'),
    at('coefficient'),
    at('phi'),
    at('rightHandSide'),
    at('residual'),
    at('preconditioned'),
    at('direction'),
    at('product'),
    dims[0],
    dims[0] * dims[1],
    ctx.settings.projectionTolerance * normB,
    ctx.settings.projectionMaxIterations,
    at('solveScalars'),
  );
  state.phi.set(float64In(memory, at('phi'), cells));
  state.iterations = iterations;
  state.relativeResidual = Math.sqrt(float64In(memory, at('solveScalars'), 1)[0]) / normB;
  return true;
}

/** `length` bytes of the memory from byte `offset`. */
function bytesIn(memory: WebAssembly.Memory, offset: number, length: number): Uint8Array {
  return new Uint8Array(memory.buffer, offset, length);
}

/**
 * markFluidCells (grid.ts) in WebAssembly (grid.wat): each particle's grid coordinates and cell, and the cells'
 * types from their rest volumes; false where the module is not there (the caller runs the TypeScript loop).
 */
export function markFluidCellsInWebAssembly(ctx: SimulationContext, state: ProjectionState, half: number): boolean {
  const wasm = prepare(ctx, state)?.wasm;
  if (!wasm) return false;
  const at = ctx.cpuKernels.at;
  const memory = wasm.memory;
  const s = ctx.solver;
  const n = s.count;
  const { plan } = state;
  const cells = plan.cells;
  for (const name of ['predictedX', 'predictedY', 'predictedZ', 'mass'] as const) {
    copyIntoMemory(ctx.cpuKernels, memory, name, s[name], n);
  }
  copyIntoMemory(ctx.cpuKernels, memory, 'material', s.material, n);
  const m = ctx.materials;
  float64In(memory, at('inverseRestDensity'), m.inverseRestDensity.length).set(m.inverseRestDensity);
  wasm.markFluidCells(
    n,
    at('predictedX'),
    at('predictedY'),
    at('predictedZ'),
    at('mass'),
    at('material'),
    at('inverseRestDensity'),
    1 / plan.cellSize,
    plan.origin[0],
    plan.origin[1],
    plan.origin[2],
    plan.dims[0],
    plan.dims[1],
    plan.dims[2],
    cells,
    half,
    at('particleGrid'),
    at('particleCell'),
    at('cellVolume'),
    at('cellType'),
  );
  state.particleGrid.set(float64In(memory, at('particleGrid'), 3 * n));
  state.particleCell.set(new Int32Array(memory.buffer, at('particleCell'), n));
  state.type.set(bytesIn(memory, at('cellType'), cells));
  ctx.cpuKernels.particlesMarkedInMemory = true;
  return true;
}

/**
 * erodeSurfaceCells (grid.ts) in WebAssembly (grid.wat): the surface layers left to the density constraints
 * (grown back with `freeSurface`) and the full cells; false where the module is not there.
 */
export function erodeSurfaceCellsInWebAssembly(
  ctx: SimulationContext,
  state: ProjectionState,
  layers: number,
  freeSurface: boolean,
  half: number,
): boolean {
  const wasm = prepare(ctx, state)?.wasm;
  if (!wasm) return false;
  const at = ctx.cpuKernels.at;
  const memory = wasm.memory;
  const { plan } = state;
  const cells = plan.cells;
  bytesIn(memory, at('cellType'), cells).set(state.type.subarray(0, cells));
  bytesIn(memory, at('besideBody'), cells).set(state.besideBody.subarray(0, cells));
  new Int32Array(memory.buffer, at('cellBody'), cells).set(state.cellBody.subarray(0, cells));
  float64In(memory, at('distance'), cells).set(state.distance.subarray(0, cells));
  wasm.erodeSurfaceCells(
    cells,
    plan.dims[0],
    plan.dims[0] * plan.dims[1],
    layers,
    freeSurface ? 1 : 0,
    at('cellType'),
    at('cellBody'),
    at('besideBody'),
    at('distance'),
    half,
    at('classified'),
    at('full'),
    at('cellFlags'),
  );
  state.type.set(bytesIn(memory, at('cellType'), cells));
  state.full.set(bytesIn(memory, at('full'), cells));
  ctx.cpuKernels.cellsInMemory = true;
  // The types before the erosion, which markSolvedParticles reads (`near` is not read after classifyCells).
  if (freeSurface) state.near.set(bytesIn(memory, at('classified'), cells));
  return true;
}

/** markSolvedParticles (grid.ts) in WebAssembly (grid.wat); false where the module is not there. */
export function markSolvedParticlesInWebAssembly(ctx: SimulationContext, state: ProjectionState): boolean {
  const wasm = prepare(ctx, state)?.wasm;
  if (!wasm) return false;
  const at = ctx.cpuKernels.at;
  const memory = wasm.memory;
  const n = ctx.solver.count;
  const cells = state.plan.cells;
  const kernels = ctx.cpuKernels;
  if (!kernels.particlesMarkedInMemory) {
    new Int32Array(memory.buffer, at('particleCell'), n).set(state.particleCell.subarray(0, n));
  }
  if (!kernels.cellsInMemory) {
    bytesIn(memory, at('cellType'), cells).set(state.type.subarray(0, cells));
    bytesIn(memory, at('besideBody'), cells).set(state.besideBody.subarray(0, cells));
    bytesIn(memory, at('classified'), cells).set(state.near.subarray(0, cells));
  }
  wasm.markSolvedParticles(
    n,
    at('particleCell'),
    at('cellType'),
    at('besideBody'),
    at('classified'),
    at('projectionSolved'),
  );
  copyFromMemory(kernels, memory, 'projectionSolved', ctx.solver.projectionSolved, n);
  return true;
}

/**
 * The face kinds of classifyFaces (grid.ts) in WebAssembly (grid.wat); returns the solid faces (axis x cells +
 * cell, in the TypeScript loop's order; a view of the memory), or undefined where the module is not there.
 */
export function classifyFacesInWebAssembly(
  ctx: SimulationContext,
  state: ProjectionState,
  thinWallNormal: number,
): Int32Array | undefined {
  const wasm = prepare(ctx, state)?.wasm;
  if (!wasm) return undefined;
  const at = ctx.cpuKernels.at;
  const memory = wasm.memory;
  const { plan } = state;
  const cells = plan.cells;
  if (!ctx.cpuKernels.cellsInMemory) {
    bytesIn(memory, at('cellType'), cells).set(state.type.subarray(0, cells));
    float64In(memory, at('distance'), cells).set(state.distance.subarray(0, cells));
  }
  new Int32Array(memory.buffer, at('nearest'), cells).set(state.nearest.subarray(0, cells));
  float64In(memory, at('normal'), cells).set(state.normalX.subarray(0, cells));
  float64In(memory, at('normal') + 8 * cells, cells).set(state.normalY.subarray(0, cells));
  float64In(memory, at('normal') + 16 * cells, cells).set(state.normalZ.subarray(0, cells));
  const solid = wasm.classifyFaces(
    cells,
    plan.dims[0],
    plan.dims[0] * plan.dims[1],
    at('cellType'),
    at('nearest'),
    at('distance'),
    at('normal'),
    plan.cellSize,
    thinWallNormal,
    at('faceKind'),
    at('solidFaces'),
  );
  copyAxesOut(memory, at('faceKind'), state.faceKind, cells);
  return new Int32Array(memory.buffer, at('solidFaces'), solid);
}

/**
 * faceCoefficients and assembleRightHandSide (solve.ts) in WebAssembly (solve.wat), after the warm start: the
 * closed faces, the open faces' velocities and A's coefficients, the fluid cells, b, A's diagonal and phi's warm
 * start there; returns the fluid cells, or -1 where the module is not there (the caller runs the TypeScript).
 * `area` is H^2 (m^2), `closedMass` closedFaceMass's (kg), `relaxation` b's factor of the density error.
 */
export function assemblePressureSystemInWebAssembly(
  ctx: SimulationContext,
  state: ProjectionState,
  area: number,
  closedMass: number,
  relaxation: number,
): number {
  const wasm = prepare(ctx, state)?.wasm;
  if (!wasm) return -1;
  const kernels = ctx.cpuKernels;
  const at = kernels.at;
  const memory = wasm.memory;
  const { plan } = state;
  const cells = plan.cells;
  if (!kernels.gridInMemory) {
    // The scatter ran in TypeScript, or the rigid-fluid cells added to its sums: the state's faces.
    copyAxesIn(memory, at('faceKind'), state.faceKind, cells);
    copyAxesIn(memory, at('faceMass'), state.mass, cells);
    copyAxesIn(memory, at('faceVolume'), state.volume, cells);
    copyAxesIn(memory, at('faceFlux'), state.volumeFlux, cells);
    copyAxesIn(memory, at('faceShare'), state.shareVolume, cells);
    float64In(memory, at('errorSum'), cells).set(state.errorSum.subarray(0, cells));
    new Int32Array(memory.buffer, at('errorCount'), cells).set(state.errorCount.subarray(0, cells));
  }
  if (!kernels.cellsInMemory) {
    bytesIn(memory, at('cellType'), cells).set(state.type.subarray(0, cells));
    bytesIn(memory, at('full'), cells).set(state.full.subarray(0, cells));
  }
  copyAxesIn(memory, at('faceVelocity'), state.velocity, cells);
  float64In(memory, at('phi'), cells).set(state.phi.subarray(0, cells));
  const fluid = wasm.assemblePressureSystem(
    cells,
    plan.dims[0],
    plan.dims[0] * plan.dims[1],
    area,
    closedMass,
    state.fullVolume,
    1 + SINGLE_DENSITY_TOLERANCE,
    relaxation,
    ...offsetsOf(kernels, [
      'faceKind',
      'faceMass',
      'faceVolume',
      'faceFlux',
      'faceShare',
      'full',
      'cellType',
      'errorSum',
      'errorCount',
      'faceVelocity',
      'coefficient',
      'diagonal',
      'phi',
      'rightHandSide',
      'fluidCells',
    ]),
  );
  kernels.gridInMemory = true;
  kernels.systemInMemory = true;
  copyAxesOut(memory, at('faceKind'), state.faceKind, cells);
  copyAxesOut(memory, at('faceVelocity'), state.velocity, cells);
  copyAxesOut(memory, at('coefficient'), state.coefficient, cells);
  state.diagonal.set(float64In(memory, at('diagonal'), cells));
  state.rightHandSide.set(float64In(memory, at('rightHandSide'), cells));
  state.phi.set(float64In(memory, at('phi'), cells));
  state.fluidCells.set(new Int32Array(memory.buffer, at('fluidCells'), fluid));
  return fluid;
}

/**
 * faceChanges (transfer.ts) in WebAssembly (transfer.wat), where the assembly left the system in the memory
 * (`CpuKernels.systemInMemory`): each face's velocity change; false where it did not (the caller runs the
 * TypeScript).
 */
export function faceChangesInWebAssembly(ctx: SimulationContext, state: ProjectionState, area: number): boolean {
  const kernels = ctx.cpuKernels;
  if (!kernels.systemInMemory) return false;
  const wasm = prepare(ctx, state)?.wasm;
  if (!wasm) return false;
  const at = kernels.at;
  const memory = wasm.memory;
  const { plan } = state;
  const cells = plan.cells;
  // The solve's phi (0 where it had nothing to solve).
  float64In(memory, at('phi'), cells).set(state.phi.subarray(0, cells));
  wasm.faceChanges(
    cells,
    plan.dims[0],
    plan.dims[0] * plan.dims[1],
    area,
    state.fullVolume,
    1 + SINGLE_DENSITY_TOLERANCE,
    ...offsetsOf(kernels, [
      'faceKind',
      'cellType',
      'phi',
      'faceMass',
      'faceVolume',
      'faceFlux',
      'faceShare',
      'full',
      'faceVelocity',
      'faceChange',
    ]),
  );
  copyAxesOut(memory, at('faceChange'), state.change, cells);
  return true;
}

/**
 * The faces' part of gatherFromGrid (transfer.ts) in WebAssembly (transfer.wat), right after
 * faceChangesInWebAssembly: each face's transfer per unit of share weight (left in the memory for the gather only)
 * and the excess momentum per axis into `excess`; false where the system is not in the memory.
 */
export function faceTransfersInWebAssembly(
  ctx: SimulationContext,
  state: ProjectionState,
  area: number,
  excess: Float64Array,
): boolean {
  const kernels = ctx.cpuKernels;
  if (!kernels.systemInMemory) return false;
  const wasm = prepare(ctx, state)?.wasm;
  if (!wasm) return false;
  const at = kernels.at;
  const memory = wasm.memory;
  const { plan } = state;
  const cells = plan.cells;
  wasm.faceTransfers(
    cells,
    plan.dims[0],
    plan.dims[0] * plan.dims[1],
    area,
    ...offsetsOf(kernels, [
      'faceKind',
      'cellType',
      'phi',
      'faceVolume',
      'faceShare',
      'full',
      'faceChange',
      'faceTransfer',
      'excess',
    ]),
  );
  // The transfers stay in the memory for the gather (ProjectionState.transfer).
  excess.set(float64In(memory, at('excess'), 3));
  return true;
}
