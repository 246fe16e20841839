/**
 * White water on the CPU backend (diffuse/cpu.ts; Ihmsen, Akinci, Akinci and Teschner 2012, "Unified spray,
 * foam and bubbles for particle-based fluids"; docs/white-water.md): the checks with the defaults.
 *
 * - A pool at rest makes no white water: a 30-deep pool (3,000 particles) over 3 s generated 0 (bound: a
 *   handful per second, 5/s).
 * - A dam break (10,000 particles of r = 2 cm, a 0.8 x 1.0 x 0.8 m block in a 3 m tank) generates thousands at
 *   its first impact: measured 4,909 between 0.58 s and 0.83 s (bound 2,000); after 1 s 89% of them are spray
 *   or foam (bound 70%). Every diffuse particle stays finite and inside the tank, the count within the capacity.
 * - A jet into a pool makes bubbles under the impact (measured: 70% of the live diffuse particles are bubbles
 *   after 1 s of jet, their mean height 0.16 m in a pool 0.32 m deep) that rise (mean height 0.32 m one second
 *   after the jet stops) and become foam (bubbles down to 5.4% of the count they had, foam up 3.8 times).
 * - The motions: spray falls ballistically (semi-implicit Euler, exact to float rounding); a bubble in still
 *   water rises at its terminal speed dt k_b |g| / k_d (0.654 m/s with the defaults; measured 0.658) to 2%.
 */
import { describe, expect, it } from 'vitest';
import { DiffuseKind, FluidError, FluidSimulation, type FluidSimulationOptions } from '../src';
import { computePotentials } from '../src/systems/diffuse/cpu';
import { createDiffuseState } from '../src/systems/diffuse/state';
import { contextWithParticles } from './helpers';
import { restingPool } from './restingPool';

/** The dam break of the checks: 10,000 particles of r = 2 cm in a 3 x 1.5 x 0.8 m tank. */
function damBreak(options: FluidSimulationOptions = {}): FluidSimulation {
  const simulation = new FluidSimulation({
    particleRadius: 0.02,
    capacity: 12000,
    diffuse: { capacity: 40000 },
    ...options,
  });
  const water = simulation.addMaterial({});
  simulation.addCollider({ shape: 'box', min: [0, 0, 0], max: [3, 1.5, 0.8], container: true });
  simulation.spawnBlock({ min: [0, 0, 0], max: [0.8, 1.0, 0.8], material: water });
  return simulation;
}

/** Throws unless every live diffuse particle is finite and inside the box [min, max]. */
function expectInside(simulation: FluidSimulation, min: number[], max: number[]): void {
  const p = simulation.diffuseParticles;
  expect(p.count).toBeLessThanOrEqual(p.capacity);
  for (let d = 0; d < p.count; d++) {
    const position = [p.positionX[d], p.positionY[d], p.positionZ[d]];
    for (let axis = 0; axis < 3; axis++) {
      const value = position[axis];
      if (!(value >= min[axis] - 1e-5 && value <= max[axis] + 1e-5)) {
        throw new Error(`diffuse particle ${d} at ${position.join(', ')} is outside the tank`);
      }
    }
    if (!Number.isFinite(p.velocityX[d] + p.velocityY[d] + p.velocityZ[d])) {
      throw new Error(`diffuse particle ${d} has a velocity that is not finite`);
    }
  }
}

