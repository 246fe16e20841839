import { describe, expect, it } from 'vitest';
import { bakeSignedDistanceField, createBoxMesh, FluidSimulation } from '../src';
import { FluidError } from '../src/core/errors';
import type { SimulationContext } from '../src/systems/context';
import { mpsLatticeConstants, mpsWeight } from '../src/systems/mps/data';
import {
  createConjugateGradientScratch,
  multiplySparse,
  type SparseSymmetricMatrix,
  solveConjugateGradient,
} from '../src/systems/mps/pcg';
import { MPS_DEFAULTS } from '../src/systems/mps/settings';
import { configureMps, mpsState } from '../src/systems/mps/state';
import { mpsCpuSystems } from '../src/systems/mps/systems';
import { computeMpsWallTerms } from '../src/systems/mps/walls';
import { createMpsWallTerms } from '../src/systems/mps/wallTables';
import { runStep } from '../src/systems/pipeline';
import type { FluidSystem } from '../src/systems/system';
import { floatingBoxRun, submergedFractions } from './floatingBox';
import { random } from './helpers';

function speeds(simulation: FluidSimulation): { mean: number; max: number } {
  const { Velocity } = simulation;
  let sum = 0;
  let max = 0;
  for (const eid of simulation.particles()) {
    const speed = Math.hypot(Velocity.x[eid], Velocity.y[eid], Velocity.z[eid]);
    sum += speed;
    max = Math.max(max, speed);
  }
  return { mean: sum / simulation.particleCount, max };
}

/** Kinetic plus potential energy per unit mass, summed over the particles (J/kg). */
function totalEnergy(simulation: FluidSimulation): number {
  const { Position, Velocity } = simulation;
  let energy = 0;
  for (const eid of simulation.particles()) {
    energy += 0.5 * (Velocity.x[eid] ** 2 + Velocity.y[eid] ** 2 + Velocity.z[eid] ** 2) + 9.81 * Position.y[eid];
  }
  return energy;
}

/** Counts particles outside the box [min + r, max - r] (with a 1e-9 m slack) or with a non-finite value. */
function outside(simulation: FluidSimulation, min: number[], max: number[]): number {
  const { Position, Velocity } = simulation;
  const r = simulation.settings.particleRadius;
  let bad = 0;
  for (const eid of simulation.particles()) {
    const p = [Position.x[eid], Position.y[eid], Position.z[eid]];
    if (!Number.isFinite(p[0] + p[1] + p[2] + Velocity.x[eid] + Velocity.y[eid] + Velocity.z[eid])) bad++;
    for (let axis = 0; axis < 3; axis++) {
      if (p[axis] < min[axis] + r - 1e-9 || p[axis] > max[axis] - r + 1e-9) bad++;
    }
  }
  return bad;
}

/** A 3D grid Laplacian (7-point, Dirichlet outside) plus `shift` on the diagonal, in the solver's format. */
function gridLaplacian(size: number, shift: number): SparseSymmetricMatrix {
  const rows = size * size * size;
  const diagonal = new Float64Array(rows).fill(6 + shift);
  const rowStart = new Int32Array(rows + 1);
  const column: number[] = [];
  const value: number[] = [];
  const index = (x: number, y: number, z: number) => x + size * (y + size * z);
  for (let z = 0; z < size; z++)
    for (let y = 0; y < size; y++)
      for (let x = 0; x < size; x++) {
        const row = index(x, y, z);
        for (const [dx, dy, dz] of [
          [-1, 0, 0],
          [1, 0, 0],
          [0, -1, 0],
          [0, 1, 0],
          [0, 0, -1],
          [0, 0, 1],
        ]) {
          const nx = x + dx;
          const ny = y + dy;
          const nz = z + dz;
          if (nx < 0 || ny < 0 || nz < 0 || nx >= size || ny >= size || nz >= size) continue;
          column.push(index(nx, ny, nz));
          value.push(-1);
        }
        rowStart[row + 1] = column.length;
      }
  return { rowCount: rows, diagonal, rowStart, column: Int32Array.from(column), value: Float64Array.from(value) };
}

