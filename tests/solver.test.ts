import { describe, expect, it } from 'vitest';
import { computeCorrections, computeLambda } from '../src/systems/density/cpu';
import { applyCorrections } from '../src/systems/density/shared';
import { neighbourSystem } from '../src/systems/neighbours/cpu';
import { viscosityVorticitySystem } from '../src/systems/velocity/cpu';
import { contextWithParticles, random } from './helpers';

function lattice(count: number, spacing: number, jitter = 0, seed = 1): number[] {
  const rand = random(seed);
  const positions: number[] = [];
  for (let i = 0; i < count; i++)
    for (let j = 0; j < count; j++)
      for (let k = 0; k < count; k++) {
        positions.push(
          i * spacing + (rand() - 0.5) * jitter,
          j * spacing + (rand() - 0.5) * jitter,
          k * spacing + (rand() - 0.5) * jitter,
        );
      }
  return positions;
}

describe('PBF density constraint (Macklin & Müller 2013, eq. 1-14)', () => {
  it('a particle inside the spawn lattice sits at rest density (mass from the lattice kernel sum)', () => {
    const context = contextWithParticles(lattice(9, 0.05));
    neighbourSystem(context);
    computeLambda(context);
    const s = context.solver;
    // The particle at the center of the 9^3 block has a full neighbourhood.
    for (let i = 0; i < s.count; i++) {
      if (s.entity[i] !== 4 * 81 + 4 * 9 + 4 + 1) continue;
      expect(Math.abs(s.density[i] / 1000 - 1)).toBeLessThan(1e-9);
      expect(Math.abs(s.lambda[i])).toBeLessThan(1e-15);
    }
  });

  it('position corrections conserve momentum: sum of m dp is zero without colliders', () => {
    // A compressed, jittered block: lambdas are non-zero and the corrections large.
    const context = contextWithParticles(lattice(8, 0.04, 0.01, 5));
    neighbourSystem(context);
    computeLambda(context);
    computeCorrections(context);
    const s = context.solver;
    let sx = 0;
    let sy = 0;
    let sz = 0;
    let magnitude = 0;
    for (let i = 0; i < s.count; i++) {
      sx += s.mass[i] * s.deltaX[i];
      sy += s.mass[i] * s.deltaY[i];
      sz += s.mass[i] * s.deltaZ[i];
      magnitude += s.mass[i] * Math.hypot(s.deltaX[i], s.deltaY[i], s.deltaZ[i]);
    }
    expect(magnitude).toBeGreaterThan(0);
    expect(Math.hypot(sx, sy, sz) / magnitude).toBeLessThan(1e-12);
  });

  it('Jacobi iterations reduce the density error of a compressed block', () => {
    const context = contextWithParticles(lattice(8, 0.045, 0.005, 9));
    neighbourSystem(context);
    const s = context.solver;
    const maxError = () => {
      let max = 0;
      for (let i = 0; i < s.count; i++) max = Math.max(max, s.density[i] / 1000 - 1);
      return max;
    };
    computeLambda(context);
    const before = maxError();
    for (let iteration = 0; iteration < 10; iteration++) {
      computeLambda(context);
      computeCorrections(context);
      applyCorrections(context);
    }
    computeLambda(context);
    expect(before).toBeGreaterThan(0.2);
    expect(maxError()).toBeLessThan(before / 3);
  });
});

describe('velocity post-processing (eq. 15-17)', () => {
  it('the vorticity estimator gives 2 Omega for a rigid rotation', () => {
    const omega = 3; // rad/s about y
    const positions = lattice(11, 0.05);
    const context = contextWithParticles(positions);
    neighbourSystem(context);
    computeLambda(context); // densities for the volumes
    const s = context.solver;
    for (let i = 0; i < s.count; i++) {
      // v = Omega x (x - c) with Omega = (0, omega, 0) and c the block center.
      const x = s.predictedX[i] - 0.25;
      const z = s.predictedZ[i] - 0.25;
      s.velocityX[i] = omega * z;
      s.velocityY[i] = 0;
      s.velocityZ[i] = -omega * x;
    }
    context.materials.viscosity[0] = 0;
    context.materials.vorticity[0] = 0;
    viscosityVorticitySystem(context);
    let checked = 0;
    for (let i = 0; i < s.count; i++) {
      const x = s.predictedX[i];
      const y = s.predictedY[i];
      const z = s.predictedZ[i];
      const inside = [x, y, z].every((c) => c > 0.15 && c < 0.35);
      if (!inside) continue;
      // The uncorrected SPH derivative underestimates by a few percent on a lattice (measured 5.3%).
      expect(Math.abs(s.vorticityY[i] / (2 * omega) - 1)).toBeLessThan(0.08);
      expect(Math.abs(s.vorticityX[i])).toBeLessThan(1e-9);
      expect(Math.abs(s.vorticityZ[i])).toBeLessThan(1e-9);
      checked++;
    }
    expect(checked).toBeGreaterThan(50);
  });

  it('XSPH leaves a uniform flow unchanged and conserves momentum of a sheared one', () => {
    const context = contextWithParticles(lattice(8, 0.05, 0.01, 3));
    neighbourSystem(context);
    computeLambda(context);
    const s = context.solver;
    const rand = random(11);
    let before = 0;
    for (let i = 0; i < s.count; i++) {
      s.velocityX[i] = 1 + (rand() - 0.5);
      s.velocityY[i] = 0;
      s.velocityZ[i] = 0;
      before += s.mass[i] * s.velocityX[i];
    }
    context.materials.vorticity[0] = 0;
    context.materials.viscosity[0] = 0.1;
    viscosityVorticitySystem(context);
    let after = 0;
    let spread = 0;
    for (let i = 0; i < s.count; i++) {
      after += s.mass[i] * s.velocityX[i];
      spread += Math.abs(s.velocityX[i] - before / (s.mass[i] * s.count));
    }
    // XSPH pairs are symmetric only when the volumes match; they nearly do in this block.
    expect(Math.abs(after - before) / before).toBeLessThan(2e-3);
    expect(spread / s.count).toBeLessThan(0.25);
    for (let i = 0; i < s.count; i++) s.velocityX[i] = 2;
    viscosityVorticitySystem(context);
    for (let i = 0; i < s.count; i++) expect(s.velocityX[i]).toBeCloseTo(2, 12);
  });
});
