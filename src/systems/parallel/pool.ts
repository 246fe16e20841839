/**
 * The worker threads that share the partitions of the PBF pair loops (kernels.ts; docs/ARCHITECTURE.md,
 * "Threads"). The solver's arrays live in `SharedArrayBuffer`s (createSolverState); a job is one kernel
 * over the `PARTITION_COUNT` partitions, which the stepping thread (from the first) and the workers (from the
 * last, so that each thread finds its particles' data in its cache from pass to pass) claim one by one from a
 * shared counter. Nothing is sent per job: the job word, the kernel index and the scalars are written to
 * shared memory; a worker spins a little for the next job before it sleeps, and only sleeping workers are woken
 * with `Atomics.notify` (the stepping thread likewise spins for the last partitions before it sleeps). When an array is reallocated (the
 * neighbour lists grow) the workers get the new views by a message and join again from the next job; until
 * a worker is ready the other threads run its partitions, which changes nothing in the results.
 *
 * With the `webAssembly` setting the pair loops run as the shared module's partition kernels
 * (parallel/kernels.wat, wasm/state.ts): every worker instantiates the module on the simulation's shared
 * memory (again with each new set of views; an instance writes nothing to the memory), and a job names a kernel
 * and its arguments (byte offsets and numbers, in a shared array).
 *
 * Workers: Node's `worker_threads` (its main thread blocks in `Atomics.wait` for the last partitions), or
 * web workers where the page is cross-origin isolated (the page's thread spins, as it may not block). Where
 * neither is at hand (no `SharedArrayBuffer`, a page without the COOP/COEP headers) the pool has no
 * workers and the stepping thread runs every partition: the same results on one thread.
 */

import { FluidError } from '../../core/errors';
import { WASM_PARTITION_KERNELS, type WasmPartitionKernel } from '../wasm/state';
import {
  KERNEL_MATERIAL_ARRAYS,
  KERNEL_SOLVER_ARRAYS,
  type KernelMaterialArrays,
  KernelParameter,
  type KernelSolverArrays,
  PARALLEL_KERNELS,
  PARTITION_COUNT,
} from './kernels';

/** Words of the control array shared with the workers. */
const Control = {
  /** The job's sequence number; the workers wait on it. */
  job: 0,
  /**
   * The claim word: the job's tag (21 bits) times 1024, plus 32 times the partitions claimed from the back
   * (by the workers), plus those claimed from the front (by the stepping thread).
   */
  claim: 1,
  /** Partitions of the job finished. */
  done: 2,
  /** The job's kernel (an index in PARALLEL_KERNELS). */
  kernel: 3,
  /** The generation of the arrays the job reads: a worker with other views leaves it to the others. */
  generation: 4,
  /** Set once by `dispose`: the workers return. */
  stop: 5,
  /** Set by a worker whose kernel threw. */
  failed: 6,
  /** Workers asleep on the job word (the stepping thread wakes them only then). */
  sleepers: 7,
  /** 1 while the stepping thread sleeps on `done` (a worker wakes it only then). */
  waiting: 8,
  length: 10,
} as const;

/**
 * How long a worker spins for the next job before it sleeps, and the stepping thread for the workers' last
 * partitions, in ms: a substep's jobs follow each other within that, and waking a sleeping thread costs a
 * system call on both sides (about 40 microseconds each on the project's machine).
 */
const SPIN_MILLISECONDS = 0.1;

const TAG_MASK = 0x1fffff;

/** Job kernels from this index up are WebAssembly partition kernels (`WASM_PARTITION_KERNELS`). */
const WASM_KERNEL_BASE = 16;

/** The most arguments a WebAssembly partition kernel takes besides the partition. */
const WASM_ARGUMENTS = 32;

/** The threads' module and the shared memory its instances run on. */
export interface PoolWebAssembly {
  readonly module: WebAssembly.Module;
  readonly memory: WebAssembly.Memory;
}

/**
 * The least particle count at which workers are started: below it a pass is too short to share. With two
 * threads the partitions run whether the worker started or not; on the project's 2-core machine a worker made
 * a frame of 512 particles 0.94 times as long as the stepping thread running every partition, of 1,000
 * particles 0.73 times, and of 343 particles 0.96 times (docs/performance.md, "Threads").
 */
export const THREADS_MIN_PARTICLES = 500;

/**
 * @internal For the tests: the particle count from which the workers start (`THREADS_MIN_PARTICLES` unless a
 * test sets another, so that small scenes run the worker path too).
 */
