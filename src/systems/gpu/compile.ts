/**
 * Compiling the WebGPU solver's passes (gpu/backend.ts): every pass definition of the solver's schedule
 * (gpu/passes.ts; each folder's `gpu.ts`) as a Babylon compute shader bound to the solver's storage buffers,
 * the scan levels of the neighbour search with their sums buffers (created here, once, at setup), the
 * dispatch of one pass, and the readiness and compilation-error queries over the compiled passes.
 */
import '@babylonjs/core/Engines/WebGPU/Extensions/engine.computeShader.js';
import { StorageBuffer } from '@babylonjs/core/Buffers/storageBuffer.js';
import { ComputeShader } from '@babylonjs/core/Compute/computeShader.js';
import { Constants } from '@babylonjs/core/Engines/constants.js';
import type { WebGPUEngine } from '@babylonjs/core/Engines/webgpuEngine.js';
import type { FluidSolver } from '../../components/settings';
import { FluidError } from '../../core/errors';
import { scanPass } from '../neighbours/gpu';
import { gpuPassDefinitions } from '../schedule';
import type { StructLayout } from './layout';
import type { PassBinding, PassSize } from './passes';
import { expandNeighbourLoops, type NeighbourMode } from './shaderSource';
import { type BufferName, passSource, SCAN_BLOCK } from './structs';

/** Storage buffer creation flags: STORAGE (32) + READ (copy source, 1) + WRITE (copy destination, 2). */
export const STORAGE_FLAGS = 32 | 1 | 2;

/** `STORAGE_FLAGS` plus INDIRECT (64): a buffer that also holds indirect dispatch arguments. */
export const INDIRECT_STORAGE_FLAGS = STORAGE_FLAGS | 64;

/** Where a pass dispatched indirectly reads its workgroup counts: three u32 in `buffer` from byte `offset`. */
export interface IndirectDispatch {
  /** The buffer the GPU wrote the counts into (created with {@link INDIRECT_STORAGE_FLAGS}). */
  readonly buffer: StorageBuffer;
  /** Byte offset of the x count (y and z follow). */
  readonly offset: number;
}

/**
 * The output buffer of a pass outside the step that the views draw from (the particle colors, the anisotropic
 * particles): `bytes` (at least 4) with vertex, storage and copy-source usage.
 */
export function vertexStorageBuffer(engine: WebGPUEngine, bytes: number, label: string): StorageBuffer {
  return new StorageBuffer(
    engine,
    Math.max(4, bytes),
    Constants.BUFFER_CREATIONFLAG_VERTEX | Constants.BUFFER_CREATIONFLAG_READWRITE | Constants.BUFFER_CREATIONFLAG_READ,
    label,
  );
}

/** The small parameter buffer of a pass outside the step, written before each dispatch. */
export function parameterStorageBuffer(engine: WebGPUEngine, bytes: number, label: string): StorageBuffer {
  return new StorageBuffer(
    engine,
    bytes,
    Constants.BUFFER_CREATIONFLAG_READ | Constants.BUFFER_CREATIONFLAG_WRITE | Constants.BUFFER_CREATIONFLAG_STORAGE,
    label,
  );
}

/** One compiled compute pass: a shader and how many threads it runs. */
export interface Pass {
  /** Its name in shader labels and timings (see `PassDefinition.name`). */
  readonly name: string;
  /** The compiled shader, its storage buffers bound. */
  readonly shader: ComputeShader;
  /** The buffer names it binds (to rebind a buffer that was replaced). */
  readonly bindings: readonly BufferName[];
  /** Workgroups to dispatch, evaluated at dispatch time (unless `indirect`). */
  readonly groups: () => number;
  /**
   * Set for a pass whose workgroups the GPU counts: the projection's passes over its cells, on an adapter that
   * runs shaders on the CPU (`runsOnCpu`, gpu/buffers.ts).
   */
  readonly indirect?: IndirectDispatch;
}

