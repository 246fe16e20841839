/**
 * The npm package as a game gets it: `npm run build`, `npm pack`, then a fresh Vite + Babylon app in a
 * temporary folder installs the tarball offline and uses the README's "Five lines into your game" verbatim
 * (read from README.md). Checks: what the tarball holds; the app's `tsc --noEmit` (the packed types resolve
 * and are real); the app's `vite build` (and that it keeps the Babylon registrations the plugin needs); an
 * entry that imports the package without using it bundles to no package code ("sideEffects": false holds);
 * importing the package in Node changes no global; errors thrown by the built bundle keep their class names
 * (`err.constructor.name` is 'FluidError', 'FluidCapacityError'); the five lines in a NullEngine scene in Node
 * pour water that falls and lands on the mesh.
 *
 * Offline install: the app's package.json names the tarball (`file:`) and links the packages the app needs
 * besides it (@babylonjs/core, bitecs, vite, typescript) to this repository's node_modules (`file:` folders,
 * which npm links). `npm install --offline` then needs no registry and no npm cache: the tarball is extracted
 * into the app's node_modules like any package, and the links stand for packages a real app would download.
 * (Relying on the npm cache that `npm ci` filled does not work: `npm ci` stores tarballs but not the registry
 * metadata a fresh install needs to resolve version ranges.)
 */
