/**
 * Walls do not hold water up: lumps of water released at rest against vertical walls, the outside of a
 * glass (a baked mesh collider, as in the pour example) and a solid box's face, with the default friction
 * (0), fall at nearly free fall on both backends and stay outside the walls (tests/wallSlide.ts).
 * Measured after 0.2 s (free fall 0.196 m): see the bounds below.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type GpuPage, openGpuPage } from './browser/driver';
import { type WallSlideResult, wallSlide, wallSlideScene } from './wallSlide';

const FRAMES = 12;

function check(result: WallSlideResult, backend: string): void {
  console.log(
    `wall slide (${backend}): ${result.count} particles, ${result.seconds.toFixed(2)} s: drop smallest ${result.smallestDrop.toFixed(4)} m, ` +
      `median ${result.medianDrop.toFixed(4)} m, free fall ${result.freeFall.toFixed(4)} m; closest centre to the glass ` +
      `${result.closestToGlass.toFixed(4)} m, to the box ${result.closestToBox.toFixed(4)} m`,
  );
  expect(result.count).toBe(result.particles);
  // Every particle falls at least 90% as far as free fall: no wall holds one up.
  expect(result.smallestDrop).toBeGreaterThan(0.9 * result.freeFall);
  // And none is pushed into a wall or flung away from it (centres between half a radius and 3 radii out).
  for (const distance of [result.closestToGlass, result.closestToBox]) {
    expect(distance).toBeGreaterThan(0.005);
    expect(distance).toBeLessThan(0.03);
  }
}

describe('walls do not hold water up', () => {
  it('lumps released against a glass and a box wall fall at nearly free fall (CPU)', async () => {
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
    it('lumps released against a glass and a box wall fall at nearly free fall (WebGPU)', async () => {
      check(await gpu.run<WallSlideResult>('wallSlide', { frames: FRAMES }), 'WebGPU');
      expect(gpu.consoleErrors).toEqual([]);
    }, 300_000);
  });
});
