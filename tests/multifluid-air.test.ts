/**
 * Trapped air and boiling (Müller, Solenthaler, Keiser and Gross 2005, sections 3.4 and 4.4) on the CPU
 * backend: air generated under a pouring front (3.4.1), bounded by the capacity; bubbles rising with the
 * artificial buoyancy of eq. 17 and deleted at the free surface (3.4.2); a pot over a hot plate that warms,
 * boils at the plate and loses its vapour at the surface; nothing changes with the features off; the values'
 * validation. Scenes use the public API; the numbers each test prints are quoted next to its bounds.
 */
import { FreeCamera } from '@babylonjs/core/Cameras/freeCamera.js';
import { NullEngine } from '@babylonjs/core/Engines/nullEngine.js';
import { Vector3 } from '@babylonjs/core/Maths/math.vector.js';
import { Scene } from '@babylonjs/core/scene.js';
import { describe, expect, it } from 'vitest';
import { FluidError, FluidPlugin, FluidSimulation } from '../src/index';
import { cpuSystems } from '../src/systems/pipeline';
import type { FluidSystem } from '../src/systems/system';

const RADIUS = 0.01;
/** Kernel radius h = 4 r (the default). */
const KERNEL_RADIUS = 4 * RADIUS;
/** Glass: the inside of the box [-HALF, HALF] x [0, HEIGHT] x [-HALF, HALF] (m). */
const HALF = 0.1;
const HEIGHT = 0.5;
/** Frames of pouring (1.5 s) and of settling after it (2 s), at 60 steps per second. */
const POUR_FRAMES = 90;
const SETTLE_FRAMES = 120;

interface PourScene {
  simulation: FluidSimulation;
  water: number;
  air: number;
  emitter: number;
}

/**
 * Water (1000 kg/m^3) poured from 0.3 m into a glass holding a 6 cm pool, with trapped air (air 100 kg/m^3,
 * the paper's section 4.3 densities, b = 5) unless `trappedAir` is false. The jet leaves the nozzle at
 * 2.5 m/s spread over 0.2 rad, so its front breaks up and lands in pieces that trap air.
 */
function pourScene(capacity: number, trappedAir = true): PourScene {
  const simulation = new FluidSimulation({ particleRadius: RADIUS, capacity, iterations: 4 });
  const water = simulation.addMaterial({ restDensity: 1000, numberDensity: true });
  const air = simulation.addMaterial({ restDensity: 100, numberDensity: true, surfaceColor: 0, color: [1, 1, 1] });
  if (trappedAir) {
    const material = simulation.components.FluidMaterial;
    material.airMaterial[water] = air;
    material.airGenerationThreshold[water] = 0.6;
    material.artificialBuoyancy[air] = 5;
  }
  simulation.addCollider({ shape: 'box', min: [-HALF, 0, -HALF], max: [HALF, HEIGHT, HALF], container: true });
  simulation.spawnBlock({ min: [-HALF, 0, -HALF], max: [HALF, 0.06, HALF], material: water });
  const emitter = simulation.addEmitter({
    material: water,
    position: [0, 0.3, 0],
    radius: 0.02,
    speed: 2.5,
    spread: 0.2,
  });
  return { simulation, water, air, emitter };
}

/** Counts of one material and of the rest, and the nominal water level (water volume / glass floor area). */
function census(simulation: FluidSimulation, air: number): { air: number; water: number; submerged: number } {
  const { Particle, Position } = simulation.components;
  let airCount = 0;
  let water = 0;
  for (const id of simulation.particles()) {
    if (Particle.material[id] === air) airCount++;
    else water++;
  }
  const level = (water * (2 * RADIUS) ** 3) / (2 * HALF) ** 2;
  let submerged = 0;
  for (const id of simulation.particles()) {
    if (Particle.material[id] === air && Position.y[id] < level - KERNEL_RADIUS) submerged++;
  }
  return { air: airCount, water, submerged };
}

function everyValueFinite(simulation: FluidSimulation): boolean {
  const { Position, Velocity, Temperature } = simulation.components;
  for (const id of simulation.particles()) {
    const sum = Position.x[id] + Position.y[id] + Position.z[id] + Velocity.x[id] + Velocity.y[id] + Velocity.z[id];
    if (!Number.isFinite(sum + Temperature[id])) return false;
  }
  return true;
}

