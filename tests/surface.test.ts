/**
 * Surface reconstruction (Müller et al. 2003, section 4; Harada et al. 2007, section 5.2): the color
 * field's isosurface on a sparse grid is closed, consistently oriented and encloses the particles'
 * volume; vertices near walls are fitted onto them; surface particles are found on the outer layer with
 * outward normals; the plugin's 'surface' and 'splats' render modes on a NullEngine.
 */
import { FreeCamera } from '@babylonjs/core/Cameras/freeCamera.js';
import { NullEngine } from '@babylonjs/core/Engines/nullEngine.js';
import type { PBRMaterial } from '@babylonjs/core/Materials/PBR/pbrMaterial.js';
import type { StandardMaterial } from '@babylonjs/core/Materials/standardMaterial.js';
import { Vector3 } from '@babylonjs/core/Maths/math.vector.js';
import type { AbstractMesh } from '@babylonjs/core/Meshes/abstractMesh.js';
import type { Mesh } from '@babylonjs/core/Meshes/mesh.js';
import { Scene } from '@babylonjs/core/scene.js';
import { describe, expect, it } from 'vitest';
import {
  bakeSignedDistanceField,
  createBoxMesh,
  FluidError,
  FluidPlugin,
  FluidSimulation,
  fitSurfaceToColliders,
  SplatView,
  SurfaceMeshView,
} from '../src';
import { SurfaceExtractor, type SurfaceMesh } from '../src/systems/surface/marchingCubes';
import { gatherSurfaceParticles, SurfaceParticleBuffer } from '../src/systems/surface/particles';
import { SurfaceParticleDetector } from '../src/systems/surface/surfaceParticles';

/** Particles of a cubic lattice of spacing 2r inside a sphere of `radius` about `center`, volume (2r)^3 each. */
function sphereOfParticles(r: number, radius: number, center: [number, number, number]): SurfaceParticleBuffer {
  const spacing = 2 * r;
  const points: number[] = [];
  const n = Math.ceil(radius / spacing) + 1;
  for (let i = -n; i <= n; i++)
    for (let j = -n; j <= n; j++)
      for (let k = -n; k <= n; k++) {
        const x = i * spacing;
        const y = j * spacing;
        const z = k * spacing;
        if (x * x + y * y + z * z <= radius * radius) points.push(center[0] + x, center[1] + y, center[2] + z);
      }
  const buffer = new SurfaceParticleBuffer();
  buffer.resize(points.length / 3);
  for (let p = 0; p < buffer.count; p++) {
    buffer.x[p] = points[3 * p];
    buffer.y[p] = points[3 * p + 1];
    buffer.z[p] = points[3 * p + 2];
    buffer.volume[p] = spacing ** 3;
  }
  return buffer;
}

/** Map from an undirected edge to the number of triangles using it and the sum of its directions (+1 / -1). */
function edgeUse(mesh: SurfaceMesh): { uses: Map<number, number>; balance: Map<number, number> } {
  const uses = new Map<number, number>();
  const balance = new Map<number, number>();
  const n = mesh.vertexCount;
  for (let t = 0; t < mesh.indexCount; t += 3) {
    for (let e = 0; e < 3; e++) {
      const a = mesh.indices[t + e];
      const b = mesh.indices[t + ((e + 1) % 3)];
      const key = Math.min(a, b) * n + Math.max(a, b);
      uses.set(key, (uses.get(key) ?? 0) + 1);
      balance.set(key, (balance.get(key) ?? 0) + (a < b ? 1 : -1));
    }
  }
  return { uses, balance };
}

/** Enclosed volume by the divergence theorem: sum over triangles of a . (b x c) / 6. */
function enclosedVolume(mesh: SurfaceMesh): number {
  const p = mesh.positions;
  let volume = 0;
  for (let t = 0; t < mesh.indexCount; t += 3) {
    const a = 3 * mesh.indices[t];
    const b = 3 * mesh.indices[t + 1];
    const c = 3 * mesh.indices[t + 2];
    volume +=
      p[a] * (p[b + 1] * p[c + 2] - p[b + 2] * p[c + 1]) -
      p[a + 1] * (p[b] * p[c + 2] - p[b + 2] * p[c]) +
      p[a + 2] * (p[b] * p[c + 1] - p[b + 1] * p[c]);
  }
  return volume / 6;
}