export const threadTestHooks: { minParticles: number } = { minParticles: THREADS_MIN_PARTICLES };

/**
 * The views a worker receives: the kernels' arrays over shared memory, and where the pair loops run in
 * WebAssembly, the threads' module, its memory, its kernels' names and their arguments' array.
 */
interface WorkerArrays {
  readonly generation: number;
  readonly solver: KernelSolverArrays;
  readonly materials: KernelMaterialArrays;
  readonly parameters: Float64Array;
  readonly wasmModule: WebAssembly.Module | undefined;
  readonly wasmMemory: WebAssembly.Memory | undefined;
  readonly wasmKernels: readonly string[];
  readonly wasmArguments: Float64Array;
}

/** The part of a Node or web worker the pool uses. */
interface ThreadHandle {
  postMessage(message: unknown): void;
  terminate(): unknown;
}

/** Node's `worker_threads` as far as the pool needs it. */
interface NodeWorkerThreads {
  Worker: new (
    source: string,
    options: { eval: true; workerData: unknown },
  ) => ThreadHandle & { unref(): void; on(event: 'error', listener: (error: unknown) => void): void };
}

/**
 * Runs partition `partition` of the WebAssembly kernel `run` with the WASM_ARGUMENTS values of `values` (a
 * kernel ignores those past its parameters): written out, since a call with a spread argument list allocated an
 * array a call (about 90 KB a frame at 10k particles on two threads).
 */
function callPartition(run: WasmPartitionKernel, partition: number, values: Float64Array): void {
  run(
    partition,
    values[0],
    values[1],
    values[2],
    values[3],
    values[4],
    values[5],
    values[6],
    values[7],
    values[8],
    values[9],
    values[10],
    values[11],
    values[12],
    values[13],
    values[14],
    values[15],
    values[16],
    values[17],
    values[18],
    values[19],
    values[20],
    values[21],
    values[22],
    values[23],
    values[24],
    values[25],
    values[26],
    values[27],
    values[28],
    values[29],
    values[30],
    values[31],
  );
}

/**
 * The worker's whole program, run in the worker with the kernels' array (`kernels`) and a way to receive
 * messages. Self-contained, and with no named function inside (a minifier that keeps names would wrap one
 * in a helper the worker does not have): its text becomes the worker's source.
 */
function serveWorker(
  kernels: readonly ((s: unknown, m: unknown, p: Float64Array, partition: number) => void)[],
  control: Int32Array,
  listen: (handler: (message: WorkerArrays) => void) => void,
): void {
  const partitionCount = 16; // PARTITION_COUNT
  // The threads' module, instantiated once on the shared memory, and its partition kernels.
  let wasmModule: WebAssembly.Module | undefined;
  let wasmKernels: ((partition: number, ...values: number[]) => void)[] | undefined;
  listen((arrays) => {
    if (arrays.wasmModule !== undefined && arrays.wasmMemory !== undefined && arrays.wasmModule !== wasmModule) {
      wasmModule = arrays.wasmModule;
      try {
        const instance = new WebAssembly.Instance(arrays.wasmModule, { env: { memory: arrays.wasmMemory } });
        const exports = instance.exports as Record<string, (partition: number, ...values: number[]) => void>;
        wasmKernels = arrays.wasmKernels.map((name) => exports[name]);
      } catch {
        wasmKernels = undefined;
      }
    }
    // New views: serve jobs until a job asks for other arrays (then back to the event loop for them) or stop.
    let lastJob = Atomics.load(control, 0);
    for (;;) {
      // Spin a little for the next job (SPIN_MILLISECONDS, 0.1), then sleep, counted in `sleepers` (word 7).
      const spinEnd = performance.now() + 0.1;
      while (Atomics.load(control, 0) === lastJob && performance.now() < spinEnd);
      if (Atomics.load(control, 0) === lastJob) {
        Atomics.add(control, 7, 1);
        Atomics.wait(control, 0, lastJob);
        Atomics.sub(control, 7, 1);
      }
      if (Atomics.load(control, 5) !== 0) return;
      const job = Atomics.load(control, 0);
      lastJob = job;
      if (Atomics.load(control, 4) !== arrays.generation) return;
      const index = Atomics.load(control, 3);
      const kernel = kernels[index];
      // A WebAssembly kernel (index 16 up, WASM_KERNEL_BASE) that this worker could not instantiate: the others run it.
      const wasmKernel = index >= 16 ? wasmKernels?.[index - 16] : undefined;
      if (index >= 16 && wasmKernel === undefined) continue;
      const values = wasmKernel === undefined ? [] : Array.from(arrays.wasmArguments);
      const tag = job & 0x1fffff; // TAG_MASK
      for (;;) {
        // Workers claim from the back: each thread keeps to the same end of the particles from pass to pass.
        const claim = Atomics.load(control, 1);
        if (claim >>> 10 !== tag) break;
        const fromBack = (claim >>> 5) & 31;
        if ((claim & 31) + fromBack >= partitionCount) break;
        const partition = partitionCount - 1 - fromBack;
        if (Atomics.compareExchange(control, 1, claim, claim + 32) !== claim) continue;
        try {
          if (wasmKernel !== undefined) wasmKernel(partition, ...values);
          else kernel(arrays.solver, arrays.materials, arrays.parameters, partition);
        } catch {
          Atomics.store(control, 6, 1);
        }
        Atomics.add(control, 2, 1);
        // Wake the stepping thread only where it sleeps (`waiting`, word 8).
        if (Atomics.load(control, 8) !== 0) Atomics.notify(control, 2);
      }
    }
  });
}

