/**
 * The weakly compressible SPH solver (`solver: 'sph'`, Müller, Charypar & Gross 2003, section 3): options,
 * adaptive CFL substeps, a settling tank (no leaks, density error, hydrostatic pressure), a dam break,
 * momentum conservation of the pair forces, and snapshots.
 */

import type { AbstractEngine } from '@babylonjs/core/Engines/abstractEngine.js';
import { describe, expect, it } from 'vitest';
import { FluidError, FluidSimulation } from '../src/index';
import { systemsFor } from '../src/systems/pipeline';
import { resolveSimulationOptions } from '../src/systems/settings';
import { sphSubstepCount } from '../src/systems/sph/cpu';
import { random } from './helpers';

const GRAVITY = 9.81;

/** Live particles' positions and velocities. */
function particleState(simulation: FluidSimulation) {
  const ids = simulation.particles();
  const { Position, Velocity } = simulation;
  let maxSpeed = 0;
  let finite = true;
  for (const id of ids) {
    const values = [Position.x[id], Position.y[id], Position.z[id], Velocity.x[id], Velocity.y[id], Velocity.z[id]];
    if (!values.every(Number.isFinite)) finite = false;
    maxSpeed = Math.max(maxSpeed, Math.hypot(Velocity.x[id], Velocity.y[id], Velocity.z[id]));
  }
  return { ids, maxSpeed, finite };
}

/** Number of particles whose center is outside the box [min, max]. */
function outside(simulation: FluidSimulation, min: number[], max: number[]): number {
  const { Position } = simulation;
  let count = 0;
  for (const id of simulation.particles()) {
    const p = [Position.x[id], Position.y[id], Position.z[id]];
    if (p.some((v, axis) => !(v >= min[axis] && v <= max[axis]))) count++;
  }
  return count;
}