describe('MPS: preconditioned conjugate gradients', () => {
  it('solves a 3D Poisson system (4096 unknowns) to its tolerance and recovers the known solution', () => {
    const matrix = gridLaplacian(16, 0.01);
    const n = matrix.rowCount;
    // Unequal diagonal entries make the Jacobi preconditioner do something: scale rows and columns by s.
    const next = random(7);
    const s = Float64Array.from({ length: n }, () => 0.5 + next());
    for (let i = 0; i < n; i++) {
      matrix.diagonal[i] *= s[i] * s[i];
      for (let k = matrix.rowStart[i]; k < matrix.rowStart[i + 1]; k++) matrix.value[k] *= s[i] * s[matrix.column[k]];
    }
    const exact = Float64Array.from({ length: n }, () => next() * 2 - 1);
    const b = new Float64Array(n);
    multiplySparse(matrix, exact, b);
    const x = new Float64Array(n);
    const result = solveConjugateGradient(matrix, b, x, 1e-10, 1000, createConjugateGradientScratch(n));
    let error = 0;
    let norm = 0;
    for (let i = 0; i < n; i++) {
      error = Math.max(error, Math.abs(x[i] - exact[i]));
      norm = Math.max(norm, Math.abs(exact[i]));
    }
    console.log(
      `PCG on a 16^3 grid Laplacian: ${result.iterations} iterations, residual ${result.residual.toExponential(2)}, max error ${error.toExponential(2)}`,
    );
    expect(result.residual).toBeLessThanOrEqual(1e-10);
    expect(result.iterations).toBeLessThan(1000);
    // Error <= cond(A) x residual; the grid Laplacian's condition number here is about 1e4 at most.
    expect(error / norm).toBeLessThan(1e-5);
  });

  it('returns zero for a zero right-hand side and refuses bad tolerances, iteration limits and matrices', () => {
    const matrix = gridLaplacian(3, 0);
    const n = matrix.rowCount;
    const scratch = createConjugateGradientScratch(n);
    const x = new Float64Array(n).fill(5);
    expect(solveConjugateGradient(matrix, new Float64Array(n), x, 1e-6, 10, scratch)).toEqual({
      iterations: 0,
      residual: 0,
    });
    expect(Array.from(x).every((v) => v === 0)).toBe(true);
    const b = new Float64Array(n).fill(1);
    expect(() => solveConjugateGradient(matrix, b, x, 0, 10, scratch)).toThrow(FluidError);
    expect(() => solveConjugateGradient(matrix, b, x, Number.NaN, 10, scratch)).toThrow(/tolerance is NaN/);
    expect(() => solveConjugateGradient(matrix, b, x, 1e-6, 0.5, scratch)).toThrow(/iteration limit/);
    b[3] = Number.NaN;
    expect(() => solveConjugateGradient(matrix, b, x, 1e-6, 10, scratch)).toThrow(/not finite/);
    b[3] = 1;
    matrix.diagonal[2] = 0;
    expect(() => solveConjugateGradient(matrix, b, x, 1e-6, 10, scratch)).toThrow(/diagonal entry 2/);
  });
});

describe('MPS: operators and settings', () => {
  it('the weight is r_e / r - 1 inside r_e and the rest constants come from the spawn lattice', () => {
    expect(mpsWeight(0.05, 0.1)).toBeCloseTo(1, 12);
    expect(mpsWeight(0.1, 0.1)).toBe(0);
    expect(mpsWeight(0, 0.1)).toBeCloseTo(9, 12);
    expect(() => mpsWeight(-1, 0.1)).toThrow(FluidError);
    // r = 0.025, r_e = 4r = 2 l0: 6 neighbours at l0 (w = 1), 12 at sqrt(2) l0, 8 at sqrt(3) l0.
    const lattice = mpsLatticeConstants(0.025, 0.1);
    const expected = 6 + 12 * (2 / Math.SQRT2 - 1) + 8 * (2 / Math.sqrt(3) - 1);
    expect(lattice.restNumberDensity).toBeCloseTo(expected, 10);
    // A particle resting on a wall (d = r) sees the lattice's half-space in ghosts: fluid + ghosts = n0.
    const tables = lattice.wallTables;
    // Its own layer (4 at l0, 4 at sqrt(2) l0) and the layer above (1, 4, 4) are fluid; the layer below is
    // ghosts, averaged over lateral offsets (so slightly below the aligned 1 + 4 w(sqrt 2) + 4 w(sqrt 3)).
    const w2 = 2 / Math.SQRT2 - 1;
    const w3 = 2 / Math.sqrt(3) - 1;
    const fluidHalf = 4 + 4 * w2 + 1 + 4 * w2 + 4 * w3;
    const atRadius = tables.numberDensity[16]; // d = r = h / 4: sample 16 of 64
    expect(Math.abs((atRadius + fluidHalf) / lattice.restNumberDensity - 1)).toBeLessThan(0.02);
    expect(tables.numberDensity[64]).toBe(0);
  });

  it('bad MPS settings throw FluidError naming the value and the range, and change nothing', () => {
    const simulation = new FluidSimulation({ solver: 'mps', capacity: 64 });
    const context = simulation.internalContext;
    expect(() => configureMps(context, { surfaceThreshold: 1.5 })).toThrow(
      /mps.surfaceThreshold is 1.5; allowed range is \(0, 1\]/,
    );
    expect(() => configureMps(context, { tolerance: 0 })).toThrow(/mps.tolerance is 0/);
    expect(() => configureMps(context, { maxIterations: 2.5 })).toThrow(/an integer in/);
    expect(() => configureMps(context, { kinematicViscosity: Number.NaN })).toThrow(/kinematicViscosity is NaN/);
    expect(mpsState(context).settings).toEqual(MPS_DEFAULTS);
  });
});

