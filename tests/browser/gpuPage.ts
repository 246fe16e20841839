/**
 * The WebGPU harness page (gpu.html): creates a WebGPUEngine on a small canvas and exposes
 * `window.gpuHarness` (see GpuHarness in scenarios.ts), which runs the scenarios of scenarios.ts with it.
 * The device is created with 'timestamp-query' when the adapter offers it (Babylon drops requested
 * features the adapter lacks); `?features=all` enables every adapter feature, `?features=none` none.
 * A failed start sets `window.gpuHarnessError`.
 */
import '@babylonjs/core/Engines/WebGPU/Extensions/engine.computeShader.js';
import { WebGPUEngine, type WebGPUEngineOptions } from '@babylonjs/core/Engines/webgpuEngine.js';
import { type GpuHarness, scenarios } from './scenarios';

type HarnessWindow = Window & { gpuHarness?: GpuHarness; gpuHarnessError?: string };

async function start(): Promise<void> {
  const canvas = document.getElementById('gpuCanvas') as HTMLCanvasElement;
  const features = new URLSearchParams(location.search).get('features') ?? 'timestamp';
  const options: WebGPUEngineOptions = { antialias: false, stencil: false };
  if (features === 'all') options.enableAllFeatures = true;
  else if (features === 'timestamp') options.deviceDescriptor = { requiredFeatures: ['timestamp-query'] };
  const engine = new WebGPUEngine(canvas, options);
  await engine.initAsync();
  (window as HarnessWindow).gpuHarness = {
    ready: true,
    engine,
    names: () => Object.keys(scenarios),
    async run(name, args) {
      const scenario = scenarios[name];
      if (!scenario) throw new Error(`unknown scenario '${name}' (have: ${Object.keys(scenarios).join(', ')})`);
      return scenario(engine, args);
    },
  };
}

start().catch((error: unknown) => {
  const message = error instanceof Error ? `${error.message}\n${error.stack ?? ''}` : String(error);
  (window as HarnessWindow).gpuHarnessError = message;
  console.error(`gpu harness failed to start: ${message}`);
});
