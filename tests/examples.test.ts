/**
 * Every example page in headless Chromium (SwiftShader), with a WebGL2 engine (the CPU backend) and with a
 * WebGPU engine (the WebGPU backend, drawn straight from its position buffer; the particle components the
 * checks read come from its readbacks): the page loads without console errors, runs the expected backend
 * and says so in its stats line; after some frames the screenshot shows water where the physics
 * says it is (the pixels the fluid changes, against a frame drawn without it, sit on the projected
 * particle positions, and few sit far from any particle) and differs from the first frame; each example's
 * own figure moves the right way (the glass fills, the tank drains, the dam-break front runs out, crates
 * float and a rock sinks in the pool, a click throws a crate).
 *
 * A missing browser fails (it is never skipped). Screenshots of failures, and of every case when
 * EXAMPLE_SCREENSHOTS=dir is set, are written as PNG files (default folder: test-artefacts/).
 */
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { type Browser, chromium, type Page } from 'playwright-core';
import { createServer, type ViteDevServer } from 'vite';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { browserArguments, executablePath } from './browser/driver';

const artefacts = resolve(process.env.EXAMPLE_SCREENSHOTS ?? 'test-artefacts');
const saveEveryScreenshot = process.env.EXAMPLE_SCREENSHOTS !== undefined;
const viewport = { width: 480, height: 360 };

/** What the page's `window.fluidExample` offers (see examples/shared/exampleKit.ts). */
interface PageHandle {
  plugin: {
    paused: boolean;
    renderMode: string;
    backend: string;
    particleBuffers: { gpuPositions?: unknown };
    readback(): Promise<void>;
    fluidRenderObject?: { object: { particleSize: number } };
    simulation: { particleCount: number; stats: { stepCount: number } };
  };
  frames: number;
  ready: boolean;
  projectParticles(): number[];
  particleScreenRadius(): number;
  measure(): Record<string, number>;
}
type ExampleWindow = Window & { fluidExample?: PageHandle };

/** Result of comparing a fluid frame with the same frame drawn without the fluid. */
interface MaskReport {
  /** Pixels the fluid changed. */
  fluidPixels: number;
  /** Projected particles inside the view, and the share of them with a fluid pixel nearby. */
  particles: number;
  particlesOnFluid: number;
  /** Share of fluid pixels farther than the tolerance from every projected particle. */
  fluidFarFromParticles: number;
  /** Share of pixels that differ between the first frame and the fluid frame. */
  changedSinceFirst: number;
}

/**
 * Compares, in the page (the browser decodes the PNGs), the fluid frame with the background frame and
 * the first frame, against the projected particles.
 */
async function compareFrames(
  page: Page,
  first: Buffer,
  fluid: Buffer,
  background: Buffer,
  projected: number[],
  particleRadius: number,
): Promise<MaskReport> {
  return page.evaluate(
    async ({ first, fluid, background, projected, particleRadius }) => {
      const decode = async (base64: string): Promise<ImageData> => {
        const image = new Image();
        image.src = `data:image/png;base64,${base64}`;
        await image.decode();
        const canvas = document.createElement('canvas');
        canvas.width = image.width;
        canvas.height = image.height;
        const context = canvas.getContext('2d') as CanvasRenderingContext2D;
        context.drawImage(image, 0, 0);
        return context.getImageData(0, 0, image.width, image.height);
      };
      const [a, f, b] = await Promise.all([decode(first), decode(fluid), decode(background)]);
      const { width, height } = f;
      const fluidMask = new Uint8Array(width * height);
      let fluidPixels = 0;
      let changed = 0;
      for (let p = 0; p < width * height; p++) {
        const o = 4 * p;
        const difference =
          Math.abs(f.data[o] - b.data[o]) +
          Math.abs(f.data[o + 1] - b.data[o + 1]) +
          Math.abs(f.data[o + 2] - b.data[o + 2]);
        if (difference > 24) {
          fluidMask[p] = 1;
          fluidPixels++;
        }
        const sinceFirst =
          Math.abs(f.data[o] - a.data[o]) +
          Math.abs(f.data[o + 1] - a.data[o + 1]) +
          Math.abs(f.data[o + 2] - a.data[o + 2]);
        if (sinceFirst > 24) changed++;
      }
      // Stamp a disc around every projected particle: what the fluid may cover (particle size, blur).
      const reach = Math.ceil(3 * particleRadius + 8);
      const near = new Uint8Array(width * height);
      const hitRadius = Math.ceil(Math.max(3, 1.5 * particleRadius));
      let particles = 0;
      let onFluid = 0;
      for (let k = 0; k < projected.length; k += 2) {
        const x = Math.round(projected[k]);
        const y = Math.round(projected[k + 1]);
        if (x < 0 || y < 0 || x >= width || y >= height) continue;
        particles++;
        let hit = false;
        for (let dy = -reach; dy <= reach; dy++) {
          const row = y + dy;
          if (row < 0 || row >= height) continue;
          for (let dx = -reach; dx <= reach; dx++) {
            const column = x + dx;
            if (column < 0 || column >= width || dx * dx + dy * dy > reach * reach) continue;
            near[row * width + column] = 1;
            if (!hit && dx * dx + dy * dy <= hitRadius * hitRadius && fluidMask[row * width + column]) hit = true;
          }
        }
        if (hit) onFluid++;
      }
      let far = 0;
      for (let p = 0; p < width * height; p++) if (fluidMask[p] && !near[p]) far++;
      return {
        fluidPixels,
        particles,
        particlesOnFluid: particles > 0 ? onFluid / particles : 0,
        fluidFarFromParticles: fluidPixels > 0 ? far / fluidPixels : 1,
        changedSinceFirst: changed / (width * height),
      };
    },
    {
      first: first.toString('base64'),
      fluid: fluid.toString('base64'),
      background: background.toString('base64'),
      projected,
      particleRadius,
    },
  );
}

