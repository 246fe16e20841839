/** The kernels' text files (relative to the repository), in the module's order. */
export const WASM_PARTS: readonly string[];

/** The kernels only the shared module holds (the threads' partitions), after WASM_PARTS. */
export const SHARED_WASM_PARTS: readonly string[];

/** The TypeScript module the binaries go to, and its constants (the module, the shared module). */
export const WASM_MODULE: { readonly path: string; readonly name: string; readonly sharedName: string };

/** The most 64 KiB pages the shared module's memory may grow to. */
export const SHARED_MEMORY_PAGES: number;

/**
 * The module's text: one exported memory and the parts' functions, then `extra` (more functions, or '').
 * `read` reads a part by its path in the repository (default: from this script's checkout).
 */
export function moduleText(
  extra?: string,
  read?: (path: string) => Promise<string>,
  shared?: boolean,
): Promise<string>;

/** The binary of the module text `text`, as base64 (`features`: wabt's, such as `{ simd: true }`). */
export function assembleBase64(text: string, features?: Record<string, boolean>): Promise<string>;

/** The TypeScript module holding `base64` (the module) and `sharedBase64` (the threads' module). */
export function kernelModule(base64: string, sharedBase64: string): string;

/** The text of WASM_MODULE.path for the kernels' text as it is now (`read`: as for moduleText). */
export function committedModule(read?: (path: string) => Promise<string>): Promise<string>;
