/**
 * The WebGPU solver's storage buffers and their sizes (gpu/backend.ts): the scene buffer's room for collider
 * poses and its limit, the hash table and bucket lengths, the air limit, every storage buffer of the step
 * (created here once, at setup; `wall` and `fieldValues` grow later in the solver), and the bytes of one
 * readback's staging buffer.
 */
import { StorageBuffer } from '@babylonjs/core/Buffers/storageBuffer.js';
import type { WebGPUEngine } from '@babylonjs/core/Engines/webgpuEngine.js';
import { FluidError } from '../../core/errors';
import type { SimulationContext } from '../context';
import { airGenerationLimit } from '../multifluid/air';
import { projectionMaxCells } from '../projection/state';
import { INDIRECT_STORAGE_FLAGS, STORAGE_FLAGS } from './compile';
import type { StructLayout } from './layout';
import type { NeighbourMode } from './shaderSource';
import {
  AIR_EVENTS,
  BodyImpulseAccumulator,
  Contact,
  DIFFUSE_COUNTERS,
  DiffuseParticle,
  defineScene,
  EMPTY_BOUND,
  MPS_BLOCKS,
  MpsSolve,
  ParticleInfo,
  ParticleRecord,
  Pose,
  PROJECTION_BOUNDS,
  ProjectionCell,
  ProjectionFace,
  ProjectionGrid,
  SCAN_BLOCK,
  SHORT_BUCKET,
  State,
  WORKGROUP_SIZE,
} from './structs';

/** The same flags as `STORAGE_FLAGS` plus VERTEX (8): the position buffer is also the renderer's vertex buffer. */
const VERTEX_STORAGE_FLAGS = STORAGE_FLAGS | 8;

/**
 * Most bytes the scene buffer may give to collider poses (two per collider and substep): 64 MiB, half of
 * WebGPU's default `maxStorageBufferBindingSize` (128 MiB), so the header (materials, colliders, drains)
 * always fits. WCSPH's `sphMaxSubsteps` x `maxColliders` is therefore at most 524288 on the WebGPU backend
 * (e.g. 256 substeps with 2048 colliders, or 4096 with 128).
 */
export const MAX_POSE_BYTES = 64 * 1024 * 1024;

/**
 * Room of a neighbour list over the neighbours a particle has inside h in fluid at rest density (the sphere
 * of radius h holds (4/3) pi (h / 2r)^3 lattice cells: 32.5 neighbours at the default h = 4r). Water in PBF
 * stays within a few percent of rest density, so 1.75 times that leaves room for splashes that compress it;
 * a particle with more neighbours (WCSPH with a low speed of sound, particles spawned on top of each other)
 * is marked `NEIGHBOUR_OVERFLOW` and its passes visit the cells instead, with the same result, slower.
 */
export const NEIGHBOUR_LIST_ROOM = 1.75;

/**
 * Words per particle of the neighbour lists: its length, then up to {@link NEIGHBOUR_LIST_ROOM} times the
 * rest-density neighbour count, rounded up to 4 words (60 at the default h = 4r; 472 at h = 8r).
 */
export function neighbourListStride(particleRadius: number, kernelRadius: number): number {
  const atRest = ((4 / 3) * Math.PI * kernelRadius ** 3) / (2 * particleRadius) ** 3;
  return 4 * Math.ceil((1 + NEIGHBOUR_LIST_ROOM * atRest) / 4);
}

/**
 * The neighbour search of a solver whose buckets and lists take `listBytes` together (they share the
 * `buckets` buffer) on a device with `limits`: lists where they fit one storage binding and one buffer
 * (WebGPU's defaults are 128 MiB and 256 MiB: about 500,000 particles at the default h = 4r; a game that
 * creates its engine with Babylon's `setMaximumLimits` gets the adapter's, usually far more), cells otherwise.
 */
export function neighbourMode(
  listBytes: number,
  limits: { readonly maxStorageBufferBindingSize: number; readonly maxBufferSize: number },
): NeighbourMode {
  return listBytes <= Math.min(limits.maxStorageBufferBindingSize, limits.maxBufferSize) ? 'list' : 'cells';
}

/** What the adapter says of itself (fields of WebGPU's `GPUAdapterInfo`, as Babylon's `getInfo()` gives them). */
export interface AdapterDescription {
  /** The adapter's vendor, e.g. 'google' for SwiftShader, 'nvidia'; may be empty. */
  readonly vendor?: string;
  /** The adapter's architecture, e.g. 'swiftshader', 'hopper'; may be empty. */
  readonly architecture?: string;
  /** A description of the adapter; browsers often leave it empty. */
  readonly description?: string;
}

