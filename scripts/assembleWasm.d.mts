/** The kernels' text files (relative to the repository), in the module's order. */
export const WASM_PARTS: readonly string[];

/** The TypeScript module the binary goes to, and its constant. */
export const WASM_MODULE: { readonly path: string; readonly name: string };

/**
 * The module's text: one exported memory and the parts' functions, then `extra` (more functions, or '').
 * `read` reads a part by its path in the repository (default: from this script's checkout).
 */
export function moduleText(extra?: string, read?: (path: string) => Promise<string>): Promise<string>;

/** The binary of the module text `text`, as base64 (`features`: wabt's, such as `{ simd: true }`). */
export function assembleBase64(text: string, features?: Record<string, boolean>): Promise<string>;

/** The TypeScript module holding `base64`. */
export function kernelModule(base64: string): string;