describe('white water (CPU): generation', () => {
  it('is off by default, at no cost', () => {
    const simulation = restingPool(5, 0.025);
    simulation.step();
    expect(simulation.diffuseParticles.capacity).toBe(0);
    expect(simulation.diffuseParticles.count).toBe(0);
    expect(simulation.stats.diffuseCount).toBe(0);
    expect(simulation.internalContext.diffuse.cellEntries.length).toBe(0);
  });

  it('a pool at rest makes none: 0 diffuse particles in 3 s (bound: 5 per second)', () => {
    const simulation = restingPool(30, 0.025, 0, { diffuse: { capacity: 10000 } });
    let generated = 0;
    for (let frame = 0; frame < 180; frame++) {
      simulation.step();
      generated += simulation.stats.diffuseGeneratedCount;
    }
    expect(generated).toBeLessThanOrEqual(15);
  });

  it('a dam break makes thousands at its first impact, mostly spray and foam, all inside the tank', () => {
    const simulation = damBreak();
    let atImpact = 0;
    for (let frame = 0; frame < 60; frame++) {
      simulation.step();
      // The front reaches the far wall at about 0.6 s (frame 35).
      if (frame >= 35 && frame < 50) atImpact += simulation.stats.diffuseGeneratedCount;
      expectInside(simulation, [0, 0, 0], [3, 1.5, 0.8]);
    }
    const stats = simulation.stats;
    expect(atImpact).toBeGreaterThan(2000);
    expect(stats.diffuseCount).toBe(stats.diffuseSprayCount + stats.diffuseFoamCount + stats.diffuseBubbleCount);
    expect(stats.diffuseSprayCount + stats.diffuseFoamCount).toBeGreaterThan(0.7 * stats.diffuseCount);
    expect(stats.diffuseDroppedCount).toBe(0);
  });

  it('stops at its capacity: new diffuse particles are dropped, never an error', () => {
    const simulation = damBreak({ capacity: 3000, particleRadius: 0.03, diffuse: { capacity: 50 } });
    let dropped = 0;
    for (let frame = 0; frame < 45; frame++) {
      simulation.step();
      dropped += simulation.stats.diffuseDroppedCount;
      expect(simulation.diffuseParticles.count).toBeLessThanOrEqual(50);
    }
    expect(simulation.diffuseParticles.count).toBe(50);
    expect(dropped).toBeGreaterThan(100);
  });

  it('a jet into a pool makes bubbles under the impact that rise and become foam', () => {
    const simulation = new FluidSimulation({ particleRadius: 0.02, capacity: 8000, diffuse: { capacity: 40000 } });
    const water = simulation.addMaterial({});
    simulation.addCollider({ shape: 'box', min: [0, 0, 0], max: [0.8, 1.2, 0.8], container: true });
    simulation.spawnBlock({ min: [0, 0, 0], max: [0.8, 0.32, 0.8], material: water });
    const jet = simulation.addEmitter({
      material: water,
      position: [0.4, 0.9, 0.4],
      direction: [0, -1, 0],
      radius: 0.05,
      speed: 3,
    });
    /** The bubbles' count and mean height, and the foam's count. */
    const figures = () => {
      const p = simulation.diffuseParticles;
      let bubbles = 0;
      let height = 0;
      for (let d = 0; d < p.count; d++) {
        if (p.kind[d] !== DiffuseKind.bubble) continue;
        bubbles++;
        height += p.positionY[d];
      }
      return { bubbles, height: height / Math.max(1, bubbles), foam: simulation.stats.diffuseFoamCount };
    };
    for (let frame = 0; frame < 60; frame++) simulation.step();
    const underJet = figures();
    expect(underJet.bubbles).toBeGreaterThan(0.5 * simulation.stats.diffuseCount);
    // Below the surface (0.32 m), under the impact.
    expect(underJet.height).toBeLessThan(0.22);
    simulation.components.Emitter.enabled[jet] = 0;
    for (let frame = 0; frame < 60; frame++) simulation.step();
    const after = figures();
    expect(after.height).toBeGreaterThan(underJet.height + 0.08);
    expect(after.bubbles).toBeLessThan(0.1 * underJet.bubbles);
    expect(after.foam).toBeGreaterThan(2 * underJet.foam);
    expectInside(simulation, [0, 0, 0], [0.8, 1.2, 0.8]);
  });

  it('runs with the WCSPH solver too', () => {
    const simulation = damBreak({ solver: 'sph', capacity: 2500, particleRadius: 0.032 });
    let generated = 0;
    for (let frame = 0; frame < 60; frame++) {
      simulation.step();
      generated += simulation.stats.diffuseGeneratedCount;
    }
    expect(generated).toBeGreaterThan(100);
    expectInside(simulation, [0, 0, 0], [3, 1.5, 0.8]);
  });
});

