/**
 * The velocity-stage terms of fluid-fluid interaction (Müller, Solenthaler, Keiser and Gross 2005), run
 * after XSPH viscosity and vorticity confinement on the substep's final positions:
 *
 * - Interface and surface tension (section 3.2, eq. 10-12). The color fields c^i and c^s are smoothed
 *   with poly6 as in eq. 1, c(x_i) = sum_j V_j c_j W_ij with V_j = m_j / rho_j; their gradient n = grad c
 *   (eq. 3) and Laplacian (eq. 4, the particle's own term included, as the paper's raw sums) give the body
 *   force f = -sigma lap(c) n / |n| (N/m^3), applied where |n| exceeds {@link TENSION_NORMAL_THRESHOLD} / h
 *   (elsewhere n / |n| is noise): v_i += dt f / rho_i. Between two materials each pair term of the
 *   Laplacian carries the pair's mean sigma_ij = (sigma_i + sigma_j) / 2 (the particle's own term its own
 *   sigma), sigma lap(c) = sum_j sigma_ij V_j c_j lap W_ij: a particle of a tension-free fluid next to one
 *   with tension feels half of it, as its neighbour does, instead of none. Between
 *   a polar (c^i = -0.5) and a non-polar (+0.5) liquid the interface force flattens the interface; the
 *   surface color (1 in every liquid, 0 in the empty space around it) does the same at the free surface.
 *   Signs and size, checked on an oil sphere (c = +0.5, radius R) in water: n = grad c points into the
 *   sphere, so f_r = f . r/|r| = sigma lap(c). The line integral of f_r across the interface, sigma times
 *   that of c'' + 2 c' / r over r, is -2 sigma / R: the pressure it builds is higher inside by the Laplace
 *   pressure 2 sigma / R, as it should. The volume integral of f_r, the total radial force, is sigma
 *   times the flux of grad c through a sphere enclosing the interface: zero, not the -8 pi sigma R of the continuum
 *   surface force sigma kappa grad c with the true curvature (eq. 10 before kappa = -lap(c) / |n| is put
 *   in). Eq. 11 acts as a dipole, inwards on the inner fluid's side and outwards on the outer's, and the
 *   discrete sum leaves a small residual of either sign (+1.3 N with R = 0.15 m, h = 0.05 m, sigma =
 *   2 N/m). Measured on that sphere after one step, as sum_i V_i f_r,i / (4 pi r_i^2) over the particles
 *   within R + 1.2 h: -17.5 Pa against -2 sigma / R = -26.7 Pa, 0.62-0.65 of it also for R = 0.1 and 0.2 m.
 *   The shortfall is the known weakness of the color-field Laplacian with few neighbours: with particles
 *   h / 2 apart, the poly6 Laplacian responds to curvature with the lattice's second moment
 *   sum_j V_j r_ij^2 lap W_ij = 4.08 instead of the continuum's 6 (0.68); the difference form
 *   sum_j V_j (c_j - c_i) lap W_ij gives the same within 4%. The interface tension is thus about two
 *   thirds of sigma at this resolution (sigma times 1.5 compensates); the surface tension's Laplacian is
 *   the same sum.
 * - Diffusion (section 3.3, eq. 13-15) of the particles' `Temperature` and render `Color`:
 *   dA_i/dt = sum_j c_ij V_j (A_j - A_i) lap W_visc(r_ij) with the viscosity kernel's Laplacian
 *   45 / (pi h^6) (h - r) and c_ij the mean of the two materials' diffusivities, integrated with explicit
 *   Euler (eq. 15). The pair sums are symmetric, so sum_i V_i A_i is kept. Where dt c / h^2 is too large for
 *   explicit Euler the substep is split so that dt' sum_j c_ij V_j lap W_ij <= 0.5 for every particle (the
 *   new values are then means of old ones: no overshoot, no NaN), into at most 64 parts (beyond, the
 *   diffusion runs slower than asked rather than unstably).
 * - Heat sources and sinks on colliders: a collider with `heatTransfer` k > 0 and `temperature` T_c moves
 *   the temperature of each particle within the kernel radius h of its surface (fluid-side distance d) by
 *   dT = min(1, dt k (1 - d / h)) (T_c - T) (Newton's law of cooling, weighted by closeness; implicit
 *   enough never to overshoot T_c).
 *
 * Each term runs only when some material or collider has a non-zero coefficient (see features.ts).
 */

