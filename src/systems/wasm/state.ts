/**
 * The CPU backend's WebAssembly module of a simulation (docs/ARCHITECTURE.md, "WebAssembly"): the kernels of
 * projection/grid.wat, projection/transfer.wat, projection/solve.wat, neighbours/neighbours.wat, density/density.wat,
 * velocity/velocity.wat and collide/collide.wat, assembled
 * into cpuKernelsWasm.ts by scripts/assembleWasm.mjs, and the layout of its memory, which every kernel shares.
 * Created with the simulation context; the passes that run the kernels are projection/wasm.ts,
 * neighbours/wasm.ts, density/wasm.ts, velocity/wasm.ts and collide/wasm.ts. Where the runtime makes a shared memory (Node; a
 * cross-origin isolated page) the simulation takes the shared module, with any thread count, and the solver's
 * per-particle arrays of {@link RESIDENT_SOLVER_ARRAYS} live in its memory (`residentSolverArrays`), so the passes
 * copy them neither in nor out; elsewhere the module with a memory of its own, and the passes copy.
 */
import { WALL_WEIGHT_SAMPLES } from '../../core/kernels';
import { PARTITION_COUNT, SPILL_STRIDE } from '../parallel/kernels';
import { CPU_KERNELS_SHARED_WASM, CPU_KERNELS_WASM, SHARED_MEMORY_PAGES } from './cpuKernelsWasm';

/** The module's exports: its memory and the kernels, whose arguments are byte offsets and numbers. */
export interface CpuKernelExports {
  readonly memory: WebAssembly.Memory;
  readonly denseNeighbours: (...values: number[]) => number;
  readonly scatterParticles: (...values: number[]) => void;
  readonly gatherParticles: (...values: number[]) => void;
  readonly conjugateGradients: (...values: number[]) => number;
  readonly markFluidCells: (...values: number[]) => void;
  readonly erodeSurfaceCells: (...values: number[]) => void;
  readonly markSolvedParticles: (...values: number[]) => void;
  readonly classifyFaces: (...values: number[]) => number;
  readonly assemblePressureSystem: (...values: number[]) => number;
  readonly faceChanges: (...values: number[]) => void;
  readonly faceTransfers: (...values: number[]) => void;
  readonly lambda: (...values: number[]) => void;
  readonly corrections: (...values: number[]) => void;
  readonly xsphVorticity: (...values: number[]) => void;
  readonly confinement: (...values: number[]) => void;
  readonly containerWalls: (...values: number[]) => void;
  readonly applyCorrections: (...values: number[]) => void;
  readonly containerCollide: (...values: number[]) => void;
}

/** The partition kernels of parallel/kernels.wat, which only the shared module (the threads') exports. */
export const WASM_PARTITION_KERNELS = [
  'partitionLambdaPairs',
  'partitionLambdaFinish',
  'partitionCorrectionPairs',
  'partitionAddSpills',
  'partitionViscosityPairs',
  'partitionVorticityPairs',
  'partitionNeighbours',
  'partitionParticleStencils',
  'partitionGatherParticles',
  'partitionContainerWalls',
  'partitionApplyCorrections',
  'partitionContainerCollide',
  'partitionAccumulateParticles',
] as const;

/** Index of each partition kernel in {@link WASM_PARTITION_KERNELS}. */
export const WasmKernel = {
  lambdaPairs: 0,
  lambdaFinish: 1,
  correctionPairs: 2,
  addSpills: 3,
  viscosityPairs: 4,
  vorticityPairs: 5,
  neighbours: 6,
  particleStencils: 7,
  gatherParticles: 8,
  containerWalls: 9,
  applyCorrections: 10,
  containerCollide: 11,
  accumulateParticles: 12,
} as const;

/** A partition kernel: the partition, then its byte offsets and numbers. */
export type WasmPartitionKernel = (partition: number, ...values: number[]) => void;

