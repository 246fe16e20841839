/** What the page's WebGPU adapter offers (the smoke and bench scenarios report it). */
import type { WebGPUEngine } from '@babylonjs/core/Engines/webgpuEngine.js';

/** The adapter as `vendor/architecture/description` (fields the browser leaves empty are skipped). */
export function adapterName(engine: WebGPUEngine): string {
  const info = engine.getInfo();
  return [info.vendor, info.renderer, info.version].filter((part) => part && !part.startsWith('unknown')).join('/');
}

/** Whether the device was created with 'timestamp-query' (the page asks for it when the adapter has it). */
export function hasTimestampQueries(engine: WebGPUEngine): boolean {
  return engine.enabledExtensions.includes('timestamp-query');
}
