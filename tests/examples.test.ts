/**
 * Every example page in headless Chromium (SwiftShader), with a WebGL2 engine (the CPU backend) and with a
 * WebGPU engine (the WebGPU backend, drawn straight from its position buffer; the particle components the
 * checks read come from its readbacks): the page loads without console errors, runs the expected backend
 * and says so in its stats line; after some frames the screenshot shows water where the physics
 * says it is (the pixels the fluid changes, against a frame drawn without it, sit on the projected
 * particle positions, and few sit far from any particle) and differs from the first frame; each example's
 * own figure moves the right way (the glass fills, the tank drains, the dam-break front runs out, crates
 * float and a rock sinks in the pool, a click throws a crate); its debug pane (`FluidDebugPane`, collapsed
 * into its button during the run) lists the page's materials, backend and particle count once opened.
 * The input the help lines promise is played where it is the page's own: the pool's click on the canvas
 * throws a crate while clicks on the pane do not, its right-drag orbits; the pour's glass stays put under a
 * moving mouse and follows a left-button drag. The debug views and the pane's controls (render mode select,
 * a material slider that writes the component) are checked on dam-break, and dam-break/compare.html runs
 * its three solvers on the engine its URL asks for.
 *
 * The pages of one engine share one browser page (one context: Vite's pre-bundled Babylon chunks come from
 * its cache after the first page), opened afresh after a failure. A missing browser fails (it is never
 * skipped). Screenshots of failures, and of every case when EXAMPLE_SCREENSHOTS=dir is set, are written as
 * PNG files (default folder: test-artefacts/).
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

type Engine = 'webgl' | 'webgpu';

/** What the page's `window.fluidExample` offers (see examples/shared/exampleKit.ts). */
interface PageHandle {
  plugin: {
    paused: boolean;
    whiteWater?: { visible: boolean };
    renderMode: string;
    backend: string;
    particleBuffers: { gpuPositions?: unknown };
    readback(): Promise<void>;
    fluidRenderObject?: { object: { particleSize: number } };
    scene: { fluidRenderer?: { renderObjects: { object: { particleSize: number } }[] } };
    simulation: {
      particleCount: number;
      solver: string;
      stats: { stepCount: number; diffuseCount: number };
      diffuseParticles: { capacity: number };
      components: { FluidMaterial: { viscosity: Float64Array } };
    };
  };
  /** The page's `FluidDebugPane` (src/plugin/debugPane.ts), absent with `?panel=0`. */
  pane?: { expanded: boolean; element: HTMLElement; refresh(): void };
  engine: { isWebGPU: boolean };
  camera: { alpha: number; radius: number; getTarget(): { x: number; y: number; z: number } };
  frames: number;
  ready: boolean;
  projectParticles(): number[];
  projectDiffuseParticles(): number[];
  particleScreenRadius(): number;
  measure(): Record<string, number>;
}
type ExampleWindow = Window & { fluidExample?: PageHandle };
/** The pool case's count of the pointer presses and wheel turns that reach the page's window. */
type InputWindow = Window & { inputSeen?: { pointerdown: number; wheel: number } };

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

/** The CSS-pixel box of the debug pane's toggle button, and whether the pane is open. */
async function paneToggle(page: Page): Promise<{ x: number; y: number; width: number; height: number; open: boolean }> {
  return page.evaluate(() => {
    const pane = (window as ExampleWindow).fluidExample?.pane;
    const toggle = pane?.element.shadowRoot?.querySelector('button.toggle');
    if (!pane || !toggle) throw new Error('the page has no debug pane');
    const box = toggle.getBoundingClientRect();
    return { x: box.x, y: box.y, width: box.width, height: box.height, open: pane.expanded };
  });
}

/** Clicks the pane's toggle button with the mouse (a real click at its place) and returns the new state. */
async function clickPaneToggle(page: Page): Promise<boolean> {
  const box = await paneToggle(page);
  await page.mouse.click(box.x + box.width / 2, box.y + box.height / 2);
  return (await paneToggle(page)).open;
}

