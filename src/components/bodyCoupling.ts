/**
 * The `BodyCoupling` component: on a collider entity, makes the fluid's reaction on the collider
 * measurable, so a rigid body simulation (Havok through the plugin's `addRigidBody`, or game code) can
 * move the collider in response. Data only: the solver adds to the impulse accumulators; whoever moves
 * the body reads them and sets them back to zero.
 *
 * The impulses are what the fluid gives the body over the steps since the accumulators were last cleared
 * (Newton's third law: minus the momentum the body's collisions, wall-weight pressure and contact
 * response gave the particles). An impulse, not a force: it does not depend on the time step or on how
 * many fluid steps fell into one physics step.
 */

/** Structure-of-arrays body coupling store, indexed by the collider's entity id. */
export interface BodyCouplingStore {
  /** 1: the fluid's impulses on this collider are accumulated; 0 (default): the collider is not coupled. */
  readonly coupled: Uint8Array;
  /** Center of mass in the collider's local space (local units: times the pose's scale for metres). */
  readonly centerOfMassX: Float64Array;
  /** See {@link BodyCouplingStore.centerOfMassX}. */
  readonly centerOfMassY: Float64Array;
  /** See {@link BodyCouplingStore.centerOfMassX}. */
  readonly centerOfMassZ: Float64Array;
  /**
   * The body's mass in kg, 0 when unknown (default). With a mass, the coarse pressure projection of the
   * PBF solver moves the body's cells as a fluid of the body's own density (projection/cpu.ts, the "rigid
   * fluid" of Carlson et al. 2004), so the water's global pressure lifts it, implicitly; with 0 it is a
   * moving wall there, which is unstable for bodies much lighter than the water they push.
   */
  readonly mass: Float64Array;
  /** Linear impulse the fluid gave the body since the accumulators were cleared (N s, world space). */
  readonly impulseX: Float64Array;
  /** See {@link BodyCouplingStore.impulseX}. */
  readonly impulseY: Float64Array;
  /** See {@link BodyCouplingStore.impulseX}. */
  readonly impulseZ: Float64Array;
  /** Angular impulse about the center of mass over the same time (N m s, world space). */
  readonly angularImpulseX: Float64Array;
  /** See {@link BodyCouplingStore.angularImpulseX}. */
  readonly angularImpulseY: Float64Array;
  /** See {@link BodyCouplingStore.angularImpulseX}. */
  readonly angularImpulseZ: Float64Array;
}

/** Allocates the body coupling store for entity ids `0 .. size - 1`. */
export function createBodyCouplingStore(size: number): BodyCouplingStore {
  const f = () => new Float64Array(size);
  return {
    coupled: new Uint8Array(size),
    centerOfMassX: f(),
    centerOfMassY: f(),
    centerOfMassZ: f(),
    mass: f(),
    impulseX: f(),
    impulseY: f(),
    impulseZ: f(),
    angularImpulseX: f(),
    angularImpulseY: f(),
    angularImpulseZ: f(),
  };
}
