/**
 * `FluidPlugin`: the Babylon adapter of a {@link FluidSimulation}. It picks the backend from the scene's
 * engine, steps the simulation from the scene's render loop (fixed time step, accumulator, pause, time
 * scale), keeps mesh colliders and emitters on their nodes' world matrices, forwards the simulation's events
 * as Babylon observables and feeds the renderers. It holds no numerics: every physical quantity comes from
 * `src/systems`. A thin adapter: the fixed-step scheduling lives in scheduler.ts, the followers of meshes
 * and nodes in followers.ts, the render modes and the views' feed in fluidDisplay.ts.
 */

import type { AbstractMesh } from '@babylonjs/core/Meshes/abstractMesh.js';
import { Logger } from '@babylonjs/core/Misc/logger.js';
import { Observable, type Observer } from '@babylonjs/core/Misc/observable.js';
import type { IFluidRenderingRenderObject } from '@babylonjs/core/Rendering/fluidRenderer/fluidRenderer.js';
import type { Scene } from '@babylonjs/core/scene.js';
import type { FluidBackend } from '../components/settings';
import { checkKnownKeys, checkNumber, type Vector3Like } from '../core/checks';
import { FluidError } from '../core/errors';
import { PLUGIN_OPTIONS, SIMULATION_OPTIONS } from '../core/schema';
import type { BackendChange, DrainOptions, SpawnOptions } from '../systems/options';
import { FluidSimulation } from '../systems/simulation';
import type { ColorMapRanges, FluidColorBy } from './colorMaps';
import { type ResolvedWhiteWaterLook, resolveWhiteWaterLook } from './diffuseView';
import { FluidDisplay } from './fluidDisplay';
import { NodeFollowers } from './followers';
import {
  checkBackend,
  checkColorBy,
  checkName,
  checkPluginOption,
  checkRenderingGroupId,
  checkRenderMode,
  checkViewOptions,
  type FluidPluginOptions,
  PLUGIN_OPTION_NAMES,
  type PluginEmitterOptions,
  type PluginMeshColliderOptions,
  type PluginRigidBodyOptions,
} from './options';
import {
  createParticleBuffers,
  type ParticleBuffers,
  recordStep,
  releaseGpuColors,
  releaseGpuEllipsoids,
} from './particleFeed';
import { type FluidRenderMode, supportsFluidRenderer } from './renderers';
import { bodyCoupling, RigidBodyBridge, type RigidBodyLike, resolveBodyMesh, resolvePhysicsBody } from './rigidBodies';
import { FixedStepScheduler } from './scheduler';

/**
 * Liquid in a Babylon scene: a {@link FluidSimulation} stepped from the scene's render loop, rendered as
 * water, with Babylon meshes as colliders and nodes carrying emitters.
 *
 * ```ts
 * const fluid = await FluidPlugin.create(scene, { particleRadius: 0.025 });
 * const water = fluid.simulation.addMaterial({});
 * await fluid.addMeshCollider(glassMesh);
 * fluid.addEmitter({ material: water, node: nozzle, litresPerSecond: 0.3 });
 * ```
 *
 * On a `WebGPUEngine` the simulation runs on the GPU (backend `'auto'`) and the views draw straight from
 * its position buffer; nothing the plugin does per frame throws into the render loop: errors go to
 * {@link FluidPlugin.onErrorObservable}, and a lost device falls back to the CPU (reported by
 * {@link FluidPlugin.onBackendChangedObservable}).
 */
