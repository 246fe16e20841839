/**
 * Particle components: a fluid particle is an entity with {@link ParticleComponents.Position},
 * {@link ParticleComponents.Velocity} and {@link ParticleComponents.Particle}.
 *
 * Stores are structure-of-arrays typed arrays indexed by entity id (`Position.x[eid]`), sized to the
 * world's entity capacity when the simulation is created. They hold data only.
 */

/** Three `Float64Array`s indexed by entity id. */
export interface Vector3Store {
  /** x component per entity. */
  readonly x: Float64Array;
  /** y component per entity. */
  readonly y: Float64Array;
  /** z component per entity. */
  readonly z: Float64Array;
}

/** The `Particle` component: marks an entity as a fluid particle and names its material. */
export interface ParticleStore {
  /** Entity id of the particle's material (an entity with the `FluidMaterial` component). */
  readonly material: Uint32Array;
  /** Seconds since the particle was created, advanced by each step. */
  readonly age: Float64Array;
  /** Seconds the particle lives: the step removes it once `age` reaches this. 0 (default) lives forever. */
  readonly lifetime: Float64Array;
}

/** The particle stores of one simulation. */
export interface ParticleComponents {
  /** Particle position in metres (world space). Current after each step. */
  readonly Position: Vector3Store;
  /** Particle velocity in metres per second. Current after each step. */
  readonly Velocity: Vector3Store;
  /** Material reference of each particle. */
  readonly Particle: ParticleStore;
  /**
   * SPH density of each particle in kg/m^3 (eq. 2 of Macklin & Müller 2013, walls' contribution
   * included), from the last solver iteration of the last step. Written by the step; read-only for games.
   */
  readonly Density: Float64Array;
}

/** Allocates a {@link Vector3Store} for `size` entity ids. */
export function createVector3Store(size: number): Vector3Store {
  return { x: new Float64Array(size), y: new Float64Array(size), z: new Float64Array(size) };
}

/** Allocates the particle stores for entity ids `0 .. size - 1`. */
export function createParticleComponents(size: number): ParticleComponents {
  return {
    Position: createVector3Store(size),
    Velocity: createVector3Store(size),
    Particle: { material: new Uint32Array(size), age: new Float64Array(size), lifetime: new Float64Array(size) },
    Density: new Float64Array(size),
  };
}
