/**
 * Walls do not hold water up: lumps of water released at rest against vertical walls, the outside of a
 * glass (a baked mesh collider, as in the pour example) and a solid box's face, with the default friction
 * (0), fall as far as the same lumps far from any wall and stay outside the walls (tests/wallSlide.ts; the
 * bounds and the measured figures in tests/wallSlideCheck.ts). On the CPU here; the same check on WebGPU is
 * in tests/webgpu.test.ts.
 */
import { describe, it } from 'vitest';
import { wallSlide, wallSlideScene } from './wallSlide';
import { checkWallSlide, WALL_SLIDE_FRAMES } from './wallSlideCheck';

describe('walls do not hold water up', () => {
  it('lumps released against a glass and a box wall fall as far as lumps in the open (CPU)', async () => {
    checkWallSlide(await wallSlide(wallSlideScene(), WALL_SLIDE_FRAMES), 'CPU');
  });
});
