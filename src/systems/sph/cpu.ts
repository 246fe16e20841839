/**
 * Weakly compressible SPH (WCSPH) of Müller, Charypar & Gross 2003 (section 3), the `solver: 'sph'`
 * replacement of the PBF density solve. Per substep, on the particles' current positions x:
 * 1. neighbours: the shared hash-grid search (neighbours/cpu.ts) run on x (copied to x*);
 * 2. wall weights (Harada et al. 2007, eq. 12) as in PBF: the walls' density Z and its gradient;
 * 3. density rho_i = m_i (W(0) + Z_i) + sum_j m_j W_poly6(x_i - x_j) (eq. 3, walls as in PBF);
 * 4. pressure p_i = k (rho_i - rho0_i) (eq. 12), k = c_s^2, clamped at 0 (see below);
 * 5. accelerations a_i = f_i / rho_i (eq. 8) from the symmetric pressure force (spiky gradient, see below),
 *    the viscosity force (eq. 14, viscosity-kernel Laplacian), surface tension (eq. 15-19, poly6 gradient
 *    and Laplacian of the color field, where |n| > l) and gravity;
 * 6. leap-frog integration in its kick-drift form (section 3.6): v += dt a (clamped to `maxSpeed`),
 *    x* = x + dt v;
 * 7. collisions: the same projection as PBF (collide/cpu.ts, swept against moving and mesh colliders),
 *    then the same velocity update v = (x* - x) / dt with restitution and friction (velocity/cpu.ts),
 *    then x = x*.
 *
 * Choices, documented where the paper leaves room:
 * - Negative pressure is clamped to 0. A particle with too few neighbours (at the free surface, in a
 *   splash) has rho < rho0; with p < 0 it would be pulled into its neighbours and particles clump
 *   (tensile instability). Cohesion is left to the surface-tension term.
 * - The pressure force is symmetrised as m_i a_i = -sum_j m_i m_j (p_i / rho_i^2 + p_j / rho_j^2) grad W_ij
 *   (Monaghan 1992), not with the arithmetic mean (p_i + p_j) / (2 rho_j) of eq. 10. Both are symmetric
 *   (momentum is conserved), but only this one is the gradient of the internal energy sum_i m_i e(rho_i)
 *   with de / d rho = p / rho^2: with eq. 10 a settling tank (1250 particles, c_s = 20 m/s, mu = 1 or
 *   10 Pa s) gained kinetic energy without bound at any substep length (KE x 70 in 2 s), with this form it
 *   settles. The gradient is the spiky one (eq. 21, no clustering under pressure, section 3.5), divided by
 *   its first moment on the rest lattice (`latticeGradientMoment`, 0.947 at h = 2 spacings): the SPH
 *   gradient of a linear pressure field is then exact on that lattice (the constant-lattice form of Bonet &
 *   Lok's 1999 kernel gradient correction). Without it a settled column carried its weight with 1.11 times
 *   the hydrostatic pressure rho0 g (surface - y) at every depth; with it 1.02-1.06 (tests/sph.test.ts).
 * - Viscosity (eq. 14) is written per pair, m_i a_i = mu sum_j m_i m_j (v_j - v_i) / (rho_i rho_j)
 *   lap W_ij, antisymmetric in i and j.
 * - Walls enter the density through Harada et al.'s wall weight (2007, eq. 12), as in PBF, and push with
 *   the matching energy gradient a_i = -m_i p_i / rho_i^2 grad Z_i (grad Z points into the wall). A coupled
 *   collider's body receives the opposite impulse. The color-field normal counts the walls the same way,
 *   so a wall does not look like a free surface.
 * - Viscosity is each material's dynamic viscosity (`FluidMaterial.dynamicViscosity`, else
 *   `settings.sphViscosity`), a pair of two materials feeling the mean (mu_i + mu_j) / 2 (eq. 9 of Müller et
 *   al. 2005; the materials' XSPH coefficient belongs to PBF); per-material rest density and mass come from
 *   the material table.
 * - Several fluids (Müller et al. 2005): with `features.numberDensity` (a material's `numberDensity` or
 *   `temperatureDensity`) the density is m_i times the number density and the pressure force Solenthaler and
 *   Pajarola's (see {@link computeSphDensity} and {@link computeSphAccelerations}); tension, diffusion, collider
 *   heat, artificial buoyancy, trapped air and boiling are the shared multifluid/ systems, after sphFinish and
 *   at the end of the step (schedule.ts).
 * - Adaptive substeps (the paper suggests CFL-based steps, section 3.6): at the start of a step the frame is
 *   split into N equal substeps, N = max(settings.substeps, ceil(frame dt / dt_max)) capped at
 *   `sphMaxSubsteps`, with dt_max = min(lambda h / (c_s + v_bound), 0.25 sqrt(h / a_bound),
 *   h^2 / (32 nu_max)) (CFL, force and viscous conditions; nu_max from {@link sphMaxKinematicViscosity}; the last is the standard
 *   0.125 h_s^2 / nu with the smoothing length h_s = h / 2, beyond which the explicit viscosity diverges). Velocities can grow during the step, so v_bound = min(maxSpeed,
 *   v_max + |g| frame dt); the accelerations of this step are not known yet, so a_bound = max(|g|, the
 *   largest |a| of the last substep of the previous step). The count used is `stats.solverSubsteps`.
 *
 * The WebGPU backend runs the same substep with its own passes (gpu/backend.ts): the shared predict and sort
 * passes in `sphMode` (they only sort the current positions), sph/density.wgsl, sph/forces.wgsl (which also
 * kicks and hands the drift to the shared collide pass), the shared velocity pass, sph/finish.wgsl and the
 * write-back. Its substep count comes from the previous step's velocities when they were read back, else
 * from the `maxSpeed` bound ({@link sphMirroredSubstepSystem}). The collide pass does not clamp the drift
 * to the particle radius in WCSPH mode (it does for PBF's corrections), as here. With coupled colliders
 * sph/apply.wgsl adds the drift instead and hands the wall pressure's impulses to the two coupled colliders
 * nearest to each particle (this file hands them to every one), then the collide and velocity passes' coupled
 * variants add the collision and contact impulses, as for PBF.
 */

