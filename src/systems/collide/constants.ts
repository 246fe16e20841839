/**
 * Constants of the collision projection that the CPU (collide/cpu.ts) and the WGSL (collide.wgsl, through the
 * generated preamble of gpu/structs.ts) share, defined once. Imports nothing.
 */

/** Projections after the first one for a particle still closer than r to a wall (concave corners). */
export const EXTRA_PROJECTIONS = 3;

/** Most sphere-tracing steps of a particle's sweep against a moving mesh collider. */
export const MAXIMUM_MARCH_STEPS = 64;
