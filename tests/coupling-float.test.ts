/**
 * Archimedes with Havok bodies (CPU backend): flat boxes (stable face up) of 0.25, 0.5 and 0.8 times
 * water's density float with that fraction of their volume under the water's surface, and a box dropped
 * into the pool behaves the same at 30, 60 and 120 frames per second. No buoyancy factor is set anywhere:
 * the impulses of the particles on the box are all there is.
 */
import { type Matrix, Vector3 } from '@babylonjs/core/Maths/math.vector.js';
import { afterEach, describe, expect, it } from 'vitest';
import { FluidPlugin, MATERIAL_DEFAULTS } from '../src';
import { addBox, createPhysicsScene, fillPool, meanTopCenter, submergedFraction } from './havokScene';

const disposers: (() => void)[] = [];
afterEach(() => {
  for (const dispose of disposers.splice(0)) dispose();
});

const POOL_WIDTH = 0.48;
const POOL_DEPTH = 0.2;
/** A flat box, 12 x 6 x 12 particle diameters: stable face up at every density used here. */
const SIZE = [0.24, 0.12, 0.24] as const;

interface FloatResult {
  /**
   * Fraction of the box's volume under water by displacement (Archimedes' own measure): how much higher the
   * pool's mean level far from the box is than in the same pool without the box (over the last 3 s of 6),
   * times the pool's area, over the box's volume.
   */
  fraction: number;
  /**
   * The same from geometry: the box's volume below the far water surface. That surface is the far field's
   * mean top particle center plus an offset calibrated on the control pool after the same steps, over the
   * same columns: the pool's level by volume (N m / rho0 / A) minus the control pool's far-field mean top.
   */
  geometricFraction: number;
  /** Lowest position of the box's center during the run (m): how deep the drop plunged. */
  lowest: number;
  /** Largest tilt of the box over the last 3 s (rad). */
  tilt: number;
  /** Largest horizontal distance of the box's center from the pool's center over the last 3 s (m). */
  drift: number;
}

/** The far field: columns more than the box's half diagonal (plus a particle) from the pool's center. */
const nearBox = (x: number, z: number) => Math.hypot(x - POOL_WIDTH / 2, z - POOL_WIDTH / 2) < 0.18;

/** What a run records: the box's figures, and the far-field level and step count after each measured frame. */
interface PoolRun extends FloatResult {
  /** Mean far-field level over the measured frames (m). */
  level: number;
  /** Far-field level after each frame of the run, by the simulation's step count then (`stats.stepCount`). */
  levelByStep: Map<number, number>;
  /** The simulation's step count after each measured frame, in order. */
  measuredSteps: number[];
  /** The pool's level by volume, N m / rho0 / A (m). */
  poolLevel: number;
  /** The box's world matrix after each measured frame (box runs). */
  poses: Matrix[];
  /** The far-field mean top particle center after each measured frame. */
  tops: number[];
}

const blankRuns = new Map<number, Promise<PoolRun>>();

/**
 * The control run: the same pool, stepped as long, without a box (the pool keeps settling a little, which
 * the box runs share). Its level is taken after the same steps as the box run's measured frames, so one
 * control run at 60 Hz serves 30, 60 and 120 Hz: the plugin steps the simulation in fixed steps
 * (`settings.timeStep`, 1/60 s) whatever the frame rate, and with no body coupled nothing else touches the
 * water, so the pool after k steps is the same at every frame rate (checked once by running it at 30, 60
 * and 120 Hz: the levels agreed bit for bit at every step count, and the frame-rate figures printed below
 * were unchanged). The plugin's own scheduler decides which steps a frame takes; the box run records them.
 */
function blankRun(artificialPressure: number): Promise<PoolRun> {
  let run = blankRuns.get(artificialPressure);
  if (run === undefined) {
    run = runPool(undefined, 60, 0, artificialPressure);
    blankRuns.set(artificialPressure, run);
  }
  return run;
}

/**
 * A settled pool; then, unless `relativeDensity` is undefined, a box of that many times water's density
 * dropped from `dropHeight` above the surface; 6 s of frames, the last 3 s measured.
 */
async function runPool(
  relativeDensity: number | undefined,
  framesPerSecond: number,
  dropHeight: number,
  artificialPressure: number,
): Promise<PoolRun> {
  const { engine, scene } = await createPhysicsScene(framesPerSecond);
  disposers.push(() => engine.dispose());
  const fluid = await FluidPlugin.create(scene, { particleRadius: 0.01 });
  const simulation = fluid.simulation;
  const { level: poolLevel } = fillPool(scene, simulation, POOL_WIDTH, POOL_DEPTH, 0.6, {
    artificialPressureStrength: artificialPressure,
  });
  const center = POOL_WIDTH / 2;
  const box =
    relativeDensity === undefined
      ? undefined
      : addBox(scene, SIZE, 1000 * relativeDensity, [center, POOL_DEPTH + SIZE[1] / 2 + dropHeight, center]);
  if (box !== undefined) await fluid.addRigidBody(box.aggregate);
  const frames = 6 * framesPerSecond;
  const averaged = 3 * framesPerSecond;
  let level = 0;
  const poses: Matrix[] = [];
  const tops: number[] = [];
  let lowest = Number.POSITIVE_INFINITY;
  let tilt = 0;
  let drift = 0;
  const levelByStep = new Map<number, number>();
  const measuredSteps: number[] = [];
  const up = new Vector3();
  for (let frame = 0; frame < frames; frame++) {
    scene.render();
    const mesh = box?.mesh;
    const measured = frame >= frames - averaged;
    // The control run keeps its level after every frame, for the steps of any box run's measured frames.
    const top = mesh === undefined || measured ? meanTopCenter(simulation, nearBox) : Number.NaN;
    if (mesh === undefined) levelByStep.set(simulation.stats.stepCount, top);
    else lowest = Math.min(lowest, mesh.position.y);
    if (!measured) continue;
    level += top / averaged;
    measuredSteps.push(simulation.stats.stepCount);
    if (mesh === undefined) continue;
    poses.push(mesh.computeWorldMatrix(true).clone());
    tops.push(top);
    Vector3.TransformNormalToRef(Vector3.UpReadOnly, mesh.computeWorldMatrix(true), up);
    tilt = Math.max(tilt, Math.acos(Math.min(1, up.normalize().y)));
    drift = Math.max(drift, Math.hypot(mesh.position.x - center, mesh.position.z - center));
  }
  fluid.dispose();
  return {
    fraction: 0,
    geometricFraction: 0,
    lowest,
    tilt,
    drift,
    level,
    levelByStep,
    measuredSteps,
    poolLevel,
    poses,
    tops,
  };
}