import {
  COINCIDENT_OFFSET,
  poly6Coefficient,
  poly6GradientCoefficient,
  spikyGradientCoefficient,
  viscosityLaplacianCoefficient,
} from '../../core/kernels';
import { collideParticles, computeWallWeights } from '../collide/cpu';
import { largestComponentSpeed, largestSpeed, type SimulationContext, selfWeight } from '../context';
import { addBodyImpulse } from '../couple/cpu';
import { computeRestVolumes } from '../density/numberDensity';
import { neighbourSystem } from '../neighbours/cpu';

/** Factor of the force condition dt <= FORCE_FACTOR sqrt(h / |a|max) (Monaghan 1992). */
export const FORCE_FACTOR = 0.25;

/**
 * Factor of the viscous condition dt <= VISCOUS_FACTOR h^2 / nu_max of the explicit viscosity force
 * (eq. 14), nu_max = mu / rho0_min the largest kinematic viscosity (m^2/s), h the kernel (support) radius.
 * It is the standard dt <= 0.125 h_s^2 / nu (Monaghan 1992; Morris, Fox & Zhu 1997, eq. 24) written with
 * their smoothing length h_s = h / 2, i.e. 0.125 / 4 = 1 / 32. (The diagonal of the explicit viscosity
 * operator is nu sum_j V_j lap W_ij = 15 nu / h^2 in the continuum, so forward Euler needs dt < h^2 /
 * (15 nu): 1/32 keeps a factor 2. With 0.125 h^2 a tank at 1e4 Pa s diverged; see tests/sph.test.ts.)
 */