/** The shared module: compiled (the workers instantiate it), its shared memory, and its partition kernels here. */
export interface SharedKernels {
  readonly module: WebAssembly.Module;
  readonly memory: WebAssembly.Memory;
  /** The partition kernels on this thread, by {@link WasmKernel} index. */
  readonly partitions: readonly WasmPartitionKernel[];
  /** joinPartitionLists (parallel/kernels.wat): the partitions' neighbour lists made one; returns the pairs. */
  readonly joinLists: (...values: number[]) => number;
}

/** The offsets of the memory's first part (`particleOffsets`): the particle count they are for, and the offsets. */
export interface ParticleLayout {
  n: number;
  readonly offsets: Map<string, number>;
  /** The byte offset of array `name` (0 for a name it does not hold). */
  readonly at: (name: string) => number;
}

/** A simulation's module: the instance once compiled, and what its memory holds. */
export interface CpuKernels {
  /** The module's instance; undefined until compiled, and where it cannot be. */
  exports: CpuKernelExports | undefined;
  /**
   * The shared module on a shared memory (compiled, for the workers to instantiate on the same memory) and
   * its partition kernels on this thread, by {@link WasmKernel} index (with one thread only its one-thread
   * kernels run); undefined until
   * compiled, and where shared memory or WebAssembly is missing.
   */
  shared: SharedKernels | undefined;
  /** Resolves when compiling ended, either way (`ready()` waits for it). */
  readonly compiled: Promise<void>;
  /** Whether the memory holds the last lambda pass's inputs and outputs (set by it, cleared by the corrections). */
  lambdaInMemory: boolean;
  /**
   * Room the neighbour pass gives the half lists in the memory (entries; on one thread at most the solver's list
   * array's length; the threads' regions together, which double when one is too small), grown when a search
   * needs more, so the memory follows the pairs, not the array's capacity.
   */
  listCapacity: number;
  /**
   * Whether the memory holds the solver's current neighbour starts and half lists, at the offsets of the
   * layout for the present particle count (and `residentCapacity`) (set by the WebAssembly neighbour pass, cleared by every neighbour
   * pass that is not, so the pair loops of the substep need not copy them in).
   */
  listsInMemory: boolean;
  /**
   * Whether the memory holds the particles' face stencils of this substep's projection grid (set by the
   * WebAssembly scatter, cleared by the gather that reads them).
   */
  stencilsInMemory: boolean;
  /**
   * Whether the memory holds this substep's projection faces as the state has them: their kinds and the
   * scatter's sums (set by the WebAssembly scatter unless rigid-fluid cells added to the sums afterwards, and by
   * the pressure system's assembly, which copies them in where not; cleared by the cells' marking and by the
   * gather).
   */
  gridInMemory: boolean;
  /**
   * Whether the memory holds this substep's pressure system as the WebAssembly assembly left it: besides the
   * faces (`gridInMemory`), the cells' types and full marks, the faces' velocities and closed kinds, A, phi's
   * warm start and the fluid cells; then the faces' changes and transfers follow there (set by the assembly,
   * cleared by the cells' marking and by the gather).
   */
  systemInMemory: boolean;
  /**
   * Whether the memory holds this substep's projection particles as the WebAssembly markFluidCells left them:
   * their grid coordinates, cells, masses and materials and the materials' inverse rest densities (set by it,
   * cleared by the cells' marking and by the gather).
   */
  particlesMarkedInMemory: boolean;
  /**
   * Whether the memory holds this substep's projection cells as the WebAssembly erodeSurfaceCells left them:
   * their types, bodies, marks beside thin bodies, types before the erosion, full marks and collider distances
   * (set by it, cleared by the cells' marking and by the gather).
   */
  cellsInMemory: boolean;
  /**
   * The shared module's memory (created with the kernels, before the module compiles); undefined where shared
   * memory is missing (the module then has a memory of its own) and without `webAssembly`.
   */
  readonly sharedMemory: WebAssembly.Memory | undefined;
  /**
   * With the shared module, the solver's per-particle arrays that live in its memory (`residentSolverArrays`):
   * the passes read and write them there and copy nothing (`copyIntoMemory`, `copyFromMemory`). Empty otherwise.
   */
  readonly resident: Set<ArrayBufferView>;
  /**
   * Particles the memory's per-particle arrays are laid out for, whatever the count: the simulation's capacity
   * where solver arrays live in it (so they stay at the same offsets), else 0 (laid out for the count).
   */
  residentCapacity: number;
  /** Byte offset of each array in the memory, by name (see {@link layOutMemory}). */
  readonly offsets: Map<string, number>;
  /**
   * The offsets of the memory's first part alone, for the particle count `n` it was made for (-1: none yet;
   * see {@link particleOffsets}), kept apart from `offsets`.
   */
  readonly particleLayout: ParticleLayout;
  /** The byte offset of array `name` in the current layout (0 for a name it does not hold). */
  readonly at: (name: string) => number;
}

