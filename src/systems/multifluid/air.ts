/**
 * Trapped air (Müller, Solenthaler, Keiser and Gross 2005, section 3.4): air particles generated on the fly
 * where a liquid front can trap air (3.4.1), deleted where they no longer contribute (3.4.2), and pushed up
 * by an artificial buoyancy (3.4.3, eq. 17). Everything is opt-in per material (`FluidMaterial`
 * `airMaterial`, `airGenerationThreshold`, `artificialBuoyancy` and the deletion thresholds); with the
 * defaults none of it runs and the step is the code without it.
 *
 * Color fields. c^P is 1 on every particle (Table 2, implicit), c^S is each material's `surfaceColor`
 * (1 on liquids, 0 on air). Both are smoothed with poly6 as sum_j V_j c_j W_ij with V_j the rest volume of
 * the spawn lattice, 1 / (sum of poly6 over the lattice), the same for every particle: c^P is then the
 * particle's "fullness", 1 inside a fluid at rest density, about 0.5 at a flat free surface, and does not
 * depend on noisy densities of sparse particles. The walls count in c^P as the particle's own virtual wall
 * particles (the wall weight Z of Harada et al. 2007 and its gradient, as in the density constraint): the
 * bottom layer of water resting on a glass's floor has no upward grad(c^P) and generates nothing.
 * Gradients use the poly6 gradient, as the tension terms (interaction.ts).
 *
 * Generation (3.4.1): a particle of a material with `airGenerationThreshold` t_p h > 0 and an `airMaterial`
 * whose |grad(c^P)| > t_p / h with grad(c^P) . e_y > 0 (particles above it, none below: the underside of a
 * falling front) adds one particle of `airMaterial` at x - d n (n = grad(c^P) / |grad(c^P)|, d =
 * `airGenerationDistance` spacings) with the liquid particle's velocity. The air particles count in c^P, so
 * once there, generation stops there (the paper's reason for c^P). Bounded: never beyond the simulation's
 * capacity (the emitters, which run first in the next step, are then blocked until air leaves), and at most
 * {@link airGenerationLimit} per step.
 *
 * Deletion (3.4.2), of particles of a material that is some material's `airMaterial`, with that air
 * material's thresholds: (|grad(c^S)| < t_s / h and |grad(c^P)| > t_b / h: away from liquid, at the edge of
 * the particles), or number density below `airDeletionDensity` of the rest lattice's (isolated; the paper's
 * "rho < t"), or (|grad(c^P)| > t_b / h and grad(c^P) pointing down within 60 degrees of the vertical: the
 * particle is on top of the particles, i.e. it reached the free surface: the bubble bursts, vapour leaves
 * the water, section 4.4). The paper's own simple test "grad(c^P) . e_y < 0" deleted single air particles
 * surrounded by water; with |grad(c^P)| above t_b / h it does not (inside water c^P is flat).
 *
 * Where in the step. Generation and deletion change the particle list, and need the color fields, i.e.
 * the neighbour lists of the last substep. They run at the end of the step, after `publish` (which has
 * written the step's positions to the components): the fields are computed over the dense arrays and the
 * neighbour lists of the last substep (still matching: nothing moved since), the decisions are taken, and
 * then particles are created (`createParticle`, appended after the live ones, components written) and
 * removed (`destroyParticle`, swap-remove) through the same paths as the emitters and drains; the next step's `gather` and
 * neighbour search start from the consistent list. Removed and created ids are appended to the step's
 * `lastRemoved()` and `lastEmitted()` lists (and counted in `stats.removedCount`, `stats.emittedCount`).
 *
 * Buoyancy (eq. 17) is a substep system after the other velocity-stage terms: each air particle of a
 * material with b = `artificialBuoyancy` > 0 gets dv = -b (rho - rho0) / rho g dt, rho = sum_j m_j W_ij its
 * mass density (eq. 2: near the water's among water), rho0 its material's rest density, zero where
 * rho <= rho0. The paper writes f = b (rho - rho0) g for the force and means it upwards (it is a buoyancy);
 * dividing by rho gives the acceleration, at most b |g|.
 */

