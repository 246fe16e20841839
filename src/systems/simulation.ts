/**
 * The headless simulation: owns the bitecs world, the component stores and the ordered system list, and
 * offers the calls game code and tests use to drive it without Babylon rendering.
 */
import type { AbstractEngine } from '@babylonjs/core/Engines/abstractEngine.js';
import type { WebGPUEngine } from '@babylonjs/core/Engines/webgpuEngine.js';
import { addComponent, createEntityIndex, createWorld, type World } from 'bitecs';
import {
  createFluidComponents,
  type FluidBackend,
  type FluidComponents,
  type FluidSettings,
  type FluidSolver,
  type Vector3Store,
} from '../components';
import { checkInteger, checkKnownKeys, checkNumber } from '../core/checks';
import { FluidCapacityError, FluidError } from '../core/errors';
import { checkChoice, checkOption, MIRROR_MODES, SIMULATION_OPTIONS } from '../core/schema';
import { countParticlesInside } from './collide/cpu';
import {
  addColliderEntity,
  isColliderEntity,
  removeColliderEntity,
  setColliderPose,
  takeBodyImpulse,
} from './collide/entities';
import { createSimulationContext, type FluidStats, type SimulationContext } from './context';
import type { DiffuseParticles } from './diffuse/state';
import { computeEllipsoids, createEllipsoidScratch } from './ellipsoids/cpu';
import { type AnisotropyOptions, ELLIPSOID_FLOATS, resolveAnisotropy, sameAnisotropy } from './ellipsoids/settings';
import {
  addDrainEntity,
  addEmitterEntity,
  isDrainEntity,
  isEmitterEntity,
  removeDrainEntity,
  removeEmitterEntity,
  setEmitterPose,
} from './emit/entities';
import { destroyParticle } from './entities';
import { createEntity, type EntityIndex } from './entityIds';
import { WebGpuSolver } from './gpu/backend';
import { applyReadback, type GpuContext } from './gpu/systems';
import {
  type FluidMaterialOptions,
  isMaterialEntity,
  registerMaterial,
  resolveMaterial,
  unsupportedMultiFluidOptions,
  writeMaterial,
} from './material';
import { checkMpsSettings, type MpsSettings } from './mps/settings';
import { configureMps, mpsState } from './mps/state';
import type {
  BackendChange,
  BodyImpulse,
  ColliderOptions,
  ColliderTransform,
  DrainOptions,
  EmitterOptions,
  EmitterTransform,
  FluidSimulationOptions,
  MirrorMode,
  SpawnBlockOptions,
  SpawnOptions,
} from './options';
import { cpuSystems, runStep, systemsFor } from './pipeline';
import type { SignedDistanceField } from './sdf/field';
import { resolveSimulationOptions } from './settings';
import { applySnapshot, checkSnapshotFits, snapshotCapacity, snapshotSimulationOptions } from './snapshot/apply';
import { checkSnapshotContent } from './snapshot/content';
import { type DecodedSnapshot, FROM_SNAPSHOT_OPTION_NAMES, type FromSnapshotOptions } from './snapshot/format';
import { readSnapshot } from './snapshot/read';
import { writeSnapshot } from './snapshot/write';
import { spawnBlock as spawnBlockIn, spawnShape } from './spawn';
import type { FluidSystem } from './system';
import { checkComponents, checkLiveSettings } from './validate';

/**
 * A Position Based Fluids simulation (Macklin & Müller 2013) whose particles are bitecs entities.
 *
 * ```ts
 * const simulation = new FluidSimulation({ particleRadius: 0.025 });
 * const water = simulation.addMaterial({});
 * simulation.addCollider({ shape: 'box', min: [0, 0, 0], max: [1, 1, 1], container: true });
 * simulation.spawnBlock({ min: [0, 0, 0], max: [0.5, 0.5, 1], material: water });
 * simulation.step();
 * const { Position } = simulation;
 * ```
 */
