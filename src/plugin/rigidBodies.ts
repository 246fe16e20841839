/**
 * The Havok bridge of two-way rigid-body coupling: hands the impulses the fluid gave each coupled body
 * (the `BodyCoupling` accumulators, filled by the solver) to Havok once per physics step, and keeps each
 * body's center of mass in its collider's local space. The fluid-on-body numerics live in
 * `src/systems/couple`; the body-on-fluid half is the collider following the body's mesh.
 */
import { Vector3 } from '@babylonjs/core/Maths/math.vector.js';
import type { AbstractMesh } from '@babylonjs/core/Meshes/abstractMesh.js';
import type { PhysicsAggregate } from '@babylonjs/core/Physics/v2/physicsAggregate.js';
import type { PhysicsBody } from '@babylonjs/core/Physics/v2/physicsBody.js';
import type { PhysicsEngine } from '@babylonjs/core/Physics/v2/physicsEngine.js';
import type { Scene } from '@babylonjs/core/scene.js';
import type { Vector3Tuple } from '../core/checks';
import { FluidError } from '../core/errors';
import type { BodyImpulse, RigidBodyCouplingOptions } from '../systems/options';
import type { FluidSimulation } from '../systems/simulation';
import { createWorldPose, readWorldPose, type WorldPose } from './meshCollider';

/** A Babylon Physics V2 body, or the aggregate holding one. */
export type RigidBodyLike = PhysicsBody | PhysicsAggregate;

/** The `PhysicsBody` of `body` (an aggregate's body, or the body itself). */
export function resolvePhysicsBody(body: RigidBodyLike): PhysicsBody {
  const candidate = (body as { body?: unknown }).body !== undefined ? (body as PhysicsAggregate).body : body;
  const physicsBody = candidate as PhysicsBody | undefined;
  if (physicsBody === undefined || typeof physicsBody.applyImpulse !== 'function') {
    throw new FluidError('addRigidBody: body is not a Babylon Physics V2 PhysicsBody or PhysicsAggregate');
  }
  return physicsBody;
}

/**
 * The mesh the collider of `physicsBody` follows: `mesh` (`PluginRigidBodyOptions.mesh`), else the body's
 * transform node, which must then be a mesh.
 */
export function resolveBodyMesh(physicsBody: PhysicsBody, mesh: AbstractMesh | undefined): AbstractMesh {
  const resolved = mesh ?? (physicsBody.transformNode as AbstractMesh);
  if (typeof (resolved as { getVerticesData?: unknown }).getVerticesData !== 'function') {
    throw new FluidError(
      `addRigidBody: the body's node '${physicsBody.transformNode.name}' is not a mesh; pass options.mesh`,
    );
  }
  return resolved;
}

/** The coupling options of the collider of `physicsBody` that follows `mesh`: its center of mass and mass. */
export function bodyCoupling(physicsBody: PhysicsBody, mesh: AbstractMesh): RigidBodyCouplingOptions {
  return { centerOfMass: centerOfMassInMesh(physicsBody, mesh), mass: physicsBody.getMassProperties().mass ?? 0 };
}

/** A body coupled with its collider. */
export interface CoupledBody {
  /** The collider entity id. */
  readonly collider: number;
  /** The Havok body. */
  readonly body: PhysicsBody;
  /** The mesh the collider follows. */
  readonly mesh: AbstractMesh;
}

const scratchImpulse: BodyImpulse = { impulse: [0, 0, 0], angularImpulse: [0, 0, 0] };
const scratchCenter = new Vector3();
const scratchVector = new Vector3();
const scratchPose: WorldPose = createWorldPose();

/**
 * The body's center of mass in the local space of `mesh` (the collider's space, local units), from
 * Havok's world-space center and the mesh's world pose.
 */
export function centerOfMassInMesh(body: PhysicsBody, mesh: AbstractMesh): Vector3Tuple {
  body.getObjectCenterWorldToRef(scratchCenter);
  const pose = readWorldPose(mesh, scratchPose);
  const [qx, qy, qz, qw] = pose.rotation;
  const dx = scratchCenter.x - pose.position[0];
  const dy = scratchCenter.y - pose.position[1];
  const dz = scratchCenter.z - pose.position[2];
  // Rotate by the inverse quaternion: v' = v + 2 w (q x v)... with q = (-qx, -qy, -qz, qw).
  const ix = -qx;
  const iy = -qy;
  const iz = -qz;
  const tx = 2 * (iy * dz - iz * dy);
  const ty = 2 * (iz * dx - ix * dz);
  const tz = 2 * (ix * dy - iy * dx);
  const rx = dx + qw * tx + (iy * tz - iz * ty);
  const ry = dy + qw * ty + (iz * tx - ix * tz);
  const rz = dz + qw * tz + (ix * ty - iy * tx);
  const inverseScale = 1 / pose.scaling;
  return [rx * inverseScale, ry * inverseScale, rz * inverseScale];
}

