// Bundles bench/run.ts to bench/.build/run.mjs for `npm run bench`. Imports of `*.wgsl?raw` (Vite's raw
// suffix, used by src/) become the file's text, as in Vite. vite, playwright-core (the WebGPU harness), wabt and
// Babylon stay external: Node loads them from node_modules at run time (bundled, Babylon's circular imports
// come out in an order that breaks its class hierarchy: "Class extends value undefined").
import { readFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { compactWgslSource } from '../scripts/compactWgsl.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');

/**
 * Resolves `./x.wgsl?raw` to the file and loads it as a string (esbuild's text loader), compacted as every
 * bundle of src/ loads it (scripts/compactWgsl.mjs).
 */
export const wgslRawPlugin = {
  name: 'wgsl-raw',
  setup(context) {
    context.onResolve({ filter: /\.wgsl\?raw$/ }, (args) => ({
      path: resolve(args.resolveDir, args.path.slice(0, -'?raw'.length)),
      namespace: 'wgsl-raw',
    }));
    context.onLoad({ filter: /.*/, namespace: 'wgsl-raw' }, async (args) => ({
      contents: compactWgslSource(await readFile(args.path, 'utf8')),
      loader: 'text',
      watchFiles: [args.path],
    }));
  },
};

// Run as a script (not when imported for its plugin).
const isMain = process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url);
const entry = process.argv[2] ?? resolve(root, 'bench/run.ts');
const outfile = process.argv[3] ?? resolve(root, 'bench/.build/run.mjs');
if (isMain) await build({
  entryPoints: [entry],
  outfile,
  bundle: true,
  platform: 'node',
  format: 'esm',
  logLevel: 'warning',
  external: ['vite', 'playwright-core', 'wabt', '@babylonjs/core', '@babylonjs/core/*'],
  plugins: [wgslRawPlugin],
});
