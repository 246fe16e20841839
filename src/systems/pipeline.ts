/**
 * The step as one explicit ordered list of systems (DESIGN.md, "The step"). Each system is a function of
 * the context; its stage says whether it runs once at the start of a step, once per substep, or once at
 * the end.
 */

import type { FluidBackend, FluidSolver } from '../components';
import { FluidError } from '../core/errors';
import { colliderPoseSystem } from './collide/cpu';
import type { SimulationContext } from './context';
import { densitySystem } from './density/cpu';
import { emitOnlySystem, emitSystem } from './emit/cpu';
import { gatherSceneSystem, gatherSystem } from './gather';
import { type GpuContext, gpuPublishSystem, gpuStepSystem, gpuTrappedAirSystem } from './gpu/systems';
import { mpsCpuSystems } from './mps/systems';
import { artificialBuoyancySystem, trappedAirSystem } from './multifluid/air';
import { multiFluidInteractionSystem } from './multifluid/interaction';
import { boilingSystem } from './multifluid/phase';
import { neighbourSystem } from './neighbours/cpu';
import { predictSystem } from './predict/cpu';
import { projectionSystem } from './projection/cpu';
import { publishSystem } from './publish';
import {
  sphFinishSystem,
  sphForceSystem,
  sphMirroredSubstepSystem,
  sphNeighbourSystem,
  sphSubstepSystem,
} from './sph/cpu';
import type { FluidSystem, FluidSystemStage } from './system';
import { velocitySystem, viscosityVorticitySystem } from './velocity/cpu';

/** The CPU backend's systems, in order. */
export const cpuSystems: readonly FluidSystem[] = [
  { name: 'emit', stage: 'step-start', run: emitSystem },
  { name: 'gather', stage: 'step-start', run: gatherSystem },
  { name: 'colliderPose', stage: 'substep', run: colliderPoseSystem },
  { name: 'predict', stage: 'substep', run: predictSystem },
  { name: 'neighbours', stage: 'substep', run: neighbourSystem },
  // The global part of the pressure solve, on a coarse grid of cells of size h (projection/cpu.ts), from the
  // predicted positions; off with `projection: false`.
  { name: 'projection', stage: 'substep', run: projectionSystem },
  { name: 'density', stage: 'substep', run: densitySystem },
  { name: 'velocity', stage: 'substep', run: velocitySystem },
  { name: 'viscosityVorticity', stage: 'substep', run: viscosityVorticitySystem },
  // Interface and surface tension, diffusion, collider heat (Müller et al. 2005): each only when in use.
  { name: 'multiFluid', stage: 'substep', run: multiFluidInteractionSystem },
  // Artificial buoyancy of air particles (eq. 17), a velocity-stage term like the ones above; only when in use.
  { name: 'artificialBuoyancy', stage: 'substep', run: artificialBuoyancySystem },
  { name: 'publish', stage: 'step-end', run: publishSystem },
  // Boiling (section 4.4) and trapped air (3.4.1-3.4.2), only when in use: after publish, they read the last
  // substep's neighbour lists and positions (still matching the dense list), then change materials, append
  // new air particles and swap-remove deleted ones through the emitters' and drains' paths; the next step's
  // gather and neighbour search start from the consistent list (see multifluid/air.ts).
  { name: 'boiling', stage: 'step-end', run: boilingSystem },
  { name: 'trappedAir', stage: 'step-end', run: trappedAirSystem },
];

/**
 * The WebGPU backend's systems, in order. The substep passes (predict, neighbours, density or the
 * multi-fluid number-density solve, velocity, viscosity and vorticity, and the fluid-fluid interaction
 * terms of `multiFluid`, as on the CPU) are recorded by `gpuStep` as compute dispatches; see gpu/backend.ts.
 * The GPU systems act on `gpu`, the running backend; without one (no device yet) they do nothing.
 */
export function webGpuSystems(gpu?: GpuContext): readonly FluidSystem[] {
  return [
    { name: 'emit', stage: 'step-start', run: emitOnlySystem },
    // Air particles the GPU proposed at the end of an earlier step (trapped air, gpu/systems.ts).
    { name: 'trappedAir', stage: 'step-start', run: onGpu(gpu, gpuTrappedAirSystem) },
    { name: 'gather', stage: 'step-start', run: gatherSceneSystem },
    { name: 'gpuStep', stage: 'step-start', run: onGpu(gpu, gpuStepSystem) },
    { name: 'publish', stage: 'step-end', run: onGpu(gpu, gpuPublishSystem) },
  ];
}