/** The adapter's description from Babylon's `getInfo()` (vendor, architecture as `renderer`, description as `version`). */
export function adapterDescription(engine: WebGPUEngine): AdapterDescription {
  const info = engine.getInfo();
  return { vendor: info.vendor, architecture: info.renderer, description: info.version };
}

/**
 * Whether the adapter `info` describes runs shaders on the CPU: its description names a CPU implementation
 * (SwiftShader, as Chromium reports it; llvmpipe, lavapipe or WARP where the description says so). False for a
 * browser that hides its adapter's name. Such an adapter runs four invocations at a time in SIMD lanes and
 * every branch of a shader for them, masked; the passes that it makes costly are sized for it
 * ({@link oneWorkgroupSize}, and the projection's cell passes dispatched indirectly, gpu/backend.ts).
 */
export function runsOnCpu(info: AdapterDescription | undefined): boolean {
  const name = `${info?.vendor ?? ''} ${info?.architecture ?? ''} ${info?.description ?? ''}`;
  return /swiftshader|llvmpipe|lavapipe|\bwarp\b|basic render/i.test(name);
}

/**
 * Invocations of the passes that run in one workgroup (the coarse projection's conjugate gradients,
 * projection/solve.wgsl; MPS's sums of the dot products, mps/cg.wgsl; the sort's long buckets,
 * neighbours/sort.wgsl) on the adapter `info` describes: 256 on a GPU, where they run side by side; 4 on an
 * adapter that runs shaders on the CPU ({@link runsOnCpu}), which runs a workgroup four invocations at a time
 * and switches between those groups at every barrier: there the projection solve's seven barriers an
 * iteration cost more than its arithmetic (35 against 8 GPU ms a frame in a 10k dam break on SwiftShader,
 * docs/performance.md).
 */
export function oneWorkgroupSize(info: AdapterDescription | undefined): number {
  return runsOnCpu(info) ? 4 : WORKGROUP_SIZE;
}

/** The sizes of one solver's buffers, fixed at creation by its settings. */
export interface SolverSizes {
  /** The scene buffer's layout (parameters, materials, colliders, drains, fields, then the poses). */
  readonly scene: StructLayout;
  /** Bytes of the scene buffer before the poses. */
  readonly headerBytes: number;
  /** Bytes of the whole scene buffer, poses for the most substeps included. */
  readonly sceneBytes: number;
  /** Entries of the neighbour search's hash table (a power of two, at least 1024 and twice the capacity). */
  readonly tableSize: number;
  /** Entries of the bucket array the scan runs over (`tableSize` + 1, rounded up to `SCAN_BLOCK`). */
  readonly bucketLength: number;
  /** Most air candidates and boiled events one readback holds: airGenerationLimit(capacity). */
  readonly airLimit: number;
  /** Most cells of the projection's grid (`projectionMaxCells` of the capacity). */
  readonly projectionCells: number;
  /** Words per particle of the neighbour lists ({@link neighbourListStride}). */
  readonly neighbourStride: number;
  /** Bytes of the `buckets` buffer with the neighbour lists after the bucket starts (bucketLength + capacity x stride words). */
  readonly neighbourListBytes: number;
  /** Bytes of the impulse accumulators (one per collider). */
  readonly accumulatorBytes: number;
  /** Bytes of one readback's staging buffer: everything a readback may copy. */
  readonly stagingBytes: number;
}

/**
 * The sizes of the solver of `ctx`; throws {@link FluidError} when the collider poses of the most substeps
 * need more than MAX_POSE_BYTES.
 */