describe('WCSPH options', () => {
  it('defaults to PBF and reports the solver read-only', () => {
    expect(new FluidSimulation().solver).toBe('pbf');
    const simulation = new FluidSimulation({ solver: 'sph' });
    expect(simulation.solver).toBe('sph');
    expect(simulation.settings.solver).toBe('sph');
    expect(simulation.settings.sphSpeedOfSound).toBe(20);
    expect(simulation.settings.sphViscosity).toBe(10);
    expect(simulation.settings.sphSurfaceThreshold).toBeCloseTo(0.5 / 0.1, 12);
    expect(() => {
      (simulation as unknown as { solver: string }).solver = 'pbf';
    }).toThrow();
  });

  it('rejects bad solver values and bad WCSPH options with a FluidError naming them', () => {
    const bad = (options: object, pattern: RegExp) => {
      let error: unknown;
      try {
        new FluidSimulation(options);
      } catch (caught) {
        error = caught;
      }
      expect(error).toBeInstanceOf(FluidError);
      expect((error as Error).message).toMatch(pattern);
    };
    bad({ solver: 'flip' }, /solver is 'flip'; allowed values are 'pbf', 'sph' and 'mps'/);
    bad({ solver: 7 }, /solver is '7'/);
    bad({ solver: 'sph', sph: { speedOfSound: -1 } }, /sph\.speedOfSound is -1; allowed range is \[0\.1, 1000\]/);
    bad({ solver: 'sph', sph: { speedOfSound: Number.NaN } }, /sph\.speedOfSound is NaN/);
    bad({ solver: 'sph', sph: { viscosity: -0.1 } }, /sph\.viscosity is -0\.1/);
    bad({ solver: 'sph', sph: { surfaceTension: Number.POSITIVE_INFINITY } }, /sph\.surfaceTension is Infinity/);
    bad({ solver: 'sph', sph: { surfaceThreshold: -1 } }, /sph\.surfaceThreshold is -1/);
    bad({ solver: 'sph', sph: { courantNumber: 0 } }, /sph\.courantNumber is 0; allowed range is \[0\.01, 1\]/);
    bad({ solver: 'sph', sph: { maxSubsteps: 2.5 } }, /sph\.maxSubsteps is 2\.5; allowed range is an integer in/);
    bad({ solver: 'sph', sph: 'fast' }, /sph is fast; it must be an object/);
    // WCSPH and MPS run on both backends: without a WebGPU engine, 'webgpu' fails on the engine, not the solver.
    bad({ solver: 'mps', backend: 'webgpu' }, /backend is 'webgpu' but engine is missing/);
    bad({ solver: 'sph', backend: 'webgpu' }, /backend is 'webgpu' but engine is missing/);
    expect(systemsFor('webgpu', 'mps').map((system) => system.name)).toEqual([
      'emit',
      'gather',
      'mpsSubsteps',
      'gpuStep',
      'publish',
    ]);
    expect(systemsFor('webgpu', 'sph').map((system) => system.name)).toEqual([
      'emit',
      'trappedAir',
      'gather',
      'sphSubsteps',
      'gpuStep',
      'publish',
    ]);
    expect(() => systemsFor('cpu', 'flip' as never)).toThrow(/solver is 'flip'/);
  });

  it("picks WebGPU for 'auto' with a WebGPU-capable engine for every solver", () => {
    const engine = {
      isWebGPU: true,
      getCaps: () => ({ supportComputeShaders: true }),
    } as unknown as AbstractEngine;
    for (const solver of ['pbf', 'sph', 'mps'] as const) {
      expect(resolveSimulationOptions({ solver, backend: 'auto', engine }).settings.backend).toBe('webgpu');
      expect(resolveSimulationOptions({ solver, backend: 'auto' }).settings.backend).toBe('cpu');
    }
  });

  it('checks settings edited between steps', () => {
    const simulation = new FluidSimulation({ solver: 'sph' });
    simulation.addMaterial({});
    simulation.settings.sphSpeedOfSound = Number.NaN;
    expect(() => simulation.step()).toThrow(/speedOfSound is NaN/);
  });

  it('fixes sphMaxSubsteps at creation: an edit makes the step throw, a snapshot with another is refused', () => {
    const simulation = new FluidSimulation({ solver: 'sph', sph: { maxSubsteps: 64 } });
    const water = simulation.addMaterial({});
    simulation.spawnBlock({ min: [0, 0, 0], max: [0.1, 0.1, 0.1], material: water });
    simulation.settings.sphMaxSubsteps = 128;
    expect(() => simulation.step()).toThrow(FluidError);
    expect(() => simulation.step()).toThrow(
      /settings\.sphMaxSubsteps is 128; it is fixed at creation, the only allowed value is 64/,
    );
    simulation.settings.sphMaxSubsteps = 64;
    simulation.step();
    const other = new FluidSimulation({ solver: 'sph', sph: { maxSubsteps: 256 } });
    const saved = other.snapshot();
    expect(() => simulation.restore(saved)).toThrow(FluidError);
    expect(() => simulation.restore(saved)).toThrow(/sph\.maxSubsteps is 64 here but 256 in the snapshot/);
    expect(simulation.settings.sphMaxSubsteps).toBe(64);
    // fromSnapshot creates the simulation with the snapshot's value.
    expect(FluidSimulation.fromSnapshot(saved).settings.sphMaxSubsteps).toBe(256);
  });

  it('PBF keeps its system list', () => {
    const names = systemsFor('cpu', 'pbf').map((system) => system.name);
    expect(names).toEqual([
      'emit',
      'gather',
      'colliderPose',
      'predict',
      'neighbours',
      'projection',
      'density',
      'velocity',
      'viscosityVorticity',
      'multiFluid',
      'artificialBuoyancy',
      'publish',
      'diffuse',
      'boiling',
      'trappedAir',
    ]);
  });
});