describe('MPS: hydrostatic column', () => {
  it('the conjugate gradient solve reaches its tolerance and the bottom pressure is rho g h within 5%', () => {
    // 8 x 16 x 8 particles of radius 2.5 cm: a 0.8 m column in a 0.4 m x 0.4 m container.
    const simulation = new FluidSimulation({ solver: 'mps', particleRadius: 0.025, capacity: 2048 });
    const water = simulation.addMaterial({});
    simulation.addCollider({ shape: 'box', min: [0, 0, 0], max: [0.4, 2, 0.4], container: true });
    simulation.spawnBlock({ min: [0, 0, 0], max: [0.4, 0.8, 0.4], material: water });
    const context = simulation.internalContext;
    const state = mpsState(context);
    const tolerance = state.settings.tolerance;
    const r = simulation.settings.particleRadius;
    let worstResidual = 0;
    let mostIterations = 0;
    let columnArray: Int32Array | undefined;
    let valueArray: Float64Array | undefined;
    let pressureSum = 0;
    let depthSum = 0;
    let samples = 0;
    for (let frame = 1; frame <= 150; frame++) {
      simulation.step();
      worstResidual = Math.max(worstResidual, simulation.stats.pressureSolveResidual);
      if (frame === 30) {
        columnArray = state.matrix.column;
        valueArray = state.matrix.value;
      }
      mostIterations = Math.max(mostIterations, simulation.stats.pressureSolveIterations);
      if (frame <= 90) continue;
      // Bottom layer (centers within r of their resting height r) and the free surface's height: the mean
      // height of the top particles flagged free surface (n* < beta n0), where p = 0 is imposed.
      const s = context.solver;
      let bottomPressure = 0;
      let bottomHeight = 0;
      let bottomCount = 0;
      let surfaceHeight = 0;
      let surfaceCount = 0;
      for (let i = 0; i < s.count; i++) {
        if (s.positionY[i] < 2 * r) {
          bottomPressure += state.pressure[i];
          bottomHeight += s.positionY[i];
          bottomCount++;
        }
        if (state.surface[i] === 1 && s.positionY[i] > 0.5) {
          surfaceHeight += s.positionY[i];
          surfaceCount++;
        }
      }
      pressureSum += bottomPressure / bottomCount;
      depthSum += surfaceHeight / surfaceCount - bottomHeight / bottomCount;
      samples++;
    }
    const pressure = pressureSum / samples;
    const depth = depthSum / samples;
    const expected = 1000 * 9.81 * depth;
    const motion = speeds(simulation);
    // Measured from the fluid's top instead (surface particle centers + r): rho g (h + r).
    const toTop = 1000 * 9.81 * (depth + r);
    console.log(
      `hydrostatic column (from the fluid's top: rho g (h + r) = ${toTop.toFixed(0)} Pa, ratio ${(pressure / toTop).toFixed(4)}): PCG up to ${mostIterations} iterations, worst residual ${worstResidual.toExponential(2)} (tolerance ${tolerance}); bottom pressure ${pressure.toFixed(0)} Pa vs rho g h = ${expected.toFixed(0)} Pa (h = ${depth.toFixed(4)} m, ratio ${(pressure / expected).toFixed(4)}); mean speed ${motion.mean.toFixed(4)} m/s, density error mean ${(100 * simulation.stats.meanDensityError).toFixed(2)}%`,
    );
    expect(worstResidual).toBeLessThanOrEqual(tolerance);
    // The sparse matrix lives in the same typed arrays once grown (no allocation per substep) and is
    // symmetric: every entry (i, j) has its (j, i) twin with the same value.
    expect(state.matrix.column).toBe(columnArray);
    expect(state.matrix.value).toBe(valueArray);
    const { rowCount, rowStart, column, value, diagonal } = state.matrix;
    expect(rowCount).toBeGreaterThan(800);
    const entries = new Map<string, number>();
    for (let i = 0; i < rowCount; i++) {
      expect(diagonal[i]).toBeGreaterThan(0);
      for (let k = rowStart[i]; k < rowStart[i + 1]; k++) entries.set(`${i},${column[k]}`, value[k]);
    }
    for (const [key, entry] of entries) {
      const [i, j] = key.split(',');
      expect(entries.get(`${j},${i}`)).toBe(entry);
    }
    expect(mostIterations).toBeLessThan(state.settings.maxIterations);
    expect(Math.abs(pressure / expected - 1)).toBeLessThan(0.05);
    expect(outside(simulation, [0, 0, 0], [0.4, 2, 0.4])).toBe(0);
  });
});