export function solverSizes(ctx: SimulationContext): SolverSizes {
  const settings = ctx.settings;
  const capacity = settings.capacity;
  const scene = defineScene({
    maxMaterials: settings.maxMaterials,
    maxColliders: settings.maxColliders,
    maxDrains: settings.maxEmitters,
  });
  // Poses for every substep (start and end, Pose.size = 64 bytes each): at most 32 substeps for PBF, up to
  // `sphMaxSubsteps` (fixed at creation) for WCSPH's adaptive count, i.e. 128 bytes x maxColliders x
  // substeps: 2 MiB at the defaults (256 x 64 colliders); more than MAX_POSE_BYTES is refused.
  // MPS's adaptive count likewise up to `mps.maxSubsteps` as it is at creation (a larger edited value is
  // refused before a step, simulation.ts).
  const adaptive = settings.solver === 'sph' ? 'sph' : settings.solver === 'mps' ? 'mps' : undefined;
  const adaptiveMost = adaptive === 'sph' ? settings.sphMaxSubsteps : (ctx.mps?.settings.maxSubsteps ?? 0);
  const maxSubsteps = adaptive ? Math.max(32, adaptiveMost) : 32;
  const poseCount = maxSubsteps * settings.maxColliders * 2;
  if (poseCount * Pose.size > MAX_POSE_BYTES) {
    throw new FluidError(
      `${adaptive}.maxSubsteps ${adaptiveMost} x maxColliders ${settings.maxColliders} needs ${poseCount * Pose.size} bytes of collider poses on the WebGPU backend; allowed are ${MAX_POSE_BYTES} (${adaptive}.maxSubsteps x maxColliders <= ${MAX_POSE_BYTES / (2 * Pose.size)}): lower one of them`,
    );
  }
  const headerBytes = scene.offsets.poses;
  let table = 1024;
  while (table < 2 * capacity) table *= 2;
  const airLimit = airGenerationLimit(capacity);
  const accumulatorBytes = settings.maxColliders * BodyImpulseAccumulator.size;
  const neighbourStride = neighbourListStride(settings.particleRadius, settings.kernelRadius);
  const bucketLength = Math.ceil((table + 1) / SCAN_BLOCK) * SCAN_BLOCK;
  return {
    scene,
    headerBytes,
    sceneBytes: headerBytes + poseCount * Pose.size,
    tableSize: table,
    bucketLength,
    airLimit,
    projectionCells: projectionMaxCells(capacity),
    neighbourStride,
    neighbourListBytes: (bucketLength + capacity * neighbourStride) * 4,
    accumulatorBytes,
    stagingBytes:
      State.size +
      capacity * (4 + 16 * 6) +
      accumulatorBytes +
      ctx.entityCapacity * 16 +
      (AIR_EVENTS.header + 2 * airLimit) * 4 +
      airLimit * 32 +
      DIFFUSE_COUNTERS.words * 4 +
      settings.diffuseCapacity * DiffuseParticle.size,
  };
}

/**
 * The `diffuseCounters` words of an empty pool of `capacity` slots (`DIFFUSE_COUNTERS`): every slot free, on
 * the stack in order (slot 0 popped first), the step's counts 0.
 */
export function freeDiffusePool(capacity: number): Uint32Array {
  const words = new Uint32Array(DIFFUSE_COUNTERS.words + capacity);
  words[DIFFUSE_COUNTERS.free] = capacity;
  for (let slot = 0; slot < capacity; slot++) words[DIFFUSE_COUNTERS.words + slot] = capacity - 1 - slot;
  return words;
}

/** The projection grid's first contents: empty bounds (`EMPTY_BOUND`), no plan. */
export function emptyProjectionGrid(): Int32Array {
  const words = new Int32Array(ProjectionGrid.size / 4);
  for (let axis = 0; axis < 3; axis++) {
    words[PROJECTION_BOUNDS + axis] = EMPTY_BOUND;
    words[PROJECTION_BOUNDS + 3 + axis] = -EMPTY_BOUND;
  }
  return words;
}

/**
 * Names under which a binding sees another buffer (the same `StorageBuffer` object in the buffer record;
 * counted and disposed once, under the buffer's own name): the atomic bindings, and `neighbourTable`, the
 * buckets with the neighbour lists after them, as the neighbour loops read them.
 */
export const BUFFER_ALIASES: Readonly<Record<string, string>> = {
  bucketsAtomic: 'buckets',
  projectionGridAtomic: 'projectionGrid',
  neighbourTable: 'buckets',
};

/**
 * Creates every storage buffer of the step for the solver of `ctx` (by buffer name; the
 * {@link BUFFER_ALIASES} are their buffers again, under the names their bindings use), once, at setup; the
 * `buckets` buffer holds the neighbour lists too in the `'list'` `mode`.
 */