describe('white water (CPU): the potentials and the motions', () => {
  it('trapped air of two particles closing head-on is |v_ij| (1 - v^_ij . x^_ij) (1 - r / h) on each', () => {
    // Two particles h / 2 apart, moving towards each other at 2 m/s each: |v_ij| = 4, v^ . x^ = -1, w = 1/2.
    const ctx = contextWithParticles([0, 0, 0, 0.05, 0, 0]);
    const s = ctx.solver;
    s.velocityX[0] = 2;
    s.velocityX[1] = -2;
    // The half list: 0 -> 1.
    s.neighbourStart[0] = 0;
    s.neighbourStart[1] = 1;
    s.neighbourStart[2] = 1;
    s.neighbours[0] = 1;
    const state = createDiffuseState(16, 2);
    expect(computePotentials(ctx, state)).toBe(true);
    expect(state.trappedAir[0]).toBeCloseTo(4 * 2 * 0.5, 12);
    expect(state.trappedAir[1]).toBeCloseTo(4, 12);
    // Moving apart: no trapped air.
    s.velocityX[0] = -2;
    s.velocityX[1] = 2;
    computePotentials(ctx, state);
    expect(state.trappedAir[0]).toBeCloseTo(0, 12);
    // A pair alone: both on the surface, their normals pointing away from each other; each lies behind the
    // other (x_ji . n_i < 0), and 1 - n_i . n_j = 2, so the curvature is 2 w = 1.
    expect(state.normalX[0]).toBeCloseTo(-1, 12);
    expect(state.normalX[1]).toBeCloseTo(1, 12);
    expect(state.curvature[0]).toBeCloseTo(2 * 0.5, 12);
  });

  it('spray falls ballistically: v += dt g, x += dt v', () => {
    const simulation = new FluidSimulation({ particleRadius: 0.02, capacity: 16, diffuse: { capacity: 16 } });
    const water = simulation.addMaterial({});
    const pool = simulation.diffuseParticles;
    pool.count = 1;
    pool.positionX[0] = 0;
    pool.positionY[0] = 10;
    pool.positionZ[0] = 0;
    pool.velocityX[0] = 1;
    pool.velocityY[0] = 2;
    pool.velocityZ[0] = 0;
    pool.lifetime[0] = 100;
    pool.material[0] = water;
    const steps = 30;
    for (let k = 0; k < steps; k++) simulation.step();
    const dt = 1 / 60;
    const g = -9.81;
    // After N steps of semi-implicit Euler: y = y0 + N dt v0 + dt^2 g N (N + 1) / 2.
    const expectedY = 10 + steps * dt * 2 + dt * dt * g * ((steps * (steps + 1)) / 2);
    expect(pool.kind[0]).toBe(DiffuseKind.spray);
    expect(pool.positionY[0]).toBeCloseTo(expectedY, 4);
    expect(pool.positionX[0]).toBeCloseTo(steps * dt, 4);
    expect(pool.velocityY[0]).toBeCloseTo(2 + steps * dt * g, 4);
    expect(pool.age[0]).toBeCloseTo(steps * dt, 4);
  });

  it('a bubble in still water rises at dt k_b |g| / k_d', () => {
    const simulation = restingPool(30, 0.02, 0, { diffuse: { capacity: 16 } });
    for (let frame = 0; frame < 60; frame++) simulation.step();
    const pool = simulation.diffuseParticles;
    const water = simulation.components.Particle.material[simulation.particles()[0]];
    pool.count = 1;
    pool.positionX[0] = 0.2;
    pool.positionY[0] = 0.2;
    pool.positionZ[0] = 0.2;
    pool.lifetime[0] = 100;
    pool.material[0] = water;
    for (let frame = 0; frame < 20; frame++) simulation.step();
    expect(pool.kind[0]).toBe(DiffuseKind.bubble);
    const terminal = ((1 / 60) * 2 * 9.81) / 0.5;
    expect(pool.velocityY[0]).toBeGreaterThan(0.98 * terminal);
    expect(pool.velocityY[0]).toBeLessThan(1.02 * terminal);
  });

  it('dies at the end of its lifetime', () => {
    const simulation = new FluidSimulation({ particleRadius: 0.02, capacity: 16, diffuse: { capacity: 16 } });
    const water = simulation.addMaterial({});
    const pool = simulation.diffuseParticles;
    pool.count = 2;
    for (let d = 0; d < 2; d++) {
      pool.positionY[d] = 1;
      pool.material[d] = water;
      pool.age[d] = 0;
    }
    pool.lifetime[0] = 0.5;
    pool.lifetime[1] = 1.5;
    for (let frame = 0; frame < 40; frame++) simulation.step();
    expect(pool.count).toBe(1);
    expect(pool.lifetime[0]).toBeCloseTo(1.5, 6);
    expect(simulation.stats.diffuseCount).toBe(1);
  });
});

