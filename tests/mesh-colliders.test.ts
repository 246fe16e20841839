/**
 * Mesh colliders: signed distance fields as solids and containers, moved, rotated and scaled; no leaks
 * through thin or moving walls; wall weights near mesh walls (Harada et al. 2007, section 4).
 */
import { describe, expect, it } from 'vitest';
import {
  bakeSignedDistanceField,
  createBoxMesh,
  createGlassMesh,
  createSphereMesh,
  createTorusMesh,
  FluidError,
  FluidSimulation,
  SignedDistanceField,
} from '../src';

type Vector = [number, number, number];
type Quaternion = [number, number, number, number];

/** Quaternion of a rotation by `angle` about the unit `axis`. */
function axisAngle(axis: Vector, angle: number): Quaternion {
  const s = Math.sin(angle / 2);
  return [axis[0] * s, axis[1] * s, axis[2] * s, Math.cos(angle / 2)];
}

/** World point to a collider's local space: R^T (p - t) / scale. */
function toLocal(p: Vector, position: Vector, rotation: Quaternion, scale = 1): Vector {
  const [qx, qy, qz, qw] = rotation;
  const v: Vector = [p[0] - position[0], p[1] - position[1], p[2] - position[2]];
  // Rotate by the conjugate quaternion: v' = v + 2 w (u x v) + 2 u x (u x v) with u = -q.xyz.
  const ux = -qx;
  const uy = -qy;
  const uz = -qz;
  const cx = uy * v[2] - uz * v[1];
  const cy = uz * v[0] - ux * v[2];
  const cz = ux * v[1] - uy * v[0];
  const rx = v[0] + 2 * (qw * cx + (uy * cz - uz * cy));
  const ry = v[1] + 2 * (qw * cy + (uz * cx - ux * cz));
  const rz = v[2] + 2 * (qw * cz + (ux * cy - uy * cx));
  return [rx / scale, ry / scale, rz / scale];
}

/** A field filled from an analytic signed distance function (exact node values, analytic gradient). */
function analyticField(distance: (x: number, y: number, z: number) => number, min: Vector, max: Vector, cell: number) {
  const counts: Vector = [0, 1, 2].map((axis) => Math.ceil((max[axis] - min[axis]) / cell) + 1) as Vector;
  const values = new Float32Array(counts[0] * counts[1] * counts[2] * 4);
  const e = 1e-5;
  let o = 0;
  for (let k = 0; k < counts[2]; k++)
    for (let j = 0; j < counts[1]; j++)
      for (let i = 0; i < counts[0]; i++) {
        const x = min[0] + i * cell;
        const y = min[1] + j * cell;
        const z = min[2] + k * cell;
        const gx = distance(x + e, y, z) - distance(x - e, y, z);
        const gy = distance(x, y + e, z) - distance(x, y - e, z);
        const gz = distance(x, y, z + e) - distance(x, y, z - e);
        const length = Math.hypot(gx, gy, gz) || 1;
        values[o++] = distance(x, y, z);
        values[o++] = gx / length;
        values[o++] = gy / length;
        values[o++] = gz / length;
      }
  return new SignedDistanceField({ origin: min, cellSize: cell, nodeCounts: counts, values });
}

describe('SignedDistanceField sampling', () => {
  it('reproduces a linear field exactly and extends it outside the grid by the distance to the box', () => {
    const field = analyticField((_x, y) => y - 0.3, [0, 0, 0], [1, 1, 1], 0.1);
    const gradient = [0, 0, 0];
    for (const [x, y, z] of [
      [0.13, 0.47, 0.91],
      [0.5, 0.3, 0.5],
      [0.99, 0.01, 0.33],
    ]) {
      expect(field.sample(x, y, z)).toBeCloseTo(y - 0.3, 6);
      field.gradient(x, y, z, gradient);
      expect(gradient[1]).toBeCloseTo(1, 6);
    }
    // 0.5 m above the grid: the top value (0.7) plus 0.5, gradient straight up.
    expect(field.sample(0.5, 1.5, 0.5)).toBeCloseTo(1.2, 6);
    expect(field.gradient(0.5, 1.5, 0.5, gradient)[1]).toBeCloseTo(1, 6);
  });

  it('rejects values that do not match the grid', () => {
    expect(
      () =>
        new SignedDistanceField({ origin: [0, 0, 0], cellSize: 1, nodeCounts: [2, 2, 2], values: new Float32Array(3) }),
    ).toThrow(FluidError);
    expect(
      () =>
        new SignedDistanceField({
          origin: [0, 0, 0],
          cellSize: 0,
          nodeCounts: [2, 2, 2],
          values: new Float32Array(32),
        }),
    ).toThrow(/cellSize is 0/);
  });
});

