import { CreateBoxVertexData } from '@babylonjs/core/Meshes/Builders/boxBuilder.js';
import { CreateCapsuleVertexData } from '@babylonjs/core/Meshes/Builders/capsuleBuilder.js';
import { CreateCylinderVertexData } from '@babylonjs/core/Meshes/Builders/cylinderBuilder.js';
import { CreateSphereVertexData } from '@babylonjs/core/Meshes/Builders/sphereBuilder.js';
import { CreateTorusVertexData } from '@babylonjs/core/Meshes/Builders/torusBuilder.js';
import { describe, expect, it } from 'vitest';
import { FluidError } from '../src/core/errors';
import {
  bakeSignedDistanceField,
  bakeSignedDistanceFieldAsync,
  bakeSignedDistanceFieldWithStatistics,
  type TriangleMesh,
} from '../src/systems/sdf/bake';
import { MAXIMUM_HOLE_AREA_FRACTION, measureBoundary, weldVertices } from '../src/systems/sdf/boundary';
import type { SignedDistanceField } from '../src/systems/sdf/field';
import { createBoxMesh, createGlassMesh, createSphereMesh, createTorusMesh } from '../src/systems/sdf/shapes';
import { random } from './helpers';

type Analytic = (x: number, y: number, z: number) => number;

const sphereRadius = 0.5;
const sphereDistance: Analytic = (x, y, z) => Math.hypot(x, y, z) - sphereRadius;

const boxMin = [-0.2, -0.15, -0.1] as const;
const boxMax = [0.4, 0.15, 0.1] as const;
const boxDistance: Analytic = (x, y, z) => {
  const qx = Math.abs(x - 0.1) - 0.3;
  const qy = Math.abs(y) - 0.15;
  const qz = Math.abs(z) - 0.1;
  const outside = Math.hypot(Math.max(qx, 0), Math.max(qy, 0), Math.max(qz, 0));
  return outside + Math.min(Math.max(qx, qy, qz), 0);
};

const majorRadius = 0.35;
const minorRadius = 0.12;
const torusDistance: Analytic = (x, y, z) => Math.hypot(Math.hypot(x, z) - majorRadius, y) - minorRadius;

/** Calls `visit` for every grid node with its position, baked distance and baked gradient. */
function forEachNode(
  field: SignedDistanceField,
  visit: (x: number, y: number, z: number, distance: number, gx: number, gy: number, gz: number) => void,
): void {
  const [nx, ny, nz] = field.nodeCounts;
  const h = field.cellSize;
  const v = field.values;
  for (let k = 0, n = 0; k < nz; k++)
    for (let j = 0; j < ny; j++)
      for (let i = 0; i < nx; i++, n++) {
        visit(
          field.origin[0] + i * h,
          field.origin[1] + j * h,
          field.origin[2] + k * h,
          v[4 * n],
          v[4 * n + 1],
          v[4 * n + 2],
          v[4 * n + 3],
        );
      }
}

/** Unit gradient of an analytic distance by central differences (step 1e-5 m). */
function analyticGradient(distance: Analytic, x: number, y: number, z: number): [number, number, number] {
  const e = 1e-5;
  const gx = distance(x + e, y, z) - distance(x - e, y, z);
  const gy = distance(x, y + e, z) - distance(x, y - e, z);
  const gz = distance(x, y, z + e) - distance(x, y, z - e);
  const length = Math.hypot(gx, gy, gz);
  return [gx / length, gy / length, gz / length];
}

/**
 * Largest |baked - analytic| over all grid nodes (in cells), and the mean and largest angle (degrees)
 * between baked and analytic gradients over the nodes that `useGradient` accepts (away from the medial
 * set, where the gradient is undefined).
 */
function compare(
  field: SignedDistanceField,
  distance: Analytic,
  useGradient: (x: number, y: number, z: number) => boolean,
): { maximumError: number; meanAngle: number; maximumAngle: number; nodes: number } {
  let maximumError = 0;
  let angleSum = 0;
  let maximumAngle = 0;
  let angleCount = 0;
  let nodes = 0;
  forEachNode(field, (x, y, z, baked, gx, gy, gz) => {
    nodes++;
    maximumError = Math.max(maximumError, Math.abs(baked - distance(x, y, z)));
    if (!useGradient(x, y, z)) return;
    const [ax, ay, az] = analyticGradient(distance, x, y, z);
    const angle = (Math.acos(Math.min(1, gx * ax + gy * ay + gz * az)) * 180) / Math.PI;
    angleSum += angle;
    maximumAngle = Math.max(maximumAngle, angle);
    angleCount++;
  });
  return { maximumError: maximumError / field.cellSize, meanAngle: angleSum / angleCount, maximumAngle, nodes };
}

