/**
 * The public option types of `FluidSimulation` (simulation.ts) and its calls: the simulation's options,
 * colliders, emitters, drains and spawns. Types only; the checks live with the calls, the defaults in
 * components.ts (docs/ARCHITECTURE.md, "Layers").
 */
import type { AbstractEngine } from '@babylonjs/core/Engines/abstractEngine.js';
import type { FluidBackend, FluidSolver } from '../components';
import { type Color3Input, optionNames, type QuaternionInput, type Vector3Input } from '../core/checks';
import type { DiffuseOptions } from './diffuse/settings';
import type { MpsSettings } from './mps/settings';
import type { SignedDistanceField } from './sdf/field';
import type { SphOptions } from './sph/settings';

/** When game code sees particle components on the WebGPU backend. */
export type MirrorMode = 'every-frame' | 'on-demand' | 'off';

/** Options of {@link FluidSimulation}. Every option has a default giving stable water at 1/60 s. */
export interface FluidSimulationOptions {
  /** Particle radius r in metres; particles spawn on a lattice of spacing 2r. Range [0.0001, 100]. Default 0.025. */
  particleRadius?: number;
  /** Kernel radius h in metres. Range [3r, 8r]. Default 4r (about 30 neighbours per particle). */
  kernelRadius?: number;
  /** Maximum number of live particles. Integer in [1, 4194304]. Default 32768. */
  capacity?: number;
  /** Maximum number of materials. Integer in [1, 1024]. Default 16. */
  maxMaterials?: number;
  /** Maximum number of colliders. Integer in [1, 4096]. Default 64. */
  maxColliders?: number;
  /** Maximum number of emitters and drains together. Integer in [1, 4096]. Default 64. */
  maxEmitters?: number;
  /**
   * Gravity in m/s^2: `[x, y, z]` or a Babylon `Vector3`, each component in [-1000, 1000]. Default
   * `[0, -9.81, 0]`. Kept as a tuple in `settings.gravity`. (`FluidPlugin`: given, it holds; left out, the
   * plugin follows the scene's physics engine's gravity when the scene has one.)
   */
  gravity?: Vector3Input;
  /** Step duration in seconds used by `step()` without argument. Range [0.000001, 0.1]. Default 1/60. */
  timeStep?: number;
  /** Substeps per step. Integer in [1, 32]. Default 2. */
  substeps?: number;
  /**
   * Density constraint iterations per substep. Integer in [1, 64]. Default 2 where the coarse pressure
   * projection runs (the PBF solver's default on both backends: it does the global part of the solve), else 3.
   */
  iterations?: number;
  /**
   * Speed clamp in m/s applied after external forces each substep, so that no particle crosses more
   * than about one kernel radius per substep (neighbour search and collisions stay valid). The velocity
   * after a step can exceed it by what the solve adds: at most one particle radius of correction per
   * iteration, and the surface speed of a moving collider.
   * Range [0.000001, 10000]. Default h / (timeStep / substeps) (at most 10000), 12 m/s for the defaults.
   */
  maxSpeed?: number;
  /**
   * Threads that share the CPU backend's PBF pair loops (neighbour lists, density, XSPH viscosity,
   * vorticity; with `webAssembly` also the coarse projection's per-particle parts), the thread that calls
   * `step()` included: `threads - 1` workers, started at the first step with at least 500 particles and
   * ended by `dispose()` (or when a simulation dropped without it is collected). Integer in [1, 8]. Default:
   * the machine's hardware threads (`navigator.hardwareConcurrency` in a browser, `os.availableParallelism()`
   * in Node), at most 2, on the CPU backend where workers can run (shared memory, and Node's `worker_threads`
   * or a browser's `Worker`); else 1, and 1 on WebGPU (where the loops run on the GPU; after a lost device the
   * simulation goes on on the CPU with one thread).
   *
   * Below 500 particles no worker starts, and with 2 or more the stepping thread runs all 16 partitions
   * itself (the same results as with workers; on a 2-core machine 1.2 to 1.5 times as long as one thread's
   * loops, about 0.1 ms a frame; from 500 to about 1,000 particles up to 1.1 times as long; from 1,000
   * particles two threads are faster).
   *
   * With 2 or more, the particles are cut into 16 fixed partitions whatever the count, so every count from
   * 2 to 8 gives bit-identical results; one thread runs the one-pass loops of earlier versions, whose results
   * differ in the last bits (the same terms summed in another order), which a chaotic flow amplifies over
   * time: a game that needs the same results on every machine and page sets `threads: 1` (a one-core machine
   * defaults to one thread; a page without shared memory runs one whatever is asked). Workers need
   * `SharedArrayBuffer` and, in Node, `process.getBuiltinModule` (Node 20.16 and newer on 20, 22.3 and
   * newer); in a browser only on a cross-origin isolated page (the host sends
   * `Cross-Origin-Opener-Policy: same-origin` and `Cross-Origin-Embedder-Policy: require-corp`). Without
   * shared memory the setting is taken as 1; with shared memory but no way to start a worker (an older Node)
   * the stepping thread runs every partition (the partitions' results). With `webAssembly` the partitions'
   * pair loops, the neighbour search and the coarse projection's per-particle parts run in WebAssembly: on a
   * 2-core machine two threads made a frame 1.33 to 1.45 times as fast at 10k particles and 1.50 to 1.52 times
   * at 50k (docs/performance.md, "Threads"); more than 2 are opt-in (not measured on more cores).
   */
  threads?: number;
  /**
   * Whether the CPU backend runs its heaviest loops in WebAssembly: the neighbour lists (of every solver), PBF's
   * coarse projection's particle scatter and gather and its conjugate gradients, lambda (eq. 9-11), the position corrections (eq. 13-14; with one
   * material whose artificial pressure exponent is 4), and the XSPH viscosity and vorticity confinement loops
   * (eq. 15-17), with the same results bit for bit as the TypeScript loops (the same float64 operations in the
   * same order): a whole frame measured 1.67 to 1.74 times as fast as in TypeScript at 10k and 50k particles (docs/performance.md,
   * "WebAssembly"). The pair loops run in it on one thread and, with `threads` 2 or more, as the partitions'
   * kernels on a shared memory (where shared memory is at hand); the neighbour lists and the projection's
   * transfers and solve with any thread count; where the runtime cannot compile WebAssembly (a page whose
   * Content Security Policy forbids it), the TypeScript loops run. `stats.webAssembly` says whether the last
   * step used it. Default true.
   */
  webAssembly?: boolean;
  /**
   * Backend: `'cpu'`, `'webgpu'` (needs `engine`, a Babylon `WebGPUEngine` that supports compute shaders) or
   * `'auto'` (WebGPU when `engine` is such an engine, else CPU). The choice is reported as `stats.backend`.
   * Default `'cpu'`.
   */
  backend?: FluidBackend | 'auto';
  /** The Babylon engine whose WebGPU device runs the `'webgpu'` backend. Not needed for `'cpu'`. */
  engine?: AbstractEngine;
  /**
   * WebGPU backend only: when the particle components (`Position`, `Velocity`, `Density`, `Particle.age`)
   * are updated from the GPU, always asynchronously, one or a few frames after the step:
   * `'every-frame'` (a readback after every step), `'on-demand'` (only after `readback()`), `'off'`.
   * Removals by drains and lifetimes reach the entity bookkeeping in every mode. Default `'every-frame'`.
   */
  mirror?: MirrorMode;
  /**
   * Which solver replaces the density solve (see {@link FluidSolver}): `'pbf'` Position Based Fluids
   * (Macklin & Müller 2013, density constraints, `iterations` per substep), `'sph'` weakly compressible SPH
   * (Müller et al. 2003, section 3: p = k (rho - rho0), eq. 12; forces eq. 10, 14, 19; adaptive CFL
   * substeps, see {@link FluidSimulationOptions.sph}; both backends), `'mps'` Moving Particle
   * Semi-implicit (Premoze et al. 2003, pressure Poisson equation; both backends, see docs/solvers.md).
   * Default `'pbf'`.
   */
  solver?: FluidSolver;
  /** Options of the WCSPH solver (`solver: 'sph'`); see {@link SphOptions}. Ignored by the other solvers. */
  sph?: SphOptions;
  /**
   * The PBF solver's coarse pressure projection (see {@link ProjectionOptions}); `false` turns it off.
   * On by default, on both backends (projection/cpu.ts and projection/gpu.ts). Ignored by the other solvers.
   */
  projection?: ProjectionOptions | false;
  /**
   * Settings of the MPS solver (`solver: 'mps'`); missing fields take their defaults (see
   * {@link MpsSettings}). Ignored by the other solvers. Live values: {@link FluidSimulation.mpsSettings}.
   */
  mps?: Partial<MpsSettings>;
  /**
   * White water (Ihmsen et al. 2012): spray, foam and bubbles as diffuse particles in their own pool, generated
   * where air is trapped and at wave crests, advected by the fluid, read through
   * {@link FluidSimulation.diffuseParticles}; see {@link DiffuseOptions} and the materials' `diffuse*` fields.
   * Absent or `capacity: 0` (default): off, at no cost. The PBF and WCSPH solvers on both backends; with
   * `solver: 'mps'` a capacity throws {@link FluidError}.
   */
  diffuse?: DiffuseOptions;
}

