/**
 * SPH smoothing kernels of Müller, Charypar & Gross 2003 (section 3.5), radius h, in 3D.
 * Position Based Fluids uses poly6 for density and the spiky gradient for gradients.
 */
import { FluidError } from './errors';

/**
 * Offset, as a fraction of h, given along +x to the second of two particles at the same position (a block
 * spawned twice), so that the spiky gradient separates them; every solver's pair loop and the WGSL passes
 * (`coincidentOffset` of the scene parameters) use it.
 */
export const COINCIDENT_OFFSET = 1e-6;

/** Normalisation of the poly6 kernel: W(r) = 315 / (64 pi h^9) (h^2 - r^2)^3, eq. 20 of Müller 2003. */
export function poly6Coefficient(h: number): number {
  return 315 / (64 * Math.PI * h ** 9);
}

/**
 * Throws {@link FluidError} unless the kernel radius `h` is a finite number > 0 (m) and the distance `r`
 * is a number >= 0 (m; infinity is allowed and gives 0).
 */
function checkKernelArguments(r: number, h: number): void {
  if (!(typeof h === 'number' && h > 0 && h < Number.POSITIVE_INFINITY)) {
    throw new FluidError(`h is ${String(h)}; the kernel radius must be a finite number > 0 (m)`);
  }
  if (!(typeof r === 'number' && r >= 0)) {
    throw new FluidError(`r is ${String(r)}; the distance must be a number >= 0 (m)`);
  }
}

/**
 * Poly6 kernel value at distance `r` (m, >= 0) for kernel radius `h` (m, finite, > 0), in 1/m^3; zero for
 * r >= h. Other arguments throw {@link FluidError}.
 */
export function poly6(r: number, h: number): number {
  checkKernelArguments(r, h);
  if (r >= h) return 0;
  const d = h * h - r * r;
  return poly6Coefficient(h) * d * d * d;
}

/** Normalisation of the spiky kernel: W(r) = 15 / (pi h^6) (h - r)^3, eq. 21 of Müller 2003. */
export function spikyCoefficient(h: number): number {
  return 15 / (Math.PI * h ** 6);
}

/**
 * Spiky kernel value at distance `r` (m, >= 0) for kernel radius `h` (m, finite, > 0), in 1/m^3; zero for
 * r >= h. Other arguments throw {@link FluidError}.
 */
export function spiky(r: number, h: number): number {
  checkKernelArguments(r, h);
  if (r >= h) return 0;
  const d = h - r;
  return spikyCoefficient(h) * d * d * d;
}

/**
 * Coefficient of the spiky gradient: grad W(r) = -45 / (pi h^6) (h - r)^2 r / |r|.
 * Returned as the positive constant 45 / (pi h^6); callers multiply by -(h - r)^2 / |r|.
 */
export function spikyGradientCoefficient(h: number): number {
  return 45 / (Math.PI * h ** 6);
}

/**
 * Spiky gradient with respect to x_i of W(x_i - x_j) for the offset (rx, ry, rz) = x_i - x_j (m, finite),
 * written into `out` (1/m^4) for kernel radius `h` (m, finite, > 0). Zero at r = 0 and r >= h, so it is
 * antisymmetric: grad W(-r) = -grad W(r). A non-finite offset or a bad `h` throws {@link FluidError}.
 */
export function spikyGradient(rx: number, ry: number, rz: number, h: number, out: Float64Array | number[]): void {
  if (!Number.isFinite(rx + ry + rz)) {
    throw new FluidError(`the offset is [${rx}, ${ry}, ${rz}]; its components must be finite numbers (m)`);
  }
  const r = Math.sqrt(rx * rx + ry * ry + rz * rz);
  checkKernelArguments(Number.isFinite(r) ? r : 0, h);
  if (r >= h || r <= 0) {
    out[0] = 0;
    out[1] = 0;
    out[2] = 0;
    return;
  }
  const d = h - r;
  const s = (-spikyGradientCoefficient(h) * d * d) / r;
  out[0] = s * rx;
  out[1] = s * ry;
  out[2] = s * rz;
}

