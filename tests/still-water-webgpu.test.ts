/**
 * Still water on the WebGPU backend (headless Chromium, SwiftShader; every default, so the coarse pressure
 * projection of projection/gpu.ts runs): the resting pools of tests/still-water.test.ts, held to the same
 * bounds as the CPU's. Before the projection ran on the GPU, a column 30 deep in a 0.2 m box boiled there at
 * 0.74 m/s (fastest 4.6 m/s) after 4 s. The two pools here are the slowest and the coarsest of the CPU's
 * cases that SwiftShader steps in about two minutes together; a missing browser fails.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type GpuPage, openGpuPage } from './browser/driver';
import type { GpuRestFigures, RestingPoolOptions } from './browser/projection';

describe('still water on the WebGPU backend: a pool at rest stays at rest (defaults)', () => {
  let gpu: GpuPage;

  beforeAll(async () => {
    gpu = await openGpuPage();
  }, 300_000);

  afterAll(async () => {
    await gpu?.close();
  });

  /**
   * The pool of `options` on the GPU, with the checks every case shares: all particles there, the projection
   * ran (its iterations come with the readback) and converged within its limit (200), no particle 3 spacings
   * above the surface, no console error.
   */
  async function restingPool(name: string, options: RestingPoolOptions): Promise<GpuRestFigures> {
    const figures = await gpu.run<GpuRestFigures>('restingPool', options);
    console.log(
      `still water on WebGPU, ${name}, 4 s: mean speed ${figures.meanSpeed.toFixed(4)} m/s, fastest ${figures.fastest.toFixed(3)} m/s, ` +
        `p99 surface ${(100 * figures.surfaceError).toFixed(1)}% of the rest height, highest particle ` +
        `${figures.highestAbove.toFixed(2)} spacings above it; the last substep's conjugate gradient ` +
        `iterations ${figures.projectionIterations}`,
    );
    expect(figures.count).toBe(100 * options.depth);
    expect(figures.projectionIterations).toBeGreaterThan(0);
    expect(figures.projectionIterations).toBeLessThan(200);
    expect(figures.highestAbove).toBeLessThan(3);
    expect(gpu.consoleErrors).toEqual([]);
    return figures;
  }

  // The defaults (the still-water mode, projection.freeSurface): the targets, as on the CPU.
  const cases: [depth: number, radius: number][] = [
    [30, 0.01],
    [10, 0.025],
  ];
  for (const [depth, radius] of cases) {
    const name = `${depth} particles deep, r = ${radius} m, spawned at rest`;
    it(`${name}: after 4 s the issue's targets (0.01 m/s, 0.1 m/s, 3%)`, { timeout: 400_000 }, async () => {
      const figures = await restingPool(name, { depth, radius, seconds: 4 });
      // The CPU's figures (tests/still-water.test.ts): 0.0049 m/s, 0.022 m/s, +0.2% (30 deep, r = 1 cm) and
      // 0.0084 m/s, 0.035 m/s, +2.6% (10 deep, r = 2.5 cm); measured here (the same in every run, the GPU's
      // sort being stable) 0.0045 m/s, 0.019 m/s, +0.3% and 0.0074 m/s, 0.028 m/s, +2.2%.
      expect(figures.meanSpeed).toBeLessThan(0.01);
      expect(figures.fastest).toBeLessThan(0.1);
      expect(Math.abs(figures.surfaceError)).toBeLessThan(0.03);
    });
  }

  it('with projection.freeSurface false, 10 particles deep, r = 0.025 m: after 4 s mean speed < 0.03 m/s, fastest < 0.2 m/s, surface in place', {
    timeout: 400_000,
  }, async () => {
    const figures = await restingPool('freeSurface false, 10 deep, r = 0.025 m', {
      depth: 10,
      radius: 0.025,
      seconds: 4,
      freeSurface: false,
    });
    // The CPU's bounds with the surface layers left to the density constraints (tests/still-water.test.ts);
    // measured on the CPU 0.0230 m/s and 0.094 m/s, here 0.0231 m/s and 0.099 m/s (the same in every run since
    // the GPU's sort is stable; before, runs read 0.0169 to 0.0382 m/s).
    expect(figures.meanSpeed).toBeLessThan(0.03);
    expect(figures.fastest).toBeLessThan(0.2);
    expect(Math.abs(figures.surfaceError) * 10).toBeLessThan(0.6);
  });
});