/**
 * The coarse pressure projection of the PBF solver (projection/cpu.ts; docs/method.md, "How the solver reads the
 * papers"): each substep, before the density constraints, the particles' velocities are made free of
 * divergence on a coarse grid, so that deep water is held up at once (a Jacobi iteration of the
 * constraints reaches only about one kernel radius).
 */
export interface ProjectionOptions {
  /** Relative residual |b - A phi| / |b| at which the conjugate gradient solve stops. Range [1e-8, 0.5]. Default 1e-3. */
  tolerance?: number;
  /** The most conjugate gradient iterations per substep. Integer in [1, 10000]. Default 200. */
  maxIterations?: number;
  /**
   * beta: the fraction of each grid cell's mean density error (particles with a full neighbourhood) that
   * one substep removes, as the divergence beta (rho / rho0 - 1) / dt: it keeps the mean density of
   * deep water at rho0 (without it, what the artificial pressure spreads is never drawn back). Range
   * [0, 1]. Default 0.2.
   */
  densityRelaxation?: number;
  /**
   * True (the still-water mode, the default): the projection solves water at least five cells thick up to its
   * free surface (thinner water, and the water beside a coupled body thinner than a cell, stays with the
   * density constraints), and where it holds the water the single-fluid density constraint's artificial
   * pressure (eq. 13) is offset by its value at the rest spacing, so it pushes apart only particles closer than
   * that (a pair's offset is the mean of its two particles' shares; elsewhere eq. 13 acts as written). A pool
   * at rest is then still (30 particles deep at r = 1 cm: 0.0049 m/s after 4 s, against 0.0115 m/s with
   * false; docs/method.md, "Still-water mode"). False: the two cell layers under a free surface are left to
   * the density constraints and eq. 13 acts as written everywhere (the default until 2026-11-27). Default true.
   */
  freeSurface?: boolean;
}