/** The worker's source: the kernels and `serveWorker`, for Node (`eval`) or a web worker (a blob URL). */
function workerSource(node: boolean): string {
  const kernels = `[${PARALLEL_KERNELS.map((kernel) => `(${kernel.toString()})`).join(',\n')}]`;
  const serve = `(${serveWorker.toString()})`;
  return node
    ? `'use strict';
const { parentPort, workerData } = require('node:worker_threads');
${serve}(${kernels}, workerData.control, (handler) => parentPort.on('message', handler));`
    : `'use strict';
self.onmessage = (first) => {
  self.onmessage = null;
  ${serve}(${kernels}, first.data.control, (handler) => { self.onmessage = (event) => handler(event.data); });
};`;
}

/** A Node built-in module through `process.getBuiltinModule` (Node 20.16 and 22.3 and newer); else undefined. */
function nodeBuiltin(name: string): unknown {
  const nodeProcess = (globalThis as { process?: { getBuiltinModule?: (name: string) => unknown } }).process;
  return nodeProcess?.getBuiltinModule?.(name);
}

function nodeWorkerThreads(): NodeWorkerThreads | undefined {
  return nodeBuiltin('node:worker_threads') as NodeWorkerThreads | undefined;
}

/**
 * The most threads the CPU backend uses when the `threads` option is not set: two threads (one worker) made a
 * 10k-particle frame 1.33 to 1.45 times as fast on the project's 2-core machine (docs/performance.md,
 * "Threads"); more are opt-in, not measured here.
 */
export const DEFAULT_THREADS_MAX = 2;

/**
 * The machine's hardware threads: `navigator.hardwareConcurrency` in a browser (and Node 21 and newer), Node's
 * `os.availableParallelism()` (through `process.getBuiltinModule`), else 1.
 */
export function hardwareThreads(): number {
  const fromNavigator = (globalThis as { navigator?: { hardwareConcurrency?: number } }).navigator?.hardwareConcurrency;
  if (typeof fromNavigator === 'number' && fromNavigator >= 1) return Math.floor(fromNavigator);
  const os = nodeBuiltin('node:os') as { availableParallelism?: () => number } | undefined;
  const fromNode = os?.availableParallelism?.();
  return typeof fromNode === 'number' && fromNode >= 1 ? Math.floor(fromNode) : 1;
}

/**
 * The `threads` option's default on the CPU backend: the machine's hardware threads, at most
 * `DEFAULT_THREADS_MAX` (2 on any machine with two or more; 1 on one core), where workers can run: shared
 * memory (`sharedMemoryAvailable`) and a way to start a worker (Node's `worker_threads` through
 * `process.getBuiltinModule`, Node 20.16 and 22.3 and newer, or a browser's `Worker`); else 1, so that a page
 * without cross-origin isolation, or a Node 21 or 22.0 to 22.2 without `process.getBuiltinModule`, runs the
 * one-thread loops rather than the partitions on one thread.
 */
