/**
 * The coarse projection's particle transfers and pressure solve in WebAssembly (transfer.wat and solve.wat, in
 * the CPU module of wasm/state.ts):
 * the particle loops of scatterToGrid and gatherFromGrid (projection/transfer.ts) with faceStencil's weights,
 * the same float64 operations in the same order, so the faces' sums and the particles' velocity changes are
 * bit-identical (tests/wasm.test.ts). Each pass copies what it reads into the module's memory and what it
 * writes back out, but the gather reuses the grid coordinates, face kinds and stencils the scatter left there
 * (`CpuKernels.stencilsInMemory`). With threads (the shared module) the per-particle parts run in partitions
 * (parallel/kernels.wat): the scatter's share weights and stencils, then its sums on the stepping thread in
 * particle order, and the gather; each particle writes only its own, so the results are the one-thread
 * kernels' bit for bit. The conjugate gradients (solve.ts) likewise: the same phi, iterations and
 * residual bit for bit. The rigid bodies' share of the faces and the other grid passes stay in TypeScript.
 */
import type { SimulationContext } from '../context';
import { layOutPartitions, runPartitionedWebAssembly } from '../parallel/wasm';
import { float64In, layOutMemory, offsetsOf, WasmKernel } from '../wasm/state';
import type { ProjectionState } from './state';

/** The solver's float64 arrays the scatter reads, besides the grid coordinates, cells and counts. */
const SCATTER_READS = ['constraint', 'mass', 'velocityX', 'velocityY', 'velocityZ'] as const;
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
function copyAxesIn(memory: WebAssembly.Memory, offset: number, arrays: readonly Int32Array[], cells: number): void {
  for (let a = 0; a < 3; a++)
    new Int32Array(memory.buffer, offset + 4 * a * cells, cells).set(arrays[a].subarray(0, cells));
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
  float64In(memory, at('particleGrid'), 3 * n).set(state.particleGrid.subarray(0, 3 * n));
  new Int32Array(memory.buffer, at('particleCell'), n).set(state.particleCell.subarray(0, n));
  new Int32Array(memory.buffer, at('neighbourCount'), n).set(s.neighbourCount.subarray(0, n));
  for (const name of SCATTER_READS) {
    float64In(memory, at(name), n).set(s[name].subarray(0, n));
  }
  new Uint16Array(memory.buffer, at('material'), n).set(s.material.subarray(0, n));
  // The kernel sets the share of the particles on the grid; the others keep theirs, as in TypeScript.
  float64In(memory, at('particleShare'), n).set(state.particleShare.subarray(0, n));
  float64In(memory, at('inverseRestDensity'), m.inverseRestDensity.length).set(m.inverseRestDensity);
  copyAxesIn(memory, at('faceKind'), state.faceKind, cells);
  for (const name of FACE_SUMS) float64In(memory, at(name), 3 * cells).fill(0);
  float64In(memory, at('errorSum'), cells).fill(0);
  new Int32Array(memory.buffer, at('errorCount'), cells).fill(0);
  const dims = state.plan.dims;
  if (partitioned) {
    // The threads make the share weights and stencils in partitions; this thread adds them up in order.
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
    ]);
    wasm.accumulateParticles(
      0,
      n,
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
    );
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
  for (let a = 0; a < 3; a++) {
    state.mass[a].set(float64In(memory, at('faceMass') + 8 * a * cells, cells));
    state.volume[a].set(float64In(memory, at('faceVolume') + 8 * a * cells, cells));
    state.volumeFlux[a].set(float64In(memory, at('faceFlux') + 8 * a * cells, cells));
    state.shareVolume[a].set(float64In(memory, at('faceShare') + 8 * a * cells, cells));
  }
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
  for (let a = 0; a < 3; a++) {
    float64In(memory, at('faceTransfer') + 8 * a * cells, cells).set(state.transfer[a].subarray(0, cells));
  }
  for (const name of GATHER_MOVES) float64In(memory, at(name), n).set(s[name].subarray(0, n));
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
  for (const name of GATHER_MOVES) s[name].set(float64In(memory, at(name), n));
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
  float64In(memory, at('diagonal'), cells).set(state.diagonal.subarray(0, cells));
  for (let a = 0; a < 3; a++) {
    float64In(memory, at('coefficient') + 8 * a * cells, cells).set(state.coefficient[a].subarray(0, cells));
  }
  float64In(memory, at('phi'), cells).set(state.phi.subarray(0, cells));
  float64In(memory, at('rightHandSide'), cells).set(state.rightHandSide.subarray(0, cells));
  new Int32Array(memory.buffer, at('fluidCells'), fluid).set(state.fluidCells.subarray(0, fluid));
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
