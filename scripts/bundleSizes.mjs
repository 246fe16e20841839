// `npm run size` (after `npm run build`): what the package adds to a game's bundle. Each part is an entry that
// re-exports some names of the built package (dist/index.js, the file a game's bundler reads), bundled by
// esbuild the way an app bundler would (tree-shaken, honouring the package's "sideEffects": false, minified).
// Prints, per part: the package's own code with Babylon external (bitecs bundled), the Babylon modules it
// imports, and what it adds to a minimal Babylon game (Engine, Scene, camera, box, StandardMaterial) with
// Babylon bundled too: the Babylon modules the package pulls in that such a game would not have. Then a
// breakdown of the package's code by source folder (from src/, esbuild's metafile) and the size of the
// `npm pack` tarball.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { build } from 'esbuild';
import { wgslRawPlugin } from '../bench/build.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const distEntry = resolve(root, 'dist/index.js');
if (!existsSync(distEntry)) {
  console.error('dist/index.js is missing: run `npm run build` first (`npm run size` does).');
  process.exit(1);
}

/** The parts: what a game imports, and the exports that stand for it. */
const parts = [
  { name: 'nothing used (an import whose names are not used)', source: 'import { FluidPlugin } from "PKG";' },
  {
    name: 'core: headless FluidSimulation (CPU and WebGPU backends)',
    source: 'export { FluidSimulation } from "PKG";',
  },
  {
    name: 'core + mesh SDF baking',
    source: 'export { FluidSimulation, bakeSignedDistanceField, bakeSignedDistanceFieldAsync } from "PKG";',
  },
  { name: 'core + plugin (FluidPlugin)', source: 'export { FluidSimulation, FluidPlugin } from "PKG";' },
  { name: 'everything', source: 'export * from "PKG";' },
];

const babylonExternal = ['@babylonjs/core', '@babylonjs/core/*', '@babylonjs/havok', '@babylonjs/havok/*'];

/** A minimal Babylon game, to which each part is added when Babylon is bundled too. */
const minimalGame = [
  "export { Engine } from '@babylonjs/core/Engines/engine.js';",
  "export { Scene } from '@babylonjs/core/scene.js';",
  "export { FreeCamera } from '@babylonjs/core/Cameras/freeCamera.js';",
  "export { CreateBox } from '@babylonjs/core/Meshes/Builders/boxBuilder.js';",
  "export { StandardMaterial } from '@babylonjs/core/Materials/standardMaterial.js';",
].join('\n');

/** Bundles `source` (imports of "PKG", the built package) minified; Babylon external unless `withBabylon`. */
async function bundle(source, withBabylon) {
  const result = await build({
    stdin: { contents: source.replaceAll('PKG', distEntry), resolveDir: root, loader: 'js' },
    bundle: true,
    write: false,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    minify: true,
    treeShaking: true,
    metafile: true,
    logLevel: 'silent',
    external: withBabylon ? [] : babylonExternal,
  });
  const code = result.outputFiles[0].contents;
  return { result, code, bytes: code.length, gzip: gzipSync(code, { level: 9 }).length };
}

/** Measures one part: alone with Babylon external, and added to the minimal game with Babylon bundled. */
async function measure(source) {
  const { result, code } = await bundle(source, false);
  const babylonModules = new Set();
  for (const input of Object.values(result.metafile.inputs)) {
    for (const imported of input.imports) if (imported.external) babylonModules.add(imported.path);
  }
  // Imports of names that are not used are dropped by the minifier; count those left in the output.
  const text = new TextDecoder().decode(code);
  const kept = [...babylonModules].filter((path) => text.includes(`"${path}"`));
  const game = await bundle(`${minimalGame}\n${source}`, true);
  // Babylon modules in the game's bundle that the minimal game alone does not have, by folder.
  const baseInputs = Object.values(baseGame.result.metafile.outputs)[0].inputs;
  const babylonAdded = new Map();
  for (const [path, { bytesInOutput }] of Object.entries(Object.values(game.result.metafile.outputs)[0].inputs)) {
    const at = path.indexOf('@babylonjs/core/');
    if (at < 0 || baseInputs[path]) continue;
    const folder = path.slice(at + '@babylonjs/core/'.length).replace(/\.pure\.js$/, '.js');
    const key =
      folder.startsWith('Engines/WebGPU/') || folder.includes('webgpu') || folder.includes('WebGPU')
        ? 'WebGPU engine'
        : folder.split('/').slice(0, -1).join('/') || folder;
    babylonAdded.set(key, (babylonAdded.get(key) ?? 0) + bytesInOutput);
  }
  return {
    babylonAdded,
    bytes: code.length,
    gzip: gzipSync(code, { level: 9 }).length,
    babylonModules: kept.length,
    addedBytes: game.bytes - baseGame.bytes,
    addedGzip: game.gzip - baseGame.gzip,
  };
}