function decode(base64: string): Uint8Array<ArrayBuffer> {
  const text = atob(base64);
  const bytes = new Uint8Array(text.length);
  for (let k = 0; k < text.length; k++) bytes[k] = text.charCodeAt(k);
  return bytes;
}

/**
 * A shared memory for the shared module, or undefined where the runtime makes none or the page is not
 * cross-origin isolated (some browsers make one there all the same; the module with its own memory is the one
 * such a page is meant to run).
 */
function sharedMemory(): WebAssembly.Memory | undefined {
  if ((globalThis as { crossOriginIsolated?: boolean }).crossOriginIsolated === false) return undefined;
  try {
    return new WebAssembly.Memory({ initial: 1, maximum: SHARED_MEMORY_PAGES, shared: true });
  } catch {
    return undefined;
  }
}

/**
 * Compiles the module of a simulation (`enabled`: the `webAssembly` setting): the shared module where the runtime
 * makes a shared memory (the threads' partition kernels need it; with one thread its one-thread kernels run and
 * the solver's arrays live in its memory), else the module with a memory of its own;
 * synchronously where the runtime allows it (browsers refuse it on the page's thread above 4 KB), else
 * asynchronously, the TypeScript loops running until it is there; where WebAssembly cannot be compiled at
 * all, never.
 */
export function createCpuKernels(enabled: boolean): CpuKernels {
  const offsets = new Map<string, number>();
  const particleLayoutOffsets = new Map<string, number>();
  const memory = enabled && typeof WebAssembly !== 'undefined' ? sharedMemory() : undefined;
  const kernels: CpuKernels = {
    exports: undefined,
    shared: undefined,
    compiled: Promise.resolve(),
    lambdaInMemory: false,
    listCapacity: 0,
    listsInMemory: false,
    stencilsInMemory: false,
    gridInMemory: false,
    systemInMemory: false,
    particlesMarkedInMemory: false,
    cellsInMemory: false,
    sharedMemory: memory,
    resident: new Set(),
    residentCapacity: 0,
    offsets,
    at: (name) => offsets.get(name) ?? 0,
    particleLayout: { n: -1, offsets: particleLayoutOffsets, at: (name) => particleLayoutOffsets.get(name) ?? 0 },
  };
  if (!enabled || typeof WebAssembly === 'undefined') return kernels;
  const bytes = decode(memory ? CPU_KERNELS_SHARED_WASM : CPU_KERNELS_WASM);
  const imports: WebAssembly.Imports = memory ? { env: { memory } } : {};
  const take = (module: WebAssembly.Module, instance: WebAssembly.Instance, into: CpuKernels): void => {
    const exports = instance.exports as unknown as CpuKernelExports & Record<string, WasmPartitionKernel>;
    into.exports = exports;
    if (memory) {
      const partitions = WASM_PARTITION_KERNELS.map((name) => exports[name]);
      const joinLists = exports.joinPartitionLists as unknown as SharedKernels['joinLists'];
      into.shared = { module, memory, partitions, joinLists };
    }
  };
  try {
    const module = new WebAssembly.Module(bytes);
    take(module, new WebAssembly.Instance(module, imports), kernels);
    return kernels;
  } catch {
    const pending: CpuKernels = {
      ...kernels,
      compiled: WebAssembly.instantiate(bytes, imports).then(
        (result) => take(result.module, result.instance, pending),
        () => undefined,
      ),
    };
    return pending;
  }
}