export class FluidSimulation {
  /** The resolved settings. `gravity`, `timeStep`, `substeps` and `iterations` may be edited between steps. */
  readonly settings: FluidSettings;
  /** The bitecs world; `world.components` holds the stores. */
  readonly world: World<{
    /** The same stores as {@link FluidSimulation.components}. */
    components: FluidComponents;
  }>;
  /** All component stores, indexed by entity id. */
  readonly components: FluidComponents;
  private readonly context: SimulationContext;
  private systems: readonly FluidSystem[];
  private readonly entityCapacity: number;
  /** The entity index the world was created with: which ids are alive and which are freed (entityIds.ts). */
  private readonly entityIndex: EntityIndex = createEntityIndex();
  private readonly engine: AbstractEngine | undefined;
  private gpuContext: GpuContext | undefined;
  private mirrorMode: MirrorMode = 'every-frame';
  /** `settings.sphMaxSubsteps` at creation: fixed (the WebGPU backend sizes its pose buffer with it). */
  private readonly sphMaxSubsteps: number;
  /** MPS on the WebGPU backend: the most substeps a step may have (collider poses' room, gpu/buffers.ts). */
  private readonly mpsSubstepRoom: number;
  private readonly observers: { remove(): void }[] = [];
  /**
   * Listeners told when the backend changes while running (a lost WebGPU device falls back to the CPU,
   * a restored one takes over again). Add and delete functions; they are called synchronously.
   */
  readonly onBackendChanged = new Set<(change: BackendChange) => void>();

  /** Creates a simulation; throws {@link FluidError} naming any invalid option and its allowed range. */
  constructor(options: FluidSimulationOptions = {}) {
    const { settings, mpsSettings, mirror, engine } = resolveSimulationOptions(options);
    this.mirrorMode = mirror;
    this.engine = engine;
    this.settings = settings;
    const { capacity, maxMaterials, maxColliders, maxEmitters, solver, backend } = settings;
    this.sphMaxSubsteps = settings.sphMaxSubsteps;
    // Entity ids start at 1 and are reused only once every id below this bound was handed out (entityIds.ts).
    this.entityCapacity = capacity + maxMaterials + maxColliders + maxEmitters + 1;
    this.components = createFluidComponents(this.entityCapacity);
    this.world = createWorld<{ components: FluidComponents }>(this.entityIndex, { components: this.components });
    this.context = createSimulationContext(
      this.settings,
      this.world,
      this.components,
      this.entityCapacity,
      this.entityIndex,
    );
    if (mpsSettings) configureMps(this.context, mpsSettings);
    this.mpsSubstepRoom = Math.max(32, mpsSettings?.maxSubsteps ?? 0);
    this.systems = cpuSystems;
    this.useSystems(systemsFor('cpu', solver), 'cpu');
    if (backend === 'webgpu') {
      this.startGpu();
      const gpuEngine = engine as WebGPUEngine;
      this.observers.push(
        gpuEngine.onContextLostObservable.add(() => this.deviceLost()),
        gpuEngine.onContextRestoredObservable.add(() => this.deviceRestored()),
      );
    }
  }

  /** Creates the GPU solver and makes it run the steps; every live particle is uploaded at the next step. */
  private startGpu(): void {
    const solver = new WebGpuSolver(this.engine as WebGPUEngine, this.context);
    this.gpuContext = {
      solver,
      mirror: this.mirrorMode,
      particlesRequested: false,
      inFlight: new Set(),
      gpuCount: 0,
      removedSinceStep: 0,
      nonFinite: false,
      projectionIterations: 0,
      pressureSolveIterations: 0,
      pressureSolveResidual: 0,
      mpsLimitReported: false,
      onReadbackError: () => {
        // A readback fails only when the device is lost; the context-lost handler switches backend.
      },
    };
    this.context.gpu = this.gpuContext;
    solver.resetParticles();
    this.useSystems(systemsFor('webgpu', this.settings.solver, this.gpuContext), 'webgpu');
  }

  /** Makes `systems` the step's list and resets the per-system timings to its names. */
  private useSystems(systems: readonly FluidSystem[], backend: FluidBackend): void {
    this.systems = systems;
    this.context.stats.backend = backend;
    const times = this.context.stats.systemMilliseconds;
    for (const name in times) delete times[name];
    for (const system of systems) times[system.name] = 0;
  }

  private stopGpu(): void {
    this.gpuContext?.solver.dispose();
    this.gpuContext = undefined;
    this.context.gpu = undefined;
    this.useSystems(systemsFor('cpu', this.settings.solver), 'cpu');
  }

  private notify(change: BackendChange): void {
    for (const listener of this.onBackendChanged) listener(change);
  }

  /** The WebGPU device was lost: the CPU backend continues from the components (the last mirrored state). */
  private deviceLost(): void {
    if (!this.gpuContext) return;
    this.stopGpu();
    this.notify({ backend: 'cpu', reason: 'device-lost' });
  }

