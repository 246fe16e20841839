/**
 * Small closed triangle meshes for tests, benchmarks and examples: a UV sphere, a box, a torus and a
 * drinking glass. Every mesh is closed (watertight, welded) with outward-facing triangles: for a triangle
 * (a, b, c) the right-hand normal (b - a) x (c - a) points out of the solid, so the signed volume is
 * positive. Pure functions; the solids of revolution turn about the y axis (Babylon's up).
 */

import { checkInteger, checkNumber, checkVector3, type Vector3Input } from '../../core/checks';
import { FluidError } from '../../core/errors';

/** Options of {@link createGlassMesh} (all lengths in metres). */
export interface GlassMeshOptions {
  /** Outer radius of the wall, > 0. Default 0.04 m. */
  outerRadius?: number;
  /** Height from the bottom (y = 0) to the rim, > 0. Default 0.12 m. */
  height?: number;
  /** Wall thickness, in (0, outerRadius). Default 0.004 m. */
  wallThickness?: number;
  /** Thickness of the bottom, in (0, height). Default 0.01 m. */
  bottomThickness?: number;
  /** Segments around the axis, an integer in [3, 4096]. Default 64. */
  segments?: number;
}

/**
 * A UV sphere centered at the origin.
 *
 * @param radius - Radius (m), in (0, 1e6].
 * @param segments - Segments around the y axis, an integer in [3, 4096]; the sphere has
 * max(2, round(segments / 2)) rings from pole to pole, so 2 * segments * (rings - 1) triangles. The
 * largest gap between the mesh and the true sphere is about radius * (1 - cos(pi / segments)).
 */
export function createSphereMesh(
  radius: number,
  segments: number,
): {
  /** Vertex positions in metres, x, y, z per vertex. */
  positions: Float32Array;
  /** Vertex indices, three per triangle. */
  indices: Uint32Array;
} {
  checkNumber('radius', radius, Number.MIN_VALUE, 1e6);
  checkInteger('segments', segments, 3, 4096);
  const rings = Math.max(2, Math.round(segments / 2));
  const profile: number[] = [];
  for (let ring = 0; ring <= rings; ring++) {
    const angle = (Math.PI * ring) / rings;
    profile.push(ring === 0 || ring === rings ? 0 : radius * Math.sin(angle), -radius * Math.cos(angle));
  }
  return lathe(profile, false, segments);
}

/**
 * An axis-aligned box from corner `min` to corner `max` (m; each `[x, y, z]` or a Babylon `Vector3`):
 * 8 vertices, 12 triangles.
 *
 * @throws FluidError unless min < max on every axis.
 */
export function createBoxMesh(
  min: Vector3Input,
  max: Vector3Input,
): {
  /** Vertex positions in metres, x, y, z per vertex. */
  positions: Float32Array;
  /** Vertex indices, three per triangle. */
  indices: Uint32Array;
} {
  const low = checkVector3('min', min);
  const high = checkVector3('max', max);
  for (let axis = 0; axis < 3; axis++) {
    if (!(low[axis] < high[axis])) {
      throw new FluidError(`box min[${axis}] = ${low[axis]} must be less than max[${axis}] = ${high[axis]}`);
    }
  }
  const positions = new Float32Array(24);
  // Corner c has x from bit 0, y from bit 1, z from bit 2.
  for (let corner = 0; corner < 8; corner++) {
    positions[3 * corner] = corner & 1 ? high[0] : low[0];
    positions[3 * corner + 1] = corner & 2 ? high[1] : low[1];
    positions[3 * corner + 2] = corner & 4 ? high[2] : low[2];
  }
  // biome-ignore format: one face (two triangles) per line
  const indices = Uint32Array.of(
    0, 4, 6, 0, 6, 2, // -x
    1, 3, 7, 1, 7, 5, // +x
    0, 1, 5, 0, 5, 4, // -y
    2, 6, 7, 2, 7, 3, // +y
    0, 2, 3, 0, 3, 1, // -z
    4, 5, 7, 4, 7, 6, // +z
  );
  return { positions, indices };
}

/**
 * A torus about the y axis, centered at the origin: the tube's center line is the circle of radius
 * `majorRadius` in the xz plane.
 *
 * @param majorRadius - Radius of the tube's center line (m), > minorRadius.
 * @param minorRadius - Radius of the tube (m), > 0.
 * @param majorSegments - Segments around the y axis, an integer in [3, 4096].
 * @param minorSegments - Segments around the tube, an integer in [3, 4096]. The mesh has
 * 2 * majorSegments * minorSegments triangles.
 */