/** What compiling the passes needs of the solver. */
export interface PassTarget {
  /** The engine the shaders run on. */
  readonly engine: WebGPUEngine;
  /** The scene buffer's layout (part of every pass's generated preamble). */
  readonly scene: StructLayout;
  /** The solver's storage buffers by name; the scan levels' sums buffers are added to it. */
  readonly buffers: Record<string, StorageBuffer>;
  /** Entries of the bucket array the scan runs over (the hash table size + 1, rounded up to `SCAN_BLOCK`). */
  readonly bucketLength: number;
  /** How the gathering passes find their neighbours (see `neighbourMode` in gpu/buffers.ts). */
  readonly neighbourMode: NeighbourMode;
  /** Invocations of the passes that run in one workgroup on this adapter (see `oneWorkgroupSize`, gpu/buffers.ts). */
  readonly oneWorkgroupSize: number;
  /** The workgroups of a pass of size `size`, evaluated when it is dispatched. */
  groupsOf(size: PassSize): () => number;
  /** Where a pass of size `size` reads its workgroups on the GPU, if it is dispatched indirectly. */
  indirectOf(size: PassSize): IndirectDispatch | undefined;
}

/** The compiled passes of a solver. */
export interface CompiledPasses {
  /** Every pass by the key the schedule names it by (the scan levels as `scan<k>` and `scanAdd<k>`). */
  readonly passes: Record<string, Pass>;
  /** The scan passes in order: every level's scan, then the sums added back from the top level down. */
  readonly scanPasses: readonly string[];
}

/**
 * Compiles one pass and binds its buffers (`buffers` first, for aliases; else the solver's), its neighbour
 * loops expanded in the `neighbourLoop` form (default: the solver's).
 */
function addPass(
  target: PassTarget,
  name: string,
  body: string,
  entry: string,
  bindings: readonly PassBinding[],
  groups: () => number,
  buffers?: Record<string, StorageBuffer>,
  neighbourLoop: NeighbourMode = target.neighbourMode,
  indirect?: IndirectDispatch,
): Pass {
  const { source, mapping } = passSource(
    target.scene,
    bindings,
    expandNeighbourLoops(body, neighbourLoop),
    target.oneWorkgroupSize,
  );
  const shader = new ComputeShader(
    `fluid-${name}`,
    target.engine,
    { computeSource: source },
    { bindingsMapping: mapping, entryPoint: entry },
  );
  for (const [bufferName] of bindings) {
    shader.setStorageBuffer(bufferName, buffers?.[bufferName] ?? target.buffers[bufferName]);
  }
  return { name, shader, groups, bindings: bindings.map(([bufferName]) => bufferName), indirect };
}

/**
 * Compiles every pass of `solver`'s schedule (gpu/passes.ts; the definitions live in each folder's `gpu.ts`;
 * white water's only with `whiteWater`),
 * and the scan levels of the neighbour search: buckets -> sums1 -> sums2 ... until one block covers the data
 * (their number depends on the capacity).
 */
