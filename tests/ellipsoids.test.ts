/**
 * The anisotropic particles on the CPU backend (systems/ellipsoids/cpu.ts, `FluidSimulation.writeEllipsoids`;
 * Yu and Turk 2013; docs/rendering.md, "Anisotropic particles"), with the defaults unless said:
 *
 * - The Jacobi rotations diagonalise random symmetric matrices: V diag V^T gives them back within 1e-12 of
 *   their norm, V orthonormal within 1e-12.
 * - An exact lattice block (10 x 10 x 10 at r = 2 cm, its lists built as a step builds them): an interior
 *   particle (a full neighbourhood) is the sphere of the drawn radius R, M = R^2 I within 1e-6 R^2 (float32), its
 *   centre where the particle is (by symmetry its neighbours' mean is itself); a particle in the middle of the
 *   top face is flattened along the face's normal (its shortest semi-axis vertical, 0.56 R; bound 0.7 R), its
 *   other two at the drawn radius (the cap: no semi-axis passes R), and drawn lower than the particle (lambda =
 *   0.5 of its neighbours' mean offset: 8.2 mm, 0.41 r).
 * - A line of particles (spacing 2r): each middle particle's ellipsoid points along the line, the longest
 *   semi-axis capped at R, the other two 16^(1/3) / 4 R = 0.630 R (the volume-keeping scale with the k_r = 4
 *   clamp), to 1e-6.
 * - A particle without neighbours is the sphere of `isolatedScale` R; one spawned after the last step is the
 *   sphere of R at its position.
 * - The motion stretch adds exactly (s dt / 2)^2 v v^T to the shape.
 * - Bad options and arguments are refused with a FluidError naming the value and the range.
 */
import { describe, expect, it } from 'vitest';
import { FluidError, FluidSimulation } from '../src';
import { computeEllipsoids, createEllipsoidScratch, jacobiEigen } from '../src/systems/ellipsoids/cpu';
import { ELLIPSOID_FLOATS, resolveAnisotropy } from '../src/systems/ellipsoids/settings';
import { neighbourSystem } from '../src/systems/neighbours/cpu';
import { contextWithParticles } from './helpers';

const R = 0.02;
const DRAWN = 1.6 * R;

/** The ellipsoids of every particle of `simulation` (and the ids in their order). */
function ellipsoids(simulation: FluidSimulation, options = {}): { ids: Uint32Array; data: Float32Array } {
  const ids = simulation.particles();
  const data = new Float32Array(ids.length * ELLIPSOID_FLOATS);
  simulation.writeEllipsoids(data, ids, ids.length, DRAWN, options);
  return { ids, data };
}

/** The shape matrix at place `place` (row-major 3 x 3). */
function shapeAt(data: Float32Array, place: number): number[] {
  const o = place * ELLIPSOID_FLOATS;
  const [xx, xy, xz, yy, yz, zz] = data.subarray(o + 4, o + 10);
  return [xx, xy, xz, xy, yy, yz, xz, yz, zz];
}

/** Eigenvalues (descending) and their unit eigenvectors of a symmetric 3 x 3 matrix. */
function eigen(matrix: number[]): { values: number[]; vectors: number[][] } {
  const a = Float64Array.from(matrix);
  const v = new Float64Array(9);
  jacobiEigen(a, v);
  const order = [0, 1, 2].sort((i, j) => a[4 * j] - a[4 * i]);
  return {
    values: order.map((k) => a[4 * k]),
    vectors: order.map((k) => [v[k], v[3 + k], v[6 + k]]),
  };
}

/** A still block of side `count` particles at r = 2 cm, no gravity, after one step. */
function stillBlock(count: number): FluidSimulation {
  const simulation = new FluidSimulation({ particleRadius: R, capacity: count ** 3 + 10, gravity: [0, 0, 0] });
  const water = simulation.addMaterial({});
  const side = count * 2 * R;
  simulation.spawnBlock({ min: [0, 0, 0], max: [side, side, side], material: water });
  simulation.step();
  return simulation;
}