describe('mesh collider API', () => {
  it('checks the field and the scaling', () => {
    const simulation = new FluidSimulation();
    const field = bakeSignedDistanceField(createSphereMesh(0.5, 16), { resolution: 16 });
    expect(() => simulation.addCollider({ shape: 'mesh', field: {} as unknown as SignedDistanceField })).toThrowError(
      /field is .* needs a SignedDistanceField/,
    );
    const collider = simulation.addCollider({ shape: 'mesh', field });
    expect(() => simulation.setColliderTransform(collider, { scaling: [1, 2, 1] })).toThrowError(/uniform scaling/);
    expect(() => simulation.setColliderTransform(collider, { scaling: 0 })).toThrowError(/scaling is 0; allowed range/);
    simulation.setColliderTransform(collider, { scaling: [2, 2, 2] });
    expect(simulation.components.Collider.scale[collider]).toBe(2);
    // One field serves several colliders and its place is freed with the last of them.
    const second = simulation.addCollider({ shape: 'mesh', field });
    expect(simulation.fields.filter((entry) => entry !== undefined)).toHaveLength(1);
    simulation.removeCollider(collider);
    expect(simulation.fields[0]).toBe(field);
    simulation.removeCollider(second);
    expect(simulation.fields[0]).toBeUndefined();
    // A game edit that points a mesh collider at no field is caught at the next step.
    const third = simulation.addCollider({ shape: 'mesh', field });
    simulation.components.Collider.field[third] = 7;
    expect(() => simulation.step()).toThrowError(/Collider.field\[\d+\] is 7/);
  });
});

