/**
 * The fixed-step scheduler of `FluidPlugin`: turns each frame's time (`useDeltaTime`, `timeScale`) into
 * whole steps of the simulation's `timeStep` with an accumulator, caps them at `maxStepsPerFrame` (the
 * rest is dropped and reported), and runs a frame's steps with the followers interpolated over them;
 * with coupled rigid bodies, in pairs with physics steps. An engine without a frame clock (0 ms frames on
 * consecutive renders: a game's own `scene.render()` loop, a `NullEngine`) gets one fixed step per render
 * and one warning, never a silent standstill.
 */

import type { Observable } from '@babylonjs/core/Misc/observable.js';
import type { Scene } from '@babylonjs/core/scene.js';
import type { FluidSimulation } from '../systems/simulation';
import type { NodeFollowers } from './followers';
import type { RigidBodyBridge } from './rigidBodies';

/** The plugin's public fields the scheduler reads and writes (`FluidPlugin` has them all). */
export interface SchedulerHost {
  readonly scene: Scene;
  readonly useDeltaTime: boolean;
  droppedTime: number;
  readonly onTimeDroppedObservable: Observable<number>;
}

/**
 * The engine's frame duration in milliseconds as the scheduler reads it: `engine.getDeltaTime()`, or
 * undefined when the engine has no such call or it returns no number.
 */
function engineFrameMilliseconds(scene: Scene): number | undefined {
  const engine = scene.getEngine() as { getDeltaTime?: () => unknown };
  const milliseconds = typeof engine.getDeltaTime === 'function' ? engine.getDeltaTime() : undefined;
  return typeof milliseconds === 'number' ? milliseconds : undefined;
}

/** Steps the simulation from the render loop in fixed steps (see `FluidPluginOptions.useDeltaTime`). */
export class FixedStepScheduler {
  /** Most steps per frame (checked by the plugin). */
  maximumSteps: number;
  /** Simulated seconds per real second (checked by the plugin). */
  scale: number;
  private accumulator = 0;
  /**
   * Renders in a row (with `useDeltaTime`) for which the engine reported no frame time (0, or no number):
   * from the second such render on, each advances one fixed step (see {@link FixedStepScheduler.frameSeconds}).
   */
  private framesWithoutClock = 0;
  /** True once the warning about a missing frame clock was given. */
  private warnedNoClock = false;

  /**
   * @param fluidStep One fluid step at `fraction` of the way through the frame's followed motion: the
   * followed poses, the step, its record for the views and its events.
   * @param warn Reports a warning to game code (the scheduler gives at most one: a missing frame clock).
   */
  constructor(
    private readonly host: SchedulerHost,
    private readonly simulation: FluidSimulation,
    private readonly followers: NodeFollowers,
    private readonly fluidStep: (fraction: number) => void,
    maximumSteps: number,
    scale: number,
    private readonly warn: (message: string) => void,
  ) {
    this.maximumSteps = maximumSteps;
    this.scale = scale;
  }