/**
 * The per-particle arrays of the memory, in its order: name and bytes per element. The partition kernels add
 * spilled sums into arrays that follow each other (density to gradientSquares, deltaX to vorticityZ, etaX to
 * etaZ; parallel/kernels.wat).
 */
const PARTICLE_ARRAYS: readonly [string, number][] = [
  ['predictedX', 8],
  ['predictedY', 8],
  ['predictedZ', 8],
  ['mass', 8],
  ['wallWeight', 8],
  ['wallGradientX', 8],
  ['wallGradientY', 8],
  ['wallGradientZ', 8],
  ['density', 8],
  ['gradientX', 8],
  ['gradientY', 8],
  ['gradientZ', 8],
  ['gradientSquares', 8],
  ['constraint', 8],
  ['lambda', 8],
  ['projectionSolved', 8],
  ['deltaX', 8],
  ['deltaY', 8],
  ['deltaZ', 8],
  ['vorticityX', 8],
  ['vorticityY', 8],
  ['vorticityZ', 8],
  ['velocityX', 8],
  ['velocityY', 8],
  ['velocityZ', 8],
  ['volume', 8],
  ['magnitude', 8],
  ['etaX', 8],
  ['etaY', 8],
  ['etaZ', 8],
  ['material', 2],
  ['cellHash', 4],
  ['neighbourCount', 4],
  // The collisions' (collide/collide.wat): the clamp's scale and the contacts.
  ['correctionScale', 8],
  ['contactCollider', 4],
  ['contactNormalX', 8],
  ['contactNormalY', 8],
  ['contactNormalZ', 8],
  ['contactApproachSpeed', 8],
  ['particleGrid', 24],
  ['particleCell', 4],
  ['particleShare', 8],
];

/** The projection grid's arrays, last in the memory: name and bytes per cell (the three axes' faces in one). */
const GRID_ARRAYS: readonly [string, number][] = [
  ['faceKind', 12],
  ['faceMass', 24],
  ['faceVolume', 24],
  ['faceFlux', 24],
  ['faceShare', 24],
  ['faceTransfer', 24],
  // The assembly's and the changes' (solve.wat, transfer.wat): the faces' velocities and velocity changes.
  ['faceVelocity', 24],
  ['faceChange', 24],
  ['errorSum', 8],
  ['errorCount', 4],
  // The pressure solve's (projection/solve.wat): A's diagonal, the three axes' coefficients, phi, b, its vectors.
  ['diagonal', 8],
  ['coefficient', 24],
  ['phi', 8],
  ['rightHandSide', 8],
  ['residual', 8],
  ['preconditioned', 8],
  ['direction', 8],
  ['product', 8],
  ['fluidCells', 4],
  // The grid passes' (projection/grid.wat): cell types, flags and marks, bodies, nearest colliders, rest
  // volumes, collider distances and normals (the three axes' one after the other), the solid faces' list.
  ['cellType', 1],
  ['cellFlags', 1],
  ['classified', 1],
  ['besideBody', 1],
  ['full', 1],
  ['cellBody', 4],
  ['nearest', 4],
  ['cellVolume', 8],
  ['distance', 8],
  ['normal', 24],
  ['solidFaces', 12],
];

/**
 * Float64 values of a collider's block (collide/collide.wat): its frame (2 x 13), 1 / scale, the box's two
 * corners (6), the reach or the substep, the wall table's samples per metre and last sample, and the wall table.
 */
export const COLLIDER_BLOCK = 36 + WALL_WEIGHT_SAMPLES + 1;

/** What a pass needs the memory to hold (see {@link layOutMemory}). */
export interface MemorySizes {
  /** Particles. */
  readonly n: number;
  /** Pairs of the half lists, and of the per-pair caches. */
  readonly pairs: number;
  /** Materials. */
  readonly materials: number;
  /** Room for the half lists, when the neighbour pass writes them (more than `pairs`); default `pairs`. */
  readonly listCapacity?: number;
  /** Cells of the neighbour grid (the neighbour pass's bucket starts); default 0. */
  readonly cells?: number;
  /** Cells of the projection grid (its faces); default 0. */
  readonly gridCells?: number;
  /** Rows of the partitions' spill (parallel/partitions.ts), last; default 0. */
  readonly spillRows?: number;
}

