/**
 * `FluidPlugin`: the Babylon adapter of a {@link FluidSimulation}. It picks the backend from the scene's
 * engine, steps the simulation from the scene's render loop (fixed time step, accumulator, pause, time
 * scale), keeps mesh colliders and emitters on their nodes' world matrices, forwards the simulation's events
 * as Babylon observables and feeds the renderers. It holds no numerics: every physical quantity comes from
 * `src/systems`.
 */

import type { AbstractEngine } from '@babylonjs/core/Engines/abstractEngine.js';
import { Quaternion, Vector3 } from '@babylonjs/core/Maths/math.vector.js';
import type { AbstractMesh } from '@babylonjs/core/Meshes/abstractMesh.js';
import type { TransformNode } from '@babylonjs/core/Meshes/transformNode.js';
import { Logger } from '@babylonjs/core/Misc/logger.js';
import { Observable, type Observer } from '@babylonjs/core/Misc/observable.js';
import type { Node } from '@babylonjs/core/node.js';
import type { IFluidRenderingRenderObject } from '@babylonjs/core/Rendering/fluidRenderer/fluidRenderer.js';
import type { Scene } from '@babylonjs/core/scene.js';
import { ColliderShape } from '../components/collider';
import type { FluidBackend } from '../components/settings';
import { checkNumber, checkVector3, type Vector3Tuple } from '../core/checks';
import { FluidError } from '../core/errors';
import { PLUGIN_OPTIONS } from '../core/schema';
import type { BackendChange, DrainOptions, RigidBodyCouplingOptions, SpawnOptions } from '../systems/options';
import { FluidSimulation } from '../systems/simulation';
import type { ColorMapRanges, FluidColorBy } from './colorMaps';
import { bakeMeshField, createWorldPose, type MeshFieldOptions, readWorldPose, type WorldPose } from './meshCollider';
import {
  COLOR_BYS,
  checkBackend,
  checkPluginOption,
  type FluidPluginOptions,
  type PluginEmitterOptions,
  type PluginMeshColliderOptions,
  type PluginRigidBodyOptions,
  RENDER_MODES,
} from './options';
import {
  createParticleBuffers,
  feedGpuColors,
  feedParticles,
  type ParticleBuffers,
  recordStep,
  releaseGpuColors,
} from './particleFeed';
import { type FluidRenderMode, FluidViews, supportsFluidRenderer } from './renderers';
import { centerOfMassInMesh, RigidBodyBridge, type RigidBodyLike, resolvePhysicsBody } from './rigidBodies';
import { checkSurfaceOptions } from './surfaceRenderer';

/** A mesh collider kept on its mesh's world pose. */
interface ColliderFollower {
  readonly collider: number;
  readonly mesh: AbstractMesh;
  readonly previous: WorldPose;
  readonly current: WorldPose;
  readonly disposeObserver: Observer<Node> | null;
  /** Steps over which the collider grows to full size after it was added (0: none). */
  readonly growthSteps: number;
  /** Steps of the growth done so far. */
  grownSteps: number;
}

/** Size of a growing collider at its first step, as a fraction of its full size. */
const INITIAL_GROWTH = 0.1;

/** The size fraction of a growing collider after its `grownSteps` steps. */
function bodyGrowth(follower: ColliderFollower): number {
  return INITIAL_GROWTH + ((1 - INITIAL_GROWTH) * follower.grownSteps) / follower.growthSteps;
}

/** An emitter kept on its node. */
interface EmitterFollower {
  readonly emitter: number;
  readonly node: TransformNode;
  readonly localPosition: Vector3;
  readonly localDirection: Vector3;
  readonly previousPosition: Vector3;
  readonly currentPosition: Vector3;
  readonly previousDirection: Vector3;
  readonly currentDirection: Vector3;
}

const scratchRotationA = new Quaternion();

const scratchRotationB = new Quaternion();

const scratchVector = new Vector3();

const scratchPosition: [number, number, number] = [0, 0, 0];

const scratchDirection: [number, number, number] = [0, 0, 0];

