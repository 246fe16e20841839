/**
 * Scenarios the WebGPU harness page (gpu.html) can run: `window.gpuHarness.run(name, args)` calls
 * `scenarios[name](engine, args)` and hands the (JSON-serialisable) result back to Node.
 * Add a scenario by adding an entry to `scenarios`.
 */
import { StorageBuffer } from '@babylonjs/core/Buffers/storageBuffer.js';
import { ComputeShader } from '@babylonjs/core/Compute/computeShader.js';
import { Constants } from '@babylonjs/core/Engines/constants.js';
import type { WebGPUEngine } from '@babylonjs/core/Engines/webgpuEngine.js';
import { adapterName, hasTimestampQueries } from './adapter';
import { benchScenario } from './bench';
import { damBreakParity, emitDrainParity, kernelParity, largeCapacity, nonFiniteRecovery } from './parity';

/** A scenario: runs in the page with the harness's initialised WebGPU engine. */
// biome-ignore lint/suspicious/noExplicitAny: each scenario declares its own argument type
export type Scenario = (engine: WebGPUEngine, args: any) => Promise<unknown>;

/** What the page sets as `window.gpuHarness` once the engine is ready. */
export interface GpuHarness {
  ready: true;
  /** The harness's engine (also passed to every scenario). */
  engine: WebGPUEngine;
  /** Names of the registered scenarios. */
  names(): string[];
  /** Runs scenario `name`; rejects with `unknown scenario` when it is not registered. */
  run(name: string, args?: unknown): Promise<unknown>;
}

/** Result of the `smoke` scenario. */
export interface SmokeResult {
  adapter: string;
  timestampQueries: boolean;
  /** Features the device was created with (Babylon's `engine.enabledExtensions`). */
  deviceFeatures: string[];
  /** Features the adapter offers (Babylon's `engine.supportedExtensions`). */
  adapterFeatures: string[];
  limits: {
    maxStorageBufferBindingSize: number;
    maxComputeWorkgroupSizeX: number;
    maxStorageBuffersPerShaderStage: number;
  };
  computeMatched: boolean;
}

const DOUBLE_WGSL = /* wgsl */ `
@group(0) @binding(0) var<storage, read_write> data : array<f32>;

@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) id : vec3<u32>) {
  if (id.x < arrayLength(&data)) {
    data[id.x] = 2.0 * data[id.x];
  }
}
`;

