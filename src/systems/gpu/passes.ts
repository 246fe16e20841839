/**
 * The GPU passes as data (docs/ARCHITECTURE.md, "A new GPU pass"): each folder's `gpu.ts` defines the passes
 * of its WGSL files next to the CPU code they mirror, the backend compiles every definition once
 * (gpu/compile.ts), and the schedule (schedule.ts) says which passes a step records, in the order of the CPU
 * systems. Imports types only.
 */
import type { MultiFluidFeatures } from '../multifluid/state';
import type { NeighbourMode } from './shaderSource';
import type { Access, BufferName } from './structs';

/**
 * How many workgroups a pass dispatches, decided when it is dispatched: one thread per live particle, one
 * workgroup, one thread per queued edit or append, one per `SCAN_BLOCK` hash buckets (the scan's clear), one per cell of
 * the projection's largest grid (`projectionMaxCells`; the passes return past the grid's cells) or, on an
 * adapter that runs shaders on the CPU (`runsOnCpu`, gpu/buffers.ts), of the substep's grid (dispatched
 * indirectly from the workgroups its `plan` pass wrote into `ProjectionGrid`: the grid's size is known on the
 * GPU only), or one per slot of white water's pool (`diffuse.capacity`); `particlesAndOne` is one thread
 * per live particle but at least one workgroup (the write-back and the neighbour lists, whose first threads also
 * advance the substep and end the sort).
 */
export type PassSize = 'particles' | 'particlesAndOne' | 'one' | 'edits' | 'appends' | 'buckets' | 'cells' | 'diffuse';

/** A storage buffer a pass binds, and how. */
export type PassBinding = readonly [BufferName, Access];

/** One compute pass: its WGSL, entry point, bindings and dispatch size. */
export interface PassDefinition {
  /** The key the schedule names it by (unique). */
  readonly key: string;
  /** Its name in shader labels and timings (the variants of one pass share it). */
  readonly name: string;
  /** Its WGSL, before the generated preamble (structs, constants, bindings; gpu/structs.ts `passSource`). */
  readonly source: string;
  /** Entry point in `source`. */
  readonly entry: string;
  /** The buffers it binds, in binding order. */
  readonly bindings: readonly PassBinding[];
  /** Workgroups it dispatches. */
  readonly size: PassSize;
  /** Buffers bound under another name: the binding name, then the backend's buffer (`scanData` -> `buckets`). */
  readonly aliases?: Readonly<Partial<Record<BufferName, BufferName>>>;
  /**
   * The neighbour loop its `// @neighbours` blocks expand to (neighbourLoop.wgsl); default: the solver's
   * {@link NeighbourMode}. The pass that builds the lists visits cells.
   */
  readonly neighbourLoop?: NeighbourMode;
}

/** Binds a buffer read-only. */
export const R = 'read' as const;
/** Binds a buffer read-write. */
export const W = 'read_write' as const;

/**
 * What decides which passes one GPU step records: read by the `gpu` functions of the schedule's entries
 * (schedule.ts); the backend fills it before each step and rebuilds its pass lists only when it changed.
 */
export interface GpuPlan {
  /** The PBF solver's coarse projection runs (`settings.projection`). */
  readonly projection: boolean;
  /**
   * The projection reaches the free surface (`settings.projectionFreeSurface`): its two growing passes and
   * `solvedParticles`.
   */
  readonly projectionFreeSurface: boolean;
  /** Density iterations per substep (`settings.iterations`). */
  readonly iterations: number;
  /** Some material has a vorticity above 0. */
  readonly vorticity: boolean;
  /** One material whose artificial pressure exponent is 4: the `simple` variants (see `materialVariant`). */
  readonly simpleMaterials: boolean;
  /** Some collider is coupled with a rigid body: the variants that bind the impulse accumulators. */
  readonly coupled: boolean;
  /**
   * Some collider is a mesh: the passes that measure collider distances sample fields; without, their
   * `Analytic` variants (`analyticVariant`, collide/shapes/index.ts).
   */
  readonly meshes: boolean;
  /**
   * Every collider (none or more) is a box container: lambda's and the uncoupled collision's `Boxes`
   * variants (`containerBoxVariant`, collide/shapes/index.ts), without the code of the other colliders.
   */
  readonly containerBoxes: boolean;
  /** The multi-fluid terms in use. */
  readonly features: MultiFluidFeatures;
  /** Diffusion parts recorded per substep (see `diffusionSlots`). */
  readonly diffusionParts: number;
  /** Collider heat transfer is in use and there are colliders. */
  readonly colliderHeat: boolean;
  /** The scan passes of the neighbour search in order (their number depends on the capacity). */
  readonly scanPasses: readonly string[];
  /** How the gathering passes find neighbours: `'list'` adds the `neighbourList` pass after the sort. */
  readonly neighbourMode: NeighbourMode;
  /** White water is on (`diffuse.capacity` above 0): its passes in the last substep. */
  readonly diffuse: boolean;
  /**
   * The MPS pressure solve's conjugate gradient iterations recorded per substep (`solver: 'mps'`; see
   * `WebGpuSolver.mpsRecordedIterations`); 0 for the other solvers.
   */
  readonly mpsIterations: number;
}

/** The passes of one schedule entry in a step of `plan`, in order. */
export type GpuPasses = (plan: GpuPlan) => readonly string[];