describe('mesh colliders in the solver', () => {
  it('a scaled, rotated, moved mesh sphere acts like the analytic sphere it was baked from', () => {
    // A unit sphere mesh, scaled to 0.15 m and rotated (a sphere is rotation-invariant: the pose must not
    // change the result), against the analytic sphere of radius 0.15 m at the same place.
    const field = bakeSignedDistanceField(createSphereMesh(1, 64), { cellSize: 0.04 });
    const run = (mesh: boolean) => {
      const simulation = new FluidSimulation({ particleRadius: 0.025 });
      const water = simulation.addMaterial({});
      simulation.addCollider({ shape: 'box', min: [-0.5, 0, -0.5], max: [0.5, 1, 0.5], container: true });
      if (mesh) {
        const sphere = simulation.addCollider({ shape: 'mesh', field });
        simulation.setColliderTransform(sphere, {
          position: [0, 0.3, 0],
          rotation: axisAngle([0.6, 0, 0.8], 1.1),
          scaling: 0.15,
          teleport: true,
        });
      } else {
        simulation.addCollider({ shape: 'sphere', center: [0, 0.3, 0], radius: 0.15 });
      }
      simulation.spawnBlock({ min: [-0.15, 0.5, -0.15], max: [0.15, 0.7, 0.15], material: water });
      let closest = 1;
      for (let frame = 0; frame < 60; frame++) {
        simulation.step();
        for (const eid of simulation.particles()) {
          const { x, y, z } = simulation.Position;
          closest = Math.min(closest, Math.hypot(x[eid], y[eid] - 0.3, z[eid]) - 0.15);
        }
      }
      let heightSum = 0;
      for (const eid of simulation.particles()) heightSum += simulation.Position.y[eid];
      return { closest, meanHeight: heightSum / simulation.particleCount };
    };
    const analytic = run(false);
    const mesh = run(true);
    const r = 0.025;
    console.log(
      `mesh sphere vs analytic: closest approach ${mesh.closest.toFixed(4)} vs ${analytic.closest.toFixed(4)} m, mean height ${mesh.meanHeight.toFixed(4)} vs ${analytic.meanHeight.toFixed(4)} m`,
    );
    // The baked sphere is a 64-segment polyhedron sampled on 0.04 x 0.15 = 6 mm cells: within 2 mm of r.
    expect(mesh.closest).toBeGreaterThan(r - 0.002);
    expect(Math.abs(mesh.meanHeight - analytic.meanHeight)).toBeLessThan(0.01);
  });

  it('a thin fast mesh paddle does not tunnel (2 cm thick, 6 m/s = 5 cm per substep)', () => {
    const field = bakeSignedDistanceField(createBoxMesh([-0.01, -0.3, -0.3], [0.01, 0.3, 0.3]), { cellSize: 0.005 });
    const simulation = new FluidSimulation({ particleRadius: 0.025, gravity: [0, 0, 0] });
    const water = simulation.addMaterial({});
    const paddle = simulation.addCollider({ shape: 'mesh', field });
    const ids = simulation.spawnBlock({ min: [0.05, -0.1, -0.1], max: [0.25, 0.1, 0.1], material: water });
    let x = 0;
    for (let frame = 0; frame < 15; frame++) {
      x += 6 / 60;
      simulation.setColliderTransform(paddle, { position: [x, 0, 0] });
      simulation.step();
    }
    let behind = 0;
    let minimumSpeed = Number.POSITIVE_INFINITY;
    for (const eid of ids) {
      // Through the paddle: behind it and within its face (water flowing round its edges is not tunnelling).
      const onFace = Math.abs(simulation.Position.y[eid]) < 0.3 && Math.abs(simulation.Position.z[eid]) < 0.3;
      if (simulation.Position.x[eid] < x && onFace) behind++;
      if (simulation.Position.x[eid] < x + 0.06) minimumSpeed = Math.min(minimumSpeed, simulation.Velocity.x[eid]);
    }
    expect(behind).toBe(0);
    // Particles against the paddle move with it.
    expect(minimumSpeed).toBeGreaterThan(0.8 * 6);
  });

  it('a box container shaken at 3 m/s and spun at 2 rad/s keeps every particle, analytic and baked', () => {
    const half = 0.3;
    const boxField = bakeSignedDistanceField(createBoxMesh([-half, -half, -half], [half, half, half]), {
      cellSize: 0.02,
    });
    for (const kind of ['analytic', 'mesh'] as const) {
      const simulation = new FluidSimulation({ particleRadius: 0.025 });
      const water = simulation.addMaterial({});
      const box =
        kind === 'mesh'
          ? simulation.addCollider({ shape: 'mesh', field: boxField, container: true })
          : simulation.addCollider({
              shape: 'box',
              min: [-half, -half, -half],
              max: [half, half, half],
              container: true,
            });
      simulation.spawnBlock({ min: [-half, -half, -half], max: [half, 0, half], material: water });
      const count = simulation.particleCount;
      // Shake along x with a peak speed of 3 m/s (2 Hz) and spin about z at 2 rad/s, for 3 s.
      const omega = 2 * Math.PI * 2;
      const amplitude = 3 / omega;
      let outside = 0;
      let minimumClearance = 1;
      for (let frame = 1; frame <= 180; frame++) {
        const t = frame / 60;
        const position: Vector = [amplitude * Math.sin(omega * t), 0, 0];
        const rotation = axisAngle([0, 0, 1], 2 * t);
        simulation.setColliderTransform(box, { position, rotation });
        simulation.step();
        for (const eid of simulation.particles()) {
          const local = toLocal(
            [simulation.Position.x[eid], simulation.Position.y[eid], simulation.Position.z[eid]],
            position,
            rotation,
          );
          const clearance = half - Math.max(Math.abs(local[0]), Math.abs(local[1]), Math.abs(local[2]));
          if (clearance < 0) outside++;
          minimumClearance = Math.min(minimumClearance, clearance);
        }
      }
      console.log(
        `shaken ${kind} box: ${count} particles, ${outside} particle-frames outside, smallest clearance ${minimumClearance.toFixed(4)} m`,
      );
      expect(simulation.particleCount).toBe(count);
      expect(outside).toBe(0);
      // Held at one particle radius from the walls, corners included (repeated projection), within 10%.
      expect(minimumClearance).toBeGreaterThan(0.9 * 0.025);
    }
  });

  it('a torus-shaped container shaken and tilted for 10 s loses zero particles', () => {
    const major = 0.4;
    const minor = 0.15;
    const field = bakeSignedDistanceField(createTorusMesh(major, minor, 96, 32), { cellSize: 0.015 });
    const simulation = new FluidSimulation({ particleRadius: 0.025 });
    const water = simulation.addMaterial({});
    const torus = simulation.addCollider({ shape: 'mesh', field, container: true });
    simulation.spawnBlock({ min: [-0.6, -0.15, -0.6], max: [0.6, 0.05, 0.6], material: water });
    // Keep the particles that lie inside the tube, at least one radius from its wall.
    const tube = (x: number, y: number, z: number) => Math.hypot(Math.hypot(x, z) - major, y) - minor;
    for (const eid of simulation.particles()) {
      if (tube(simulation.Position.x[eid], simulation.Position.y[eid], simulation.Position.z[eid]) > -0.025) {
        simulation.removeParticle(eid);
      }
    }
    const count = simulation.particleCount;
    expect(count).toBeGreaterThan(300);
    let leaked = 0;
    let deepest = -1;
    for (let frame = 1; frame <= 600; frame++) {
      const t = frame / 60;
      // Shaken sideways (peak 3 m/s at 1.5 Hz) and tilted back and forth about x (peak 2 rad/s).
      const omega = 2 * Math.PI * 1.5;
      const position: Vector = [(3 / omega) * Math.sin(omega * t), 0.1 * Math.sin(2 * omega * t), 0];
      const rotation = axisAngle([1, 0, 0], 0.5 * Math.sin(4 * t));
      simulation.setColliderTransform(torus, { position, rotation });
      simulation.step();
      for (const eid of simulation.particles()) {
        const [x, y, z] = toLocal(
          [simulation.Position.x[eid], simulation.Position.y[eid], simulation.Position.z[eid]],
          position,
          rotation,
        );
        const distance = tube(x, y, z);
        deepest = Math.max(deepest, distance);
        if (distance > 0) leaked++;
      }
    }
    console.log(
      `torus container: ${count} particles, 600 steps, ${leaked} particle-frames outside the tube, largest distance to the tube wall ${deepest.toFixed(4)} m (negative: inside)`,
    );
    expect(simulation.particleCount).toBe(count);
    expect(leaked).toBe(0);
  });

  it('a glass with walls one particle radius thick, poured full, holds every particle', () => {
    const r = 0.01;
    const glass = { outerRadius: 0.1, height: 0.15, wallThickness: r, bottomThickness: r, segments: 48 };
    const field = bakeSignedDistanceField(createGlassMesh(glass), { cellSize: 0.004 });
    const simulation = new FluidSimulation({ particleRadius: r, capacity: 4000 });
    const water = simulation.addMaterial({});
    simulation.addCollider({ shape: 'box', min: [-0.3, 0, -0.3], max: [0.3, 0.6, 0.3], container: true });
    const glassCollider = simulation.addCollider({ shape: 'mesh', field });
    simulation.setColliderTransform(glassCollider, { position: [0, 0.001, 0], teleport: true });
    // Inner volume pi 0.09^2 x 0.14 = 3.56 l = 445 particles at rest spacing; pour 396 as a stream.
    let poured = 0;
    let insideWall = 0;
    let outsideBelowRim = 0;
    for (let frame = 0; frame < 240; frame++) {
      if (frame % 3 === 0 && poured < 396) {
        poured += simulation.spawnBlock({
          min: [-0.03, 0.2, -0.03],
          max: [0.03, 0.22, 0.03],
          material: water,
          velocity: [0, -1, 0],
        }).length;
      }
      simulation.step();
      for (const eid of simulation.particles()) {
        const x = simulation.Position.x[eid];
        const y = simulation.Position.y[eid];
        const z = simulation.Position.z[eid];
        if (field.sample(x, y - 0.001, z) < 0) insideWall++;
        if (Math.hypot(x, z) > glass.outerRadius && y < glass.height) outsideBelowRim++;
      }
    }
    let inGlass = 0;
    let topSurface = 0;
    for (const eid of simulation.particles()) {
      const { x, y, z } = simulation.Position;
      if (Math.hypot(x[eid], z[eid]) < glass.outerRadius - glass.wallThickness && y[eid] < glass.height) inGlass++;
      topSurface = Math.max(topSurface, y[eid]);
    }
    console.log(
      `glass: ${poured} particles poured, ${inGlass} in the glass, ${insideWall} particle-frames inside the wall, ${outsideBelowRim} outside below the rim, fill level ${topSurface.toFixed(3)} m of ${glass.height} m`,
    );
    expect(insideWall).toBe(0);
    expect(outsideBelowRim).toBe(0);
    expect(inGlass).toBe(poured);
    expect(topSurface).toBeGreaterThan(0.1);
  });
});

