/**
 * The plugin's `colorBy` on the WebGPU backend (headless Chromium, SwiftShader; harness in tests/browser/):
 * a two-material scene drawn as spheres and as points, whose per-particle colors a GPU compute pass writes
 * (src/plugin/particleColors.wgsl). The GPU color buffer, read back, must equal the colors the CPU feed
 * computes for the same particles from their read-back components (particleFeed.ts, `writeParticleColor`):
 * - `'material'` and `'color'` (after game code dyed particles and called `markParticlesChanged`): exactly
 *   (both are float32 copies of the same values);
 * - `'speed'` and `'density'`: within 1e-5 per channel (float32 against float64 arithmetic on the same
 *   float32 velocities and densities; at the ranges used, 1 m/s and 0.5, the maps' slopes are at most 2.1 per
 *   m/s and 1.4 per unit of density deviation, so float32 rounding of the inputs moves a color by < 1e-6).
 * Also: the view binds the color buffer as its color vertex buffer, the rendered spheres (points) show
 * both materials' hues, and the screen-space water of the two materials then takes its per-particle tint
 * from the same buffer. A missing browser fails (it is never skipped).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { GpuColorsResult } from './browser/colors';
import { type GpuPage, openGpuPage } from './browser/driver';

describe('colorBy on the WebGPU backend', () => {
  let gpu: GpuPage;

  beforeAll(async () => {
    gpu = await openGpuPage();
  }, 300_000);

  afterAll(async () => {
    await gpu?.close();
  });

  for (const renderMode of ['spheres', 'points'] as const) {
    it(`the GPU color pass gives the CPU feed's colors (${renderMode})`, async () => {
      const result = await gpu.run<GpuColorsResult>('gpuColors', { renderMode });
      const lines = result.comparisons.map(
        (c) =>
          `${c.colorBy}: ${c.compared} places, max difference ${c.maxDifference.toExponential(2)}, ${c.mismatches} mismatches, ${c.distinct} distinct colors`,
      );
      console.log(
        `gpu colors (${renderMode}), ${result.particles} particles (${result.drawn} drawn), ${result.dyed} dyed, pixels blue ${result.bluePixels} yellow ${result.yellowPixels}:\n  ${lines.join('\n  ')}`,
      );
      expect(result.errors).toEqual([]);
      expect(result.backend).toBe('webgpu');
      expect(result.drawn).toBe(result.particles);
      expect(result.particles).toBeGreaterThan(300);
      expect(result.viewBindsColorBuffer).toBe(true);
      const by = Object.fromEntries(result.comparisons.map((c) => [c.colorBy, c]));
      for (const colorBy of ['material', 'speed', 'density', 'color']) {
        const comparison = by[colorBy];
        expect(comparison, colorBy).toBeDefined();
        expect(comparison.compared, colorBy).toBe(result.particles);
        expect(comparison.mismatches, colorBy).toBe(0);
      }
      expect(by.material.maxDifference).toBe(0);
      expect(by.color.maxDifference).toBe(0);
      expect(by.speed.maxDifference).toBeLessThanOrEqual(1e-5);
      expect(by.density.maxDifference).toBeLessThanOrEqual(1e-5);
      // Two materials, two colors; the maps and the dyes really vary from particle to particle.
      expect(by.material.distinct).toBe(2);
      expect(by.speed.distinct).toBeGreaterThan(10);
      expect(by.density.distinct).toBeGreaterThan(10);
      expect(by.color.distinct).toBeGreaterThan(10);
      for (const colorBy of ['speed', 'density', 'color']) expect(by[colorBy].changed, colorBy).toBe(true);
      expect(result.viewReady).toBe(true);
      // Each material's hue on screen (the single-color views drew only the first particle's material).
      expect(result.bluePixels).toBeGreaterThan(20);
      expect(result.yellowPixels).toBeGreaterThan(20);
      // The water of two materials takes its tint per particle from the same GPU color buffer.
      expect(result.fluidDiffuse).toBe(true);
      expect(result.fluidBindsColorBuffer).toBe(true);
      expect(result.fluidReady).toBe(true);
      expect(gpu.consoleErrors).toEqual([]);
    }, 300_000);
  }
});
