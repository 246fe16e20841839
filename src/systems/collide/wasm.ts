/**
 * The container box's share of the collision passes in WebAssembly (collide.wat, in both CPU modules of
 * wasm/state.ts): one container box's loop of `computeWallWeights` and of `collideParticles` (collide/cpu.ts),
 * and `applyCorrections` (density/shared.ts), the same float64 operations in the same order, so a step gives the
 * same results bit for bit whichever runs (tests/wasm.test.ts). They run only where the solver's arrays live in
 * the module's memory (`CpuKernels.resident`): nothing is copied, and the TypeScript loops run elsewhere. With
 * threads they run over the partitions of the particles (parallel/kernels.wat), each particle on one thread;
 * every particle writes only its own, so any thread count gives the one-thread results.
 */
import { WALL_WEIGHT_SAMPLES } from '../../core/kernels';
import { COLLIDER_FRAME_STRIDE, type SimulationContext } from '../context';
import { PARTITION_COUNT } from '../parallel/kernels';
import { runPartitionedWebAssembly } from '../parallel/wasm';
import {
  COLLIDER_BLOCK,
  type CpuKernelExports,
  float64In,
  offsetsOf,
  type ParticleLayout,
  particleOffsets,
  WasmKernel,
} from '../wasm/state';

/**
 * The collider block's values after the frame (float64 index; collide.wat reads value k at byte 8 k): 1 / scale,
 * the two corners, the reach or the substep, the samples per metre, the last sample, the wall table.
 */
const Block = { inverseScale: COLLIDER_FRAME_STRIDE, table: COLLIDER_FRAME_STRIDE + 10 } as const;

/** The module and the offsets of the memory's first part, where the solver's arrays live in its memory. */
interface Resident {
  readonly wasm: CpuKernelExports;
  readonly offsets: ParticleLayout;
}

/**
 * The module and the offsets of the solver's arrays and the collider block (`particleOffsets`, which leaves the
 * layout the other passes keep untouched), where the solver's arrays live in the memory; else undefined.
 */
function residentModule(ctx: SimulationContext): Resident | undefined {
  const kernels = ctx.cpuKernels;
  const wasm = kernels.exports;
  // The solver's arrays live in the memory all together or not at all.
  if (!wasm || !kernels.resident.has(ctx.solver.contactCollider)) return undefined;
  const offsets = particleOffsets(kernels, wasm.memory, ctx.solver.count);
  return offsets ? { wasm, offsets } : undefined;
}

/**
 * Writes slot `slot`'s frame and `values` (from 1 / scale on, see `Block`) to the collider block; returns the
 * block.
 */
function writeBlock(ctx: SimulationContext, resident: Resident, slot: number, values: readonly number[]): Float64Array {
  const block = float64In(resident.wasm.memory, resident.offsets.at('collider'), COLLIDER_BLOCK);
  const o = slot * COLLIDER_FRAME_STRIDE;
  block.set(ctx.colliders.frames.subarray(o, o + COLLIDER_FRAME_STRIDE));
  block.set(values, Block.inverseScale);
  return block;
}

/**
 * Runs `kernel` over the particles: over the partitions where the threads' plan is for the present particles
 * (the partition kernel `partitionKernel`, its partition starts copied next to the block), else on this thread.
 */
function runOverParticles(
  ctx: SimulationContext,
  resident: Resident,
  kernel: (...values: number[]) => void,
  partitionKernel: number,
  values: readonly number[],
): void {
  const s = ctx.solver;
  const n = s.count;
  const shared = ctx.cpuKernels.shared;
  if (ctx.threads.partitioned && shared !== undefined && s.partitionBounds[PARTITION_COUNT] === n && n > 0) {
    const bounds = resident.offsets.at('colliderBounds');
    new Int32Array(shared.memory.buffer, bounds, PARTITION_COUNT + 1).set(
      s.partitionBounds.subarray(0, PARTITION_COUNT + 1),
    );
    runPartitionedWebAssembly(ctx, partitionKernel, [bounds, ...values]);
  } else kernel(n, ...values);
}

