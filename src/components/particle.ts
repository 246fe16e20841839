/**
 * Particle components: a fluid particle is an entity with {@link ParticleComponents.Position},
 * {@link ParticleComponents.Velocity} and {@link ParticleComponents.Particle}.
 *
 * Stores are structure-of-arrays typed arrays indexed by entity id (`Position.x[eid]`), sized to the
 * world's entity capacity when the simulation is created. They hold data only.
 */
import { MATERIAL_DEFAULTS } from './material';

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
  /**
   * Temperature of each particle in kelvin (Müller et al. 2005, Table 1; the paper uses Celsius). Set at
   * creation from the material's `initialTemperature` (default 293.15 K) or the spawn call's `temperature`;
   * changed by diffusion (eq. 14-15, the material's `diffusivity`) and by colliders with a `heatTransfer`.
   * A material with `temperatureDensity` alpha > 0 takes its rest density from it: rho0 = alpha / T (eq. 16).
   * Game code may write it (range [0.001, 1e6] K, checked before each step).
   */
  readonly Temperature: Float64Array;
  /**
   * Render color of each particle (each channel in [0, 1]), set at creation from the material's `color`
   * or the spawn call's `color`; diffused between neighbours (eq. 14-15) when the material's
   * `colorDiffusivity` is above 0, so two dyes mix. Game code may write it.
   */
  readonly Color: ColorStore;
}

/** Three `Float64Array`s of color channels (each in [0, 1]) indexed by entity id. */
export interface ColorStore {
  /** Red channel per entity. */
  readonly red: Float64Array;
  /** Green channel per entity. */
  readonly green: Float64Array;
  /** Blue channel per entity. */
  readonly blue: Float64Array;
}

/** Allocates a {@link Vector3Store} for `size` entity ids. */
export function createVector3Store(size: number): Vector3Store {
  return { x: new Float64Array(size), y: new Float64Array(size), z: new Float64Array(size) };
}

/**
 * Allocates the particle stores for entity ids `0 .. size - 1`. `Temperature` starts at the default
 * 293.15 K and `Color` at the default material color, the values a snapshot written before these stores
 * existed restores.
 */
export function createParticleComponents(size: number): ParticleComponents {
  const [red, green, blue] = MATERIAL_DEFAULTS.color;
  const filled = (value: number) => new Float64Array(size).fill(value);
  return {
    Position: createVector3Store(size),
    Velocity: createVector3Store(size),
    Particle: { material: new Uint32Array(size), age: new Float64Array(size), lifetime: new Float64Array(size) },
    Density: new Float64Array(size),
    Temperature: filled(MATERIAL_DEFAULTS.initialTemperature),
    Color: { red: filled(red), green: filled(green), blue: filled(blue) },
  };
}
