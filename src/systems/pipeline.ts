/**
 * The step as one explicit ordered list of systems (DESIGN.md, "The step"). Each system is a function of
 * the context; its stage says whether it runs once at the start of a step, once per substep, or once at
 * the end.
 */
import { colliderPoseSystem } from './collide/cpu';
import type { SimulationContext } from './context';
import { densitySystem } from './density/cpu';
import { emitOnlySystem, emitSystem } from './emit/cpu';
import { gatherSceneSystem, gatherSystem } from './gather';
import { gpuPublishSystem, gpuStepSystem } from './gpu/systems';
import { neighbourSystem } from './neighbours/cpu';
import { predictSystem } from './predict/cpu';
import { publishSystem } from './publish';
import { velocitySystem, viscosityVorticitySystem } from './velocity/cpu';

/** When a system runs within a step. */
export type FluidSystemStage = 'step-start' | 'substep' | 'step-end';

/** One entry of the ordered system list. */
export interface FluidSystem {
  /** Name used in `stats.systemMilliseconds`. */
  readonly name: string;
  /** When it runs. */
  readonly stage: FluidSystemStage;
  /** The system itself. */
  readonly run: (context: SimulationContext) => void;
}

/** The CPU backend's systems, in order. */
export const cpuSystems: readonly FluidSystem[] = [
  { name: 'emit', stage: 'step-start', run: emitSystem },
  { name: 'gather', stage: 'step-start', run: gatherSystem },
  { name: 'colliderPose', stage: 'substep', run: colliderPoseSystem },
  { name: 'predict', stage: 'substep', run: predictSystem },
  { name: 'neighbours', stage: 'substep', run: neighbourSystem },
  { name: 'density', stage: 'substep', run: densitySystem },
  { name: 'velocity', stage: 'substep', run: velocitySystem },
  { name: 'viscosityVorticity', stage: 'substep', run: viscosityVorticitySystem },
  { name: 'publish', stage: 'step-end', run: publishSystem },
];

/**
 * The WebGPU backend's systems, in order. The substep passes (predict, neighbours, density, velocity,
 * viscosity and vorticity, as on the CPU) are recorded by `gpuStep` as compute dispatches; see gpu/backend.ts.
 */
export const webGpuSystems: readonly FluidSystem[] = [
  { name: 'emit', stage: 'step-start', run: emitOnlySystem },
  { name: 'gather', stage: 'step-start', run: gatherSceneSystem },
  { name: 'gpuStep', stage: 'step-start', run: gpuStepSystem },
  { name: 'publish', stage: 'step-end', run: gpuPublishSystem },
];

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
  const substeps = context.settings.substeps;
  context.frameTimeStep = timeStep;
  context.substepTimeStep = timeStep / substeps;
  runStage(context, systems, 'step-start');
  for (let substep = 0; substep < substeps; substep++) {
    context.substepIndex = substep;
    runStage(context, systems, 'substep');
  }
  runStage(context, systems, 'step-end');
  context.stats.stepMilliseconds = now() - start;
  context.stats.stepCount++;
}
