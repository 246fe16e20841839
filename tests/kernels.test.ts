import { describe, expect, it } from 'vitest';
import { latticeKernelSum, poly6, spiky, spikyGradient } from '../src/core/kernels';
import { random } from './helpers';

/** Integral of a radial kernel over the ball of radius h, by Simpson's rule on 4 pi r^2 W(r). */
function radialIntegral(kernel: (r: number, h: number) => number, h: number): number {
  const steps = 2000;
  const dr = h / steps;
  let sum = 0;
  for (let k = 0; k <= steps; k++) {
    const r = k * dr;
    const weight = k === 0 || k === steps ? 1 : k % 2 === 1 ? 4 : 2;
    sum += weight * 4 * Math.PI * r * r * kernel(r, h);
  }
  return (sum * dr) / 3;
}

describe('SPH kernels (Müller et al. 2003, eq. 20-21)', () => {
  it.each([0.05, 0.1, 1, 3])('poly6 and spiky integrate to 1 within 1%% for h = %s', (h) => {
    expect(Math.abs(radialIntegral(poly6, h) - 1)).toBeLessThan(0.01);
    expect(Math.abs(radialIntegral(spiky, h) - 1)).toBeLessThan(0.01);
  });

  it('poly6 integrates to 1 in a 3D Cartesian sum too (independent of the radial formula)', () => {
    const h = 0.1;
    const steps = 60;
    const dx = (2 * h) / steps;
    let sum = 0;
    for (let i = 0; i < steps; i++)
      for (let j = 0; j < steps; j++)
        for (let k = 0; k < steps; k++) {
          const x = -h + (i + 0.5) * dx;
          const y = -h + (j + 0.5) * dx;
          const z = -h + (k + 0.5) * dx;
          sum += poly6(Math.sqrt(x * x + y * y + z * z), h);
        }
    expect(Math.abs(sum * dx ** 3 - 1)).toBeLessThan(0.01);
  });

  it('the spiky gradient is antisymmetric and matches the derivative of the spiky kernel', () => {
    const rand = random(7);
    const h = 0.1;
    const a = new Float64Array(3);
    const b = new Float64Array(3);
    for (let trial = 0; trial < 1000; trial++) {
      const x = (rand() - 0.5) * 2 * h;
      const y = (rand() - 0.5) * 2 * h;
      const z = (rand() - 0.5) * 2 * h;
      spikyGradient(x, y, z, h, a);
      spikyGradient(-x, -y, -z, h, b);
      for (let k = 0; k < 3; k++) expect(a[k] + b[k]).toBe(0);
      const r = Math.hypot(x, y, z);
      if (r < 0.05 * h || r > 0.95 * h) continue;
      // Central difference of W along x.
      const e = 1e-7;
      const numeric = (spiky(Math.hypot(x + e, y, z), h) - spiky(Math.hypot(x - e, y, z), h)) / (2 * e);
      expect(Math.abs(numeric - a[0])).toBeLessThan(1e-5 * Math.max(1, Math.abs(a[0])) + 1e-3);
    }
  });

  it('the rest-lattice kernel sum makes the particle mass give rest density', () => {
    const h = 0.1;
    const spacing = 0.05;
    const mass = 1000 / latticeKernelSum(spacing, h);
    // A particle mass of rho0 d^3 would be the continuum value; the lattice sum is within 10% of 1 / d^3.
    expect(Math.abs(mass / (1000 * spacing ** 3) - 1)).toBeLessThan(0.1);
  });
});