export const VISCOUS_FACTOR = 0.125 / 4;

/**
 * The number of equal substeps a frame of `frameTimeStep` seconds needs for WCSPH with kernel radius `h`
 * (m), speed of sound `speedOfSound` (m/s), Courant number `courantNumber`, speed bound `speed` (m/s),
 * acceleration bound `acceleration` (m/s^2) and largest kinematic viscosity `kinematicViscosity` (m^2/s,
 * mu / rho0_min): the smallest N >= `minimum` with frameTimeStep / N <= min(courantNumber h / (c_s + speed),
 * 0.25 sqrt(h / acceleration), h^2 / (32 kinematicViscosity)) (see {@link VISCOUS_FACTOR}), capped at
 * `maximum`.
 */
export function sphSubstepCount(
  frameTimeStep: number,
  h: number,
  speedOfSound: number,
  courantNumber: number,
  speed: number,
  acceleration: number,
  kinematicViscosity: number,
  minimum: number,
  maximum: number,
): number {
  const courantLimit = (courantNumber * h) / (speedOfSound + speed);
  const forceLimit = acceleration > 0 ? FORCE_FACTOR * Math.sqrt(h / acceleration) : Number.POSITIVE_INFINITY;
  const viscousLimit =
    kinematicViscosity > 0 ? (VISCOUS_FACTOR * h * h) / kinematicViscosity : Number.POSITIVE_INFINITY;
  const limit = Math.min(courantLimit, forceLimit, viscousLimit);
  const needed = Math.ceil(frameTimeStep / limit - 1e-9);
  return Math.min(maximum, Math.max(minimum, needed));
}

/**
 * Step-start system: chooses the step's substep count from the CFL, force and viscous conditions (see the
 * file's notes) and sets `substepCount` and `substepTimeStep`. Runs after the gather, which holds the
 * velocities; the acceleration bound is max(|g|, the largest |a| of the previous step's last substep).
 */
export function sphSubstepSystem(ctx: SimulationContext): void {
  planSubsteps(ctx, largestSpeed(ctx.solver), ctx.stats.maxAcceleration);
}

/**
 * Step-start system of the WebGPU backend's WCSPH: the same substep planning, without reading the GPU's
 * velocities back within the step. When the `Velocity` components hold the velocities the previous step
 * ended with (a particle readback of that step was applied: `mirror: 'every-frame'` once the readback has
 * arrived, or an awaited `readback()`; see `WebGpuSolver.velocitiesCurrent`), the speed bound is their
 * largest speed plus |g| frame dt, as on the CPU. Otherwise (`mirror: 'off'` or 'on-demand', or a readback
 * still in flight) the components may be arbitrarily old and the bound is `settings.maxSpeed`, the clamp
 * every kick applies: more substeps than needed, never too few. The force condition uses |g| only: the
 * GPU's accelerations are not read back (`stats.maxAcceleration` is the CPU backend's).
 */
export function sphMirroredSubstepSystem(ctx: SimulationContext): void {
  if (ctx.gpu !== undefined && !ctx.gpu.solver.velocitiesCurrent()) {
    planSubsteps(ctx, ctx.settings.maxSpeed, 0);
    return;
  }
  planSubsteps(ctx, largestComponentSpeed(ctx), 0);
}

/**
 * The largest kinematic viscosity a particle can feel (m^2/s), the nu_max of the viscous condition: over the
 * ordered pairs of materials (k, l), the pair's mean dynamic viscosity (mu_k + mu_l) / 2 (eq. 9 of Müller et
 * al. 2005) over the rest density of k (a light particle among viscous heavy ones feels their viscosity over
 * its own density); 0 without materials. A temperature-dependent rest density below `restDensity` is not
 * counted.
 */