export class FluidPlugin {
  /** The scene this plugin steps and draws in. */
  readonly scene: Scene;
  /**
   * The plugin's name, as Babylon objects have one (inspectors, logs, telling several plugins apart); the
   * `name` option, default `'fluid'`. Free to change.
   */
  name: string;
  /** A number unique among the scene's objects, from `scene.getUniqueId()` when the plugin was made. */
  readonly uniqueId: number;
  /**
   * Notified once, with this plugin, when it is disposed ({@link FluidPlugin.dispose}, or the scene's
   * disposal): after its observers, views and the simulation's GPU objects are released, before its
   * observables are cleared.
   */
  readonly onDisposeObservable = new Observable<FluidPlugin>();
  /**
   * Notified with warnings: conditions the plugin works around rather than errors (a frame's work goes on).
   * So far one: an engine that reports no frame time on consecutive renders while `useDeltaTime` is true (see
   * {@link FluidPluginOptions.useDeltaTime}), given once per plugin. Each warning is also written with
   * `console.warn`.
   */
  readonly onWarningObservable = new Observable<string>();
  /**
   * True when the fluid's gravity follows the scene's physics engine: before each frame's steps, when the
   * scene has a physics engine (`scene.getPhysicsEngine()`), its `gravity` is copied into
   * `simulation.settings.gravity`. Default: true when the `gravity` option was left out, false when it was
   * given. Set it false to edit `simulation.settings.gravity` by hand while the scene has physics.
   */
  gravityFollowsPhysics: boolean;
  /** The simulation: materials, colliders, emitters, particles and their components. */
  readonly simulation: FluidSimulation;
  /** Notified after each simulation step, with this plugin. */
  readonly onAfterStepObservable = new Observable<FluidPlugin>();
  /**
   * Notified after a step that emitted particles, with their entity ids (a view valid until the next
   * step; copy it to keep it).
   */
  readonly onParticlesEmittedObservable = new Observable<Uint32Array>();
  /**
   * Notified after a step that removed particles (drains, lifetimes), with their former entity ids (a view).
   * On the WebGPU backend removals are found on the GPU and reach the CPU with a readback, a frame or two
   * later; see the simulation's `lastRemoved()`.
   */
  readonly onParticlesRemovedObservable = new Observable<Uint32Array>();
  /**
   * Notified when the backend changes while running: a lost WebGPU device makes the simulation continue on
   * the CPU from the last mirrored components (`reason: 'device-lost'`), and a device Babylon restores takes
   * over again (`'device-restored'`). The views follow by themselves.
   */
  readonly onBackendChangedObservable = new Observable<BackendChange>();
  /**
   * Notified with any error of a frame's work (a step, a followed mesh's bad scaling, the views), which is
   * caught here so that nothing throws into the render loop; the frame's remaining steps are skipped. With
   * no observer, each new message is logged once (Babylon's `Logger.Error`).
   */
  readonly onErrorObservable = new Observable<Error>();
  /** See {@link FluidPluginOptions.useDeltaTime}; may be changed at any time. */
  useDeltaTime: boolean;
  /** True stops stepping (rendering goes on). */
  paused: boolean;
  /** Ranges of the speed and density color maps of the debug views. */
  readonly colorRanges: ColorMapRanges = { speed: 3, density: 0.2 };
  /** Simulated seconds dropped so far because a frame needed more than `maxStepsPerFrame` steps. */
  droppedTime = 0;
  /**
   * Notified, before the frame's steps, when a frame needed more than `maxStepsPerFrame` steps, with the
   * simulated seconds it drops (the frame's time beyond its `maxStepsPerFrame` steps, less the fraction of
   * a step carried to the next frame). The same seconds are added to {@link FluidPlugin.droppedTime}.
   */
  readonly onTimeDroppedObservable = new Observable<number>();
  /** Steps taken in the last frame. */
  stepsLastFrame = 0;

  private disposed = false;
  private readonly buffers: ParticleBuffers;
  /** The render mode, the coloring, the views and the render feed. */
  private readonly display: FluidDisplay;
  /** The mesh colliders and emitters that follow meshes and nodes. */
  private readonly followers: NodeFollowers;
  /** The fixed-step scheduler: the accumulator, `maxStepsPerFrame`, `timeScale`, a frame's steps. */
  private readonly scheduler: FixedStepScheduler;
  /** The Havok bridge, made by the first {@link FluidPlugin.addRigidBody}. */
  private bodies: RigidBodyBridge | undefined;
  /** Calls of {@link FluidPlugin.addRigidBody} still baking their mesh. */
  private pendingBodies = 0;