describe('trapped air (section 3.4): a glass filled by a pouring jet', () => {
  it('generates air under the landing jet, bounded; the bubbles rise and burst; none are left 1 s after the pour', () => {
    const capacity = 3000;
    const { simulation, air, emitter } = pourScene(capacity);
    const counts: string[] = [];
    let most = 0;
    let generated = 0;
    let submergedMost = 0;
    let lastAirFrame = 0;
    for (let frame = 1; frame <= POUR_FRAMES + SETTLE_FRAMES; frame++) {
      if (frame === POUR_FRAMES + 1) simulation.components.Emitter.enabled[emitter] = 0;
      simulation.step();
      generated += simulation.stats.airGeneratedCount;
      const now = census(simulation, air);
      most = Math.max(most, now.air);
      submergedMost = Math.max(submergedMost, now.submerged);
      if (now.air > 0) lastAirFrame = frame;
      expect(simulation.stats.particleCount).toBeLessThanOrEqual(capacity);
      if (frame % 15 === 0) counts.push(`${(frame / 60).toFixed(2)} s: ${now.air} (${now.submerged} submerged)`);
    }
    console.log(`air particles over time (pour stops at 1.5 s): ${counts.join(', ')}`);
    console.log(
      `generated ${generated}, most at once ${most}, most submerged ${submergedMost}, last air at frame ${lastAirFrame}`,
    );
    // Measured: 367 generated over the run (most are deleted again at once: those beside the jet and under
    // splashes, away from the water), at most 55 at once (0.25 s: 55, 0.5 s: 42, 1.0 s: 24, 1.5 s: 3) and 12
    // under the water (more than one kernel radius below the nominal level), the last air particle gone at
    // frame 125, 0.58 s after the pour. Bounds: some air is generated (>= 20) and trapped (at least 5 under
    // water at some time: a run without generation has none); at most 200 at once (the per-step limit
    // would allow 46 per step); all gone within 1 s (60 frames) after the pour.
    expect(generated).toBeGreaterThanOrEqual(20);
    expect(submergedMost).toBeGreaterThanOrEqual(5);
    expect(most).toBeLessThanOrEqual(200);
    expect(lastAirFrame).toBeLessThanOrEqual(POUR_FRAMES + 60);
    expect(census(simulation, air).air).toBe(0);
    expect(everyValueFinite(simulation)).toBe(true);
  });

  it('never exceeds a tiny capacity: the emitter blocks, air takes the last free places, nothing throws', () => {
    // 300 pool particles and room for 60 more: the jet fills it in about 0.3 s.
    const capacity = 360;
    const { simulation, air } = pourScene(capacity);
    let generated = 0;
    let blocked = 0;
    const counts: string[] = [];
    for (let frame = 1; frame <= POUR_FRAMES; frame++) {
      simulation.step();
      generated += simulation.stats.airGeneratedCount;
      if (simulation.stats.emitterBlocked) blocked++;
      expect(simulation.stats.particleCount).toBeLessThanOrEqual(capacity);
      expect(simulation.particles().length).toBeLessThanOrEqual(capacity);
      if (frame % 15 === 0) counts.push(`${(frame / 60).toFixed(2)} s: ${census(simulation, air).air}`);
    }
    console.log(
      `capacity ${capacity}: air ${counts.join(', ')}; ${generated} generated; emitter blocked in ${blocked} steps`,
    );
    // Measured: the emitter is blocked in 86 of 90 steps; 22 air particles are still generated into the places
    // the blocked emitter leaves and the deleted bubbles free (2 alive at 0.25 s, 0 later). Bounds: never above the capacity (checked every
    // step above), the emitter was blocked, and the run stays finite.
    expect(blocked).toBeGreaterThan(0);
    expect(everyValueFinite(simulation)).toBe(true);
  });
});