export function sphMaxKinematicViscosity(ctx: SimulationContext): number {
  const m = ctx.materials;
  let largest = 0;
  for (let k = 0; k < m.count; k++) {
    for (let l = 0; l < m.count; l++) {
      largest = Math.max(largest, 0.5 * (m.dynamicViscosity[k] + m.dynamicViscosity[l]) * m.inverseRestDensity[k]);
    }
  }
  return largest;
}

/**
 * Sets the step's substep count and length from the largest particle speed `speed` (m/s) and the largest
 * acceleration `acceleration` (m/s^2) known (|g| is added here).
 */
function planSubsteps(ctx: SimulationContext, speed: number, acceleration: number): void {
  const settings = ctx.settings;
  const g = settings.gravity;
  const gravity = Math.sqrt(g[0] * g[0] + g[1] * g[1] + g[2] * g[2]);
  const speedBound = Math.min(settings.maxSpeed, speed + gravity * ctx.frameTimeStep);
  const count = sphSubstepCount(
    ctx.frameTimeStep,
    settings.kernelRadius,
    settings.sphSpeedOfSound,
    settings.sphCourantNumber,
    speedBound,
    Math.max(gravity, acceleration),
    sphMaxKinematicViscosity(ctx),
    settings.substeps,
    settings.sphMaxSubsteps,
  );
  ctx.substepCount = count;
  ctx.substepTimeStep = ctx.frameTimeStep / count;
}

/** Substep system: the neighbour search on the current positions (copied to the predicted ones). */
export function sphNeighbourSystem(ctx: SimulationContext): void {
  const s = ctx.solver;
  const n = s.count;
  s.predictedX.set(s.positionX.subarray(0, n));
  s.predictedY.set(s.positionY.subarray(0, n));
  s.predictedZ.set(s.positionZ.subarray(0, n));
  neighbourSystem(ctx);
}

/**
 * Density (eq. 3) of every particle at the current positions, walls included, into `solver.density`;
 * the pressure p = max(0, k (rho - rho0)) (eq. 12) into `solver.lambda` and the volume m / rho into
 * `solver.volume`. One pair loop sums the masses (m_i (W(0) + Z_i) + sum_j m_j W_ij) and, with the
 * number-density estimate (a material's `numberDensity` or `temperatureDensity`, `features.numberDensity`),
 * the number density delta_i = W(0) + Z_i + sum_j W_ij into `multiFluid.neighbourhoodMass`. That estimate
 * (Solenthaler and Pajarola 2008) has rho_i = m_i delta_i, rho0_i = m_i / V0_i with V0_i the rest volume of
 * density/numberDensity.ts (alpha / T for a temperature-dependent rest density, Müller et al. 2005 eq. 16) and
 * V_i = 1 / delta_i. Its walls' virtual particles carry the neighbourhood's mean mass, as in PBF's
 * number-density solve: their pressure on particle i is scaled by b_i = 2 r_i - 1 where r_i > 1, else r_i,
 * with r_i = (m_i W(0) + sum_j m_j W_ij) / ((delta_i - Z_i) m_i) (1 in one fluid), kept in
 * `multiFluid.neighbourhoodMass` for the accelerations and the wall impulses. Without it a light particle at
 * the floor under heavy ones is held there by its own, lower pressure: in the buoyancy test
 * (tests/sph-multifluid.test.ts) 14 of its 191 light particles stayed below 0.2 m for good.
 */