/** Minified bytes of the whole package per source area, from a bundle of src/ (esbuild's metafile). */
async function breakdown() {
  const result = await build({
    stdin: { contents: 'export * from "./src/index.ts";', resolveDir: root, loader: 'ts' },
    bundle: true,
    write: false,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    minify: true,
    metafile: true,
    logLevel: 'silent',
    external: babylonExternal,
    plugins: [wgslRawPlugin],
  });
  const areas = new Map([
    ['plugin (src/plugin)', 0],
    ['WebGPU backend (src/systems/gpu and the WGSL kernels)', 0],
    ['signed distance fields (src/systems/sdf)', 0],
    ['CPU solver, components, the rest of src/systems', 0],
    ['bitecs', 0],
  ]);
  const [plugin, gpu, sdf, cpu, bitecs] = [...areas.keys()];
  const output = Object.values(result.metafile.outputs)[0];
  for (const [path, { bytesInOutput }] of Object.entries(output.inputs)) {
    const file = relative(root, path.replace(/^wgsl-raw:/, '')).replaceAll('\\', '/');
    const area = file.includes('node_modules/bitecs')
      ? bitecs
      : file.startsWith('src/plugin/')
        ? plugin
        : file.startsWith('src/systems/gpu/') || file.endsWith('.wgsl')
          ? gpu
          : file.startsWith('src/systems/sdf/')
            ? sdf
            : cpu;
    areas.set(area, areas.get(area) + bytesInOutput);
  }
  return { areas, total: result.outputFiles[0].contents.length };
}

/** `npm pack --dry-run`: the tarball's size, unpacked size and file count. */
function packSize() {
  const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';
  const json = execFileSync(npm, ['pack', '--dry-run', '--json', '--ignore-scripts'], {
    cwd: root,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'ignore'],
  });
  const [pack] = JSON.parse(json);
  return { size: pack.size, unpackedSize: pack.unpackedSize, files: pack.entryCount ?? pack.files.length };
}

const kib = (bytes) => `${(bytes / 1024).toFixed(1)} KiB`;
const pad = (text, width) => String(text).padStart(width);

const baseGame = await bundle(minimalGame, true);
console.log('Bundles of the built package (esbuild, minified; bitecs bundled). "own code": Babylon external;');
console.log(
  `"added to a game": the growth of a minimal Babylon game's bundle (${kib(baseGame.bytes)}, ${kib(baseGame.gzip)} gzip), Babylon bundled.\n`,
);
console.log('| part | own code | own code, gzip | Babylon modules imported | added to a game | added, gzip |');
console.log('| --- | ---: | ---: | ---: | ---: | ---: |');
let everythingBabylon = new Map();
for (const part of parts) {
  const size = await measure(part.source);
  everythingBabylon = size.babylonAdded;
  console.log(
    `| ${part.name} | ${pad(kib(size.bytes), 9)} | ${pad(kib(size.gzip), 8)} | ${pad(size.babylonModules, 3)} | ${pad(kib(size.addedBytes), 9)} | ${pad(kib(size.addedGzip), 8)} |`,
  );
}

const largest = [...everythingBabylon].sort((a, b) => b[1] - a[1]).slice(0, 6);
console.log('\nLargest Babylon additions of "everything" to the minimal game (minified, by folder):');
for (const [folder, bytes] of largest) console.log(`  ${pad(kib(bytes), 9)}  ${folder}`);

const { areas, total } = await breakdown();
console.log(`\nWhole package by source area (minified bytes in a bundle of src/, total ${kib(total)}):\n`);
console.log('| area | minified |');
console.log('| --- | ---: |');
for (const [area, bytes] of areas) console.log(`| ${area} | ${pad(kib(bytes), 9)} |`);

const pack = packSize();
console.log(
  `\nnpm pack: ${kib(pack.size)} tarball (${pack.size} bytes), ${kib(pack.unpackedSize)} unpacked, ${pack.files} files.`,
);
