/**
 * The water's anisotropic particles in headless Chromium (harness in tests/browser/, scenarios in
 * tests/browser/ellipsoids.ts; docs/rendering.md, "Anisotropic particles"). A missing browser fails.
 *
 * - The GPU pass against the CPU: a pool with a block of a second material falling into it (624 particles,
 *   r = 3 cm), saved and restored on both backends, one step each, the default options (motion stretch on).
 *   The states then differ by float32 rounding (positions by up to 3.2e-5 m measured); the ellipsoids follow:
 *   centres within 3.6e-5 m, shape matrices within 7.7e-4 R^2 (R the drawn radius, 4.8 cm), the material slots
 *   equal for every particle (both materials present). Bounds 1e-4 m, 2e-3 R^2 and 0. On the WebGPU backend
 *   `writeEllipsoids` refuses (the plugin computes them on the GPU).
 * - What the water draws, with and without anisotropy, on WebGPU (GPU backend) and WebGL2 (CPU backend; the
 *   CPU backend on WebGPU gives the same figures), read from Babylon's fluid renderer's depth textures (160 x 160 px):
 *   - a tap's jet (the pour example's nozzle: radius 2.5 r, 1.2 m/s, r = 1 cm) falling 0.5 m: the rows of its
 *     axis from 2 cm under the nozzle down to 0.12 m. As spheres the falling layers, which separate by v dt as
 *     they speed up, leave gaps (measured 5 rows of 123, the longest 2 px); as anisotropic particles, stretched
 *     along their velocity over one step, none (bound: 0).
 *   - a resting pool (r = 1 cm, 10 deep, 0.36 m square) seen from 0.4 m above: the RMS over the middle half
 *     of the image of z^2 times the second difference of 1/z (0 for a plane in perspective). Spheres: 1.02 mm
 *     unblurred, 0.0273 mm after Babylon's bilateral blur; anisotropic: 0.56 mm and 0.0167 mm. Bounds: 0.7 mm
 *     and 0.02 mm, and at most 0.75 times the spheres' blurred figure. Its drawn surface lies 3.1 mm above the
 *     top particles' centres (spheres: 13.2 mm; the water's surface is about r = 10 mm above them); bound: 0 to
 *     r.
 * - Several fluids: a red cube (1000 kg/m^3) inside a blue block (500 kg/m^3), seen from the front against a
 *   white background (160 x 160 px). Babylon's one render object with per-particle colors (anisotropy off)
 *   shows only the nearest particle's blue: 0 pixels of the middle region (2,304) with red over green by 10.
 *   As two liquids (the default) the red one, composited first, shows through the blue: 1,040 such pixels
 *   (bound: 30% of the region). The same on WebGPU (GPU backend) and WebGL2 (CPU backend). With the red material as the
 *   blue one's air material, it is composited last and clear (no absorption).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type GpuPage, openGpuPage } from './browser/driver';
import type { EllipsoidParityResult, EllipsoidRenderingResult, LiquidsRenderingResult } from './browser/ellipsoids';

describe('anisotropic particles in the browser', () => {
  let gpu: GpuPage;

  beforeAll(async () => {
    gpu = await openGpuPage();
  }, 300_000);

  afterAll(async () => {
    await gpu?.close();
  });

  it('the GPU pass gives the CPU ellipsoids from the same state', async () => {
    const result = await gpu.run<EllipsoidParityResult>('ellipsoidParity');
    console.log(`ellipsoid parity: ${JSON.stringify(result)}`);
    expect(result.particles).toBeGreaterThan(600);
    expect(result.positionDifference).toBeLessThan(1e-4);
    expect(result.centreDifference).toBeLessThan(1e-4);
    expect(result.shapeDifference).toBeLessThan(2e-3);
    expect(result.refusal).toMatch(/writeEllipsoids runs on the CPU backend/);
    expect(result.slots).toBe(2);
    expect(result.slotMismatches).toBe(0);
  }, 300_000);

  for (const target of ['webgpu', 'webgl'] as const) {
    it(`draws a jet without gaps and a resting pool smooth (${target})`, async () => {
      const result = await gpu.run<EllipsoidRenderingResult>('ellipsoidRendering', { target });
      console.log(`ellipsoid rendering ${target}: ${JSON.stringify(result)}`);
      expect(result.errors).toEqual([]);
      const { spheres, anisotropic } = result;
      // The jet: the control (spheres) has gaps, so the check can fail; the anisotropic particles none.
      expect(spheres.jetRows).toBeGreaterThan(100);
      expect(spheres.jetGapRows).toBeGreaterThan(0);
      expect(anisotropic.jetRows).toBe(spheres.jetRows);
      expect(anisotropic.jetGapRows).toBe(0);
      // The pool.
      expect(anisotropic.poolPixels).toBeGreaterThan(5000);
      expect(anisotropic.poolRoughness).toBeLessThan(7e-4);
      expect(anisotropic.poolRoughnessBlurred).toBeLessThan(2e-5);
      expect(anisotropic.poolRoughnessBlurred).toBeLessThan(0.75 * spheres.poolRoughnessBlurred);
      expect(anisotropic.poolLevel).toBeGreaterThan(0);
      expect(anisotropic.poolLevel).toBeLessThan(0.01);
    }, 300_000);
  }
});

describe('several fluids as liquids in the browser', () => {
  let gpu: GpuPage;

  beforeAll(async () => {
    gpu = await openGpuPage();
  }, 300_000);

  afterAll(async () => {
    await gpu?.close();
  });

  for (const target of ['webgpu', 'webgl'] as const) {
    it(`draws each material as its own liquid, air as bubbles (${target})`, async () => {
      const result = await gpu.run<LiquidsRenderingResult>('liquidsRendering', { target });
      console.log(`liquids ${target}: ${JSON.stringify(result)}`);
      expect(result.errors).toEqual([]);
      // The control: Babylon's one render object shows the nearest particle's color, so the red cube inside
      // the blue block does not show (the check can fail).
      expect(result.nearest.objects).toEqual([{ className: 'FluidRenderingObjectCustomParticles', slot: -1 }]);
      expect(result.nearest.redPixels).toBe(0);
      // Two liquids, the heavier red (slot 1) composited first; the red shows through the blue.
      expect(result.liquids.objects).toEqual([
        { className: 'EllipsoidParticles', slot: 1 },
        { className: 'EllipsoidParticles', slot: 0 },
      ]);
      expect(result.liquids.redPixels).toBeGreaterThan(0.3 * result.liquids.pixels);
      // The red as the blue's air material: composited last, clear.
      expect(result.air.objects.map((object) => object.slot)).toEqual([0, 1]);
      expect(result.air.airColor).toEqual([1, 1, 1]);
    }, 300_000);
  }
});