/** Signed volume of a mesh (m^3): positive when its triangles face outwards. */
function signedVolume(mesh: { positions: Float32Array; indices: Uint32Array }): number {
  const p = mesh.positions;
  let volume = 0;
  for (let t = 0; t < mesh.indices.length; t += 3) {
    const a = 3 * mesh.indices[t];
    const b = 3 * mesh.indices[t + 1];
    const c = 3 * mesh.indices[t + 2];
    volume +=
      p[a] * (p[b + 1] * p[c + 2] - p[b + 2] * p[c + 1]) +
      p[a + 1] * (p[b + 2] * p[c] - p[b] * p[c + 2]) +
      p[a + 2] * (p[b] * p[c + 1] - p[b + 1] * p[c]);
  }
  return volume / 6;
}

/** The mesh with every triangle given its own three vertices (no shared vertices at all). */
function unweld(mesh: { positions: Float32Array; indices: Uint32Array }): TriangleMesh {
  const positions = new Float32Array(3 * mesh.indices.length);
  for (let corner = 0; corner < mesh.indices.length; corner++) {
    positions.set(mesh.positions.subarray(3 * mesh.indices[corner], 3 * mesh.indices[corner] + 3), 3 * corner);
  }
  return { positions, indices: Uint32Array.from(mesh.indices.keys()) };
}

function reverse(mesh: { positions: Float32Array; indices: Uint32Array }): TriangleMesh {
  const indices = Uint32Array.from(mesh.indices);
  for (let t = 0; t < indices.length; t += 3) [indices[t + 1], indices[t + 2]] = [indices[t + 2], indices[t + 1]];
  return { positions: mesh.positions, indices };
}

function maximumDifference(a: SignedDistanceField, b: SignedDistanceField, component: 0 | 1 | 2 | 3): number {
  let largest = 0;
  for (let n = component; n < a.values.length; n += 4) largest = Math.max(largest, Math.abs(a.values[n] - b.values[n]));
  return largest;
}

describe('mesh generators', () => {
  it('make closed meshes facing outwards, with the analytic volume within the tessellation error', () => {
    const sphere = createSphereMesh(0.5, 128);
    const box = createBoxMesh([-1, -2, -3], [1, 2, 3]);
    const torus = createTorusMesh(0.35, 0.12, 128, 64);
    const glass = createGlassMesh({ outerRadius: 0.04, height: 0.12, wallThickness: 0.004, bottomThickness: 0.01 });
    const glassVolume = Math.PI * (0.04 ** 2 * 0.12 - 0.036 ** 2 * 0.11);
    const cases: [string, number, number, number][] = [
      ['sphere', signedVolume(sphere), (4 / 3) * Math.PI * 0.125, 2e-3],
      ['box', signedVolume(box), 48, 1e-9],
      ['torus', signedVolume(torus), 2 * Math.PI ** 2 * 0.35 * 0.12 ** 2, 3e-3],
      ['glass', signedVolume(glass), glassVolume, 2e-3],
    ];
    for (const [name, volume, expected, tolerance] of cases) {
      console.log(`${name}: signed volume ${volume.toPrecision(6)} m^3, analytic ${expected.toPrecision(6)}`);
      expect(Math.abs(volume / expected - 1), name).toBeLessThan(tolerance);
    }
    expect(sphere.indices.length / 3).toBe(2 * 128 * 63);
    expect(torus.indices.length / 3).toBe(2 * 128 * 64);
  });

  it('reject sizes out of range with FluidError', () => {
    expect(() => createSphereMesh(-1, 16)).toThrow(FluidError);
    expect(() => createSphereMesh(1, 2)).toThrow(/segments/);
    expect(() => createBoxMesh([0, 0, 0], [1, 0, 1])).toThrow(/min\[1\]/);
    expect(() => createTorusMesh(0.1, 0.2, 16, 8)).toThrow(/minorRadius/);
    expect(() => createGlassMesh({ outerRadius: 0.04, wallThickness: 0.05 })).toThrow(/wallThickness/);
  });
});