/** What {@link FluidSimulation.onBackendChanged} listeners receive. */
export interface BackendChange {
  /** The backend that runs the steps from now on. */
  readonly backend: FluidBackend;
  /** Why: `'device-lost'` (the WebGPU device was lost; the CPU continues from the last mirrored state) or `'device-restored'`. */
  readonly reason: 'device-lost' | 'device-restored';
}

/** Fields every collider shares. */
export interface ColliderCommonOptions {
  /** True keeps the fluid inside the shape; false (default) keeps it outside. */
  container?: boolean;
  /** Coulomb friction coefficient. Range [0, 100]. Default 0. */
  friction?: number;
  /** Coefficient of restitution of the normal velocity. Range [0, 1]. Default 0. */
  restitution?: number;
  /**
   * True (default) adds the wall's density contribution to particles within the kernel radius
   * (Harada et al. 2007, wall weight function, eq. 12), so they neither stack against the wall nor stop
   * short of it. False leaves only the collision projection.
   */
  wallWeights?: boolean;
  /**
   * Couples the collider with a rigid body: the impulses the fluid gives it (collisions, wall-weight
   * pressure, contact response; Newton's third law) are accumulated in its `BodyCoupling` component, for
   * {@link FluidSimulation.takeBodyImpulse}. The plugin's `addRigidBody` does this for Havok bodies.
   * Every solver couples on the CPU backend; PBF and WCSPH on the WebGPU backend. Default: not coupled.
   */
  rigidBody?: RigidBodyCouplingOptions;
  /**
   * Temperature of the collider's surface in kelvin (a hot floor, a cold ceiling; Müller et al. 2005,
   * section 4.2). Range [0.001, 1e6]. Default 293.15. Acts only with `heatTransfer` above 0.
   */
  temperature?: number;
  /**
   * Heat-transfer rate k in 1/s: particles within the kernel radius h of the surface (distance d) change
   * their temperature by dT/dt = k (1 - d / h) (temperature - T). Range [0, 1e4]. Default 0 (adiabatic).
   * Both backends with solvers 'pbf' and 'sph' (WebGPU: multifluid/heat.wgsl); the MPS solver throws
   * {@link FluidError} when it is above 0.
   */
  heatTransfer?: number;
}

