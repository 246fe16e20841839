/** Each WebAssembly text kernel of src/: its text, the TypeScript module it becomes and its constant's name. */
export const WASM_KERNELS: readonly { text: string; module: string; name: string }[];

/** The binary of the WebAssembly text at `path` (relative to the repository), as base64. */
export function assembleBase64(path: string): Promise<string>;

/** The TypeScript module holding `base64` as `name`, generated from `text`. */
export function kernelModule(text: string, name: string, base64: string): string;
