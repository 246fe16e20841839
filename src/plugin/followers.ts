/**
 * The node followers of `FluidPlugin`: mesh colliders kept on their meshes' world poses (a rigid body placed
 * into the water growing to full size over its first steps) and emitters kept on their nodes. Each frame
 * reads the nodes' poses once and hands the simulation poses interpolated over the frame's steps. Owns the
 * followers and the dispose observers on their meshes.
 */

import { Quaternion, Vector3 } from '@babylonjs/core/Maths/math.vector.js';
import type { AbstractMesh } from '@babylonjs/core/Meshes/abstractMesh.js';
import type { TransformNode } from '@babylonjs/core/Meshes/transformNode.js';
import type { Observer } from '@babylonjs/core/Misc/observable.js';
import type { Node } from '@babylonjs/core/node.js';
import { ColliderShape } from '../components/collider';
import { checkVector3, type Vector3Input } from '../core/checks';
import { FluidError } from '../core/errors';
import type { EmitterOptions, RigidBodyCouplingOptions } from '../systems/options';
import type { FluidSimulation } from '../systems/simulation';
import { bakeMeshField, createWorldPose, type MeshFieldOptions, readWorldPose, type WorldPose } from './meshCollider';
import type { PluginMeshColliderOptions } from './options';

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

/** Reads a followed emitter node's world position and direction into `current*`. */
function readEmitterNode(follower: EmitterFollower): void {
  const world = follower.node.computeWorldMatrix(true);
  Vector3.TransformCoordinatesToRef(follower.localPosition, world, follower.currentPosition);
  Vector3.TransformNormalToRef(follower.localDirection, world, follower.currentDirection);
  const length = follower.currentDirection.length();
  if (!(length > 1e-12)) {
    throw new FluidError(`emitter node '${follower.node.name}' maps its local direction to zero length`);
  }
  follower.currentDirection.scaleInPlace(1 / length);
}

/** The mesh colliders and emitters that follow Babylon meshes and nodes. */
export class NodeFollowers {
  private readonly colliders = new Map<number, ColliderFollower>();
  private readonly emitters = new Map<number, EmitterFollower>();
  /** True once {@link NodeFollowers.dispose} ran (with the plugin's `dispose`). */
  private disposed = false;

  /**
   * @param simulation The simulation whose colliders and emitters follow.
   * @param isBody True while `collider` is a coupled body's collider (its poses are read after every
   * physics step, so its collider goes the whole way at each step).
   * @param onMeshDisposed Called for a followed collider whose mesh was disposed (the plugin removes it).
   */
  constructor(
    private readonly simulation: FluidSimulation,
    private readonly isBody: (collider: number) => boolean,
    private readonly onMeshDisposed: (collider: number) => void,
  ) {}

  /**
   * Bakes `mesh` into a signed distance field, adds it to the simulation as a collider and keeps the
   * collider on the mesh: moved to the mesh's pose now, without sweeping, and from then on every frame.
   * `growth`, if given, says over how many steps the collider grows from a tenth (`INITIAL_GROWTH`) of its
   * size to full size (see PluginRigidBodyOptions.insertionTime). Throws {@link FluidError} when the
   * followers were disposed while the mesh was baking.
   *
   * @returns The collider entity id.
   */
  async addMeshCollider(
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
      if (this.colliders.has(collider)) this.onMeshDisposed(collider);
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

  /** Stops following the mesh of `collider` (no-op if it follows none). */
  removeCollider(collider: number): void {
    const follower = this.colliders.get(collider);
    if (follower !== undefined) {
      follower.mesh.onDisposeObservable.remove(follower.disposeObserver);
      this.colliders.delete(collider);
    }
  }

  /**
   * Adds an emitter (the simulation's `addEmitter` with `options`) that sits at `localPosition` in `node`'s
   * space and points along `localDirection` turned by the node's world rotation, from now on every frame.
   *
   * @returns The emitter entity id.
   */
  addNodeEmitter(
    node: TransformNode,
    localPosition: Vector3Input | undefined,
    localDirection: Vector3Input | undefined,
    options: Omit<EmitterOptions, 'position'>,
  ): number {
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
    readEmitterNode(follower);
    follower.previousPosition.copyFrom(follower.currentPosition);
    follower.previousDirection.copyFrom(follower.currentDirection);
    const emitter = this.simulation.addEmitter({
      ...options,
      position: follower.currentPosition,
      direction: follower.currentDirection,
    });
    this.emitters.set(emitter, { ...follower, emitter });
    return emitter;
  }

  /** Stops following the node of `emitter` (no-op if it follows none). */
  removeEmitter(emitter: number): void {
    this.emitters.delete(emitter);
  }

  /** Reads every followed node's current world pose (start of a frame's steps); `bodiesOnly`: the bodies' meshes. */
  read(bodiesOnly = false): void {
    for (const follower of this.colliders.values()) {
      if (bodiesOnly && !this.isBody(follower.collider)) continue;
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
      readEmitterNode(follower);
    }
  }

  /**
   * Hands the simulation the followed poses at `fraction` of the way from the last frame's poses to this
   * frame's (1 at the frame's last step), so several steps in one frame move colliders smoothly.
   */
  apply(frameFraction: number): void {
    const simulation = this.simulation;
    for (const follower of this.colliders.values()) {
      const { previous, current } = follower;
      const pose = scratchPose;
      // A coupled body's poses are read after every physics step: its collider goes the whole way.
      const fraction = this.isBody(follower.collider) ? 1 : frameFraction;
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

  /** After a restore: drops the followers of ids that are gone and starts the others from the restored poses. */
  followRestoredState(): void {
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
   * Stops following every mesh and node: removes the observers on the meshes. A mesh still baking then
   * adds no collider (`addMeshCollider` throws).
   */
  dispose(): void {
    this.disposed = true;
    for (const follower of this.colliders.values()) {
      follower.mesh.onDisposeObservable.remove(follower.disposeObserver);
    }
    this.colliders.clear();
    this.emitters.clear();
  }
}
