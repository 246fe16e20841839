/**
 * The MPS solver's step on the CPU (Premoze et al. 2003, Algorithm 1) as an ordered system list: the
 * shared systems (emit, gather, collider poses, gravity and prediction, neighbours, velocity with the
 * contact response, publish) around the MPS substep systems of mps/cpu.ts, which replace PBF's density
 * solve and its viscosity and vorticity (docs/ARCHITECTURE.md, "The step", step 7).
 */
import { colliderPoseSystem } from '../collide/cpu';
import { emitSystem } from '../emit/cpu';
import { gatherSystem } from '../gather';
import { neighbourSystem } from '../neighbours/cpu';
import { predictSystem } from '../predict/cpu';
import { publishSystem } from '../publish';
import type { FluidSystem } from '../system';
import { velocitySystem } from '../velocity/cpu';
import { mpsCollisionSystem, mpsCommitSystem, mpsPressureSystem, mpsSubstepSystem, mpsViscositySystem } from './cpu';

/**
 * The MPS solver's systems on the CPU, in order. Per substep: collider poses; u* = u + dt g and
 * r* = r + dt u* (predict); neighbours of r*; explicit viscosity (eq. 9); particle collisions; collide, number density, pressure
 * Poisson equation by conjugate gradients and the pressure correction (eq. 14-17); velocity from positions
 * with the contact response; x = x*.
 */
export const mpsCpuSystems: readonly FluidSystem[] = [
  { name: 'emit', stage: 'step-start', run: emitSystem },
  { name: 'gather', stage: 'step-start', run: gatherSystem },
  // The substep count from the CFL condition (mpsSettings.courantNumber).
  { name: 'mpsSubsteps', stage: 'step-start', run: mpsSubstepSystem },
  { name: 'colliderPose', stage: 'substep', run: colliderPoseSystem },
  { name: 'predict', stage: 'substep', run: predictSystem },
  { name: 'neighbours', stage: 'substep', run: neighbourSystem },
  { name: 'mpsViscosity', stage: 'substep', run: mpsViscositySystem },
  { name: 'mpsCollision', stage: 'substep', run: mpsCollisionSystem },
  { name: 'mpsPressure', stage: 'substep', run: mpsPressureSystem },
  { name: 'velocity', stage: 'substep', run: velocitySystem },
  { name: 'mpsCommit', stage: 'substep', run: mpsCommitSystem },
  { name: 'publish', stage: 'step-end', run: publishSystem },
];