export function defaultThreads(): number {
  const workers =
    nodeWorkerThreads() !== undefined ||
    (typeof Worker !== 'undefined' && typeof Blob !== 'undefined' && typeof URL !== 'undefined');
  if (!workers || !sharedMemoryAvailable()) return 1;
  return Math.max(1, Math.min(DEFAULT_THREADS_MAX, hardwareThreads()));
}

/** True where `SharedArrayBuffer` can be made and handed to workers (Node, or a cross-origin isolated page). */
export function sharedMemoryAvailable(): boolean {
  if (typeof SharedArrayBuffer === 'undefined' || typeof Atomics === 'undefined') return false;
  const isolated = (globalThis as { crossOriginIsolated?: boolean }).crossOriginIsolated;
  return isolated !== false;
}

/**
 * What ends a pool's workers: its control words, its worker handles and the object URLs of a browser's worker
 * source (never the pool itself).
 */
interface PoolCrew {
  readonly control: Int32Array;
  readonly workers: ThreadHandle[];
  readonly sourceUrls: string[];
}

/** Tells a pool's workers to stop, terminates them and frees their source's object URL. */
function endWorkers(crew: PoolCrew): void {
  Atomics.store(crew.control, Control.stop, 1);
  Atomics.add(crew.control, Control.job, 1);
  Atomics.notify(crew.control, Control.job);
  for (const worker of crew.workers) worker.terminate();
  crew.workers.length = 0;
  for (const url of crew.sourceUrls) URL.revokeObjectURL(url);
  crew.sourceUrls.length = 0;
}

/**
 * Ends the workers of a pool collected without `dispose()` (a simulation dropped without it), so that a
 * browser page does not keep its web workers and Node its threads.
 */
const abandonedPools =
  typeof FinalizationRegistry === 'undefined' ? undefined : new FinalizationRegistry<PoolCrew>(endWorkers);

/**
 * The pool of one simulation: `threads - 1` workers besides the stepping thread, started on the first job
 * with at least `THREADS_MIN_PARTICLES` particles. `run` runs one kernel over every partition.
 */
export class ThreadPool {
  /** The threads that run the partitions, the stepping thread included (1: no workers). */
  readonly threads: number;
  private readonly control: Int32Array | undefined;
  private readonly parameters: Float64Array;
  private readonly wasmArguments: Float64Array;
  private postedWasm: PoolWebAssembly | undefined;
  private readonly materialBlock: KernelMaterialArrays | undefined;
  private readonly workers: ThreadHandle[] = [];
  /** The object URL of a browser's worker source, freed with the workers. */
  private readonly sourceUrls: string[] = [];
  private started = false;
  private disposed = false;
  private job = 0;
  private generation = 0;
  private posted: unknown[] = [];
  private workerPartitions = 0;
  private readonly canBlock: boolean;

  /** `threads`: the threads wanted (1 to PARTITION_COUNT); fewer where shared memory is missing. */
  constructor(threads: number, maxMaterials: number) {
    const shared = sharedMemoryAvailable();
    this.threads = shared ? Math.max(1, Math.min(threads, PARTITION_COUNT)) : 1;
    this.parameters =
      this.threads > 1
        ? new Float64Array(new SharedArrayBuffer(KernelParameter.length * 8))
        : new Float64Array(KernelParameter.length);
    this.wasmArguments = new Float64Array(
      this.threads > 1 ? new SharedArrayBuffer(WASM_ARGUMENTS * 8) : new ArrayBuffer(WASM_ARGUMENTS * 8),
    );
    if (this.threads > 1) {
      this.control = new Int32Array(new SharedArrayBuffer(Control.length * 4));
      const block: Partial<Record<(typeof KERNEL_MATERIAL_ARRAYS)[number], Float64Array>> = {};
      for (const name of KERNEL_MATERIAL_ARRAYS) {
        block[name] = new Float64Array(new SharedArrayBuffer(Math.max(1, maxMaterials) * 8));
      }
      this.materialBlock = block as KernelMaterialArrays;
    }
    // A browser's page thread may not block; Node's main thread and workers may.
    this.canBlock = (globalThis as { document?: unknown }).document === undefined;
  }

  /** The scalars the next job reads (`KernelParameter` indices); written before `run`. */
  get kernelParameters(): Float64Array {
    return this.parameters;
  }

  /** Whether the solver arrays must be shared (more than one thread wanted and possible). */
  get sharesMemory(): boolean {
    return this.threads > 1;
  }

  /**
   * Whether the systems run their pair loops as the partition kernels (more than one thread, workers started
   * or not: the partitions' sums, the same for every such count); false: the one-thread loops.
   */
  get partitioned(): boolean {
    return this.threads > 1;
  }

