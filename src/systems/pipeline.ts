/**
 * The step's system lists (docs/ARCHITECTURE.md, "The step"): the CPU lists come from the schedules of
 * schedule.ts, whose GPU passes the WebGPU backend records inside its `gpuStep` system. Each system is a
 * function of the context; its stage says whether it runs once at the start of a step, once per substep, or
 * once at the end.
 */

import type { FluidBackend, FluidSolver } from '../components';
import { FluidError } from '../core/errors';
import { choiceText, SOLVERS } from '../core/schema';
import type { SimulationContext } from './context';
import { emitOnlySystem } from './emit/cpu';
import { gatherSceneSystem } from './gather';
import { type GpuContext, gpuPublishSystem, gpuStepSystem, gpuTrappedAirSystem } from './gpu/systems';
import { mpsMirroredSubstepSystem } from './mps/cpu';
import { mpsCpuSystems } from './mps/systems';
import { cpuSystemsOf, pbfSchedule, sphSchedule } from './schedule';
import { sphMirroredSubstepSystem } from './sph/cpu';
import type { FluidSystem, FluidSystemStage } from './system';

/** The CPU backend's systems for PBF, in order (the PBF schedule's CPU systems, schedule.ts). */
export const cpuSystems: readonly FluidSystem[] = cpuSystemsOf(pbfSchedule);

/**
 * The WebGPU backend's systems, in order. The substep passes (predict, neighbours, density or the
 * multi-fluid number-density solve, velocity, viscosity and vorticity, and the fluid-fluid interaction
 * terms of `multiFluid`, in the order of the PBF schedule, schedule.ts) are recorded by `gpuStep` as compute
 * dispatches; see gpu/backend.ts.
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

/** The CPU backend's systems for the WCSPH solver (`solver: 'sph'`), in order (schedule.ts). */
export const sphCpuSystems: readonly FluidSystem[] = cpuSystemsOf(sphSchedule);

/**
 * The WebGPU backend's systems for WCSPH: as {@link webGpuSystems} (the trapped air the GPU proposed included),
 * with the substep planner (from the last readback's velocities) before the GPU step, whose passes are the
 * WCSPH ones (see gpu/backend.ts).
 */
export function sphWebGpuSystems(gpu?: GpuContext): readonly FluidSystem[] {
  return [
    { name: 'emit', stage: 'step-start', run: emitOnlySystem },
    { name: 'trappedAir', stage: 'step-start', run: onGpu(gpu, gpuTrappedAirSystem) },
    { name: 'gather', stage: 'step-start', run: gatherSceneSystem },
    { name: 'sphSubsteps', stage: 'step-start', run: sphMirroredSubstepSystem },
    { name: 'gpuStep', stage: 'step-start', run: onGpu(gpu, gpuStepSystem) },
    { name: 'publish', stage: 'step-end', run: onGpu(gpu, gpuPublishSystem) },
  ];
}

/**
 * The WebGPU backend's systems for MPS: emit, gather, the substep planner (from the last readback's velocities,
 * `mpsMirroredSubstepSystem`), the GPU step whose passes are the MPS schedule's (schedule.ts) and publish. No
 * trapped air: MPS refuses the several-fluid features.
 */
export function mpsWebGpuSystems(gpu?: GpuContext): readonly FluidSystem[] {
  return [
    { name: 'emit', stage: 'step-start', run: emitOnlySystem },
    { name: 'gather', stage: 'step-start', run: gatherSceneSystem },
    { name: 'mpsSubsteps', stage: 'step-start', run: mpsMirroredSubstepSystem },
    { name: 'gpuStep', stage: 'step-start', run: onGpu(gpu, gpuStepSystem) },
    { name: 'publish', stage: 'step-end', run: onGpu(gpu, gpuPublishSystem) },
  ];
}

/**
 * The ordered system list of `solver` on `backend` (the WebGPU lists act on `gpu`): for `'pbf'` the existing {@link cpuSystems} and
 * {@link webGpuSystems}; for `'sph'` {@link sphCpuSystems} and {@link sphWebGpuSystems}; for `'mps'` `mpsCpuSystems`
 * (mps/systems.ts) and {@link mpsWebGpuSystems}. Throws {@link FluidError} for a solver that is none of them.
 */
export function systemsFor(backend: FluidBackend, solver: FluidSolver, gpu?: GpuContext): readonly FluidSystem[] {
  if (solver === 'pbf') return backend === 'webgpu' ? webGpuSystems(gpu) : cpuSystems;
  if (solver === 'sph') return backend === 'webgpu' ? sphWebGpuSystems(gpu) : sphCpuSystems;
  if (solver === 'mps') return backend === 'webgpu' ? mpsWebGpuSystems(gpu) : mpsCpuSystems;
  throw new FluidError(`solver is '${String(solver)}'; allowed values are ${choiceText(SOLVERS)}`);
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
  context.stats.webAssembly = false;
  for (let substep = 0; substep < substeps; substep++) {
    context.substepIndex = substep;
    runStage(context, systems, 'substep');
  }
  runStage(context, systems, 'step-end');
  context.stats.threads = context.threads.activeThreads;
  context.stats.workerPartitions = context.threads.takeWorkerPartitions();
  context.stats.stepMilliseconds = now() - start;
  context.stats.stepCount++;
}