describe('WCSPH adaptive substeps', () => {
  it('splits the step by the CFL and force conditions, within [substeps, maxSubsteps]', () => {
    // lambda h / (c + v) = 0.25 * 0.1 / 20 = 1.25 ms: 1/60 s needs 14 substeps.
    expect(sphSubstepCount(1 / 60, 0.1, 20, 0.25, 0, 0, 0, 2, 256)).toBe(14);
    // Faster particles: 0.025 / 30 s -> 20.
    expect(sphSubstepCount(1 / 60, 0.1, 20, 0.25, 10, 0, 0, 2, 256)).toBe(20);
    // Force condition 0.25 sqrt(0.1 / 1e5) = 0.25 ms -> 67 substeps.
    expect(sphSubstepCount(1 / 60, 0.1, 20, 0.25, 0, 1e5, 0, 2, 256)).toBe(67);
    // Viscous condition h^2 / (32 nu): the default nu = 0.01 m^2/s allows 31 ms (CFL decides); nu = 10
    // m^2/s (mu = 1e4 Pa s in water) allows 31 us -> 534 substeps.
    expect(sphSubstepCount(1 / 60, 0.1, 20, 0.25, 0, 0, 0.01, 2, 256)).toBe(14);
    expect(sphSubstepCount(1 / 60, 0.1, 20, 0.25, 0, 0, 10, 2, 1024)).toBe(534);
    expect(sphSubstepCount(1 / 60, 0.1, 20, 0.25, 0, 0, 0, 32, 256)).toBe(32);
    expect(sphSubstepCount(1 / 60, 0.1, 1000, 0.25, 0, 0, 0, 2, 256)).toBe(256);
  });

  it('reports the substeps used in stats.solverSubsteps; PBF reports settings.substeps', () => {
    const sph = new FluidSimulation({ solver: 'sph' });
    const water = sph.addMaterial({});
    sph.spawnBlock({ min: [0, 0, 0], max: [0.2, 0.2, 0.2], material: water });
    sph.step();
    // At rest: |g| frame dt = 0.16 m/s, 0.025 / 20.16 s -> 14 substeps.
    expect(sph.stats.solverSubsteps).toBe(14);
    expect(sph.stats.maxAcceleration).toBeGreaterThan(0);
    const pbf = new FluidSimulation({ substeps: 3 });
    pbf.addMaterial({});
    pbf.step();
    expect(pbf.stats.solverSubsteps).toBe(3);
    expect(pbf.stats.maxAcceleration).toBe(0);
  });
});