/**
 * Lays out the memory for `sizes` and grows it where needed; false where the memory cannot grow that far (the
 * caller runs its TypeScript loop). The offsets up to the half lists depend on the particle count and
 * `residentCapacity` alone, so every kernel of a substep finds the lists where the neighbour pass left them;
 * `kernels.at` gives the offsets. With `residentCapacity` the solver's arrays of RESIDENT_SOLVER_ARRAYS come first,
 * laid out for it (their offsets never move), then the module's own per-particle arrays, for the count.
 */
export function layOutMemory(
  kernels: Pick<CpuKernels, 'offsets'> & Partial<Pick<CpuKernels, 'residentCapacity'>>,
  memory: WebAssembly.Memory,
  sizes: MemorySizes,
): boolean {
  const { n, pairs, materials } = sizes;
  const cells = sizes.cells ?? 0;
  const gridCells = sizes.gridCells ?? 0;
  const offsets = kernels.offsets;
  let bytes = 0;
  const place = (name: string, size: number): void => {
    offsets.set(name, bytes);
    bytes += Math.ceil(size / 8) * 8;
  };
  placeParticleArrays(place, n, kernels.residentCapacity ?? 0);
  place('neighbourStart', (n + 1) * 4);
  place('neighbours', Math.max(pairs, sizes.listCapacity ?? 0) * 4);
  place('pairGradient', pairs * 8);
  place('pairWeight', pairs * 8);
  place('inverseRestDensity', materials * 8);
  place('relaxation', materials * 8);
  place('bucketStart', cells > 0 ? (cells + 1) * 4 : 0);
  for (const [name, size] of GRID_ARRAYS) place(name, gridCells * size);
  // Each particle's three face stencils (8 int32 faces and 8 float64 weights each), from the scatter to the gather.
  place('stencils', gridCells > 0 ? n * 3 * 96 : 0);
  // The pressure solve's r . r, for its residual.
  place('solveScalars', 8);
  // The faces' excess momentum per axis (faceTransfers in transfer.wat).
  place('excess', 24);
  // The threads' partition table (`partitionBounds`, 4 x PARTITION_COUNT + 1 int32) and spill rows.
  place('partitionBounds', (4 * PARTITION_COUNT + 1) * 4);
  // The threads' scatter table (projection/wasm.ts): PARTITION_COUNT + 1 face bounds, then a reach per partition.
  place('scatterBounds', (3 * PARTITION_COUNT + 1) * 4);
  place('spill', (sizes.spillRows ?? 0) * SPILL_STRIDE * 8);
  return holds(memory, bytes);
}

/** Grows `memory` to hold `bytes` where it is smaller; false where it cannot grow that far. */
function holds(memory: WebAssembly.Memory, bytes: number): boolean {
  const missing = bytes - memory.buffer.byteLength;
  if (missing > 0) {
    try {
      memory.grow(Math.ceil(missing / 65536));
    } catch {
      // Past the runtime's limit (a module's memory holds at most 4 GiB, engines often less).
      return false;
    }
  }
  return true;
}

/**
 * The memory's first part, which depends on the particle count `n` and `residentCapacity` alone: the solver's
 * arrays that may live in the memory first, for max(n, residentCapacity) particles (fixed offsets where they
 * do); the module's own per-particle arrays after them, for the count (each group keeps PARTICLE_ARRAYS' order,
 * so the arrays the spill adds expect to follow each other still do); then a collider's block for the
 * collisions (collide/wasm.ts; COLLIDER_BLOCK float64 values) and the partitions' particle starts for them.
 */