  private readonly beforeRenderObserver: Observer<Scene>;
  private readonly sceneDisposeObserver: Observer<Scene>;
  private readonly backendListener: (change: BackendChange) => void;
  /** True while `restore` waits for the readbacks in flight: frames draw without stepping. */
  private restoring = false;
  private lastLoggedError = '';

  private constructor(scene: Scene, options: FluidPluginOptions) {
    const {
      name,
      useDeltaTime,
      maxStepsPerFrame,
      timeScale,
      paused,
      renderMode,
      colorBy,
      camera,
      look,
      backend,
      surface,
      surfaceUpdateInterval,
      renderingGroupId,
      layerMask,
      whiteWater,
      ...simulationOptions
    } = options;
    this.scene = scene;
    const engine = scene.getEngine();
    // The plugin's own options first: the simulation may hold GPU objects as soon as it exists.
    this.name = checkName(name ?? 'fluid');
    this.useDeltaTime = useDeltaTime ?? true;
    this.gravityFollowsPhysics = simulationOptions.gravity === undefined;
    const maximumSteps = checkPluginOption(
      'maxStepsPerFrame',
      maxStepsPerFrame ?? PLUGIN_OPTIONS.maxStepsPerFrame.default,
    );
    const scale = checkPluginOption('timeScale', timeScale ?? PLUGIN_OPTIONS.timeScale.default);
    this.paused = paused ?? false;
    const mode = checkRenderMode(renderMode ?? FluidPlugin.defaultRenderMode(scene));
    const coloring = checkColorBy(colorBy ?? 'material');
    const layers = checkViewOptions({ look, renderingGroupId, layerMask });
    // The discs' default size is the particle radius (a bad radius throws with the simulation's options).
    const givenRadius = simulationOptions.particleRadius;
    const radius = typeof givenRadius === 'number' ? givenRadius : SIMULATION_OPTIONS.particleRadius.default;
    const whiteWaterLook = resolveWhiteWaterLook(whiteWater ?? {}, radius);
    this.simulation = new FluidSimulation({
      ...simulationOptions,
      backend: checkBackend(backend ?? 'auto', engine),
      engine,
    });
    this.buffers = createParticleBuffers(this.simulation.settings.capacity);
    const simulation = this.simulation;
    this.display = new FluidDisplay(scene, simulation, this.buffers, this.colorRanges, mode, coloring, {
      camera,
      look,
      surface,
      surfaceUpdateInterval,
      whiteWater: whiteWaterLook,
      ...layers,
    });
    this.followers = new NodeFollowers(
      simulation,
      (collider) => this.bodies?.has(collider) === true,
      (collider) => this.removeCollider(collider),
    );
    this.scheduler = new FixedStepScheduler(
      this,
      simulation,
      this.followers,
      (fraction) => this.fluidStep(fraction),
      maximumSteps,
      scale,
      (message) => this.warn(message),
    );
    this.followPhysicsGravity();
    this.uniqueId = scene.getUniqueId();
    this.backendListener = (change) => this.onBackendChangedObservable.notifyObservers(change);
    simulation.onBackendChanged.add(this.backendListener);
    this.beforeRenderObserver = scene.onBeforeRenderObservable.add(() => this.frame());
    this.sceneDisposeObserver = scene.onDisposeObservable.add(() => this.dispose());
  }

  /**
   * Creates the plugin and its simulation in `scene`; stepping starts with the next `scene.render()` (on
   * the WebGPU backend, with the first frame after its shaders compiled: see {@link FluidPlugin.ready}).
   * Throws {@link FluidError} for invalid options, and for `backend: 'webgpu'` on an engine that cannot run
   * it (the message names the engine).
   */
  static async create(scene: Scene, options: FluidPluginOptions = {}): Promise<FluidPlugin> {
    if (typeof (scene as { getEngine?: unknown } | null)?.getEngine !== 'function') {
      throw new FluidError(`scene is ${String(scene)}; FluidPlugin.create needs a Babylon Scene`);
    }
    if (typeof options !== 'object' || options === null) throw new FluidError('FluidPlugin options must be an object');
    checkKnownKeys('FluidPlugin.create', options, PLUGIN_OPTION_NAMES);
    return new FluidPlugin(scene, options);
  }

