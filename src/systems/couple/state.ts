/**
 * The coupling's data: the wall-gradient list and the pending pushes (couple/cpu.ts fills and drains them;
 * context.ts allocates them). Imports nothing of the simulation, so the context can allocate it
 * (docs/ARCHITECTURE.md, "Layers").
 */

/** Wall-weight gradients that coupled colliders contributed in the current solver iteration. */
export interface CouplingWallList {
  /** Entries in use. */
  count: number;
  /** Particle place per entry. */
  particle: Int32Array;
  /** Collider slot per entry. */
  slot: Int32Array;
  /** The collider's share of the particle's wall-weight gradient (1/m^4, world space). */
  gradient: Float64Array;
}

/** An empty list with room for `entries` entries; it grows when needed. */
export function createCouplingWallList(entries: number): CouplingWallList {
  return {
    count: 0,
    particle: new Int32Array(entries),
    slot: new Int32Array(entries),
    gradient: new Float64Array(3 * entries),
  };
}

/** Pending pushes kept per particle (the GPU's contact record holds as many). */
export const PENDING_PUSHES = 2;

/** Numbers per pending push: collider slot (-1: free), then the displacement (m, world space). */
export const PENDING_STRIDE = 4;

/** Pending-push storage for `capacity` particle places, all free. */
export function createPendingPushes(capacity: number): Float64Array {
  const pushes = new Float64Array(capacity * PENDING_PUSHES * PENDING_STRIDE);
  for (let k = 0; k < pushes.length; k += PENDING_STRIDE) pushes[k] = -1;
  return pushes;
}