  /** The engine has a new device: the WebGPU backend takes over again from the components. */
  private deviceRestored(): void {
    if (this.gpuContext || this.settings.backend !== 'webgpu' || this.disposed) return;
    this.startGpu();
    this.notify({ backend: 'webgpu', reason: 'device-restored' });
  }

  private disposed = false;

  /** The backend running the steps now: `settings.backend`, or `'cpu'` after a lost WebGPU device. */
  get backend(): FluidBackend {
    return this.gpuContext ? 'webgpu' : 'cpu';
  }

  /**
   * The MPS solver's settings (see {@link MpsSettings}), live: edits apply from the next step, which
   * checks them before it changes anything (a value out of range throws {@link FluidError} naming it and
   * its range, and the step changes nothing). Undefined unless `solver` is `'mps'`.
   */
  get mpsSettings(): MpsSettings | undefined {
    return this.settings.solver === 'mps' ? mpsState(this.context).settings : undefined;
  }

  /**
   * White water's diffuse particles (spray, foam and bubbles; see {@link DiffuseParticles} and
   * {@link FluidSimulationOptions.diffuse}): positions, velocities, kinds, ages and lifetimes of the live ones
   * at places `0 .. count - 1`, as of the last step (on the WebGPU backend: of the last particle readback).
   * Read-only for game code. Empty (capacity 0) when white water is off.
   */
  get diffuseParticles(): DiffuseParticles {
    return this.context.diffuse.particles;
  }

  /** The solver chosen at creation (see {@link FluidSimulationOptions.solver}); read-only. */
  get solver(): FluidSolver {
    return this.settings.solver;
  }

  /** True when `step()` may be called (the WebGPU backend's shaders have compiled; always on the CPU). */
  get isReady(): boolean {
    return this.gpuContext ? this.gpuContext.solver.isReady() : true;
  }

  /**
   * True while a WebGPU readback is in flight, so the components, the removals and the coupled bodies'
   * impulses of the last step have not all arrived yet. Always false on the CPU backend.
   */
  get readbackInFlight(): boolean {
    return this.gpuContext !== undefined && this.gpuContext.inFlight.size > 0;
  }

  /**
   * Resolves when `step()` may be called (see {@link FluidSimulation.isReady}), and the CPU backend's
   * WebAssembly passes are compiled or known to be unavailable (see {@link FluidSimulationOptions.webAssembly};
   * steps before that run the TypeScript loops, with the same results).
   */
  async ready(): Promise<void> {
    await this.context.cpuKernels.compiled;
    await this.gpuContext?.solver.whenReady();
  }

  /**
   * WebGPU backend: the mirror mode (see {@link FluidSimulationOptions.mirror}); may be changed at any time.
   * On the CPU backend the components are always current after a step.
   */
  get mirror(): MirrorMode {
    return this.mirrorMode;
  }

  /** Sets the mirror mode; an unknown mode throws `FluidError`. */
  set mirror(mode: MirrorMode) {
    this.mirrorMode = checkChoice('mirror', MIRROR_MODES, mode);
    if (this.gpuContext) this.gpuContext.mirror = mode;
  }

  /**
   * WebGPU backend: reads the particles back from the GPU now and writes them to the components; resolves
   * when they are there (after any readback already in flight). Resolves at once on the CPU backend.
   */
  async readback(): Promise<void> {
    const gpu = this.gpuContext;
    if (!gpu) return;
    await Promise.all([...gpu.inFlight]);
    let result = await gpu.solver.readback(true);
    while (result === undefined) {
      await Promise.all([...gpu.inFlight]);
      result = await gpu.solver.readback(true);
    }
    applyReadback(this.context, gpu, result);
  }

  /**
   * Tells the simulation that game code changed these particles' components (`Position`, `Velocity`,
   * `Particle.material`, `Temperature`, `Color`): on the WebGPU backend the next step uploads exactly these (the components are
   * otherwise only written by the readback). On the CPU backend the step reads every component anyway.
   * Throws {@link FluidError} for an id that is not a live particle.
   */
  markParticlesChanged(ids: number | ArrayLike<number>): void {
    if (typeof ids !== 'number' && !Array.isArray(ids) && !ArrayBuffer.isView(ids)) {
      throw new FluidError(`markParticlesChanged: ids is ${String(ids)}; it must be an entity id or an array of them`);
    }
    const list = typeof ids === 'number' ? [ids] : ids;
    for (let k = 0; k < list.length; k++) {
      if (!this.isParticle(list[k])) {
        throw new FluidError(`markParticlesChanged: ${String(list[k])} is not a live particle entity`);
      }
    }
    const gpu = this.gpuContext;
    if (!gpu) return;
    for (let k = 0; k < list.length; k++) gpu.solver.queueEdit(list[k]);
  }

