/**
 * Emitters and drains: entities that add particles during the game (a nozzle) and remove them (a drain
 * region). Game code enables, moves and retunes them by editing these stores. Data only.
 */

/** Numeric nozzle cross-section codes stored in `Emitter.shape`. */
export const EmitterShape = {
  /** A disc of radius `radius` across the direction. */
  circle: 0,
  /** A square of half side `radius` across the direction. */
  square: 1,
} as const;

/** Structure-of-arrays store of nozzle emitters, indexed by the emitter's entity id. */
export interface EmitterStore {
  /** 1 emits, 0 is off. */
  readonly enabled: Uint8Array;
  /** Cross-section, see {@link EmitterShape}. */
  readonly shape: Uint8Array;
  /** Nozzle radius (circle) or half side (square) in metres. */
  readonly radius: Float64Array;
  /** Nozzle center, world space (m). */
  readonly positionX: Float64Array;
  /** See {@link EmitterStore.positionX}. */
  readonly positionY: Float64Array;
  /** See {@link EmitterStore.positionX}. */
  readonly positionZ: Float64Array;
  /** Unit emission direction, world space. */
  readonly directionX: Float64Array;
  /** See {@link EmitterStore.directionX}. */
  readonly directionY: Float64Array;
  /** See {@link EmitterStore.directionX}. */
  readonly directionZ: Float64Array;
  /** Emission rate in particles per second (one particle is (2r)^3 of fluid at rest). */
  readonly rate: Float64Array;
  /** Exit speed in m/s along the direction. */
  readonly speed: Float64Array;
  /** Half-angle in radians of the cone the particles' directions are spread over (0: a straight jet). */
  readonly spread: Float64Array;
  /** Material entity id of the emitted particles. */
  readonly material: Uint32Array;
  /** Lifetime in seconds given to each emitted particle; 0 lets them live until drained. */
  readonly lifetime: Float64Array;
  /** Particles owed by the rate but not emitted yet (a fraction of one cross-section layer). */
  readonly owed: Float64Array;
  /** Set to 1 by a step in which the emitter stopped at the simulation's capacity, else 0. */
  readonly blocked: Uint8Array;
}

/** Numeric drain region codes stored in `Drain.shape`. */
export const DrainShape = {
  /** Axis-aligned box `min`..`max` (world space). */
  box: 0,
  /** Sphere: center `min`, radius `radius`. */
  sphere: 1,
} as const;

/** Structure-of-arrays store of drains, indexed by the drain's entity id. */
export interface DrainStore {
  /** 1 removes particles, 0 is off. */
  readonly enabled: Uint8Array;
  /** Region shape, see {@link DrainShape}. */
  readonly shape: Uint8Array;
  /** Box minimum corner or sphere center, world space (m). */
  readonly minX: Float64Array;
  /** See {@link DrainStore.minX}. */
  readonly minY: Float64Array;
  /** See {@link DrainStore.minX}. */
  readonly minZ: Float64Array;
  /** Box maximum corner, world space (m). */
  readonly maxX: Float64Array;
  /** See {@link DrainStore.maxX}. */
  readonly maxY: Float64Array;
  /** See {@link DrainStore.maxX}. */
  readonly maxZ: Float64Array;
  /** Sphere radius (m). */
  readonly radius: Float64Array;
  /** Particles this drain removed in the last step. */
  readonly removedCount: Uint32Array;
}

/** Allocates the emitter store for entity ids `0 .. size - 1`. */
export function createEmitterStore(size: number): EmitterStore {
  const f = () => new Float64Array(size);
  return {
    enabled: new Uint8Array(size),
    shape: new Uint8Array(size),
    radius: f(),
    positionX: f(),
    positionY: f(),
    positionZ: f(),
    directionX: f(),
    directionY: f(),
    directionZ: f(),
    rate: f(),
    speed: f(),
    spread: f(),
    material: new Uint32Array(size),
    lifetime: f(),
    owed: f(),
    blocked: new Uint8Array(size),
  };
}

/** Allocates the drain store for entity ids `0 .. size - 1`. */
export function createDrainStore(size: number): DrainStore {
  const f = () => new Float64Array(size);
  return {
    enabled: new Uint8Array(size),
    shape: new Uint8Array(size),
    minX: f(),
    minY: f(),
    minZ: f(),
    maxX: f(),
    maxY: f(),
    maxZ: f(),
    radius: f(),
    removedCount: new Uint32Array(size),
  };
}