describe('white water (CPU): runs, snapshots and bad input', () => {
  it('repeats bit for bit', () => {
    const run = () => {
      const simulation = damBreak({ capacity: 3000, particleRadius: 0.03 });
      for (let frame = 0; frame < 60; frame++) simulation.step();
      const p = simulation.diffuseParticles;
      return [p.count, ...p.positionX.subarray(0, p.count), ...p.velocityY.subarray(0, p.count), ...p.kind];
    };
    const first = run();
    expect(first[0]).toBeGreaterThan(100);
    expect(run()).toEqual(first);
  });

  it('snapshots keep the settings and drop the diffuse particles, which are generated again', () => {
    const simulation = damBreak({
      capacity: 3000,
      particleRadius: 0.03,
      diffuse: { capacity: 9000, bubbleNeighbours: 18 },
    });
    for (let frame = 0; frame < 45; frame++) simulation.step();
    expect(simulation.diffuseParticles.count).toBeGreaterThan(0);
    const restored = FluidSimulation.fromSnapshot(simulation.snapshot());
    expect(restored.diffuseParticles.capacity).toBe(9000);
    expect(restored.diffuseParticles.count).toBe(0);
    expect(restored.stats.diffuseCount).toBe(0);
    expect(restored.settings.diffuseBubbleNeighbours).toBe(18);
    for (let frame = 0; frame < 10; frame++) restored.step();
    expect(restored.diffuseParticles.count).toBeGreaterThan(0);
    simulation.restore(simulation.snapshot());
    expect(simulation.diffuseParticles.count).toBe(0);
  });

  it('refuses bad values, naming them and their range', () => {
    expect(() => new FluidSimulation({ diffuse: { capacity: -1 } })).toThrowError(/diffuse\.capacity is -1.*\[0, /);
    expect(() => new FluidSimulation({ diffuse: { capacity: 10, spray: 3 } as never })).toThrowError(FluidError);
    expect(() => new FluidSimulation({ diffuse: { capacity: 10 }, solver: 'mps' })).toThrowError(
      /solver 'pbf' or 'sph'/,
    );
    const simulation = new FluidSimulation({ particleRadius: 0.05, capacity: 64, diffuse: { capacity: 10 } });
    expect(() => simulation.addMaterial({ diffuseTrappedAirMin: 30 })).toThrowError(
      /diffuseTrappedAirMax is 20 and diffuseTrappedAirMin is 30/,
    );
    const water = simulation.addMaterial({});
    simulation.spawnBlock({ min: [0, 0, 0], max: [0.2, 0.2, 0.2], material: water });
    const store = simulation.components.FluidMaterial;
    store.diffuseLifetimeMax[water] = 1;
    expect(() => simulation.step()).toThrowError(
      /FluidMaterial\[\d+\]: diffuseLifetimeMax is 1 and diffuseLifetimeMin is 2/,
    );
    store.diffuseLifetimeMax[water] = 5;
    simulation.settings.diffuseSprayNeighbours = -1;
    expect(() => simulation.step()).toThrowError(
      /settings\.diffuseSprayNeighbours is -1; allowed range is \[0, 1000\]/,
    );
    simulation.settings.diffuseSprayNeighbours = 6;
    expect(() => simulation.step()).not.toThrow();
  });
});