describe('bakeSignedDistanceField (Harada et al. 2007, section 3: walls as a distance field from a mesh)', () => {
  // The baked field is the exact distance to the polyhedron at every node; what separates it from the
  // analytic shape is the tessellation: a 128-segment sphere of radius 0.5 lies within
  // 0.5 (1 - cos(pi / 128)) = 0.15 mm of the sphere, 0.01 of a 1/64 m cell; the 128 x 64 torus within
  // about 0.2 mm, 0.015 cell. Tolerance: a third of a cell at every node.
  it('sphere: distance at every node within a third of a cell of the analytic one, gradients within 1 degree', () => {
    const mesh = createSphereMesh(sphereRadius, 128);
    const { field, statistics } = bakeSignedDistanceFieldWithStatistics(mesh, { resolution: 64 });
    const h = field.cellSize;
    const result = compare(field, sphereDistance, (x, y, z) => Math.hypot(x, y, z) > 2 * h);
    console.log(
      `sphere (${mesh.indices.length / 3} triangles, ${field.nodeCounts.join(' x ')} nodes): max distance error ` +
        `${result.maximumError.toFixed(4)} cells; gradient angle mean ${result.meanAngle.toFixed(3)}, max ` +
        `${result.maximumAngle.toFixed(2)} degrees; ${statistics.milliseconds.total.toFixed(0)} ms`,
    );
    expect(field.cellSize).toBeCloseTo(1 / 64, 12);
    expect(result.maximumError).toBeLessThan(1 / 3);
    expect(result.meanAngle).toBeLessThan(1);
    // Facets: next to the surface the gradient is the facet's normal, up to half a facet (1.4 degrees
    // along a parallel, more near the poles where the facets are thin) from the radial direction.
    expect(result.maximumAngle).toBeLessThan(5);
  });

  it('box: exact distance at every node (12 triangles), gradients exact away from the medial surfaces', () => {
    const mesh = createBoxMesh(boxMin, boxMax);
    const field = bakeSignedDistanceField(mesh, { resolution: 64 });
    const h = field.cellSize;
    // Inside, the gradient jumps where two faces are equally near; keep nodes 2 cells from those planes.
    const awayFromMedial = (x: number, y: number, z: number): boolean => {
      if (boxDistance(x, y, z) > 0) return true;
      const faces = [x - boxMin[0], boxMax[0] - x, y - boxMin[1], boxMax[1] - y, z - boxMin[2], boxMax[2] - z];
      faces.sort((a, b) => a - b);
      return faces[1] - faces[0] > 2 * h;
    };
    const result = compare(field, boxDistance, awayFromMedial);
    console.log(
      `box: max distance error ${result.maximumError.toExponential(2)} cells; gradient angle mean ` +
        `${result.meanAngle.toFixed(4)}, max ${result.maximumAngle.toFixed(3)} degrees over ${result.nodes} nodes`,
    );
    expect(result.maximumError).toBeLessThan(1e-4);
    expect(result.meanAngle).toBeLessThan(0.05);
    expect(result.maximumAngle).toBeLessThan(0.5);
  });

  it('torus: distance within a third of a cell at every node, gradients within 2 degrees off the medial sets', () => {
    const mesh = createTorusMesh(majorRadius, minorRadius, 128, 64);
    const { field, statistics } = bakeSignedDistanceFieldWithStatistics(mesh, { resolution: 64 });
    const h = field.cellSize;
    // Medial sets: the tube's center circle (inside) and the y axis (outside).
    const awayFromMedial = (x: number, y: number, z: number): boolean =>
      Math.hypot(Math.hypot(x, z) - majorRadius, y) > 2 * h && Math.hypot(x, z) > 2 * h;
    const result = compare(field, torusDistance, awayFromMedial);
    console.log(
      `torus (${mesh.indices.length / 3} triangles): max distance error ${result.maximumError.toFixed(4)} cells; ` +
        `gradient angle mean ${result.meanAngle.toFixed(3)}, max ${result.maximumAngle.toFixed(2)} degrees; ` +
        `${statistics.walkSteps} walk steps`,
    );
    expect(result.maximumError).toBeLessThan(1 / 3);
    // Facets: 64 segments around the tube are 5.6 degrees each, so next to the surface the facet normal is
    // up to 2.8 degrees from the analytic one (1.2 on average).
    expect(result.meanAngle).toBeLessThan(2);
    expect(result.maximumAngle).toBeLessThan(6);
  });

  it('trilinear samples between nodes follow the analytic sphere within 0.05 cell near the surface', () => {
    const field = bakeSignedDistanceField(createSphereMesh(sphereRadius, 128), { resolution: 64 });
    const h = field.cellSize;
    const rand = random(7);
    const gradient = new Float64Array(3);
    let maximumError = 0;
    let angleSum = 0;
    let count = 0;
    while (count < 20000) {
      const x = (rand() - 0.5) * 1.2;
      const y = (rand() - 0.5) * 1.2;
      const z = (rand() - 0.5) * 1.2;
      const exact = sphereDistance(x, y, z);
      if (Math.abs(exact) > 4 * h) continue;
      const sampled = field.sampleWithGradient(x, y, z, gradient, 0);
      maximumError = Math.max(maximumError, Math.abs(sampled - exact));
      const r = Math.hypot(x, y, z);
      angleSum += Math.acos(Math.min(1, (gradient[0] * x + gradient[1] * y + gradient[2] * z) / r));
      count++;
    }
    const meanAngle = ((angleSum / count) * 180) / Math.PI;
    console.log(
      `sphere samples within 4 cells of the surface: max error ${(maximumError / h).toFixed(4)} cells, ` +
        `mean gradient angle ${meanAngle.toFixed(3)} degrees`,
    );
    expect(maximumError / h).toBeLessThan(0.05);
    expect(meanAngle).toBeLessThan(1);
  });

  it('a sphere with a hole keeps its inside; an unwelded copy gives the same field', () => {
    const sphere = createSphereMesh(sphereRadius, 64);
    // Remove 6 adjacent triangles (three quads) next to the equator, around the +x axis.
    const removed = new Set<number>();
    const hole: [number, number, number] = [sphereRadius, 0, 0];
    const centroids: { t: number; d: number }[] = [];
    for (let t = 0; t < sphere.indices.length / 3; t++) {
      let cx = 0;
      let cy = 0;
      let cz = 0;
      for (let c = 0; c < 3; c++) {
        const v = 3 * sphere.indices[3 * t + c];
        cx += sphere.positions[v] / 3;
        cy += sphere.positions[v + 1] / 3;
        cz += sphere.positions[v + 2] / 3;
      }
      centroids.push({ t, d: Math.hypot(cx - hole[0], cy - hole[1], cz - hole[2]) });
    }
    centroids.sort((a, b) => a.d - b.d);
    for (const { t } of centroids.slice(0, 6)) removed.add(t);
    const indices = Uint32Array.from([...sphere.indices].filter((_, corner) => !removed.has(Math.floor(corner / 3))));
    const holed = { positions: sphere.positions, indices };
    const { field, statistics } = bakeSignedDistanceFieldWithStatistics(holed, { resolution: 48 });
    const h = field.cellSize;
    let checked = 0;
    let wrong = 0;
    forEachNode(field, (x, y, z, baked) => {
      const exact = sphereDistance(x, y, z);
      // Skip the hole's neighbourhood (its radius is about 0.05 m) and the nodes between the facets and
      // the sphere (64 segments: the facets lie up to 2 * 0.5 * (1 - cos(pi / 64)) = 1.2 mm inside it).
      if (Math.hypot(x - hole[0], y - hole[1], z - hole[2]) < 2 * h + 0.05 || Math.abs(exact) < 1.5e-3) return;
      checked++;
      if (Math.sign(baked) !== Math.sign(exact)) wrong++;
    });
    console.log(
      `sphere with a ${removed.size}-triangle hole: ${wrong} wrong signs among ${checked} nodes farther than 2 cells ` +
        `from the hole; ${statistics.componentCount} components, ${statistics.fullyEvaluatedComponentCount} leaky, ` +
        `${statistics.windingEvaluations} winding numbers`,
    );
    expect(wrong).toBe(0);
    expect(checked).toBeGreaterThan(50000);

    const welded = bakeSignedDistanceField(sphere, { resolution: 48 });
    const unwelded = bakeSignedDistanceField(unweld(sphere), { resolution: 48 });
    const distanceDifference = maximumDifference(welded, unwelded, 0);
    console.log(`welded vs unwelded sphere: max distance difference ${distanceDifference} m`);
    expect(distanceDifference).toBeLessThan(1e-6);
    expect(maximumDifference(welded, unwelded, 1)).toBeLessThan(1e-6);
  });

  it('reversed triangles give the same field (the sign comes from |winding number|)', () => {
    const torus = createTorusMesh(majorRadius, minorRadius, 48, 24);
    const forward = bakeSignedDistanceField(torus, { resolution: 40 });
    const backward = bakeSignedDistanceField(reverse(torus), { resolution: 40 });
    const distanceDifference = maximumDifference(forward, backward, 0);
    // Gradients: equal except where two closest points tie (mirror-symmetric nodes of the symmetric
    // tessellation, the y axis, the tube's center circle), where either choice is right.
    let differing = 0;
    for (let n = 0; n < forward.values.length; n += 4) {
      let difference = 0;
      for (let axis = 1; axis < 4; axis++) {
        difference = Math.max(difference, Math.abs(forward.values[n + axis] - backward.values[n + axis]));
      }
      if (difference > 1e-4) differing++;
    }
    const nodes = forward.values.length / 4;
    console.log(
      `reversed torus: max distance difference ${distanceDifference} m; gradients differ (ties) at ${differing} ` +
        `of ${nodes} nodes`,
    );
    expect(distanceDifference).toBeLessThan(1e-6);
    expect(differing / nodes).toBeLessThan(1e-3);
  });

  it('a glass: negative in its wall and bottom, positive in the cavity and outside', () => {
    const field = bakeSignedDistanceField(
      createGlassMesh({ outerRadius: 0.04, height: 0.12, wallThickness: 0.004, bottomThickness: 0.01, segments: 64 }),
      { resolution: 96 },
    );
    // The cell is 1.25 mm; on the medial surfaces (the middle of the wall and of the bottom, the axis)
    // trilinear interpolation rounds the ridge of the distance by up to half a cell.
    const wall = field.sample(0.038, 0.06, 0); // middle of the 4 mm wall: -2 mm
    expect(wall).toBeLessThan(-0.0012);
    expect(wall).toBeGreaterThan(-0.0021);
    const bottom = field.sample(0, 0.005, 0); // middle of the 10 mm bottom: -5 mm
    expect(bottom).toBeLessThan(-0.0042);
    expect(bottom).toBeGreaterThan(-0.0051);
    expect(field.sample(0.039, 0.06, 0)).toBeCloseTo(-0.001, 4); // 1 mm inside the outer wall
    expect(field.sample(0.02, 0.06, 0)).toBeCloseTo(0.016, 4); // cavity, 16 mm from the inner wall
    expect(field.sample(0, 0.03, 0)).toBeCloseTo(0.02, 3); // cavity axis, 20 mm above the inner bottom
    expect(field.sample(0.02, -0.004, 0)).toBeCloseTo(0.004, 4); // below the glass
    const gradient = field.gradient(0, 0.06, 0.03, [0, 0, 0]);
    expect(gradient[2]).toBeLessThan(-0.99); // towards the axis, away from the inner wall
  });

  it('reports progress with increasing fractions from 0 to 1', () => {
    const fractions: number[] = [];
    bakeSignedDistanceField(createSphereMesh(0.5, 32), { resolution: 24, onProgress: (f) => fractions.push(f) });
    expect(fractions[0]).toBe(0);
    expect(fractions[fractions.length - 1]).toBe(1);
    for (let k = 1; k < fractions.length; k++) expect(fractions[k]).toBeGreaterThanOrEqual(fractions[k - 1]);
    expect(fractions.length).toBeLessThan(200);
  });

  it('grid: cellSize wins over resolution; the margin is max(3 cells, 5% of the longest side) by default', () => {
    const mesh = createBoxMesh([0, 0, 0], [1, 0.5, 0.25]);
    const byResolution = bakeSignedDistanceField(mesh, { resolution: 20 });
    expect(byResolution.cellSize).toBeCloseTo(0.05, 12);
    // Margin: 3 cells = 0.15 m (more than 5% of 1 m) on each side; 1.3 m along x = 26 cells, 27 nodes.
    expect(byResolution.nodeCounts).toEqual([27, 17, 12]);
    expect(byResolution.min[0]).toBeLessThanOrEqual(-0.15 + 1e-9);
    expect(byResolution.max[0]).toBeGreaterThanOrEqual(1.15 - 1e-9);
    // At resolution 100 the 5% wins: 0.05 m = 5 cells.
    expect(bakeSignedDistanceField(mesh, { resolution: 100 }).nodeCounts[0]).toBe(111);
    const bySize = bakeSignedDistanceField(mesh, { resolution: 20, cellSize: 0.1, margin: 0.3 });
    expect(bySize.cellSize).toBe(0.1);
    expect(bySize.nodeCounts).toEqual([17, 12, 10]);
    expect(() => bakeSignedDistanceField(mesh, { cellSize: 0 })).toThrow(/cellSize is 0/);
    expect(() => bakeSignedDistanceField(mesh, { resolution: 2 })).toThrow(/resolution/);
    expect(() => bakeSignedDistanceField(mesh, { cellSize: 1e-4 })).toThrow(/nodes.*2 \* 256\^3/);
  });

  it('bad meshes throw FluidError naming the problem', () => {
    const quad = {
      positions: [0, 0, 0, 1, 0, 0, 1, 0, 1, 0, 0, 1],
      indices: [0, 1, 2, 0, 2, 3],
    };
    expect(() => bakeSignedDistanceField({ positions: quad.positions, indices: [] })).toThrow(FluidError);
    expect(() => bakeSignedDistanceField({ positions: quad.positions, indices: [] })).toThrow(/no triangles/);
    expect(() => bakeSignedDistanceField({ positions: quad.positions, indices: [0, 1] })).toThrow(/has 2 entries/);
    const withNaN = [...quad.positions];
    withNaN[7] = Number.NaN;
    expect(() => bakeSignedDistanceField({ positions: withNaN, indices: quad.indices })).toThrow(
      /vertex 2 has coordinate y = NaN/,
    );
    expect(() => bakeSignedDistanceField({ positions: quad.positions, indices: [0, 1, 4] })).toThrow(
      /indices\[2\].*is 4.*\[0, 3\]/,
    );
    expect(() => bakeSignedDistanceField({ positions: quad.positions, indices: [0, 1.5, 2] })).toThrow(
      /indices\[1\].*integers/,
    );
    expect(() => bakeSignedDistanceField({ positions: quad.positions, indices: [0, 1, 1, 2, 2, 2] })).toThrow(
      /all 2 triangles .* degenerate/,
    );
    expect(() => bakeSignedDistanceField(quad)).toThrow(FluidError);
    expect(() => bakeSignedDistanceField(quad)).toThrow(/encloses no volume.*close the mesh/);
  });

  it('bakes a 100k-triangle torus at resolution 128 (time logged, not asserted)', () => {
    const mesh = createTorusMesh(majorRadius, minorRadius, 400, 125);
    const { field, statistics } = bakeSignedDistanceFieldWithStatistics(mesh, { resolution: 128 });
    const ms = statistics.milliseconds;
    console.log(
      `torus ${statistics.triangleCount} triangles, ${statistics.nodeCounts.join(' x ')} nodes: ` +
        `${ms.total.toFixed(0)} ms (prepare ${ms.prepare.toFixed(0)}, band ${ms.band.toFixed(0)}, sweep ` +
        `${ms.sweep.toFixed(0)}, sign ${ms.sign.toFixed(0)}, refine ${ms.refine.toFixed(0)}, output ` +
        `${ms.output.toFixed(0)}); ${statistics.bandNodeCount} band nodes, ${statistics.windingEvaluations} ` +
        `winding numbers, ${statistics.walkSteps} walk steps, ${statistics.componentCount} components`,
    );
    expect(statistics.triangleCount).toBe(100000);
    // Away from the medial sets (tube center circle, y axis), where interpolation rounds the ridge.
    expect(field.sample(majorRadius + 0.06, 0, 0)).toBeCloseTo(-0.06, 3); // inside the tube
    expect(field.sample(0.1, 0, 0)).toBeCloseTo(majorRadius - minorRadius - 0.1, 3); // in the hole
    expect(field.sample(majorRadius + minorRadius + 0.02, 0, 0)).toBeCloseTo(0.02, 3);
    expect(field.sample(0, 0.2, majorRadius)).toBeCloseTo(0.2 - minorRadius, 3);
  });

  it('the asynchronous bake gives the same field in slices, returning to the event loop between them', async () => {
    const mesh = createTorusMesh(majorRadius, minorRadius, 96, 32);
    const expected = bakeSignedDistanceField(mesh, { resolution: 48 });
    let turns = 0;
    let counting = true;
    const countTurns = () => {
      if (!counting) return;
      turns++;
      setTimeout(countTurns, 0);
    };
    setTimeout(countTurns, 0);
    const fractions: number[] = [];
    const field = await bakeSignedDistanceFieldAsync(mesh, {
      resolution: 48,
      sliceMilliseconds: 1,
      onProgress: (fraction) => fractions.push(fraction),
    });
    counting = false;
    expect(field.values).toEqual(expected.values);
    // Other tasks ran while it baked, and progress went from 0 to 1 without going back.
    expect(turns).toBeGreaterThan(5);
    expect(fractions[0]).toBe(0);
    expect(fractions[fractions.length - 1]).toBe(1);
    for (let k = 1; k < fractions.length; k++) expect(fractions[k]).toBeGreaterThanOrEqual(fractions[k - 1]);
    await expect(bakeSignedDistanceFieldAsync({ positions: [], indices: [] })).rejects.toThrow(FluidError);
  });
});

