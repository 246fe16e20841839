/**
 * The scene buffer of the WebGPU backend (gpu/structs.ts `defineScene`): parameters, materials, colliders,
 * drains and every substep's collider poses, written from the simulation context before each step.
 */

import {
  COINCIDENT_OFFSET,
  poly6Coefficient,
  poly6GradientCoefficient,
  spikyGradientCoefficient,
  viscosityLaplacianCoefficient,
  WALL_WEIGHT_SAMPLES,
} from '../../core/kernels';
import { colliderPoseSystem } from '../collide/cpu';
import { COLLIDER_FRAME_STRIDE, POSE_SIZE, type SimulationContext, selfWeight } from '../context';
import { DIFFUSE_MATERIAL_NAMES } from '../diffuse/settings';
import { writeMpsParameters, writeMpsWallTable } from '../mps/gpu';
import { SURFACE_EXIT_COSINE } from '../multifluid/air';
import { DIFFUSION_STABILITY, MAX_DIFFUSION_PARTS, TENSION_NORMAL_THRESHOLD } from '../multifluid/interaction';
import { isThinCoupledBody } from '../projection/grid';
import { CLOSED_FACE_MASS, fullCellVolume, lightestRestDensity } from '../projection/state';
import { type StructLayout, type WordViews, word } from './layout';
import { type BodyImpulseQuanta, ColliderData, DrainData, Material, Params, Pose } from './structs';

/**
 * Diffusion parts recorded per substep on the GPU for the largest diffusivity `largestDiffusivity` (m^2/s),
 * kernel radius `kernelRadius` (m) and substep `substepTimeStep` (s): the CPU's parts
 * ceil(dt rate / DIFFUSION_STABILITY) with the rate sum_j c V_j lap W_visc(r_j) estimated by its continuum
 * value c 45 / (pi h^6) integral of 4 pi r^2 (h - r) dr = 15 c / h^2, twice over (cut and compressed
 * neighbourhoods stay well below), and at least 1, at most {@link MAX_DIFFUSION_PARTS}. The GPU plans the
 * exact parts from the particles (multifluid/diffusion.wgsl) and runs as many of the recorded ones; the
 * others are dispatched with 0 workgroups.
 */
export function diffusionSlots(largestDiffusivity: number, kernelRadius: number, substepTimeStep: number): number {
  const rate = (2 * 15 * largestDiffusivity) / (kernelRadius * kernelRadius);
  return Math.min(MAX_DIFFUSION_PARTS, Math.max(1, Math.ceil((substepTimeStep * rate) / DIFFUSION_STABILITY)));
}

/**
 * The values of the step being recorded that the scene's `Params` carry besides the settings (one object per
 * solver, updated before each step).
 */
export interface SceneStep {
  /** Size of the hash table (a power of two). */
  readonly tableSize: number;
  /** The word of the `buckets` buffer where the neighbour lists start (its bucket length). */
  readonly neighbourListBase: number;
  /** Words per particle of the neighbour lists (see `neighbourListStride`, gpu/buffers.ts). */
  readonly neighbourStride: number;
  /** Particles appended and edited by this step's uploads. */
  appendCount: number;
  editCount: number;
  /** Most air candidates and boiled events one readback holds. */
  readonly airLimit: number;
  /** Steps recorded before this one. */
  stepsRecorded: number;
  /** Whether air generation may add candidates this step. */
  airGenerationOpen: boolean;
  /** Fixed-point quanta of the impulse accumulators. */
  readonly impulseQuanta: BodyImpulseQuanta;
  /** Most cells of the projection's grid. */
  readonly projectionCells: number;
}

/**
 * The scene's `Params`: the settings, kernel constants, counts and this step's values (`step`). Written before
 * each step; the materials' and colliders' parts that depend on them follow (`anyVorticity`, `diffusionSlots`,
 * `coupledCount`).
 */