describe('marching tetrahedra on the sparse color-field grid', () => {
  const r = 0.05;
  const particles = sphereOfParticles(r, 0.6, [0.3, 1.1, -0.2]);
  const extractor = new SurfaceExtractor({ particleRadius: r });
  const mesh = extractor.extract(particles);

  it('makes a closed, consistently oriented mesh with no degenerate index', () => {
    expect(mesh.indexCount).toBeGreaterThan(0);
    for (let t = 0; t < mesh.indexCount; t += 3) {
      const [a, b, c] = [mesh.indices[t], mesh.indices[t + 1], mesh.indices[t + 2]];
      expect(a !== b && b !== c && a !== c).toBe(true);
      expect(Math.max(a, b, c)).toBeLessThan(mesh.vertexCount);
    }
    const { uses, balance } = edgeUse(mesh);
    let badUse = 0;
    let badBalance = 0;
    for (const [key, count] of uses) {
      if (count !== 2) badUse++;
      if (balance.get(key) !== 0) badBalance++;
    }
    console.log(
      `surface sphere: ${particles.count} particles, ${mesh.vertexCount} vertices, ${mesh.indexCount / 3} triangles, ` +
        `${uses.size} edges, ${badUse} not shared by two triangles, ${badBalance} inconsistently oriented`,
    );
    expect(badUse).toBe(0);
    expect(badBalance).toBe(0);
  });

  it('encloses the particles volume within 10% and has outward normals', () => {
    const volume = enclosedVolume(mesh);
    const expected = particles.count * (2 * r) ** 3;
    console.log(
      `surface sphere volume ${volume.toFixed(5)} m^3, particles ${expected.toFixed(5)} m^3, error ${(100 * (volume / expected - 1)).toFixed(2)}%`,
    );
    expect(Math.abs(volume / expected - 1)).toBeLessThan(0.1);
    let outward = 0;
    for (let v = 0; v < mesh.vertexCount; v++) {
      const dx = mesh.positions[3 * v] - 0.3;
      const dy = mesh.positions[3 * v + 1] - 1.1;
      const dz = mesh.positions[3 * v + 2] + 0.2;
      const length = Math.hypot(dx, dy, dz);
      const dot = (dx * mesh.normals[3 * v] + dy * mesh.normals[3 * v + 1] + dz * mesh.normals[3 * v + 2]) / length;
      if (dot > 0.5) outward++;
    }
    expect(outward / mesh.vertexCount).toBeGreaterThan(0.98);
  });
});

describe('level-set smoothing over time (Premoze et al. 2003, eq. 29)', () => {
  it('keeps a jittered blob closed and near its volume, and makes it rounder than the raw isosurface', () => {
    const r = 0.05;
    const particles = sphereOfParticles(r, 0.5, [0, 0, 0]);
    let seed = 7;
    const random = (): number => {
      seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
      return seed / 2 ** 32;
    };
    for (let p = 0; p < particles.count; p++) {
      particles.x[p] += (random() - 0.5) * 0.8 * r;
      particles.y[p] += (random() - 0.5) * 0.8 * r;
      particles.z[p] += (random() - 0.5) * 0.8 * r;
    }
    /** Spread of the vertices' distances from the center (m) and mean 1 - cos(normal, radial direction). */
    const roughness = (mesh: SurfaceMesh): [number, number] => {
      let sum = 0;
      let sumSquares = 0;
      let deviation = 0;
      for (let v = 0; v < mesh.vertexCount; v++) {
        const [x, y, z] = [mesh.positions[3 * v], mesh.positions[3 * v + 1], mesh.positions[3 * v + 2]];
        const distance = Math.hypot(x, y, z);
        sum += distance;
        sumSquares += distance * distance;
        deviation +=
          1 - (x * mesh.normals[3 * v] + y * mesh.normals[3 * v + 1] + z * mesh.normals[3 * v + 2]) / distance;
      }
      const mean = sum / mesh.vertexCount;
      return [Math.sqrt(sumSquares / mesh.vertexCount - mean * mean), deviation / mesh.vertexCount];
    };
    const raw = new SurfaceExtractor({ particleRadius: r }).extract(particles);
    const [rawSpread, rawDeviation] = roughness(raw);
    const smoothed = new SurfaceExtractor({ particleRadius: r, smoothing: {} });
    for (let frame = 0; frame < 5; frame++) smoothed.extract(particles);
    const { uses, balance } = edgeUse(smoothed);
    for (const [key, count] of uses) {
      expect(count).toBe(2);
      expect(balance.get(key)).toBe(0);
    }
    const expected = particles.count * (2 * r) ** 3;
    const rawVolume = enclosedVolume(raw);
    const volume = enclosedVolume(smoothed);
    const [spread, deviation] = roughness(smoothed);
    console.log(
      `level set: raw radial spread ${rawSpread.toExponential(3)} m, normal deviation ${rawDeviation.toExponential(3)}, volume error ${(100 * (rawVolume / expected - 1)).toFixed(2)}%; ` +
        `smoothed ${spread.toExponential(3)} m, ${deviation.toExponential(3)}, ${(100 * (volume / expected - 1)).toFixed(2)}%`,
    );
    expect(Math.abs(volume / expected - 1)).toBeLessThan(0.1);
    expect(spread).toBeLessThan(0.85 * rawSpread);
    expect(deviation).toBeLessThan(0.7 * rawDeviation);
    expect(() => new SurfaceExtractor({ particleRadius: r, smoothing: { iterations: 0 } })).toThrow(/iterations/);
  });
});

