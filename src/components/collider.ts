/**
 * The `Collider` component: a solid or container the fluid collides with, either an analytic shape or a
 * signed distance field baked from a mesh. Shape parameters are in the collider's local space; the pose
 * (position, rotation quaternion and uniform scaling) maps local space to world space. Data only.
 */

/** Numeric shape codes stored in `Collider.shape`. */
export const ColliderShape = {
  /** Axis-aligned box in local space: `a` = min corner, `b` = max corner. */
  box: 0,
  /** Sphere: `a` = center, `radius`. */
  sphere: 1,
  /** Capsule: segment `a`..`b`, `radius`. */
  capsule: 2,
  /** Half-space: `a` = a point on the plane, `b` = unit normal; the solid lies opposite the normal. */
  plane: 3,
  /**
   * Signed distance field baked from a triangle mesh (Harada et al. 2007, section 3): `field` indexes
   * the simulation's field list (`FluidSimulation.fields`).
   */
  mesh: 4,
} as const;

/** One of the {@link ColliderShape} codes. */
export type ColliderShapeCode = (typeof ColliderShape)[keyof typeof ColliderShape];

/** Structure-of-arrays collider store, indexed by the collider's entity id. */
export interface ColliderStore {
  /** Shape code, see {@link ColliderShape}. */
  readonly shape: Uint8Array;
  /** 1 keeps the fluid inside the shape, 0 keeps it outside. */
  readonly container: Uint8Array;
  /** Coulomb friction coefficient (dimensionless, >= 0). */
  readonly friction: Float64Array;
  /** Coefficient of restitution in 0..1 for the normal velocity. */
  readonly restitution: Float64Array;
  /** First shape point (local space, m): box min, sphere center, capsule end, plane point. */
  readonly ax: Float64Array;
  /** See {@link ColliderStore.ax}. */
  readonly ay: Float64Array;
  /** See {@link ColliderStore.ax}. */
  readonly az: Float64Array;
  /** Second shape vector (local space): box max, capsule end (m), plane unit normal. */
  readonly bx: Float64Array;
  /** See {@link ColliderStore.bx}. */
  readonly by: Float64Array;
  /** See {@link ColliderStore.bx}. */
  readonly bz: Float64Array;
  /** Radius in metres (sphere, capsule). */
  readonly radius: Float64Array;
  /** Mesh shape: index of the collider's signed distance field in the simulation's field list; -1 otherwise. */
  readonly field: Int32Array;
  /**
   * 1 adds the wall's density contribution (Harada et al. 2007, wall weight function, eq. 12) to nearby
   * particles, so they neither stack against the wall nor stop short of it; 0 leaves only the collision.
   */
  readonly wallWeights: Uint8Array;
  /** Pose uniform scaling at the end of the next step (dimensionless, > 0): local lengths times this are metres. */
  readonly scale: Float64Array;
  /** Pose uniform scaling at the start of the next step. */
  readonly previousScale: Float64Array;
  /** Pose translation at the end of the next step (m). */
  readonly positionX: Float64Array;
  /** See {@link ColliderStore.positionX}. */
  readonly positionY: Float64Array;
  /** See {@link ColliderStore.positionX}. */
  readonly positionZ: Float64Array;
  /** Pose rotation quaternion (x, y, z, w) at the end of the next step. */
  readonly rotationX: Float64Array;
  /** See {@link ColliderStore.rotationX}. */
  readonly rotationY: Float64Array;
  /** See {@link ColliderStore.rotationX}. */
  readonly rotationZ: Float64Array;
  /** See {@link ColliderStore.rotationX}. */
  readonly rotationW: Float64Array;
  /** Pose translation at the start of the next step (m): where the collider was after the last step. */
  readonly previousPositionX: Float64Array;
  /** See {@link ColliderStore.previousPositionX}. */
  readonly previousPositionY: Float64Array;
  /** See {@link ColliderStore.previousPositionX}. */
  readonly previousPositionZ: Float64Array;
  /** Pose rotation at the start of the next step. */
  readonly previousRotationX: Float64Array;
  /** See {@link ColliderStore.previousRotationX}. */
  readonly previousRotationY: Float64Array;
  /** See {@link ColliderStore.previousRotationX}. */
  readonly previousRotationZ: Float64Array;
  /** See {@link ColliderStore.previousRotationX}. */
  readonly previousRotationW: Float64Array;
  /**
   * Temperature of the collider's surface in kelvin (a hot floor, a cold ceiling), range [0.001, 1e6].
   * Default 293.15. Acts only when `heatTransfer` is above 0.
   */
  readonly temperature: Float64Array;
  /**
   * Heat-transfer rate k to the fluid in 1/s, range [0, 1e4]: a particle within the kernel radius h of the
   * surface (fluid-side distance d) changes its temperature by dT/dt = k (1 - d / h) (T_collider - T)
   * (Newton's law of cooling, weighted by closeness). Default 0 (adiabatic, no cost).
   */
  readonly heatTransfer: Float64Array;
}

/** Allocates the collider store for entity ids `0 .. size - 1`. */
export function createColliderStore(size: number): ColliderStore {
  const f = () => new Float64Array(size);
  return {
    shape: new Uint8Array(size),
    container: new Uint8Array(size),
    friction: f(),
    restitution: f(),
    ax: f(),
    ay: f(),
    az: f(),
    bx: f(),
    by: f(),
    bz: f(),
    radius: f(),
    field: new Int32Array(size).fill(-1),
    wallWeights: new Uint8Array(size),
    scale: new Float64Array(size).fill(1),
    previousScale: new Float64Array(size).fill(1),
    positionX: f(),
    positionY: f(),
    positionZ: f(),
    rotationX: f(),
    rotationY: f(),
    rotationZ: f(),
    rotationW: f(),
    previousPositionX: f(),
    previousPositionY: f(),
    previousPositionZ: f(),
    previousRotationX: f(),
    previousRotationY: f(),
    previousRotationZ: f(),
    previousRotationW: f(),
    temperature: new Float64Array(size).fill(293.15),
    heatTransfer: f(),
  };
}
