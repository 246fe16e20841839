/**
 * The one place where particle data leaves the simulation for the renderers. On the CPU backend
 * `feedParticles` writes positions, colors and (for the sphere view) instance matrices into buffers
 * allocated once, so a frame allocates nothing. On the WebGPU backend nothing is copied: the feed hands the
 * views the simulation's own position storage buffer (a vec4 per particle, in the GPU's order) and the number
 * of particles to draw from it, so positions never travel through the CPU; when a view colors particles
 * one by one, `feedGpuColors` runs a compute pass that writes their colors, in the same order, into a
 * buffer the views bind beside the positions (particleColors.ts), so colors stay on the GPU too.
 */
import type { DataBuffer } from '@babylonjs/core/Buffers/dataBuffer.js';
import type { AbstractEngine } from '@babylonjs/core/Engines/abstractEngine.js';
import type { WebGPUEngine } from '@babylonjs/core/Engines/webgpuEngine.js';
import { ELLIPSOID_FLOATS, type ResolvedAnisotropy } from '../systems/ellipsoids/settings';
import type { WebGpuSolver } from '../systems/gpu/backend';
import type { FluidSimulation } from '../systems/simulation';
import { type ColorMapRanges, DENSITY_STOPS, type FluidColorBy, SPEED_STOPS, writeColorMap } from './colorMaps';
import { GpuEllipsoids } from './ellipsoidPass';
import { GpuParticleColors } from './particleColors';

/** The particle data the renderers read, sized once for the simulation's capacity. */
export interface ParticleBuffers {
  /** Most particles the buffers hold (the simulation's capacity). */
  readonly capacity: number;
  /** Particles written by the last `feedParticles`. */
  count: number;
  /** Entity id of each written particle, in the order of the other buffers. */
  readonly ids: Uint32Array;
  /** x, y, z per particle (m, world space). */
  readonly positions: Float32Array;
  /** r, g, b, a per particle, in 0..1. */
  readonly colors: Float32Array;
  /**
   * A 4 x 4 instance matrix per particle (uniform scaling by `matrixScale`, translation to the particle),
   * written only when present; the sphere view allocates it on first use.
   */
  matrices: Float32Array | undefined;
  /** Diameter (m) written on the diagonal of `matrices`. */
  matrixScale: number;
  /** True once the diagonal of `matrices` holds `matrixScale` for every place. */
  matricesInitialised: boolean;
  /**
   * WebGPU backend: the simulation's position storage buffer (xyz + material slot per particle, 16 bytes,
   * in the GPU's order), which the views draw from directly; `positions`, `colors`, `ids` and `matrices`
   * are then not written. Undefined on the CPU backend.
   */
  gpuPositions: DataBuffer | undefined;
  /** WebGPU backend: the solver that made the last step recorded by `recordStep` (undefined before). */
  steppedSolver: WebGpuSolver | undefined;
  /** WebGPU backend: particles on that solver's GPU after that step, at most (the CPU count then). */
  steppedCount: number;
  /** Steps recorded by `recordStep` so far (the GPU colors are computed again only after a new one). */
  stepsRecorded: number;
  /**
   * WebGPU backend: the per-particle color pass and its buffer (r, g, b, a per particle, 16 bytes, in the
   * order of `gpuPositions`), made by the first `feedGpuColors` for the current solver; undefined before
   * and on the CPU backend.
   */
  gpuColors: GpuParticleColors | undefined;
  /**
   * CPU backend: the anisotropic particles' ellipsoids of the `count` particles to draw (`ELLIPSOID_FLOATS`
   * floats each, in the order of `ids`), written by `feedEllipsoids`; undefined until the water first needs them.
   */
  ellipsoids: Float32Array | undefined;
  /**
   * WebGPU backend: the ellipsoid pass and its output buffer (in the order of `gpuPositions`), made by the first
   * `feedEllipsoids` for the current solver; undefined before and on the CPU backend.
   */
  gpuEllipsoids: GpuEllipsoids | undefined;
}

/** Allocates the buffers for `capacity` particles (no matrices yet). */
export function createParticleBuffers(capacity: number): ParticleBuffers {
  return {
    capacity,
    count: 0,
    ids: new Uint32Array(capacity),
    positions: new Float32Array(capacity * 3),
    colors: new Float32Array(capacity * 4),
    matrices: undefined,
    matrixScale: 1,
    matricesInitialised: false,
    gpuPositions: undefined,
    steppedSolver: undefined,
    steppedCount: 0,
    stepsRecorded: 0,
    gpuColors: undefined,
    ellipsoids: undefined,
    gpuEllipsoids: undefined,
  };
}

