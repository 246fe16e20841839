/**
 * The dam-break example in headless Chromium (WebGL2 through SwiftShader): the page loads, the simulation
 * steps, and the canvas shows water-coloured particles. A missing browser fails in CI; locally, set
 * CHROMIUM_PATH or install Debian's chromium.
 */
import { existsSync } from 'node:fs';
import { type Browser, chromium } from 'playwright-core';
import { createServer, type ViteDevServer } from 'vite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';

const executablePath = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const browserArguments = [
  '--no-sandbox',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  '--use-angle=swiftshader',
  '--enable-unsafe-swiftshader',
];

describe('dam-break example in headless Chromium', () => {
  let server: ViteDevServer;
  let browser: Browser;

  beforeAll(async () => {
    if (!existsSync(executablePath)) {
      throw new Error(
        `Chromium not found at ${executablePath}: install it (apt-get install -y chromium) or set CHROMIUM_PATH`,
      );
    }
    server = await createServer({
      configFile: 'vite.config.ts',
      server: { port: 0, strictPort: false },
      logLevel: 'error',
    });
    await server.listen();
    browser = await chromium.launch({ executablePath, args: browserArguments });
  });

  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  it('renders water particles that move', async () => {
    const address = server.resolvedUrls?.local[0];
    expect(address).toBeTruthy();
    const page = await browser.newPage({ viewport: { width: 640, height: 480 } });
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));
    await page.goto(`${address}dam-break/`);
    await page.waitForFunction(
      () => {
        const example = (window as unknown as { fluidExample?: { simulation: () => { stats: { stepCount: number } } } })
          .fluidExample;
        return example !== undefined && example.simulation().stats.stepCount > 20;
      },
      undefined,
      { timeout: 90_000 },
    );
    const state = await page.evaluate(() => {
      const example = (
        window as unknown as {
          fluidExample: {
            simulation: () => { particleCount: number; particles(): Uint32Array; Position: { x: Float64Array } };
          };
        }
      ).fluidExample;
      const simulation = example.simulation();
      let front = 0;
      for (const eid of simulation.particles()) front = Math.max(front, simulation.Position.x[eid]);
      return { count: simulation.particleCount, front, stats: document.getElementById('stats')?.textContent ?? '' };
    });
    expect(errors).toEqual([]);
    expect(state.count).toBe(14 * 18 * 16);
    expect(state.front).toBeGreaterThan(0.7); // the block (0.7 m wide) has started to run out
    expect(state.stats).toMatch(/particles \d+ \| step [\d.]+ ms/);
    // Count bluish pixels (water) on the WebGL canvas (drawn with preserveDrawingBuffer).
    const pixels = await page.evaluate(() => {
      const canvas = document.getElementById('renderCanvas') as HTMLCanvasElement;
      const copy = document.createElement('canvas');
      copy.width = canvas.width;
      copy.height = canvas.height;
      const context = copy.getContext('2d') as CanvasRenderingContext2D;
      context.drawImage(canvas, 0, 0);
      const data = context.getImageData(0, 0, copy.width, copy.height).data;
      let water = 0;
      for (let p = 0; p < data.length; p += 4) if (data[p + 2] > 150 && data[p + 2] > data[p] + 60) water++;
      return { water, total: copy.width * copy.height };
    });
    if (process.env.EXAMPLE_SCREENSHOT) await page.screenshot({ path: process.env.EXAMPLE_SCREENSHOT });
    await page.close();
    expect(pixels.water / pixels.total).toBeGreaterThan(0.02);
  });
});