/** One example case: what the test expects of its own figure between the first and the last frame. */
interface ExampleCase {
  name: string;
  /** Frames to run after the page is ready. */
  frames: number;
  /** Names of the materials the page's debug pane lists, in entity order. */
  materials: string[];
  /** What the player does right after the first figures are taken (optional). */
  act?(page: Page): Promise<void>;
  check(first: Record<string, number>, last: Record<string, number>, engine: Engine): void;
  /** Input played after the screenshots and checks (the page is paused when it starts; optional). */
  after?(page: Page): Promise<void>;
  /** The case's time limit (ms), when it needs more than the default 240 s. */
  timeout?: number;
  /**
   * The engines the example runs on. Default both: a CPU-only example (its features not on the WebGPU
   * backend yet) lists `['webgl']`.
   */
  engines?: Engine[];
  /**
   * White water the page shows: `'shown'` has diffuse particles at the end of the run, `'on'` only has room
   * for them. Default: none.
   */
  whiteWater?: 'shown' | 'on';
  /** `?solver=` of the page (the pages with several fluids offer 'sph'); default the page's own (PBF). */
  solver?: 'sph';
}

/**
 * Oil (800 kg/m^3, non-polar) poured onto water (1000, polar) with interface tension. The tap runs for the
 * first 4 simulated seconds; 20 frames only see the start of the pour: oil particles arrive and nothing
 * blows up (the layering itself is measured in Node, see the example's comment).
 */
const oilOnWater: ExampleCase = {
  name: 'oil-on-water',
  frames: 20,
  materials: ['water', 'oil'],
  check(first, last) {
    for (const [name, value] of Object.entries(last)) expect(Number.isFinite(value), name).toBe(true);
    expect(last.oilCount).toBeGreaterThan(first.oilCount);
    expect(last.waterCount).toBe(first.waterCount);
    expect(last.waterTop).toBeLessThan(0.4);
    expect(last.oilHeight).toBeLessThan(0.5);
  },
};