function placeParticleArrays(place: (name: string, size: number) => void, n: number, residentCapacity: number): void {
  const particles = Math.max(n, residentCapacity);
  for (const [name, size] of PARTICLE_ARRAYS) if (name in RESIDENT_SOLVER_ARRAYS) place(name, particles * size);
  for (const [name, size] of PARTICLE_ARRAYS) if (!(name in RESIDENT_SOLVER_ARRAYS)) place(name, n * size);
  place('collider', COLLIDER_BLOCK * 8);
  place('colliderBounds', (PARTITION_COUNT + 1) * 4);
}

/**
 * The offsets of the memory's first part (`placeParticleArrays`) for `n` particles, the memory grown where
 * needed, without changing `kernels.offsets`: a pass between two others that keep data in the memory (the
 * collisions, between the corrections and the next lambda) lays nothing else out. Made again only when the
 * count changed (`CpuKernels.particleLayout`). Undefined where the memory cannot grow.
 */
export function particleOffsets(
  kernels: Pick<CpuKernels, 'residentCapacity' | 'particleLayout'>,
  memory: WebAssembly.Memory,
  n: number,
): ParticleLayout | undefined {
  const layout = kernels.particleLayout;
  if (layout.n === n) return layout;
  layout.n = -1;
  let bytes = 0;
  placeParticleArrays(
    (name, size) => {
      layout.offsets.set(name, bytes);
      bytes += Math.ceil(size / 8) * 8;
    },
    n,
    kernels.residentCapacity,
  );
  if (!holds(memory, bytes)) return undefined;
  layout.n = n;
  return layout;
}

/**
 * The byte offsets of the arrays `names` in the memory's present layout, in their order (a kernel's arguments).
 * A plain loop, not `names.map(kernels.at)`: V8 inlines `map` into the passes that build arguments and, with no
 * type feedback for its callback's call, threw their optimized code away again and again (about 15 times in a
 * 10k dam break's first 80 frames, each time running the pass's own particle loops unoptimized for a while).
 */
export function offsetsOf(kernels: Pick<CpuKernels, 'at'>, names: readonly string[]): number[] {
  const offsets: number[] = [];
  for (let k = 0; k < names.length; k++) offsets.push(kernels.at(names[k]));
  return offsets;
}

/**
 * 1 when the first `n` particles all have the same mass and material (the density kernels then take j's mass
 * and inverse rest density from i, the same values without loading them), else 0.
 */
export function uniformParticles(mass: Float64Array, material: Uint16Array, n: number): number {
  const mass0 = mass[0];
  const material0 = material[0];
  for (let i = 1; i < n; i++) if (mass[i] !== mass0 || material[i] !== material0) return 0;
  return 1;
}

/** `length` float64 values of the memory from byte `offset`. */
export function float64In(memory: WebAssembly.Memory, offset: number, length: number): Float64Array {
  return new Float64Array(memory.buffer, offset, length);
}

/**
 * Copies the neighbour lists of the first `n` particles (starts and half lists) into the memory, unless the
 * neighbour pass left them there.
 */
export function copyNeighbourLists(
  kernels: Pick<CpuKernels, 'listsInMemory' | 'at'>,
  memory: WebAssembly.Memory,
  starts: Int32Array,
  lists: Int32Array,
  n: number,
): void {
  if (kernels.listsInMemory) return;
  const at = kernels.at;
  const pairs = starts[n];
  new Int32Array(memory.buffer, at('neighbourStart'), n + 1).set(starts.subarray(0, n + 1));
  new Int32Array(memory.buffer, at('neighbours'), pairs).set(lists.subarray(0, pairs));
}

/**
 * The solver's per-particle arrays that can live in the shared module's memory (RESIDENT_SOLVER_ARRAYS: the
 * pair loops', the neighbour search's and the projection's particle inputs and outputs, and the collisions': the
 * corrections' clamp scales and the contacts), with their element types.
 */