describe('artificial buoyancy (eq. 17): a bubble at the bottom of a pool', () => {
  /**
   * A pool 16 cm deep; after 0.5 s of settling, the particles in a 4 cm square at the bottom center turn
   * into air. Returns the air count and mean height every 0.1 s and the frame the last air left.
   */
  function bubble(buoyancy: number): { heights: number[]; clearedFrame: number; count: number } {
    const simulation = new FluidSimulation({ particleRadius: RADIUS, capacity: 2000, iterations: 4 });
    const water = simulation.addMaterial({ restDensity: 1000, numberDensity: true });
    const air = simulation.addMaterial({ restDensity: 100, numberDensity: true, surfaceColor: 0 });
    const material = simulation.components.FluidMaterial;
    material.airMaterial[water] = air;
    material.artificialBuoyancy[air] = buoyancy;
    // Boiling on with an unreachable temperature: the air deletion of section 3.4.2 runs, nothing boils.
    material.boilingTemperature[water] = 1e6;
    simulation.addCollider({ shape: 'box', min: [-0.08, 0, -0.08], max: [0.08, 0.4, 0.08], container: true });
    const ids = simulation.spawnBlock({ min: [-0.08, 0, -0.08], max: [0.08, 0.16, 0.08], material: water });
    const { Particle, Position } = simulation.components;
    for (let frame = 0; frame < 30; frame++) simulation.step();
    let count = 0;
    for (const id of ids) {
      if (Math.abs(Position.x[id]) < 0.021 && Math.abs(Position.z[id]) < 0.021 && Position.y[id] < 0.05) {
        Particle.material[id] = air;
        count++;
      }
    }
    const heights: number[] = [];
    let clearedFrame = -1;
    for (let frame = 1; frame <= 120; frame++) {
      simulation.step();
      let airCount = 0;
      let height = 0;
      for (const id of simulation.particles()) {
        if (Particle.material[id] !== air) continue;
        airCount++;
        height += Position.y[id];
      }
      if (airCount === 0 && clearedFrame < 0) clearedFrame = frame;
      if (frame % 6 === 0) heights.push(airCount > 0 ? height / airCount : Number.NaN);
    }
    expect(everyValueFinite(simulation)).toBe(true);
    return { heights, clearedFrame, count };
  }

  it('b = 5 lifts the bubble faster than the density difference alone; both leave at the surface', () => {
    const buoyant = bubble(5);
    const plain = bubble(0);
    const show = (values: number[]) => values.map((value) => (Number.isNaN(value) ? '-' : value.toFixed(3))).join(' ');
    console.log(
      `b = 5: ${buoyant.count} air particles, mean height every 0.1 s ${show(buoyant.heights)}; gone at frame ${buoyant.clearedFrame}`,
    );
    console.log(
      `b = 0: ${plain.count} air particles, mean height every 0.1 s ${show(plain.heights)}; gone at frame ${plain.clearedFrame}`,
    );
    // Measured: 8 air particles; b = 5: mean height 0.050 m at 0.1 s, 0.228 m at 0.2 s (through the 0.16 m surface),
    // gone at frame 15 (0.25 s); b = 0 (the rest-density difference of the number-density constraint alone):
    // 0.044 m at 0.1 s, 0.109 m at 0.2 s, 0.117 m at 0.3 s, gone at frame 21 (0.35 s). Bounds: the bubble exists (>= 4 particles), both are gone
    // within 1 s (deleted at the surface: none stays at the top or bottom), and eq. 17 clears it sooner.
    expect(buoyant.count).toBeGreaterThanOrEqual(4);
    expect(buoyant.clearedFrame).toBeGreaterThan(0);
    expect(buoyant.clearedFrame).toBeLessThanOrEqual(60);
    expect(plain.clearedFrame).toBeGreaterThan(0);
    expect(plain.clearedFrame).toBeLessThanOrEqual(60);
    expect(buoyant.clearedFrame).toBeLessThan(plain.clearedFrame);
  });
});

