/**
 * When the WebGPU solver (gpu/backend.ts) takes the events of trapped air and boiling (sections 3.4 and 4.4
 * of 001, multifluid/airFields.wgsl, mirroring multifluid/air.ts and phase.ts): the artificial buoyancy of
 * eq. 17 is a substep pass after collider heat; boiling, the color fields and the generation and deletion
 * decisions run once per step, in the last substep before `writeBack`, on the same final positions,
 * velocities, materials and temperatures as the CPU's step-end systems. Boiling changes the material slot in
 * place and lists (entity, vapour slot) for the CPU (`Particle.material` and `Color` at the readback).
 * Deleted air particles get lifetime -1 and leave through the drains' path (the next step's predict pass,
 * their ids with that step's readback). Generated air particles are candidates (an atomic counter, at most
 * `airGenerationLimit(capacity)` per readback and the capacity left) that the readback brings to the CPU,
 * which creates them at the start of the next step as emitted particles (gpu/systems.ts,
 * `gpuTrappedAirSystem`): one step later than the CPU backend. A step proposes no air while an earlier
 * step's candidates are not yet read back and created (a lagging readback: several steps per frame, a slow
 * GPU), so the same particles never propose twice. The boiling draws hash (step, entity id) instead of using
 * the CPU's seeded generator, and a capped atomic counter decides which candidates are kept when more
 * qualify than the limit: the backends agree on the fields and decisions of one step
 * (tests/multifluid-air-webgpu.test.ts) and statistically over a run.
 *
 * This module keeps the step counters that decide when a readback takes the events, when their GPU counters
 * restart and when a step may propose air; the events are decoded in gpu/readback.ts.
 */
import type { MultiFluidFeatures } from '../multifluid/state';

/** Air generation candidates read back from the GPU (see `WebGpuSolver.takeAirCandidates`). */
export interface AirCandidates {
  /** How many candidates `data` holds. */
  readonly count: number;
  /**
   * 8 floats per candidate: position xyz (m), air material slot, velocity xyz (m/s), source entity id.
   * Valid until the next readback.
   */
  readonly data: Float32Array;
}

/** The step counters of the air events of one solver; see the file comment. Steps are `stepsRecorded`. */
export class AirEventBook {
  /** Params.airGenerationOpen of the step being recorded (see `beginStep`). */
  generationOpen = true;
  /** Set when a readback took the air events: the next step resets their counters on the GPU. */
  private read = false;
  /** The step when a readback last took the air events. */
  private readAtStep = 0;
  /**
   * The last step that recorded the air passes (`airFields`, `airDecide`): a readback takes the events while
   * this is newer than `readAtStep`, whatever the features are now.
   */
  private lastStep = 0;
  /** The newest `readAtStep` whose readback has arrived (its candidates are in the solver's pending list). */
  private arrivedAtStep = 0;

  /**
   * At the start of step `step`, with `features` in use and `pendingCount` candidates read back and not yet
   * created: returns true when the events' GPU counters must restart first (a readback took them; queue
   * order: after its copy), and decides {@link AirEventBook.generationOpen}: air generation (section 3.4.1)
   * only once every earlier air step's candidates arrived and were taken (created by `gpuTrappedAir` before
   * this step), else the same particles would propose again.
   */
  beginStep(step: number, features: MultiFluidFeatures, pendingCount: number): boolean {
    const restart = this.read;
    this.read = false;
    this.generationOpen = this.arrivedAtStep >= this.lastStep && pendingCount === 0;
    if (features.airGeneration || features.boiling) this.lastStep = step;
    return restart;
  }

  /**
   * For a readback requested at step `step`: true when it takes the air events, i.e. it is the first readback
   * after a step that recorded the air passes, whatever the features are now (a skipped readback's events
   * must not wait until they turn on again; a second readback, e.g. `simulation.readback()` after the
   * publish's, would read the same counters again: they restart at the next step).
   */
  takeEvents(step: number): boolean {
    if (this.readAtStep >= this.lastStep) return false;
    this.readAtStep = step;
    this.read = true;
    return true;
  }

  /** The readback requested at step `step` that took the events has arrived. */
  arrived(step: number): void {
    this.arrivedAtStep = Math.max(this.arrivedAtStep, step);
  }

  /** The GPU state was abandoned at step `step` (`resetParticles`): its events are dropped. */
  reset(step: number): void {
    this.read = true;
    this.readAtStep = step;
    this.arrivedAtStep = step;
  }
}