  /** Babylon's class name of this object: `'FluidPlugin'`. */
  getClassName(): string {
    return 'FluidPlugin';
  }

  /** The render mode a scene gets by default: `'fluid'` where Babylon's FluidRenderer runs, else `'none'`. */
  static defaultRenderMode(scene: Scene): FluidRenderMode {
    return supportsFluidRenderer(scene.getEngine()) ? 'fluid' : 'none';
  }

  /** The backend running the steps now: `'webgpu'` or `'cpu'` (also after a lost device fell back). */
  get backend(): FluidBackend {
    return this.simulation.backend;
  }

  /**
   * True once the simulation can step (the WebGPU backend's shaders compiled; at once on the CPU). Until
   * then frames draw without stepping.
   */
  get isReady(): boolean {
    return this.simulation.isReady;
  }

  /** Resolves when the simulation can step (see {@link FluidPlugin.isReady}). */
  async ready(): Promise<void> {
    await this.simulation.ready();
  }

  /**
   * WebGPU backend: reads the particles back from the GPU now and writes them to the components
   * (`Position`, `Velocity`, `Density`, `Particle.age`); resolves when they are there. Needed before reading
   * components when `mirror` is `'on-demand'` or `'off'`; with `'every-frame'` they are at most a frame or
   * two behind anyway. Resolves at once on the CPU backend. Rejects if the device is lost meanwhile.
   */
  async readback(): Promise<void> {
    await this.simulation.readback();
  }

  /**
   * Save: the simulation's snapshot (see `FluidSimulation.snapshot`), after reading the particles back on
   * the WebGPU backend so it holds the GPU's current state. The plugin's own settings (scheduling, render
   * mode) and which meshes and nodes colliders and emitters follow are not in it.
   */
  async snapshot(): Promise<Uint8Array> {
    await this.simulation.readback();
    return this.simulation.snapshot();
  }

  /**
   * Load: restores a snapshot into the running scene (see `FluidSimulation.restore`; rejects with its
   * {@link FluidError}, changing nothing, for a wrong or corrupt snapshot). No step runs until it is done;
   * on the WebGPU backend the readbacks in flight are awaited first. Mesh colliders and emitters that
   * follow meshes and nodes keep following where the same id is a mesh collider (an emitter) in the
   * snapshot and the mesh still exists, starting from the restored pose: the next frame moves them from
   * there to their mesh's (node's) pose, so put the meshes back where they were when the snapshot was
   * taken for a seamless continuation. Followers of ids that are not such entities in the snapshot stop.
   */
  async restore(snapshot: Uint8Array): Promise<void> {
    this.restoring = true;
    try {
      await this.simulation.readback();
      this.simulation.restore(snapshot);
    } finally {
      this.restoring = false;
    }
    this.followers.followRestoredState();
  }

  /**
   * Tells the simulation that game code changed these particles' `Position`, `Velocity`,
   * `Particle.material`, `Temperature` or `Color` components: on the WebGPU backend the next step uploads them (without this call
   * the GPU keeps its own values and the next readback overwrites the edit). Harmless on the CPU backend.
   * Throws {@link FluidError} for an id that is not a live particle.
   */
  markParticlesChanged(ids: number | ArrayLike<number>): void {
    this.checkNotDisposed('markParticlesChanged');
    this.simulation.markParticlesChanged(ids);
  }

  /** How the fluid is drawn; switchable at run time. */
  get renderMode(): FluidRenderMode {
    return this.display.mode;
  }

  /** Switches the view; an unknown mode throws `FluidError`. */
  set renderMode(mode: FluidRenderMode) {
    this.display.mode = checkRenderMode(mode);
    if (!this.disposed) this.display.render();
  }

  /** What the particles are colored by; switchable at run time, on both backends (see {@link FluidPluginOptions.colorBy}). */
  get colorBy(): FluidColorBy {
    return this.display.coloring;
  }