describe('boiling (section 4.4): a pot of water on a hot plate', () => {
  it.each(['pbf', 'sph'] as const)(
    'warms, boils at the plate, the vapour rises and leaves at the surface, the water count falls (solver %s)',
    (solver) => {
      const simulation = new FluidSimulation({ particleRadius: RADIUS, capacity: 1000, iterations: 4, solver });
      const water = simulation.addMaterial({
        restDensity: 1000,
        numberDensity: true,
        diffusivity: 0.0003,
        initialTemperature: 293.15,
      });
      const vapour = simulation.addMaterial({
        restDensity: 100,
        numberDensity: true,
        surfaceColor: 0,
        diffusivity: 0.0003,
        color: [1, 1, 1],
      });
      const material = simulation.components.FluidMaterial;
      material.airMaterial[water] = vapour;
      material.boilingTemperature[water] = 373.15;
      material.boilingProbability[water] = 0.005;
      material.artificialBuoyancy[vapour] = 5;
      simulation.addCollider({ shape: 'box', min: [-0.08, 0, -0.08], max: [0.08, 0.4, 0.08], container: true });
      // The plate under the pot's floor: 700 K, heat transfer 2 1/s.
      simulation.addCollider({
        shape: 'box',
        min: [-1, -1, -1],
        max: [1, 0, 1],
        wallWeights: false,
        temperature: 700,
        heatTransfer: 2,
      });
      simulation.spawnBlock({ min: [-0.08, 0, -0.08], max: [0.08, 0.1, 0.08], material: water });
      const { Particle, Position, Temperature } = simulation.components;
      const startCount = simulation.particles().length;
      let firstBoilFrame = -1;
      let boiledTotal = 0;
      let boiledHighest = 0;
      const exitHeights: number[] = [];
      const exitLevels: number[] = [];
      const lines: string[] = [];
      const vapourBefore = new Map<number, number>();
      const materialBefore = new Map<number, number>();
      for (let frame = 1; frame <= 180; frame++) {
        vapourBefore.clear();
        materialBefore.clear();
        let waterCount = 0;
        for (const id of simulation.particles()) {
          materialBefore.set(id, Particle.material[id]);
          if (Particle.material[id] === vapour) vapourBefore.set(id, Position.y[id]);
          else waterCount++;
        }
        const level = (waterCount * (2 * RADIUS) ** 3) / 0.16 ** 2;
        simulation.step();
        for (const id of simulation.lastRemoved()) {
          const height = vapourBefore.get(id);
          if (height === undefined) continue;
          exitHeights.push(height);
          exitLevels.push(level);
        }
        if (simulation.stats.boiledCount > 0) {
          if (firstBoilFrame < 0) firstBoilFrame = frame;
          boiledTotal += simulation.stats.boiledCount;
          for (const id of simulation.particles()) {
            if (Particle.material[id] === vapour && materialBefore.get(id) === water) {
              boiledHighest = Math.max(boiledHighest, Position.y[id]);
            }
          }
        }
        if (frame % 30 === 0) {
          let count = 0;
          let vapourCount = 0;
          let temperature = 0;
          for (const id of simulation.particles()) {
            if (Particle.material[id] === vapour) {
              vapourCount++;
              continue;
            }
            count++;
            temperature += Temperature[id];
          }
          lines.push(
            `${(frame / 60).toFixed(1)} s: water ${count} (mean ${(temperature / count).toFixed(1)} K), vapour ${vapourCount}`,
          );
        }
        expect(everyValueFinite(simulation)).toBe(true);
      }
      let atSurface = 0;
      for (let k = 0; k < exitHeights.length; k++) if (exitHeights[k] >= exitLevels[k] - KERNEL_RADIUS) atSurface++;
      const endCount = census(simulation, vapour).water;
      console.log(lines.join('; '));
      console.log(
        `${solver}: first boiling at frame ${firstBoilFrame}; ${boiledTotal} boiled, the highest ${boiledHighest.toFixed(3)} m above the plate; ${exitHeights.length} vapour particles left, ${atSurface} of them within h of the surface or above; water ${startCount} -> ${endCount}`,
      );
      // Measured: the first particles boil at frame 10 (0.17 s: the bottom layer, within h of the plate, is
      // heated at 2 1/s; the mean water temperature is 353 K at 0.5 s, 389 K at 1 s, 483 K at 3 s: there is
      // no latent heat); 96 boil in 3 s, the highest 0.039 m above the plate (< h by construction); 95
      // vapour particles are deleted, all 95 within h of the nominal water level or above (never at the
      // plate); vapour alive at once 1-8; water 320 -> 224. WCSPH: first at frame 11, 92 boil (the highest
      // 0.040 m), 57 deleted, all within h of the level or above, 35-42 vapour particles alive at once from
      // 2 s (they rise more slowly through the 10 Pa s water), water 320 -> 228. Bounds: boils within 1 s, only at the plate, at least 70% of the vapour
      // leaves near the surface, the water count falls by at least 10%.
      expect(firstBoilFrame).toBeGreaterThan(0);
      expect(firstBoilFrame).toBeLessThanOrEqual(60);
      expect(boiledHighest).toBeLessThan(KERNEL_RADIUS);
      expect(exitHeights.length).toBeGreaterThanOrEqual(10);
      expect(atSurface / exitHeights.length).toBeGreaterThanOrEqual(0.7);
      expect(endCount).toBeLessThanOrEqual(0.9 * startCount);
    },
  );
});