const examples: ExampleCase[] = [
  {
    name: 'pour',
    whiteWater: 'on',
    frames: 16,
    materials: ['water'],
    async act(page) {
      // The help says the left button carries the glass: a mouse moved without it leaves the glass in place.
      await page.mouse.move(0.2 * viewport.width, 0.7 * viewport.height);
      await page.mouse.move(0.8 * viewport.width, 0.75 * viewport.height, { steps: 4 });
    },
    check(first, last) {
      // The glass fills: more particles in it, and a higher water level.
      expect(last.inGlass).toBeGreaterThan(first.inGlass + 10);
      expect(last.level).toBeGreaterThan(first.level);
      expect(Math.hypot(last.glassX, last.glassZ)).toBeLessThan(1e-6);
    },
    async after(page) {
      // A left-button drag to the right of the view carries the glass there (at most 1.2 m/s).
      await setPaused(page, false);
      await page.mouse.move(0.5 * viewport.width, 0.75 * viewport.height);
      await page.mouse.down();
      await page.mouse.move(0.85 * viewport.width, 0.75 * viewport.height, { steps: 4 });
      await waitFrames(page, 6);
      await page.mouse.up();
      const figures = await page.evaluate(() => (window as ExampleWindow).fluidExample?.measure() ?? {});
      expect(figures.glassX).toBeGreaterThan(0.05);
    },
  },
  {
    name: 'dam-break',
    frames: 10,
    whiteWater: 'shown',
    materials: ['water'],
    check(_first, last) {
      expect(last.front).toBeGreaterThan(0.9); // the 0.7 m block has run out
    },
  },
  {
    name: 'knot',
    whiteWater: 'on',
    frames: 12,
    materials: ['water'],
    check(first, last) {
      expect(last.nearKnot + first.nearKnot).toBeGreaterThan(0); // water reaches the knot
    },
  },
  {
    name: 'drain',
    frames: 12,
    materials: ['water'],
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
    whiteWater: 'on',
    frames: 30,
    materials: ['water'],
    // WebGPU in SwiftShader: about 40 steps at two or more frames each, with the screen-space fluid drawn.
    timeout: 360_000,
    async act(page) {
      // The debug pane takes its own input: opening it, a click and a wheel turn on its body and closing it
      // throw nothing (the check below counts exactly one crate thrown), reach no listener of the page's
      // window and leave the camera alone; closed, it leaves the view's middle to the canvas.
      await page.evaluate(() => {
        const seen = { pointerdown: 0, wheel: 0 };
        (window as InputWindow).inputSeen = seen;
        window.addEventListener('pointerdown', () => seen.pointerdown++);
        window.addEventListener('wheel', () => seen.wheel++);
      });
      const radius = () => page.evaluate(() => (window as ExampleWindow).fluidExample?.camera.radius ?? 0);
      const radiusBefore = await radius();
      expect(await clickPaneToggle(page)).toBe(true);
      const body = await page.evaluate(() => {
        const box = (window as ExampleWindow).fluidExample?.pane?.element.shadowRoot
          ?.querySelector('.body')
          ?.getBoundingClientRect();
        return box ? { x: box.x + box.width / 2, y: box.y + 12 } : undefined;
      });
      expect(body).toBeDefined();
      if (body) {
        await page.mouse.click(body.x, body.y);
        await page.mouse.wheel(0, 300);
      }
      expect(await clickPaneToggle(page)).toBe(false);
      await waitFrames(page, 2);
      expect(await page.evaluate(() => ({ ...(window as InputWindow).inputSeen }))).toEqual({
        pointerdown: 0,
        wheel: 0,
      });
      expect(await radius()).toBe(radiusBefore);
      const hit = await page.evaluate(({ x, y }) => document.elementFromPoint(x, y)?.id, {
        x: 0.5 * viewport.width,
        y: 0.5 * viewport.height,
      });
      expect(hit).toBe('renderCanvas');
      // Click the middle of the view (the water in front of the pool's center): a crate is thrown there (and
      // the page's window sees that press).
      await page.mouse.click(0.5 * viewport.width, 0.5 * viewport.height);
      expect(await page.evaluate(() => (window as InputWindow).inputSeen?.pointerdown)).toBe(1);
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
    async after(page) {
      // The help's right-drag orbits (turns the camera about its target; Babylon's default would pan) and
      // throws nothing.
      const camera = () =>
        page.evaluate(() => {
          const handle = (window as ExampleWindow).fluidExample as PageHandle;
          const target = handle.camera.getTarget();
          return {
            alpha: handle.camera.alpha,
            target: [target.x, target.y, target.z],
            thrown: handle.measure().thrown,
          };
        });
      const before = await camera();
      await page.mouse.move(0.4 * viewport.width, 0.6 * viewport.height);
      await page.mouse.down({ button: 'right' });
      await page.mouse.move(0.7 * viewport.width, 0.6 * viewport.height, { steps: 4 });
      await page.mouse.up({ button: 'right' });
      await waitFrames(page, 3);
      const orbited = await camera();
      expect(Math.abs(orbited.alpha - before.alpha)).toBeGreaterThan(0.05);
      for (let axis = 0; axis < 3; axis++) expect(orbited.target[axis]).toBeCloseTo(before.target[axis], 6);
      expect(orbited.thrown).toBe(before.thrown);
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
    materials: ['blue', 'red'],
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
  oilOnWater,
  {
    // The lava lamp with WCSPH (`?solver=sph`) on the CPU backend (the WebGPU backend's WCSPH with several
    // fluids is compared with the CPU in tests/sph-webgpu.test.ts): the red fluid warms and expands, the blue
    // stays above it, nothing blows up. Measured (WebGL, CPU backend, 105 steps): red 340.3 -> 377.6 K, its
    // highest particle 0.105 -> 0.120 m, blue mean height 0.256 -> 0.265 m, fastest 0.20 m/s.
    name: 'lava-lamp',
    solver: 'sph',
    engines: ['webgl'],
    frames: 20,
    materials: ['blue', 'red'],
    check(first, last) {
      for (const [name, value] of Object.entries(last)) expect(Number.isFinite(value), name).toBe(true);
      expect(last.redTemperature).toBeGreaterThan(first.redTemperature + 10);
      expect(last.blueHeight).toBeGreaterThan(last.redHeight + 0.1);
      expect(last.redHighest).toBeLessThan(0.45);
      expect(last.fastest).toBeLessThan(1.5);
    },
  },
  // Oil on water with WCSPH (`?solver=sph`), on the CPU backend: the same checks.
  { ...oilOnWater, solver: 'sph', engines: ['webgl'] },
  {
    // Trapped air (sections 3.4, 4.3), small particles: water pours into the glass; air particles appear under
    // the falling water and leave at the surface. Measured: water 248 -> 333, air 4 -> 9 (WebGL, CPU backend);
    // water 293 -> 573, air 11 -> 10 (WebGPU).
    name: 'glass-bubbles',
    frames: 20,
    materials: ['water', 'air'],
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
    materials: ['water', 'vapour'],
    check(first, last) {
      for (const [name, value] of Object.entries(last)) expect(Number.isFinite(value), name).toBe(true);
      expect(last.waterTemperature).toBeGreaterThan(first.waterTemperature);
      expect(last.water).toBeLessThanOrEqual(first.water);
    },
  },
];

/** Pauses or resumes the page's fluid. */
async function setPaused(page: Page, paused: boolean): Promise<void> {
  await page.evaluate((value) => {
    const handle = (window as ExampleWindow).fluidExample;
    if (handle) handle.plugin.paused = value;
  }, paused);
}

/** What the opened debug pane shows: its material names, backend and particle figures, and the live count. */
async function readPane(
  page: Page,
): Promise<{ materials: string[]; backend: string; particles: string; count: number }> {
  return page.evaluate(() => {
    const handle = (window as ExampleWindow).fluidExample as PageHandle;
    const root = handle.pane?.element.shadowRoot;
    if (!handle.pane || !root) throw new Error('the page has no debug pane');
    handle.pane.refresh();
    return {
      materials: [...root.querySelectorAll('.material')].map((heading) => heading.textContent ?? ''),
      backend: root.querySelector('[data-figure=backend]')?.textContent ?? '',
      particles: root.querySelector('[data-figure=particles]')?.textContent ?? '',
      count: handle.plugin.simulation.particleCount,
    };
  });
}

describe('examples in headless Chromium', () => {
  let server: ViteDevServer;
  let browser: Browser;
  let address = '';
  /** One page per engine, shared by its cases (see the file comment), with the errors of the current case. */
  const pages = new Map<Engine, { page: Page; errors: string[] }>();

  /** The engine's shared page, on about:blank with no errors recorded (opened on first use). */
  async function pageFor(engine: Engine): Promise<{ page: Page; errors: string[] }> {
    for (const other of [...pages.keys()]) if (other !== engine) await discardPage(other);
    let entry = pages.get(engine);
    if (!entry) {
      const context = await browser.newContext({ viewport });
      const page = await context.newPage();
      page.setDefaultTimeout(90_000);
      const errors: string[] = [];
      page.on('pageerror', (error) => errors.push(`pageerror: ${error.message}`));
      page.on('console', (message) => {
        if (message.type() === 'error') errors.push(`console: ${message.text()}`);
      });
      entry = { page, errors };
      pages.set(engine, entry);
    }
    // Leave the previous example first, so nothing it logs while going away counts against the next one.
    await entry.page.goto('about:blank');
    entry.errors.length = 0;
    return entry;
  }

  /** Closes the engine's page after a failure: the next case opens a fresh one. */
  async function discardPage(engine: Engine): Promise<void> {
    const entry = pages.get(engine);
    pages.delete(engine);
    await entry?.page.context().close();
  }

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
    for (const engine of [...pages.keys()]) await discardPage(engine);
    await browser?.close();
    await server?.close();
  });

  for (const engine of ['webgl', 'webgpu'] as const) {
    for (const example of examples.filter((candidate) => (candidate.engines ?? ['webgl', 'webgpu']).includes(engine))) {
      it(
        `${example.name}${example.solver ? ` ?solver=${example.solver}` : ''} (${engine}): water where the particles are, moving, no console errors`,
        async () => {
          expect(address).toBeTruthy();
          const { page, errors } = await pageFor(engine);
          const shots: Record<string, Buffer> = {};
          const label = `${example.name}${example.solver ? `-${example.solver}` : ''}-${engine}`;
          try {
            // The page as a player gets it, its debug pane collapsed into its button (the same in every shot).
            const solver = example.solver ? `&solver=${example.solver}` : '';
            await page.goto(`${address}${example.name}/?engine=${engine}&particles=small&mode=fluid${solver}`);
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
            await setPaused(page, true);
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
                diffuseCapacity: handle.plugin.simulation.diffuseParticles.capacity,
                diffuseCount: handle.plugin.simulation.stats.diffuseCount,
                stats: document.getElementById('stats')?.textContent ?? '',
              };
            });
            // The background: the same pipeline (Babylon's fluid renderer composites the scene through its
            // own passes, which shifts transparent objects a little) with the particles drawn at size 0.
            const hidden = await page.evaluate(() => {
              // Every render object: with several fluids each is a liquid of its own.
              const plugin = (window as ExampleWindow).fluidExample?.plugin;
              const objects = plugin?.scene.fluidRenderer?.renderObjects ?? [];
              for (const { object } of objects) object.particleSize = 0;
              return plugin?.fluidRenderObject !== undefined && objects.length > 0;
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
              diffuse: state.diffuseCount,
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
            if (example.solver) expect(state.stats).toContain(`(${example.solver}, `);
            expect(state.steps).toBeGreaterThan(10);
            expect(report.particles).toBeGreaterThan(20);
            expect(report.fluidPixels).toBeGreaterThan(200);
            expect(report.particlesOnFluid).toBeGreaterThan(0.6);
            expect(report.fluidFarFromParticles).toBeLessThan(0.1);
            expect(report.changedSinceFirst).toBeGreaterThan(0.003);
            example.check(firstFigures, state.figures, engine);
            // White water: on where the page asks for it, on both engines.
            const whiteWater = example.whiteWater;
            expect(state.diffuseCapacity > 0).toBe(whiteWater !== undefined);
            if (whiteWater === 'shown') {
              // The white water's own pixels: the water hidden (the background shot) with and without the
              // discs. They sit on the projected diffuse particles, as the water's pixels sit on the fluid's.
              expect(state.diffuseCount).toBeGreaterThan(0);
              const diffuse = await page.evaluate(() => {
                const handle = (window as ExampleWindow).fluidExample as PageHandle;
                if (handle.plugin.whiteWater) handle.plugin.whiteWater.visible = false;
                return handle.projectDiffuseParticles();
              });
              await waitFrames(page, 2);
              shots.withoutWhiteWater = await page.screenshot();
              const white = await compareFrames(
                page,
                shots.first,
                shots.background,
                shots.withoutWhiteWater,
                diffuse,
                state.radius,
              );
              console.log(`${label} white water: ${JSON.stringify(white)}`);
              expect(white.fluidPixels).toBeGreaterThan(100);
              expect(white.fluidFarFromParticles).toBeLessThan(0.1);
              await page.evaluate(() => {
                const plugin = ((window as ExampleWindow).fluidExample as PageHandle).plugin;
                if (plugin.whiteWater) plugin.whiteWater.visible = true;
              });
            }
            if (saveEveryScreenshot) saveShots(label, shots);
            // The debug pane, opened: the page's materials, its backend and the live particle count.
            expect(await clickPaneToggle(page)).toBe(true);
            const pane = await readPane(page);
            expect(pane.materials).toEqual(example.materials);
            expect(pane.backend).toBe(backend);
            expect(pane.particles).toMatch(new RegExp(`^${pane.count} / \\d+$`));
            expect(await clickPaneToggle(page)).toBe(false);
            await example.after?.(page);
            expect(errors).toEqual([]);
          } catch (error) {
            saveShots(`failed-${label}`, shots);
            await discardPage(engine);
            throw error;
          }
        },
        // SwiftShader and a busy 2-core machine: a page can take several times its usual 20-40 s.
        example.timeout ?? 240_000,
      );
    }

    it(`dam-break (${engine}): the debug views, and the debug pane's render mode and material slider`, async () => {
      const { page, errors } = await pageFor(engine);
      const shots: Record<string, Buffer> = {};
      const label = `dam-break-debug-views-${engine}`;
      try {
        // Without white water: its passes and discs are checked by the dam break's case above (on WebGPU its
        // compile costs SwiftShader about 20 s).
        await page.goto(`${address}dam-break/?engine=${engine}&particles=small&mode=spheres&whiteWater=0`);
        await page.addStyleTag({ content: '#stats, #help { display: none !important; }' });
        await page.waitForFunction(() => (window as ExampleWindow).fluidExample?.ready === true, undefined, {
          timeout: 120_000,
        });
        await waitFrames(page, 3);
        // Frozen, so the spheres, the particles projected from the components and the empty frame agree.
        await setPaused(page, true);
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
        // The pane: open it, pick 'none' in its render-mode selector, drag the water's viscosity slider to
        // three quarters (a real click on it), close it.
        expect(await clickPaneToggle(page)).toBe(true);
        await page.locator('select[data-control=renderMode]').selectOption('none');
        const slider = page.locator('input[data-control^="viscosity:"]');
        const before = await slider.evaluate((input) => Number((input as HTMLInputElement).value));
        // The pane's body scrolls within the canvas's height: bring the slider into view, then click it.
        await slider.scrollIntoViewIfNeeded();
        const box = await slider.boundingBox();
        expect(box).not.toBeNull();
        if (box) await slider.click({ position: { x: 0.75 * box.width, y: box.height / 2 } });
        const edit = await slider.evaluate((input) => {
          const element = input as HTMLInputElement;
          const handle = (window as ExampleWindow).fluidExample as PageHandle;
          const material = Number(element.dataset.control?.split(':')[1]);
          return {
            slider: Number(element.value),
            maximum: Number(element.max),
            component: handle.plugin.simulation.components.FluidMaterial.viscosity[material],
          };
        });
        expect(await clickPaneToggle(page)).toBe(false);
        await waitFrames(page, 2);
        const mode = await page.evaluate(() => (window as ExampleWindow).fluidExample?.plugin.renderMode);
        shots.none = await page.screenshot();
        // The spheres against the empty frame: drawn where the particles are (from the GPU's buffer on WebGPU).
        const report = await compareFrames(page, shots.none, shots.spheres, shots.none, state.projected, state.radius);
        console.log(`${label}: ${JSON.stringify({ ...report, zeroCopy: state.zeroCopy, before, edit })}`);
        expect(errors).toEqual([]);
        expect(mode).toBe('none');
        expect(edit.component).toBe(edit.slider);
        expect(edit.slider).not.toBe(before);
        expect(edit.slider).toBeCloseTo(0.75 * edit.maximum, 1);
        expect(state.zeroCopy).toBe(engine === 'webgpu');
        expect(shots.spheres.equals(shots.points)).toBe(false);
        expect(report.fluidPixels).toBeGreaterThan(200);
        expect(report.particlesOnFluid).toBeGreaterThan(0.9);
        if (saveEveryScreenshot) saveShots(label, shots);
      } catch (error) {
        saveShots(`failed-${label}`, shots);
        await discardPage(engine);
        throw error;
      }
    });

    it(`dam-break/compare.html?engine=${engine}: the three solvers, each on the requested engine`, async () => {
      const { page, errors } = await pageFor(engine);
      try {
        // Points: the three panes draw little, the check is about engines and backends.
        await page.goto(`${address}dam-break/compare.html?engine=${engine}&mode=points`);
        await expect.poll(() => page.frames().length, { timeout: 30_000 }).toBe(4);
        const frames = page.frames().filter((frame) => frame !== page.mainFrame());
        const panes = [];
        for (const frame of frames) {
          await frame.waitForFunction(
            () => {
              const handle = (window as ExampleWindow).fluidExample;
              return handle?.ready === true && handle.plugin.simulation.stats.stepCount > 3;
            },
            undefined,
            { timeout: 200_000, polling: 100 },
          );
          panes.push(
            await frame.evaluate(() => {
              const handle = (window as ExampleWindow).fluidExample as PageHandle;
              return {
                url: window.location.search,
                solver: handle.plugin.simulation.solver,
                webgpuEngine: handle.engine.isWebGPU,
                backend: handle.plugin.backend,
                pane: handle.pane !== undefined,
              };
            }),
          );
        }
        console.log(`compare-${engine}: ${JSON.stringify(panes)}`);
        expect(errors).toEqual([]);
        expect(panes.map((pane) => pane.solver).sort()).toEqual(['mps', 'pbf', 'sph']);
        for (const pane of panes) {
          expect(pane.webgpuEngine, pane.url).toBe(engine === 'webgpu');
          // Every solver runs on the WebGPU backend with a WebGPU engine (the plugin's 'auto' backend).
          expect(pane.backend, pane.url).toBe(engine === 'webgpu' ? 'webgpu' : 'cpu');
          expect(pane.pane, pane.url).toBe(false);
        }
      } catch (error) {
        await discardPage(engine);
        throw error;
      }
    }, 300_000);
  }
});

/** Writes the screenshots of one case as `label-name.png`. */
function saveShots(label: string, shots: Record<string, Buffer>): void {
  mkdirSync(artefacts, { recursive: true });
  for (const [name, png] of Object.entries(shots)) writeFileSync(join(artefacts, `${label}-${name}.png`), png);
}
