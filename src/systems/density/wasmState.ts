/**
 * The state of a simulation's WebAssembly density passes (density/wasm.ts runs them): the compiled module of
 * density.wat (densityWasm.ts) and what its memory holds. Created with the simulation context.
 */
import { DENSITY_WASM } from './densityWasm';

/** The module's exports (density.wat): its memory and the two passes, whose arguments are byte offsets and numbers. */
export interface DensityExports {
  readonly memory: WebAssembly.Memory;
  readonly lambda: (...values: number[]) => void;
  readonly corrections: (...values: number[]) => void;
}

/** A simulation's density kernels: the instance once compiled, and what its memory holds. */
export interface DensityKernels {
  /** The module's instance; undefined until compiled, and where it cannot be. */
  exports: DensityExports | undefined;
  /** Resolves when compiling ended, either way (`ready()` waits for it). */
  readonly compiled: Promise<void>;
  /** Whether the memory holds the last lambda pass's inputs and outputs (set by it, cleared by the corrections). */
  lambdaInMemory: boolean;
  /** Byte offset of each array in the memory, by name, for the last lambda pass's count and pairs. */
  readonly offsets: Map<string, number>;
}

function decode(base64: string): Uint8Array<ArrayBuffer> {
  const text = atob(base64);
  const bytes = new Uint8Array(text.length);
  for (let k = 0; k < text.length; k++) bytes[k] = text.charCodeAt(k);
  return bytes;
}

/** Starts the density kernels of a simulation (`enabled`: the `webAssembly` setting). */
export function createDensityKernels(enabled: boolean): DensityKernels {
  const kernels: DensityKernels = {
    exports: undefined,
    compiled: Promise.resolve(),
    lambdaInMemory: false,
    offsets: new Map(),
  };
  if (!enabled || typeof WebAssembly === 'undefined') return kernels;
  const bytes = decode(DENSITY_WASM);
  try {
    // Synchronous where the runtime allows it (browsers refuse it on the page's thread above 4 KB).
    kernels.exports = new WebAssembly.Instance(new WebAssembly.Module(bytes)).exports as unknown as DensityExports;
    return kernels;
  } catch {
    return {
      ...kernels,
      compiled: WebAssembly.instantiate(bytes).then(
        (result) => {
          kernels.exports = result.instance.exports as unknown as DensityExports;
        },
        () => undefined,
      ),
    };
  }
}