describe('features off', () => {
  it('positions are bit-identical to a run without the new systems, with defaults or with every value but the switches', () => {
    const run = (configure: (scene: PourScene) => void): Float64Array => {
      const scene = pourScene(1500, false);
      configure(scene);
      for (let frame = 0; frame < 60; frame++) scene.simulation.step();
      const { Position } = scene.simulation.components;
      const ids = scene.simulation.particles();
      const out = new Float64Array(3 * ids.length);
      ids.forEach((id, k) => {
        out[3 * k] = Position.x[id];
        out[3 * k + 1] = Position.y[id];
        out[3 * k + 2] = Position.z[id];
      });
      return out;
    };
    // The reference runs the system list without the three new systems at all (the code before them).
    const plain = run(({ simulation }) => {
      const internal = simulation as unknown as { systems: readonly FluidSystem[] };
      internal.systems = internal.systems.filter(
        (system) => !['artificialBuoyancy', 'boiling', 'trappedAir'].includes(system.name),
      );
      expect(internal.systems.length).toBe(cpuSystems.length - 3);
    });
    const defaults = run(() => {});
    // Every value set except the switches: an air material named, deletion thresholds, a boiling
    // probability without a boiling temperature, generation distance; generation threshold and b at 0.
    const configured = run(({ simulation, water, air }) => {
      const material = simulation.components.FluidMaterial;
      material.airMaterial[water] = air;
      material.airGenerationDistance[water] = 2;
      material.boilingProbability[water] = 0.5;
      material.airDeletionDensity[air] = 0.9;
      material.airDeletionBoundaryThreshold[air] = 0.1;
      material.airDeletionSurfaceThreshold[air] = 50;
    });
    for (const other of [defaults, configured]) {
      expect(other.length).toBe(plain.length);
      let same = 0;
      for (let k = 0; k < plain.length; k++) if (Object.is(plain[k], other[k])) same++;
      expect(same).toBe(plain.length);
    }
  });
});