describe('WCSPH physics', () => {
  it('conserves linear momentum with symmetric pair forces (no gravity, no walls)', () => {
    const simulation = new FluidSimulation({
      solver: 'sph',
      gravity: [0, 0, 0],
      sph: { surfaceTension: 0 },
    });
    const water = simulation.addMaterial({});
    simulation.spawnBlock({ min: [0, 0, 0], max: [0.3, 0.3, 0.3], material: water });
    const next = random(7);
    const { Position, Velocity } = simulation;
    const ids = simulation.particles();
    for (const id of ids) {
      // Jitter the lattice (compressed pairs) and give random velocities (viscosity acts).
      Position.x[id] += 0.01 * (next() - 0.5);
      Position.y[id] += 0.01 * (next() - 0.5);
      Position.z[id] += 0.01 * (next() - 0.5);
      Velocity.x[id] = next() - 0.5;
      Velocity.y[id] = next() - 0.5;
      Velocity.z[id] = next() - 0.5;
    }
    const momentum = () => {
      const sum = [0, 0, 0];
      for (const id of simulation.particles()) {
        sum[0] += Velocity.x[id];
        sum[1] += Velocity.y[id];
        sum[2] += Velocity.z[id];
      }
      return sum;
    };
    const before = momentum();
    for (let step = 0; step < 3; step++) simulation.step();
    const after = momentum();
    // Equal masses: sum v is the momentum over m. Round-off only (216 particles, |v| <= 0.9 m/s).
    for (let axis = 0; axis < 3; axis++) expect(Math.abs(after[axis] - before[axis])).toBeLessThan(1e-9);
  });

  it('settles a tank without leaks; density error and hydrostatic pressure as measured', () => {
    const min = [0, 0, 0];
    const max = [0.5, 1.2, 0.5];
    const simulation = new FluidSimulation({ solver: 'sph', capacity: 2000 });
    const water = simulation.addMaterial({});
    simulation.addCollider({ shape: 'box', min: [0, 0, 0], max: [0.5, 1.2, 0.5], container: true });
    simulation.spawnBlock({ min: [0, 0, 0], max: [0.5, 0.8, 0.5], material: water });
    expect(simulation.particleCount).toBe(1600);
    let maxSubsteps = 0;
    for (let frame = 0; frame < 180; frame++) {
      simulation.step();
      maxSubsteps = Math.max(maxSubsteps, simulation.stats.solverSubsteps);
      expect(outside(simulation, min, max)).toBe(0);
    }
    const state = particleState(simulation);
    expect(state.finite).toBe(true);
    // Settled after 3 s: measured 0.034 m/s with the defaults (0.076 m/s before blocks were spawned in their
    // hydrostatic rest state: the uniform lattice's released compression started a sound wave of velocity
    // amplitude c_s (g H / c_s^2) = g H / c_s = 0.39 m/s that the viscosity damps); bound 0.12 m/s.
    expect(state.maxSpeed).toBeLessThan(0.12);
    // 14 substeps at rest; one more while the first pressure waves run (measured at most 15).
    expect(maxSubsteps).toBeGreaterThanOrEqual(14);
    expect(maxSubsteps).toBeLessThanOrEqual(20);
    const stats = simulation.stats;
    expect(stats.fullNeighbourhoodCount).toBeGreaterThan(200);
    // WCSPH is compressible by design: a column of height H at rest is compressed by g y / c_s^2 at depth
    // y, 9.81 * 0.8 / 400 = 2.0% at the bottom and g H / (2 c_s^2) = 0.98% on average over the column.
    // Measured mean 1.04%, max 1.93% (PBF's stats, same definition: full neighbourhoods only).
    expect(stats.meanDensityError).toBeGreaterThan(0.007);
    expect(stats.meanDensityError).toBeLessThan(0.013);
    expect(stats.maxDensityError).toBeLessThan(0.03);

    // Hydrostatic pressure: p = k (rho - rho0) of the particles of the second layer (their kernel sees
    // fluid and the floor's wall weight, not a cut) against rho0 g (surface - y).
    const { Position, Density } = simulation;
    const ids = simulation.particles();
    let surface = 0;
    for (const id of ids) surface = Math.max(surface, Position.y[id]);
    surface += simulation.settings.particleRadius;
    const k = simulation.settings.sphSpeedOfSound ** 2;
    let ratioSum = 0;
    let count = 0;
    for (const id of ids) {
      const y = Position.y[id];
      const x = Position.x[id];
      const z = Position.z[id];
      if (y < 0.05 || y > 0.1 || x < 0.1 || x > 0.4 || z < 0.1 || z > 0.4) continue;
      const pressure = k * (Density[id] - 1000);
      ratioSum += pressure / (1000 * GRAVITY * (surface - y));
      count++;
    }
    expect(count).toBeGreaterThan(10);
    // Measured ratio 1.030 over 36 particles; tolerance 10%. (It read 1.012 before blocks were spawned in
    // hydrostatic balance, a sample of a column still ringing between 0.7 and 1.65; settled, that column read
    // 1.11-1.12 at every depth until the pressure force's gradient was normalised on the rest lattice.)
    expect(ratioSum / count).toBeGreaterThan(0.9);
    expect(ratioSum / count).toBeLessThan(1.1);
  }, 120000);

  it('runs a dam break stably for 2 s: finite, bounded speeds, inside the tank, front speed', () => {
    const min = [0, 0, 0];
    const max = [1.6, 1.2, 0.5];
    const simulation = new FluidSimulation({ solver: 'sph', capacity: 2000 });
    const water = simulation.addMaterial({});
    simulation.addCollider({ shape: 'box', min: [0, 0, 0], max: [1.6, 1.2, 0.5], container: true });
    simulation.spawnBlock({ min: [0, 0, 0], max: [0.5, 0.8, 0.5], material: water });
    const height = 0.8;
    let maxSpeed = 0;
    let frontAtQuarterSecond = 0;
    for (let frame = 0; frame < 120; frame++) {
      simulation.step();
      const state = particleState(simulation);
      expect(state.finite).toBe(true);
      maxSpeed = Math.max(maxSpeed, state.maxSpeed);
      expect(outside(simulation, min, max)).toBe(0);
      if (frame === 14) {
        for (const id of state.ids) frontAtQuarterSecond = Math.max(frontAtQuarterSecond, simulation.Position.x[id]);
      }
    }
    // Free fall from the tank's top (1.2 m) reaches 4.9 m/s; the splash up the far wall goes faster.
    // Measured at most 7.8 m/s; bound 10 m/s, below the maxSpeed clamp of 12 m/s.
    expect(maxSpeed).toBeLessThan(10);
    // Front position at t = 0.25 s. Martin & Moyce's (1952) dam-break measurements give a front at about
    // Z = x / a = 2 for T = t sqrt(2 g / a) = 1.57 (column width a = 0.5 m), i.e. 0.5 m travelled; Ritter's
    // frictionless dry-bed front 2 sqrt(g H) t = 1.4 m is the upper bound. Measured 0.445 m.
    const ritter = 2 * Math.sqrt(GRAVITY * height) * 0.25;
    expect(frontAtQuarterSecond - 0.5).toBeGreaterThan(0.35);
    expect(frontAtQuarterSecond - 0.5).toBeLessThan(Math.min(0.65, ritter));
  }, 120000);
});