/** Options of a collider coupled with a rigid body. */
export interface RigidBodyCouplingOptions {
  /** The body's center of mass in the collider's local space (local units): `[x, y, z]` or a `Vector3`. Default [0, 0, 0]. */
  centerOfMass?: Vector3Input;
  /**
   * The body's mass in kg (editable later in `components.BodyCoupling.mass`). Range [0, 1e9]. Default 0:
   * unknown. With a mass, the PBF solver's coarse pressure projection treats the body's cells as a fluid of
   * the body's density, so the water's pressure lifts it as it lifts water (implicit, stable for light
   * bodies); without, it is a moving wall there, whose impulses feed back explicitly: a body much lighter
   * than the water it pushes then oscillates with growing amplitude. The plugin's `addRigidBody` sets it
   * from Havok.
   */
  mass?: number;
}

/** What the fluid gave a coupled collider's body since the last {@link FluidSimulation.takeBodyImpulse}. */
export interface BodyImpulse {
  /** Linear impulse (N s, world space). */
  impulse: [number, number, number];
  /** Angular impulse about the center of mass (N m s, world space). */
  angularImpulse: [number, number, number];
}

/** A box, axis-aligned in the collider's local space. */
export interface BoxColliderOptions extends ColliderCommonOptions {
  /** Shape tag. */
  shape: 'box';
  /** Minimum corner (m, local space): `[x, y, z]` or a `Vector3`. */
  min: Vector3Input;
  /** Maximum corner (m, local space); greater than `min` on every axis. `[x, y, z]` or a `Vector3`. */
  max: Vector3Input;
}

/** A sphere. */
export interface SphereColliderOptions extends ColliderCommonOptions {
  /** Shape tag. */
  shape: 'sphere';
  /** Center (m, local space): `[x, y, z]` or a `Vector3`. */
  center: Vector3Input;
  /** Radius (m), > 0. */
  radius: number;
}

/** A capsule: all points within `radius` of the segment a..b. */
export interface CapsuleColliderOptions extends ColliderCommonOptions {
  /** Shape tag. */
  shape: 'capsule';
  /** First end of the segment (m, local space): `[x, y, z]` or a `Vector3`. */
  a: Vector3Input;
  /** Second end of the segment (m, local space): `[x, y, z]` or a `Vector3`. */
  b: Vector3Input;
  /** Radius (m), > 0. */
  radius: number;
}