export function createTorusMesh(
  majorRadius: number,
  minorRadius: number,
  majorSegments: number,
  minorSegments: number,
): {
  /** Vertex positions in metres, x, y, z per vertex. */
  positions: Float32Array;
  /** Vertex indices, three per triangle. */
  indices: Uint32Array;
} {
  checkNumber('majorRadius', majorRadius, Number.MIN_VALUE, 1e6);
  checkNumber('minorRadius', minorRadius, Number.MIN_VALUE, 1e6);
  if (!(minorRadius < majorRadius)) {
    throw new FluidError(`minorRadius ${minorRadius} must be less than majorRadius ${majorRadius}`);
  }
  checkInteger('majorSegments', majorSegments, 3, 4096);
  checkInteger('minorSegments', minorSegments, 3, 4096);
  const profile: number[] = [];
  for (let step = 0; step < minorSegments; step++) {
    const angle = (2 * Math.PI * step) / minorSegments;
    profile.push(majorRadius + minorRadius * Math.cos(angle), minorRadius * Math.sin(angle));
  }
  return lathe(profile, true, majorSegments);
}

/**
 * A drinking glass as a closed solid (the glass itself, not the liquid): the lathe of the profile outer
 * bottom, outer wall, rim, inner wall, inner bottom about the y axis, standing on y = 0 with its opening
 * at y = `height`. The cavity is a cylinder of radius outerRadius - wallThickness from y = bottomThickness
 * up to the rim. See {@link GlassMeshOptions} for sizes and defaults.
 *
 * @throws FluidError if a size is out of range (e.g. a wall as thick as the radius).
 */
export function createGlassMesh(options: GlassMeshOptions = {}): {
  /** Vertex positions in metres, x, y, z per vertex. */
  positions: Float32Array;
  /** Vertex indices, three per triangle. */
  indices: Uint32Array;
} {
  const outerRadius = checkNumber('outerRadius', options.outerRadius ?? 0.04, Number.MIN_VALUE, 1e6);
  const height = checkNumber('height', options.height ?? 0.12, Number.MIN_VALUE, 1e6);
  const wallThickness = options.wallThickness ?? 0.004;
  const bottomThickness = options.bottomThickness ?? 0.01;
  const segments = checkInteger('segments', options.segments ?? 64, 3, 4096);
  if (!(typeof wallThickness === 'number' && wallThickness > 0 && wallThickness < outerRadius)) {
    throw new FluidError(
      `wallThickness is ${String(wallThickness)}; allowed range is (0, ${outerRadius}) (outerRadius)`,
    );
  }
  if (!(typeof bottomThickness === 'number' && bottomThickness > 0 && bottomThickness < height)) {
    throw new FluidError(`bottomThickness is ${String(bottomThickness)}; allowed range is (0, ${height}) (height)`);
  }
  const innerRadius = outerRadius - wallThickness;
  // biome-ignore format: one profile point per line
  const profile = [
    0, 0, // center of the outer bottom (on the axis)
    outerRadius, 0, // outer bottom edge
    outerRadius, height, // top of the outer wall
    innerRadius, height, // rim, inner edge
    innerRadius, bottomThickness, // foot of the inner wall
    0, bottomThickness, // center of the inner bottom (on the axis)
  ];
  return lathe(profile, false, segments);
}

/**
 * Surface of revolution about the y axis of a profile given as (radius, y) pairs, counter-clockwise
 * around the solid in the (radius, y) half-plane (radius to the right, y up). Profile points with radius 0
 * become single pole vertices. `closed` joins the last point to the first (a torus); otherwise the
 * profile must start and end on the axis.
 */
function lathe(
  profile: number[],
  closed: boolean,
  segments: number,
): { positions: Float32Array; indices: Uint32Array } {
  const pointCount = profile.length / 2;
  const ringStart: number[] = [];
  const ringSize: number[] = [];
  const positions: number[] = [];
  for (let point = 0; point < pointCount; point++) {
    const radius = profile[2 * point];
    const y = profile[2 * point + 1];
    ringStart.push(positions.length / 3);
    if (radius === 0) {
      ringSize.push(1);
      positions.push(0, y, 0);
    } else {
      ringSize.push(segments);
      for (let step = 0; step < segments; step++) {
        const angle = (2 * Math.PI * step) / segments;
        positions.push(radius * Math.cos(angle), y, radius * Math.sin(angle));
      }
    }
  }
  const vertex = (point: number, step: number): number =>
    ringSize[point] === 1 ? ringStart[point] : ringStart[point] + (step % segments);
  const indices: number[] = [];
  const spans = closed ? pointCount : pointCount - 1;
  for (let span = 0; span < spans; span++) {
    const p0 = span;
    const p1 = (span + 1) % pointCount;
    for (let step = 0; step < segments; step++) {
      const a = vertex(p0, step);
      const b = vertex(p1, step);
      const c = vertex(p1, step + 1);
      const d = vertex(p0, step + 1);
      // (b - a) x (c - a) follows d(profile) x d(angle), which points out of the solid.
      if (b !== c) indices.push(a, b, c);
      if (a !== d) indices.push(a, c, d);
    }
  }
  return { positions: Float32Array.from(positions), indices: Uint32Array.from(indices) };
}