describe('anisotropic particles (CPU)', () => {
  it('diagonalises symmetric matrices by Jacobi rotations', () => {
    let seed = 7;
    const random = () => {
      seed = (seed * 16807) % 2147483647;
      return seed / 2147483647 - 0.5;
    };
    let worst = 0;
    let worstOrthogonality = 0;
    for (let trial = 0; trial < 200; trial++) {
      const m = new Float64Array(9);
      for (let i = 0; i < 3; i++) {
        for (let j = i; j < 3; j++) {
          const value = random() * 10 ** (3 * random());
          m[3 * i + j] = value;
          m[3 * j + i] = value;
        }
      }
      const a = Float64Array.from(m);
      const v = new Float64Array(9);
      jacobiEigen(a, v);
      const norm = Math.sqrt(m.reduce((sum, value) => sum + value * value, 0));
      for (let i = 0; i < 3; i++) {
        for (let j = 0; j < 3; j++) {
          let back = 0;
          let dot = 0;
          for (let k = 0; k < 3; k++) {
            back += v[3 * i + k] * a[4 * k] * v[3 * j + k];
            dot += v[3 * k + i] * v[3 * k + j];
          }
          worst = Math.max(worst, Math.abs(back - m[3 * i + j]) / norm);
          worstOrthogonality = Math.max(worstOrthogonality, Math.abs(dot - (i === j ? 1 : 0)));
        }
      }
    }
    expect(worst).toBeLessThan(1e-12);
    expect(worstOrthogonality).toBeLessThan(1e-12);
  });

  it('draws an interior particle as the sphere, and one on the top face flat along its normal', () => {
    // An exact lattice, 10 x 10 x 10 at spacing 2r, its neighbour lists built as a step builds them.
    const count = 10;
    const positions: number[] = [];
    for (let x = 0; x < count; x++) {
      for (let y = 0; y < count; y++) for (let z = 0; z < count; z++) positions.push(2 * R * x, 2 * R * y, 2 * R * z);
    }
    const ctx = contextWithParticles(positions, R);
    neighbourSystem(ctx);
    const s = ctx.solver;
    const n = s.count;
    const { Position } = ctx.components;
    for (let i = 0; i < n; i++) {
      Position.x[s.entity[i]] = s.positionX[i];
      Position.y[s.entity[i]] = s.positionY[i];
      Position.z[s.entity[i]] = s.positionZ[i];
    }
    s.listedCount = n;
    const ids = s.entity.slice(0, n);
    const data = new Float32Array(n * ELLIPSOID_FLOATS);
    computeEllipsoids(ctx, resolveAnisotropy({}), DRAWN, ids, n, data, createEllipsoidScratch());
    const side = 2 * R * (count - 1);
    let interior = 0;
    let interiorError = 0;
    let centreError = 0;
    const top: { shortest: number; tilt: number; others: number[]; drop: number }[] = [];
    for (let place = 0; place < n; place++) {
      const id = ids[place];
      const x = Position.x[id];
      const y = Position.y[id];
      const z = Position.z[id];
      const o = place * ELLIPSOID_FLOATS;
      // At least h = 2 spacings from every face: a full neighbourhood.
      const inside = (value: number) => value > 3.5 * R && value < side - 3.5 * R;
      const m = shapeAt(data, place);
      if (inside(x) && inside(y) && inside(z)) {
        interior++;
        for (let k = 0; k < 9; k++) {
          interiorError = Math.max(interiorError, Math.abs(m[k] - (k % 4 === 0 ? DRAWN * DRAWN : 0)) / DRAWN ** 2);
        }
        centreError = Math.max(
          centreError,
          Math.abs(data[o] - x),
          Math.abs(data[o + 1] - y),
          Math.abs(data[o + 2] - z),
        );
      }
      if (y > side - 1e-9 && inside(x) && inside(z)) {
        const { values, vectors } = eigen(m);
        top.push({
          shortest: Math.sqrt(values[2]) / DRAWN,
          tilt: (Math.acos(Math.min(1, Math.abs(vectors[2][1]))) * 180) / Math.PI,
          others: [Math.sqrt(values[0]) / DRAWN, Math.sqrt(values[1]) / DRAWN],
          drop: y - data[o + 1],
        });
      }
    }
    console.log(
      `lattice block: ${interior} interior, shape error ${interiorError.toExponential(2)} R^2, centre ${centreError.toExponential(2)} m; ` +
        `${top.length} in the middle of the top face: shortest ${top[0].shortest.toFixed(3)} R, tilt ${top[0].tilt.toExponential(2)} deg, ` +
        `others ${top[0].others.map((value) => value.toFixed(4)).join(', ')} R, drawn ${(1000 * top[0].drop).toFixed(2)} mm lower`,
    );
    expect(interior).toBe(6 ** 3);
    // float32 output: M within a few units of float32 rounding of R^2.
    expect(interiorError).toBeLessThan(1e-6);
    expect(centreError).toBeLessThan(1e-7);
    expect(top.length).toBe(6 * 6);
    for (const particle of top) {
      expect(particle.shortest).toBeLessThan(0.7);
      expect(particle.tilt).toBeLessThan(1e-3);
      for (const other of particle.others) expect(Math.abs(other - 1)).toBeLessThan(1e-6);
      expect(particle.drop).toBeGreaterThan(0.2 * R);
    }
  });

  it('draws a line of particles as a rope along it, and a lone particle as a sphere', () => {
    const simulation = new FluidSimulation({ particleRadius: R, capacity: 100, gravity: [0, 0, 0] });
    const water = simulation.addMaterial({});
    simulation.spawnBlock({ min: [0, 0, 0], max: [20 * 2 * R, 2 * R, 2 * R], material: water });
    simulation.spawnBlock({ min: [0, 1, 0], max: [2 * R, 1 + 2 * R, 2 * R], material: water });
    simulation.step();
    const expectedThin = (16 ** (1 / 3) / 4) ** 2;
    for (const [options, lone] of [
      [{}, 1],
      [{ isolatedScale: 0.5 }, 0.25],
    ] as const) {
      const { ids, data } = ellipsoids(simulation, { ...options, motionStretch: 0 });
      let middle = 0;
      for (let place = 0; place < ids.length; place++) {
        const m = shapeAt(data, place);
        const x = simulation.Position.x[ids[place]];
        if (simulation.Position.y[ids[place]] > 0.5) {
          for (let k = 0; k < 9; k++) expect(Math.abs(m[k] - (k % 4 === 0 ? lone * DRAWN ** 2 : 0))).toBeLessThan(1e-9);
          continue;
        }
        if (x < 4 * R || x > 36 * R) continue;
        middle++;
        const { values, vectors } = eigen(m);
        expect(Math.abs(vectors[0][0])).toBeGreaterThan(0.9999);
        expect(Math.abs(values[0] / DRAWN ** 2 - 1)).toBeLessThan(1e-6);
        expect(Math.abs(values[1] / DRAWN ** 2 - expectedThin)).toBeLessThan(1e-6);
        expect(Math.abs(values[2] / DRAWN ** 2 - expectedThin)).toBeLessThan(1e-6);
      }
      expect(middle).toBeGreaterThan(10);
    }
  });

  it('draws a particle spawned since the last step as the sphere at its position', () => {
    const simulation = stillBlock(4);
    const water =
      simulation.particles().length > 0 ? simulation.components.Particle.material[simulation.particles()[0]] : 0;
    const [late] = simulation.spawnBlock({ min: [1, 1, 1], max: [1 + 2 * R, 1 + 2 * R, 1 + 2 * R], material: water });
    const ids = Uint32Array.of(late);
    const data = new Float32Array(ELLIPSOID_FLOATS);
    simulation.writeEllipsoids(data, ids, 1, DRAWN, { motionStretch: 0 });
    expect([data[0], data[1], data[2]]).toEqual([
      Math.fround(simulation.Position.x[late]),
      Math.fround(simulation.Position.y[late]),
      Math.fround(simulation.Position.z[late]),
    ]);
    expect(shapeAt(data, 0)).toEqual([DRAWN ** 2, 0, 0, 0, DRAWN ** 2, 0, 0, 0, DRAWN ** 2].map(Math.fround));
  });

  it('stretches a moving particle along its velocity by (s dt / 2)^2 v v^T', () => {
    const simulation = new FluidSimulation({ particleRadius: R, capacity: 2000 });
    const water = simulation.addMaterial({});
    simulation.spawnBlock({ min: [0, 0.5, 0], max: [0.2, 0.7, 0.2], material: water });
    for (let k = 0; k < 10; k++) simulation.step();
    const still = ellipsoids(simulation, { motionStretch: 0 });
    const moving = ellipsoids(simulation, { motionStretch: 2 });
    const dt = simulation.settings.timeStep;
    let worst = 0;
    let largest = 0;
    for (let place = 0; place < still.ids.length; place++) {
      const id = still.ids[place];
      const v = [simulation.Velocity.x[id], simulation.Velocity.y[id], simulation.Velocity.z[id]];
      const a = shapeAt(still.data, place);
      const b = shapeAt(moving.data, place);
      for (let i = 0; i < 3; i++) {
        for (let j = 0; j < 3; j++) {
          const added = dt * dt * v[i] * v[j];
          largest = Math.max(largest, Math.abs(added));
          worst = Math.max(worst, Math.abs(b[3 * i + j] - a[3 * i + j] - added));
        }
      }
    }
    // A fall of 10 steps: v about 1.6 m/s, so the stretch adds up to (2 dt / 2 x 1.6)^2, 7e-4 m^2.
    expect(largest).toBeGreaterThan(1e-4);
    expect(worst).toBeLessThan(1e-7 * largest + 1e-12);
  });

  it('refuses bad options and arguments, naming the value and the range', () => {
    const simulation = stillBlock(3);
    const ids = simulation.particles();
    const data = new Float32Array(ids.length * ELLIPSOID_FLOATS);
    const attempt = (run: () => void) => {
      try {
        run();
      } catch (error) {
        expect(error).toBeInstanceOf(FluidError);
        return (error as Error).message;
      }
      throw new Error('not refused');
    };
    expect(attempt(() => simulation.writeEllipsoids(data, ids, ids.length, DRAWN, { smoothing: 2 }))).toBe(
      'writeEllipsoids: anisotropy.smoothing is 2; allowed range is [0, 1]',
    );
    expect(attempt(() => simulation.writeEllipsoids(data, ids, ids.length, DRAWN, { maxStretch: 0.5 }))).toMatch(
      /maxStretch is 0.5; allowed range is \[1, 16\]/,
    );
    expect(attempt(() => simulation.writeEllipsoids(data, ids, ids.length, DRAWN, { isolatedScale: 0 }))).toMatch(
      /isolatedScale is 0; allowed range is \(0, 1\]/,
    );
    expect(attempt(() => simulation.writeEllipsoids(data, ids, ids.length, DRAWN, { stretch: 1 } as never))).toMatch(
      /stretch/,
    );
    expect(attempt(() => simulation.writeEllipsoids(data, ids, ids.length, -1))).toMatch(/radius is -1/);
    expect(attempt(() => simulation.writeEllipsoids(data, ids, ids.length + 1, DRAWN))).toMatch(/count/);
    expect(attempt(() => simulation.writeEllipsoids(data.subarray(1), ids, ids.length, DRAWN))).toMatch(
      /target has length/,
    );
  });
});