/** A GPU system bound to `gpu`; without a backend it does nothing. */
function onGpu(
  gpu: GpuContext | undefined,
  system: (context: SimulationContext, gpu: GpuContext) => void,
): (context: SimulationContext) => void {
  return gpu ? (context) => system(context, gpu) : () => {};
}

/**
 * The CPU backend's systems for the WCSPH solver (`solver: 'sph'`, see sph/cpu.ts), in order: the same
 * emit, gather, collider poses, neighbour search, collisions, contact response and publish as PBF; the
 * density solve and the XSPH/vorticity pass are replaced by the WCSPH forces and leap-frog integration,
 * and a step-start planner picks the substep count from the CFL condition.
 */
export const sphCpuSystems: readonly FluidSystem[] = [
  { name: 'emit', stage: 'step-start', run: emitSystem },
  { name: 'gather', stage: 'step-start', run: gatherSystem },
  { name: 'sphSubsteps', stage: 'step-start', run: sphSubstepSystem },
  { name: 'colliderPose', stage: 'substep', run: colliderPoseSystem },
  { name: 'neighbours', stage: 'substep', run: sphNeighbourSystem },
  { name: 'sphForces', stage: 'substep', run: sphForceSystem },
  { name: 'velocity', stage: 'substep', run: velocitySystem },
  { name: 'sphFinish', stage: 'substep', run: sphFinishSystem },
  { name: 'publish', stage: 'step-end', run: publishSystem },
];

/**
 * The WebGPU backend's systems for WCSPH: as {@link webGpuSystems}, with the substep planner (from the last
 * readback's velocities) before the GPU step, whose passes are the WCSPH ones (see gpu/backend.ts).
 */
export function sphWebGpuSystems(gpu?: GpuContext): readonly FluidSystem[] {
  return [
    { name: 'emit', stage: 'step-start', run: emitOnlySystem },
    { name: 'gather', stage: 'step-start', run: gatherSceneSystem },
    { name: 'sphSubsteps', stage: 'step-start', run: sphMirroredSubstepSystem },
    { name: 'gpuStep', stage: 'step-start', run: onGpu(gpu, gpuStepSystem) },
    { name: 'publish', stage: 'step-end', run: onGpu(gpu, gpuPublishSystem) },
  ];
}

/**
 * The ordered system list of `solver` on `backend` (the WebGPU lists act on `gpu`): for `'pbf'` the existing {@link cpuSystems} and
 * {@link webGpuSystems}; for `'sph'` {@link sphCpuSystems} and {@link sphWebGpuSystems}; for `'mps'` the MPS systems
 * (CPU only). Throws {@link FluidError} for a combination no backend implements.
 */
export function systemsFor(backend: FluidBackend, solver: FluidSolver, gpu?: GpuContext): readonly FluidSystem[] {
  if (solver === 'pbf') return backend === 'webgpu' ? webGpuSystems(gpu) : cpuSystems;
  if (solver === 'sph') return backend === 'webgpu' ? sphWebGpuSystems(gpu) : sphCpuSystems;
  if (solver === 'mps') {
    if (backend === 'webgpu') throw new FluidError("solver 'mps' runs on the CPU backend only");
    return mpsCpuSystems;
  }
  throw new FluidError(`solver is '${String(solver)}'; allowed values are 'pbf', 'sph' and 'mps'`);
}

const now = (): number => performance.now();

function runStage(context: SimulationContext, systems: readonly FluidSystem[], stage: FluidSystemStage): void {
  const times = context.stats.systemMilliseconds;
  for (const system of systems) {
    if (system.stage !== stage) continue;
    const start = now();
    system.run(context);
    times[system.name] = (times[system.name] ?? 0) + (now() - start);
  }
}

/** Runs one step of duration `timeStep` through `systems`, with the context's substep count. */
export function runStep(context: SimulationContext, systems: readonly FluidSystem[], timeStep: number): void {
  const start = now();
  const times = context.stats.systemMilliseconds;
  for (const name in times) times[name] = 0;
  context.frameTimeStep = timeStep;
  context.substepCount = context.settings.substeps;
  context.substepTimeStep = timeStep / context.substepCount;
  runStage(context, systems, 'step-start');
  // A step-start system may have chosen another substep count (WCSPH's CFL planner).
  const substeps = context.substepCount;
  context.stats.solverSubsteps = substeps;
  context.stats.projectionIterations = 0;
  for (let substep = 0; substep < substeps; substep++) {
    context.substepIndex = substep;
    runStage(context, systems, 'substep');
  }
  runStage(context, systems, 'step-end');
  context.stats.stepMilliseconds = now() - start;
  context.stats.stepCount++;
}