  /** The workers started so far (0 before the first large enough job, or with one thread). */
  get workerCount(): number {
    return this.workers.length;
  }

  /** The threads that run the jobs now: the stepping thread and the workers started. */
  get activeThreads(): number {
    return 1 + this.workers.length;
  }

  /** The partitions the workers ran since the last call (the step's share, for the stats). */
  takeWorkerPartitions(): number {
    const count = this.workerPartitions;
    this.workerPartitions = 0;
    return count;
  }

  /**
   * Runs `kernel` (an index in PARALLEL_KERNELS) over every partition, with the workers when there are
   * some and every array is shared; `particleCount` decides whether workers are worth starting.
   */
  run(kernel: number, solver: KernelSolverArrays, materials: KernelMaterialArrays, particleCount: number): void {
    const run = PARALLEL_KERNELS[kernel];
    const parameters = this.parameters;
    if (!this.useWorkers(particleCount)) {
      for (let partition = 0; partition < PARTITION_COUNT; partition++) run(solver, materials, parameters, partition);
      return;
    }
    const block = this.materialBlock as KernelMaterialArrays;
    for (const name of KERNEL_MATERIAL_ARRAYS) {
      const from = materials[name];
      block[name].set(from.length > block[name].length ? from.subarray(0, block[name].length) : from);
    }
    this.runJob(kernel, solver, undefined, (partition) => run(solver, block, parameters, partition));
  }

  /**
   * Runs the WebAssembly partition kernel `kernel` (an index in `WASM_PARTITION_KERNELS`, `run` on this
   * thread) with the arguments `values` over every partition, with the workers as `run` does; they
   * instantiate `wasm`'s module on its memory.
   */
  runWebAssembly(
    kernel: number,
    run: WasmPartitionKernel,
    values: readonly number[],
    wasm: PoolWebAssembly,
    solver: KernelSolverArrays,
    particleCount: number,
  ): void {
    if (values.length > WASM_ARGUMENTS)
      throw new FluidError(`a partition kernel takes at most ${WASM_ARGUMENTS} arguments`);
    const values64 = this.wasmArguments;
    values64.fill(0);
    values64.set(values);
    if (!this.useWorkers(particleCount)) {
      for (let partition = 0; partition < PARTITION_COUNT; partition++) callPartition(run, partition, values64);
      return;
    }
    this.runJob(WASM_KERNEL_BASE + kernel, solver, wasm, (partition) => callPartition(run, partition, values64));
  }

  /**
   * The threads that share a job now: `threads` once the workers run, else 1 (below the particle count that
   * starts them, or after `dispose()`: the stepping thread runs every partition).
   */
  get sharingThreads(): number {
    return this.started && !this.disposed ? this.threads : 1;
  }

  /** Whether a job goes to the workers (starting them at the first large enough one). */
  private useWorkers(particleCount: number): boolean {
    if (this.control === undefined || this.disposed) return false;
    if (!this.started && particleCount < threadTestHooks.minParticles) return false;
    if (!this.started) this.start();
    return true;
  }

  /** Runs the job `kernel` (its word in the control array): the workers and this thread claim the partitions. */
  private runJob(
    kernel: number,
    solver: KernelSolverArrays,
    wasm: PoolWebAssembly | undefined,
    runPartition: (partition: number) => void,
  ): void {
    const control = this.control as Int32Array;
    if (!this.share(solver, wasm)) {
      for (let partition = 0; partition < PARTITION_COUNT; partition++) runPartition(partition);
      return;
    }
    this.job = (this.job + 1) & TAG_MASK;
    const tag = this.job;
    Atomics.store(control, Control.kernel, kernel);
    Atomics.store(control, Control.done, 0);
    Atomics.store(control, Control.claim, tag << 10);
    Atomics.store(control, Control.job, tag);
    // Sleeping workers need a wake-up; spinning ones see the job word (a worker counts itself in `sleepers`
    // before it sleeps, and its wait returns at once where the word has changed: no job is missed).
    if (Atomics.load(control, Control.sleepers) > 0) Atomics.notify(control, Control.job);
    let own = 0;
    // This thread claims from the front, the workers from the back (each keeps its particles' data in its cache).
    for (;;) {
      const claim = Atomics.load(control, Control.claim);
      const partition = claim & 31;
      if (partition + ((claim >>> 5) & 31) >= PARTITION_COUNT) break;
      if (Atomics.compareExchange(control, Control.claim, claim, claim + 1) !== claim) continue;
      runPartition(partition);
      Atomics.add(control, Control.done, 1);
      own++;
    }
    this.workerPartitions += PARTITION_COUNT - own;
    // Spin for the workers' last partitions, then (where this thread may block) sleep until a worker wakes it.
    const spinEnd = performance.now() + SPIN_MILLISECONDS;
    while (Atomics.load(control, Control.done) < PARTITION_COUNT && (!this.canBlock || performance.now() < spinEnd));
    if (Atomics.load(control, Control.done) < PARTITION_COUNT) {
      Atomics.store(control, Control.waiting, 1);
      for (;;) {
        const done = Atomics.load(control, Control.done);
        if (done >= PARTITION_COUNT) break;
        Atomics.wait(control, Control.done, done, 5);
      }
      Atomics.store(control, Control.waiting, 0);
    }
    if (Atomics.load(control, Control.failed) !== 0) {
      this.dispose();
      throw new FluidError('a solver worker thread failed while running a pair loop; the simulation cannot go on');
    }
  }

