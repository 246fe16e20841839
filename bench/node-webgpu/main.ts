/**
 * Loaded by run.ts, once console.log goes to stderr. Runs one scenario of tests/browser/scenarios.ts in
 * plain Node, on Dawn (the `webgpu` package, dawn.node loaded from the folder of the bundle) through
 * Babylon's WebGPUEngine on a fake canvas. Usage: `node run.mjs <scenario> ['<json args>']`. Prints the
 * scenario's result as JSON (logs go to stderr) and exits 0, or prints the error and exits 1.
 * Environment: DAWN_OPTIONS (`;`-separated, e.g. `backend=vulkan;adapter=NVIDIA H100`) added to the
 * options of `create`; RESULT_FD the file descriptor for the result (default 1); GPU_FEATURES = timestamp
 * (default) | all | none, as the browser page's `?features=`; GPU_LIMITS = maximum for the adapter's limits
 * (Babylon's `setMaximumLimits`), else WebGPU's defaults.
 */
import { writeSync } from 'node:fs';
import '@babylonjs/core/Engines/WebGPU/Extensions/engine.computeShader.js';
import { WebGPUEngine, type WebGPUEngineOptions } from '@babylonjs/core/Engines/webgpuEngine.js';
import { create, globals } from 'webgpu';
import { scenarios } from '../../tests/browser/scenarios';
import { completeSetLikes, FakeCanvas, installDomStubs } from './canvas';

async function main(): Promise<number> {
  const [name, rawArgs] = process.argv.slice(2);
  if (!name || !scenarios[name]) {
    console.error(`usage: run.mjs <scenario> ['<json args>'] (scenarios: ${Object.keys(scenarios).join(', ')})`);
    return 1;
  }
  const args = rawArgs ? JSON.parse(rawArgs) : undefined;

  Object.assign(globalThis, globals);
  completeSetLikes(globals);
  // Dawn rounds timestamps to 2^16 ns by default (as browsers do, against timing attacks): turn that off.
  const dawnOptions = [
    'disable-dawn-features=timestamp_quantization',
    ...(process.env.DAWN_OPTIONS ?? '').split(';').filter(Boolean),
  ];
  const gpu = create(dawnOptions);
  Object.defineProperty(globalThis, 'navigator', {
    value: { gpu, userAgent: 'node', language: 'en' },
    configurable: true,
    writable: true,
  });
  installDomStubs();

  const features = process.env.GPU_FEATURES ?? 'timestamp';
  const options: WebGPUEngineOptions = { antialias: false, stencil: false, powerPreference: 'high-performance' };
  if (features === 'all') options.enableAllFeatures = true;
  else if (features === 'timestamp') options.deviceDescriptor = { requiredFeatures: ['timestamp-query'] };
  // The adapter's limits instead of WebGPU's defaults (Babylon's `setMaximumLimits`): the neighbour lists of a
  // million particles need more than the default 128 MiB storage binding (docs/webgpu.md, "Neighbours").
  if (process.env.GPU_LIMITS === 'maximum') options.setMaximumLimits = true;
  const engine = new WebGPUEngine(new FakeCanvas() as unknown as HTMLCanvasElement, options);
  await engine.initAsync();
  const info = engine.getInfo();
  console.error(
    `adapter: ${[info.vendor, info.renderer, info.version].join(' / ')}; features: ${engine.enabledExtensions.join(',')}`,
  );

  const result = await scenarios[name](engine, args);
  // run.sh points fd 1 at stderr (Dawn prints its warnings to stdout) and hands the real stdout as RESULT_FD.
  writeSync(Number(process.env.RESULT_FD ?? 1), `${JSON.stringify(result, null, 2)}\n`);
  engine.dispose();
  return 0;
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    console.error(error instanceof Error ? (error.stack ?? error.message) : String(error));
    process.exit(1);
  },
);
