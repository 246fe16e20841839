// Types of the `webgpu` npm package (Dawn for Node), which build.mjs bundles from outside the project's
// node_modules (it is no dependency of the project).
declare module 'webgpu' {
  /** A `navigator.gpu` for the Dawn options given (`backend=vulkan`, `enable-dawn-features=...`). */
  export function create(options: string[]): GPU;
  /** The WebGPU classes and constants (GPUBufferUsage, ...) to put on globalThis. */
  export const globals: Record<string, unknown>;
}