export function computeSphDensity(ctx: SimulationContext): void {
  const s = ctx.solver;
  const n = s.count;
  const h = ctx.settings.kernelRadius;
  const hSquared = h * h;
  const poly6C = poly6Coefficient(h);
  const w0 = selfWeight(h);
  const { predictedX, predictedY, predictedZ, mass, material, density, neighbourStart, neighbours, wallWeight } = s;
  const features = s.multiFluid.features;
  const numberDensity = features.numberDensity;
  // The number density delta_i with the number-density estimate, then the walls' pressure scale b_i.
  const number = s.multiFluid.neighbourhoodMass;
  for (let i = 0; i < n; i++) density[i] = mass[i] * (w0 + wallWeight[i]);
  if (numberDensity) for (let i = 0; i < n; i++) number[i] = w0 + wallWeight[i];
  for (let i = 0; i < n; i++) {
    const xi = predictedX[i];
    const yi = predictedY[i];
    const zi = predictedZ[i];
    const mi = mass[i];
    let rho = density[i];
    let delta = numberDensity ? number[i] : 0;
    const end = neighbourStart[i + 1];
    for (let k = neighbourStart[i]; k < end; k++) {
      const j = neighbours[k];
      const rx = xi - predictedX[j];
      const ry = yi - predictedY[j];
      const rz = zi - predictedZ[j];
      const r2 = rx * rx + ry * ry + rz * rz;
      if (r2 >= hSquared) continue;
      const d = hSquared - r2;
      const w = poly6C * d * d * d;
      rho += mass[j] * w;
      density[j] += mi * w;
      if (numberDensity) {
        delta += w;
        number[j] += w;
      }
    }
    density[i] = rho;
    if (numberDensity) number[i] = delta;
  }
  const stiffness = ctx.settings.sphSpeedOfSound * ctx.settings.sphSpeedOfSound;
  const pressure = s.lambda;
  const volume = s.volume;
  if (numberDensity) {
    const restVolume = computeRestVolumes(ctx, features);
    for (let i = 0; i < n; i++) {
      const delta = number[i];
      const m = mass[i];
      // r_i: the neighbourhood's mass without the walls' over m_i times its number without them.
      const ratio = (density[i] - m * wallWeight[i]) / ((delta - wallWeight[i]) * m);
      number[i] = ratio > 1 ? 2 * ratio - 1 : ratio;
      const rho = m * delta;
      const excess = rho - m / restVolume[i];
      density[i] = rho;
      pressure[i] = excess > 0 ? stiffness * excess : 0;
      volume[i] = 1 / delta;
    }
    return;
  }
  const inverseRestDensity = ctx.materials.inverseRestDensity;
  for (let i = 0; i < n; i++) {
    const rho = density[i];
    const excess = rho - 1 / inverseRestDensity[material[i]];
    pressure[i] = excess > 0 ? stiffness * excess : 0;
    volume[i] = mass[i] / rho;
  }
}

/**
 * Accelerations (eq. 8) into `solver.delta`: pressure (symmetric form), viscosity (eq. 14), the walls' pressure,
 * surface tension (eq. 19) and gravity. The color-field gradient n (eq. 16) is kept in
 * `solver.vorticity` and its Laplacian in `solver.gradientSquares`. Returns the largest |a| (m/s^2).
 */
