// WGSL sources without their whole-line comments and blank lines. Every bundle of src/ loads `*.wgsl?raw`
// through these: the library build and the example gallery (vite.config.ts), the browser tests
// (tests/browser/driver.ts), the bench and the size report (bench/build.mjs), so the package ships, and the
// tests and the bench run, the same compacted kernels. The template markers (`// @entry`, `// @neighbours`,
// `// @general`, ...: src/systems/gpu/shaderSource.ts) stay. Types: compactWgsl.d.mts.
import { readFile } from 'node:fs/promises';

/** `source` without blank lines and lines that hold only a comment, except the `// @` template markers. */
export function compactWgslSource(source) {
  const kept = source.split('\n').filter((line) => {
    const text = line.trim();
    return text !== '' && (!text.startsWith('//') || text.startsWith('// @'));
  });
  return `${kept.join('\n')}\n`;
}

/** A Vite plugin: `*.wgsl?raw` imports load `compactWgslSource` of the file. */
export function compactWgsl() {
  return {
    name: 'compact-wgsl',
    enforce: 'pre',
    async load(id) {
      const [path, query] = id.split('?');
      if (!path.endsWith('.wgsl') || query !== 'raw') return null;
      return `export default ${JSON.stringify(compactWgslSource(await readFile(path, 'utf8')))};`;
    },
  };
}