/** The arrays of `containerWalls`, in its order. */
const WALL_ARRAYS = [
  'predictedX',
  'predictedY',
  'predictedZ',
  'wallWeight',
  'wallGradientX',
  'wallGradientY',
  'wallGradientZ',
];

/**
 * Adds container box `slot`'s six walls within reach to every particle's wall weight and gradient
 * (`computeWallWeights`' loop for one container box that is not coupled: `localH` = h / scale, the box's local
 * corners (minX, minY, minZ) and (maxX, maxY, maxZ)); false where the solver's arrays are not in the module's
 * memory (the caller runs the loop).
 */
export function containerWallsInWebAssembly(
  ctx: SimulationContext,
  slot: number,
  inverseScale: number,
  localH: number,
  samplesPerMetre: number,
  minX: number,
  minY: number,
  minZ: number,
  maxX: number,
  maxY: number,
  maxZ: number,
): boolean {
  const resident = residentModule(ctx);
  if (!resident) return false;
  const table = ctx.lattice.wallWeight;
  const block = writeBlock(ctx, resident, slot, [
    inverseScale,
    minX,
    minY,
    minZ,
    maxX,
    maxY,
    maxZ,
    localH,
    samplesPerMetre,
    WALL_WEIGHT_SAMPLES - 1,
  ]);
  block.set(table, Block.table);
  const { wasm, offsets } = resident;
  runOverParticles(ctx, resident, wasm.containerWalls, WasmKernel.containerWalls, [
    ...offsetsOf(offsets, WALL_ARRAYS),
    offsets.at('collider'),
  ]);
  return true;
}

/** The arrays of `containerCollide`, in its order. */
const COLLIDE_ARRAYS = [
  'predictedX',
  'predictedY',
  'predictedZ',
  'velocityX',
  'velocityY',
  'velocityZ',
  'contactCollider',
  'contactNormalX',
  'contactNormalY',
  'contactNormalZ',
  'contactApproachSpeed',
];

/**
 * Projects every particle into container box `slot` and records the contacts (`collideParticles`' loop for
 * one container box where no collider is coupled: the box's local corners (minX, minY, minZ) and (maxX, maxY,
 * maxZ) shrunk by the particle radius); false where the solver's arrays are not in the module's memory (the
 * caller runs the loop).
 */
export function containerCollideInWebAssembly(
  ctx: SimulationContext,
  slot: number,
  inverseScale: number,
  minX: number,
  minY: number,
  minZ: number,
  maxX: number,
  maxY: number,
  maxZ: number,
): boolean {
  const resident = residentModule(ctx);
  if (!resident) return false;
  writeBlock(ctx, resident, slot, [inverseScale, minX, minY, minZ, maxX, maxY, maxZ, ctx.substepTimeStep]);
  const { wasm, offsets } = resident;
  runOverParticles(ctx, resident, wasm.containerCollide, WasmKernel.containerCollide, [
    ...offsetsOf(offsets, COLLIDE_ARRAYS),
    offsets.at('collider'),
    slot,
  ]);
  return true;
}

/** The arrays of `applyCorrections`, in its order. */
const APPLY_ARRAYS = ['predictedX', 'predictedY', 'predictedZ', 'deltaX', 'deltaY', 'deltaZ', 'correctionScale'];

/**
 * Adds the corrections, each clamped to `maximum` (m), to the predicted positions (`applyCorrections`); false
 * where the solver's arrays are not in the module's memory (the caller runs the loop).
 */
export function applyCorrectionsInWebAssembly(ctx: SimulationContext, maximum: number): boolean {
  const resident = residentModule(ctx);
  if (!resident) return false;
  runOverParticles(ctx, resident, resident.wasm.applyCorrections, WasmKernel.applyCorrections, [
    ...offsetsOf(resident.offsets, APPLY_ARRAYS),
    maximum,
    maximum * maximum,
  ]);
  return true;
}