  /**
   * @internal The context every system works on, for the backend parity tests; not part of the public API.
   */
  get internalContext(): SimulationContext {
    return this.context;
  }

  /**
   * Writes, for the first `count` particle entity ids of `ids`, the ellipsoid the screen-space water draws
   * each as (Yu and Turk 2013; see {@link AnisotropyOptions} and docs/rendering.md, "Anisotropic particles"):
   * `ELLIPSOID_FLOATS` (12) floats per particle into `target`, in the order of `ids`: the drawn centre c (x, y,
   * z) in metres and the particle's material slot (its index in `materials()`), then the symmetric shape matrix M as (Mxx, Mxy, Mxz, Myy), (Myz, Mzz, 0, 0) in m^2; the
   * ellipsoid is the points x with (x - c)^T M^-1 (x - c) <= 1. An interior particle is the sphere of radius
   * `radius` (m); one at a free surface is flattened along its normal, one in a thin stream drawn as a rope along
   * it, none wider than that sphere, and each is stretched along its velocity by `anisotropy.motionStretch`.
   * Computed from the last step's neighbour lists and final positions: a particle created, moved by game code
   * or swapped into a destroyed one's place since is the sphere at its `Position`. CPU backend only: on the
   * WebGPU backend the plugin computes them on the GPU (a {@link FluidError} here). Allocates nothing once warm.
   */
  writeEllipsoids(
    target: Float32Array,
    ids: Uint32Array,
    count: number,
    radius: number,
    anisotropy?: AnisotropyOptions,
  ): void {
    if (this.gpuContext !== undefined) {
      throw new FluidError('writeEllipsoids runs on the CPU backend; on WebGPU the plugin computes them on the GPU');
    }
    checkInteger('writeEllipsoids: count', count, 0, ids.length);
    if (target.length < ELLIPSOID_FLOATS * count) {
      throw new FluidError(
        `writeEllipsoids: target has length ${target.length}; ${count} particles need ${ELLIPSOID_FLOATS * count}`,
      );
    }
    checkNumber('writeEllipsoids: radius', radius, Number.MIN_VALUE, 1e6);
    const options = this.ellipsoidOptions;
    // Checked again only when the options object or one of its values changed (a render loop passes the same).
    if (anisotropy !== this.ellipsoidSource || !sameAnisotropy(anisotropy, options)) {
      resolveAnisotropy(anisotropy, 'writeEllipsoids: anisotropy', options);
      this.ellipsoidSource = anisotropy;
    }
    computeEllipsoids(this.context, options, radius, ids, count, target, this.ellipsoidScratch);
  }

  /** The scratch arrays and resolved options of `writeEllipsoids` (made once). */
  private readonly ellipsoidScratch = createEllipsoidScratch();
  private readonly ellipsoidOptions = resolveAnisotropy(undefined);
  private ellipsoidSource: AnisotropyOptions | undefined;

  /** The WebGPU solver while it runs the steps (rendering binds its position buffer); undefined on the CPU. */
  get gpuSolver(): WebGpuSolver | undefined {
    return this.gpuContext?.solver;
  }

  /**
   * Frees the GPU objects of the WebGPU backend, ends the worker threads (`threads`) and stops listening to
   * the engine. The CPU state stays; later steps run on one thread.
   */
  dispose(): void {
    this.disposed = true;
    this.context.threads.dispose();
    for (const observer of this.observers) observer.remove();
    this.observers.length = 0;
    if (this.gpuContext) this.stopGpu();
  }

  /** Particle positions in metres, `Position.x[eid]`; current after each step. */
  get Position(): Vector3Store {
    return this.components.Position;
  }

  /** Particle velocities in m/s, `Velocity.x[eid]`; current after each step. */
  get Velocity(): Vector3Store {
    return this.components.Velocity;
  }

