/**
 * The views' per-particle colors on the WebGPU backend: a compute pass (particleColors.wgsl) that writes
 * one vec4 color per particle, in draw order, into a storage buffer created with vertex usage, from the
 * buffers the solver leaves after a step (the material table's render colors, the entity-indexed
 * `attributes` for `Color`, velocities and densities). The views bind that buffer as an instanced color
 * vertex buffer, as they bind the position buffer: no readback, no upload of colors. Every GPU object is
 * made once per solver; a frame only writes the pass's 16-byte parameters and records one dispatch, and
 * only when the colors may have changed (a step, another `colorBy`, other ranges or count), once per
 * frame at most.
 */
import '@babylonjs/core/Engines/WebGPU/Extensions/engine.computeShader.js';
import type { StorageBuffer } from '@babylonjs/core/Buffers/storageBuffer.js';
import { ComputeShader } from '@babylonjs/core/Compute/computeShader.js';
import type { WebGPUEngine } from '@babylonjs/core/Engines/webgpuEngine.js';
import type { WebGpuSolver } from '../systems/gpu/backend';
import { parameterStorageBuffer, vertexStorageBuffer } from '../systems/gpu/compile';
import { defineStruct, word } from '../systems/gpu/layout';
import { BUFFER_TYPES, type BufferName, structDeclarations, WORKGROUP_SIZE } from '../systems/gpu/structs';
import { type ColorMapRanges, colorMapsWgsl, type FluidColorBy } from './colorMaps';
import colorSource from './particleColors.wgsl?raw';

/** The color pass's parameters: what to color by (see {@link COLOR_BY_CODES}), particles, map ranges. */
export const ColorParams = defineStruct('ColorParams', [
  ['mode', 'u32'],
  ['count', 'u32'],
  ['inverseSpeedRange', 'f32'],
  ['inverseDensityRange', 'f32'],
]);

/** The code of each `colorBy` in {@link ColorParams} (WGSL constants `COLOR_BY_MATERIAL` and so on). */
export const COLOR_BY_CODES: Readonly<Record<FluidColorBy, number>> = { material: 0, color: 1, speed: 2, density: 3 };

/** The solver buffers the pass reads, with the WGSL types of `BUFFER_TYPES`. */
const SOLVER_BINDINGS: readonly BufferName[] = ['scene', 'info', 'velocity', 'solve', 'attributes'];

/** Bytes per particle of the color buffer: r, g, b, a as float32. */
export const COLOR_BYTES = 16;

/**
 * The color pass of one WebGPU solver and its color buffer. Made by the feed (particleFeed.ts,
 * `feedGpuColors`) when a view needs per-particle colors; disposed when the solver changes.
 */
export class GpuParticleColors {
  /** The colors, r, g, b, a (a = 1) per particle in draw order; vertex, storage and copy-source usage. */
  readonly colorBuffer: StorageBuffer;
  /** The solver whose buffers the pass reads. */
  readonly solver: WebGpuSolver;
  private readonly engine: WebGPUEngine;
  private readonly shader: ComputeShader;
  private readonly parameterBuffer: StorageBuffer;
  private readonly parameterWords = new ArrayBuffer(ColorParams.size);
  private readonly parameterIntegers = new Uint32Array(this.parameterWords);
  private readonly parameterFloats = new Float32Array(this.parameterWords);
  /** What the last dispatch computed: steps recorded, color mode, count, ranges (NaN: none yet). */
  private readonly last = new Float64Array(5).fill(Number.NaN);
  private lastFrame = -1;
  private disposed = false;

  /** Makes the pass for `solver`'s buffers, with room for `capacity` particles. */
  constructor(engine: WebGPUEngine, solver: WebGpuSolver, capacity: number) {
    this.engine = engine;
    this.solver = solver;
    this.colorBuffer = vertexStorageBuffer(engine, Math.max(1, capacity) * COLOR_BYTES, 'fluid-particleColors');
    this.parameterBuffer = parameterStorageBuffer(engine, ColorParams.size, 'fluid-particleColorParams');
    const { source, mapping } = particleColorsSource(solver);
    this.shader = new ComputeShader(
      'fluid-particleColors',
      engine,
      { computeSource: source },
      { bindingsMapping: mapping, entryPoint: 'main' },
    );
    for (const name of SOLVER_BINDINGS) this.shader.setStorageBuffer(name, solver.storageBuffer(name));
    this.shader.setStorageBuffer('colorParams', this.parameterBuffer);
    this.shader.setStorageBuffer('particleColors', this.colorBuffer);
  }

