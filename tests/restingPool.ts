/**
 * The resting pool of the still-water checks (tests/still-water.test.ts) and of `npm run bench`: a column
 * of 10 x 10 particle columns spawned at rest (or dropped) in a box twice as high, and the figures of how
 * still it is.
 */
import { FluidSimulation, type FluidSimulationOptions } from '../src';

/** How still a pool is, from the particles as the components hold them now. */
export interface RestFigures {
  /** Particles. */
  count: number;
  /** Mean and largest particle speed (m/s). */
  meanSpeed: number;
  fastest: number;
  /** 99th percentile of the particles' tops (y + r) over the rest height, minus 1. */
  surfaceError: number;
  /** How far the highest particle's top is above the rest height, in spacings 2r. */
  highestAbove: number;
}

/** The pool: `depth` particles deep, radius `radius` (m), spawned `drop` (m) above the floor. */
export function restingPool(
  depth: number,
  radius: number,
  drop = 0,
  options: FluidSimulationOptions = {},
): FluidSimulation {
  const spacing = 2 * radius;
  const width = 10 * spacing;
  const height = depth * spacing;
  const simulation = new FluidSimulation({ particleRadius: radius, capacity: 100 * depth, ...options });
  const water = simulation.addMaterial({});
  simulation.addCollider({ shape: 'box', min: [0, 0, 0], max: [width, 2 * height + drop, width], container: true });
  simulation.spawnBlock({ min: [0, drop, 0], max: [width, drop + height, width], material: water });
  return simulation;
}

/** The figures of a pool `depth` particles deep (rest height depth x 2r). */
export function restFigures(simulation: FluidSimulation, depth: number): RestFigures {
  const radius = simulation.settings.particleRadius;
  const height = depth * 2 * radius;
  const { Position, Velocity } = simulation;
  const tops: number[] = [];
  let sum = 0;
  let fastest = 0;
  for (const id of simulation.particles()) {
    const speed = Math.hypot(Velocity.x[id], Velocity.y[id], Velocity.z[id]);
    sum += speed;
    fastest = Math.max(fastest, speed);
    tops.push(Position.y[id] + radius);
  }
  tops.sort((a, b) => a - b);
  return {
    count: tops.length,
    meanSpeed: sum / tops.length,
    fastest,
    surfaceError: tops[Math.floor(0.99 * (tops.length - 1))] / height - 1,
    highestAbove: (tops[tops.length - 1] - height) / (2 * radius),
  };
}