/** Waits until the page has drawn `count` more frames. */
async function waitFrames(page: Page, count: number): Promise<void> {
  const start = await page.evaluate(() => (window as ExampleWindow).fluidExample?.frames ?? 0);
  await page.waitForFunction(
    (target) => ((window as ExampleWindow).fluidExample?.frames ?? 0) >= target,
    start + count,
    { timeout: 120_000, polling: 50 },
  );
}

/** One example case: what the test expects of its own figure between the first and the last frame. */
interface ExampleCase {
  name: string;
  /** Frames to run after the page is ready. */
  frames: number;
  /** What the player does right after the first figures are taken (optional). */
  act?(page: Page): Promise<void>;
  check(first: Record<string, number>, last: Record<string, number>, engine: 'webgl' | 'webgpu'): void;
  /** The case's time limit (ms), when it needs more than the default 240 s. */
  timeout?: number;
  /**
   * The engines the example runs on. Default both: a CPU-only example (its features not on the WebGPU
   * backend yet) lists `['webgl']`.
   */
  engines?: ('webgl' | 'webgpu')[];
}

const examples: ExampleCase[] = [
  {
    name: 'pour',
    frames: 16,
    check(first, last) {
      // The glass fills: more particles in it, and a higher water level.
      expect(last.inGlass).toBeGreaterThan(first.inGlass + 10);
      expect(last.level).toBeGreaterThan(first.level);
    },
  },
  {
    name: 'dam-break',
    frames: 10,
    check(_first, last) {
      expect(last.front).toBeGreaterThan(0.9); // the 0.7 m block has run out
    },
  },
  {
    name: 'knot',
    frames: 12,
    check(first, last) {
      expect(last.nearKnot + first.nearKnot).toBeGreaterThan(0); // water reaches the knot
    },
  },
  {
    name: 'drain',
    frames: 12,
    check(first, last) {
      expect(last.drained).toBeGreaterThan(first.drained);
      expect(last.remaining).toBeLessThan(first.remaining);
    },
  },
  {
    // Havok bodies coupled both ways (heights in m above the pool's floor; the water's surface is about
    // 0.26 m high with the small particles). The crates are released 2 cm above the surface and the rock
    // from 0.52 m: after 0.6 s of simulated time a crate without the water's impulses would lie on the
    // floor (center 0.075 m) and the rock has had time to reach it.
    name: 'pool',
    frames: 30,
    // WebGPU in SwiftShader: about 40 steps at two or more frames each, with the screen-space fluid drawn.
    timeout: 360_000,
    async act(page) {
      // Click the middle of the view (the water in front of the pool's center): a crate is thrown there.
      await page.mouse.click(0.5 * viewport.width, 0.5 * viewport.height);
      // On the WebGPU backend the plugin runs one fluid-and-physics pair per frame once the last step's
      // readback has arrived: in SwiftShader that is about two frames a step, so wait for 0.62 s of
      // simulated time (the CPU backend has it within the 30 frames).
      await page.waitForFunction(
        () => ((window as ExampleWindow).fluidExample?.measure().time ?? 0) > 0.62,
        undefined,
        {
          timeout: 240_000,
          polling: 200,
        },
      );
    },
    check(first, last) {
      for (const [name, value] of Object.entries(last)) expect(Number.isFinite(value), name).toBe(true);
      // The click threw one crate.
      expect(last.thrown).toBe(first.thrown + 1);
      expect(last.crates).toBe(first.crates + 1);
      expect(last.time).toBeGreaterThan(0.6);
      expect(last.waterLevel).toBeGreaterThan(0.2);
      expect(last.waterLevel).toBeLessThan(0.34);
      // The placed crates (density 500, 0.15 m tall) float half submerged: center at the surface, within
      // 0.07 m, under half their height (sunk, a center would be 0.18 m below the surface; lying on the
      // water without sinking in, 0.075 m above it plus the 2-4 cm by which the measured level, from the
      // surface particles' centers, lies below the crates' waterline); the lowest well above the rock.
      expect(Math.abs(last.crateHeight - last.waterLevel)).toBeLessThan(0.07);
      expect(last.lowestCrateHeight).toBeGreaterThan(last.waterLevel - 0.07);
      expect(last.lowestCrateHeight).toBeGreaterThan(last.rockHeight + 0.1);
      // The rock (density 2500) sank: its lowest point within 2 cm of the floor.
      expect(last.rockClearance).toBeLessThan(0.02);
      expect(last.rockClearance).toBeGreaterThan(-0.02);
      // The boat floats upright, partly submerged: its hull's center from 0.04 m below to 0.08 m above the
      // measured level (sunk it would be 0.1 m above the floor; lying on the water, with its 6 cm keel
      // out of it, 0.13 m above the level), rocking but tilted less than 1 rad (capsized: over 1.57).
      expect(last.boatHeight - last.waterLevel).toBeGreaterThan(-0.04);
      expect(last.boatHeight - last.waterLevel).toBeLessThan(0.08);
      expect(last.boatTilt).toBeLessThan(1);
    },
  },
  {
    // Temperature-dependent density, interface tension, collider heat; small particles (1024, r = 0.0125 m).
    // The page steps with the frame time, so the first figures already come after some heating. Measured
    // (WebGL/CPU, 102 steps in all; WebGPU 86 steps): red mean 340.8/318.6 K at the first figures and
    // 398.6/385.0 K after the 20 frames, its highest particle 0.101/0.096 m then 0.140/0.136 m (the filled
    // red layer's top row is at 0.0625 m: the heated red fluid expands and rises), blue mean height
    // 0.24-0.26 m, fastest particle 0.53-0.64 m/s.
    name: 'lava-lamp',
    frames: 20,
    check(first, last) {
      for (const [name, value] of Object.entries(last)) expect(Number.isFinite(value), name).toBe(true);
      expect(first.redTemperature).toBeGreaterThan(283.15);
      expect(last.redTemperature).toBeGreaterThan(first.redTemperature + 10);
      expect(last.redHighest).toBeGreaterThan(0.12);
      expect(last.redHighest).toBeLessThan(0.45);
      expect(last.blueHeight).toBeGreaterThan(last.redHeight + 0.1);
      expect(last.fastest).toBeLessThan(1.5);
    },
  },
  {
    // Oil (800 kg/m^3, non-polar) poured onto water (1000, polar) with interface tension. The tap runs for
    // the first 4 simulated seconds; 20 frames only see the start of the pour: oil particles arrive and
    // nothing blows up (the layering itself is measured in Node, see the example's comment).
    name: 'oil-on-water',
    frames: 20,
    check(first, last) {
      for (const [name, value] of Object.entries(last)) expect(Number.isFinite(value), name).toBe(true);
      expect(last.oilCount).toBeGreaterThan(first.oilCount);
      expect(last.waterCount).toBe(first.waterCount);
      expect(last.waterTop).toBeLessThan(0.4);
      expect(last.oilHeight).toBeLessThan(0.5);
    },
  },
  {
    // Trapped air (sections 3.4, 4.3), small particles: water pours into the glass; air particles appear under
    // the falling water and leave at the surface. Measured: water 248 -> 333, air 4 -> 9 (WebGL, CPU backend);
    // water 293 -> 573, air 11 -> 10 (WebGPU).
    name: 'glass-bubbles',
    frames: 20,
    check(first, last) {
      for (const [name, value] of Object.entries(last)) expect(Number.isFinite(value), name).toBe(true);
      expect(last.water).toBeGreaterThan(first.water);
      expect(last.air).toBeLessThanOrEqual(200);
    },
  },
  {
    // Boiling (section 4.4), small particles: the beaker warms over the burner. Measured: 315.8 -> 337.5 K,
    // water 180 -> 178 (WebGL, CPU backend); 309.7 -> 364.9 K, water 180 -> 174 (WebGPU).
    name: 'boiling',
    frames: 20,
    check(first, last) {
      for (const [name, value] of Object.entries(last)) expect(Number.isFinite(value), name).toBe(true);
      expect(last.waterTemperature).toBeGreaterThan(first.waterTemperature);
      expect(last.water).toBeLessThanOrEqual(first.water);
    },
  },
];