/** A `size` x `size` m sheet of `quads` x `quads` quads (two triangles each) at heights y = height(x, z). */
function sheet(quads: number, size: number, height: (x: number, z: number) => number): TriangleMesh {
  const positions: number[] = [];
  const indices: number[] = [];
  for (let j = 0; j <= quads; j++) {
    for (let i = 0; i <= quads; i++) {
      const x = size * (i / quads - 0.5);
      const z = size * (j / quads - 0.5);
      positions.push(x, height(x, z), z);
    }
  }
  for (let j = 0; j < quads; j++) {
    for (let i = 0; i < quads; i++) {
      const corner = j * (quads + 1) + i;
      indices.push(corner, corner + 1, corner + quads + 2, corner, corner + quads + 2, corner + quads + 1);
    }
  }
  return { positions, indices };
}

/** A 20 x 20 quad terrain over 1 m x 1 m whose waves (3 x 2 periods, 5 cm high) fold enough for |w| >= 0.5. */
const wavyTerrain = sheet(20, 1, (x, z) => 0.05 * Math.sin(6 * Math.PI * x) * Math.cos(4 * Math.PI * z));

/** The boundary measured over all of a mesh's triangles. */
function boundaryOf(mesh: TriangleMesh) {
  const count = mesh.indices.length / 3;
  const all = Int32Array.from({ length: count }, (_, t) => t);
  return measureBoundary(weldVertices(mesh.positions, mesh.indices, all, count));
}