  /** Switches the coloring; an unknown value throws `FluidError`. */
  set colorBy(colorBy: FluidColorBy) {
    this.display.coloring = checkColorBy(colorBy);
  }

  /** Most steps per frame (integer >= 1). */
  get maxStepsPerFrame(): number {
    return this.scheduler.maximumSteps;
  }

  /** Sets the most steps per frame; anything but an integer in [1, 1000] throws `FluidError`. */
  set maxStepsPerFrame(steps: number) {
    this.scheduler.maximumSteps = checkPluginOption('maxStepsPerFrame', steps);
  }

  /** Simulated seconds per real second (>= 0). */
  get timeScale(): number {
    return this.scheduler.scale;
  }

  /** Sets the time scale; anything outside [0, 100] throws `FluidError`. */
  set timeScale(scale: number) {
    this.scheduler.scale = checkPluginOption('timeScale', scale);
  }

  /**
   * Babylon rendering group of the meshes the views make (points, spheres, surface, splats), those made so
   * far and later ones; see {@link FluidPluginOptions.renderingGroupId} (not honoured by the screen-space
   * water).
   */
  get renderingGroupId(): number {
    return this.display.views.renderingGroupId;
  }

  /** Sets the rendering group; anything but an integer in [0, MAX_RENDERINGGROUPS - 1] throws `FluidError`. */
  set renderingGroupId(group: number) {
    this.display.views.renderingGroupId = checkRenderingGroupId(group);
  }

  /**
   * Babylon layer mask of the meshes the views make, those made so far and later ones, and the mask the
   * screen-space water tests against its camera's; see {@link FluidPluginOptions.layerMask}.
   */
  get layerMask(): number {
    return this.display.views.layerMask;
  }

  /** Sets the layer mask; anything but an integer in [0, 0xFFFFFFFF] throws `FluidError`. */
  set layerMask(mask: number) {
    this.display.views.layerMask = checkPluginOption('layerMask', mask);
  }

  /**
   * The screen-space fluid render object while `renderMode` is `'fluid'` (for tuning its target renderer). When
   * several fluids are drawn as liquids of their own (docs/rendering.md, "Several fluids"), the first of them:
   * the heaviest, composited first; `scene.fluidRenderer.renderObjects` holds them all.
   */
  get fluidRenderObject(): IFluidRenderingRenderObject | undefined {
    return this.display.views.fluidRenderObject;
  }

  /** The debug meshes created so far (points, spheres), e.g. to exclude them from picking or shadows. */
  get debugMeshes(): readonly AbstractMesh[] {
    return this.display.views.debugMeshes;
  }

  /**
   * The isosurface mesh while `renderMode` is `'surface'` (made on the first frame in that mode, disposed
   * when the mode changes); undefined otherwise.
   */
  get surfaceMesh(): AbstractMesh | undefined {
    return this.display.views.surfaceMesh;
  }

  /**
   * The live look of white water (see {@link FluidWhiteWaterLook}; every field set): edit it between frames
   * (`fluid.whiteWater.visible = false`, `fluid.whiteWater.size = 0.02`); the next frame checks it and a bad
   * value throws `FluidError` naming it. Undefined when the simulation has no `diffuse.capacity`.
   */
  get whiteWater(): ResolvedWhiteWaterLook | undefined {
    return this.display.diffuse?.look;
  }

  /** White water's disc mesh (one instance per diffuse particle); undefined without `diffuse.capacity`. */
  get whiteWaterMesh(): AbstractMesh | undefined {
    return this.display.diffuse?.mesh;
  }

  /** The splat disc mesh (one thin instance per surface particle) while `renderMode` is `'splats'`. */
  get splatMesh(): AbstractMesh | undefined {
    return this.display.views.splatMesh;
  }

  /**
   * The particle buffers the renderers read (positions, colors, ids), as of the last frame. On the WebGPU
   * backend only `count`, `gpuPositions` and, when a view colors particles one by one, `gpuColors` are
   * written (positions and colors stay on the GPU).
   */
  get particleBuffers(): Readonly<ParticleBuffers> {
    return this.buffers;
  }