/**
 * Coefficient of the poly6 gradient and Laplacian (Müller et al. 2003, eq. 20 differentiated), the
 * positive constant 945 / (32 pi h^9) (1/m^9): grad W(r) = -945 / (32 pi h^9) (h^2 - r^2)^2 r (a vector,
 * 1/m^4) and lap W(r) = -945 / (32 pi h^9) (h^2 - r^2) (3 h^2 - 7 r^2) (1/m^5), both zero for r >= h.
 * The color field's normal and curvature (eq. 16-17) use them.
 */
export function poly6GradientCoefficient(h: number): number {
  return 945 / (32 * Math.PI * h ** 9);
}

/**
 * Coefficient of the viscosity kernel's Laplacian (Müller et al. 2003, eq. 22): lap W(r) = 45 / (pi h^6)
 * (h - r) for r < h, 0 beyond (1/m^5, positive everywhere). Returned as 45 / (pi h^6) (1/m^6).
 */
export function viscosityLaplacianCoefficient(h: number): number {
  return 45 / (Math.PI * h ** 6);
}

/**
 * Sum of poly6 weights over the cubic spawn lattice of spacing `spacing` (self included), 1/m^3.
 * The particle mass that makes the lattice sit at rest density rho0 is rho0 / latticeKernelSum.
 */
export function latticeKernelSum(spacing: number, h: number): number {
  const n = Math.ceil(h / spacing);
  let sum = 0;
  for (let i = -n; i <= n; i++)
    for (let j = -n; j <= n; j++)
      for (let k = -n; k <= n; k++) sum += poly6(spacing * Math.sqrt(i * i + j * j + k * k), h);
  return sum;
}

/**
 * Sum over the rest lattice of |grad_k C_i|^2 (the denominator of eq. 9 without CFM) for a particle
 * of volume V = 1 / latticeKernelSum, in 1/m^2. Used to make the CFM relaxation and the artificial
 * pressure independent of the particle size.
 */
export function latticeGradientSum(spacing: number, h: number): number {
  const volume = 1 / latticeKernelSum(spacing, h);
  const n = Math.ceil(h / spacing);
  const g = [0, 0, 0];
  let sum = 0;
  let sx = 0;
  let sy = 0;
  let sz = 0;
  for (let i = -n; i <= n; i++)
    for (let j = -n; j <= n; j++)
      for (let k = -n; k <= n; k++) {
        if (i === 0 && j === 0 && k === 0) continue;
        spikyGradient(i * spacing, j * spacing, k * spacing, h, g);
        const gx = volume * g[0];
        const gy = volume * g[1];
        const gz = volume * g[2];
        sum += gx * gx + gy * gy + gz * gz;
        sx += gx;
        sy += gy;
        sz += gz;
      }
  return sum + sx * sx + sy * sy + sz * sz;
}

/**
 * First moment of the spiky gradient over the rest lattice: sum_j V (x_j - x_i)_y^2 |grad W_ij| / r_ij with
 * V = 1 / latticeKernelSum (dimensionless; the same along every axis of the cubic lattice). The SPH gradient
 * of a linear field p, sum_j V (p_j - p_i) grad W_ij, returns this times grad p: 0.947 at h = 2 spacings (the
 * default), 1 in the continuum limit. Its inverse normalises WCSPH's pressure force (the constant-lattice
 * form of Bonet & Lok's 1999 kernel gradient correction), so that a column at rest carries its weight with
 * the hydrostatic pressure (sph/cpu.ts).
 */