describe('marching tetrahedra on simulated and jittered particles', () => {
  it('stays closed for a splashed dam break and for randomly jittered particles, and reuses its buffers', () => {
    const r = 0.04;
    const simulation = new FluidSimulation({ particleRadius: r, capacity: 3000 });
    const water = simulation.addMaterial({});
    simulation.addCollider({ shape: 'box', min: [0, 0, 0], max: [1.6, 1, 0.4], container: true });
    simulation.spawnBlock({ min: [0, 0, 0], max: [0.4, 0.8, 0.4], material: water });
    const particles = new SurfaceParticleBuffer();
    const extractor = new SurfaceExtractor({ particleRadius: r });
    let seed = 12345;
    const random = (): number => {
      seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
      return seed / 2 ** 32;
    };
    let checked = 0;
    for (let frame = 1; frame <= 30; frame++) {
      simulation.step();
      if (frame % 10 !== 0) continue;
      gatherSurfaceParticles(simulation, particles);
      if (frame === 30) {
        // Jitter by up to half a particle radius, so field values land anywhere relative to the nodes.
        for (let p = 0; p < particles.count; p++) {
          particles.x[p] += (random() - 0.5) * r;
          particles.y[p] += (random() - 0.5) * r;
          particles.z[p] += (random() - 0.5) * r;
        }
      }
      const mesh = extractor.extract(particles);
      const { uses, balance } = edgeUse(mesh);
      for (const [key, count] of uses) {
        expect(count).toBe(2);
        expect(balance.get(key)).toBe(0);
      }
      checked += uses.size;
    }
    expect(checked).toBeGreaterThan(1000);
    // Extracting the same particles again reuses the grown arrays (no allocation in the steady state).
    const arrays = [extractor.positions, extractor.normals, extractor.indices];
    extractor.extract(particles);
    expect([extractor.positions, extractor.normals, extractor.indices]).toEqual(arrays);
    expect(extractor.positions).toBe(arrays[0]);
    expect(extractor.indices).toBe(arrays[2]);
  });
});

describe('surface fitting onto walls (Harada et al. 2007, eq. 19)', () => {
  it('puts vertices near a box container floor and walls on the wall within r / 10', () => {
    const r = 0.05;
    const simulation = new FluidSimulation({ particleRadius: r, capacity: 4000 });
    const water = simulation.addMaterial({});
    simulation.addCollider({ shape: 'box', min: [0, 0, 0], max: [1, 1, 0.6], container: true });
    simulation.spawnBlock({ min: [0, 0, 0], max: [0.5, 0.5, 0.6], material: water });
    for (let step = 0; step < 5; step++) simulation.step();
    const particles = gatherSurfaceParticles(simulation, new SurfaceParticleBuffer());
    const extractor = new SurfaceExtractor({ particleRadius: r });
    const mesh = extractor.extract(particles);
    const before = Float32Array.from(mesh.positions.subarray(0, 3 * mesh.vertexCount));
    const fitDistance = r;
    const moved = fitSurfaceToColliders(
      simulation,
      extractor.positions,
      extractor.normals,
      mesh.vertexCount,
      fitDistance,
    );
    // Distance of a point to the nearest face of the box (inside it).
    const wallDistance = (x: number, y: number, z: number): number => Math.min(x, 1 - x, y, 1 - y, z, 0.6 - z);
    let onWall = 0;
    let worst = 0;
    let untouchedFar = 0;
    for (let v = 0; v < mesh.vertexCount; v++) {
      const [x0, y0, z0] = [before[3 * v], before[3 * v + 1], before[3 * v + 2]];
      const [x, y, z] = [mesh.positions[3 * v], mesh.positions[3 * v + 1], mesh.positions[3 * v + 2]];
      const near = wallDistance(x0, y0, z0) < fitDistance || x0 < 0 || y0 < 0 || z0 < 0 || z0 > 0.6;
      if (near) {
        onWall++;
        worst = Math.max(worst, Math.abs(wallDistance(x, y, z)));
      } else if (x === x0 && y === y0 && z === z0) {
        untouchedFar++;
      }
    }
    console.log(
      `surface fitting: ${mesh.vertexCount} vertices, ${moved} fitted, ${onWall} near a wall, worst wall distance after fitting ${worst.toExponential(2)} m (r / 10 = ${r / 10})`,
    );
    expect(onWall).toBeGreaterThan(50);
    expect(moved).toBe(onWall);
    expect(worst).toBeLessThan(r / 10);
    expect(untouchedFar).toBe(mesh.vertexCount - onWall);
  });
});