export function writeParams(ctx: SimulationContext, scene: StructLayout, words: WordViews, step: SceneStep): void {
  const settings = ctx.settings;
  const f = words.f32;
  const u = words.u32;
  const h = settings.kernelRadius;
  const P = (name: string) => word(Params, name, scene.offsets.params);
  const gravity = P('gravity');
  f[gravity] = settings.gravity[0];
  f[gravity + 1] = settings.gravity[1];
  f[gravity + 2] = settings.gravity[2];
  f[P('kernelRadius')] = h;
  f[P('kernelRadiusSquared')] = h * h;
  f[P('inverseKernelRadius')] = 1 / h;
  f[P('particleRadius')] = settings.particleRadius;
  f[P('poly6')] = poly6Coefficient(h);
  f[P('spiky')] = spikyGradientCoefficient(h);
  f[P('selfWeight')] = selfWeight(h);
  f[P('coincidentOffset')] = COINCIDENT_OFFSET * h;
  f[P('timeStep')] = ctx.substepTimeStep;
  f[P('inverseTimeStep')] = 1 / ctx.substepTimeStep;
  f[P('frameTimeStep')] = ctx.frameTimeStep;
  f[P('maxSpeed')] = settings.maxSpeed;
  const g = settings.gravity;
  f[P('restingSpeed')] = 2 * Math.sqrt(g[0] * g[0] + g[1] * g[1] + g[2] * g[2]) * ctx.substepTimeStep;
  f[P('wallSamplesPerMetre')] = WALL_WEIGHT_SAMPLES / h;
  f[P('fullNeighbourhood')] = ctx.lattice.fullNeighbourhood;
  u[P('materialCount')] = ctx.materials.count;
  u[P('colliderCount')] = ctx.colliders.count;
  u[P('drainCount')] = ctx.events.drains.length;
  u[P('tableMask')] = step.tableSize - 1;
  u[P('deadBucket')] = step.tableSize;
  u[P('neighbourListBase')] = step.neighbourListBase;
  u[P('neighbourStride')] = step.neighbourStride;
  u[P('appendCount')] = step.appendCount;
  u[P('editCount')] = step.editCount;
  // The step's substep count: `settings.substeps`, or WCSPH's adaptive count (ctx.substepCount).
  u[P('substeps')] = ctx.substepCount;
  const sph = settings.solver === 'sph';
  u[P('sphMode')] = sph ? 1 : 0;
  f[P('sphStiffness')] = settings.sphSpeedOfSound * settings.sphSpeedOfSound;
  u[P('sphNumberDensity')] = sph && ctx.solver.multiFluid.features.numberDensity ? 1 : 0;
  f[P('sphSurfaceTension')] = settings.sphSurfaceTension;
  f[P('sphSurfaceThreshold')] = settings.sphSurfaceThreshold;
  f[P('sphPressureGradient')] = spikyGradientCoefficient(h) / ctx.lattice.gradientMoment;
  f[P('viscosityLaplacian')] = viscosityLaplacianCoefficient(h);
  f[P('poly6Gradient')] = poly6GradientCoefficient(h);
  f[P('tensionThreshold')] = TENSION_NORMAL_THRESHOLD / h;
  f[P('diffusionStability')] = DIFFUSION_STABILITY;
  u[P('maxDiffusionParts')] = MAX_DIFFUSION_PARTS;
  // Trapped air and boiling (multifluid/airFields.wgsl).
  f[P('airVolume')] = 1 / ctx.lattice.kernelSum;
  f[P('airSpacing')] = ctx.lattice.spacing;
  u[P('airGenerationLimit')] = step.airLimit;
  u[P('capacity')] = settings.capacity;
  f[P('airSurfaceExitCosine')] = SURFACE_EXIT_COSINE;
  u[P('airStep')] = step.stepsRecorded;
  u[P('airGenerationOpen')] = step.airGenerationOpen ? 1 : 0;
  // The coarse projection (projection/*.wgsl).
  u[P('projectionMaxCells')] = step.projectionCells;
  u[P('projectionMaxIterations')] = settings.projectionMaxIterations;
  f[P('projectionTolerance')] = settings.projectionTolerance;
  f[P('projectionRelaxation')] = (settings.projectionDensityRelaxation * h) / ctx.substepTimeStep;
  f[P('projectionFullVolume')] = fullCellVolume(h, ctx.lattice.spacing, ctx.lattice.kernelSum);
  // closedFaceMass (transfer.ts) without the rigid-fluid bodies, which the GPU's projection does not have.
  const lightest = lightestRestDensity(ctx.materials.inverseRestDensity, ctx.materials.count);
  f[P('projectionClosedMass')] = ctx.materials.count > 0 ? CLOSED_FACE_MASS * lightest * h ** 3 : 0;
  // White water (diffuse/diffuse.wgsl): the step count seeds the random numbers as on the CPU (diffuse/cpu.ts).
  u[P('diffuseCapacity')] = settings.diffuseCapacity;
  u[P('diffuseSprayNeighbours')] = settings.diffuseSprayNeighbours;
  u[P('diffuseBubbleNeighbours')] = settings.diffuseBubbleNeighbours;
  u[P('diffuseStep')] = ctx.stats.stepCount;
  writeMpsParameters(ctx, words, scene.offsets.params);
}