import { poly6GradientCoefficient, viscosityLaplacianCoefficient } from '../../core/kernels';
import { fluidSideDistance, fluidSidePoint } from '../collide/cpu';
import { COLLIDER_FRAME_STRIDE, type SimulationContext } from '../context';

/**
 * The tension forces act where the color gradient |n| is at least this fraction of 1 / h (a jump of the
 * color by 1 across about one kernel radius has |n| near 1 / h; inside a fluid |n| is near 0).
 */
export const TENSION_NORMAL_THRESHOLD = 0.1;

/**
 * Largest explicit diffusion step, as dt' times the largest per-particle rate sum_j c_ij V_j lap W_ij
 * (dimensionless, 0.5; eq. 15). Shared with the WebGPU backend's diffusion plan (multifluid/diffusion.wgsl).
 */
export const DIFFUSION_STABILITY = 0.5;

/**
 * Most explicit diffusion parts one substep is split into (64; a diffusivity needing more acts slower).
 * Shared with the WebGPU backend, which records at most this many parts per substep.
 */
export const MAX_DIFFUSION_PARTS = 64;

/** Adds the tension force of one color field (per-material colors and coefficients) to the velocities. */
function applyTension(ctx: SimulationContext, colorOf: Float64Array, tensionOf: Float64Array): void {
  const s = ctx.solver;
  const n = s.count;
  const h = ctx.settings.kernelRadius;
  const hSquared = h * h;
  const k = poly6GradientCoefficient(h);
  const dt = ctx.substepTimeStep;
  // coefficient holds each particle's sigma; laplacian the sigma-weighted sum sum_j sigma_ij V_j c_j lap W_ij.
  const { normalX, normalY, normalZ, laplacian, color, coefficient: sigmaOf } = ctx.solver.multiFluid;
  const { positionX, positionY, positionZ, velocityX, velocityY, velocityZ, volume, density, material } = s;
  const { neighbourStart, neighbours } = s;
  const materialEntity = ctx.materials.entity;
  // lap W(0) = -k h^2 (3 h^2) for the particle's own term.
  const selfLaplacian = -k * hSquared * 3 * hSquared;
  for (let i = 0; i < n; i++) {
    const materialId = materialEntity[material[i]];
    const c = colorOf[materialId];
    const sigma = tensionOf[materialId];
    color[i] = c;
    sigmaOf[i] = sigma;
    normalX[i] = 0;
    normalY[i] = 0;
    normalZ[i] = 0;
    laplacian[i] = sigma * volume[i] * c * selfLaplacian;
  }
  for (let i = 0; i < n; i++) {
    const xi = positionX[i];
    const yi = positionY[i];
    const zi = positionZ[i];
    const weightI = volume[i] * color[i];
    const sigmaI = sigmaOf[i];
    let nx = normalX[i];
    let ny = normalY[i];
    let nz = normalZ[i];
    let lap = laplacian[i];
    const end = neighbourStart[i + 1];
    for (let p = neighbourStart[i]; p < end; p++) {
      const j = neighbours[p];
      const rx = xi - positionX[j];
      const ry = yi - positionY[j];
      const rz = zi - positionZ[j];
      const r2 = rx * rx + ry * ry + rz * rz;
      if (r2 >= hSquared) continue;
      const d = hSquared - r2;
      // grad_i W_ij = g r_ij, grad_j W_ij = -g r_ij; lap W_ij the same for both.
      const g = -k * d * d;
      const l = -k * d * (3 * hSquared - 7 * r2);
      const weightJ = volume[j] * color[j];
      nx += weightJ * g * rx;
      ny += weightJ * g * ry;
      nz += weightJ * g * rz;
      const pairSigma = 0.5 * (sigmaI + sigmaOf[j]);
      lap += pairSigma * weightJ * l;
      laplacian[j] += pairSigma * weightI * l;
      normalX[j] -= weightI * g * rx;
      normalY[j] -= weightI * g * ry;
      normalZ[j] -= weightI * g * rz;
    }
    normalX[i] = nx;
    normalY[i] = ny;
    normalZ[i] = nz;
    laplacian[i] = lap;
  }
  const threshold = TENSION_NORMAL_THRESHOLD / h;
  for (let i = 0; i < n; i++) {
    const lap = laplacian[i];
    if (lap === 0) continue;
    const nx = normalX[i];
    const ny = normalY[i];
    const nz = normalZ[i];
    const length = Math.sqrt(nx * nx + ny * ny + nz * nz);
    if (!(length >= threshold)) continue;
    // f = -sigma lap(c) n / |n| (eq. 11, 12), sigma inside the Laplacian's pair sum; a = f / rho.
    const scale = (-lap * dt) / (length * density[i]);
    velocityX[i] += scale * nx;
    velocityY[i] += scale * ny;
    velocityZ[i] += scale * nz;
  }
}

