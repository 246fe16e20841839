/**
 * The color maps of the debug views, defined once: the CPU feed (particleFeed.ts) evaluates them with
 * {@link writeColorMap}, and the WebGPU color pass (particleColors.wgsl) gets them as WGSL constants
 * generated from the same arrays by {@link colorMapsWgsl}, so both backends draw the same colors.
 */

/**
 * What the debug views color particles by: `'material'` the material's `color`; `'speed'` and `'density'`
 * color maps; `'color'` each particle's own `Color` component (set from its material's color or the
 * spawn call's `color`, diffused between neighbours with a material `colorDiffusivity`, writable by game
 * code). The same on both backends: on WebGPU the colors are computed on the GPU (see `feedGpuColors`).
 */
export type FluidColorBy = 'material' | 'speed' | 'density' | 'color';

/** Ranges of the color maps of `feedParticles`. */
export interface ColorMapRanges {
  /** Speed (m/s) shown at the hot end of the speed map; 0 m/s is the cold end. */
  speed: number;
  /** Density deviation |rho / rho0 - 1| shown at either end of the density map (0.2 = 20%). */
  density: number;
}

/** Stops of the speed color map (slow deep blue, through cyan, to white foam), r, g, b each. */
export const SPEED_STOPS = new Float32Array([0.05, 0.2, 0.6, 0.1, 0.5, 0.95, 0.3, 0.85, 1.0, 1.0, 1.0, 1.0]);

/** Stops of the diverging density map: too thin (blue), at rest (light grey), compressed (red). */
export const DENSITY_STOPS = new Float32Array([0.15, 0.35, 0.95, 0.85, 0.85, 0.85, 0.95, 0.25, 0.15]);

/** Writes the color at `t` in [0, 1] along `stops` (3 numbers per stop) to `colors[offset..offset+2]`. */
export function writeColorMap(stops: Float32Array, t: number, colors: Float32Array, offset: number): void {
  const segments = stops.length / 3 - 1;
  const clamped = t < 0 ? 0 : t > 1 ? 1 : t;
  const position = clamped * segments;
  const segment = Math.min(segments - 1, Math.floor(position));
  const f = position - segment;
  const a = 3 * segment;
  colors[offset] = stops[a] + f * (stops[a + 3] - stops[a]);
  colors[offset + 1] = stops[a + 1] + f * (stops[a + 4] - stops[a + 1]);
  colors[offset + 2] = stops[a + 2] + f * (stops[a + 5] - stops[a + 2]);
}

/** A float32 value as a WGSL f32 literal that parses back to exactly the same value. */
function floatLiteral(value: number): string {
  const text = String(Math.fround(value));
  return /[.e]/.test(text) ? `${text}f` : `${text}.0f`;
}

/** `stops` as a WGSL constant `name` (an array of vec3<f32>) and its stop count `name_COUNT`. */
function stopsWgsl(name: string, stops: Float32Array): string {
  const count = stops.length / 3;
  const vectors: string[] = [];
  for (let stop = 0; stop < count; stop++) {
    const [r, g, b] = [stops[3 * stop], stops[3 * stop + 1], stops[3 * stop + 2]].map(floatLiteral);
    vectors.push(`vec3<f32>(${r}, ${g}, ${b})`);
  }
  return `const ${name}_COUNT: u32 = ${count}u;\nconst ${name} = array<vec3<f32>, ${count}>(${vectors.join(', ')});\n`;
}

/** WGSL constants `SPEED_STOPS`, `DENSITY_STOPS` (and their `_COUNT`s), generated from the arrays above. */
export function colorMapsWgsl(): string {
  return stopsWgsl('SPEED_STOPS', SPEED_STOPS) + stopsWgsl('DENSITY_STOPS', DENSITY_STOPS);
}