export function compilePasses(target: PassTarget, solver: FluidSolver, whiteWater: boolean): CompiledPasses {
  const passes: Record<string, Pass> = {};
  for (const definition of gpuPassDefinitions(solver, whiteWater)) {
    let aliases: Record<string, StorageBuffer> | undefined;
    for (const [name, buffer] of Object.entries(definition.aliases ?? {})) {
      aliases = { ...aliases, [name]: target.buffers[buffer as BufferName] };
    }
    passes[definition.key] = addPass(
      target,
      definition.name,
      definition.source,
      definition.entry,
      definition.bindings,
      target.groupsOf(definition.size),
      aliases,
      definition.neighbourLoop,
      target.indirectOf(definition.size),
    );
  }
  let data = target.buffers.buckets;
  let length = target.bucketLength;
  let level = 0;
  const levels: { data: StorageBuffer; sums: StorageBuffer; blocks: number }[] = [];
  for (;;) {
    const blocks = Math.ceil(length / SCAN_BLOCK);
    const sums = new StorageBuffer(target.engine, Math.max(16, blocks * 4), STORAGE_FLAGS, `fluid-scan-${level}`);
    target.buffers[`scanSums${level}`] = sums;
    levels.push({ data, sums, blocks });
    if (blocks === 1) break;
    data = sums;
    length = blocks;
    level++;
  }
  const scans: string[] = [];
  const adds: string[] = [];
  for (let k = 0; k < levels.length; k++) {
    const { data: d, sums, blocks } = levels[k];
    const buffers = { scanData: d, scanSums: sums };
    const level = (key: string, entry: 'scanBlocks' | 'addSums') => {
      const definition = scanPass(key, entry);
      passes[key] = addPass(target, key, definition.source, entry, definition.bindings, () => blocks, buffers);
    };
    level(`scan${k}`, 'scanBlocks');
    scans.push(`scan${k}`);
    if (k + 1 < levels.length) {
      level(`scanAdd${k}`, 'addSums');
      adds.unshift(`scanAdd${k}`);
    }
  }
  return { passes, scanPasses: [...scans, ...adds] };
}

/** Dispatches `pass` (nothing when it has no workgroups to run now). */
export function dispatchPass(pass: Pass): void {
  if (pass.indirect) {
    pass.shader.dispatchIndirect(pass.indirect.buffer, pass.indirect.offset);
    return;
  }
  const groups = pass.groups();
  if (groups > 0) pass.shader.dispatch(groups);
}

/**
 * Binds `buffer` as `name` in every pass that binds `name` (after the buffer was replaced by a larger one);
 * the pass's bind group is built again at its next dispatch (also in Babylon's `fastMode`, see `passesReady`).
 */
export function rebindBuffer(passes: Record<string, Pass>, name: BufferName, buffer: StorageBuffer): void {
  for (const key in passes) {
    const pass = passes[key];
    if (pass.bindings.includes(name)) {
      pass.shader.setStorageBuffer(name, buffer);
      pass.shader.triggerContextRebuild = true;
    }
  }
}

/**
 * True once every shader of `passes` has compiled. Then each shader is put in Babylon's `fastMode`: a
 * dispatch no longer asks the shader whether it is ready and whether its bindings changed (a string of its
 * defines built and compared, its bindings walked twice, per dispatch); `rebindBuffer` asks for the one
 * rebuild a replaced buffer needs.
 */
export function passesReady(passes: Record<string, Pass>): boolean {
  // Every shader is asked (no early return): asking starts its compilation, so all compile at once
  // instead of one per frame.
  let ready = true;
  for (const name in passes) if (!passes[name].shader.isReady()) ready = false;
  if (ready) for (const name in passes) passes[name].shader.fastMode = true;
  return ready;
}

/** Compilation errors of `passes` so far (name: message). */
export function passCompilationErrors(passes: Record<string, Pass>): string[] {
  const errors: string[] = [];
  for (const pass of Object.values(passes)) {
    // Babylon keeps the compiled effect private; its compilation error is the only thing read here.
    const effect = (pass.shader as unknown as { _effect?: { getCompilationError(): string } })._effect;
    const error = effect?.getCompilationError();
    if (error) errors.push(`${pass.name}: ${error}`);
  }
  return errors;
}

/**
 * Resolves when every shader of `passes` has compiled; throws {@link FluidError} if one fails to compile
 * or they do not compile within 60 s.
 */
export async function whenPassesReady(passes: Record<string, Pass>): Promise<void> {
  const start = performance.now();
  while (!passesReady(passes)) {
    const errors = passCompilationErrors(passes);
    if (errors.length > 0)
      throw new FluidError(`WebGPU backend: a compute shader failed to compile: ${errors.join('; ')}`);
    if (performance.now() - start > 60_000)
      throw new FluidError('WebGPU backend: the compute shaders did not compile within 60 s');
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}