  /**
   * Makes `mesh` a collider: bakes its local triangles into a signed distance field (asynchronously,
   * reporting `onProgress`; cached per geometry and grid size), adds it to the simulation and from then
   * on, before every step, moves the collider to the mesh's world pose (position, rotation and uniform
   * scaling), so animated or player-moved meshes push the fluid. The first pose is taken without
   * sweeping. Disposing the mesh removes the collider.
   *
   * @returns The collider entity id.
   * @throws FluidError (as a rejected promise) if the mesh has no triangles, encloses no volume, or has
   * a non-uniform or mirroring world scaling (found later, by a frame: reported through
   * {@link FluidPlugin.onErrorObservable}).
   */
  async addMeshCollider(mesh: AbstractMesh, options: PluginMeshColliderOptions = {}): Promise<number> {
    this.checkNotDisposed('addMeshCollider');
    if (typeof (mesh as { getVerticesData?: unknown } | null)?.getVerticesData !== 'function') {
      throw new FluidError(`addMeshCollider: mesh is ${String(mesh)}; it must be a Babylon mesh`);
    }
    if (typeof options !== 'object' || options === null)
      throw new FluidError('addMeshCollider options must be an object');
    return this.followers.addMeshCollider(mesh, options, undefined);
  }

  /**
   * Couples a Babylon Physics V2 body (on the `HavokPlugin`, `@babylonjs/havok`) with the fluid, both
   * ways. Its mesh is baked into a signed distance field in the mesh's space (as
   * {@link FluidPlugin.addMeshCollider}) and becomes a collider that follows the body: the body pushes the
   * fluid with the motion Havok gave it (linear and angular), and a body started inside the fluid moves
   * the overlapped particles out without giving them velocity. The fluid pushes back: the impulses of the
   * collisions, the wall-weight pressure and the contact response on the body (Newton's third law: what
   * the body gets, the fluid loses) are applied to it before each physics step, with `applyImpulse` at its
   * center of mass and `applyAngularImpulse`. So a body half as dense as the water floats half submerged,
   * with no buoyancy factor to tune. On the WebGPU backend the impulses arrive with the step's readback,
   * one or two frames late. The scene must have physics enabled (`scene.enablePhysics`).
   *
   * @returns The collider entity id (remove it with {@link FluidPlugin.removeCollider}).
   * @throws FluidError (as a rejected promise) if the scene has no physics engine, the body is not a
   * physics body, or the mesh is missing or has no triangles.
   */
  async addRigidBody(body: RigidBodyLike, options: PluginRigidBodyOptions = {}): Promise<number> {
    if (this.disposed) throw new FluidError('addRigidBody: the plugin is disposed');
    const physicsBody = resolvePhysicsBody(body);
    const mesh = resolveBodyMesh(physicsBody, options.mesh);
    const insertionTime = checkNumber('insertionTime', options.insertionTime ?? 0.25, 0, 10);
    this.bodies ??= new RigidBodyBridge(this.scene, this.simulation);
    const bodies = this.bodies;
    const steps = Math.round(insertionTime / this.simulation.settings.timeStep);
    // From now on the plugin steps the physics: none while the mesh bakes, or the body would fall into
    // the water uncoupled.
    this.pendingBodies++;
    bodies.hold(true);
    try {
      const collider = await this.followers.addMeshCollider(
        mesh,
        options,
        bodyCoupling(physicsBody, mesh),
        (collider) => (this.simulation.particlesInsideCollider(collider) > 0 ? steps : 0),
      );
      bodies.add(collider, physicsBody, mesh);
      return collider;
    } finally {
      this.pendingBodies--;
    }
  }

  /** Removes a collider (mesh or analytic) and stops following its mesh. */
  removeCollider(collider: number): void {
    this.checkNotDisposed('removeCollider');
    this.bodies?.remove(collider);
    this.followers.removeCollider(collider);
    this.simulation.removeCollider(collider);
  }