  /**
   * Records the color pass for the first `count` particles, colored by `colorBy` with `ranges`, unless
   * the colors already hold exactly that for the solver's state after `stepsRecorded` steps, or a pass
   * was recorded in this frame already (then it runs in the next). Call after the frame's steps and before
   * rendering: the dispatch goes into the engine's frame encoder ahead of the render passes. Nothing is
   * recorded until the shader has compiled (the colors are then those of the last pass, or zero).
   *
   * @returns True when a pass was recorded.
   */
  update(colorBy: FluidColorBy, ranges: ColorMapRanges, count: number, stepsRecorded: number): boolean {
    if (this.disposed || count <= 0) return false;
    const mode = COLOR_BY_CODES[colorBy];
    const last = this.last;
    if (
      last[0] === stepsRecorded &&
      last[1] === mode &&
      last[2] === count &&
      last[3] === ranges.speed &&
      last[4] === ranges.density
    ) {
      return false;
    }
    const frame = this.engine.frameId;
    if (frame === this.lastFrame || !this.shader.isReady()) return false;
    this.parameterIntegers[word(ColorParams, 'mode')] = mode;
    this.parameterIntegers[word(ColorParams, 'count')] = count;
    this.parameterFloats[word(ColorParams, 'inverseSpeedRange')] = 1 / Math.max(1e-9, ranges.speed);
    this.parameterFloats[word(ColorParams, 'inverseDensityRange')] = 1 / Math.max(1e-9, ranges.density);
    this.parameterBuffer.update(this.parameterIntegers);
    if (!this.shader.dispatch(Math.ceil(count / WORKGROUP_SIZE))) return false;
    this.lastFrame = frame;
    last[0] = stepsRecorded;
    last[1] = mode;
    last[2] = count;
    last[3] = ranges.speed;
    last[4] = ranges.density;
    return true;
  }

  /** True once the pass's shader has compiled. */
  isReady(): boolean {
    return this.shader.isReady();
  }

  /** Frees the color and parameter buffers (views holding a vertex buffer over the colors keep it alive). */
  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    this.colorBuffer.dispose();
    this.parameterBuffer.dispose();
  }
}

/**
 * The WGSL of the color pass for `solver`: constants (workgroup size, color codes, the color maps'
 * stops), the solver's structs (its scene layout: the `Material` table with render colors),
 * {@link ColorParams}, the bindings, and particleColors.wgsl. Returns the source and Babylon's bindings
 * mapping.
 */
export function particleColorsSource(solver: WebGpuSolver): {
  source: string;
  mapping: Record<string, { group: number; binding: number }>;
} {
  const mapping: Record<string, { group: number; binding: number }> = {};
  const bindings: [string, string, 'read' | 'read_write'][] = [
    ...SOLVER_BINDINGS.map((name): [string, string, 'read'] => [name, BUFFER_TYPES[name], 'read']),
    ['colorParams', ColorParams.name, 'read'],
    ['particleColors', 'array<vec4<f32>>', 'read_write'],
  ];
  const lines = bindings.map(([name, type, access], index) => {
    mapping[name] = { group: 0, binding: index };
    return `@group(0) @binding(${index}) var<storage, ${access}> ${name}: ${type};`;
  });
  const codes = Object.entries(COLOR_BY_CODES).map(
    ([name, code]) => `const COLOR_BY_${name.toUpperCase()}: u32 = ${code}u;`,
  );
  const source = [
    `const WORKGROUP_SIZE: u32 = ${WORKGROUP_SIZE}u;`,
    ...codes,
    colorMapsWgsl(),
    structDeclarations(solver.sceneLayout),
    ColorParams.wgsl,
    ...lines,
    colorSource,
  ].join('\n');
  return { source, mapping };
}