describe('validation', () => {
  it('refuses bad values with a FluidError naming the value and the range; a corrected scene steps', () => {
    const simulation = new FluidSimulation({ particleRadius: RADIUS, capacity: 200 });
    const water = simulation.addMaterial({});
    const air = simulation.addMaterial({ restDensity: 100, surfaceColor: 0 });
    const liquid = simulation.addMaterial({});
    simulation.spawnBlock({ min: [0, 0, 0], max: [0.06, 0.06, 0.06], material: water });
    const material = simulation.components.FluidMaterial;
    const cases: [() => void, () => void, RegExp][] = [
      [
        () => (material.airGenerationThreshold[water] = -1),
        () => (material.airGenerationThreshold[water] = 0),
        /FluidMaterial\.airGenerationThreshold\[\d+\] is -1; allowed range is \[0, 100\]/,
      ],
      [
        () => (material.airGenerationThreshold[water] = Number.NaN),
        () => (material.airGenerationThreshold[water] = 0),
        /FluidMaterial\.airGenerationThreshold\[\d+\] is NaN/,
      ],
      [
        () => (material.airGenerationDistance[water] = 5),
        () => (material.airGenerationDistance[water] = 1),
        /FluidMaterial\.airGenerationDistance\[\d+\] is 5; allowed range is \[0, 4\]/,
      ],
      [
        () => (material.boilingProbability[water] = 2),
        () => (material.boilingProbability[water] = 0.005),
        /FluidMaterial\.boilingProbability\[\d+\] is 2; allowed range is \[0, 1\]/,
      ],
      [
        () => (material.boilingTemperature[water] = -5),
        () => (material.boilingTemperature[water] = 0),
        /FluidMaterial\.boilingTemperature\[\d+\] is -5; allowed range is \[0, 1000000\]/,
      ],
      [
        () => (material.artificialBuoyancy[air] = -1),
        () => (material.artificialBuoyancy[air] = 0),
        /FluidMaterial\.artificialBuoyancy\[\d+\] is -1; allowed range is \[0, 100\]/,
      ],
      [
        () => (material.airDeletionDensity[air] = 1.5),
        () => (material.airDeletionDensity[air] = 0.2),
        /FluidMaterial\.airDeletionDensity\[\d+\] is 1\.5; allowed range is \[0, 1\]/,
      ],
      [
        () => (material.airDeletionSurfaceThreshold[air] = -0.1),
        () => (material.airDeletionSurfaceThreshold[air] = 0.001),
        /FluidMaterial\.airDeletionSurfaceThreshold\[\d+\] is -0\.1/,
      ],
      [
        () => (material.airDeletionBoundaryThreshold[air] = 101),
        () => (material.airDeletionBoundaryThreshold[air] = 1),
        /FluidMaterial\.airDeletionBoundaryThreshold\[\d+\] is 101/,
      ],
      [
        () => (material.airMaterial[water] = water),
        () => (material.airMaterial[water] = -1),
        /FluidMaterial\.airMaterial\[\d+\] is \d+; it must be -1 \(none\) or the entity id of another material/,
      ],
      [
        () => (material.airMaterial[water] = 150),
        () => (material.airMaterial[water] = -1),
        /FluidMaterial\.airMaterial\[\d+\] is 150; it must be -1/,
      ],
      [
        () => (material.airGenerationThreshold[water] = 0.6),
        () => (material.airGenerationThreshold[water] = 0),
        /FluidMaterial\.airGenerationThreshold\[\d+\] is 0\.6 but FluidMaterial\.airMaterial\[\d+\] is -1/,
      ],
      [
        () => {
          material.airMaterial[water] = liquid;
          material.boilingTemperature[water] = 373.15;
        },
        () => {
          material.airMaterial[water] = -1;
          material.boilingTemperature[water] = 0;
        },
        /FluidMaterial\.surfaceColor\[\d+\] is 1; the air material of FluidMaterial\.airMaterial\[\d+\] must have surfaceColor 0/,
      ],
    ];
    for (const [breakIt, fixIt, message] of cases) {
      breakIt();
      expect(() => simulation.step()).toThrowError(FluidError);
      expect(() => simulation.step()).toThrowError(message);
      fixIt();
      simulation.step();
    }
    // Valid and on: steps.
    material.airMaterial[water] = air;
    material.airGenerationThreshold[water] = 0.6;
    material.boilingTemperature[water] = 373.15;
    material.artificialBuoyancy[air] = 5;
    simulation.step();
  });

  it('the MPS solver refuses the new features', () => {
    for (const solver of ['mps'] as const) {
      const simulation = new FluidSimulation({ particleRadius: RADIUS, capacity: 200, solver });
      const water = simulation.addMaterial({});
      const air = simulation.addMaterial({ restDensity: 100, surfaceColor: 0 });
      simulation.spawnBlock({ min: [0, 0, 0], max: [0.06, 0.06, 0.06], material: water });
      const material = simulation.components.FluidMaterial;
      material.airMaterial[water] = air;
      material.airGenerationThreshold[water] = 0.6;
      expect(() => simulation.step()).toThrowError(
        /FluidMaterial\.airGenerationThreshold is implemented for solvers 'pbf' and 'sph' only/,
      );
      material.airGenerationThreshold[water] = 0;
      material.boilingTemperature[water] = 373.15;
      expect(() => simulation.step()).toThrowError(
        /FluidMaterial\.boilingTemperature is implemented for solvers 'pbf' and 'sph' only/,
      );
      material.boilingTemperature[water] = 0;
      material.artificialBuoyancy[air] = 5;
      expect(() => simulation.step()).toThrowError(
        /FluidMaterial\.artificialBuoyancy is implemented for solvers 'pbf' and 'sph' only/,
      );
      material.artificialBuoyancy[air] = 0;
      simulation.step();
    }
  });
});