  /** Ends the workers (a later `run` uses the stepping thread alone). */
  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    abandonedPools?.unregister(this);
    if (this.control) endWorkers({ control: this.control, workers: this.workers, sourceUrls: this.sourceUrls });
    this.workerPartitions = 0;
  }

  /** Starts the workers (once); where no worker can be made, the pool goes on with the stepping thread. */
  private start(): void {
    this.started = true;
    const control = this.control as Int32Array;
    const count = this.threads - 1;
    const node = nodeWorkerThreads();
    try {
      if (node) {
        const source = workerSource(true);
        for (let w = 0; w < count; w++) {
          const worker = new node.Worker(source, { eval: true, workerData: { control } });
          worker.unref();
          // A worker that cannot start leaves its partitions to the others; the pool reports kernel failures.
          worker.on('error', () => undefined);
          this.workers.push(worker);
        }
      } else if (typeof Worker !== 'undefined' && typeof Blob !== 'undefined' && typeof URL !== 'undefined') {
        const url = URL.createObjectURL(new Blob([workerSource(false)], { type: 'text/javascript' }));
        this.sourceUrls.push(url);
        for (let w = 0; w < count; w++) {
          const worker = new Worker(url);
          worker.postMessage({ control });
          this.workers.push(worker);
        }
      }
    } catch {
      // No workers here (a sandbox without them): the stepping thread runs every partition.
    }
    if (this.workers.length > 0) {
      abandonedPools?.register(this, { control, workers: this.workers, sourceUrls: this.sourceUrls }, this);
    }
  }

  /**
   * Sends the workers new views when an array (or the threads' module, `wasm`) changed since the last job;
   * false when some array is not shared (then the stepping thread runs the job alone).
   */
  private share(solver: KernelSolverArrays, wasm: PoolWebAssembly | undefined): boolean {
    const control = this.control as Int32Array;
    let changed = this.posted.length === 0;
    if (wasm !== undefined && wasm.module !== this.postedWasm?.module) {
      this.postedWasm = wasm;
      changed = true;
    }
    for (let a = 0; a < KERNEL_SOLVER_ARRAYS.length; a++) {
      const array = solver[KERNEL_SOLVER_ARRAYS[a]];
      if (!(array.buffer instanceof SharedArrayBuffer)) return false;
      if (this.posted[a] !== array) changed = true;
    }
    if (!changed) return true;
    this.posted = KERNEL_SOLVER_ARRAYS.map((name) => solver[name]);
    this.generation = (this.generation + 1) & TAG_MASK;
    const views: Partial<Record<string, unknown>> = {};
    for (const name of KERNEL_SOLVER_ARRAYS) views[name] = solver[name];
    const message: WorkerArrays = {
      generation: this.generation,
      solver: views as KernelSolverArrays,
      materials: this.materialBlock as KernelMaterialArrays,
      parameters: this.parameters,
      wasmModule: this.postedWasm?.module,
      wasmMemory: this.postedWasm?.memory,
      wasmKernels: WASM_PARTITION_KERNELS,
      wasmArguments: this.wasmArguments,
    };
    for (const worker of this.workers) worker.postMessage(message);
    Atomics.store(control, Control.generation, this.generation);
    return true;
  }
}