describe('WCSPH with moving colliders', () => {
  it('interpolates collider poses over the adaptive substeps: fluid stays in a moving container', () => {
    const simulation = new FluidSimulation({ solver: 'sph', capacity: 1000 });
    const water = simulation.addMaterial({});
    const tank = simulation.addCollider({ shape: 'box', min: [0, 0, 0], max: [0.4, 0.4, 0.3], container: true });
    simulation.spawnBlock({ min: [0, 0, 0], max: [0.4, 0.2, 0.3], material: water });
    const { Position } = simulation;
    for (let frame = 1; frame <= 30; frame++) {
      // The tank slides along x at 0.6 m/s: a pose extrapolated past the step's end would push particles
      // through its trailing wall.
      simulation.setColliderTransform(tank, { position: [0.01 * frame, 0, 0] });
      simulation.step();
      expect(simulation.stats.solverSubsteps).toBeGreaterThan(simulation.settings.substeps);
      const offset = 0.01 * frame;
      for (const id of simulation.particles()) {
        expect(Position.x[id]).toBeGreaterThanOrEqual(offset - 1e-9);
        expect(Position.x[id]).toBeLessThanOrEqual(offset + 0.4 + 1e-9);
      }
    }
  });
});

describe('WCSPH snapshots', () => {
  it('continues bit-identically from a snapshot and refuses another solver', () => {
    const make = () => {
      const simulation = new FluidSimulation({ solver: 'sph', capacity: 400, sph: { speedOfSound: 15 } });
      const water = simulation.addMaterial({});
      simulation.addCollider({ shape: 'box', min: [0, 0, 0], max: [0.3, 0.5, 0.3], container: true });
      simulation.spawnBlock({ min: [0, 0, 0], max: [0.3, 0.2, 0.3], material: water });
      return simulation;
    };
    const original = make();
    for (let step = 0; step < 4; step++) original.step();
    const saved = original.snapshot();
    for (let step = 0; step < 4; step++) original.step();
    const restored = FluidSimulation.fromSnapshot(saved);
    expect(restored.solver).toBe('sph');
    expect(restored.settings.sphSpeedOfSound).toBe(15);
    for (let step = 0; step < 4; step++) restored.step();
    expect(restored.stats.solverSubsteps).toBe(original.stats.solverSubsteps);
    for (const id of original.particles()) {
      expect(restored.Position.x[id]).toBe(original.Position.x[id]);
      expect(restored.Position.y[id]).toBe(original.Position.y[id]);
      expect(restored.Velocity.y[id]).toBe(original.Velocity.y[id]);
    }
    const pbf = new FluidSimulation({ capacity: 400 });
    expect(() => pbf.restore(saved)).toThrow(FluidError);
    expect(() => pbf.restore(saved)).toThrow(/solver is 'pbf' here but 'sph' in the snapshot/);
    const pbfSnapshot = pbf.snapshot();
    expect(() => restored.restore(pbfSnapshot)).toThrow(/solver is 'sph' here but 'pbf' in the snapshot/);
  });
});