export function computeSphAccelerations(ctx: SimulationContext): number {
  const s = ctx.solver;
  const n = s.count;
  const settings = ctx.settings;
  const h = settings.kernelRadius;
  const hSquared = h * h;
  // The spiky gradient normalised on the rest lattice (see the notes above): a column at rest carries its
  // weight with the hydrostatic pressure instead of 1 / 0.947 of it.
  const spikyC = spikyGradientCoefficient(h) / ctx.lattice.gradientMoment;
  const viscosityC = viscosityLaplacianCoefficient(h);
  const colorC = poly6GradientCoefficient(h);
  // Each material's dynamic viscosity (eq. 9 of Müller et al. 2005: a pair feels the mean of the two): one
  // value when every material has the same (no per-pair load), else each particle's in muOf.
  const viscosityOf = ctx.materials.dynamicViscosity;
  const material = s.material;
  const muOf = s.multiFluid.viscosity;
  let uniformMu = ctx.materials.count > 0 ? viscosityOf[0] : 0;
  for (let slot = 1; slot < ctx.materials.count; slot++) if (viscosityOf[slot] !== uniformMu) uniformMu = -1;
  if (uniformMu < 0) for (let i = 0; i < n; i++) muOf[i] = viscosityOf[material[i]];
  const numberDensity = s.multiFluid.features.numberDensity;
  const sigma = settings.sphSurfaceTension;
  const threshold = settings.sphSurfaceThreshold;
  const coincidentOffset = COINCIDENT_OFFSET * h;
  const { predictedX, predictedY, predictedZ, velocityX, velocityY, velocityZ, mass, density, volume } = s;
  const { deltaX, deltaY, deltaZ, neighbourStart, neighbours, wallGradientX, wallGradientY, wallGradientZ } = s;
  const pressure = s.lambda;
  const normalX = s.vorticityX;
  const normalY = s.vorticityY;
  const normalZ = s.vorticityZ;
  const laplacian = s.gradientSquares;
  // Self terms: the walls' pressure (mirrored particles), the walls' share of the color normal, and the
  // particle's own color Laplacian at r = 0 (lap W(0) = -colorC h^2 (3 h^2)).
  const selfLaplacian = -colorC * hSquared * 3 * hSquared;
  // The walls' pressure scale b_i of the number-density form (computeSphDensity), else 1.
  const wallScale = s.multiFluid.features.numberDensity ? s.multiFluid.neighbourhoodMass : undefined;
  for (let i = 0; i < n; i++) {
    const rho = density[i];
    const wall = (-mass[i] * pressure[i] * (wallScale ? wallScale[i] : 1)) / (rho * rho);
    deltaX[i] = wall * wallGradientX[i];
    deltaY[i] = wall * wallGradientY[i];
    deltaZ[i] = wall * wallGradientZ[i];
    const vi = volume[i];
    normalX[i] = vi * wallGradientX[i];
    normalY[i] = vi * wallGradientY[i];
    normalZ[i] = vi * wallGradientZ[i];
    laplacian[i] = vi * selfLaplacian;
  }
  for (let i = 0; i < n; i++) {
    const xi = predictedX[i];
    const yi = predictedY[i];
    const zi = predictedZ[i];
    const vxi = velocityX[i];
    const vyi = velocityY[i];
    const vzi = velocityZ[i];
    const mi = mass[i];
    const rhoI = density[i];
    const pi = pressure[i];
    const inverseRhoISquared = 1 / (rhoI * rhoI);
    const vi = volume[i];
    const muI = uniformMu < 0 ? muOf[i] : uniformMu;
    // The number-density form's pressure weight p_i V_i^2 = p_i / delta_i^2.
    const pressureWeightI = pi * vi * vi;
    const inverseMassI = 1 / mi;
    let ax = deltaX[i];
    let ay = deltaY[i];
    let az = deltaZ[i];
    let nx = normalX[i];
    let ny = normalY[i];
    let nz = normalZ[i];
    let lap = laplacian[i];
    const end = neighbourStart[i + 1];
    for (let k = neighbourStart[i]; k < end; k++) {
      const j = neighbours[k];
      let rx = xi - predictedX[j];
      const ry = yi - predictedY[j];
      const rz = zi - predictedZ[j];
      if (rx === 0 && ry === 0 && rz === 0) rx = coincidentOffset;
      const r2 = rx * rx + ry * ry + rz * rz;
      if (r2 >= hSquared) continue;
      const r = Math.sqrt(r2);
      const e = h - r;
      const mj = mass[j];
      const rhoJ = density[j];
      const vj = volume[j];
      // Pressure (symmetric form, see the notes): grad_i W_ij = g (x_i - x_j), g = -spikyC (h - r)^2 / r.
      const g = (-spikyC * e * e) / r;
      // Viscosity (eq. 14, with eq. 9's pair mean of mu): lap W_ij = viscosityC (h - r).
      const pairMu = uniformMu < 0 ? 0.5 * (muI + muOf[j]) : uniformMu;
      const viscosityScale = (pairMu * viscosityC * e) / (rhoI * rhoJ);
      const ux = velocityX[j] - vxi;
      const uy = velocityY[j] - vyi;
      const uz = velocityZ[j] - vzi;
      if (numberDensity) {
        // Solenthaler and Pajarola 2008: m_i a_i = -sum_j (p_i / delta_i^2 + p_j / delta_j^2) grad W_ij, and
        // the viscosity force m_i m_j / (rho_i rho_j) = V_i V_j times the same mean mu.
        const pressureForce = -g * (pressureWeightI + pressure[j] * vj * vj);
        const viscosityForce = mi * mj * viscosityScale;
        const fx = pressureForce * rx + viscosityForce * ux;
        const fy = pressureForce * ry + viscosityForce * uy;
        const fz = pressureForce * rz + viscosityForce * uz;
        const inverseMassJ = 1 / mj;
        ax += fx * inverseMassI;
        ay += fy * inverseMassI;
        az += fz * inverseMassI;
        deltaX[j] -= fx * inverseMassJ;
        deltaY[j] -= fy * inverseMassJ;
        deltaZ[j] -= fz * inverseMassJ;
      } else {
        const pressureScale = -g * (pi * inverseRhoISquared + pressure[j] / (rhoJ * rhoJ));
        ax += mj * (pressureScale * rx + viscosityScale * ux);
        ay += mj * (pressureScale * ry + viscosityScale * uy);
        az += mj * (pressureScale * rz + viscosityScale * uz);
        deltaX[j] -= mi * (pressureScale * rx + viscosityScale * ux);
        deltaY[j] -= mi * (pressureScale * ry + viscosityScale * uy);
        deltaZ[j] -= mi * (pressureScale * rz + viscosityScale * uz);
      }
      // Color field (eq. 15-17): grad_i W = -colorC (h^2 - r^2)^2 (x_i - x_j), lap W = -colorC
      // (h^2 - r^2) (3 h^2 - 7 r^2).
      const d = hSquared - r2;
      const gradientScale = -colorC * d * d;
      nx += vj * gradientScale * rx;
      ny += vj * gradientScale * ry;
      nz += vj * gradientScale * rz;
      normalX[j] -= vi * gradientScale * rx;
      normalY[j] -= vi * gradientScale * ry;
      normalZ[j] -= vi * gradientScale * rz;
      const pairLaplacian = -colorC * d * (3 * hSquared - 7 * r2);
      lap += vj * pairLaplacian;
      laplacian[j] += vi * pairLaplacian;
    }
    deltaX[i] = ax;
    deltaY[i] = ay;
    deltaZ[i] = az;
    normalX[i] = nx;
    normalY[i] = ny;
    normalZ[i] = nz;
    laplacian[i] = lap;
  }
  const gravity = settings.gravity;
  const gx = gravity[0];
  const gy = gravity[1];
  const gz = gravity[2];
  const thresholdSquared = threshold * threshold;
  let maxAccelerationSquared = 0;
  for (let i = 0; i < n; i++) {
    let ax = deltaX[i] + gx;
    let ay = deltaY[i] + gy;
    let az = deltaZ[i] + gz;
    if (sigma > 0) {
      const nx = normalX[i];
      const ny = normalY[i];
      const nz = normalZ[i];
      const lengthSquared = nx * nx + ny * ny + nz * nz;
      if (lengthSquared > thresholdSquared && lengthSquared > 0) {
        // f = -sigma lap(c) n / |n| (eq. 19), a = f / rho.
        const scale = (-sigma * laplacian[i]) / (Math.sqrt(lengthSquared) * density[i]);
        ax += scale * nx;
        ay += scale * ny;
        az += scale * nz;
      }
    }
    deltaX[i] = ax;
    deltaY[i] = ay;
    deltaZ[i] = az;
    const squared = ax * ax + ay * ay + az * az;
    if (squared > maxAccelerationSquared) maxAccelerationSquared = squared;
  }
  return Math.sqrt(maxAccelerationSquared);
}