  /**
   * Simulated seconds this frame adds to the accumulator. Without `useDeltaTime`: one `timeStep` times
   * `timeScale`. With it: the engine's frame duration times `timeScale`; a non-finite or negative duration
   * adds nothing. A frame duration of 0 (or none: an engine without `getDeltaTime`) is what every engine
   * reports on the first frame of a loop (Babylon measures between `beginFrame` calls), so one such render
   * adds nothing; when the next render in a row has none either, the engine has no frame clock (a game
   * calling `scene.render()` in its own loop, a `NullEngine` on a server or in a test): from then on each
   * render adds one `timeStep` times `timeScale`, as `useDeltaTime: false` does, and the host is warned
   * once (`warn`), naming the option.
   */
  private frameSeconds(timeStep: number): number {
    const host = this.host;
    if (!host.useDeltaTime) {
      this.framesWithoutClock = 0;
      return timeStep * this.scale;
    }
    const milliseconds = engineFrameMilliseconds(host.scene);
    if (milliseconds !== undefined && milliseconds !== 0) {
      this.framesWithoutClock = 0;
      const seconds = (milliseconds / 1000) * this.scale;
      return Number.isFinite(seconds) && seconds > 0 ? seconds : 0;
    }
    this.framesWithoutClock++;
    if (this.framesWithoutClock < 2) return 0;
    if (!this.warnedNoClock) {
      this.warnedNoClock = true;
      this.warn(
        `FluidPlugin: the engine reports no frame time (engine.getDeltaTime() is ${String(milliseconds ?? 'missing')} on consecutive renders: scene.render() called outside engine.runRenderLoop, or a NullEngine), so useDeltaTime (true) cannot measure frames; each scene.render() now advances one fixed timeStep (${timeStep} s) times timeScale instead, until the engine reports frame times again. Set useDeltaTime: false to ask for exactly this and silence this warning. Shown once.`,
      );
    }
    return timeStep * this.scale;
  }

  /** How many steps this frame takes, updating the accumulator and the dropped time. */
  stepsForFrame(): number {
    const host = this.host;
    const timeStep = this.simulation.settings.timeStep;
    this.accumulator += this.frameSeconds(timeStep);
    let steps = Math.floor(this.accumulator / timeStep + 1e-9);
    if (steps > this.maximumSteps) {
      // Keep the fraction of a step already due; for an absurd frame (1e300 ms) the difference is rounding
      // noise as large as the frame, and nothing is kept.
      let remainder = this.accumulator - steps * timeStep;
      if (!(remainder >= 0 && remainder < timeStep)) remainder = 0;
      const dropped = this.accumulator - remainder - this.maximumSteps * timeStep;
      this.accumulator = remainder + this.maximumSteps * timeStep;
      host.droppedTime += dropped;
      steps = this.maximumSteps;
      host.onTimeDroppedObservable.notifyObservers(dropped);
    }
    this.accumulator = Math.max(0, this.accumulator - steps * timeStep);
    return steps;
  }

  /** A frame without coupled bodies: as many steps as its time gives, the followers interpolated over them. */
  stepFrame(): void {
    const steps = this.stepsForFrame();
    if (steps > 0) {
      this.followers.read();
      for (let step = 1; step <= steps; step++) this.fluidStep(step / steps);
    }
  }

  /**
   * A frame with coupled bodies (the plugin holds the physics and calls this only when the fluid can
   * step): the scheduler steps the physics engine itself, in pairs with the fluid's steps (see
   * `RigidBodyBridge`), as many pairs as the frame's time gives (`useDeltaTime`, `timeScale`,
   * `maxStepsPerFrame` as without bodies). On the CPU backend a pair is a fluid step, the impulses, a
   * physics step. On the WebGPU backend it is the impulses of the last fluid step (once its readback has
   * arrived), a physics step, a fluid step; one pair per frame at most, and none while a readback is in
   * flight.
   */
  stepFrameWithBodies(bodies: RigidBodyBridge): void {
    const simulation = this.simulation;
    if (simulation.backend === 'webgpu') {
      if (simulation.readbackInFlight) return;
      // The frame's time beyond one pair is dropped (counted in droppedTime): the GPU sets the pace.
      const steps = this.stepsForFrame();
      if (steps === 0) return;
      if (steps > 1) this.host.droppedTime += (steps - 1) * simulation.settings.timeStep;
      bodies.applyImpulses();
      bodies.stepPhysics();
      this.followers.read();
      this.fluidStep(1);
      return;
    }
    const steps = this.stepsForFrame();
    if (steps > 0) this.followers.read();
    for (let step = 1; step <= steps; step++) {
      // Bodies moved in the last pair's physics step: read them again; other followers interpolate.
      if (step > 1) this.followers.read(true);
      this.fluidStep(step / steps);
      bodies.applyImpulses();
      bodies.stepPhysics();
    }
  }
}