  /** Particle densities in kg/m^3 (walls included) of the last step, `Density[eid]`. */
  get Density(): Float64Array {
    return this.components.Density;
  }

  /** Figures of the last step (read-only view; updated in place by each step). */
  get stats(): Readonly<FluidStats> {
    return this.context.stats;
  }

  /** Number of live particles. */
  get particleCount(): number {
    return this.context.solver.count;
  }

  /**
   * The live particle entity ids in the solver's spatial order: a new array, or, when `into` is given and
   * long enough (at least `particleCount`), written into it and returned as a view of its first
   * `particleCount` entries, so a render loop can reuse one buffer every frame.
   */
  particles(into?: Uint32Array): Uint32Array {
    const { entity, count } = this.context.solver;
    if (into === undefined) return entity.slice(0, count);
    if (!(into instanceof Uint32Array)) {
      throw new FluidError(`particles(into): into is ${String(into)}; it must be a Uint32Array`);
    }
    if (into.length < count) {
      throw new FluidError(`particles(into): into has length ${into.length}; it needs at least ${count}`);
    }
    into.set(entity.subarray(0, count));
    return into.subarray(0, count);
  }

  private newEntity(): number {
    return createEntity(this.context);
  }

  /** What `id` is, for a message about an id of the wrong kind ("a collider", "no live entity"). */
  private describeEntity(id: number): string {
    if (this.isParticle(id)) return 'a particle';
    if (this.isMaterial(id)) return 'a material';
    if (this.isCollider(id)) return 'a collider';
    if (this.isEmitter(id)) return 'an emitter';
    if (this.isDrain(id)) return 'a drain';
    return 'no live entity of this simulation';
  }

  /** Adds a fluid material entity and returns its id. Invalid options throw {@link FluidError}. */
  addMaterial(options: FluidMaterialOptions = {}): number {
    if (typeof options !== 'object' || options === null) throw new FluidError('addMaterial options must be an object');
    const table = this.context.materials;
    if (table.count >= this.settings.maxMaterials) {
      throw new FluidCapacityError(`maxMaterials (${this.settings.maxMaterials}) reached; cannot add a material`);
    }
    const resolved = resolveMaterial(options, this.context.lattice.kernelSum);
    const unsupported = unsupportedMultiFluidOptions(resolved);
    if (unsupported.length > 0 && this.settings.solver === 'mps') {
      throw new FluidError(
        `${unsupported.join(', ')} ${unsupported.length > 1 ? 'are' : 'is'} implemented for solvers 'pbf' and 'sph' only (this simulation uses 'mps'); leave ${unsupported.length > 1 ? 'them' : 'it'} 0`,
      );
    }
    // The air material must exist already (a material cannot name itself: it has no id yet).
    const air = resolved.airMaterial;
    if (air !== -1 && !this.isMaterial(air)) {
      throw new FluidError(
        `airMaterial is ${air}; it must be -1 (none) or the entity id addMaterial returned for another material (${air} is ${this.describeEntity(air)})`,
      );
    }
    const eid = this.newEntity();
    addComponent(this.world, eid, this.components.FluidMaterial);
    writeMaterial(this.components.FluidMaterial, eid, resolved);
    registerMaterial(table, eid);
    return eid;
  }

  /** How many materials the simulation has (the length of `materials()`, without making the array). */
  get materialCount(): number {
    return this.context.materials.count;
  }

  /** The live material entity ids, in the order they were added (a new array). */
  materials(): Uint32Array {
    const table = this.context.materials;
    return table.entity.slice(0, table.count);
  }

  /** The live collider entity ids, in the order they were added (a new array). */
  colliders(): Uint32Array {
    const table = this.context.colliders;
    return table.entity.slice(0, table.count);
  }

  /** The live emitter entity ids, in the order they were added (a new array). */
  emitters(): Uint32Array {
    return Uint32Array.from(this.context.events.emitters);
  }

  /** The live drain entity ids, in the order they were added (a new array). */
  drains(): Uint32Array {
    return Uint32Array.from(this.context.events.drains);
  }

  /** True if `id` is a live material entity of this simulation. */
  isMaterial(id: number): boolean {
    return isMaterialEntity(this.context.materials, id);
  }

  /** True if `id` is a live particle entity of this simulation. */
  isParticle(id: number): boolean {
    return Number.isInteger(id) && id > 0 && id < this.entityCapacity && this.context.solver.placeOfEntity[id] >= 0;
  }

