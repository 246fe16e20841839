/**
 * The CPU systems' door to the partitioned pair loops (kernels.ts) and the threads that share them
 * (pool.ts): the kernels' scalars from the context, then one kernel over every partition.
 */
import { COINCIDENT_OFFSET, poly6Coefficient, spikyGradientCoefficient } from '../../core/kernels';
import type { SimulationContext } from '../context';
import { selfWeight } from '../context';
import { type KernelMaterialArrays, KernelParameter, type KernelSolverArrays } from './kernels';

/** Writes the kernels' scalars (`KernelParameter`) for this substep. */
export function setKernelParameters(ctx: SimulationContext): void {
  const parameters = ctx.threads.kernelParameters;
  const h = ctx.settings.kernelRadius;
  parameters[KernelParameter.kernelRadius] = h;
  parameters[KernelParameter.kernelRadiusSquared] = h * h;
  parameters[KernelParameter.poly6] = poly6Coefficient(h);
  parameters[KernelParameter.spikyGradient] = spikyGradientCoefficient(h);
  parameters[KernelParameter.selfWeight] = selfWeight(h);
  parameters[KernelParameter.coincidentOffset] = COINCIDENT_OFFSET * h;
  parameters[KernelParameter.substepTimeStep] = ctx.substepTimeStep;
  let anyVorticity = 0;
  for (let m = 0; m < ctx.materials.count; m++) if (ctx.materials.vorticity[m] > 0) anyVorticity = 1;
  parameters[KernelParameter.anyVorticity] = anyVorticity;
  parameters[KernelParameter.spillsAdded] = 0;
}

/** Runs `kernel` (a `Kernel` index) over every partition of the present plan. */
export function runPartitioned(ctx: SimulationContext, kernel: number): void {
  ctx.threads.run(
    kernel,
    ctx.solver as unknown as KernelSolverArrays,
    ctx.materials as unknown as KernelMaterialArrays,
    ctx.solver.count,
  );
}
