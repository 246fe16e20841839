/**
 * The system type of the step (docs/ARCHITECTURE.md, "The step"): a named function of the simulation
 * context and the stage it runs in. The ordered lists come from schedule.ts (pipeline.ts holds them per
 * backend); a solver's own list (mps/systems.ts) uses the same type.
 */
import type { SimulationContext } from './context';

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