/** A plane; the solid is the half-space opposite to the normal (the fluid stays on the normal's side). */
export interface PlaneColliderOptions extends ColliderCommonOptions {
  /** Shape tag. */
  shape: 'plane';
  /** A point on the plane (m, local space): `[x, y, z]` or a `Vector3`. */
  point: Vector3Input;
  /** Normal (local space, normalised here), pointing to the fluid side: `[x, y, z]` or a `Vector3`. */
  normal: Vector3Input;
}

/**
 * A triangle mesh, as a signed distance field baked by {@link bakeSignedDistanceField} in the mesh's own
 * space. The collider's pose (position, rotation, uniform scaling) places it in the world, so moving,
 * rotating and uniformly scaled meshes need no re-baking. As a solid (default) the fluid stays outside the
 * mesh: a glass or a bathtub is a solid whose walls should be at least one particle radius thick and two
 * field cells thick. With `container: true` the fluid stays inside a closed mesh.
 */
export interface MeshColliderOptions extends ColliderCommonOptions {
  /** Shape tag. */
  shape: 'mesh';
  /** The baked field; one field may serve any number of colliders. */
  field: SignedDistanceField;
}

/** Any collider. */
export type ColliderOptions =
  | BoxColliderOptions
  | SphereColliderOptions
  | CapsuleColliderOptions
  | PlaneColliderOptions
  | MeshColliderOptions;

/** A collider pose: where its local space sits in the world. */
export interface ColliderTransform {
  /** Translation (m): `[x, y, z]` or a `Vector3`. Default: unchanged. */
  position?: Vector3Input;
  /**
   * Rotation quaternion (normalised here): `[x, y, z, w]` or a Babylon `Quaternion` (Euler angles are refused).
   * Default: unchanged.
   */
  rotation?: QuaternionInput;
  /**
   * Uniform scaling of the local shape, a number or `[s, s, s]` (or a `Vector3`) with equal components (within
   * 1e-4 relative). Range [1e-6, 1e6]. Default: unchanged (1 at creation). Non-uniform scaling would distort
   * distances: bake the scaled mesh instead.
   */
  scaling?: number | Vector3Input;
  /**
   * True moves the collider without sweeping: it does not push the fluid with a velocity. Default false:
   * the next step moves the collider from its last pose to this one and it pushes fluid on its way.
   */
  teleport?: boolean;
}

/** Options of {@link FluidSimulation.spawnBlock}. */
export interface SpawnBlockOptions {
  /** Minimum corner of the box to fill (m): `[x, y, z]` or a `Vector3`. */
  min: Vector3Input;
  /** Maximum corner (m): `[x, y, z]` or a `Vector3`. */
  max: Vector3Input;
  /** Material entity id returned by `addMaterial`. */
  material: number;
  /** Initial velocity (m/s): `[x, y, z]` or a `Vector3`. Default `[0, 0, 0]`. */
  velocity?: Vector3Input;
  /** Initial `Temperature` of the particles in kelvin. Range [0.001, 1e6]. Default: the material's `initialTemperature`. */
  temperature?: number;
  /**
   * Initial render `Color`: `[red, green, blue]` or a Babylon `Color3` or `Color4` (alpha ignored), each channel
   * in [0, 1]. Default: the material's `color`.
   */
  color?: Color3Input;
}

/** Options of {@link FluidSimulation.addEmitter}: a nozzle that pours particles during the game. */
export interface EmitterOptions {
  /** Material entity id of the emitted particles. */
  material: number;
  /** Nozzle center, world space (m): `[x, y, z]` or a `Vector3`. */
  position: Vector3Input;
  /**
   * Emission direction, world space (normalised here): `[x, y, z]` or a `Vector3`. Default `[0, -1, 0]`
   * (pouring down).
   */
  direction?: Vector3Input;
  /** Nozzle cross-section. Default `'circle'`. */
  shape?: 'circle' | 'square';
  /**
   * Nozzle radius (circle) or half side (square) in metres. Range [1e-6, min(1e4, 2r (sqrt(capacity / pi)
   * + 1))]: a cross-section layer never holds much more than the capacity. Default 2 particle radii.
   */
  radius?: number;
  /**
   * Particles per second. Range [0, 1e9]. Default: the coherent-jet rate `layerCount x speed / 2r`, at
   * which the jet leaves the nozzle as a column at rest density (`layerCount` particles per cross-section).
   */
  rate?: number;
  /** Alternative to `rate`: litres per second; one particle carries (2r)^3 of fluid at rest. */
  litresPerSecond?: number;
  /** Exit speed in m/s. Range [0, 1e4]. Default 2. */
  speed?: number;
  /** Half-angle in radians of the cone the directions are spread over. Range [0, pi]. Default 0. */
  spread?: number;
  /** Seconds each emitted particle lives; 0 (default) lives until drained. Range [0, 1e9]. */
  lifetime?: number;
  /** Default true. */
  enabled?: boolean;
}