/**
 * Records, after a step, how many particles the WebGPU backend's buffers hold at most: the live count then
 * (particles spawned later reach the GPU with the next step, so they are not drawn from stale slots before).
 * Does nothing on the CPU backend.
 */
export function recordStep(simulation: FluidSimulation, buffers: ParticleBuffers): void {
  buffers.steppedSolver = simulation.gpuSolver;
  buffers.steppedCount = simulation.particleCount;
  buffers.stepsRecorded++;
}

/**
 * How many particles to draw from the WebGPU backend's position buffer: the count after the last recorded
 * step, or fewer when readbacks have reported removals since (0 before the solver's first step, e.g. after
 * a restored device). An upper bound of the live particles on the GPU: particles removed on the GPU in the
 * last frame or two, not yet read back, may still be drawn where they last were.
 */
function gpuDrawCount(simulation: FluidSimulation, solver: WebGpuSolver, buffers: ParticleBuffers): number {
  if (buffers.steppedSolver !== solver) return 0;
  return Math.min(buffers.steppedCount, simulation.particleCount, buffers.capacity);
}

/**
 * CPU backend: copies the live particles of `simulation` into `buffers`: positions, a color per particle
 * (by material, speed, density or the particle's own `Color`) and, when `buffers.matrices` exists, instance matrices. WebGPU backend:
 * points `buffers.gpuPositions` at the simulation's position storage buffer and sets the count to draw;
 * nothing is copied (per-particle colors come from `feedGpuColors`). Allocates nothing.
 *
 * @returns The number of particles to draw (also stored in `buffers.count`).
 */
export function feedParticles(
  simulation: FluidSimulation,
  buffers: ParticleBuffers,
  colorBy: FluidColorBy,
  ranges: ColorMapRanges,
): number {
  const solver = simulation.gpuSolver;
  if (solver !== undefined) {
    buffers.gpuPositions = solver.positionBuffer.getBuffer();
    buffers.count = gpuDrawCount(simulation, solver, buffers);
    if (buffers.gpuColors !== undefined && buffers.gpuColors.solver !== solver) releaseGpuColors(buffers);
    if (buffers.gpuEllipsoids !== undefined && buffers.gpuEllipsoids.solver !== solver) releaseGpuEllipsoids(buffers);
    return buffers.count;
  }
  buffers.gpuPositions = undefined;
  releaseGpuColors(buffers);
  releaseGpuEllipsoids(buffers);
  const count = Math.min(simulation.particleCount, buffers.capacity);
  const ids = simulation.particleCount <= buffers.capacity ? simulation.particles(buffers.ids) : buffers.ids;
  const { Position } = simulation.components;
  const { positions, colors, matrices } = buffers;
  if (matrices !== undefined && !buffers.matricesInitialised) {
    const scale = buffers.matrixScale;
    for (let place = 0; place < buffers.capacity; place++) {
      const m = 16 * place;
      matrices.fill(0, m, m + 16);
      matrices[m] = scale;
      matrices[m + 5] = scale;
      matrices[m + 10] = scale;
      matrices[m + 15] = 1;
    }
    buffers.matricesInitialised = true;
  }
  const inverseSpeedRange = 1 / Math.max(1e-9, ranges.speed);
  const inverseDensityRange = 1 / Math.max(1e-9, ranges.density);
  for (let place = 0; place < count; place++) {
    const eid = ids[place];
    const x = Position.x[eid];
    const y = Position.y[eid];
    const z = Position.z[eid];
    const p = 3 * place;
    positions[p] = x;
    positions[p + 1] = y;
    positions[p + 2] = z;
    if (matrices !== undefined) {
      const m = 16 * place;
      matrices[m + 12] = x;
      matrices[m + 13] = y;
      matrices[m + 14] = z;
    }
    writeParticleColor(simulation, eid, colorBy, inverseSpeedRange, inverseDensityRange, colors, 4 * place);
  }
  buffers.count = count;
  return count;
}

/**
 * Writes the color of particle `eid` of `simulation` by `colorBy` (r, g, b, a = 1) to
 * `colors[offset..offset+3]`, from its components: the material's `color`, its own `Color`, or the speed
 * (|Velocity| times `inverseSpeedRange`) or density (Density / rest density - 1, times `inverseDensityRange`,
 * centered) color map. The CPU feed's colors, and the reference of the WebGPU color pass
 * (particleColors.wgsl).
 */