import { poly6Coefficient, poly6GradientCoefficient } from '../../core/kernels';
import type { SimulationContext } from '../context';
import { createParticle, destroyParticle } from '../entities';
import type { AirState } from './state';

/**
 * Most air particles one step generates, for a simulation of capacity `capacity`: 1/64 of it, at least 1
 * (a pouring front generates at most this many per step; the total never exceeds the capacity).
 */
export function airGenerationLimit(capacity: number): number {
  return Math.max(1, Math.floor(capacity / 64));
}

/**
 * Cosine of the largest angle from straight down of grad(c^P) for the free-surface deletion (60 degrees);
 * the WebGPU backend passes the same value to multifluid/airFields.wgsl.
 */
export const SURFACE_EXIT_COSINE = 0.5;

/** The air working arrays, grown to the capacity and entity capacity on first use. */
function airState(ctx: SimulationContext): AirState {
  const air = ctx.solver.multiFluid.air;
  const capacity = ctx.settings.capacity;
  if (air.numberDensity.length < capacity) {
    air.isAir = new Uint8Array(capacity);
    air.numberDensity = new Float64Array(capacity);
    air.particleGradientX = new Float64Array(capacity);
    air.particleGradientY = new Float64Array(capacity);
    air.particleGradientZ = new Float64Array(capacity);
    air.surfaceGradientX = new Float64Array(capacity);
    air.surfaceGradientY = new Float64Array(capacity);
    air.surfaceGradientZ = new Float64Array(capacity);
    air.massDensity = new Float64Array(capacity);
    air.removals = new Uint32Array(capacity);
  }
  if (air.airMaterials.length < ctx.entityCapacity) air.airMaterials = new Uint8Array(ctx.entityCapacity);
  return air;
}

/** Marks the material entities that are some material's `airMaterial`; returns whether there is one. */
function markAirMaterials(ctx: SimulationContext, air: AirState): boolean {
  const table = ctx.materials;
  const store = ctx.components.FluidMaterial;
  let any = false;
  for (let slot = 0; slot < table.count; slot++) air.airMaterials[table.entity[slot]] = 0;
  for (let slot = 0; slot < table.count; slot++) {
    const target = store.airMaterial[table.entity[slot]];
    if (target >= 0 && target < air.airMaterials.length) {
      air.airMaterials[target] = 1;
      any = true;
    }
  }
  return any;
}

/**
 * Computes, per particle place, the number density (self and walls included), grad(c^P) and grad(c^S)
 * (see the file comment) on the current positions and neighbour lists, and `isAir`.
 */
function computeColorFields(ctx: SimulationContext, air: AirState): void {
  const s = ctx.solver;
  const n = s.count;
  const h = ctx.settings.kernelRadius;
  const hSquared = h * h;
  const k = poly6Coefficient(h);
  const gk = poly6GradientCoefficient(h);
  const w0 = k * hSquared * hSquared * hSquared;
  const volume = 1 / ctx.lattice.kernelSum;
  const { positionX, positionY, positionZ, entity, neighbourStart, neighbours } = s;
  const { wallWeight, wallGradientX, wallGradientY, wallGradientZ } = s;
  const { numberDensity, particleGradientX, particleGradientY, particleGradientZ, isAir } = air;
  const { surfaceGradientX, surfaceGradientY, surfaceGradientZ } = air;
  const color = s.multiFluid.color;
  const material = ctx.components.Particle.material;
  const surfaceColor = ctx.components.FluidMaterial.surfaceColor;
  const walls = ctx.colliders.count > 0;
  for (let i = 0; i < n; i++) {
    const m = material[entity[i]];
    color[i] = surfaceColor[m];
    isAir[i] = air.airMaterials[m];
    numberDensity[i] = w0 + (walls ? wallWeight[i] : 0);
    particleGradientX[i] = walls ? volume * wallGradientX[i] : 0;
    particleGradientY[i] = walls ? volume * wallGradientY[i] : 0;
    particleGradientZ[i] = walls ? volume * wallGradientZ[i] : 0;
    surfaceGradientX[i] = 0;
    surfaceGradientY[i] = 0;
    surfaceGradientZ[i] = 0;
  }
  for (let i = 0; i < n; i++) {
    const xi = positionX[i];
    const yi = positionY[i];
    const zi = positionZ[i];
    const ci = color[i];
    const end = neighbourStart[i + 1];
    for (let p = neighbourStart[i]; p < end; p++) {
      const j = neighbours[p];
      const rx = xi - positionX[j];
      const ry = yi - positionY[j];
      const rz = zi - positionZ[j];
      const r2 = rx * rx + ry * ry + rz * rz;
      if (r2 >= hSquared) continue;
      const d = hSquared - r2;
      const w = k * d * d * d;
      numberDensity[i] += w;
      numberDensity[j] += w;
      // grad_i W_ij = g r_ij, grad_j W_ji = -g r_ij (poly6).
      const g = -gk * d * d * volume;
      particleGradientX[i] += g * rx;
      particleGradientY[i] += g * ry;
      particleGradientZ[i] += g * rz;
      particleGradientX[j] -= g * rx;
      particleGradientY[j] -= g * ry;
      particleGradientZ[j] -= g * rz;
      const cj = color[j];
      surfaceGradientX[i] += cj * g * rx;
      surfaceGradientY[i] += cj * g * ry;
      surfaceGradientZ[i] += cj * g * rz;
      surfaceGradientX[j] -= ci * g * rx;
      surfaceGradientY[j] -= ci * g * ry;
      surfaceGradientZ[j] -= ci * g * rz;
    }
  }
}