/** Where {@link FluidSimulation.setEmitterTransform} moves an emitter; a field left out stays as it is. */
export interface EmitterTransform {
  /** Nozzle center, world space (m): `[x, y, z]` or a `Vector3`. Default: unchanged. */
  position?: Vector3Input;
  /** Emission direction, world space (normalised here): `[x, y, z]` or a `Vector3`. Default: unchanged. */
  direction?: Vector3Input;
}

/** Options of {@link FluidSimulation.addDrain}: a region that removes every particle that enters it. */
export type DrainOptions =
  | {
      /** Shape tag. */
      shape?: 'box';
      /** Minimum corner, world space (m): `[x, y, z]` or a `Vector3`. */
      min: Vector3Input;
      /** Maximum corner, world space (m): `[x, y, z]` or a `Vector3`. */
      max: Vector3Input;
      /** Default true. */
      enabled?: boolean;
    }
  | {
      /** Shape tag. */
      shape: 'sphere';
      /** Center, world space (m): `[x, y, z]` or a `Vector3`. */
      center: Vector3Input;
      /** Radius (m), > 0. */
      radius: number;
      /** Default true. */
      enabled?: boolean;
    };

/** Options of {@link FluidSimulation.spawn}: a volume filled with particles on the rest lattice. */
export type SpawnOptions =
  | (SpawnBlockOptions & {
      /** Shape tag. */
      shape: 'box';
    })
  | {
      /** Shape tag. */
      shape: 'sphere';
      /** Center (m): `[x, y, z]` or a `Vector3`. */
      center: Vector3Input;
      /** Radius (m), at least one particle radius. */
      radius: number;
      /** Material entity id. */
      material: number;
      /** Initial velocity (m/s): `[x, y, z]` or a `Vector3`. Default `[0, 0, 0]`. */
      velocity?: Vector3Input;
    }
  | {
      /** Shape tag: the inside of a baked mesh (field distance below -r). */
      shape: 'mesh';
      /** The mesh's signed distance field. */
      field: SignedDistanceField;
      /** Where the mesh's space sits in the world: translation (m), `[x, y, z]` or a `Vector3`. Default `[0, 0, 0]`. */
      position?: Vector3Input;
      /** Rotation quaternion: `[x, y, z, w]` or a Babylon `Quaternion`. Default identity. */
      rotation?: QuaternionInput;
      /** Uniform scaling: a number, or `[s, s, s]` or a `Vector3` with equal components. Default 1. */
      scaling?: number | Vector3Input;
      /** Material entity id. */
      material: number;
      /** Initial velocity (m/s): `[x, y, z]` or a `Vector3`. Default `[0, 0, 0]`. */
      velocity?: Vector3Input;
    };

/** The names of {@link FluidSimulationOptions}, checked at run time (`checkKnownKeys`). */
export const SIMULATION_OPTION_NAMES = optionNames<FluidSimulationOptions>()(
  'particleRadius',
  'kernelRadius',
  'capacity',
  'maxMaterials',
  'maxColliders',
  'maxEmitters',
  'gravity',
  'timeStep',
  'substeps',
  'iterations',
  'maxSpeed',
  'threads',
  'webAssembly',
  'backend',
  'engine',
  'mirror',
  'solver',
  'sph',
  'projection',
  'mps',
  'diffuse',
);