describe('examples in headless Chromium', () => {
  let server: ViteDevServer;
  let browser: Browser;
  let address = '';

  beforeAll(async () => {
    if (!existsSync(executablePath)) {
      throw new Error(
        `Chromium not found at ${executablePath}: install it (apt-get install -y chromium) or set CHROMIUM_PATH`,
      );
    }
    server = await createServer({
      configFile: 'vite.config.ts',
      // Its own dependency cache: a Vite server of another test run (the WebGPU harness) optimises other
      // entries into the default cache folder and would swap the files this one serves mid-run.
      cacheDir: 'node_modules/.vite-examples',
      // No file watching or hot reload: an edit during the run must not reload a page under test.
      server: { port: 0, strictPort: false, hmr: false, watch: null },
      logLevel: 'error',
    });
    await server.listen();
    address = server.resolvedUrls?.local[0] ?? '';
    browser = await chromium.launch({ executablePath, args: browserArguments });
  });

  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  for (const engine of ['webgl', 'webgpu'] as const) {
    for (const example of examples.filter((candidate) => (candidate.engines ?? ['webgl', 'webgpu']).includes(engine))) {
      it(
        `${example.name} (${engine}): water where the particles are, moving, no console errors`,
        async () => {
          expect(address).toBeTruthy();
          const page = await browser.newPage({ viewport });
          page.setDefaultTimeout(90_000);
          const errors: string[] = [];
          page.on('pageerror', (error) => errors.push(`pageerror: ${error.message}`));
          page.on('console', (message) => {
            if (message.type() === 'error') errors.push(`console: ${message.text()}`);
          });
          const shots: Record<string, Buffer> = {};
          const label = `${example.name}-${engine}`;
          try {
            await page.goto(`${address}${example.name}/?engine=${engine}&particles=small&panel=0&mode=fluid`);
            // The DOM overlays change from frame to frame; the masks compare only the canvas.
            await page.addStyleTag({ content: '#stats, #help { display: none !important; }' });
            await page.waitForFunction(() => (window as ExampleWindow).fluidExample?.ready === true, undefined, {
              timeout: 200_000,
              polling: 100,
            });
            await waitFrames(page, 2);
            shots.first = await page.screenshot();
            const firstFigures = await page.evaluate(() => (window as ExampleWindow).fluidExample?.measure() ?? {});
            await example.act?.(page);
            await waitFrames(page, example.frames);
            // Freeze the physics, draw with and without the fluid, and project the particles.
            await page.evaluate(() => {
              const handle = (window as ExampleWindow).fluidExample;
              if (handle) handle.plugin.paused = true;
            });
            await waitFrames(page, 2);
            shots.fluid = await page.screenshot();
            const state = await page.evaluate(async () => {
              const handle = (window as ExampleWindow).fluidExample as PageHandle;
              // WebGPU backend: the components of the last step (a readback per step may still be missing
              // when several steps ran in one frame); at once on the CPU.
              await handle.plugin.readback();
              return {
                projected: handle.projectParticles(),
                radius: handle.particleScreenRadius(),
                figures: handle.measure(),
                steps: handle.plugin.simulation.stats.stepCount,
                backend: handle.plugin.backend,
                zeroCopy: handle.plugin.particleBuffers.gpuPositions !== undefined,
                stats: document.getElementById('stats')?.textContent ?? '',
              };
            });
            // The background: the same pipeline (Babylon's fluid renderer composites the scene through its
            // own passes, which shifts transparent objects a little) with the particles drawn at size 0.
            const hidden = await page.evaluate(() => {
              const object = (window as ExampleWindow).fluidExample?.plugin.fluidRenderObject?.object;
              if (object) object.particleSize = 0;
              return object !== undefined;
            });
            expect(hidden).toBe(true);
            await waitFrames(page, 2);
            shots.background = await page.screenshot();
            const report = await compareFrames(
              page,
              shots.first,
              shots.fluid,
              shots.background,
              state.projected,
              state.radius,
            );
            const summary = {
              ...report,
              steps: state.steps,
              backend: state.backend,
              first: firstFigures,
              last: state.figures,
            };
            console.log(`${label}: ${JSON.stringify(summary)}`);
            expect(errors).toEqual([]);
            // WebGPU engines run the WebGPU backend (the plugin's default 'auto') and draw from its buffer.
            const backend = engine === 'webgpu' ? 'webgpu' : 'cpu';
            expect(state.backend).toBe(backend);
            expect(state.zeroCopy).toBe(engine === 'webgpu');
            expect(state.stats).toContain(`| ${backend} |`);
            expect(state.steps).toBeGreaterThan(10);
            expect(report.particles).toBeGreaterThan(20);
            expect(report.fluidPixels).toBeGreaterThan(200);
            expect(report.particlesOnFluid).toBeGreaterThan(0.6);
            expect(report.fluidFarFromParticles).toBeLessThan(0.1);
            expect(report.changedSinceFirst).toBeGreaterThan(0.003);
            example.check(firstFigures, state.figures, engine);
            if (saveEveryScreenshot) saveShots(label, shots);
          } catch (error) {
            saveShots(`failed-${label}`, shots);
            throw error;
          } finally {
            await page.close();
          }
        },
        // SwiftShader and a busy 2-core machine: a page can take several times its usual 20-40 s.
        example.timeout ?? 240_000,
      );
    }
  }

  for (const engine of ['webgl', 'webgpu'] as const) {
    it(`dam-break (${engine}): the debug views and the tuning panel render without errors`, async () => {
      const page = await browser.newPage({ viewport });
      page.setDefaultTimeout(90_000);
      const errors: string[] = [];
      page.on('pageerror', (error) => errors.push(`pageerror: ${error.message}`));
      page.on('console', (message) => {
        if (message.type() === 'error') errors.push(`console: ${message.text()}`);
      });
      const shots: Record<string, Buffer> = {};
      const label = `dam-break-debug-views-${engine}`;
      try {
        await page.goto(`${address}dam-break/?engine=${engine}&particles=small&mode=spheres`);
        await page.addStyleTag({ content: '#stats, #help { display: none !important; }' });
        await page.waitForFunction(() => (window as ExampleWindow).fluidExample?.ready === true, undefined, {
          timeout: 120_000,
        });
        await waitFrames(page, 3);
        // Frozen, so the spheres, the particles projected from the components and the empty frame agree.
        await page.evaluate(() => {
          const handle = (window as ExampleWindow).fluidExample;
          if (handle) handle.plugin.paused = true;
        });
        await waitFrames(page, 2);
        shots.spheres = await page.screenshot();
        const state = await page.evaluate(async () => {
          const handle = (window as ExampleWindow).fluidExample as PageHandle;
          await handle.plugin.readback();
          return {
            projected: handle.projectParticles(),
            radius: handle.particleScreenRadius(),
            zeroCopy: handle.plugin.particleBuffers.gpuPositions !== undefined,
          };
        });
        await page.evaluate(() => {
          const handle = (window as ExampleWindow).fluidExample;
          if (handle) handle.plugin.renderMode = 'points';
        });
        await waitFrames(page, 3);
        shots.points = await page.screenshot();
        // Click the panel's render-mode button (top right): points -> none.
        await page.mouse.click(viewport.width - 123, 246);
        await waitFrames(page, 2);
        const mode = await page.evaluate(() => (window as ExampleWindow).fluidExample?.plugin.renderMode);
        shots.none = await page.screenshot();
        // The spheres against the empty frame: drawn where the particles are (from the GPU's buffer on WebGPU).
        // (The panel's button text changes too, so pixels far from the particles are not counted against.)
        const report = await compareFrames(page, shots.none, shots.spheres, shots.none, state.projected, state.radius);
        console.log(`${label}: ${JSON.stringify({ ...report, zeroCopy: state.zeroCopy })}`);
        expect(errors).toEqual([]);
        expect(mode).toBe('none');
        expect(state.zeroCopy).toBe(engine === 'webgpu');
        expect(shots.spheres.equals(shots.points)).toBe(false);
        expect(report.fluidPixels).toBeGreaterThan(200);
        expect(report.particlesOnFluid).toBeGreaterThan(0.9);
        if (saveEveryScreenshot) saveShots(label, shots);
      } catch (error) {
        saveShots(`failed-${label}`, shots);
        throw error;
      } finally {
        await page.close();
      }
    });
  }
});

/** Writes the screenshots of one case as `label-name.png`. */
function saveShots(label: string, shots: Record<string, Buffer>): void {
  mkdirSync(artefacts, { recursive: true });
  for (const [name, png] of Object.entries(shots)) writeFileSync(join(artefacts, `${label}-${name}.png`), png);
}