/** Largest extent of the particles from their center of mass along each of the 26 lattice directions. */
function supportExtents(simulation: FluidSimulation): { ratio: number; center: number[] } {
  const { Position } = simulation;
  const ids = simulation.particles();
  const center = [0, 0, 0];
  for (const id of ids) {
    center[0] += Position.x[id] / ids.length;
    center[1] += Position.y[id] / ids.length;
    center[2] += Position.z[id] / ids.length;
  }
  let largest = 0;
  let smallest = Number.POSITIVE_INFINITY;
  for (let dx = -1; dx <= 1; dx++) {
    for (let dy = -1; dy <= 1; dy++) {
      for (let dz = -1; dz <= 1; dz++) {
        if (dx === 0 && dy === 0 && dz === 0) continue;
        const length = Math.hypot(dx, dy, dz);
        let extent = Number.NEGATIVE_INFINITY;
        for (const id of ids) {
          const projection =
            ((Position.x[id] - center[0]) * dx +
              (Position.y[id] - center[1]) * dy +
              (Position.z[id] - center[2]) * dz) /
            length;
          extent = Math.max(extent, projection);
        }
        largest = Math.max(largest, extent);
        smallest = Math.min(smallest, extent);
      }
    }
  }
  return { ratio: largest / smallest, center };
}

