/**
 * A procedural sky cube for the water's reflections when the scene has no environment texture: a blue
 * zenith, a bright horizon and a dim ground, generated in memory (no asset is fetched).
 */
import { Constants } from '@babylonjs/core/Engines/constants.js';
import { RawCubeTexture } from '@babylonjs/core/Materials/Textures/rawCubeTexture.js';
import type { Scene } from '@babylonjs/core/scene.js';

/** Color of the sky at elevation `e` (sine of the angle above the horizon, in [-1, 1]), 0..255 each. */
function skyColor(e: number, out: Uint8Array, offset: number): void {
  let r: number;
  let g: number;
  let b: number;
  if (e >= 0) {
    const t = Math.min(1, e * 1.6);
    r = 0.93 + t * (0.42 - 0.93);
    g = 0.95 + t * (0.62 - 0.95);
    b = 0.97 + t * (0.9 - 0.97);
  } else {
    const t = Math.min(1, -e * 4);
    r = 0.93 + t * (0.42 - 0.93);
    g = 0.95 + t * (0.4 - 0.95);
    b = 0.97 + t * (0.37 - 0.97);
  }
  out[offset] = Math.round(255 * r);
  out[offset + 1] = Math.round(255 * g);
  out[offset + 2] = Math.round(255 * b);
  out[offset + 3] = 255;
}

/**
 * Creates the sky cube (`size` texels per face edge). Faces in the order +X, -X, +Y, -Y, +Z, -Z, each
 * stored top row first, so the elevation of a side texel follows its row.
 */
export function createSkyTexture(scene: Scene, size = 32): RawCubeTexture {
  const faces: Uint8Array[] = [];
  for (let face = 0; face < 6; face++) {
    const data = new Uint8Array(size * size * 4);
    for (let row = 0; row < size; row++) {
      for (let column = 0; column < size; column++) {
        const v = 1 - (2 * (row + 0.5)) / size;
        const u = (2 * (column + 0.5)) / size - 1;
        let elevation: number;
        if (face === 2) elevation = 1 / Math.hypot(1, u, v);
        else if (face === 3) elevation = -1 / Math.hypot(1, u, v);
        else elevation = v / Math.hypot(1, u, v);
        skyColor(elevation, data, 4 * (row * size + column));
      }
    }
    faces.push(data);
  }
  const texture = new RawCubeTexture(
    scene,
    faces,
    size,
    Constants.TEXTUREFORMAT_RGBA,
    Constants.TEXTURETYPE_UNSIGNED_BYTE,
    false,
    false,
    Constants.TEXTURE_BILINEAR_SAMPLINGMODE,
  );
  texture.name = 'fluidSky';
  return texture;
}