describe('MPS: settling tank', () => {
  it('3,200 particles settle in 3 s without leaks and hold the mean number-density error within 1%', () => {
    // 40 x 8 x 10 particles: a 0.4 m deep pool in a 2 m x 0.5 m tank.
    const simulation = new FluidSimulation({ solver: 'mps', particleRadius: 0.025, capacity: 4096 });
    const water = simulation.addMaterial({});
    simulation.addCollider({ shape: 'box', min: [0, 0, 0], max: [2, 1, 0.5], container: true });
    simulation.spawnBlock({ min: [0, 0, 0], max: [2, 0.4, 0.5], material: water });
    expect(simulation.particleCount).toBe(3200);
    let worstMeanError = 0;
    for (let frame = 1; frame <= 180; frame++) {
      simulation.step();
      expect(outside(simulation, [0, 0, 0], [2, 1, 0.5])).toBe(0);
      if (frame > 30) worstMeanError = Math.max(worstMeanError, simulation.stats.meanDensityError);
    }
    const stats = simulation.stats;
    const motion = speeds(simulation);
    console.log(
      `MPS tank: mean speed ${motion.mean.toFixed(4)} m/s (max ${motion.max.toFixed(3)}), number-density error mean ${(100 * stats.meanDensityError).toFixed(3)}% max ${(100 * stats.maxDensityError).toFixed(2)}% over ${stats.fullNeighbourhoodCount} particles, worst mean after 0.5 s ${(100 * worstMeanError).toFixed(3)}%, PCG ${stats.pressureSolveIterations} iterations, ${stats.stepMilliseconds.toFixed(1)} ms/step`,
    );
    expect(simulation.particleCount).toBe(3200);
    expect(stats.fullNeighbourhoodCount).toBeGreaterThan(300);
    expect(stats.meanDensityError).toBeLessThan(0.01);
    expect(worstMeanError).toBeLessThan(0.01);
    expect(motion.mean).toBeLessThan(0.05);
  });
});