describe('wall weights next to a mesh floor (Harada et al. 2007, section 4)', () => {
  /** Settles a pool in a baked box tank; returns the density of the floor layer and of the interior. */
  function settle(wallWeights: boolean, projection = true) {
    const r = 0.025;
    const tank: [Vector, Vector] = [
      [0, 0, 0],
      [1, 1, 0.5],
    ];
    const field = bakeSignedDistanceField(createBoxMesh(tank[0], tank[1]), { cellSize: 0.025 });
    const simulation = new FluidSimulation({
      particleRadius: r,
      iterations: 4,
      ...(projection ? {} : { projection: false }),
    });
    const water = simulation.addMaterial({});
    simulation.addCollider({ shape: 'mesh', field, container: true, wallWeights });
    simulation.spawnBlock({ min: [0, 0, 0], max: [1, 0.5, 0.5], material: water });
    for (let frame = 0; frame < 150; frame++) simulation.step();
    const h = simulation.settings.kernelRadius;
    const { Position, Density } = simulation;
    let floorSum = 0;
    let floorCount = 0;
    let floorHeight = 0;
    let interiorSum = 0;
    let interiorCount = 0;
    let surface = 0;
    for (const eid of simulation.particles()) surface = Math.max(surface, Position.y[eid]);
    for (const eid of simulation.particles()) {
      const x = Position.x[eid];
      const y = Position.y[eid];
      const z = Position.z[eid];
      // Away from the side walls by a kernel radius.
      if (x < h || x > 1 - h || z < h || z > 0.5 - h) continue;
      if (y < 2 * r) {
        floorSum += Density[eid];
        floorHeight += y;
        floorCount++;
      } else if (y > h + 2 * r && y < surface - h - r) {
        interiorSum += Density[eid];
        interiorCount++;
      }
    }
    const rho0 = simulation.components.FluidMaterial.restDensity[water];
    // Particles per unit height of the floor layer (2r thick) against the interior's (same area).
    const interiorHeight = surface - h - r - (h + 2 * r);
    return {
      stacking: floorCount / (2 * r) / (interiorCount / interiorHeight),
      floorError: floorSum / floorCount / rho0 - 1,
      interiorError: interiorSum / interiorCount / rho0 - 1,
      floorHeight: floorHeight / floorCount,
      floorCount,
      interiorCount,
      particles: simulation.particleCount,
    };
  }

  it('with wall weights the floor layer is within 2% of the interior density; without, it is not', () => {
    const withWeights = settle(true);
    // The control leaves the coarse pressure projection off too: it holds the floor layer up by itself
    // (stacking 1.07 without wall weights), which would hide what the wall weights do.
    const without = settle(false, false);
    const percent = (value: number) => `${(100 * value).toFixed(2)}%`;
    for (const [name, result] of [
      ['with wall weights', withWeights],
      ['without wall weights', without],
    ] as const) {
      console.log(
        `${name}: ${result.particles} particles, floor layer (${result.floorCount}) density error ${percent(result.floorError)}, interior (${result.interiorCount}) ${percent(result.interiorError)}, floor layer mean height ${result.floorHeight.toFixed(4)} m (r = 0.025 m), floor layer number density ${result.stacking.toFixed(3)} x the interior's`,
      );
    }
    expect(Math.abs(withWeights.floorError - withWeights.interiorError)).toBeLessThan(0.02);
    // The floor layer rests one particle radius above the floor (no gap, no stacking): within 20% of r.
    expect(Math.abs(withWeights.floorHeight - 0.025)).toBeLessThan(0.2 * 0.025);
    // No stacking: the floor layer holds as many particles per unit height as the interior, within 10%.
    expect(Math.abs(withWeights.stacking - 1)).toBeLessThan(0.1);
    // Without the walls' contribution the floor particles see a cut kernel: they crowd into the floor layer
    // and the interior is left under rest density.
    expect(without.stacking).toBeGreaterThan(1.15);
    expect(Math.abs(without.floorError - without.interiorError)).toBeGreaterThan(0.03);
  });
});