/**
 * Hands each coupled collider's body the opposite of the wall pressure it exerted on the particles in
 * this substep: the body receives -m_i dv = m_i dt m_i p_i / rho_i^2 grad Z_body at the particle.
 */
function accumulateSphWallImpulses(ctx: SimulationContext): void {
  const list = ctx.coupling;
  if (list.count === 0) return;
  const s = ctx.solver;
  const dt = ctx.substepTimeStep;
  const entity = ctx.colliders.entity;
  const wallScale = s.multiFluid.features.numberDensity ? s.multiFluid.neighbourhoodMass : undefined;
  for (let k = 0; k < list.count; k++) {
    const i = list.particle[k];
    const m = s.mass[i];
    const rho = s.density[i];
    const scale = (dt * m * m * s.lambda[i] * (wallScale ? wallScale[i] : 1)) / (rho * rho);
    if (scale === 0) continue;
    const slot = list.slot[k];
    addBodyImpulse(
      ctx,
      slot,
      entity[slot],
      scale * list.gradient[3 * k],
      scale * list.gradient[3 * k + 1],
      scale * list.gradient[3 * k + 2],
      s.predictedX[i],
      s.predictedY[i],
      s.predictedZ[i],
    );
  }
}

/**
 * Substep system: wall weights, density and pressure, accelerations, the leap-frog kick and drift
 * (v += dt a, clamped to `maxSpeed`; x* = x + dt v) and the collision projection of x*. Records the
 * largest acceleration in `stats.maxAcceleration` for the next step's substep count.
 */