describe('MPS: dam break', () => {
  it('runs 1.5 s without NaN, keeps every particle in the tank and bounds the speeds', () => {
    const simulation = new FluidSimulation({ solver: 'mps', particleRadius: 0.025, capacity: 2048 });
    const water = simulation.addMaterial({});
    simulation.addCollider({ shape: 'box', min: [0, 0, 0], max: [1.6, 1, 0.3], container: true });
    simulation.spawnBlock({ min: [0, 0, 0], max: [0.4, 0.6, 0.3], material: water });
    const count = simulation.particleCount;
    const initialEnergy = totalEnergy(simulation);
    let previousEnergy = initialEnergy;
    let maxSpeed = 0;
    let front = 0;
    for (let frame = 1; frame <= 90; frame++) {
      simulation.step();
      expect(outside(simulation, [0, 0, 0], [1.6, 1, 0.3])).toBe(0);
      const frameSpeed = speeds(simulation);
      maxSpeed = Math.max(maxSpeed, frameSpeed.max);
      if (frame === 15) for (const eid of simulation.particles()) front = Math.max(front, simulation.Position.x[eid]);
      if (frame % 15 === 0) {
        const energy = totalEnergy(simulation);
        // Energy moves between kinetic and potential but the total never grows by more than 1%.
        expect(energy).toBeLessThan(previousEnergy * 1.01);
        previousEnergy = Math.min(previousEnergy, energy);
      }
    }
    const finalEnergy = totalEnergy(simulation);
    expect(finalEnergy).toBeLessThan(initialEnergy);
    console.log(
      `MPS dam break (${count} particles): energy ${(initialEnergy / count).toFixed(3)} -> ${(finalEnergy / count).toFixed(3)} J/kg, max speed ${maxSpeed.toFixed(2)} m/s, front at 0.25 s ${front.toFixed(3)} m (Z = ${(front / 0.4).toFixed(2)}), PCG ${simulation.stats.pressureSolveIterations} iterations`,
    );
    expect(simulation.particleCount).toBe(count);
    // Free fall from the column's top (0.6 m) gives sqrt(2 g H) = 3.4 m/s; the shallow-water front 2 sqrt(g H)
    // = 4.9 m/s. A fifth above the latter bounds any physical speed here.
    expect(maxSpeed).toBeLessThan(1.2 * 2 * Math.sqrt(9.81 * 0.6));
    // The surge front (Martin & Moyce 1952, column width a = 0.4 m, height 1.5 a): at t = 0.25 s,
    // T = t sqrt(2 g / a) = 1.75, where experiments put it near Z = x / a = 2 to 2.5; the band is [1.5, 3].
    expect(front / 0.4).toBeGreaterThan(1.5);
    expect(front / 0.4).toBeLessThan(3);
  });
});

describe('MPS: start-of-substep number density', () => {
  it('counts every pair within r_e at the start positions, also those that separate past r_e in the substep', () => {
    const simulation = new FluidSimulation({ solver: 'mps', particleRadius: 0.025, capacity: 2048 });
    const water = simulation.addMaterial({});
    simulation.addCollider({ shape: 'box', min: [0, 0, 0], max: [1.6, 1, 0.3], container: true });
    simulation.spawnBlock({ min: [0, 0, 0], max: [0.4, 0.6, 0.3], material: water });
    const context = simulation.internalContext;
    const state = mpsState(context);
    const re = simulation.settings.kernelRadius;
    const n0 = state.lattice.restNumberDensity;
    const walls = createMpsWallTerms(simulation.settings.capacity);
    let worstError = 0;
    let worstOutsideList = 0;
    // After the pressure system, before x = x*: the positions are still those of the substep's start.
    const check = (ctx: SimulationContext): void => {
      const s = ctx.solver;
      const n = s.count;
      computeMpsWallTerms(ctx, state.lattice.wallTables, walls, s.positionX, s.positionY, s.positionZ, false);
      const listed = new Set<number>();
      for (let i = 0; i < n; i++) {
        for (let k = s.neighbourStart[i]; k < s.neighbourStart[i + 1]; k++) {
          listed.add(Math.min(i, s.neighbours[k]) * n + Math.max(i, s.neighbours[k]));
        }
      }
      const exact = Float64Array.from(walls.numberDensity.subarray(0, n));
      const outsideList = new Float64Array(n);
      for (let i = 0; i < n; i++) {
        for (let j = i + 1; j < n; j++) {
          const r = Math.hypot(
            s.positionX[i] - s.positionX[j],
            s.positionY[i] - s.positionY[j],
            s.positionZ[i] - s.positionZ[j],
          );
          const w = mpsWeight(r, re);
          exact[i] += w;
          exact[j] += w;
          if (w > 0 && !listed.has(i * n + j)) {
            outsideList[i] += w;
            outsideList[j] += w;
          }
        }
      }
      for (let i = 0; i < n; i++) {
        worstError = Math.max(worstError, Math.abs(state.startNumberDensity[i] - exact[i]) / n0);
        worstOutsideList = Math.max(worstOutsideList, outsideList[i] / n0);
      }
    };
    const systems: FluidSystem[] = [];
    for (const system of mpsCpuSystems) {
      systems.push(system);
      if (system.name === 'mpsPressure') systems.push({ name: 'check', stage: 'substep', run: check });
    }
    for (let frame = 0; frame < 45; frame++) runStep(context, systems, simulation.settings.timeStep);
    console.log(
      `MPS start-of-substep number density in the dam break (0.75 s): largest error ${worstError.toExponential(2)} n0; pairs within r_e at the start but not in the neighbour list of r* would have lost up to ${(100 * worstOutsideList).toFixed(2)}% of n0 for one particle`,
    );
    expect(worstError).toBeLessThan(1e-12);
  });
});

