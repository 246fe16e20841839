/**
 * The assertions of the wall-slide check (tests/wallSlide.ts) for both backends: tests/wall-slide.test.ts on
 * the CPU, tests/webgpu.test.ts on WebGPU. Measured after 0.2 s (free fall 0.1962 m), on both backends: the
 * slowest particle at a wall 0.1956 m, of the control lumps 0.1957 m; the closest centres 1.01 cm from the
 * glass, 1.00 cm from the box.
 */
import { expect } from 'vitest';
import type { WallSlideResult } from './wallSlide';

/** Frames each backend steps (0.2 s). */
export const WALL_SLIDE_FRAMES = 12;

/** Logs `result` and checks that no wall held the water up and none let a particle in. */
export function checkWallSlide(result: WallSlideResult, backend: string): void {
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