describe('surface fitting onto a baked mesh container', () => {
  it('puts vertices near the walls of a signed distance field on them within r / 10', () => {
    const r = 0.05;
    const field = bakeSignedDistanceField(createBoxMesh([0, 0, 0], [1, 1, 0.6]), { cellSize: 0.05 });
    const simulation = new FluidSimulation({ particleRadius: r, capacity: 4000 });
    const water = simulation.addMaterial({});
    simulation.addCollider({ shape: 'mesh', field, container: true });
    simulation.spawnBlock({ min: [0, 0, 0], max: [0.5, 0.5, 0.6], material: water });
    for (let step = 0; step < 5; step++) simulation.step();
    const extractor = new SurfaceExtractor({ particleRadius: r });
    const mesh = extractor.extract(gatherSurfaceParticles(simulation, new SurfaceParticleBuffer()));
    const moved = fitSurfaceToColliders(simulation, extractor.positions, extractor.normals, mesh.vertexCount, r);
    let worst = 0;
    let near = 0;
    for (let v = 0; v < mesh.vertexCount; v++) {
      const d = Math.abs(field.sample(mesh.positions[3 * v], mesh.positions[3 * v + 1], mesh.positions[3 * v + 2]));
      if (d < r) {
        near++;
        worst = Math.max(worst, d);
      }
    }
    console.log(
      `surface fitting (mesh field): ${moved} fitted, ${near} within r of a wall after, worst ${worst.toExponential(2)} m`,
    );
    expect(moved).toBeGreaterThan(50);
    expect(near).toBeGreaterThanOrEqual(moved);
    expect(worst).toBeLessThan(r / 10);
  });
});

describe('surface particles (Müller et al. 2003, eq. 23 and 24)', () => {
  it('finds the outer layer of a block, not its interior, with outward normals', () => {
    const r = 0.05;
    const spacing = 2 * r;
    const n = 8;
    const particles = new SurfaceParticleBuffer();
    particles.resize(n * n * n);
    const volume = spacing ** 3;
    let p = 0;
    for (let i = 0; i < n; i++)
      for (let j = 0; j < n; j++)
        for (let k = 0; k < n; k++) {
          particles.x[p] = i * spacing;
          particles.y[p] = j * spacing;
          particles.z[p] = k * spacing;
          particles.volume[p] = volume;
          p++;
        }
    const detector = new SurfaceParticleDetector({ kernelRadius: 4 * r });
    const found = detector.detect(particles);
    const layer = (q: number): number => {
      const i = Math.round(particles.x[q] / spacing);
      const j = Math.round(particles.y[q] / spacing);
      const k = Math.round(particles.z[q] / spacing);
      return Math.min(i, j, k, n - 1 - i, n - 1 - j, n - 1 - k);
    };
    let outer = 0;
    for (let q = 0; q < particles.count; q++) if (layer(q) === 0) outer++;
    const h = 4 * r;
    const byLayer = [0, 1, 2, 3].map((l) => {
      let least = Number.POSITIVE_INFINITY;
      let most = 0;
      for (let q = 0; q < particles.count; q++) {
        if (layer(q) !== l) continue;
        least = Math.min(least, detector.gradientLength[q] * h);
        most = Math.max(most, detector.gradientLength[q] * h);
      }
      return `${least.toFixed(3)}..${most.toFixed(3)}`;
    });
    console.log(
      `surface particles: ${found} of ${particles.count}, outer layer ${outer}; |n| h per layer (outer first) ${byLayer.join(', ')}`,
    );
    expect(found).toBe(outer);
    const center = ((n - 1) * spacing) / 2;
    for (let s = 0; s < found; s++) {
      const q = detector.indices[s];
      expect(layer(q)).toBe(0);
      const dx = particles.x[q] - center;
      const dy = particles.y[q] - center;
      const dz = particles.z[q] - center;
      const dot = dx * detector.normals[3 * s] + dy * detector.normals[3 * s + 1] + dz * detector.normals[3 * s + 2];
      expect(dot).toBeGreaterThan(0);
      // On a face (not an edge or corner) the normal is the face's.
      const i = Math.round(particles.x[q] / spacing);
      const j = Math.round(particles.y[q] / spacing);
      const k = Math.round(particles.z[q] / spacing);
      if (i === 0 && j > 0 && j < n - 1 && k > 0 && k < n - 1) expect(detector.normals[3 * s]).toBeLessThan(-0.99);
    }
  });
});