/**
 * Step-end system `trappedAir` of the CPU system list (after `publish` and `boiling`): generation and
 * deletion of air particles (sections 3.4.1-3.4.2; see the file comment). Runs only when some material
 * generates air, boils or names an `airMaterial` with a generating or boiling liquid; else returns at once.
 */
export function trappedAirSystem(ctx: SimulationContext): void {
  const stats = ctx.stats;
  stats.airGeneratedCount = 0;
  stats.airRemovedCount = 0;
  const features = ctx.solver.multiFluid.features;
  if (!features.airGeneration && !features.boiling) return;
  const air = airState(ctx);
  if (!markAirMaterials(ctx, air)) return;
  computeColorFields(ctx, air);
  const s = ctx.solver;
  const n = s.count;
  const h = ctx.settings.kernelRadius;
  const inverseKernelSum = 1 / ctx.lattice.kernelSum;
  const store = ctx.components.FluidMaterial;
  const material = ctx.components.Particle.material;
  const { positionX, positionY, positionZ, velocityX, velocityY, velocityZ, entity } = s;
  const { numberDensity, particleGradientX, particleGradientY, particleGradientZ, isAir, removals } = air;
  const { surfaceGradientX, surfaceGradientY, surfaceGradientZ } = air;
  // 1. Deletion decisions (3.4.2), by entity id: the places change as particles are removed.
  let removeCount = 0;
  for (let i = 0; i < n; i++) {
    if (isAir[i] === 0) continue;
    const m = material[entity[i]];
    const boundary = store.airDeletionBoundaryThreshold[m] / h;
    const gx = particleGradientX[i];
    const gy = particleGradientY[i];
    const gz = particleGradientZ[i];
    const particleGradient = Math.sqrt(gx * gx + gy * gy + gz * gz);
    const sx = surfaceGradientX[i];
    const sy = surfaceGradientY[i];
    const sz = surfaceGradientZ[i];
    const surfaceGradient = Math.sqrt(sx * sx + sy * sy + sz * sz);
    const atBoundary = particleGradient > boundary;
    const awayFromLiquid = atBoundary && surfaceGradient < store.airDeletionSurfaceThreshold[m] / h;
    const isolated = numberDensity[i] * inverseKernelSum < store.airDeletionDensity[m];
    const atFreeSurface = atBoundary && gy < -SURFACE_EXIT_COSINE * particleGradient;
    if (awayFromLiquid || isolated || atFreeSurface) removals[removeCount++] = entity[i];
  }
  // 2. Generation (3.4.1), appended after the live particles (their places do not move), within the
  // capacity left now (the slots the removals below free serve from the next step on).
  const capacity = ctx.settings.capacity;
  const room = Math.min(airGenerationLimit(capacity), capacity - n);
  const spacing = ctx.lattice.spacing;
  const events = ctx.events;
  let generateCount = 0;
  if (features.airGeneration) {
    for (let i = 0; i < n && generateCount < room; i++) {
      if (isAir[i] === 1) continue;
      const m = material[entity[i]];
      const threshold = store.airGenerationThreshold[m];
      const target = store.airMaterial[m];
      if (!(threshold > 0) || target < 0) continue;
      const gy = particleGradientY[i];
      if (!(gy > 0)) continue;
      const gx = particleGradientX[i];
      const gz = particleGradientZ[i];
      const length = Math.sqrt(gx * gx + gy * gy + gz * gz);
      if (!(length > threshold / h)) continue;
      const scale = (store.airGenerationDistance[m] * spacing) / length;
      const id = createParticle(
        ctx,
        positionX[i] - scale * gx,
        positionY[i] - scale * gy,
        positionZ[i] - scale * gz,
        velocityX[i],
        velocityY[i],
        velocityZ[i],
        target,
        0,
      );
      generateCount++;
      if (stats.emittedCount < events.emitted.length) events.emitted[stats.emittedCount++] = id;
    }
  }
  // 3. Deletion, by entity id (swap-remove: places change, ids do not).
  for (let r = 0; r < removeCount; r++) {
    const eid = removals[r];
    destroyParticle(ctx, eid);
    if (stats.removedCount < events.removed.length) events.removed[stats.removedCount++] = eid;
  }
  stats.airRemovedCount = removeCount;
  stats.airGeneratedCount = generateCount;
  stats.particleCount = s.count;
}

