/**
 * World-wide settings of one simulation: one plain object, resolved from the options at creation.
 * Data only.
 */

/**
 * Which backend runs the step: `'cpu'` (the reference, any environment) or `'webgpu'` (Babylon compute
 * shaders on a `WebGPUEngine`).
 */
export type FluidBackend = 'cpu' | 'webgpu';

/** The resolved settings of a simulation (all values validated, SI units). */
export interface FluidSettings {
  /** Particle radius r in metres; the spawn lattice spacing is 2r. */
  readonly particleRadius: number;
  /** Kernel (smoothing) radius h in metres. */
  readonly kernelRadius: number;
  /** Maximum number of live particles. */
  readonly capacity: number;
  /** Maximum number of materials. */
  readonly maxMaterials: number;
  /** Maximum number of colliders. */
  readonly maxColliders: number;
  /** Maximum number of emitters and drains together. */
  readonly maxEmitters: number;
  /** Gravity in m/s^2 (mutable: game code may change it between steps). */
  readonly gravity: [number, number, number];
  /** Default frame time step in seconds. */
  timeStep: number;
  /** Substeps per step. */
  substeps: number;
  /** Density constraint iterations per substep. */
  iterations: number;
  /** Speed clamp in m/s applied after external forces. */
  maxSpeed: number;
  /** Backend chosen at creation (`'auto'` resolved). The one running now is `stats.backend`. */
  readonly backend: FluidBackend;
}