/** The control run's level after step `step`. */
function blankTop(blank: PoolRun, step: number): number {
  const top = blank.levelByStep.get(step);
  if (top === undefined) throw new Error(`the control run has no level after step ${step}`);
  return top;
}

/** The control run's mean level over the steps `measuredSteps` (a box run's measured frames). */
function blankLevel(blank: PoolRun, measuredSteps: readonly number[]): number {
  let level = 0;
  for (const step of measuredSteps) level += blankTop(blank, step) / measuredSteps.length;
  return level;
}

/**
 * Drops a box of `relativeDensity` times water's from `dropHeight` above the surface and lets it float, in
 * water whose artificial pressure strength (Macklin and Mueller 2013, eq. 13) is `artificialPressure`.
 */
async function floatBox(
  relativeDensity: number,
  framesPerSecond: number,
  dropHeight: number,
  artificialPressure: number = MATERIAL_DEFAULTS.artificialPressureStrength,
): Promise<FloatResult> {
  const result = await runPool(relativeDensity, framesPerSecond, dropHeight, artificialPressure);
  const control = await blankRun(artificialPressure);
  const blank = blankLevel(control, result.measuredSteps);
  result.fraction = ((result.level - blank) * POOL_WIDTH * POOL_WIDTH) / (SIZE[0] * SIZE[1] * SIZE[2]);
  // The far water surface after each measured frame: the far-field top plus the control pool's offset then.
  result.measuredSteps.forEach((step, k) => {
    const surface = result.tops[k] + (result.poolLevel - blankTop(control, step));
    result.geometricFraction += submergedFraction(result.poses[k], SIZE, surface) / result.measuredSteps.length;
  });
  return result;
}

describe('Archimedes: a box floats with its density ratio under water', () => {
  for (const relativeDensity of [0.25, 0.5, 0.8]) {
    it(`density ${relativeDensity} of water's: ${relativeDensity} of the volume submerged, within 10%`, {
      timeout: 600_000,
    }, async () => {
      // Without the artificial pressure term: it acts as a surface tension on the water's surface, which
      // holds a light box up by its edges (with the default strength 0.1 the 0.25 box floats about 5 mm
      // higher, 0.208 of its volume under water by geometry); Archimedes is about pressure alone.
      const result = await floatBox(relativeDensity, 60, 0.01, 0);
      console.log(
        `Archimedes ${relativeDensity}: submerged fraction by displacement ${result.fraction.toFixed(3)} ` +
          `(${((100 * (result.fraction - relativeDensity)) / relativeDensity).toFixed(1)}%), by geometry ${result.geometricFraction.toFixed(3)}, tilt ${result.tilt.toFixed(3)} rad, drift ${(1000 * result.drift).toFixed(0)} mm`,
      );
      expect(Math.abs(result.fraction - relativeDensity)).toBeLessThan(0.1 * relativeDensity);
      expect(Math.abs(result.geometricFraction - relativeDensity)).toBeLessThan(0.1 * relativeDensity);
      expect(result.tilt).toBeLessThan(0.2);
    });
  }
});

describe('frame rate', () => {
  it('a box dropped from 5 cm plunges as deep and floats as high at 30, 60 and 120 Hz (within 10%)', {
    timeout: 900_000,
  }, async () => {
    const results: Record<number, FloatResult> = {};
    for (const framesPerSecond of [30, 60, 120]) results[framesPerSecond] = await floatBox(0.5, framesPerSecond, 0.05);
    const reference = results[60];
    // The plunge: how far the box's center went below its resting height... measured from the start.
    const start = POOL_DEPTH + SIZE[1] / 2 + 0.05;
    for (const framesPerSecond of [30, 120]) {
      const result = results[framesPerSecond];
      expect(Math.abs(result.fraction - reference.fraction)).toBeLessThan(0.1 * reference.fraction);
      expect(Math.abs(start - result.lowest - (start - reference.lowest))).toBeLessThan(
        0.1 * (start - reference.lowest),
      );
    }
    console.log(
      `frame rates: ${[30, 60, 120]
        .map(
          (rate) =>
            `${rate} Hz fraction ${results[rate].fraction.toFixed(3)}, plunge ${(1000 * (start - results[rate].lowest)).toFixed(1)} mm`,
        )
        .join('; ')}`,
    );
  });
});