/**
 * The scene's `Material` table, and in `Params` whether some material has a vorticity and how many diffusion
 * parts a substep records (from the largest diffusivity).
 */
export function writeMaterials(ctx: SimulationContext, scene: StructLayout, words: WordViews): void {
  const f = words.f32;
  const u = words.u32;
  const h = ctx.settings.kernelRadius;
  const P = (name: string) => word(Params, name, scene.offsets.params);
  const m = ctx.materials;
  const store = ctx.components.FluidMaterial;
  let anyVorticity = 0;
  let largestDiffusivity = 0;
  for (let slot = 0; slot < m.count; slot++) {
    const base = scene.offsets.materials + slot * Material.size;
    f[word(Material, 'inverseRestDensity', base)] = m.inverseRestDensity[slot];
    f[word(Material, 'mass', base)] = m.mass[slot];
    f[word(Material, 'viscosity', base)] = m.viscosity[slot];
    f[word(Material, 'vorticity', base)] = m.vorticity[slot];
    f[word(Material, 'relaxation', base)] = m.relaxation[slot];
    f[word(Material, 'artificialPressureScale', base)] = m.artificialPressureScale[slot];
    f[word(Material, 'artificialPressureExponent', base)] = m.artificialPressureExponent[slot];
    f[word(Material, 'inverseArtificialPressureWeight', base)] = m.inverseArtificialPressureWeight[slot];
    f[word(Material, 'artificialPressureRestPower', base)] = m.artificialPressureRestPower[slot];
    f[word(Material, 'dynamicViscosity', base)] = m.dynamicViscosity[slot];
    const eid = m.entity[slot];
    f[word(Material, 'interfaceColor', base)] = store.interfaceColor[eid];
    f[word(Material, 'surfaceColor', base)] = store.surfaceColor[eid];
    f[word(Material, 'interfaceTension', base)] = store.interfaceTension[eid];
    f[word(Material, 'surfaceTension', base)] = store.surfaceTension[eid];
    f[word(Material, 'diffusivity', base)] = store.diffusivity[eid];
    f[word(Material, 'colorDiffusivity', base)] = store.colorDiffusivity[eid];
    f[word(Material, 'temperatureDensity', base)] = store.temperatureDensity[eid];
    f[word(Material, 'colorRed', base)] = store.colorRed[eid];
    f[word(Material, 'colorGreen', base)] = store.colorGreen[eid];
    f[word(Material, 'colorBlue', base)] = store.colorBlue[eid];
    const airTarget = store.airMaterial[eid];
    const airSlot = airTarget >= 0 && airTarget < m.slotOfEntity.length ? m.slotOfEntity[airTarget] : -1;
    words.i32[word(Material, 'airMaterial', base)] = airSlot;
    u[word(Material, 'isAirMaterial', base)] = 0;
    f[word(Material, 'airGenerationThreshold', base)] = store.airGenerationThreshold[eid];
    f[word(Material, 'airGenerationDistance', base)] = store.airGenerationDistance[eid];
    f[word(Material, 'boilingTemperature', base)] = store.boilingTemperature[eid];
    f[word(Material, 'boilingProbability', base)] = store.boilingProbability[eid];
    f[word(Material, 'artificialBuoyancy', base)] = store.artificialBuoyancy[eid];
    f[word(Material, 'airDeletionSurfaceThreshold', base)] = store.airDeletionSurfaceThreshold[eid];
    f[word(Material, 'airDeletionBoundaryThreshold', base)] = store.airDeletionBoundaryThreshold[eid];
    f[word(Material, 'airDeletionDensity', base)] = store.airDeletionDensity[eid];
    f[word(Material, 'restDensity', base)] = store.restDensity[eid];
    for (const name of DIFFUSE_MATERIAL_NAMES) f[word(Material, name, base)] = store[name][eid];
    largestDiffusivity = Math.max(largestDiffusivity, store.diffusivity[eid], store.colorDiffusivity[eid]);
    if (m.vorticity[slot] > 0) anyVorticity = 1;
  }
  u[P('anyVorticity')] = anyVorticity;
  // A material is an air material when some material names it (as markAirMaterials in air.ts).
  for (let slot = 0; slot < m.count; slot++) {
    const target = store.airMaterial[m.entity[slot]];
    const targetSlot = target >= 0 && target < m.slotOfEntity.length ? m.slotOfEntity[target] : -1;
    if (targetSlot >= 0) u[word(Material, 'isAirMaterial', scene.offsets.materials + targetSlot * Material.size)] = 1;
  }
  u[P('diffusionSlots')] = diffusionSlots(largestDiffusivity, h, ctx.substepTimeStep);
  const wall = ctx.lattice.wallWeight;
  for (let k = 0; k < wall.length; k++) f[(scene.offsets.wallTable >> 2) + k] = wall[k];
  writeMpsWallTable(ctx, words, scene.offsets.mpsWallTable);
}