/**
 * Diffuses the given entity-indexed channels (eq. 14-15) with per-material diffusivities
 * (`diffusivityOf[c]`, indexed by material entity, for channel c).
 */
function diffuse(
  ctx: SimulationContext,
  channels: readonly Float64Array[],
  diffusivityOf: readonly Float64Array[],
): void {
  const s = ctx.solver;
  const n = s.count;
  const h = ctx.settings.kernelRadius;
  const hSquared = h * h;
  const laplacianC = viscosityLaplacianCoefficient(h);
  const { rate, change, values, coefficient } = s.multiFluid;
  const { positionX, positionY, positionZ, volume, material, entity, neighbourStart, neighbours } = s;
  const materialEntity = ctx.materials.entity;
  const channelCount = channels.length;
  // Each channel's values by place, and per particle the largest of its material's diffusivities (for the
  // stability bound: rate_i = sum_j c_ij V_j lap W_ij with c_ij the pair's mean of those).
  for (let i = 0; i < n; i++) {
    const eid = entity[i];
    const materialId = materialEntity[material[i]];
    let largest = 0;
    for (let c = 0; c < channelCount; c++) {
      values[c][i] = channels[c][eid];
      largest = Math.max(largest, diffusivityOf[c][materialId]);
    }
    coefficient[i] = largest;
    rate[i] = 0;
  }
  for (let i = 0; i < n; i++) {
    const xi = positionX[i];
    const yi = positionY[i];
    const zi = positionZ[i];
    let sum = rate[i];
    const end = neighbourStart[i + 1];
    for (let p = neighbourStart[i]; p < end; p++) {
      const j = neighbours[p];
      const rx = xi - positionX[j];
      const ry = yi - positionY[j];
      const rz = zi - positionZ[j];
      const r2 = rx * rx + ry * ry + rz * rz;
      if (r2 >= hSquared) continue;
      const l = laplacianC * (h - Math.sqrt(r2)) * 0.5 * (coefficient[i] + coefficient[j]);
      sum += volume[j] * l;
      rate[j] += volume[i] * l;
    }
    rate[i] = sum;
  }
  let largestRate = 0;
  for (let i = 0; i < n; i++) largestRate = Math.max(largestRate, rate[i]);
  const dt = ctx.substepTimeStep;
  if (!(largestRate > 0)) return;
  const parts = Math.min(MAX_DIFFUSION_PARTS, Math.max(1, Math.ceil((dt * largestRate) / DIFFUSION_STABILITY)));
  // Past MAX_DIFFUSION_PARTS the parts stay at the stable length: diffusion is slower than asked, never unstable.
  const partDt = Math.min(dt / parts, DIFFUSION_STABILITY / largestRate);
  for (let part = 0; part < parts; part++) {
    for (let c = 0; c < channelCount; c++) change[c].fill(0, 0, n);
    for (let i = 0; i < n; i++) {
      const xi = positionX[i];
      const yi = positionY[i];
      const zi = positionZ[i];
      const materialI = materialEntity[material[i]];
      const volumeI = volume[i];
      const end = neighbourStart[i + 1];
      for (let p = neighbourStart[i]; p < end; p++) {
        const j = neighbours[p];
        const rx = xi - positionX[j];
        const ry = yi - positionY[j];
        const rz = zi - positionZ[j];
        const r2 = rx * rx + ry * ry + rz * rz;
        if (r2 >= hSquared) continue;
        const l = laplacianC * (h - Math.sqrt(r2));
        const materialJ = materialEntity[material[j]];
        const volumeJ = volume[j];
        for (let c = 0; c < channelCount; c++) {
          const cij = 0.5 * (diffusivityOf[c][materialI] + diffusivityOf[c][materialJ]);
          if (cij === 0) continue;
          const difference = (values[c][j] - values[c][i]) * cij * l;
          change[c][i] += volumeJ * difference;
          change[c][j] -= volumeI * difference;
        }
      }
    }
    for (let c = 0; c < channelCount; c++) {
      const value = values[c];
      const delta = change[c];
      for (let i = 0; i < n; i++) value[i] += partDt * delta[i];
    }
  }
  for (let i = 0; i < n; i++) {
    const eid = entity[i];
    for (let c = 0; c < channelCount; c++) channels[c][eid] = values[c][i];
  }
}