/** The mesh without its triangles whose centroids are nearest to `point`. */
function withoutNearest(mesh: TriangleMesh, count: number, point: [number, number, number]): TriangleMesh {
  const distances: { t: number; d: number }[] = [];
  for (let t = 0; t < mesh.indices.length / 3; t++) {
    const centroid = [0, 0, 0];
    for (let corner = 0; corner < 3; corner++) {
      for (let axis = 0; axis < 3; axis++)
        centroid[axis] += mesh.positions[3 * mesh.indices[3 * t + corner] + axis] / 3;
    }
    distances.push({ t, d: Math.hypot(centroid[0] - point[0], centroid[1] - point[1], centroid[2] - point[2]) });
  }
  distances.sort((a, b) => a.d - b.d);
  const removed = new Set(distances.slice(0, count).map(({ t }) => t));
  const indices = Array.from(mesh.indices).filter((_, corner) => !removed.has(Math.floor(corner / 3)));
  return { positions: mesh.positions, indices };
}

describe('open meshes: a sheet bounds no volume and throws; closed meshes with seams, cracks or a small hole bake', () => {
  const openSheet =
    /the mesh encloses no volume: it is open, .* the holes may take \[0, 1%\] of the surface.*close the mesh.*thickness/;

  it('a wavy 20 x 20 terrain, a flat plane and a box without its top throw FluidError saying what to do', () => {
    const box = createBoxMesh([0, 0, 0], [1, 1, 1]);
    // The box's +y face is indices 18..23: a container as five faces.
    const openBox = { positions: box.positions, indices: [...box.indices.slice(0, 18), ...box.indices.slice(24)] };
    const plane = sheet(1, 1, () => 0);
    const cases: [string, TriangleMesh, RegExp][] = [
      ['wavy terrain', wavyTerrain, /80 of its 1240 edges on a rim .* 1 hole of 1 m\^2, 87\.\d% of its 1\.14 m\^2/],
      ['plane', plane, /4 of its 5 edges on a rim .* 1 hole of 1 m\^2, 100% of its 1 m\^2 surface/],
      ['open box', openBox, /4 of its 17 edges .* 1 hole of 1 m\^2, 20% of its 5 m\^2 surface/],
    ];
    for (const [name, mesh, numbers] of cases) {
      const boundary = boundaryOf(mesh);
      console.log(
        `${name}: ${boundary.boundaryEdgeCount} of ${boundary.edgeCount} edges on the boundary ` +
          `(${((100 * boundary.boundaryLength) / boundary.edgeLength).toFixed(2)}% of the edge length), holes ` +
          `${((100 * boundary.holeArea) / boundary.surfaceArea).toFixed(2)}% of the area`,
      );
      expect(() => bakeSignedDistanceField(mesh), name).toThrow(FluidError);
      expect(() => bakeSignedDistanceField(mesh), name).toThrow(openSheet);
      expect(() => bakeSignedDistanceField(mesh), name).toThrow(numbers);
    }
    // The open box's message points at what a container should be.
    expect(() => bakeSignedDistanceField(openBox)).toThrow(/createGlassMesh.*shape: 'box'.*container: true/);
    // Steeper folds only raise the surface, not the hole: 3 m high waves on the same 1 m patch are 3.2%.
    const steep = sheet(20, 1, (x, z) => 3 * Math.sin(6 * Math.PI * x) * Math.cos(4 * Math.PI * z));
    expect(() => bakeSignedDistanceField(steep)).toThrow(/3\.23% of its 30\.9 m\^2 surface/);
    // A double-sided sheet (every face twice, both ways) has no boundary; its winding numbers cancel.
    const doubleSided = { positions: plane.positions, indices: [0, 1, 3, 0, 3, 2, 0, 3, 1, 0, 2, 3] };
    expect(boundaryOf(doubleSided).boundaryEdgeCount).toBe(0);
    expect(() => bakeSignedDistanceField(doubleSided)).toThrow(/encloses no volume: no grid node .* double-sided/);
  });

  it('closed meshes have no boundary: the generators, an unwelded or jittered copy, Babylon builders with seams', () => {
    const sphere = createSphereMesh(sphereRadius, 64);
    const unwelded = unweld(sphere);
    // Every corner moved by up to 10 micrometres, a tenth of the 0.1 mm weld tolerance (1e-4 of 1 m).
    const rand = random(11);
    const jittered = {
      positions: Float32Array.from(unwelded.positions, (value) => value + 1e-5 * (2 * rand() - 1)),
      indices: unwelded.indices,
    };
    const babylon = (data: { positions: unknown; indices: unknown }): TriangleMesh => ({
      positions: data.positions as Float32Array,
      indices: data.indices as Uint32Array,
    });
    const cases: [string, TriangleMesh][] = [
      ['sphere', sphere],
      ['box', createBoxMesh([-0.2, -0.15, -0.1], [0.4, 0.15, 0.1])],
      ['torus', createTorusMesh(majorRadius, minorRadius, 64, 32)],
      ['glass', createGlassMesh()],
      ['unwelded sphere', unwelded],
      ['jittered unwelded sphere', jittered],
      ['Babylon box (24 vertices)', babylon(CreateBoxVertexData({ size: 1 }))],
      ['Babylon sphere', babylon(CreateSphereVertexData({ diameter: 1, segments: 16 }))],
      ['Babylon cylinder', babylon(CreateCylinderVertexData({ height: 1, diameter: 0.5, tessellation: 24 }))],
      ['Babylon torus', babylon(CreateTorusVertexData({ diameter: 1, thickness: 0.2, tessellation: 24 }))],
      ['Babylon capsule', babylon(CreateCapsuleVertexData({ radius: 0.25, height: 1 }))],
    ];
    for (const [name, mesh] of cases) {
      const boundary = boundaryOf(mesh);
      expect(boundary.boundaryEdgeCount, name).toBe(0);
      expect(boundary.holeArea, name).toBe(0);
      expect(boundary.vertexCount, name).toBeLessThan(mesh.positions.length / 3 + 1);
    }
    // The unwelded and the jittered copies weld back to the sphere's 64 * 31 + 2 vertices.
    expect(boundaryOf(unwelded).vertexCount).toBe(64 * 31 + 2);
    expect(boundaryOf(jittered).vertexCount).toBe(64 * 31 + 2);
    // The jittered copy bakes to the sphere's field within the jitter.
    const welded = bakeSignedDistanceField(sphere, { resolution: 32 });
    const { field, statistics } = bakeSignedDistanceFieldWithStatistics(jittered, { resolution: 32 });
    expect(statistics.boundaryEdgeCount).toBe(0);
    expect(maximumDifference(welded, field, 0)).toBeLessThan(5e-5);
    // A Babylon sphere (seam and pole vertices duplicated) bakes like the analytic sphere.
    const babylonSphere = bakeSignedDistanceField(babylon(CreateSphereVertexData({ diameter: 1, segments: 32 })), {
      resolution: 32,
    });
    expect(babylonSphere.sample(0, 0, 0)).toBeCloseTo(-0.5, 2);
    expect(babylonSphere.sample(0.6, 0, 0)).toBeCloseTo(0.1, 2);
  });

  it('a T-junction leaves a boundary without area: a box with one split edge still bakes', () => {
    const box = createBoxMesh([0, 0, 0], [1, 1, 1]);
    // Split triangle (0, 4, 6) of the -x face at the middle of its edge 0-4, which the -y face keeps whole.
    const positions = [...box.positions, 0, 0, 0.5];
    const indices = [...box.indices.slice(3), 0, 8, 6, 8, 4, 6];
    const boundary = boundaryOf({ positions, indices });
    expect(boundary.boundaryEdgeCount).toBe(3);
    expect(boundary.holeArea).toBeLessThan(1e-12);
    const field = bakeSignedDistanceField({ positions, indices }, { resolution: 16 });
    expect(field.sample(0.5, 0.5, 0.5)).toBeCloseTo(-0.5, 5);
    expect(field.sample(-0.1, 0.5, 0.5)).toBeCloseTo(0.1, 5);
  });

  it('a 2,023-triangle sphere with one triangle missing bakes: the hole is 0.07% of the surface', () => {
    const sphere = createSphereMesh(sphereRadius, 46);
    const holed = withoutNearest(sphere, 1, [sphereRadius, 0, 0]);
    expect(holed.indices.length / 3).toBe(2023);
    const boundary = boundaryOf(holed);
    console.log(
      `sphere with one triangle missing: ${boundary.boundaryEdgeCount} of ${boundary.edgeCount} edges on the ` +
        `boundary, hole ${((100 * boundary.holeArea) / boundary.surfaceArea).toFixed(3)}% of the area`,
    );
    expect(boundary.boundaryEdgeCount).toBe(3);
    expect(boundary.holeArea / boundary.surfaceArea).toBeLessThan(0.1 * MAXIMUM_HOLE_AREA_FRACTION);
    const { field, statistics } = bakeSignedDistanceFieldWithStatistics(holed, { resolution: 32 });
    expect(statistics.holeAreaFraction).toBeCloseTo(boundary.holeArea / boundary.surfaceArea, 12);
    expect(field.sample(0, 0, 0)).toBeCloseTo(-sphereRadius, 2);
    expect(field.sample(0.4, 0, 0)).toBeCloseTo(-0.1, 2); // inside, 1 dm behind the hole
    const [x, y, z] = field.max;
    expect(field.sample(x, y, z)).toBeCloseTo(Math.hypot(x, y, z) - sphereRadius, 2); // a far corner of the grid
    expect(field.sample(x, y, z)).toBeGreaterThan(0.2);
  });
});
