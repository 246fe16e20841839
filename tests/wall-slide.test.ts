/**
 * Walls do not hold water up: lumps of water released at rest against vertical walls, the outside of a
 * glass (a baked mesh collider, as in the pour example) and a solid box's face, with the default friction
 * (0), fall as far as the same lumps far from any wall, on both backends, and stay outside the walls
 * (tests/wallSlide.ts). Measured after 0.2 s (free fall 0.1962 m), on both backends: the slowest particle at a
 * wall 0.1956 m, of the control lumps 0.1957 m; the closest centres 1.01 cm from the glass, 1.00 cm from the box.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type GpuPage, openGpuPage } from './browser/driver';
import { type WallSlideResult, wallSlide, wallSlideScene } from './wallSlide';

const FRAMES = 12;

function check(result: WallSlideResult, backend: string): void {
  console.log(
    `wall slide (${backend}): ${result.count} particles, ${result.seconds.toFixed(2)} s: at the walls drop smallest ${result.smallestDrop.toFixed(4)} m, ` +
      `median ${result.medianDrop.toFixed(4)} m; control lumps ${result.controlSmallestDrop.toFixed(4)} m, ${result.controlMedianDrop.toFixed(4)} m; ` +
      `free fall ${result.freeFall.toFixed(4)} m; closest centre to the glass ` +
      `${result.closestToGlass.toFixed(4)} m, to the box ${result.closestToBox.toFixed(4)} m`,
  );
  expect(result.count).toBe(result.particles);
  // The lumps at the walls fall as far as those in the open: a wall that held water up by 2% would fail.
  expect(result.smallestDrop).toBeGreaterThan(0.98 * result.controlSmallestDrop);
  expect(result.medianDrop).toBeGreaterThan(0.98 * result.controlMedianDrop);
  // And the control is close to free fall (its own pressure spreads a lump a little).
  expect(result.controlSmallestDrop).toBeGreaterThan(0.95 * result.freeFall);
  // No particle is pushed into a wall: centres at least 0.9 r (9 mm) out (measured 1.00 and 1.01 cm).
  expect(result.closestToGlass).toBeGreaterThan(0.009);
  expect(result.closestToBox).toBeGreaterThan(0.009);
}

describe('walls do not hold water up', () => {
  it('lumps released against a glass and a box wall fall as far as lumps in the open (CPU)', async () => {
    check(await wallSlide(wallSlideScene(), FRAMES), 'CPU');
  });

  describe('WebGPU', () => {
    let gpu: GpuPage;
    beforeAll(async () => {
      gpu = await openGpuPage();
    }, 300_000);
    afterAll(async () => {
      await gpu?.close();
    });
    it('lumps released against a glass and a box wall fall as far as lumps in the open (WebGPU)', async () => {
      check(await gpu.run<WallSlideResult>('wallSlide', { frames: FRAMES }), 'WebGPU');
      expect(gpu.consoleErrors).toEqual([]);
    }, 300_000);
  });
});