/**
 * Substep system `artificialBuoyancy` of the CPU system list (after `multiFluid`): eq. 17 on the particles
 * of materials with an `artificialBuoyancy` b > 0 (see the file comment). Runs only when some material has
 * one; reads the substep's final positions and neighbour lists; allocates nothing after the first use.
 */
export function artificialBuoyancySystem(ctx: SimulationContext): void {
  if (!ctx.solver.multiFluid.features.artificialBuoyancy) return;
  const air = airState(ctx);
  const s = ctx.solver;
  const n = s.count;
  const h = ctx.settings.kernelRadius;
  const hSquared = h * h;
  const k = poly6Coefficient(h);
  const w0 = k * hSquared * hSquared * hSquared;
  const { positionX, positionY, positionZ, velocityX, velocityY, velocityZ, mass, entity } = s;
  const { neighbourStart, neighbours } = s;
  const material = ctx.components.Particle.material;
  const store = ctx.components.FluidMaterial;
  const { massDensity, isAir } = air;
  let any = false;
  for (let i = 0; i < n; i++) {
    const buoyant = store.artificialBuoyancy[material[entity[i]]] > 0 ? 1 : 0;
    isAir[i] = buoyant;
    if (buoyant === 1) any = true;
    massDensity[i] = mass[i] * w0;
  }
  if (!any) return;
  for (let i = 0; i < n; i++) {
    const airI = isAir[i];
    const xi = positionX[i];
    const yi = positionY[i];
    const zi = positionZ[i];
    const end = neighbourStart[i + 1];
    for (let p = neighbourStart[i]; p < end; p++) {
      const j = neighbours[p];
      if (airI === 0 && isAir[j] === 0) continue;
      const rx = xi - positionX[j];
      const ry = yi - positionY[j];
      const rz = zi - positionZ[j];
      const r2 = rx * rx + ry * ry + rz * rz;
      if (r2 >= hSquared) continue;
      const d = hSquared - r2;
      const w = k * d * d * d;
      massDensity[i] += mass[j] * w;
      massDensity[j] += mass[i] * w;
    }
  }
  const [gx, gy, gz] = ctx.settings.gravity;
  const dt = ctx.substepTimeStep;
  for (let i = 0; i < n; i++) {
    if (isAir[i] === 0) continue;
    const m = material[entity[i]];
    const rho = massDensity[i];
    const excess = rho - store.restDensity[m];
    if (!(excess > 0)) continue;
    // dv = -b (rho - rho0) / rho g dt: upwards, at most b |g| dt.
    const scale = (-store.artificialBuoyancy[m] * excess * dt) / rho;
    velocityX[i] += scale * gx;
    velocityY[i] += scale * gy;
    velocityZ[i] += scale * gz;
  }
}
