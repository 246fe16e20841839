/**
 * World-wide settings of one simulation: one plain object, resolved from the options at creation.
 * Data only.
 */

import type { SOLVERS } from '../core/schema';

/**
 * Which backend runs the step: `'cpu'` (the reference, any environment) or `'webgpu'` (Babylon compute
 * shaders on a `WebGPUEngine`).
 */
export type FluidBackend = 'cpu' | 'webgpu';

/**
 * Which solver replaces the density solve of the step (docs/ARCHITECTURE.md, "The step", step 7):
 * - `'pbf'`: Position Based Fluids (Macklin & Müller 2013), density constraints solved by Jacobi iterations;
 * - `'sph'`: weakly compressible SPH (Müller, Charypar & Gross 2003, section 3): pressure from the equation
 *   of state p = k (rho - rho0) (eq. 12), pressure, viscosity and surface-tension forces (eq. 10, 14, 19),
 *   leap-frog integration with adaptive substeps from a CFL condition;
 * - `'mps'`: Moving Particle Semi-implicit (Premoze et al. 2003), a pressure Poisson equation solved by
 *   conjugate gradients; both backends.
 */
export type FluidSolver = (typeof SOLVERS)[number];

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
  /**
   * Threads that share the CPU backend's PBF pair loops, the stepping thread included (fixed at creation;
   * `stats.threads` says how many run).
   */
  readonly threads: number;
  /**
   * Whether the CPU backend runs its heaviest loops in WebAssembly where it can (fixed at creation;
   * `stats.webAssembly` says whether the last step did).
   */
  readonly webAssembly: boolean;
  /**
   * PBF: whether the coarse pressure projection runs each substep before the density constraints
   * (projection/cpu.ts): the velocity field is made free of divergence on a coarse grid, so deep water is
   * held up at once instead of over many Jacobi iterations. Both backends (the WebGPU passes are
   * projection/gpu.ts).
   */
  projection: boolean;
  /** PBF projection: relative residual at which the conjugate gradient solve stops. */
  projectionTolerance: number;
  /** PBF projection: the most conjugate gradient iterations per substep. */
  projectionMaxIterations: number;
  /**
   * PBF projection: beta, the fraction of a grid cell's mean density error (particles with a full
   * neighbourhood) the projection removes per substep, as the divergence beta (rho / rho0 - 1) / dt.
   */
  projectionDensityRelaxation: number;
  /**
   * PBF projection: true solves water at least five cells thick up to its free surface and, where the solve
   * holds the water, offsets the single-fluid artificial pressure by its value at the rest spacing (still
   * water; see `ProjectionOptions.freeSurface`). Default true.
   */
  projectionFreeSurface: boolean;
  /** Backend chosen at creation (`'auto'` resolved). The one running now is `stats.backend`. */
  readonly backend: FluidBackend;
  /** Solver chosen at creation (see {@link FluidSolver}). */
  readonly solver: FluidSolver;
  /**
   * WCSPH (`solver: 'sph'`): numerical speed of sound c_s in m/s. The stiffness of the equation of state
   * p = k (rho - rho0) (Müller et al. 2003, eq. 12) is k = c_s^2 (m^2/s^2, i.e. Pa per kg/m^3).
   */
  sphSpeedOfSound: number;
  /** WCSPH: dynamic viscosity mu in Pa s of the viscosity force (eq. 14). */
  sphViscosity: number;
  /** WCSPH: surface tension coefficient sigma in N/m of the color-field force (eq. 15-19). */
  sphSurfaceTension: number;
  /** WCSPH: threshold l on |n| = |grad c_S| in 1/m above which surface tension acts (section 3.3, eq. 23). */
  sphSurfaceThreshold: number;
  /** WCSPH: Courant number lambda of the CFL condition dt <= lambda h / (c_s + v_max). */
  sphCourantNumber: number;
  /** WCSPH: the most substeps one step is split into by the CFL, force and viscous conditions. Fixed at creation. */
  sphMaxSubsteps: number;
  /**
   * White water (`diffuse.capacity`): the most live diffuse particles (spray, foam, bubbles); 0 when white water
   * is off. Fixed at creation.
   */
  readonly diffuseCapacity: number;
  /** White water: a diffuse particle with fewer fluid neighbours within h than this is spray. Default 6. */
  diffuseSprayNeighbours: number;
  /** White water: a diffuse particle with more fluid neighbours within h than this is a bubble. Default 20. */
  diffuseBubbleNeighbours: number;
}