/** The scene's `ColliderData` table, and in `Params` the coupled colliders' count and the impulse quanta. */
export function writeColliders(ctx: SimulationContext, scene: StructLayout, words: WordViews, step: SceneStep): void {
  const settings = ctx.settings;
  const f = words.f32;
  const u = words.u32;
  const P = (name: string) => word(Params, name, scene.offsets.params);
  const table = ctx.colliders;
  const c = ctx.components.Collider;
  const coupling = ctx.components.BodyCoupling;
  let coupledCount = 0;
  for (let slot = 0; slot < table.count; slot++) {
    const eid = table.entity[slot];
    const base = scene.offsets.colliders + slot * ColliderData.size;
    const coupled = coupling.coupled[eid] === 1 ? 1 : 0;
    coupledCount += coupled;
    u[word(ColliderData, 'coupled', base)] = coupled;
    const thin = settings.projectionFreeSurface && isThinCoupledBody(ctx, slot, settings.kernelRadius);
    u[word(ColliderData, 'thinBody', base)] = thin ? 1 : 0;
    const center = word(ColliderData, 'centerOfMass', base);
    f[center] = coupling.centerOfMassX[eid];
    f[center + 1] = coupling.centerOfMassY[eid];
    f[center + 2] = coupling.centerOfMassZ[eid];
    u[word(ColliderData, 'shape', base)] = c.shape[eid];
    u[word(ColliderData, 'container', base)] = c.container[eid];
    u[word(ColliderData, 'wallWeights', base)] = c.wallWeights[eid];
    u[word(ColliderData, 'field', base)] = c.field[eid];
    f[word(ColliderData, 'friction', base)] = c.friction[eid];
    f[word(ColliderData, 'restitution', base)] = c.restitution[eid];
    f[word(ColliderData, 'radius', base)] = c.radius[eid];
    f[word(ColliderData, 'temperature', base)] = c.temperature[eid];
    f[word(ColliderData, 'heatTransfer', base)] = c.heatTransfer[eid];
    const a = word(ColliderData, 'a', base);
    f[a] = c.ax[eid];
    f[a + 1] = c.ay[eid];
    f[a + 2] = c.az[eid];
    const b = word(ColliderData, 'b', base);
    f[b] = c.bx[eid];
    f[b + 1] = c.by[eid];
    f[b + 2] = c.bz[eid];
  }
  f[P('inverseImpulseQuantum')] = 1 / step.impulseQuanta.linear;
  f[P('inverseAngularImpulseQuantum')] = 1 / step.impulseQuanta.angular;
  u[P('coupledCount')] = coupledCount;
  u[P('wallShareOffset')] = settings.capacity;
}