  /**
   * Adds a nozzle emitter (see the simulation's `addEmitter`). With `node`, the nozzle follows the node's
   * world matrix every frame: it sits at `localPosition` and points along `localDirection` (default the
   * node's local -Y). Enable, retune or stop it through `simulation.components.Emitter`.
   *
   * @returns The emitter entity id.
   */
  addEmitter(options: PluginEmitterOptions): number {
    this.checkNotDisposed('addEmitter');
    if (typeof options !== 'object' || options === null) throw new FluidError('addEmitter options must be an object');
    const { node, localPosition, localDirection, position, ...rest } = options;
    if (node === undefined) {
      if (position === undefined) throw new FluidError('addEmitter: give a position or a node to follow');
      return this.simulation.addEmitter({ ...rest, position });
    }
    if (typeof (node as { computeWorldMatrix?: unknown } | null)?.computeWorldMatrix !== 'function') {
      throw new FluidError(`addEmitter: node is ${String(node)}; it must be a Babylon TransformNode`);
    }
    return this.followers.addNodeEmitter(node, localPosition, localDirection, rest);
  }

  /** Removes an emitter and stops following its node. */
  removeEmitter(emitter: number): void {
    this.checkNotDisposed('removeEmitter');
    this.followers.removeEmitter(emitter);
    this.simulation.removeEmitter(emitter);
  }

  /** Adds a drain region that removes every particle entering it (see the simulation's `addDrain`). */
  addDrain(options: DrainOptions): number {
    this.checkNotDisposed('addDrain');
    return this.simulation.addDrain(options);
  }

  /** Removes a drain. */
  removeDrain(drain: number): void {
    this.checkNotDisposed('removeDrain');
    this.simulation.removeDrain(drain);
  }

  /** Fills a box, sphere or baked mesh with particles at rest (see the simulation's `spawn`). */
  spawn(options: SpawnOptions): Uint32Array {
    this.checkNotDisposed('spawn');
    return this.simulation.spawn(options);
  }

  /** Throws {@link FluidError} naming `call` once the plugin is disposed. */
  private checkNotDisposed(call: string): void {
    if (this.disposed) {
      throw new FluidError(
        `${call}: the plugin is disposed; use its simulation headless (fluid.simulation) or create a new plugin`,
      );
    }
  }

  /**
   * One frame: steps (with followed poses), events, then the render feed. No step before the simulation is
   * ready (WebGPU shaders compiling). Errors are reported, never thrown into the render loop.
   */
  private frame(): void {
    if (this.disposed) return;
    this.stepsLastFrame = 0;
    try {
      this.followPhysicsGravity();
      const bodies = this.bodies;
      const coupled = bodies !== undefined && (bodies.count > 0 || this.pendingBodies > 0);
      // Without coupled bodies Babylon's render loop steps the physics again.
      if (!coupled) bodies?.hold(false);
      if (coupled) {
        // The scheduler steps the physics; while the fluid cannot step neither does the physics, so bodies
        // never fall through still water.
        bodies.hold(true);
        if (this.canStep()) this.scheduler.stepFrameWithBodies(bodies);
      } else if (this.canStep()) {
        this.scheduler.stepFrame();
      }
    } catch (error) {
      this.reportError(error);
    }
    try {
      this.display.render();
    } catch (error) {
      this.reportError(error);
    }
  }

  /** True when a frame may step: not paused, not restoring, the simulation ready. */
  private canStep(): boolean {
    return !this.paused && !this.restoring && this.simulation.isReady;
  }

  /** One fluid step of a frame: followed poses (at `fraction` of the frame), the step, events. */
  private fluidStep(fraction: number): void {
    this.followers.apply(fraction);
    this.simulation.step();
    recordStep(this.simulation, this.buffers);
    this.stepsLastFrame++;
    this.notifyStep();
  }

  /**
   * With {@link FluidPlugin.gravityFollowsPhysics}: copies the scene's physics engine's gravity (when there is
   * one) into `simulation.settings.gravity` (checked before the step like any edit of it).
   */
  private followPhysicsGravity(): void {
    if (!this.gravityFollowsPhysics) return;
    const gravity = physicsGravity(this.scene);
    if (gravity === undefined) return;
    const target = this.simulation.settings.gravity;
    target[0] = gravity.x;
    target[1] = gravity.y;
    target[2] = gravity.z;
  }