/** The names of {@link ProjectionOptions}. */
export const PROJECTION_OPTION_NAMES = optionNames<ProjectionOptions>()(
  'tolerance',
  'maxIterations',
  'densityRelaxation',
  'freeSurface',
);

/** The options every collider shape has ({@link ColliderCommonOptions}; checked complete below). */
const COLLIDER_COMMON = [
  'container',
  'friction',
  'restitution',
  'wallWeights',
  'rigidBody',
  'temperature',
  'heatTransfer',
] as const;

/** The names of {@link ColliderCommonOptions}. */
export const COLLIDER_COMMON_NAMES = optionNames<ColliderCommonOptions>()(...COLLIDER_COMMON);

/** The names of each collider shape's options (`addCollider`), by shape. */
export const COLLIDER_OPTION_NAMES: Readonly<Record<ColliderOptions['shape'], readonly string[]>> = {
  box: optionNames<BoxColliderOptions>()(...COLLIDER_COMMON, 'shape', 'min', 'max'),
  sphere: optionNames<SphereColliderOptions>()(...COLLIDER_COMMON, 'shape', 'center', 'radius'),
  capsule: optionNames<CapsuleColliderOptions>()(...COLLIDER_COMMON, 'shape', 'a', 'b', 'radius'),
  plane: optionNames<PlaneColliderOptions>()(...COLLIDER_COMMON, 'shape', 'point', 'normal'),
  mesh: optionNames<MeshColliderOptions>()(...COLLIDER_COMMON, 'shape', 'field'),
};

/** The names of {@link RigidBodyCouplingOptions}. */
export const RIGID_BODY_OPTION_NAMES = optionNames<RigidBodyCouplingOptions>()('centerOfMass', 'mass');

/** The names of {@link ColliderTransform}. */
export const COLLIDER_TRANSFORM_NAMES = optionNames<ColliderTransform>()('position', 'rotation', 'scaling', 'teleport');

/** The names of {@link SpawnBlockOptions}. */
export const SPAWN_BLOCK_OPTION_NAMES = optionNames<SpawnBlockOptions>()(
  'min',
  'max',
  'material',
  'velocity',
  'temperature',
  'color',
);

/** The names of {@link EmitterOptions}. */
export const EMITTER_OPTION_NAMES = optionNames<EmitterOptions>()(
  'material',
  'position',
  'direction',
  'shape',
  'radius',
  'rate',
  'litresPerSecond',
  'speed',
  'spread',
  'lifetime',
  'enabled',
);

/** The names of each drain shape's options ({@link DrainOptions}), by shape. */
export const DRAIN_OPTION_NAMES = {
  /** A box drain's options. */
  box: optionNames<Extract<DrainOptions, { min: Vector3Input }>>()('shape', 'min', 'max', 'enabled'),
  /** A sphere drain's options. */
  sphere: optionNames<Extract<DrainOptions, { shape: 'sphere' }>>()('shape', 'center', 'radius', 'enabled'),
} as const;

/** The names of each spawn shape's options ({@link SpawnOptions}), by shape. */
export const SPAWN_OPTION_NAMES = {
  /** A box's options. */
  box: optionNames<Extract<SpawnOptions, { shape: 'box' }>>()(
    'shape',
    'min',
    'max',
    'material',
    'velocity',
    'temperature',
    'color',
  ),
  /** A sphere's options. */
  sphere: optionNames<Extract<SpawnOptions, { shape: 'sphere' }>>()(
    'shape',
    'center',
    'radius',
    'material',
    'velocity',
  ),
  /** A baked mesh's options. */
  mesh: optionNames<Extract<SpawnOptions, { shape: 'mesh' }>>()(
    'shape',
    'field',
    'position',
    'rotation',
    'scaling',
    'material',
    'velocity',
  ),
} as const;

/** The names of {@link EmitterTransform} (`setEmitterTransform`'s transform). */
export const EMITTER_TRANSFORM_NAMES = optionNames<EmitterTransform>()('position', 'direction');
