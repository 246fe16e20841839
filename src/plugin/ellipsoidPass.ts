/**
 * The anisotropic particles on the WebGPU backend: the pass of systems/ellipsoids/ellipsoids.wgsl (mirroring
 * systems/ellipsoids/cpu.ts), run by the plugin as the particle colors' pass is (particleColors.ts),
 * over one solver's buffers after a step (its sorted final positions and neighbour lists), writing
 * `ELLIPSOID_BYTES` per particle in draw order into a storage buffer made with vertex usage, which the
 * screen-space water binds as instanced vertex buffers (plugin/ellipsoidParticles.ts): no readback, no upload.
 * Every GPU object is made once per solver; a frame writes the pass's 28-byte parameters and records one
 * dispatch, only when a step ran since the last one (or the options, radius, step or count changed).
 */
import '@babylonjs/core/Engines/WebGPU/Extensions/engine.computeShader.js';
import type { StorageBuffer } from '@babylonjs/core/Buffers/storageBuffer.js';
import { ComputeShader } from '@babylonjs/core/Compute/computeShader.js';
import type { WebGPUEngine } from '@babylonjs/core/Engines/webgpuEngine.js';
import ellipsoidSource from '../systems/ellipsoids/ellipsoids.wgsl?raw';
import { ELLIPSOID_BYTES, JACOBI_SWEEPS, type ResolvedAnisotropy } from '../systems/ellipsoids/settings';
import type { WebGpuSolver } from '../systems/gpu/backend';
import { BUFFER_ALIASES } from '../systems/gpu/buffers';
import commonSource from '../systems/gpu/common.wgsl?raw';
import { parameterStorageBuffer, vertexStorageBuffer } from '../systems/gpu/compile';
import { word } from '../systems/gpu/layout';
import { R, W } from '../systems/gpu/passes';
import { expandNeighbourLoops } from '../systems/gpu/shaderSource';
import { type BufferName, EllipsoidParams, passSource, WORKGROUP_SIZE } from '../systems/gpu/structs';

/** The solver buffers the pass reads. */
const SOLVER_BINDINGS: readonly BufferName[] = [
  'scene',
  'state',
  'sortedPredicted',
  'position',
  'velocity',
  'neighbourTable',
];

/**
 * The ellipsoid pass of one WebGPU solver and its output buffer, for `capacity` particles. Made by the plugin's
 * feed when the screen-space water draws anisotropic particles; disposed when the solver changes.
 */
export class GpuEllipsoids {
  /** `ELLIPSOID_BYTES` per particle in draw order (see `ELLIPSOID_FLOATS`); vertex, storage, copy source. */
  readonly buffer: StorageBuffer;
  /** The solver whose buffers the pass reads. */
  readonly solver: WebGpuSolver;
  private readonly engine: WebGPUEngine;
  private readonly shader: ComputeShader;
  private readonly parameterBuffer: StorageBuffer;
  private readonly parameterWords = new ArrayBuffer(EllipsoidParams.size);
  private readonly parameterIntegers = new Uint32Array(this.parameterWords);
  private readonly parameterFloats = new Float32Array(this.parameterWords);
  /** What the last dispatch computed: steps recorded, count, radius, the five options, dt (NaN: none yet). */
  private readonly last = new Float64Array(9).fill(Number.NaN);
  private lastFrame = -1;
  private disposed = false;

  /** Makes the pass for `solver`'s buffers, with room for `capacity` particles. */
  constructor(engine: WebGPUEngine, solver: WebGpuSolver, capacity: number) {
    this.engine = engine;
    this.solver = solver;
    this.buffer = vertexStorageBuffer(engine, Math.max(1, capacity) * ELLIPSOID_BYTES, 'fluid-ellipsoids');
    this.parameterBuffer = parameterStorageBuffer(engine, EllipsoidParams.size, 'fluid-ellipsoidParams');
    const body = `const JACOBI_SWEEPS: u32 = ${JACOBI_SWEEPS}u;\n${commonSource}${ellipsoidSource}`;
    const { source, mapping } = passSource(
      solver.sceneLayout,
      [...SOLVER_BINDINGS.map((name) => [name, R] as const), ['ellipsoidParams', R], ['ellipsoids', W]],
      expandNeighbourLoops(body, solver.neighbourMode),
    );
    this.shader = new ComputeShader(
      'fluid-ellipsoids',
      engine,
      { computeSource: source },
      { bindingsMapping: mapping, entryPoint: 'main' },
    );
    for (const name of SOLVER_BINDINGS) {
      this.shader.setStorageBuffer(name, solver.storageBuffer((BUFFER_ALIASES[name] ?? name) as BufferName));
    }
    this.shader.setStorageBuffer('ellipsoidParams', this.parameterBuffer);
    this.shader.setStorageBuffer('ellipsoids', this.buffer);
  }

  /**
   * Records the pass for the first `count` particles (drawn radius `radius`, m; the step `timeStep`, s), unless the buffer already
   * holds exactly that for the solver's state after `stepsRecorded` steps, or a pass was recorded in this
   * frame already. Call after the frame's steps and before rendering. Nothing is recorded until the shader has
   * compiled.
   *
   * @returns True when a pass was recorded.
   */
  update(options: ResolvedAnisotropy, radius: number, timeStep: number, count: number, stepsRecorded: number): boolean {
    if (this.disposed || count <= 0) return false;
    const last = this.last;
    if (
      last[0] === stepsRecorded &&
      last[1] === count &&
      last[2] === radius &&
      last[3] === options.smoothing &&
      last[4] === options.maxStretch &&
      last[5] === options.minNeighbours &&
      last[6] === options.isolatedScale &&
      last[7] === options.motionStretch &&
      last[8] === timeStep
    ) {
      return false;
    }
    const frame = this.engine.frameId;
    if (frame === this.lastFrame || !this.shader.isReady()) return false;
    const integers = this.parameterIntegers;
    const floats = this.parameterFloats;
    integers[word(EllipsoidParams, 'count')] = count;
    floats[word(EllipsoidParams, 'radius')] = radius;
    floats[word(EllipsoidParams, 'smoothing')] = options.smoothing;
    floats[word(EllipsoidParams, 'inverseStretch')] = 1 / options.maxStretch;
    integers[word(EllipsoidParams, 'minNeighbours')] = options.minNeighbours;
    floats[word(EllipsoidParams, 'isolatedScale')] = options.isolatedScale;
    floats[word(EllipsoidParams, 'stretchTime')] = (options.motionStretch * timeStep) / 2;
    this.parameterBuffer.update(integers);
    if (!this.shader.dispatch(Math.ceil(count / WORKGROUP_SIZE))) return false;
    this.lastFrame = frame;
    last[0] = stepsRecorded;
    last[1] = count;
    last[2] = radius;
    last[3] = options.smoothing;
    last[4] = options.maxStretch;
    last[5] = options.minNeighbours;
    last[6] = options.isolatedScale;
    last[7] = options.motionStretch;
    last[8] = timeStep;
    return true;
  }

  /** True once the pass's shader has compiled. */
  isReady(): boolean {
    return this.shader.isReady();
  }

  /** Frees the output and parameter buffers (views holding vertex buffers over the output keep it alive). */
  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    this.buffer.dispose();
    this.parameterBuffer.dispose();
  }
}
