/**
 * White water's pool (docs/white-water.md): the diffuse particles (spray, foam, bubbles) in arrays of their
 * own, apart from the fluid's, and the working arrays of their step. Allocated once, at creation, for
 * `diffuse.capacity` particles (nothing when white water is off). Imports nothing of the simulation.
 */

/**
 * Distance of a fluid particle's weighted neighbour centre, as a fraction of h, beyond which it is on the surface
 * (0.3 at a flat surface, about 0 inside); then the outward normal points from that centre to it.
 */
export const DIFFUSE_SURFACE_OFFSET = 0.1;

/** v^ . n^ from which a surface particle moves along its normal (the paper's delta^vn of the wave crests). */
export const DIFFUSE_ALONG_NORMAL = 0.6;

/** Seconds over which a diffuse particle fades out before its lifetime ends (what the views draw). */
export const DIFFUSE_FADE_TIME = 0.5;

/**
 * Most diffuse particles one fluid particle generates in one step (its n_d is clamped to it): at the default
 * rates a fluid particle makes at most 400 / 60 = 6.7 a step; the bound keeps a GPU thread's loop short.
 */
export const DIFFUSE_MOST_PER_PARTICLE = 64;

/** The kinds of diffuse particles (`DiffuseParticles.kind`), by their number of fluid neighbours within h. */
export const DiffuseKind = {
  /** Fewer than `settings.diffuseSprayNeighbours` fluid neighbours: ballistic, under gravity (and air drag). */
  spray: 0,
  /** Between the two thresholds: carried with the fluid's velocity at the surface. */
  foam: 1,
  /** More than `settings.diffuseBubbleNeighbours`: buoyant, dragged towards the fluid's velocity. */
  bubble: 2,
} as const;

/** A kind of diffuse particle: 0 spray, 1 foam, 2 bubble (see {@link DiffuseKind}). */
export type DiffuseKindValue = (typeof DiffuseKind)[keyof typeof DiffuseKind];

/**
 * The diffuse particles of white water (Ihmsen et al. 2012), readable by game code through
 * `FluidSimulation.diffuseParticles`: structure-of-arrays, the live particles at places `0 .. count - 1` (the
 * order changes when particles die: the last one takes a dead one's place). On the CPU backend written by the
 * white-water system at the end of each step; on the WebGPU backend a mirror of the GPU's pool, written by
 * particle readbacks (the `mirror` option, `simulation.readback()`). Read them between steps, write nothing.
 */
export interface DiffuseParticles {
  /** The most live diffuse particles (`diffuse.capacity`; 0 when white water is off). */
  readonly capacity: number;
  /** Live diffuse particles. */
  count: number;
  /** Position x in m. */
  readonly positionX: Float32Array;
  /** Position y in m. */
  readonly positionY: Float32Array;
  /** Position z in m. */
  readonly positionZ: Float32Array;
  /** Velocity x in m/s (for foam: the fluid's velocity it moves with). */
  readonly velocityX: Float32Array;
  /** Velocity y in m/s. */
  readonly velocityY: Float32Array;
  /** Velocity z in m/s. */
  readonly velocityZ: Float32Array;
  /** Kind: 0 spray, 1 foam, 2 bubble ({@link DiffuseKind}), from the last step's classification. */
  readonly kind: Uint8Array;
  /** Age in seconds since the particle was generated. */
  readonly age: Float32Array;
  /** Lifetime in seconds, drawn at generation: the particle is deleted when its age reaches it. */
  readonly lifetime: Float32Array;
  /** Material entity of the fluid particle that generated it (its `diffuse*` settings move it). */
  readonly material: Uint32Array;
}

/** The white-water state: the public pool and the step's working arrays over the fluid particles. */
export interface DiffuseState {
  /** The diffuse particles. */
  readonly particles: DiffuseParticles;
  /**
   * Per fluid particle (sorted place), x of the unit outward surface normal, 0 inside the fluid (while the
   * potentials are summed: of the weighted offset to the neighbours).
   */
  readonly normalX: Float64Array;
  /** y of the same. */
  readonly normalY: Float64Array;
  /** z of the same. */
  readonly normalZ: Float64Array;
  /** Per fluid particle: the sum of its neighbours' weights (1 - r / h). */
  readonly weightSum: Float64Array;
  /** Per fluid particle: the trapped-air sum (m/s). */
  readonly trappedAir: Float64Array;
  /** Per fluid particle: the curvature sum of the wave crests (dimensionless). */
  readonly curvature: Float64Array;
  /** The fluid's hash grid (cells of size h) for the diffuse particles' neighbours: bucket starts. */
  readonly cellStart: Int32Array;
  /** The fluid particles' places in bucket order. */
  readonly cellEntries: Int32Array;
  /** The bucket of each fluid particle. */
  readonly cellOf: Int32Array;
  /** The hash table's size minus 1 (a power of two minus 1). */
  readonly tableMask: number;
  /**
   * The grid's numbering this step: dense (cells numbered x fastest over the fluid's bounding box with one
   * cell of margin, `origin` its first cell, `dims` its size in cells) when the box has at most
   * `tableMask + 1` cells, else hashed (`hashCell`).
   */
  readonly grid: { dense: boolean; readonly origin: Int32Array; readonly dims: Int32Array };
}

function nextPowerOfTwo(value: number): number {
  let p = 1;
  while (p < value) p *= 2;
  return p;
}

/**
 * Allocates the white-water state for `capacity` diffuse particles over at most `fluidCapacity` fluid particles;
 * with `capacity` 0 every array is empty (white water off).
 */
export function createDiffuseState(capacity: number, fluidCapacity: number): DiffuseState {
  const fluid = capacity > 0 ? fluidCapacity : 0;
  const tableSize = capacity > 0 ? nextPowerOfTwo(Math.max(1024, 2 * fluidCapacity)) : 1;
  const f32 = () => new Float32Array(capacity);
  const f64 = () => new Float64Array(fluid);
  return {
    particles: {
      capacity,
      count: 0,
      positionX: f32(),
      positionY: f32(),
      positionZ: f32(),
      velocityX: f32(),
      velocityY: f32(),
      velocityZ: f32(),
      kind: new Uint8Array(capacity),
      age: f32(),
      lifetime: f32(),
      material: new Uint32Array(capacity),
    },
    normalX: f64(),
    normalY: f64(),
    normalZ: f64(),
    weightSum: f64(),
    trappedAir: f64(),
    curvature: f64(),
    cellStart: new Int32Array(capacity > 0 ? tableSize + 1 : 1),
    cellEntries: new Int32Array(fluid),
    cellOf: new Int32Array(fluid),
    tableMask: tableSize - 1,
    grid: { dense: false, origin: new Int32Array(3), dims: new Int32Array(3) },
  };
}

/** The white-water figures of `FluidStats`, all 0: at creation, and after a restore (which drops the particles). */
export function emptyDiffuseStats() {
  return {
    diffuseCount: 0,
    diffuseSprayCount: 0,
    diffuseFoamCount: 0,
    diffuseBubbleCount: 0,
    diffuseGeneratedCount: 0,
    diffuseDroppedCount: 0,
    diffuseRemovedCount: 0,
  };
}