const scratchPose = createWorldPose();

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

  private maximumSteps: number;
  private scale: number;
  private mode: FluidRenderMode;
  private coloring: FluidColorBy;
  private accumulator = 0;
  private disposed = false;
  private readonly buffers: ParticleBuffers;
  private readonly views: FluidViews;
  private readonly colliders = new Map<number, ColliderFollower>();
  private readonly emitters = new Map<number, EmitterFollower>();
  /** The Havok bridge, made by the first {@link FluidPlugin.addRigidBody}. */
  private bodies: RigidBodyBridge | undefined;
  /** Calls of {@link FluidPlugin.addRigidBody} still baking their mesh. */
  private pendingBodies = 0;

  private readonly beforeRenderObserver: Observer<Scene>;
  private readonly sceneDisposeObserver: Observer<Scene>;
  private readonly backendListener: (change: BackendChange) => void;
  private readonly contextObservers: Observer<AbstractEngine>[];
  /** True between the engine's context (device) loss and its restoration: nothing is drawn then. */
  private contextLost = false;
  /** True while `restore` waits for the readbacks in flight: frames draw without stepping. */
  private restoring = false;
  private lastLoggedError = '';

  private constructor(scene: Scene, options: FluidPluginOptions) {
    const {
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
      ...simulationOptions
    } = options;
    this.scene = scene;
    const engine = scene.getEngine();
    // The plugin's own options first: the simulation may hold GPU objects as soon as it exists.
    this.useDeltaTime = useDeltaTime ?? true;
    this.maximumSteps = checkPluginOption(
      'maxStepsPerFrame',
      maxStepsPerFrame ?? PLUGIN_OPTIONS.maxStepsPerFrame.default,
    );
    this.scale = checkPluginOption('timeScale', timeScale ?? PLUGIN_OPTIONS.timeScale.default);
    this.paused = paused ?? false;
    this.mode = FluidPlugin.checkRenderMode(renderMode ?? FluidPlugin.defaultRenderMode(scene));
    this.coloring = FluidPlugin.checkColorBy(colorBy ?? 'material');
    this.simulation = new FluidSimulation({
      ...simulationOptions,
      backend: checkBackend(backend ?? 'auto', engine),
      engine,
    });
    this.buffers = createParticleBuffers(this.simulation.settings.capacity);
    const simulation = this.simulation;
    const components = simulation.components;
    const surfaceOptions = surface ?? {};
    checkSurfaceOptions(surfaceOptions, simulation.settings.particleRadius, simulation.settings.kernelRadius);
    const surfaceSource = {
      simulation,
      options: surfaceOptions,
      updateInterval: checkPluginOption(
        'surfaceUpdateInterval',
        surfaceUpdateInterval ?? PLUGIN_OPTIONS.surfaceUpdateInterval.default,
      ),
    };
    this.views = new FluidViews(
      scene,
      this.buffers,
      2 * simulation.settings.particleRadius,
      camera,
      look ?? {},
      () => {
        // The first particle's material color; a water blue while there is no particle.
        const material = this.firstParticleMaterial();
        if (!simulation.isMaterial(material)) return [0.2, 0.45, 0.9];
        return [
          components.FluidMaterial.colorRed[material],
          components.FluidMaterial.colorGreen[material],
          components.FluidMaterial.colorBlue[material],
        ];
      },
      surfaceSource,
    );
    this.backendListener = (change) => this.onBackendChangedObservable.notifyObservers(change);
    simulation.onBackendChanged.add(this.backendListener);
    this.contextObservers = [
      engine.onContextLostObservable.add(() => {
        this.contextLost = true;
      }),
      engine.onContextRestoredObservable.add(() => {
        this.contextLost = false;
      }),
    ];
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
    return new FluidPlugin(scene, options);
  }

  /** The render mode a scene gets by default: `'fluid'` where Babylon's FluidRenderer runs, else `'none'`. */
  static defaultRenderMode(scene: Scene): FluidRenderMode {
    return supportsFluidRenderer(scene.getEngine()) ? 'fluid' : 'none';
  }

  private static checkRenderMode(mode: FluidRenderMode): FluidRenderMode {
    if (!RENDER_MODES.includes(mode)) {
      throw new FluidError(`renderMode is '${String(mode)}'; allowed values are ${RENDER_MODES.join(', ')}`);
    }
    return mode;
  }

  private static checkColorBy(colorBy: FluidColorBy): FluidColorBy {
    if (!COLOR_BYS.includes(colorBy)) {
      throw new FluidError(`colorBy is '${String(colorBy)}'; allowed values are ${COLOR_BYS.join(', ')}`);
    }
    return colorBy;
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
    this.followRestoredState();
  }

  /** After a restore: drops the followers of ids that are gone and starts the others from the restored poses. */
  private followRestoredState(): void {
    const simulation = this.simulation;
    const c = simulation.components.Collider;
    for (const [id, follower] of this.colliders) {
      if (!simulation.isCollider(id) || c.shape[id] !== ColliderShape.mesh || follower.mesh.isDisposed()) {
        follower.mesh.onDisposeObservable.remove(follower.disposeObserver);
        this.colliders.delete(id);
        continue;
      }
      for (const pose of [follower.previous, follower.current]) {
        pose.position[0] = c.positionX[id];
        pose.position[1] = c.positionY[id];
        pose.position[2] = c.positionZ[id];
        pose.rotation[0] = c.rotationX[id];
        pose.rotation[1] = c.rotationY[id];
        pose.rotation[2] = c.rotationZ[id];
        pose.rotation[3] = c.rotationW[id];
        pose.scaling = c.scale[id];
      }
    }
    const e = simulation.components.Emitter;
    for (const [id, follower] of this.emitters) {
      if (!simulation.isEmitter(id)) {
        this.emitters.delete(id);
        continue;
      }
      follower.currentPosition.set(e.positionX[id], e.positionY[id], e.positionZ[id]);
      follower.currentDirection.set(e.directionX[id], e.directionY[id], e.directionZ[id]);
      follower.previousPosition.copyFrom(follower.currentPosition);
      follower.previousDirection.copyFrom(follower.currentDirection);
    }
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
    return this.mode;
  }

  /** Switches the view; an unknown mode throws `FluidError`. */
  set renderMode(mode: FluidRenderMode) {
    this.mode = FluidPlugin.checkRenderMode(mode);
    if (!this.disposed) this.render();
  }

  /** What the particles are colored by; switchable at run time, on both backends (see {@link FluidPluginOptions.colorBy}). */
  get colorBy(): FluidColorBy {
    return this.coloring;
  }

  /** Switches the coloring; an unknown value throws `FluidError`. */
  set colorBy(colorBy: FluidColorBy) {
    this.coloring = FluidPlugin.checkColorBy(colorBy);
  }

  /** Most steps per frame (integer >= 1). */
  get maxStepsPerFrame(): number {
    return this.maximumSteps;
  }

  /** Sets the most steps per frame; anything but an integer in [1, 1000] throws `FluidError`. */
  set maxStepsPerFrame(steps: number) {
    this.maximumSteps = checkPluginOption('maxStepsPerFrame', steps);
  }

  /** Simulated seconds per real second (>= 0). */
  get timeScale(): number {
    return this.scale;
  }

  /** Sets the time scale; anything outside [0, 100] throws `FluidError`. */
  set timeScale(scale: number) {
    this.scale = checkPluginOption('timeScale', scale);
  }

  /** The screen-space fluid render object while `renderMode` is `'fluid'` (for tuning its target renderer). */
  get fluidRenderObject(): IFluidRenderingRenderObject | undefined {
    return this.views.fluidRenderObject;
  }

  /** The debug meshes created so far (points, spheres), e.g. to exclude them from picking or shadows. */
  get debugMeshes(): readonly AbstractMesh[] {
    return this.views.debugMeshes;
  }

  /**
   * The isosurface mesh while `renderMode` is `'surface'` (made on the first frame in that mode, disposed
   * when the mode changes); undefined otherwise.
   */
  get surfaceMesh(): AbstractMesh | undefined {
    return this.views.surfaceMesh;
  }

  /** The splat disc mesh (one thin instance per surface particle) while `renderMode` is `'splats'`. */
  get splatMesh(): AbstractMesh | undefined {
    return this.views.splatMesh;
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
    return this.addFollowedMesh(mesh, options, undefined);
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
    const mesh = options.mesh ?? (physicsBody.transformNode as AbstractMesh);
    if (typeof (mesh as { getVerticesData?: unknown }).getVerticesData !== 'function') {
      throw new FluidError(
        `addRigidBody: the body's node '${physicsBody.transformNode.name}' is not a mesh; pass options.mesh`,
      );
    }
    const insertionTime = checkNumber('insertionTime', options.insertionTime ?? 0.25, 0, 10);
    this.bodies ??= new RigidBodyBridge(this.scene, this.simulation);
    const bodies = this.bodies;
    const steps = Math.round(insertionTime / this.simulation.settings.timeStep);
    // From now on the plugin steps the physics: none while the mesh bakes, or the body would fall into
    // the water uncoupled.
    this.pendingBodies++;
    bodies.hold(true);
    try {
      const collider = await this.addFollowedMesh(
        mesh,
        options,
        { centerOfMass: centerOfMassInMesh(physicsBody, mesh), mass: physicsBody.getMassProperties().mass ?? 0 },
        (collider) => (this.simulation.particlesInsideCollider(collider) > 0 ? steps : 0),
      );
      bodies.add(collider, physicsBody, mesh);
      return collider;
    } finally {
      this.pendingBodies--;
    }
  }

  private async addFollowedMesh(
    mesh: AbstractMesh,
    options: PluginMeshColliderOptions,
    rigidBody: RigidBodyCouplingOptions | undefined,
    growth?: (collider: number) => number,
  ): Promise<number> {
    const fieldOptions: MeshFieldOptions = {};
    if (options.cellSize !== undefined) fieldOptions.cellSize = options.cellSize;
    if (options.resolution !== undefined) fieldOptions.resolution = options.resolution;
    if (options.onProgress !== undefined) fieldOptions.onProgress = options.onProgress;
    const pose = readWorldPose(mesh, createWorldPose());
    const field = await bakeMeshField(mesh, fieldOptions);
    if (this.disposed) throw new FluidError('addMeshCollider: the plugin was disposed while the mesh was baking');
    const collider = this.simulation.addCollider({
      shape: 'mesh',
      field,
      container: options.container,
      friction: options.friction,
      restitution: options.restitution,
      wallWeights: options.wallWeights,
      rigidBody,
    });
    readWorldPose(mesh, pose);
    this.simulation.setColliderTransform(collider, { ...pose, teleport: true });
    // A body placed into the water grows into it (see PluginRigidBodyOptions.insertionTime).
    const growthSteps = growth === undefined ? 0 : growth(collider);
    if (growthSteps > 0) {
      this.simulation.setColliderTransform(collider, { scaling: INITIAL_GROWTH * pose.scaling, teleport: true });
    }
    const disposeObserver = mesh.onDisposeObservable.add(() => {
      if (this.colliders.has(collider)) this.removeCollider(collider);
    });
    this.colliders.set(collider, {
      collider,
      mesh,
      previous: pose,
      current: { position: [...pose.position], rotation: [...pose.rotation], scaling: pose.scaling },
      disposeObserver,
      growthSteps,
      grownSteps: 0,
    });
    return collider;
  }

  /** Removes a collider (mesh or analytic) and stops following its mesh. */
  removeCollider(collider: number): void {
    this.checkNotDisposed('removeCollider');
    this.bodies?.remove(collider);
    const follower = this.colliders.get(collider);
    if (follower !== undefined) {
      follower.mesh.onDisposeObservable.remove(follower.disposeObserver);
      this.colliders.delete(collider);
    }
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
    const follower: EmitterFollower = {
      emitter: 0,
      node,
      localPosition: Vector3.FromArray(checkVector3('localPosition', localPosition ?? [0, 0, 0])),
      localDirection: Vector3.FromArray(checkVector3('localDirection', localDirection ?? [0, -1, 0])),
      previousPosition: new Vector3(),
      currentPosition: new Vector3(),
      previousDirection: new Vector3(),
      currentDirection: new Vector3(),
    };
    this.readEmitterNode(follower);
    follower.previousPosition.copyFrom(follower.currentPosition);
    follower.previousDirection.copyFrom(follower.currentDirection);
    const emitter = this.simulation.addEmitter({
      ...rest,
      position: follower.currentPosition.asArray() as Vector3Tuple,
      direction: follower.currentDirection.asArray() as Vector3Tuple,
    });
    this.emitters.set(emitter, { ...follower, emitter });
    return emitter;
  }

  /** Removes an emitter and stops following its node. */
  removeEmitter(emitter: number): void {
    this.checkNotDisposed('removeEmitter');
    this.emitters.delete(emitter);
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

  /** Reads a followed emitter node's world position and direction into `current*`. */
  private readEmitterNode(follower: EmitterFollower): void {
    const world = follower.node.computeWorldMatrix(true);
    Vector3.TransformCoordinatesToRef(follower.localPosition, world, follower.currentPosition);
    Vector3.TransformNormalToRef(follower.localDirection, world, follower.currentDirection);
    const length = follower.currentDirection.length();
    if (!(length > 1e-12)) {
      throw new FluidError(`emitter node '${follower.node.name}' maps its local direction to zero length`);
    }
    follower.currentDirection.scaleInPlace(1 / length);
  }

  /** Reads every followed node's current world pose (start of a frame's steps). */
  private readFollowedPoses(bodiesOnly = false): void {
    for (const follower of this.colliders.values()) {
      if (bodiesOnly && !this.bodies?.has(follower.collider)) continue;
      const { previous, current } = follower;
      previous.position[0] = current.position[0];
      previous.position[1] = current.position[1];
      previous.position[2] = current.position[2];
      for (let k = 0; k < 4; k++) previous.rotation[k] = current.rotation[k];
      previous.scaling = current.scaling;
      readWorldPose(follower.mesh, current);
    }
    if (bodiesOnly) return;
    for (const follower of this.emitters.values()) {
      follower.previousPosition.copyFrom(follower.currentPosition);
      follower.previousDirection.copyFrom(follower.currentDirection);
      this.readEmitterNode(follower);
    }
  }

  /**
   * Hands the simulation the followed poses at `fraction` of the way from the last frame's poses to this
   * frame's (1 at the frame's last step), so several steps in one frame move colliders smoothly.
   */
  private applyFollowedPoses(frameFraction: number): void {
    const simulation = this.simulation;
    for (const follower of this.colliders.values()) {
      const { previous, current } = follower;
      const pose = scratchPose;
      // A coupled body's poses are read after every physics step: its collider goes the whole way.
      const fraction = this.bodies?.has(follower.collider) === true ? 1 : frameFraction;
      for (let k = 0; k < 3; k++) {
        pose.position[k] = previous.position[k] + fraction * (current.position[k] - previous.position[k]);
      }
      scratchRotationA.set(previous.rotation[0], previous.rotation[1], previous.rotation[2], previous.rotation[3]);
      scratchRotationB.set(current.rotation[0], current.rotation[1], current.rotation[2], current.rotation[3]);
      Quaternion.SlerpToRef(scratchRotationA, scratchRotationB, fraction, scratchRotationA);
      pose.rotation[0] = scratchRotationA.x;
      pose.rotation[1] = scratchRotationA.y;
      pose.rotation[2] = scratchRotationA.z;
      pose.rotation[3] = scratchRotationA.w;
      pose.scaling = previous.scaling + fraction * (current.scaling - previous.scaling);
      if (follower.grownSteps < follower.growthSteps) {
        follower.grownSteps++;
        pose.scaling *= bodyGrowth(follower);
      }
      simulation.setColliderTransform(follower.collider, pose);
    }
    for (const follower of this.emitters.values()) {
      Vector3.LerpToRef(follower.previousPosition, follower.currentPosition, frameFraction, scratchVector);
      scratchPosition[0] = scratchVector.x;
      scratchPosition[1] = scratchVector.y;
      scratchPosition[2] = scratchVector.z;
      Vector3.LerpToRef(follower.previousDirection, follower.currentDirection, frameFraction, scratchVector);
      if (scratchVector.lengthSquared() < 1e-12) scratchVector.copyFrom(follower.currentDirection);
      scratchDirection[0] = scratchVector.x;
      scratchDirection[1] = scratchVector.y;
      scratchDirection[2] = scratchVector.z;
      simulation.setEmitterTransform(follower.emitter, { position: scratchPosition, direction: scratchDirection });
    }
  }

  /** How many steps this frame takes, updating the accumulator and the dropped time. */
  private stepsForFrame(): number {
    const timeStep = this.simulation.settings.timeStep;
    const frameTime = this.useDeltaTime
      ? (this.scene.getEngine().getDeltaTime() / 1000) * this.scale
      : timeStep * this.scale;
    this.accumulator += Number.isFinite(frameTime) && frameTime > 0 ? frameTime : 0;
    let steps = Math.floor(this.accumulator / timeStep + 1e-9);
    if (steps > this.maximumSteps) {
      // Keep the fraction of a step already due; for an absurd frame (1e300 ms) the difference is rounding
      // noise as large as the frame, and nothing is kept.
      let remainder = this.accumulator - steps * timeStep;
      if (!(remainder >= 0 && remainder < timeStep)) remainder = 0;
      const dropped = this.accumulator - remainder - this.maximumSteps * timeStep;
      this.accumulator = remainder + this.maximumSteps * timeStep;
      this.droppedTime += dropped;
      steps = this.maximumSteps;
      this.onTimeDroppedObservable.notifyObservers(dropped);
    }
    this.accumulator = Math.max(0, this.accumulator - steps * timeStep);
    return steps;
  }

  /**
   * One frame: steps (with followed poses), events, then the render feed. No step before the simulation is
   * ready (WebGPU shaders compiling). Errors are reported, never thrown into the render loop.
   */
  private frame(): void {
    if (this.disposed) return;
    this.stepsLastFrame = 0;
    try {
      const coupled = this.bodies !== undefined && (this.bodies.count > 0 || this.pendingBodies > 0);
      // Without coupled bodies Babylon's render loop steps the physics again.
      if (!coupled) this.bodies?.hold(false);
      if (coupled && this.bodies !== undefined) {
        this.frameWithBodies(this.bodies);
      } else if (!this.paused && !this.restoring && this.simulation.isReady) {
        const steps = this.stepsForFrame();
        if (steps > 0) {
          this.readFollowedPoses();
          for (let step = 1; step <= steps; step++) {
            this.applyFollowedPoses(step / steps);
            this.simulation.step();
            recordStep(this.simulation, this.buffers);
            this.stepsLastFrame++;
            this.notifyStep();
          }
        }
      }
    } catch (error) {
      this.reportError(error);
    }
    try {
      this.render();
    } catch (error) {
      this.reportError(error);
    }
  }

  /**
   * A frame with coupled bodies: the plugin steps the physics engine itself, in pairs with the fluid's
   * steps (see `RigidBodyBridge`), as many pairs as the frame's time gives (`useDeltaTime`, `timeScale`,
   * `maxStepsPerFrame` as without bodies). On the CPU backend a pair is a fluid step, the impulses, a
   * physics step. On the WebGPU backend it is the impulses of the last fluid step (once its readback has
   * arrived), a physics step, a fluid step; one pair per frame at most, and none while a readback is in
   * flight. While the fluid cannot step (paused, restoring, shaders compiling) the physics does not
   * step either, so bodies never fall through still water.
   */
  private frameWithBodies(bodies: RigidBodyBridge): void {
    const simulation = this.simulation;
    bodies.hold(true);
    if (this.paused || this.restoring || !simulation.isReady) return;
    if (simulation.backend === 'webgpu') {
      if (simulation.readbackInFlight) return;
      // The frame's time beyond one pair is dropped (counted in droppedTime): the GPU sets the pace.
      const steps = this.stepsForFrame();
      if (steps === 0) return;
      if (steps > 1) this.droppedTime += (steps - 1) * simulation.settings.timeStep;
      bodies.applyImpulses();
      bodies.stepPhysics();
      this.readFollowedPoses();
      this.coupledFluidStep(1);
      return;
    }
    const steps = this.stepsForFrame();
    if (steps > 0) this.readFollowedPoses();
    for (let step = 1; step <= steps; step++) {
      // Bodies moved in the last pair's physics step: read them again; other followers interpolate.
      if (step > 1) this.readFollowedPoses(true);
      this.coupledFluidStep(step / steps);
      bodies.applyImpulses();
      bodies.stepPhysics();
    }
  }

  /** One fluid step of a coupled frame: followed poses (at `fraction` of the frame), the step, events. */
  private coupledFluidStep(fraction: number): void {
    this.applyFollowedPoses(fraction);
    this.simulation.step();
    recordStep(this.simulation, this.buffers);
    this.stepsLastFrame++;
    this.notifyStep();
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
   * Feeds the current mode's view (nothing is read in mode `'none'`). On the WebGPU backend the views draw
   * from the simulation's position buffer, and, where they color particles one by one (the debug views;
   * the water when `colorBy` is not `'material'` or the particles are of several materials), from the
   * color buffer the GPU color pass fills after the steps (`feedGpuColors`).
   */
  private render(): void {
    // A lost context draws nothing; views made now would compile effects that Babylon's restoration then
    // trips over. Steps go on (on the CPU after a lost WebGPU device), the views catch up once restored.
    if (this.contextLost) return;
    const mode = this.mode;
    const onGpu = this.simulation.gpuSolver !== undefined;
    const fed = FluidViews.needsFeed(mode);
    if (fed) {
      if (!onGpu) this.views.prepare(mode);
      feedParticles(this.simulation, this.buffers, this.coloring, this.colorRanges);
    }
    // Only the water switches between one tint and per-particle colors; the debug views always color per particle.
    const useDiffuseColors = mode === 'fluid' && (this.coloring !== 'material' || !this.singleMaterial());
    if (fed && onGpu && FluidViews.needsParticleColors(mode, useDiffuseColors)) {
      feedGpuColors(this.simulation, this.buffers, this.coloring, this.colorRanges, this.scene.getEngine());
    }
    this.views.show(mode, useDiffuseColors);
  }

  /**
   * The material of the first live particle (0 when there is none): the color of the views that take one
   * (the water's tint when it is not per particle, the surface views). Read from
   * the CPU buffers when the current mode fed them this frame; otherwise (the WebGPU backend, or the
   * `'surface'`, `'splats'` and `'none'` modes, which skip the feed and leave the buffers empty or stale)
   * from the simulation.
   */
  private firstParticleMaterial(): number {
    const buffers = this.buffers;
    const simulation = this.simulation;
    const material = simulation.components.Particle.material;
    if (buffers.gpuPositions === undefined && FluidViews.needsFeed(this.mode)) {
      return buffers.count > 0 ? material[buffers.ids[0]] : 0;
    }
    const count = simulation.particleCount;
    if (count === 0) return 0;
    // Written into the feed's id buffer when it fits (no allocation; the next feed writes it again).
    return material[(count <= buffers.ids.length ? simulation.particles(buffers.ids) : simulation.particles())[0]];
  }

  /**
   * True when every fed particle has the material of the first one (the water tint is that material's
   * color). On the WebGPU backend, every live particle (the CPU keeps each particle's material; no readback).
   */
  private singleMaterial(): boolean {
    const buffers = this.buffers;
    const simulation = this.simulation;
    const material = simulation.components.Particle.material;
    let ids = buffers.ids;
    let count = buffers.count;
    if (buffers.gpuPositions !== undefined) {
      count = simulation.particleCount;
      ids = count <= ids.length ? simulation.particles(ids) : simulation.particles();
    }
    if (count === 0) return true;
    const first = material[ids[0]];
    for (let place = 1; place < count; place++) if (material[ids[place]] !== first) return false;
    return true;
  }

  /**
   * Stops stepping, removes the plugin's observers from the scene and the meshes, disposes the views (the
   * fluid render object, debug meshes and materials) and the observables, and frees the simulation's GPU
   * objects (`simulation.dispose()`). The simulation stays usable headless, on the CPU, from its
   * components (on the WebGPU backend: the last mirrored state). Safe to call twice. Afterwards the
   * plugin's calls that add, remove or change things (`addMeshCollider`, `addRigidBody`, `removeCollider`,
   * `addEmitter`, `removeEmitter`, `addDrain`, `removeDrain`, `spawn`, `markParticlesChanged`) throw
   * {@link FluidError}; its getters, setters and `scene.render()` are harmless no-ops for the fluid.
   */
  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    this.scene.onBeforeRenderObservable.remove(this.beforeRenderObserver);
    this.scene.onDisposeObservable.remove(this.sceneDisposeObserver);
    this.simulation.onBackendChanged.delete(this.backendListener);
    const engine = this.scene.getEngine();
    engine.onContextLostObservable.remove(this.contextObservers[0]);
    engine.onContextRestoredObservable.remove(this.contextObservers[1]);
    for (const follower of this.colliders.values()) {
      follower.mesh.onDisposeObservable.remove(follower.disposeObserver);
    }
    this.colliders.clear();
    this.bodies?.dispose();
    this.emitters.clear();
    this.views.dispose();
    releaseGpuColors(this.buffers);
    this.simulation.dispose();
    this.buffers.gpuPositions = undefined;
    this.buffers.steppedSolver = undefined;
    this.onAfterStepObservable.clear();
    this.onParticlesEmittedObservable.clear();
    this.onParticlesRemovedObservable.clear();
    this.onBackendChangedObservable.clear();
    this.onErrorObservable.clear();
    this.onTimeDroppedObservable.clear();
  }

  /** True once {@link FluidPlugin.dispose} ran. */
  get isDisposed(): boolean {
    return this.disposed;
  }
}