export function createStorageBuffers(
  engine: WebGPUEngine,
  ctx: SimulationContext,
  sizes: SolverSizes,
  mode: NeighbourMode,
): Record<string, StorageBuffer> {
  const buffers: Record<string, StorageBuffer> = {};
  const capacity = ctx.settings.capacity;
  const vec4 = capacity * 16;
  const make = (name: string, bytes: number, flags = STORAGE_FLAGS): void => {
    buffers[name] = new StorageBuffer(engine, Math.max(16, bytes), flags, `fluid-${name}`);
  };
  make('scene', sizes.sceneBytes);
  make('state', State.size);
  make('position', vec4, VERTEX_STORAGE_FLAGS);
  make('velocity', vec4);
  make('info', capacity * ParticleInfo.size);
  make('cell', vec4);
  // The bucket starts, then in the 'list' mode the neighbour lists (word `neighbourListBase` on).
  make('buckets', mode === 'list' ? sizes.neighbourListBytes : sizes.bucketLength * 4);
  buffers.bucketsAtomic = buffers[BUFFER_ALIASES.bucketsAtomic];
  buffers.neighbourTable = buffers[BUFFER_ALIASES.neighbourTable];
  make('sortedPosition', vec4);
  make('sortedPredicted', vec4);
  make('sortedVelocity', vec4);
  make('sortedInfo', capacity * ParticleInfo.size);
  make('removed', capacity * 4);
  make('sortOrder', capacity * 4);
  // A long bucket holds more than SHORT_BUCKET particles, so there are at most capacity / (SHORT_BUCKET + 1).
  make('longBuckets', 4 * (1 + Math.floor(capacity / (SHORT_BUCKET + 1))));
  make('solve', vec4);
  // MPS keeps two blocks of wall sums (mps/density.wgsl): the first moment and Z, the hydrostatic sums.
  const mps = ctx.settings.solver === 'mps';
  make('wall', mps ? 2 * vec4 : vec4);
  make('delta', vec4);
  make('contact', capacity * Contact.size);
  make('omega', vec4);
  make('placeOfEntity', ctx.entityCapacity * 4);
  make('records', capacity * ParticleRecord.size);
  // Fluid-fluid interaction (multifluid/*.wgsl): attributes by entity id, a diffusion part's changes, the
  // substep's largest diffusion rate and the diffusion plan (part length).
  make('attributes', ctx.entityCapacity * 16);
  make('diffusionChange', vec4);
  make('diffusionMax', 16);
  make('diffusionPlan', 16);
  // Trapped air and boiling (multifluid/airFields.wgsl): the fields (two vec4s per place), the
  // generation candidates and the event words, each bounded by airGenerationLimit(capacity).
  make('airFields', capacity * 32);
  make('airCandidates', sizes.airLimit * 32);
  make('airEvents', (AIR_EVENTS.header + 2 * sizes.airLimit) * 4);
  make('fieldValues', 16);
  make('impulses', sizes.accumulatorBytes);
  // The coarse projection (projection/*.wgsl): its grid (also bound as atomics for the bounds), cells, three
  // faces per cell and three vec4s per particle.
  make('projectionGrid', ProjectionGrid.size, INDIRECT_STORAGE_FLAGS);
  buffers.projectionGrid.update(emptyProjectionGrid());
  buffers.projectionGridAtomic = buffers[BUFFER_ALIASES.projectionGridAtomic];
  make('projectionCell', sizes.projectionCells * ProjectionCell.size);
  make('projectionFace', 3 * sizes.projectionCells * ProjectionFace.size);
  make('projectionParticle', 3 * vec4);
  // The MPS pressure solve (mps/*.wgsl), sized only for MPS: MPS_BLOCKS.count vec4s per place, each place's
  // terms of the dot products, the scalars, the warm start by entity id.
  make('mps', mps ? MPS_BLOCKS.count * vec4 : 16);
  make('mpsPartials', mps ? vec4 : 16);
  make('mpsSolve', MpsSolve.size);
  make('mpsPressure', mps ? ctx.entityCapacity * 4 : 16);
  // White water (diffuse/diffuse.wgsl), sized only when it is on: the pool (also the view's vertex buffer),
  // two vec4s per sorted place, the counters.
  const whiteWater = ctx.settings.diffuseCapacity > 0;
  make('diffuseParticles', ctx.settings.diffuseCapacity * DiffuseParticle.size, VERTEX_STORAGE_FLAGS);
  make('diffuseFields', whiteWater ? capacity * 32 : 32);
  make('diffuseCounters', (DIFFUSE_COUNTERS.words + ctx.settings.diffuseCapacity) * 4);
  buffers.diffuseCounters.update(freeDiffusePool(ctx.settings.diffuseCapacity));
  return buffers;
}