export const RESIDENT_SOLVER_ARRAYS = {
  predictedX: Float64Array,
  predictedY: Float64Array,
  predictedZ: Float64Array,
  mass: Float64Array,
  wallWeight: Float64Array,
  wallGradientX: Float64Array,
  wallGradientY: Float64Array,
  wallGradientZ: Float64Array,
  density: Float64Array,
  gradientX: Float64Array,
  gradientY: Float64Array,
  gradientZ: Float64Array,
  gradientSquares: Float64Array,
  constraint: Float64Array,
  lambda: Float64Array,
  projectionSolved: Float64Array,
  deltaX: Float64Array,
  deltaY: Float64Array,
  deltaZ: Float64Array,
  vorticityX: Float64Array,
  vorticityY: Float64Array,
  vorticityZ: Float64Array,
  velocityX: Float64Array,
  velocityY: Float64Array,
  velocityZ: Float64Array,
  volume: Float64Array,
  material: Uint16Array,
  cellHash: Uint32Array,
  neighbourCount: Int32Array,
  correctionScale: Float64Array,
  contactCollider: Int32Array,
  contactNormalX: Float64Array,
  contactNormalY: Float64Array,
  contactNormalZ: Float64Array,
  contactApproachSpeed: Float64Array,
} as const;

/** The solver arrays of {@link RESIDENT_SOLVER_ARRAYS}, as views of the memory. */
export type ResidentSolverArrays = {
  [K in keyof typeof RESIDENT_SOLVER_ARRAYS]: InstanceType<(typeof RESIDENT_SOLVER_ARRAYS)[K]>;
};

/**
 * With the shared module (its memory made): lays the memory's per-particle arrays out for `capacity`
 * particles for good (`CpuKernels.residentCapacity`) and returns the solver's arrays of
 * {@link RESIDENT_SOLVER_ARRAYS} as views of them, which the solver then uses (context.ts): the passes copy
 * nothing of them in or out. Undefined where there is no shared memory or it cannot grow that far (the solver
 * allocates its own arrays and the passes copy, as before).
 */
export function residentSolverArrays(kernels: CpuKernels, capacity: number): ResidentSolverArrays | undefined {
  const memory = kernels.sharedMemory;
  if (!memory) return undefined;
  kernels.residentCapacity = capacity;
  if (!layOutMemory(kernels, memory, { n: capacity, pairs: 0, materials: 0 })) {
    kernels.residentCapacity = 0;
    return undefined;
  }
  const arrays: Partial<Record<string, ArrayBufferView>> = {};
  for (const [name, Type] of Object.entries(RESIDENT_SOLVER_ARRAYS)) {
    const view = new Type(memory.buffer, kernels.at(name), capacity);
    arrays[name] = view;
    kernels.resident.add(view);
  }
  return arrays as ResidentSolverArrays;
}

/** A typed array the memory copies hold. */
type MemoryArray = Float64Array | Int32Array | Uint32Array | Uint16Array | Uint8Array;

/** `length` values of the type of `like` in the memory from byte `offset`. */
function viewLike(like: MemoryArray, memory: WebAssembly.Memory, offset: number, length: number): MemoryArray {
  const Type = like.constructor as new (buffer: ArrayBufferLike, offset: number, length: number) => MemoryArray;
  return new Type(memory.buffer, offset, length);
}

/**
 * Copies the first `length` values of `array` into the memory's array `name`, unless `array` lives there
 * (`CpuKernels.resident`): then the kernels read it in place.
 */
export function copyIntoMemory(
  kernels: Pick<CpuKernels, 'resident' | 'at'>,
  memory: WebAssembly.Memory,
  name: string,
  array: MemoryArray,
  length: number,
): void {
  const offset = kernels.at(name);
  if (kernels.resident.has(array) && array.byteOffset === offset) return;
  viewLike(array, memory, offset, length).set(array.subarray(0, length));
}

/**
 * Copies the first `length` values of the memory's array `name` into `array`, unless `array` lives there
 * (`CpuKernels.resident`): then the kernels wrote it in place.
 */
export function copyFromMemory(
  kernels: Pick<CpuKernels, 'resident' | 'at'>,
  memory: WebAssembly.Memory,
  name: string,
  array: MemoryArray,
  length: number,
): void {
  const offset = kernels.at(name);
  if (kernels.resident.has(array) && array.byteOffset === offset) return;
  array.set(viewLike(array, memory, offset, length));
}