  /** Writes a warning with `console.warn` and hands it to {@link FluidPlugin.onWarningObservable}. */
  private warn(message: string): void {
    console.warn(message);
    this.onWarningObservable.notifyObservers(message);
  }

  /** Hands a frame's error to {@link FluidPlugin.onErrorObservable} (or logs a new message once). */
  private reportError(error: unknown): void {
    const failure = error instanceof Error ? error : new FluidError(String(error));
    if (this.onErrorObservable.hasObservers()) {
      this.onErrorObservable.notifyObservers(failure);
    } else if (failure.message !== this.lastLoggedError) {
      this.lastLoggedError = failure.message;
      Logger.Error(`FluidPlugin: ${failure.message}`);
    }
  }

  /** Notifies the observers of one step. */
  private notifyStep(): void {
    const simulation = this.simulation;
    const stats = simulation.stats;
    if (stats.emittedCount > 0 && this.onParticlesEmittedObservable.hasObservers()) {
      this.onParticlesEmittedObservable.notifyObservers(simulation.lastEmitted());
    }
    if (stats.removedCount > 0 && this.onParticlesRemovedObservable.hasObservers()) {
      this.onParticlesRemovedObservable.notifyObservers(simulation.lastRemoved());
    }
    this.onAfterStepObservable.notifyObservers(this);
  }

  /**
   * Stops stepping, removes the plugin's observers from the scene and the meshes, disposes the views (the
   * fluid render object, debug meshes and materials) and the observables, and frees the simulation's GPU
   * objects (`simulation.dispose()`). The simulation stays usable headless, on the CPU, from its
   * components (on the WebGPU backend: the last mirrored state). Safe to call twice. Afterwards the
   * plugin's calls that add, remove or change things (`addMeshCollider`, `addRigidBody`, `removeCollider`,
   * `addEmitter`, `removeEmitter`, `addDrain`, `removeDrain`, `spawn`, `markParticlesChanged`) throw
   * {@link FluidError}; its getters, setters and `scene.render()` are harmless no-ops for the fluid.
   * {@link FluidPlugin.onDisposeObservable} is notified once, when everything is released, then every
   * observable of the plugin is cleared (also when an observer throws).
   */
  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    this.scene.onBeforeRenderObservable.remove(this.beforeRenderObserver);
    this.scene.onDisposeObservable.remove(this.sceneDisposeObserver);
    this.simulation.onBackendChanged.delete(this.backendListener);
    this.followers.dispose();
    this.bodies?.dispose();
    this.display.dispose();
    releaseGpuColors(this.buffers);
    releaseGpuEllipsoids(this.buffers);
    this.simulation.dispose();
    this.buffers.gpuPositions = undefined;
    this.buffers.steppedSolver = undefined;
    try {
      this.onDisposeObservable.notifyObservers(this);
    } finally {
      this.onAfterStepObservable.clear();
      this.onParticlesEmittedObservable.clear();
      this.onParticlesRemovedObservable.clear();
      this.onBackendChangedObservable.clear();
      this.onErrorObservable.clear();
      this.onTimeDroppedObservable.clear();
      this.onWarningObservable.clear();
      this.onDisposeObservable.clear();
    }
  }

  /** True once {@link FluidPlugin.dispose} ran. */
  get isDisposed(): boolean {
    return this.disposed;
  }
}

/**
 * The gravity of the scene's physics engine (Physics V1 or V2), or undefined when the scene has none (or
 * Babylon's physics component was never imported, so the scene has no `getPhysicsEngine`).
 */
function physicsGravity(scene: Scene): Vector3Like | undefined {
  const getPhysicsEngine = (scene as { getPhysicsEngine?: () => { gravity?: Vector3Like } | null | undefined })
    .getPhysicsEngine;
  if (typeof getPhysicsEngine !== 'function') return undefined;
  return getPhysicsEngine.call(scene)?.gravity ?? undefined;
}