/** The scene's `DrainData` table. */
export function writeDrains(ctx: SimulationContext, scene: StructLayout, words: WordViews): void {
  const f = words.f32;
  const u = words.u32;
  const d = ctx.components.Drain;
  ctx.events.drains.forEach((eid, k) => {
    const base = scene.offsets.drains + k * DrainData.size;
    u[word(DrainData, 'shape', base)] = d.shape[eid];
    u[word(DrainData, 'enabled', base)] = d.enabled[eid];
    f[word(DrainData, 'radius', base)] = d.radius[eid];
    const min = word(DrainData, 'min', base);
    f[min] = d.minX[eid];
    f[min + 1] = d.minY[eid];
    f[min + 2] = d.minZ[eid];
    const max = word(DrainData, 'max', base);
    f[max] = d.maxX[eid];
    f[max + 1] = d.maxY[eid];
    f[max + 2] = d.maxZ[eid];
  });
}

/**
 * The poses of every collider at the end and start of every substep of this step, after the scene's header
 * (`headerBytes`), as the CPU's pose system computes them. Returns their bytes.
 */
export function writePoses(ctx: SimulationContext, words: WordViews, headerBytes: number): number {
  const f = words.f32;
  const table = ctx.colliders;
  const substeps = ctx.substepCount;
  const frames = table.frames;
  for (let substep = 0; substep < substeps; substep++) {
    ctx.substepIndex = substep;
    colliderPoseSystem(ctx);
    for (let slot = 0; slot < table.count; slot++) {
      for (let which = 0; which < 2; which++) {
        const o = slot * COLLIDER_FRAME_STRIDE + which * POSE_SIZE;
        const base = headerBytes + ((substep * table.count + slot) * 2 + which) * Pose.size;
        const w = base >> 2;
        for (let row = 0; row < 3; row++) {
          f[w + 4 * row] = frames[o + 3 * row];
          f[w + 4 * row + 1] = frames[o + 3 * row + 1];
          f[w + 4 * row + 2] = frames[o + 3 * row + 2];
          f[w + 4 * row + 3] = frames[o + 9 + row];
        }
        f[w + 12] = frames[o + 12];
        f[w + 13] = 1 / frames[o + 12];
      }
    }
  }
  const poseBytes = substeps * table.count * 2 * Pose.size;
  return poseBytes;
}

/**
 * Writes the whole scene of the step being recorded into `words` (layout `scene`): the parameters, materials,
 * colliders and drains of the header (its first `headerBytes`), then the poses of every substep. Returns the
 * bytes written, the part of the scene buffer to upload.
 */
export function writeSceneWords(
  ctx: SimulationContext,
  scene: StructLayout,
  words: WordViews,
  step: SceneStep,
  headerBytes: number,
): number {
  writeParams(ctx, scene, words, step);
  writeMaterials(ctx, scene, words);
  writeColliders(ctx, scene, words, step);
  writeDrains(ctx, scene, words);
  return headerBytes + writePoses(ctx, words, headerBytes);
}