describe('MPS: mesh and solid colliders', () => {
  it('a column collapses in a baked mesh tank around a solid sphere: no leaks, no particle in the sphere, finite', () => {
    const field = bakeSignedDistanceField(createBoxMesh([0, 0, 0], [0.6, 0.8, 0.3]), { cellSize: 0.025 });
    const simulation = new FluidSimulation({ solver: 'mps', particleRadius: 0.025, capacity: 1024 });
    const water = simulation.addMaterial({});
    const tank = simulation.addCollider({ shape: 'mesh', field, container: true });
    const sphere = simulation.addCollider({ shape: 'sphere', center: [0.42, 0.06, 0.15], radius: 0.08 });
    simulation.spawnBlock({ min: [0, 0, 0], max: [0.2, 0.4, 0.3], material: water });
    const count = simulation.particleCount;
    let maxSpeed = 0;
    for (let frame = 1; frame <= 90; frame++) {
      simulation.step();
      expect(simulation.particlesInsideCollider(tank)).toBe(0);
      expect(simulation.particlesInsideCollider(sphere)).toBe(0);
      maxSpeed = Math.max(maxSpeed, speeds(simulation).max);
    }
    expect(simulation.particleCount).toBe(count);
    // Centers inside the tank's walls (the sampled field keeps them about, not exactly, r from the walls).
    const r = simulation.settings.particleRadius;
    expect(outside(simulation, [-r, -r, -r], [0.6 + r, 0.8 + r, 0.3 + r])).toBe(0);
    console.log(
      `MPS mesh tank with a sphere (${count} particles): max speed ${maxSpeed.toFixed(2)} m/s (Ritter's surge front 2 sqrt(g H) = ${(2 * Math.sqrt(9.81 * 0.4)).toFixed(2)} m/s)`,
    );
    // The fastest water of a collapsing column of height H is its surge front, 2 sqrt(g H) = 3.96 m/s for
    // H = 0.4 m in the frictionless shallow-water (Ritter) solution, above free fall from the top
    // (sqrt(2 g H) = 2.8 m/s) as the pressure drives it. The sphere deflects the flow but adds no energy;
    // a tenth above Ritter's front leaves room for single particles' noise (measured 3.86 m/s).
    expect(maxSpeed).toBeLessThan(1.1 * 2 * Math.sqrt(9.81 * 0.4));
  });
});

/** Every live particle's id and position, in the solver's order. */
function positions(simulation: FluidSimulation): number[] {
  const { Position } = simulation;
  const result: number[] = [];
  for (const eid of simulation.particles()) result.push(eid, Position.x[eid], Position.y[eid], Position.z[eid]);
  return result;
}