export function writeParticleColor(
  simulation: FluidSimulation,
  eid: number,
  colorBy: FluidColorBy,
  inverseSpeedRange: number,
  inverseDensityRange: number,
  colors: Float32Array,
  offset: number,
): void {
  const { Velocity, Density, Particle, FluidMaterial, Color } = simulation.components;
  const c = offset;
  const material = Particle.material[eid];
  if (colorBy === 'material') {
    colors[c] = FluidMaterial.colorRed[material];
    colors[c + 1] = FluidMaterial.colorGreen[material];
    colors[c + 2] = FluidMaterial.colorBlue[material];
  } else if (colorBy === 'color') {
    colors[c] = Color.red[eid];
    colors[c + 1] = Color.green[eid];
    colors[c + 2] = Color.blue[eid];
  } else if (colorBy === 'speed') {
    const speed = Math.hypot(Velocity.x[eid], Velocity.y[eid], Velocity.z[eid]);
    writeColorMap(SPEED_STOPS, speed * inverseSpeedRange, colors, c);
  } else {
    const restDensity = FluidMaterial.restDensity[material];
    const deviation = restDensity > 0 ? Density[eid] / restDensity - 1 : 0;
    writeColorMap(DENSITY_STOPS, 0.5 + 0.5 * deviation * inverseDensityRange, colors, c);
  }
  colors[c + 3] = 1;
}

/**
 * WebGPU backend, after `feedParticles`: makes sure the color buffer `buffers.gpuColors` holds the colors
 * by `colorBy` of the `buffers.count` particles to draw, in their draw order, by recording the color pass
 * when they may have changed (a step recorded since, another `colorBy`, other `ranges` or count; once per
 * frame at most). The first call for a solver makes the pass and its buffer; nothing is made per frame and
 * nothing is read back. `engine` is the simulation's (the scene's) WebGPU engine. Does nothing on the CPU
 * backend.
 *
 * @returns The color buffer (undefined on the CPU backend).
 */
export function feedGpuColors(
  simulation: FluidSimulation,
  buffers: ParticleBuffers,
  colorBy: FluidColorBy,
  ranges: ColorMapRanges,
  engine: AbstractEngine,
): GpuParticleColors | undefined {
  const solver = simulation.gpuSolver;
  if (solver === undefined || !engine.isWebGPU) return undefined;
  if (buffers.gpuColors !== undefined && buffers.gpuColors.solver !== solver) releaseGpuColors(buffers);
  buffers.gpuColors ??= new GpuParticleColors(engine as WebGPUEngine, solver, buffers.capacity);
  buffers.gpuColors.update(colorBy, ranges, buffers.count, buffers.stepsRecorded);
  return buffers.gpuColors;
}

/** Disposes the color pass of a former solver (the views made over its buffer are made again). */
export function releaseGpuColors(buffers: ParticleBuffers): void {
  buffers.gpuColors?.dispose();
  buffers.gpuColors = undefined;
}

/**
 * After `feedParticles`, for the screen-space water's anisotropic particles: the ellipsoids of the
 * `buffers.count` particles to draw (drawn radius `radius`, m; `anisotropy` resolved). CPU backend: written into
 * `buffers.ellipsoids` by the simulation's `writeEllipsoids`. WebGPU backend: the GPU pass recorded into
 * `buffers.gpuEllipsoids` when a step ran since (once per frame at most; made by the first call for a solver).
 * Nothing is read back; nothing is made per frame.
 */
export function feedEllipsoids(
  simulation: FluidSimulation,
  buffers: ParticleBuffers,
  anisotropy: ResolvedAnisotropy,
  radius: number,
  engine: AbstractEngine,
): void {
  const solver = simulation.gpuSolver;
  if (solver !== undefined) {
    if (!engine.isWebGPU) return;
    if (buffers.gpuEllipsoids !== undefined && buffers.gpuEllipsoids.solver !== solver) releaseGpuEllipsoids(buffers);
    buffers.gpuEllipsoids ??= new GpuEllipsoids(engine as WebGPUEngine, solver, buffers.capacity);
    const timeStep = simulation.settings.timeStep;
    buffers.gpuEllipsoids.update(anisotropy, radius, timeStep, buffers.count, buffers.stepsRecorded);
    return;
  }
  buffers.ellipsoids ??= new Float32Array(Math.max(1, buffers.capacity) * ELLIPSOID_FLOATS);
  simulation.writeEllipsoids(buffers.ellipsoids, buffers.ids, buffers.count, radius, anisotropy);
}

/** Disposes the ellipsoid pass of a former solver (the water binds the new one's buffer). */
export function releaseGpuEllipsoids(buffers: ParticleBuffers): void {
  buffers.gpuEllipsoids?.dispose();
  buffers.gpuEllipsoids = undefined;
}