import { type SpawnSyncReturns, spawnSync } from 'node:child_process';
import {
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const root = resolve(import.meta.dirname, '..');
const rootPackage = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { name: string; version: string };

/** The environment of the child processes: this one's, without the npm settings of a surrounding `npm test`. */
const childEnvironment: NodeJS.ProcessEnv = Object.fromEntries(
  Object.entries(process.env).filter(([key]) => !/^npm_/i.test(key)),
);

function tail(text: string | null | undefined, characters = 4000): string {
  return (text ?? '').slice(-characters);
}

/** Runs a command to completion; throws with its output when it fails. Returns stdout. */
function run(command: string, args: readonly string[], cwd: string): string {
  const result: SpawnSyncReturns<string> = spawnSync(command, args, {
    cwd,
    env: childEnvironment,
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
  if (result.error) throw result.error;
  if (result.status !== 0) {
    throw new Error(
      `${command} ${args.join(' ')} exited with ${result.status} in ${cwd}\n--- stdout\n${tail(result.stdout)}\n--- stderr\n${tail(result.stderr)}`,
    );
  }
  return result.stdout;
}

/** Runs a Node script of the app and parses the JSON line it prints last. */
function runNodeScript<T>(script: string, cwd: string): T {
  const output = run(process.execPath, [script], cwd).trim().split('\n');
  return JSON.parse(output[output.length - 1]) as T;
}

/** The code of the README's "Five lines into your game" section, verbatim. */
function readmeFiveLines(): string {
  const readme = readFileSync(join(root, 'README.md'), 'utf8');
  const section = readme.indexOf('## Five lines into your game');
  if (section < 0) throw new Error('README.md has no "## Five lines into your game" section');
  const block = /```ts\n([\s\S]*?)```/.exec(readme.slice(section));
  if (!block) throw new Error('the "Five lines into your game" section of README.md has no ```ts block');
  return block[1];
}

/** A Babylon scene with a 20 cm box (`glassMesh`) and, 30 cm above its center, `tapNode`. */
function sceneSetup(engineLine: string): string {
  return `${engineLine}
const scene = new Scene(engine);
new FreeCamera('camera', new Vector3(0, 0.2, -1), scene);
const glassMesh = CreateBox('glass', { size: 0.2 }, scene);
const tapNode = new TransformNode('tap', scene);
tapNode.position.set(0, 0.3, 0);
`;
}

const babylonImports = `import { FreeCamera } from '@babylonjs/core/Cameras/freeCamera.js';
import { Vector3 } from '@babylonjs/core/Maths/math.vector.js';
import { CreateBox } from '@babylonjs/core/Meshes/Builders/boxBuilder.js';
import { TransformNode } from '@babylonjs/core/Meshes/transformNode.js';
import { Scene } from '@babylonjs/core/scene.js';
`;

/** The files of the fresh app, apart from package.json. */
function appFiles(fiveLines: string): Record<string, string> {
  return {
    'index.html': `<!doctype html>
<html>
  <head><meta charset="utf-8" /><title>fluid game</title></head>
  <body><canvas id="game"></canvas><script type="module" src="/src/main.ts"></script></body>
</html>
`,
    'tsconfig.json': JSON.stringify(
      {
        compilerOptions: {
          target: 'ES2022',
          module: 'ESNext',
          moduleResolution: 'bundler',
          lib: ['ES2022', 'DOM'],
          types: [],
          strict: true,
          noEmit: true,
          skipLibCheck: false,
        },
        include: ['src'],
      },
      null,
      2,
    ),
    // The game in a browser: a canvas Engine, the README's five lines, the render loop.
    'src/main.ts': `${babylonImports}import { Engine } from '@babylonjs/core/Engines/engine.js';

${sceneSetup(`const engine = new Engine(document.getElementById('game') as HTMLCanvasElement, true, { alpha: false });`)}
${fiveLines}
const backend: 'webgpu' | 'cpu' = fluid.backend;
// @ts-expect-error litresPerSecond is a number: the package's types are real, not \`any\`.
fluid.addEmitter({ material: water, node: tapNode, litresPerSecond: 'a lot' });
document.title = \`water on \${backend}\`;
engine.runRenderLoop(() => scene.render());
`,
    // An entry that imports the package and uses nothing of it. JavaScript, not TypeScript: a TypeScript
    // transform would drop the unused import before the bundler sees it.
    'src/unused.js': `import { FluidPlugin, FluidSimulation } from '${rootPackage.name}';

document.title = 'imported, not used';
`,
    'unused.html': `<!doctype html>
<html><head><meta charset="utf-8" /><title>unused</title></head>
<body><script type="module" src="/src/unused.js"></script></body></html>
`,
    'vite.unused.config.mjs': `import { defineConfig } from 'vite';

export default defineConfig({
  build: { outDir: 'dist-unused', modulePreload: { polyfill: false }, rolldownOptions: { input: 'unused.html' } },
});
`,
    // The five lines in Node on a NullEngine: one step per render, 60 renders (1 s), then the particles.
    'headless.mjs': `${babylonImports}import { NullEngine } from '@babylonjs/core/Engines/nullEngine.js';

${sceneSetup('const engine = new NullEngine();')}
${fiveLines}
fluid.useDeltaTime = false;
for (let frame = 0; frame < 60; frame++) scene.render();
const { simulation } = fluid;
const particles = [...simulation.particles()].map((id) => [
  simulation.Position.x[id],
  simulation.Position.y[id],
  simulation.Position.z[id],
  simulation.Velocity.y[id],
]);
const result = { backend: fluid.backend, steps: simulation.stats.stepCount, particles };
engine.dispose();
console.log(JSON.stringify(result));
`,
    // Errors thrown by the built bundle: their classes keep their names through the library's minification
    // (keepNames in vite.config.ts), so `err.constructor.name` reads as in the source.
    'errors.mjs': `import { FluidCapacityError, FluidError, FluidSimulation } from '${rootPackage.name}';

const caught = (call) => { try { call(); } catch (error) { return error; } throw new Error('nothing was thrown'); };
const describe = (error) => ({ constructorName: error.constructor.name, name: error.name, isFluidError: error instanceof FluidError, isCapacityError: error instanceof FluidCapacityError });
const invalid = caught(() => new FluidSimulation({ particleRadius: -1 }));
const simulation = new FluidSimulation({ particleRadius: 0.01, capacity: 8 });
const water = simulation.addMaterial({});
const full = caught(() => simulation.spawnBlock({ min: [0, 0, 0], max: [0.1, 0.1, 0.1], material: water }));
console.log(JSON.stringify({ classes: [FluidError.name, FluidCapacityError.name], invalid: describe(invalid), full: describe(full) }));
`,
    // The built bundle's worker threads: the workers' source is made from the minified kernels' text, so a
    // minifier's helper inside them would leave the workers idle. Two threads must share the partitions and
    // step exactly as three.
    'threads.mjs': `import { FluidSimulation } from '${rootPackage.name}';

const make = (threads) => {
  const simulation = new FluidSimulation({ particleRadius: 0.025, capacity: 3000, threads });
  const water = simulation.addMaterial({ vorticity: 0.05 });
  simulation.addCollider({ shape: 'box', min: [0, 0, 0], max: [1.6, 1.2, 0.6], container: true });
  simulation.spawnBlock({ min: [0, 0, 0], max: [0.6, 0.8, 0.6], material: water });
  return simulation;
};
const one = make(3);
const two = make(2);
let workerPartitions = 0;
for (let step = 0; step < 30; step++) { one.step(); two.step(); workerPartitions += two.stats.workerPartitions; }
const same = one.particles().every((id) => one.Position.x[id] === two.Position.x[id] && one.Position.y[id] === two.Position.y[id] && one.Velocity.z[id] === two.Velocity.z[id]);
const threads = two.stats.threads;
one.dispose();
two.dispose();
console.log(JSON.stringify({ threads, workerPartitions, particles: one.particles().length, same }));
`,
    // Importing the package in Node: which globals change, what is logged, whether an engine is created.
    'effects.mjs': `import { EngineStore } from '@babylonjs/core/Engines/engineStore.js';

const snapshot = () => new Map(Object.getOwnPropertyNames(globalThis).map((name) => [name, Object.getOwnPropertyDescriptor(globalThis, name)]));
const before = snapshot();
const logged = [];
const methods = ['log', 'info', 'warn', 'error', 'debug'];
const originals = methods.map((method) => console[method]);
for (const method of methods) console[method] = (...args) => logged.push([method, args.map(String).join(' ')]);
const fluids = await import('${rootPackage.name}');
methods.forEach((method, index) => { console[method] = originals[index]; });
const after = snapshot();
const same = (a, b) => Object.is(a.value, b.value) && a.get === b.get && a.set === b.set && a.writable === b.writable;
const added = [...after.keys()].filter((name) => !before.has(name));
const changed = [...before.keys()].filter((name) => after.has(name) && !same(before.get(name), after.get(name)));
const removed = [...before.keys()].filter((name) => !after.has(name));
console.log(JSON.stringify({ exports: Object.keys(fluids).length, added, changed, removed, logged, engines: EngineStore.Instances.length }));
`,
  };
}

let workDirectory = '';
let appDirectory = '';
let pack: { filename: string; size: number; unpackedSize: number; files: { path: string }[] };

beforeAll(() => {
  run('npm', ['run', 'build'], root);
  workDirectory = mkdtempSync(join(tmpdir(), 'fluids-package-'));
  [pack] = JSON.parse(
    run('npm', ['pack', '--json', '--ignore-scripts', '--pack-destination', workDirectory], root),
  ) as (typeof pack)[];

  appDirectory = join(workDirectory, 'app');
  mkdirSync(join(appDirectory, 'src'), { recursive: true });
  const linked = (name: string) => `file:${join(root, 'node_modules', name)}`;
  const appPackage = {
    name: 'fluid-game',
    private: true,
    type: 'module',
    dependencies: {
      '@babylonjs/core': linked('@babylonjs/core'),
      bitecs: linked('bitecs'),
      [rootPackage.name]: `file:${join(workDirectory, pack.filename)}`,
    },
    devDependencies: { typescript: linked('typescript'), vite: linked('vite') },
  };
  writeFileSync(join(appDirectory, 'package.json'), JSON.stringify(appPackage, null, 2));
  for (const [path, text] of Object.entries(appFiles(readmeFiveLines()))) writeFileSync(join(appDirectory, path), text);
  run(
    'npm',
    ['install', '--offline', '--no-audit', '--no-fund', '--ignore-scripts', '--no-package-lock', '--loglevel=error'],
    appDirectory,
  );
}, 300_000);

afterAll(() => {
  if (workDirectory) rmSync(workDirectory, { recursive: true, force: true });
});

describe('the npm package in a fresh Vite + Babylon app', () => {
  it('packs the built library, its types and the README, and nothing else', () => {
    const paths = pack.files.map((file) => file.path).sort();
    expect(paths).toContain('package.json');
    expect(paths).toContain('README.md');
    expect(paths).toContain('dist/index.js');
    expect(paths).toContain('dist/index.d.ts');
    expect(paths.filter((path) => path.startsWith('dist/plugin/') && path.endsWith('.d.ts')).length).toBeGreaterThan(0);
    for (const path of paths) expect(path).toMatch(/^(dist\/.+\.(js|d\.ts|js\.map)|package\.json|README\.md|LICENSE)$/);
    // A budget, not a measurement: the tarball stays well under 1 MiB (source maps included).
    expect(pack.size).toBeGreaterThan(0);
    expect(pack.size).toBeLessThan(1024 * 1024);

    const installed = join(appDirectory, 'node_modules', rootPackage.name);
    expect(lstatSync(installed).isSymbolicLink()).toBe(false); // extracted from the tarball, not linked
    const manifest = JSON.parse(readFileSync(join(installed, 'package.json'), 'utf8'));
    expect(manifest.version).toBe(rootPackage.version);
    expect(manifest.sideEffects).toBe(false);
    expect(existsSync(join(installed, manifest.exports['.'].import))).toBe(true);
    expect(existsSync(join(installed, manifest.exports['.'].types))).toBe(true);
  });

  it("type-checks the app's use of the README's five lines (tsc --noEmit, library types checked too)", () => {
    // Fails on an unresolved module or type, on a wrong use and on an unused @ts-expect-error (types as any).
    run(process.execPath, [join(appDirectory, 'node_modules/typescript/bin/tsc'), '-p', '.'], appDirectory);
  });

  it('builds the app with vite, with the package code and the Babylon registrations the plugin needs', () => {
    run(
      process.execPath,
      [join(appDirectory, 'node_modules/vite/bin/vite.js'), 'build', '--logLevel', 'error'],
      appDirectory,
    );
    const html = readFileSync(join(appDirectory, 'dist/index.html'), 'utf8');
    const entry = /<script type="module"[^>]*src="\/([^"]+\.js)"/.exec(html);
    expect(entry).not.toBeNull();
    // The code that loads with the page: the entry chunk and the chunks it imports statically (not the
    // ones Babylon loads later with import()).
    const loaded = new Map<string, string>();
    const pending = [entry![1]];
    while (pending.length > 0) {
      const chunk = pending.pop()!;
      if (loaded.has(chunk)) continue;
      const text = readFileSync(join(appDirectory, 'dist', chunk), 'utf8');
      loaded.set(chunk, text);
      for (const match of text.matchAll(/\b(?:import|from)\s*["']\.\/([^"']+\.js)["']/g)) {
        pending.push(join(chunk, '..', match[1]));
      }
    }
    const code = [...loaded.values()].join('\n');
    expect(code).toContain('FluidCapacityError'); // the package's code
    expect(code).toContain('water on '); // the app's
    // A Babylon module the plugin imports only for its side effect (a shader registration): kept.
    expect(code).toContain('fluidRenderingParticleDepthVertexShader');
  });

  it('adds no code of its own or of Babylon to a bundle that imports it without using it', () => {
    run(
      process.execPath,
      [
        join(appDirectory, 'node_modules/vite/bin/vite.js'),
        'build',
        '--config',
        'vite.unused.config.mjs',
        '--logLevel',
        'error',
      ],
      appDirectory,
    );
    const assets = join(appDirectory, 'dist-unused/assets');
    const scripts = readdirSync(assets).filter((name) => name.endsWith('.js'));
    const code = scripts.map((name) => readFileSync(join(assets, name), 'utf8')).join('');
    expect(scripts.length).toBe(1);
    expect(code).toContain('imported, not used');
    // The entry's own statement is about 40 bytes; any code of the package or of Babylon is kilobytes.
    expect(code.length).toBeLessThan(200);
  });

  it('imports in Node without changing a global, logging or creating an engine', () => {
    const effects = runNodeScript<{
      exports: number;
      added: string[];
      changed: string[];
      removed: string[];
      logged: string[][];
      engines: number;
    }>('effects.mjs', appDirectory);
    expect(effects.exports).toBeGreaterThan(10);
    expect(effects.added).toEqual([]);
    expect(effects.changed).toEqual([]);
    expect(effects.removed).toEqual([]);
    expect(effects.logged).toEqual([]);
    expect(effects.engines).toBe(0);
  });

  it("throws errors whose constructor.name is the class's own ('FluidError', 'FluidCapacityError')", () => {
    type Described = { constructorName: string; name: string; isFluidError: boolean; isCapacityError: boolean };
    const errors = runNodeScript<{ classes: string[]; invalid: Described; full: Described }>(
      'errors.mjs',
      appDirectory,
    );
    expect(errors.classes).toEqual(['FluidError', 'FluidCapacityError']);
    expect(errors.invalid).toEqual({
      constructorName: 'FluidError',
      name: 'FluidError',
      isFluidError: true,
      isCapacityError: false,
    });
    expect(errors.full).toEqual({
      constructorName: 'FluidCapacityError',
      name: 'FluidCapacityError',
      isFluidError: true,
      isCapacityError: true,
    });
  });

  it('the built bundle shares the pair loops with worker threads: 2 threads step exactly as 3', () => {
    const result = runNodeScript<{ threads: number; workerPartitions: number; particles: number; same: boolean }>(
      'threads.mjs',
      appDirectory,
    );
    expect(result.particles).toBe(2304);
    expect(result.threads).toBe(2);
    expect(result.workerPartitions).toBeGreaterThan(30 * 16);
    expect(result.same).toBe(true);
  });

  it("runs the README's five lines in Node on a NullEngine: water pours, falls and lands on the mesh", () => {
    const { backend, steps, particles } = runNodeScript<{
      backend: string;
      steps: number;
      particles: [number, number, number, number][];
    }>('headless.mjs', appDirectory);
    expect(backend).toBe('cpu');
    expect(steps).toBe(60);
    expect(particles.length).toBeGreaterThan(5); // 0.2 L/s for 1 s at 2 cm spacing: about 25
    const radius = 0.01; // the five lines' particleRadius
    const half = 0.1; // the box's half size; its top is at y = 0.1, the tap at y = 0.3
    for (const [x, y, z, velocityY] of particles) {
      expect(Number.isFinite(x) && Number.isFinite(y) && Number.isFinite(z) && Number.isFinite(velocityY)).toBe(true);
      expect(y).toBeLessThan(0.3 + radius); // nothing rises above the tap
      // None inside the box: the mesh collider keeps every particle at least about a radius out of it.
      expect(Math.max(Math.abs(x), Math.abs(y), Math.abs(z))).toBeGreaterThan(half + 0.5 * radius);
    }
    // Some water rests on the box's top (y = 0.1 + r, within half a radius) ...
    const onTop = particles.filter(
      ([x, y, z]) => Math.abs(x) < half && Math.abs(z) < half && Math.abs(y - (half + radius)) < 0.5 * radius,
    );
    expect(onTop.length).toBeGreaterThan(0);
    // ... and some has run off its edge and is falling below it.
    const falling = particles.filter(([, y, , velocityY]) => y < half && velocityY < -0.5);
    expect(falling.length).toBeGreaterThan(0);
  });
});