  /** True if `id` is a live collider entity of this simulation. */
  isCollider(id: number): boolean {
    return isColliderEntity(this.context, id);
  }

  /**
   * Fills the box [min, max] with particles on a cubic lattice of spacing 2r, centered in the box, and
   * returns their entity ids. With the WCSPH solver a block that rests on a collider is squeezed along
   * gravity into its hydrostatic rest state (density rho0 exp(g d / c_s^2) at depth d; docs/solvers.md, "WCSPH").
   * Throws {@link FluidCapacityError} (spawning nothing) if the particles would exceed the capacity, and
   * {@link FluidError} for an invalid box or material.
   */
  spawnBlock(options: SpawnBlockOptions): Uint32Array {
    return spawnBlockIn(this.context, options);
  }

  /** Removes a particle entity. Throws {@link FluidError} if `id` is not a live particle. */
  removeParticle(id: number): void {
    if (!this.isParticle(id)) throw new FluidError(`removeParticle: ${String(id)} is not a live particle entity`);
    const gpu = this.gpuContext;
    // On the GPU the particle leaves with the next step; its id stays taken until the readback says so.
    if (gpu && !gpu.solver.cancelAppend(id)) gpu.solver.queueRemove(id);
    else destroyParticle(this.context, id);
  }

  /**
   * Adds an analytic collider entity and returns its id. Its shape is given in local space; its pose
   * starts at the identity and is changed with {@link FluidSimulation.setColliderTransform}.
   */
  addCollider(options: ColliderOptions): number {
    return addColliderEntity(this.context, options);
  }

  /**
   * Signed distance fields of the mesh colliders; `components.Collider.field[eid]` indexes this list (a
   * place is `undefined` once no collider uses its field).
   */
  get fields(): readonly (SignedDistanceField | undefined)[] {
    return this.context.colliders.fields;
  }

  /**
   * Sets a collider's pose for the end of the next step. The step moves it there from its last pose, so
   * it pushes the fluid with its own velocity, unless `teleport` is true.
   */
  setColliderTransform(id: number, transform: ColliderTransform): void {
    setColliderPose(this.context, id, transform);
  }

  /**
   * The impulses the fluid gave collider `id`'s rigid body since the last call (the `BodyCoupling`
   * accumulators), and clears them: apply them to the body once per physics step. On the WebGPU backend
   * they arrive with the step's readback, one frame or two after the step that produced them (every
   * step's impulses exactly once: a step whose readback was skipped is read with a later one). Throws
   * {@link FluidError} if `id` is not a collider coupled with `rigidBody`.
   */
  takeBodyImpulse(id: number, out?: BodyImpulse): BodyImpulse {
    return takeBodyImpulse(this.context, id, out);
  }

  /**
   * Number of particles whose center lies inside collider `id`'s solid (for a container: outside it) in
   * its current pose, from the particle components (on the WebGPU backend, as last mirrored). Throws
   * {@link FluidError} if `id` is not a collider.
   */
  particlesInsideCollider(id: number): number {
    if (!this.isCollider(id)) throw new FluidError(`particlesInsideCollider: ${String(id)} is not a collider entity`);
    return countParticlesInside(this.context, id, this.particles());
  }

  /** Removes a collider entity. */
  removeCollider(id: number): void {
    removeColliderEntity(this.context, id);
  }

  /** True if `id` is a live emitter entity of this simulation. */
  isEmitter(id: number): boolean {
    return isEmitterEntity(this.context, id);
  }

  /** True if `id` is a live drain entity of this simulation. */
  isDrain(id: number): boolean {
    return isDrainEntity(this.context, id);
  }

  /**
   * Adds a nozzle emitter entity and returns its id. Each step emits whole cross-section layers at the rate;
   * game code enables, moves and retunes it by editing `components.Emitter` (or `setEmitterTransform`).
   * At the capacity it stops and sets `Emitter.blocked` and `stats.emitterBlocked`; it never throws then.
   */
  addEmitter(options: EmitterOptions): number {
    return addEmitterEntity(this.context, options);
  }

  /** Moves an emitter: nozzle center and/or direction (world space; the direction is normalised). */
  setEmitterTransform(id: number, transform: EmitterTransform): void {
    setEmitterPose(this.context, id, transform);
  }

  /** Removes an emitter entity (its particles stay). */
  removeEmitter(id: number): void {
    removeEmitterEntity(this.context, id);
  }