describe("the plugin's 'surface' and 'splats' render modes", () => {
  it('draws an updated surface mesh on a NullEngine and disposes it when the mode changes', async () => {
    const engine = new NullEngine();
    try {
      const scene = new Scene(engine);
      new FreeCamera('camera', new Vector3(0, 1, -3), scene);
      const fluid = await FluidPlugin.create(scene, {
        particleRadius: 0.05,
        capacity: 2000,
        useDeltaTime: false,
        renderMode: 'surface',
        surfaceUpdateInterval: 2,
      });
      const water = fluid.simulation.addMaterial({});
      fluid.simulation.addCollider({ shape: 'box', min: [0, 0, 0], max: [1, 1, 0.4], container: true });
      fluid.simulation.spawnBlock({ min: [0, 0, 0], max: [0.4, 0.6, 0.4], material: water });
      expect(fluid.renderMode).toBe('surface');
      // Record the index uploads: only the written part of the index array goes to the engine.
      const indexUploads: number[] = [];
      const updateIndexBuffer = engine.updateDynamicIndexBuffer.bind(engine);
      engine.updateDynamicIndexBuffer = (buffer, indices, offset) => {
        indexUploads.push(indices.length);
        updateIndexBuffer(buffer, indices, offset);
      };
      /** The mesh as drawn: the written vertices and indices of its buffers' data. */
      const drawn = (surface: AbstractMesh): SurfaceMesh => {
        const subMesh = surface.subMeshes[0];
        return {
          vertexCount: subMesh.verticesCount,
          indexCount: subMesh.indexCount,
          positions: Float32Array.from(surface.getVerticesData('position') ?? []),
          normals: Float32Array.from(surface.getVerticesData('normal') ?? []),
          indices: Uint32Array.from(surface.getIndices() ?? []),
        };
      };
      /** True when every edge of the drawn mesh is shared by two triangles, with opposite directions. */
      const closed = (surface: SurfaceMesh): boolean => {
        const { uses, balance } = edgeUse(surface);
        for (const [key, count] of uses) if (count !== 2 || balance.get(key) !== 0) return false;
        return uses.size > 0;
      };
      scene.render();
      const mesh = fluid.surfaceMesh;
      expect(mesh).toBeDefined();
      if (mesh === undefined) return;
      expect(mesh.isEnabled()).toBe(true);
      const positionBuffer = mesh.getVertexBuffer('position');
      const first = drawn(mesh);
      expect(first.indexCount).toBeGreaterThan(0);
      expect(mesh.getVerticesData('normal')).not.toBeNull();
      expect(closed(first)).toBe(true);
      const firstBox = mesh.getBoundingInfo().boundingBox;
      const [firstMin, firstMax] = [firstBox.minimumWorld.clone(), firstBox.maximumWorld.clone()];
      for (let frame = 0; frame < 4; frame++) scene.render();
      // The same mesh and vertex buffer (updated in place), a changed surface after the fluid moved: the
      // block falls and spreads, so its vertices and bounds move; the mesh is still closed.
      expect(fluid.surfaceMesh).toBe(mesh);
      expect(mesh.getVertexBuffer('position')).toBe(positionBuffer);
      const later = drawn(mesh);
      expect(later.indexCount).toBeGreaterThan(0);
      expect(closed(later)).toBe(true);
      let moved = 0;
      const shared = Math.min(first.vertexCount, later.vertexCount);
      for (let v = 0; v < 3 * shared; v++) if (Math.abs(later.positions[v] - first.positions[v]) > 1e-4) moved++;
      const box = mesh.getBoundingInfo().boundingBox;
      const boundsChange = Math.max(
        Math.abs(box.minimumWorld.y - firstMin.y),
        Math.abs(box.maximumWorld.y - firstMax.y),
        Math.abs(box.maximumWorld.x - firstMax.x),
      );
      console.log(
        `surface view: ${first.vertexCount} -> ${later.vertexCount} vertices, ${moved} of ${3 * shared} coordinates moved, ` +
          `bounds changed by ${boundsChange.toExponential(2)} m, index uploads ${indexUploads.join(', ')} of ${mesh.getTotalIndices()}`,
      );
      expect(later.vertexCount !== first.vertexCount || later.indexCount !== first.indexCount || moved > 0).toBe(true);
      expect(boundsChange).toBeGreaterThan(1e-3);
      // Each in-place update uploaded just the drawn indices (the last one: the mesh's current count).
      expect(indexUploads.length).toBeGreaterThan(0);
      expect(indexUploads[indexUploads.length - 1]).toBe(later.indexCount);
      expect(later.indexCount).toBeLessThan(mesh.getTotalIndices());
      fluid.renderMode = 'splats';
      expect(mesh.isDisposed()).toBe(true);
      expect(fluid.surfaceMesh).toBeUndefined();
      scene.render();
      const splats = fluid.splatMesh as Mesh | undefined;
      expect(splats).toBeDefined();
      expect(splats?.thinInstanceCount ?? 0).toBeGreaterThan(0);
      expect(splats?.thinInstanceCount ?? 0).toBeLessThan(fluid.simulation.particleCount);
      fluid.renderMode = 'none';
      expect(splats?.isDisposed()).toBe(true);
      fluid.renderMode = 'surface';
      expect(fluid.surfaceMesh?.isDisposed()).toBe(false);
      fluid.dispose();
      expect(scene.meshes.some((m) => m.name === 'fluidSurface' || m.name === 'fluidSplats')).toBe(false);
      expect(scene.materials.some((m) => m.name.startsWith('fluidSurface') || m.name.startsWith('fluidSplats'))).toBe(
        false,
      );
    } finally {
      engine.dispose();
    }
  });

  it("colors the surface and the splats with the first particle's material on the CPU backend", async () => {
    const engine = new NullEngine();
    try {
      const scene = new Scene(engine);
      new FreeCamera('camera', new Vector3(0, 1, -3), scene);
      // Start in 'points' with a blue material, so the fed buffers hold blue particles; then the particles
      // are replaced by red ones and the surface modes (which skip the feed) must still see red.
      const fluid = await FluidPlugin.create(scene, {
        particleRadius: 0.05,
        capacity: 2000,
        useDeltaTime: false,
        backend: 'cpu',
        renderMode: 'points',
      });
      const blue = fluid.simulation.addMaterial({ color: [0, 0, 1] });
      const red = fluid.simulation.addMaterial({ color: [1, 0, 0] });
      fluid.simulation.addCollider({ shape: 'box', min: [0, 0, 0], max: [1, 1, 0.4], container: true });
      const blueIds = fluid.simulation.spawnBlock({ min: [0, 0, 0], max: [0.4, 0.4, 0.4], material: blue });
      scene.render();
      fluid.simulation.spawnBlock({ min: [0.5, 0, 0], max: [0.9, 0.4, 0.4], material: red });
      for (const id of blueIds) fluid.simulation.removeParticle(id);
      fluid.renderMode = 'surface';
      const surfaceMaterial = fluid.surfaceMesh?.material as PBRMaterial | undefined;
      expect(surfaceMaterial).toBeDefined();
      // The albedo is the base color times 0.35 (the body color of water under its reflection).
      expect(surfaceMaterial?.albedoColor.asArray()).toEqual([0.35, 0, 0]);
      fluid.renderMode = 'splats';
      const splatMaterial = fluid.splatMesh?.material as StandardMaterial | undefined;
      expect(splatMaterial?.diffuseColor.asArray()).toEqual([1, 0, 0]);
      // A view made before any particle exists takes the color once the first one is there.
      fluid.renderMode = 'none';
      for (const id of fluid.simulation.particles()) fluid.simulation.removeParticle(id);
      fluid.renderMode = 'surface';
      const emptyMaterial = fluid.surfaceMesh?.material as PBRMaterial | undefined;
      const fallback = [0.2, 0.45, 0.9];
      const albedo = emptyMaterial?.albedoColor.asArray() ?? [];
      for (let k = 0; k < 3; k++) expect(albedo[k]).toBeCloseTo(0.35 * fallback[k], 6);
      fluid.simulation.spawnBlock({ min: [0, 0, 0], max: [0.4, 0.4, 0.4], material: red });
      scene.render();
      expect(emptyMaterial?.albedoColor.asArray()).toEqual([0.35, 0, 0]);
      fluid.dispose();
    } finally {
      engine.dispose();
    }
  });

  it('refuses bad surface options with a FluidError', async () => {
    const engine = new NullEngine();
    try {
      const scene = new Scene(engine);
      await expect(FluidPlugin.create(scene, { surfaceUpdateInterval: 0 })).rejects.toThrow(FluidError);
      await expect(FluidPlugin.create(scene, { surface: { isoLevel: 1.5 } })).rejects.toThrow(/isoLevel/);
      await expect(FluidPlugin.create(scene, { surface: { fitDistance: -1 } })).rejects.toThrow(/fitDistance/);
      await expect(FluidPlugin.create(scene, { surface: { smoothing: { iterations: 0 } } })).rejects.toThrow(
        /iterations/,
      );
      await expect(FluidPlugin.create(scene, { surface: { color: [1, 0, 2] } })).rejects.toThrow(/color\[2\]/);
      const simulation = new FluidSimulation({ particleRadius: 0.05, capacity: 16 });
      expect(() => new SurfaceMeshView(scene, simulation, {}, 0, [0, 0, 1])).toThrow(/interval/);
      expect(() => new SplatView(scene, simulation, {}, 1, [0, 0, Number.NaN])).toThrow(/color\[2\]/);
      const vertices = new Float32Array(6);
      expect(() => fitSurfaceToColliders(simulation, vertices, new Float32Array(6), 3, 0.01)).toThrow(/vertexCount/);
      expect(() => fitSurfaceToColliders(simulation, vertices, new Float32Array(6), 2, -1)).toThrow(/fitDistance/);
      expect(fitSurfaceToColliders(simulation, vertices, new Float32Array(6), 2, 0.01)).toBe(0);
      expect(() => new SurfaceExtractor({ particleRadius: Number.NaN })).toThrow(FluidError);
      const extractor = new SurfaceExtractor({ particleRadius: 0.05 });
      const particles = new SurfaceParticleBuffer();
      particles.resize(1);
      particles.x[0] = Number.NaN;
      particles.volume[0] = 1e-3;
      expect(() => extractor.extract(particles)).toThrow(/particle 0/);
    } finally {
      engine.dispose();
    }
  });
});