describe('WCSPH viscosity and surface tension', () => {
  it('viscosity force (eq. 14) on a quadratic shear field v_x = a y^2 against nu lap v = 2 a nu', () => {
    // One 0.1 ms step (two substeps) of a 12^3 lattice without gravity, pressure (c_s = 0.1 m/s: k = 0.01
    // m^2/s^2) or surface tension: the velocity change over dt is the viscous acceleration (mu / rho_i)
    // sum_j V_j (v_j - v_i) lap W_ij. The linear part of v_j - v_i cancels on a full lattice neighbourhood
    // and the continuous integral of a y^2 lap W_viscosity is exactly 2a, so the SPH estimate should be
    // nu lap v = 2 a nu for the particles whose whole kernel lies in the block.
    const mu = 100;
    const simulation = new FluidSimulation({
      solver: 'sph',
      capacity: 2000,
      gravity: [0, 0, 0],
      sph: { viscosity: mu, surfaceTension: 0, speedOfSound: 0.1 },
    });
    const water = simulation.addMaterial({});
    simulation.spawnBlock({ min: [-0.3, -0.3, -0.3], max: [0.3, 0.3, 0.3], material: water });
    const a = 2;
    const { Position, Velocity } = simulation;
    const ids = simulation.particles();
    const before = new Map<number, number>();
    for (const id of ids) {
      Velocity.x[id] = a * Position.y[id] ** 2;
      before.set(id, Velocity.x[id]);
    }
    const dt = 1e-4;
    simulation.step(dt);
    const expected = (mu / 1000) * 2 * a;
    let sum = 0;
    let min = Number.POSITIVE_INFINITY;
    let max = 0;
    let count = 0;
    let transverse = 0;
    for (const id of ids) {
      // Interior: the kernel (h = 0.1 m) inside the block, whose outer particles sit at +-0.275 m.
      if ([Position.x[id], Position.y[id], Position.z[id]].some((v) => Math.abs(v) > 0.18)) continue;
      const ratio = (Velocity.x[id] - (before.get(id) ?? 0)) / dt / expected;
      sum += ratio;
      min = Math.min(min, ratio);
      max = Math.max(max, ratio);
      transverse = Math.max(transverse, Math.hypot(Velocity.y[id], Velocity.z[id]) / dt / expected);
      count++;
    }
    console.log(
      `viscosity: ${count} interior particles, a / (nu lap v) mean ${(sum / count).toFixed(4)} min ${min.toFixed(4)} max ${max.toFixed(4)} transverse ${transverse}`,
    );
    expect(count).toBe(512);
    // Measured: mean 0.979, range [0.9786, 0.9798] (the lattice sum of the kernel Laplacian at h = two
    // spacings, and interior densities slightly off rho0); no transverse acceleration. Tolerance 5%.
    expect(min).toBeGreaterThan(0.95);
    expect(max).toBeLessThan(1.05);
    expect(transverse).toBeLessThan(1e-6);
  });

  it('surface tension (eq. 15-19) pulls a zero-gravity cube of fluid toward a sphere', () => {
    // An 8^3 cube at rest without gravity. Its shape is measured by the ratio of the largest to the
    // smallest extent from the center of mass along the 26 lattice directions: sqrt(3) = 1.73 for the
    // cube (corners against faces), 1 for a sphere. sigma = 20 N/m and mu = 50 Pa s make the capillary
    // relaxation of this 0.25 m drop (l = 2 mode, omega^2 = 8 sigma / (rho R^3) = 10 1/s^2) overdamped
    // enough to settle within 1.5 s.
    const run = (sigma: number) => {
      const simulation = new FluidSimulation({
        solver: 'sph',
        capacity: 1000,
        gravity: [0, 0, 0],
        sph: { surfaceTension: sigma, viscosity: 50 },
      });
      const water = simulation.addMaterial({});
      simulation.spawnBlock({ min: [0, 0, 0], max: [0.4, 0.4, 0.4], material: water });
      const start = supportExtents(simulation).ratio;
      const ratios: number[] = [];
      for (let frame = 0; frame < 90; frame++) {
        simulation.step();
        if (frame % 30 === 29) ratios.push(supportExtents(simulation).ratio);
      }
      const state = particleState(simulation);
      console.log(
        `surface tension ${sigma} N/m: extent ratio ${start.toFixed(3)} at 0 s, ${ratios.map((r) => r.toFixed(3)).join(', ')} at 0.5, 1, 1.5 s; max speed ${state.maxSpeed.toFixed(4)} m/s`,
      );
      return { start, ratios, state };
    };
    const tension = run(20);
    const none = run(0);
    expect(tension.state.finite).toBe(true);
    expect(tension.start).toBeCloseTo(Math.sqrt(3), 6);
    // Measured 1.134, 1.132, 1.084 at 0.5, 1 and 1.5 s, 0.008 m/s at the end (a sphere of 512 lattice
    // particles cannot reach 1). Bounds: below 1.15 after 1.5 s and settled below 0.05 m/s.
    expect(tension.ratios[2]).toBeLessThan(1.15);
    expect(tension.state.maxSpeed).toBeLessThan(0.05);
    // Without surface tension the cube keeps its shape (measured 1.732: the lattice is at rest density).
    expect(none.ratios[2]).toBeGreaterThan(1.7);
  }, 120000);

  it('stays stable at a high viscosity (1e4 Pa s) with the viscous time-step condition', () => {
    // nu = 10 m^2/s: the viscous condition 0.125 (h/2)^2 / nu = 31 us asks for 534 substeps per 1/60 s
    // step, where the CFL condition asks for 14. A block thrown at 1 m/s into a tank.
    const run = (maxSubsteps: number) => {
      const simulation = new FluidSimulation({ solver: 'sph', capacity: 1000, sph: { viscosity: 1e4, maxSubsteps } });
      const water = simulation.addMaterial({});
      simulation.addCollider({ shape: 'box', min: [0, 0, 0], max: [0.4, 0.6, 0.4], container: true });
      simulation.spawnBlock({ min: [0, 0.1, 0], max: [0.3, 0.4, 0.3], material: water, velocity: [1, 0, 0] });
      let substeps = 0;
      let speed = 0;
      let leaks = 0;
      for (let frame = 0; frame < 30; frame++) {
        simulation.step();
        substeps = Math.max(substeps, simulation.stats.solverSubsteps);
        const state = particleState(simulation);
        expect(state.finite).toBe(true);
        speed = Math.max(speed, state.maxSpeed);
        leaks = Math.max(leaks, outside(simulation, [0, 0, 0], [0.4, 0.6, 0.4]));
      }
      console.log(
        `viscosity 1e4 Pa s, maxSubsteps ${maxSubsteps}: ${substeps} substeps, max speed ${speed} m/s, ${leaks} outside`,
      );
      return { substeps, speed, leaks };
    };
    const planned = run(1024);
    expect(planned.substeps).toBe(534);
    expect(planned.leaks).toBe(0);
    // Measured 1.40 m/s (the throw and a 0.1 m fall, both slowed by the viscosity). Bound 2 m/s.
    expect(planned.speed).toBeLessThan(2);
    // With the factor 0.125 taken on the support radius h (134 substeps) the explicit viscosity diverged:
    // measured speeds up to the maxSpeed clamp of 12 m/s.
    const capped = run(134);
    expect(capped.speed).toBeGreaterThan(6);
  }, 120000);
});
