import { resolve } from 'node:path';
import { defineConfig } from 'vite';

// `npm run dev` serves the example gallery in examples/; `npm run build` builds the library to dist/.
export default defineConfig(({ command }) =>
  command === 'serve'
    ? {
        root: resolve(import.meta.dirname, 'examples'),
        server: { port: 5173, strictPort: false },
        optimizeDeps: { include: ['bitecs'] },
      }
    : {
        build: {
          outDir: 'dist',
          emptyOutDir: true,
          sourcemap: true,
          lib: {
            entry: resolve(import.meta.dirname, 'src/index.ts'),
            formats: ['es'],
            fileName: () => 'index.js',
          },
          rollupOptions: {
            external: [/^bitecs(\/.*)?$/, /^@babylonjs\/core(\/.*)?$/, /^@babylonjs\/havok(\/.*)?$/],
          },
        },
      },
);