describe('snapshots', () => {
  it('a snapshot taken mid-pour restores the air, its values and the random state: the run continues bit-identically', () => {
    const { simulation, water, air } = pourScene(1500);
    for (let frame = 0; frame < 40; frame++) simulation.step();
    const saved = simulation.snapshot();
    const restored = FluidSimulation.fromSnapshot(saved);
    for (let frame = 0; frame < 30; frame++) {
      simulation.step();
      restored.step();
    }
    const a = simulation.particles();
    const b = restored.particles();
    expect(b.length).toBe(a.length);
    let airCount = 0;
    for (let k = 0; k < a.length; k++) {
      expect(b[k]).toBe(a[k]);
      expect(restored.components.Position.y[b[k]]).toBe(simulation.components.Position.y[a[k]]);
      expect(restored.components.Particle.material[b[k]]).toBe(simulation.components.Particle.material[a[k]]);
    }
    for (const id of a) if (simulation.components.Particle.material[id] === air) airCount++;
    console.log(`snapshot after 40 frames, 30 more on both: ${a.length} particles, ${airCount} air, identical`);
    expect(airCount).toBeGreaterThan(0);
    expect(restored.components.FluidMaterial.airGenerationThreshold[water]).toBe(0.6);
    expect(restored.components.FluidMaterial.airMaterial[water]).toBe(air);
  });
});

describe("the plugin draws the air in its material's color (NullEngine, CPU backend, colorBy 'material')", () => {
  it('the render buffers follow the particles as air appears and leaves; air particles are white', async () => {
    const engine = new NullEngine();
    try {
      const scene = new Scene(engine);
      new FreeCamera('camera', new Vector3(0, 0.2, -1), scene);
      const fluid = await FluidPlugin.create(scene, {
        backend: 'cpu',
        particleRadius: RADIUS,
        capacity: 1500,
        iterations: 4,
        useDeltaTime: false,
        renderMode: 'points',
        colorBy: 'material',
      });
      const simulation = fluid.simulation;
      const water = simulation.addMaterial({ restDensity: 1000, numberDensity: true, color: [0.15, 0.4, 0.9] });
      const air = simulation.addMaterial({ restDensity: 100, numberDensity: true, surfaceColor: 0, color: [1, 1, 1] });
      const material = simulation.components.FluidMaterial;
      material.airMaterial[water] = air;
      material.airGenerationThreshold[water] = 0.6;
      material.artificialBuoyancy[air] = 5;
      simulation.addCollider({ shape: 'box', min: [-HALF, 0, -HALF], max: [HALF, HEIGHT, HALF], container: true });
      simulation.spawnBlock({ min: [-HALF, 0, -HALF], max: [HALF, 0.06, HALF], material: water });
      simulation.addEmitter({ material: water, position: [0, 0.3, 0], radius: 0.02, speed: 2.5, spread: 0.2 });
      let airDrawn = 0;
      for (let frame = 0; frame < 30; frame++) {
        scene.render();
        const buffers = fluid.particleBuffers;
        expect(buffers.count).toBe(simulation.particleCount);
        for (let place = 0; place < buffers.count; place++) {
          if (simulation.components.Particle.material[buffers.ids[place]] !== air) continue;
          airDrawn++;
          expect(buffers.colors[4 * place]).toBe(1);
          expect(buffers.colors[4 * place + 2]).toBe(1);
        }
      }
      console.log(`air particles drawn over 30 frames: ${airDrawn} (particle-frames)`);
      expect(airDrawn).toBeGreaterThan(0);
      fluid.dispose();
    } finally {
      engine.dispose();
    }
  });
});
