/**
 * Node side of the WebGPU harness: starts a Vite dev server on the repository, launches headless
 * Chromium with a SwiftShader WebGPU adapter (playwright-core), opens tests/browser/gpu.html and runs
 * the page's scenarios (tests/browser/scenarios.ts) in it.
 *
 * A missing browser throws (tests fail, they never skip). `CHROMIUM_PATH` overrides the browser.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Browser, chromium } from 'playwright-core';
import { createServer, type ViteDevServer } from 'vite';
import { compactWgsl } from '../../scripts/compactWgsl.mjs';
import type { GpuHarness } from './scenarios';

/** The Chromium binary (`CHROMIUM_PATH` overrides `/usr/bin/chromium`). */
export const executablePath = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/**
 * Headless Chromium flags for WebGPU on SwiftShader. Without the last two (Vulkan/ANGLE on SwiftShader)
 * compute works but the first canvas present destroys the device.
 */
export const browserArguments = [
  '--no-sandbox',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  '--enable-unsafe-webgpu',
  '--use-webgpu-adapter=swiftshader',
  '--enable-features=Vulkan',
  '--use-vulkan=swiftshader',
  '--use-angle=swiftshader',
];

/** The headers that make a page cross-origin isolated (vite.config.ts sends them for the examples too). */
const CROSS_ORIGIN_ISOLATION_HEADERS = {
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Embedder-Policy': 'require-corp',
};

/** Options of `openGpuPage`. */
export interface GpuPageOptions {
  /**
   * Device features: 'timestamp' (default) asks for 'timestamp-query' only (granted when the adapter
   * has it), 'all' enables every adapter feature (Babylon's `enableAllFeatures`), 'none' Babylon's default.
   */
  features?: 'timestamp' | 'all' | 'none';
  /**
   * The checkout whose tests/browser/gpu.html and sources the page serves (default: this repository's);
   * `npm run bench` opens a second page on a build of an earlier commit to compare with (`BENCH_BASELINE`).
   */
  root?: string;
  /**
   * Serve the page cross-origin isolated (`Cross-Origin-Opener-Policy: same-origin` and
   * `Cross-Origin-Embedder-Policy: require-corp`, what a game's host sends for the CPU backend's worker
   * threads). Default false: a page as most hosts serve it, without `SharedArrayBuffer`.
   */
  crossOriginIsolated?: boolean;
}

/** An open harness page. */
export interface GpuPage {
  /** Runs `scenarios[scenario](engine, args)` in the page; the result must be JSON-serialisable. */
  run<T>(scenario: string, args?: unknown): Promise<T>;
  /** Names of the scenarios the page has registered. */
  readonly scenarioNames: string[];
  /**
   * Page errors, `console.error` messages and Babylon's "WebGPU uncaptured error" warnings, collected
   * since the page opened (the array is live; clear it with `length = 0`).
   */
  readonly consoleErrors: string[];
  /** Closes the browser and the dev server. */
  close(): Promise<void>;
}

type HarnessWindow = Window & { gpuHarness?: GpuHarness; gpuHarnessError?: string };

/** The repository root: the nearest ancestor holding tests/browser/gpu.html (works when bundled too). */
function repositoryRoot(): string {
  let directory = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    if (existsSync(join(directory, 'tests', 'browser', 'gpu.html'))) return directory;
    const parent = dirname(directory);
    if (parent === directory) return resolve('.');
    directory = parent;
  }
}

/** Every `@babylonjs/core/...` deep import in the .ts files under `directories`, for optimizeDeps. */
function babylonDeepImports(directories: string[]): string[] {
  const found = new Set<string>();
  const visit = (directory: string): void => {
    if (!existsSync(directory)) return;
    for (const entry of readdirSync(directory, { withFileTypes: true })) {
      const path = join(directory, entry.name);
      if (entry.isDirectory()) visit(path);
      else if (entry.name.endsWith('.ts')) {
        for (const match of readFileSync(path, 'utf8').matchAll(/['"](@babylonjs\/core\/[^'"?]+)['"]/g)) {
          found.add(match[1]);
        }
      }
    }
  };
  for (const directory of directories) visit(directory);
  return [...found].sort();
}

/** Starts the dev server and the browser and opens the harness page, ready to run scenarios. */
export async function openGpuPage(options: GpuPageOptions = {}): Promise<GpuPage> {
  if (!existsSync(executablePath)) {
    throw new Error(
      `Chromium not found at ${executablePath}: install it (apt-get install -y chromium) or set CHROMIUM_PATH`,
    );
  }
  const root = options.root ?? repositoryRoot();
  let server: ViteDevServer | undefined;
  let browser: Browser | undefined;
  const close = async (): Promise<void> => {
    await browser?.close();
    await server?.close();
  };
  try {
    server = await createServer({
      configFile: false,
      root,
      // Its own dependency cache: sharing `npm run dev`'s node_modules/.vite, this server's different
      // optimizeDeps would re-optimise it under the dev server, whose open pages then fail with
      // "504 (Outdated Optimize Dep)".
      cacheDir: join(root, 'node_modules', '.vite-tests'),
      // The kernels as the package ships them (scripts/compactWgsl.ts).
      plugins: [compactWgsl()],
      // No file watching or hot reload: an edit to src/ during a run must not reload the page.
      server: {
        port: 0,
        strictPort: false,
        hmr: false,
        watch: null,
        headers: options.crossOriginIsolated ? CROSS_ORIGIN_ISOLATION_HEADERS : {},
      },
      logLevel: 'error',
      optimizeDeps: {
        entries: ['tests/browser/gpu.html'],
        include: ['bitecs', ...babylonDeepImports([join(root, 'src'), join(root, 'tests', 'browser')])],
        exclude: ['@babylonjs/havok'],
      },
    });
    await server.listen();
    const address = server.resolvedUrls?.local[0];
    if (!address) throw new Error('the Vite dev server did not report an address');
    browser = await chromium.launch({ executablePath, args: browserArguments });
    const page = await browser.newPage({ viewport: { width: 320, height: 240 } });
    const consoleErrors: string[] = [];
    page.on('pageerror', (error) => consoleErrors.push(`pageerror: ${error.message}`));
    page.on('console', (message) => {
      const text = message.text();
      if (message.type() === 'error') consoleErrors.push(`console: ${text}`);
      else if (message.type() === 'warning' && /uncaptured error/i.test(text)) consoleErrors.push(`console: ${text}`);
    });
    await page.goto(`${address}tests/browser/gpu.html?features=${options.features ?? 'timestamp'}`);
    // The first load optimises the dependencies; on a busy 2-core machine that can take minutes.
    await page.waitForFunction(
      () => (window as HarnessWindow).gpuHarness?.ready === true || (window as HarnessWindow).gpuHarnessError,
      undefined,
      { timeout: 270_000, polling: 50 },
    );
    const failure = await page.evaluate(() => (window as HarnessWindow).gpuHarnessError);
    if (failure) throw new Error(`the WebGPU harness page failed to start: ${failure}`);
    const scenarioNames = await page.evaluate(() => (window as HarnessWindow).gpuHarness?.names() ?? []);
    return {
      scenarioNames,
      consoleErrors,
      close,
      run<T>(scenario: string, args?: unknown): Promise<T> {
        return page.evaluate(({ scenario, args }) => (window as HarnessWindow).gpuHarness?.run(scenario, args), {
          scenario,
          args,
        }) as Promise<T>;
      },
    };
  } catch (error) {
    await close();
    throw error;
  }
}
