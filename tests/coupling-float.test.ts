/**
 * Archimedes with Havok bodies (CPU backend): flat boxes (stable face up) of 0.25, 0.5 and 0.8 times
 * water's density float with that fraction of their volume under the water's surface, and a box dropped
 * into the pool behaves the same at 30, 60 and 120 frames per second. No buoyancy factor is set anywhere:
 * the impulses of the particles on the box are all there is.
 */
import { Vector3 } from '@babylonjs/core/Maths/math.vector.js';
import type { Mesh } from '@babylonjs/core/Meshes/mesh.js';
import { afterEach, describe, expect, it } from 'vitest';
import { FluidPlugin } from '../src';
import { addBox, createPhysicsScene, fillPool, meanTopCentre, submergedFraction } from './havokScene';

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
   * Fraction of the box's volume under water by displacement (Archimedes' own measure): the rise of the
   * pool's mean level far from the box, over the last 3 s of 6, times the pool's area, over the box's volume.
   */
  fraction: number;
  /** The same from geometry: the box's volume below the surface (mean top particle + calibrated offset). */
  geometricFraction: number;
  /** Lowest position of the box's centre during the run (m): how deep the drop plunged. */
  lowest: number;
  /** Largest tilt of the box over the last 3 s (rad). */
  tilt: number;
}

/** Drops a box of `relativeDensity` times water's from `dropHeight` above the surface and lets it float. */
async function floatBox(relativeDensity: number, framesPerSecond: number, dropHeight: number): Promise<FloatResult> {
  const { engine, scene } = await createPhysicsScene(framesPerSecond);
  disposers.push(() => engine.dispose());
  const fluid = await FluidPlugin.create(scene, { particleRadius: 0.01 });
  const simulation = fluid.simulation;
  const { surfaceOffset } = fillPool(scene, simulation, POOL_WIDTH, POOL_DEPTH);
  const centre = POOL_WIDTH / 2;
  // The far field: columns more than the box's half diagonal (plus a particle) from the pool's centre.
  const nearBox = (x: number, z: number) => Math.hypot(x - centre, z - centre) < 0.18;
  let levelBefore = 0;
  for (let step = 0; step < 30; step++) {
    simulation.step();
    levelBefore += meanTopCentre(simulation, nearBox) / 30;
  }
  const { mesh, aggregate } = addBox(scene, SIZE, 1000 * relativeDensity, [
    centre,
    POOL_DEPTH + SIZE[1] / 2 + dropHeight,
    centre,
  ]);
  await fluid.addRigidBody(aggregate);
  const frames = 6 * framesPerSecond;
  const averaged = 3 * framesPerSecond;
  let levelAfter = 0;
  let geometricFraction = 0;
  let lowest = Number.POSITIVE_INFINITY;
  let tilt = 0;
  const up = new Vector3();
  for (let frame = 0; frame < frames; frame++) {
    scene.render();
    lowest = Math.min(lowest, mesh.position.y);
    if (frame >= frames - averaged) {
      const level = meanTopCentre(simulation, nearBox);
      levelAfter += level / averaged;
      geometricFraction += submergedFraction(mesh as Mesh, SIZE, level + surfaceOffset) / averaged;
      Vector3.TransformNormalToRef(Vector3.UpReadOnly, mesh.computeWorldMatrix(true), up);
      tilt = Math.max(tilt, Math.acos(Math.min(1, up.normalize().y)));
    }
  }
  fluid.dispose();
  const fraction = ((levelAfter - levelBefore) * POOL_WIDTH * POOL_WIDTH) / (SIZE[0] * SIZE[1] * SIZE[2]);
  return { fraction, geometricFraction, lowest, tilt };
}

describe('Archimedes: a box floats with its density ratio under water', () => {
  for (const relativeDensity of [0.25, 0.5, 0.8]) {
    it(`density ${relativeDensity} of water's: ${relativeDensity} of the volume submerged, within 10%`, {
      timeout: 600_000,
    }, async () => {
      const result = await floatBox(relativeDensity, 60, 0.01);
      console.log(
        `Archimedes ${relativeDensity}: submerged fraction by displacement ${result.fraction.toFixed(3)} ` +
          `(${((100 * (result.fraction - relativeDensity)) / relativeDensity).toFixed(1)}%), by geometry ${result.geometricFraction.toFixed(3)}, tilt ${result.tilt.toFixed(3)} rad`,
      );
      expect(Math.abs(result.fraction - relativeDensity)).toBeLessThan(0.1 * relativeDensity);
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
    // The plunge: how far the box's centre went below its resting height... measured from the start.
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