export const scenarios: Record<string, Scenario> = {
  kernelParity: (engine, args) => kernelParity(engine, args),
  deviceLoss: async (engine, args) => (await import('./deviceLoss')).deviceLoss(engine, args),
  damBreakParity: (engine) => damBreakParity(engine),
  neighbourLists: async (engine) => (await import('./neighbours')).neighbourLists(engine),
  threads: async (engine, args) => (await import('./threads')).browserThreads(engine, args),
  webAssembly: async (engine, args) => (await import('./wasm')).browserWasm(engine, args),
  emitDrainParity: (engine) => emitDrainParity(engine),
  nonFiniteRecovery: (engine) => nonFiniteRecovery(engine),
  largeCapacity: (engine) => largeCapacity(engine),
  couplingParity: async (engine, args) => (await import('./coupling')).couplingParity(engine, args),
  sphCouplingParity: async (engine, args) => (await import('./coupling')).sphCouplingParity(engine, args?.steps),
  mpsCouplingParity: async (engine, args) => (await import('./coupling')).sphCouplingParity(engine, args?.steps, 'mps'),
  snapshot: async (engine) => (await import('./snapshot')).snapshotAcrossBackends(engine),
  soak: async (engine, args) => (await import('./soak')).soakScenario(engine, args),
  bench: (engine, args) => benchScenario(engine, args),
  sphParity: async (engine, args) => (await import('./sph')).sphParity(engine, args),
  sphRefusals: async (engine) => (await import('./sph')).sphRefusals(engine),
  mpsParity: async (engine, args) => (await import('./mps')).mpsParity(engine, args),
  mpsSolveParity: async (engine, args) => (await import('./mps')).mpsSolveParity(engine, args),
  mpsRefusals: async (engine) => (await import('./mps')).mpsRefusals(engine),
  mpsRest: async (engine, args) => (await import('./mps')).mpsRest(engine, args),
  multiFluidParity: async (engine, args) => (await import('./multifluid')).multiFluidParity(engine, args),
  multiFluidSolvers: async (engine) => (await import('./multifluid')).multiFluidSolvers(engine),
  multiFluidSnapshot: async (engine) => (await import('./multifluid')).multiFluidSnapshot(engine),
  gpuColors: async (engine, args) => (await import('./colors')).gpuColors(engine, args),
  ellipsoidParity: async (engine) => (await import('./ellipsoids')).ellipsoidParity(engine),
  ellipsoidRendering: async (engine, args) => (await import('./ellipsoids')).ellipsoidRendering(engine, args),
  liquidsRendering: async (engine, args) => (await import('./ellipsoids')).liquidsRendering(engine, args),
  airKernelParity: async (engine) => (await import('./air')).airKernelParity(engine),
  airPour: async (engine, args) => (await import('./air')).airPour(engine, args),
  airBoil: async (engine, args) => (await import('./air')).airBoil(engine, args),
  airBuoyancy: async (engine, args) => (await import('./air')).airBuoyancy(engine, args),
  airBuoyancyKernel: async (engine) => (await import('./air')).airBuoyancyKernel(engine),
  airPasses: async (engine) => (await import('./air')).airPasses(engine),
  airReadbackOrder: async (engine) => (await import('./air')).airReadbackOrder(engine),
  projectionParity: async (engine, args) => (await import('./projection')).projectionParity(engine, args),
  projectionAfterRestore: async (engine) => (await import('./projection')).projectionAfterRestore(engine),
  scatterOnCellBoundary: async (engine) => (await import('./projection')).scatterOnCellBoundary(engine),
  restingPool: async (engine, args) => (await import('./projection')).restingPoolOnGpu(engine, args),
  determinism: async (engine, args) => (await import('./determinism')).gpuDeterminism(engine, args),
  floatingBox: async (engine, args) => {
    const { floatingBoxRun } = await import('../floatingBox');
    return floatingBoxRun(args.density, { solver: args.solver, backend: 'webgpu', engine });
  },
  diffuseParity: async (engine, args) => (await import('./diffuse')).diffuseParity(engine, args?.steps),
  wallSlide: async (engine, args) => {
    const { wallSlide, wallSlideScene } = await import('../wallSlide');
    return wallSlide(wallSlideScene({ backend: 'webgpu', engine }), args.frames);
  },
  /** Adapter, limits, and a trivial compute pass (double 1024 floats) read back. */
  async smoke(engine): Promise<SmokeResult> {
    const count = 1024;
    const input = new Float32Array(count);
    for (let i = 0; i < count; i++) input[i] = i - 100.5;
    const buffer = new StorageBuffer(
      engine,
      input.byteLength,
      Constants.BUFFER_CREATIONFLAG_READWRITE | Constants.BUFFER_CREATIONFLAG_WRITE,
      'smoke-data',
    );
    buffer.update(input);
    const shader = new ComputeShader(
      'smoke-double',
      engine,
      { computeSource: DOUBLE_WGSL },
      { bindingsMapping: { data: { group: 0, binding: 0 } } },
    );
    shader.setStorageBuffer('data', buffer);
    await shader.dispatchWhenReady(Math.ceil(count / 64));
    const view = await buffer.read(0, input.byteLength, undefined, true);
    const output = new Float32Array(view.buffer, view.byteOffset, count);
    let computeMatched = output.length === count;
    for (let i = 0; i < count && computeMatched; i++) computeMatched = output[i] === 2 * input[i];
    buffer.dispose();
    const limits = engine.currentLimits;
    return {
      adapter: adapterName(engine),
      timestampQueries: hasTimestampQueries(engine),
      deviceFeatures: [...engine.enabledExtensions],
      adapterFeatures: [...engine.supportedExtensions],
      limits: {
        maxStorageBufferBindingSize: limits.maxStorageBufferBindingSize,
        maxComputeWorkgroupSizeX: limits.maxComputeWorkgroupSizeX,
        maxStorageBuffersPerShaderStage: limits.maxStorageBuffersPerShaderStage,
      },
      computeMatched,
    };
  },
};