describe('surface particles of scattered particles (hashed cells)', () => {
  it('finds both of two far-apart blobs entirely on their surface', () => {
    const r = 0.05;
    const particles = new SurfaceParticleBuffer();
    particles.resize(16);
    for (let p = 0; p < 16; p++) {
      const far = p >= 8 ? 1000 : 0;
      particles.x[p] = far + (p & 1) * 2 * r;
      particles.y[p] = ((p >> 1) & 1) * 2 * r;
      particles.z[p] = -far + ((p >> 2) & 1) * 2 * r;
      particles.volume[p] = (2 * r) ** 3;
    }
    const detector = new SurfaceParticleDetector({ kernelRadius: 4 * r });
    // Two 2 x 2 x 2 blocks: every particle is on the surface, its normal away from its block's center.
    expect(detector.detect(particles)).toBe(16);
    for (let s = 0; s < 16; s++) {
      const p = detector.indices[s];
      const block = p >= 8 ? 1000 : 0;
      const dx = particles.x[p] - (block + r);
      const dz = particles.z[p] - (-block + r);
      const dy = particles.y[p] - r;
      expect(
        dx * detector.normals[3 * s] + dy * detector.normals[3 * s + 1] + dz * detector.normals[3 * s + 2],
      ).toBeGreaterThan(0);
    }
  });
});
