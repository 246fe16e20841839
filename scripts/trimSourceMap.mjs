// Drops the text of the generated WebAssembly module (src/systems/wasm/cpuKernelsWasm.ts: the two binaries in
// base64, written by scripts/assembleWasm.mjs) from the library's source map, after `vite build`: its
// `sourcesContent` entry becomes null, as the source map format allows for a source whose text is not embedded.
// Its mappings stay, so a stack trace still names that file; the text itself is two base64 strings that a debugger
// cannot show usefully, and embedding it (44 KB of text) put 18 KB into the package's tarball (the kernels' text
// files, `.wat`, are in the repository). `npm run build` runs it.
import { readFile, writeFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');

/** The sources whose text the map leaves out. */
export const SOURCES_WITHOUT_TEXT = [/(^|\/)src\/systems\/wasm\/cpuKernelsWasm\.ts$/];

/** Sets the `sourcesContent` entries of SOURCES_WITHOUT_TEXT to null in the source map at `path`; returns how many. */
export async function trimSourceMap(path) {
  const map = JSON.parse(await readFile(path, 'utf8'));
  let trimmed = 0;
  map.sources.forEach((source, index) => {
    if (SOURCES_WITHOUT_TEXT.some((pattern) => pattern.test(source)) && map.sourcesContent?.[index] != null) {
      map.sourcesContent[index] = null;
      trimmed++;
    }
  });
  await writeFile(path, JSON.stringify(map));
  return trimmed;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const trimmed = await trimSourceMap(resolve(root, 'dist/index.js.map'));
  if (trimmed === 0) throw new Error('dist/index.js.map holds no text of the generated WebAssembly module to drop');
}