describe('MPS: snapshots and edited settings', () => {
  /** A small dam break with non-default MPS settings, and its water's material id. */
  function damBreak(): { simulation: FluidSimulation; water: number } {
    const simulation = new FluidSimulation({
      solver: 'mps',
      particleRadius: 0.025,
      capacity: 1024,
      mps: { tolerance: 1e-7, sourceRelaxation: 0.8, collisionRestitution: 0.3, kinematicViscosity: 0.005 },
    });
    const water = simulation.addMaterial({});
    simulation.addCollider({ shape: 'box', min: [0, 0, 0], max: [0.8, 0.8, 0.2], container: true });
    simulation.spawnBlock({ min: [0, 0, 0], max: [0.3, 0.5, 0.2], material: water });
    return { simulation, water };
  }

  it('a restored MPS simulation continues bit-identically, from fromSnapshot and restored into itself', () => {
    const original = damBreak().simulation;
    for (let frame = 0; frame < 20; frame++) original.step();
    const saved = original.snapshot();
    const warmStart = Float64Array.from(mpsState(original.internalContext).pressureOfEntity);
    expect(warmStart.some((p) => p > 0)).toBe(true);
    const trajectory: number[][] = [];
    for (let frame = 0; frame < 10; frame++) {
      original.step();
      trajectory.push(positions(original));
    }

    const restored = FluidSimulation.fromSnapshot(saved);
    expect(restored.mpsSettings).toEqual(original.mpsSettings);
    expect(restored.mpsSettings).toEqual({
      ...MPS_DEFAULTS,
      tolerance: 1e-7,
      sourceRelaxation: 0.8,
      collisionRestitution: 0.3,
      kinematicViscosity: 0.005,
    });
    expect(mpsState(restored.internalContext).pressureOfEntity).toEqual(warmStart);
    for (let frame = 0; frame < 10; frame++) {
      restored.step();
      expect(positions(restored)).toEqual(trajectory[frame]);
    }

    // Into itself, after its settings and warm start moved on: both come back.
    const settings = original.mpsSettings;
    if (settings === undefined) throw new Error('an MPS simulation has MPS settings');
    settings.sourceRelaxation = 0.5;
    original.restore(saved);
    expect(original.mpsSettings?.sourceRelaxation).toBe(0.8);
    expect(mpsState(original.internalContext).pressureOfEntity).toEqual(warmStart);
    for (let frame = 0; frame < 10; frame++) {
      original.step();
      expect(positions(original)).toEqual(trajectory[frame]);
    }
  });

  it('an MPS snapshot is refused by a simulation with another solver, and a PBF one by an MPS simulation', () => {
    const mps = damBreak().simulation;
    mps.step();
    const pbf = new FluidSimulation({ particleRadius: 0.025, capacity: 1024 });
    expect(() => pbf.restore(mps.snapshot())).toThrow(FluidError);
    expect(() => pbf.restore(mps.snapshot())).toThrow(/solver is 'pbf' here but 'mps' in the snapshot/);
    expect(() => mps.restore(pbf.snapshot())).toThrow(/solver is 'mps' here but 'pbf' in the snapshot/);
  });

  it('an edited MPS setting out of range makes step() throw before anything changes; fixed, it steps on', () => {
    const { simulation, water } = damBreak();
    simulation.addEmitter({ position: [0.6, 0.6, 0.1], direction: [0, -1, 0], speed: 1, rate: 200, material: water });
    simulation.step();
    const settings = simulation.mpsSettings;
    if (settings === undefined) throw new Error('an MPS simulation has MPS settings');
    const before = positions(simulation);
    const count = simulation.particleCount;
    settings.tolerance = -1;
    expect(() => simulation.step()).toThrow(FluidError);
    expect(() => simulation.step()).toThrow(/mps.tolerance is -1; allowed range is \[1e-12, 0.1\]/);
    expect(simulation.particleCount).toBe(count);
    expect(positions(simulation)).toEqual(before);
    settings.tolerance = 1e-6;
    simulation.step();
    expect(positions(simulation)).not.toEqual(before);
  });
});

describe('MPS: rigid-body coupling', () => {
  it('a box of half the density of water floats half submerged (within 10%) from the ghost-wall pressure', async () => {
    const blank = await floatingBoxRun(undefined, { solver: 'mps' });
    const floating = await floatingBoxRun(500, { solver: 'mps' });
    expect(blank.countAtEnd).toBe(blank.count);
    expect(floating.countAtEnd).toBe(floating.count);
    expect(floating.inside).toBe(0);
    const { displacement, geometric } = submergedFractions(blank, floating);
    console.log(
      `MPS floating box (density 500 kg/m^3, ${floating.count} particles, last 1 s of 4): submerged fraction by displacement ${displacement.toFixed(3)} (level ${blank.level.toFixed(4)} -> ${floating.level.toFixed(4)} m), by geometry ${geometric.toFixed(3)} (bottom at ${floating.bottom.toFixed(4)} m); expected 0.5`,
    );
    expect(Math.abs(displacement / 0.5 - 1)).toBeLessThan(0.1);
    expect(Math.abs(geometric / 0.5 - 1)).toBeLessThan(0.1);
  });
});
