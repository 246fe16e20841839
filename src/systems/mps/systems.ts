/**
 * The MPS solver's step on the CPU (Premoze et al. 2003, Algorithm 1) as an ordered system list: the
 * shared systems (emit, gather, collider poses, gravity and prediction, neighbours, velocity with the
 * contact response, publish) around the MPS substep systems of mps/cpu.ts, which replace PBF's density
 * solve and its viscosity and vorticity (docs/ARCHITECTURE.md, "The step", step 7).
 */
import { cpuSystemsOf, mpsSchedule } from '../schedule';
import type { FluidSystem } from '../system';

/**
 * The MPS solver's systems on the CPU, in order (the MPS schedule's CPU systems, schedule.ts). Per substep:
 * collider poses; u* = u + dt g and r* = r + dt u* (predict); neighbours of r*; explicit viscosity (eq. 9);
 * particle collisions; collide, number density, pressure Poisson equation by conjugate gradients and the
 * pressure correction (eq. 14-17); velocity from positions with the contact response; x = x*.
 */
export const mpsCpuSystems: readonly FluidSystem[] = cpuSystemsOf(mpsSchedule);