  /** Adds a drain entity (a box or a sphere, world space) that removes every particle inside it each step. */
  addDrain(options: DrainOptions): number {
    return addDrainEntity(this.context, options);
  }

  /** Removes a drain entity. */
  removeDrain(id: number): void {
    removeDrainEntity(this.context, id);
  }

  /** Ids of the particles the emitters added in the last step (a view, valid until the next step). */
  lastEmitted(): Uint32Array {
    return this.context.events.emitted.subarray(0, this.context.stats.emittedCount);
  }

  /**
   * Ids of the particles drains and lifetimes removed in the last step (a view, valid until the next step).
   * On the WebGPU backend, removals are found on the GPU and reach the CPU with the readbacks: this lists
   * those that arrived between the previous step and this one, each id once (`Drain.removedCount` is not
   * counted there).
   */
  lastRemoved(): Uint32Array {
    return this.context.events.removed.subarray(0, this.context.stats.removedCount);
  }

  /**
   * Fills a box, a sphere or the inside of a baked mesh with particles on the rest lattice (spacing 2r)
   * and returns their ids (a burst or volume emitter). A mesh keeps the lattice points whose distance
   * inside the mesh is at least one particle radius. Throws {@link FluidCapacityError} (spawning nothing)
   * if the particles would exceed the capacity, and {@link FluidError} if the volume's bounding box spans
   * more than 1e8 lattice points (it is refused rather than searched for seconds). With the WCSPH solver a
   * volume that rests on a collider starts in its hydrostatic rest state, as in {@link spawnBlock}.
   */
  spawn(options: SpawnOptions): Uint32Array {
    return spawnShape(this.context, options);
  }

  /**
   * Advances the simulation by `timeStep` seconds (default `settings.timeStep`), in `settings.substeps`
   * substeps. Throws {@link FluidError} on invalid input or state: a `timeStep` outside [0.000001, 0.1]
   * seconds (0, a negative or a 10 s step is refused, never clamped: the plugin splits long frames), or a
   * value game code wrote into a component (a NaN position, a material id that is no material, a negative
   * viscosity, a lifetime outside [0, 1e9] s, a collider with a zero radius) or into the solver's settings
   * (`settings`, {@link FluidSimulation.mpsSettings}). Everything game code may edit is
   * checked before the step changes anything, so then nothing changed: no particle was emitted, aged or
   * drained. Only if the solve itself produces a non-finite value is the step discarded after emitting and
   * draining; the other particles keep their previous values.
   */
  step(timeStep?: number): void {
    // An argument is named `timeStep`; an edited `settings.timeStep` is checked with the settings.
    if (timeStep !== undefined) checkOption('timeStep', SIMULATION_OPTIONS.timeStep, timeStep);
    checkLiveSettings(this.settings, 'settings.');
    if (this.settings.solver === 'sph') {
      if (this.settings.sphMaxSubsteps !== this.sphMaxSubsteps) {
        throw new FluidError(
          `settings.sphMaxSubsteps is ${this.settings.sphMaxSubsteps}; it is fixed at creation, the only allowed value is ${this.sphMaxSubsteps} (create the simulation with sph.maxSubsteps instead)`,
        );
      }
    }
    if (this.settings.solver === 'mps') {
      const mps = mpsState(this.context).settings;
      checkMpsSettings(mps);
      // The WebGPU backend keeps collider poses for the substeps it had room for at creation (gpu/buffers.ts).
      if (this.gpuContext !== undefined && mps.maxSubsteps > this.mpsSubstepRoom) {
        throw new FluidError(
          `mpsSettings.maxSubsteps is ${mps.maxSubsteps}; on the WebGPU backend it may be at most ${this.mpsSubstepRoom} (the larger of 32 and its value at creation; create the simulation with mps.maxSubsteps instead)`,
        );
      }
    }
    // The WebGPU backend checks the particles game code marked when it uploads them.
    checkComponents(this.context, this.gpuContext === undefined);
    runStep(this.context, this.systems, timeStep ?? this.settings.timeStep);
  }