export function sphForceSystem(ctx: SimulationContext): void {
  const s = ctx.solver;
  const n = s.count;
  const walls = ctx.colliders.count > 0;
  s.contactCollider.fill(-1, 0, n);
  if (walls) {
    computeWallWeights(ctx);
  } else {
    s.wallWeight.fill(0, 0, n);
    s.wallGradientX.fill(0, 0, n);
    s.wallGradientY.fill(0, 0, n);
    s.wallGradientZ.fill(0, 0, n);
    ctx.coupling.count = 0;
  }
  computeSphDensity(ctx);
  ctx.stats.maxAcceleration = computeSphAccelerations(ctx);
  if (walls) accumulateSphWallImpulses(ctx);
  const dt = ctx.substepTimeStep;
  const maxSpeed = ctx.settings.maxSpeed;
  const maxSpeedSquared = maxSpeed * maxSpeed;
  const { positionX, positionY, positionZ, predictedX, predictedY, predictedZ, velocityX, velocityY, velocityZ } = s;
  const { deltaX, deltaY, deltaZ, correctionScale } = s;
  for (let i = 0; i < n; i++) {
    let vx = velocityX[i] + dt * deltaX[i];
    let vy = velocityY[i] + dt * deltaY[i];
    let vz = velocityZ[i] + dt * deltaZ[i];
    const speedSquared = vx * vx + vy * vy + vz * vz;
    if (speedSquared > maxSpeedSquared) {
      const scale = maxSpeed / Math.sqrt(speedSquared);
      vx *= scale;
      vy *= scale;
      vz *= scale;
    }
    velocityX[i] = vx;
    velocityY[i] = vy;
    velocityZ[i] = vz;
    predictedX[i] = positionX[i] + dt * vx;
    predictedY[i] = positionY[i] + dt * vy;
    predictedZ[i] = positionZ[i] + dt * vz;
    correctionScale[i] = 1;
  }
  collideParticles(ctx);
}

/** Substep system: x = x* after the velocity update. */
export function sphFinishSystem(ctx: SimulationContext): void {
  const s = ctx.solver;
  const n = s.count;
  s.positionX.set(s.predictedX.subarray(0, n));
  s.positionY.set(s.predictedY.subarray(0, n));
  s.positionZ.set(s.predictedZ.subarray(0, n));
}
