import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { defineConfig } from 'vite';
import { compactWgsl } from './scripts/compactWgsl.mjs';

/**
 * Every `@babylonjs/*` deep import of the examples and the library, so the dev server pre-bundles them
 * all at start: a dependency discovered later makes Vite re-optimise and reload the page mid-run.
 */
function babylonDeepImports(): string[] {
  const found = new Set<string>();
  const visit = (directory: string): void => {
    for (const entry of readdirSync(directory, { withFileTypes: true })) {
      const path = join(directory, entry.name);
      if (entry.isDirectory()) visit(path);
      else if (entry.name.endsWith('.ts')) {
        for (const match of readFileSync(path, 'utf8').matchAll(/['"](@babylonjs\/(?:core|gui)\/[^'"]+)['"]/g)) {
          found.add(match[1]);
        }
      }
    }
  };
  visit(resolve(import.meta.dirname, 'src'));
  visit(resolve(import.meta.dirname, 'examples'));
  return [...found].sort();
}

// `npm run dev` serves the example gallery in examples/; `npm run build` builds the library to dist/.
export default defineConfig(({ command }) =>
  command === 'serve'
    ? {
        root: resolve(import.meta.dirname, 'examples'),
        // The gallery's thumbnails are the browser test's screenshots in docs/images (served at the root).
        publicDir: resolve(import.meta.dirname, 'docs/images'),
        plugins: [compactWgsl()],
        // Cross-origin isolation: the page may make SharedArrayBuffers, so the CPU backend's worker threads run
        // (the `threads` option; a host without these headers gets one thread and the same results).
        server: {
          port: 5173,
          strictPort: false,
          headers: {
            'Cross-Origin-Opener-Policy': 'same-origin',
            'Cross-Origin-Embedder-Policy': 'require-corp',
          },
        },
        optimizeDeps: {
          include: ['bitecs', ...babylonDeepImports()],
          // Havok's ES module finds its wasm next to itself (import.meta.url): a pre-bundled copy would not.
          exclude: ['@babylonjs/havok'],
        },
      }
    : {
        plugins: [compactWgsl()],
        build: {
          outDir: 'dist',
          emptyOutDir: true,
          sourcemap: true,
          lib: {
            entry: resolve(import.meta.dirname, 'src/index.ts'),
            formats: ['es'],
            fileName: () => 'index.js',
          },
          rolldownOptions: {
            external: [
              /^bitecs(\/.*)?$/,
              /^@babylonjs\/core(\/.*)?$/,
              /^@babylonjs\/gui(\/.*)?$/,
              /^@babylonjs\/havok(\/.*)?$/,
            ],
            // The minified bundle keeps the classes' and functions' own names, so a game's error handler and
            // stack traces read `err.constructor.name === 'FluidError'`, not a one-letter minified name.
            output: { keepNames: true },
          },
        },
      },
);