/** Heat exchange with colliders that have a heat-transfer rate (see the file comment). */
function exchangeColliderHeat(ctx: SimulationContext): void {
  const s = ctx.solver;
  const n = s.count;
  const h = ctx.settings.kernelRadius;
  const dt = ctx.substepTimeStep;
  const collider = ctx.components.Collider;
  const table = ctx.colliders;
  const temperature = ctx.components.Temperature;
  const local = s.multiFluid.local;
  const { positionX, positionY, positionZ, entity } = s;
  for (let slot = 0; slot < table.count; slot++) {
    const eid = table.entity[slot];
    const k = collider.heatTransfer[eid];
    if (!(k > 0)) continue;
    const surfaceTemperature = collider.temperature[eid];
    // Pose at the end of the substep: world = scale R local + t (row-major R).
    const f = table.frames;
    const o = slot * COLLIDER_FRAME_STRIDE;
    const scale = f[o + 12];
    const inverseScale = 1 / scale;
    for (let i = 0; i < n; i++) {
      const wx = positionX[i] - f[o + 9];
      const wy = positionY[i] - f[o + 10];
      const wz = positionZ[i] - f[o + 11];
      const lx = (f[o] * wx + f[o + 3] * wy + f[o + 6] * wz) * inverseScale;
      const ly = (f[o + 1] * wx + f[o + 4] * wy + f[o + 7] * wz) * inverseScale;
      const lz = (f[o + 2] * wx + f[o + 5] * wy + f[o + 8] * wz) * inverseScale;
      fluidSidePoint[0] = lx;
      fluidSidePoint[1] = ly;
      fluidSidePoint[2] = lz;
      fluidSideDistance(ctx, eid, fluidSidePoint, local, 0);
      const distance = Math.max(0, local[0] * scale);
      if (!(distance < h)) continue;
      const fraction = Math.min(1, dt * k * (1 - distance / h));
      const particle = entity[i];
      temperature[particle] += fraction * (surfaceTemperature - temperature[particle]);
    }
  }
}

/**
 * Substep system `multiFluid` of the CPU system list (schedule.ts): interface and surface tension,
 * diffusion of temperature and color, and collider heat, each only when in use (the features of
 * `solver.multiFluid.features`, set before the step). With PBF it runs after `viscosityVorticity`, which sets
 * `solver.volume` and x = x*; with WCSPH after `sphFinish` (x = x*), with the volumes and densities of the
 * substep's density pass. Allocates nothing.
 */
export function multiFluidInteractionSystem(ctx: SimulationContext): void {
  const state = ctx.solver.multiFluid;
  const features = state.features;
  const store = ctx.components.FluidMaterial;
  if (features.interfaceTension) applyTension(ctx, store.interfaceColor, store.interfaceTension);
  if (features.surfaceTension) applyTension(ctx, store.surfaceColor, store.surfaceTension);
  if (features.temperatureDiffusion || features.colorDiffusion) {
    const { channels, diffusivities } = state;
    channels.length = 0;
    diffusivities.length = 0;
    if (features.temperatureDiffusion) {
      channels.push(ctx.components.Temperature);
      diffusivities.push(store.diffusivity);
    }
    if (features.colorDiffusion) {
      const color = ctx.components.Color;
      channels.push(color.red, color.green, color.blue);
      diffusivities.push(store.colorDiffusivity, store.colorDiffusivity, store.colorDiffusivity);
    }
    diffuse(ctx, channels, diffusivities);
  }
  if (features.colliderHeat) exchangeColliderHeat(ctx);
}