export function latticeGradientMoment(spacing: number, h: number): number {
  const volume = 1 / latticeKernelSum(spacing, h);
  const n = Math.ceil(h / spacing);
  const g = [0, 0, 0];
  let sum = 0;
  for (let i = -n; i <= n; i++)
    for (let j = -n; j <= n; j++)
      for (let k = -n; k <= n; k++) {
        if (i === 0 && j === 0 && k === 0) continue;
        spikyGradient(i * spacing, j * spacing, k * spacing, h, g);
        // The offset x_i - x_j is (i, j, k) spacing and grad_i W is parallel to it with a negative factor, so
        // -(x_i - x_j)_y (grad_i W)_y = y^2 |grad W| / r.
        sum -= volume * (j * spacing) * g[1];
      }
  return sum;
}

/**
 * How fast the poly6 density of the rest lattice grows when the lattice is squeezed along one axis:
 * d(rho / rho0) / d(strain) = sum_j V 6 c (h^2 - r_j^2)^2 y_j^2 with c the poly6 coefficient and
 * V = 1 / latticeKernelSum (dimensionless; 1.055 at h = 2 spacings, 1 in the continuum limit). The
 * hydrostatic spawn of WCSPH uses it (spawn.ts).
 */
export function latticeDensityResponse(spacing: number, h: number): number {
  const volume = 1 / latticeKernelSum(spacing, h);
  const c = poly6Coefficient(h);
  const n = Math.ceil(h / spacing);
  let sum = 0;
  for (let i = -n; i <= n; i++)
    for (let j = -n; j <= n; j++)
      for (let k = -n; k <= n; k++) {
        const r2 = (i * i + j * j + k * k) * spacing * spacing;
        if (r2 >= h * h) continue;
        const d = h * h - r2;
        sum += volume * 6 * c * d * d * (j * spacing) ** 2;
      }
  return sum;
}

/** Number of lattice neighbours (self excluded) strictly inside the kernel radius. */
export function latticeNeighbourCount(spacing: number, h: number): number {
  const n = Math.ceil(h / spacing);
  let count = 0;
  for (let i = -n; i <= n; i++)
    for (let j = -n; j <= n; j++)
      for (let k = -n; k <= n; k++) {
        if (i === 0 && j === 0 && k === 0) continue;
        if (spacing * Math.sqrt(i * i + j * j + k * k) < h) count++;
      }
  return count;
}

/** Samples of the wall weight table over d in [0, h]. */
export const WALL_WEIGHT_SAMPLES = 64;

/**
 * Wall weight function of density Z(d) (Harada et al. 2007, eq. 12, section 4.4): the poly6 sum (1/m^3)
 * of virtual wall particles behind a flat wall, seen by a particle at distance d in front of it. The
 * virtual particles continue the spawn lattice (spacing 2r, first layer r behind the surface, so a
 * particle resting at d = r sees a full neighbourhood), averaged over 4 x 4 lateral offsets. Tabulated at
 * `WALL_WEIGHT_SAMPLES + 1` points over [0, h]; multiply by the particle mass for a density.
 */
export function wallWeightTable(particleRadius: number, kernelRadius: number): Float64Array {
  const spacing = 2 * particleRadius;
  const table = new Float64Array(WALL_WEIGHT_SAMPLES + 1);
  const lateral = Math.ceil(kernelRadius / spacing) + 1;
  const offsets = 4;
  for (let sample = 0; sample <= WALL_WEIGHT_SAMPLES; sample++) {
    const d = (sample / WALL_WEIGHT_SAMPLES) * kernelRadius;
    let sum = 0;
    for (let oa = 0; oa < offsets; oa++) {
      for (let ob = 0; ob < offsets; ob++) {
        const shiftA = (oa / offsets) * spacing;
        const shiftB = (ob / offsets) * spacing;
        for (let layer = 0; d + particleRadius + layer * spacing < kernelRadius; layer++) {
          const depth = d + particleRadius + layer * spacing;
          for (let a = -lateral; a <= lateral; a++) {
            for (let b = -lateral; b <= lateral; b++) {
              const x = a * spacing + shiftA;
              const z = b * spacing + shiftB;
              sum += poly6(Math.sqrt(depth * depth + x * x + z * z), kernelRadius);
            }
          }
        }
      }
    }
    table[sample] = sum / (offsets * offsets);
  }
  return table;
}