/**
 * The physics side of the coupling. While bodies are coupled, the plugin steps the scene's physics engine
 * itself, in pairs with the fluid's steps of the same length (Babylon's render loop is kept from stepping
 * it): a fluid step, in which each body's collider moves as Havok moved the body in the last physics step;
 * then {@link RigidBodyBridge.applyImpulses} hands the bodies what the fluid gave them (the linear impulse
 * at the center of mass and the angular impulse about it, with `applyImpulse` and `applyAngularImpulse`);
 * then {@link RigidBodyBridge.stepPhysics}. Impulses, not forces: Babylon's `applyForce` converts with the
 * plugin's fixed time step, not the time the fluid actually covered. The coupling is explicit with a lag
 * of one physics step, and every step has the fluid's fixed length, so 30, 60 and 120 frames per second
 * run the same sequence of steps. (Moving the collider along a prediction of the body's next motion was
 * tried: it made resting bodies jitter.)
 *
 * On the WebGPU backend a step's impulses arrive with its readback, after the step. One more step of lag
 * makes light bodies bounce out of the water (measured on the CPU by delaying the impulses one step), so
 * there the plugin waits: a physics step as soon as the last fluid step's impulses have arrived, then the
 * next fluid step, at most one pair per frame. The lag is then the same as on the CPU; when the readbacks
 * take longer than a frame, the simulation slows down rather than lag.
 */
export class RigidBodyBridge {
  private readonly bodies = new Map<number, CoupledBody>();
  private readonly engine: PhysicsEngine;
  /** True while the bridge keeps Babylon from stepping the physics (see {@link RigidBodyBridge.hold}). */
  private holding = false;

  /**
   * Takes over `scene`'s physics engine (its time step becomes the fluid's); throws {@link FluidError} if
   * the scene has no Physics V2 engine.
   */
  constructor(
    private readonly scene: Scene,
    private readonly simulation: FluidSimulation,
  ) {
    const engine = scene.getPhysicsEngine?.() as PhysicsEngine | null | undefined;
    if (engine === undefined || engine === null) {
      throw new FluidError(
        'addRigidBody: the scene has no physics engine; call scene.enablePhysics(gravity, havokPlugin) first',
      );
    }
    if (engine.getPluginVersion() !== 2) {
      throw new FluidError('addRigidBody: the scene runs Physics V1; coupling needs Physics V2 (HavokPlugin)');
    }
    // A HavokPlugin made with useDeltaForWorldStep false steps this time step; otherwise the given one.
    engine.setTimeStep(simulation.settings.timeStep);
    this.engine = engine;
  }

  /** Number of coupled bodies. */
  get count(): number {
    return this.bodies.size;
  }

  /** The coupled bodies' collider ids and bodies. */
  entries(): IterableIterator<CoupledBody> {
    return this.bodies.values();
  }

  /** The coupled body of `collider`, if any. */
  bodyOf(collider: number): PhysicsBody | undefined {
    return this.bodies.get(collider)?.body;
  }

  /** Couples `body` with the simulation's collider `collider`, which follows `mesh`. */
  add(collider: number, body: PhysicsBody, mesh: AbstractMesh): void {
    this.bodies.set(collider, { collider, body, mesh });
  }

  /** Stops coupling the body of `collider` (no-op if it is not coupled). */
  remove(collider: number): void {
    this.bodies.delete(collider);
  }

  /** True while `collider` is a coupled body's collider. */
  has(collider: number): boolean {
    return this.bodies.has(collider);
  }

  /**
   * Keeps Babylon's render loop from stepping the physics engine (`scene.physicsEnabled = false`) while
   * `held` is true, and lets it step again (as it was before) when false.
   */
  hold(held: boolean): void {
    if (held && !this.holding && this.scene.physicsEnabled) {
      this.scene.physicsEnabled = false;
      this.holding = true;
    } else if (!held && this.holding) {
      this.scene.physicsEnabled = true;
      this.holding = false;
    }
  }

  /**
   * One physics step of the fluid's time step, as Babylon's render loop would run it: the observers of
   * `onBeforePhysicsObservable`, the step, the observers of `onAfterPhysicsObservable`.
   */
  stepPhysics(): void {
    const physicsScene = this.scene as Scene & {
      onBeforePhysicsObservable?: Scene['onBeforeRenderObservable'];
      onAfterPhysicsObservable?: Scene['onBeforeRenderObservable'];
    };
    physicsScene.onBeforePhysicsObservable?.notifyObservers(this.scene);
    this.engine._step(this.simulation.settings.timeStep);
    physicsScene.onAfterPhysicsObservable?.notifyObservers(this.scene);
  }

  /** Gives the physics engine back to Babylon's render loop. */
  dispose(): void {
    this.hold(false);
    this.bodies.clear();
  }

  /** Hands every coupled body the impulses accumulated since the last call. */
  applyImpulses(): void {
    const simulation = this.simulation;
    const coupling = simulation.components.BodyCoupling;
    for (const coupled of this.bodies.values()) {
      const { collider, body, mesh } = coupled;
      if (body.isDisposed || !simulation.isCollider(collider)) continue;
      const { impulse, angularImpulse } = simulation.takeBodyImpulse(collider, scratchImpulse);
      body.getObjectCenterWorldToRef(scratchCenter);
      if (impulse[0] !== 0 || impulse[1] !== 0 || impulse[2] !== 0) {
        body.applyImpulse(scratchVector.set(impulse[0], impulse[1], impulse[2]), scratchCenter);
      }
      if (angularImpulse[0] !== 0 || angularImpulse[1] !== 0 || angularImpulse[2] !== 0) {
        body.applyAngularImpulse(scratchVector.set(angularImpulse[0], angularImpulse[1], angularImpulse[2]));
      }
      // The center of mass may change (computeMassProperties, setMassProperties): keep it current.
      const center = centerOfMassInMesh(body, mesh);
      coupling.centerOfMassX[collider] = center[0];
      coupling.centerOfMassY[collider] = center[1];
      coupling.centerOfMassZ[collider] = center[2];
      coupling.mass[collider] = body.getMassProperties().mass ?? 0;
    }
  }
}