  /**
   * Save: the whole state as a compact, versioned binary snapshot (see snapshot/format.ts): every live entity
   * with its id and every component value, materials, colliders (poses and previous poses, and the mesh
   * colliders' signed distance fields in full), emitters (with their owed fraction of a layer) and drains,
   * the settings, and what the solver carries from step to step (the particles' order in its arrays, the
   * random generator, the order in which freed ids are reused). About 125 bytes per particle plus 16 bytes
   * per field node. On the WebGPU backend it holds the components as last read back: `await readback()`
   * first (the plugin's `snapshot()` does); a particle removed by `removeParticle` since the last step is
   * still in it.
   */
  snapshot(): Uint8Array {
    return writeSnapshot(this.context, this.entityIndex);
  }

  /**
   * Load: replaces this simulation's whole state by a snapshot's, on either backend. Every entity of the
   * world is removed and the snapshot's come back with their ids (entities game code added to the world
   * itself come back as bare entities: their own components are not in the snapshot). The snapshot's
   * `particleRadius`, `kernelRadius` and `solver` must equal this simulation's and its counts fit within
   * this one's limits; `gravity`, `timeStep`, `substeps`, `iterations`, `maxSpeed`, the WCSPH settings and
   * the MPS settings (with the MPS pressure solve's warm start) are taken from it. On the CPU
   * backend the simulation then continues bit-identically to the saved one when the capacities are equal
   * (a different `capacity` changes the neighbour grid's table, so the summation order). On the WebGPU
   * backend the particles are uploaded again with the next step; no readback may be in flight (`await
   * readback()` first; the plugin's `restore()` does).
   *
   * Throws {@link FluidError} saying what is wrong, changing nothing: not a snapshot, a newer format
   * version, corruption (checksum mismatch, truncation), a limit too small (`capacity 1000 is smaller
   * than the snapshot's 5000 particles`), a different particle radius.
   */
  restore(snapshot: Uint8Array): void {
    this.restoreDecoded(readSnapshot(snapshot));
  }

  /**
   * A new simulation with the snapshot's settings and state (see {@link FluidSimulation.restore}), on the
   * backend `options` asks for (default `'cpu'`), with the snapshot's capacity unless `options.capacity` says
   * otherwise. Throws {@link FluidError} for a bad snapshot, and, before allocating anything, for one that asks
   * for a capacity above `options.maxCapacity` (default: `SNAPSHOT_CAPACITY_FLOOR` or 4 times its
   * particles): a save file from elsewhere must not decide a large allocation by itself.
   */
  static fromSnapshot(snapshot: Uint8Array, options: FromSnapshotOptions = {}): FluidSimulation {
    if (typeof options !== 'object' || options === null) {
      throw new FluidError(`fromSnapshot options are ${String(options)}; they must be an object`);
    }
    checkKnownKeys('fromSnapshot', options, FROM_SNAPSHOT_OPTION_NAMES);
    const decoded = readSnapshot(snapshot);
    const saved = snapshotSimulationOptions(decoded);
    // Checked before anything is allocated: the file alone does not decide a large allocation.
    const capacity = snapshotCapacity(decoded, saved.capacity ?? 0, options);
    let simulation: FluidSimulation;
    try {
      simulation = new FluidSimulation({
        ...saved,
        capacity,
        backend: options.backend,
        engine: options.engine,
        mirror: options.mirror,
        threads: options.threads,
        webAssembly: options.webAssembly,
      });
    } catch (error) {
      // A saved setting out of range is named as the snapshot's (the caller passed only backend, engine, mirror).
      const message = error instanceof FluidError ? error.message : '';
      if (Object.keys(saved).some((key) => message.startsWith(`${key} `) || message.startsWith(`${key}.`))) {
        throw new FluidError(`the snapshot's settings.${message}`);
      }
      throw error;
    }
    simulation.restoreDecoded(decoded);
    return simulation;
  }

  private restoreDecoded(decoded: DecodedSnapshot): void {
    checkSnapshotFits(this.context, decoded);
    checkSnapshotContent(this.context, decoded);
    const gpu = this.gpuContext;
    if (gpu && gpu.inFlight.size > 0) {
      throw new FluidError(
        'restore: WebGPU readbacks are in flight and would overwrite the restored state; await simulation.readback() first (FluidPlugin.restore does)',
      );
    }
    applySnapshot(this.context, this.entityIndex, decoded);
    if (gpu) {
      // As after a lost device: the GPU starts again from the (restored) components at the next step.
      gpu.solver.resetParticles();
      gpu.removedSinceStep = 0;
      gpu.gpuCount = 0;
      gpu.nonFinite = false;
    }
  }
}
