/**
 * The floating box of the solvers' coupling checks (tests/mps.test.ts; WCSPH's figures in docs/solvers.md were
 * measured with it by hand, on WebGPU through the `floatingBox` scenario of the harness page): a 0.6 m x 0.6 m pool 0.3 m deep (r = 2.5 cm), with (when
 * a density is given) a flat box 0.3 x 0.16 x 0.3 m of that density over its middle, its bottom on the water
 * at rest, integrated here along y only (held level and centered): v += J / M - g dt with the impulse J the
 * fluid gave it, plus a dashpot to the world (no force at rest, so the equilibrium is unchanged) that damps
 * the bobbing (period about 0.6 s) within the run. Archimedes: a box of half water's density floats half
 * submerged.
 */
import { FluidSimulation, type FluidSimulationOptions } from '../src';

const r = 0.025;
const pool = 0.6;
const depth = 0.3;
const size = [0.3, 0.16, 0.3];
const half = size.map((extent) => extent / 2) as [number, number, number];
const frames = 240;
const averaged = 60;

/** One run's figures, averaged over the last second of four. */
export interface FloatingBoxRun {
  /** Far-field water level (m): the mean top of the lattice columns clear of the box, plus r. */
  level: number;
  /** The box's bottom (m). */
  bottom: number;
  /** Particles at the start and at the end. */
  count: number;
  countAtEnd: number;
  /** Particles inside the box at the end. */
  inside: number;
}

/** Mean height of the top particle of each lattice column farther than the box's half width + r from its axis, plus r. */
function farLevel(simulation: FluidSimulation): number {
  const { Position } = simulation;
  const top = new Map<number, number>();
  for (const eid of simulation.particles()) {
    const x = Position.x[eid];
    const z = Position.z[eid];
    if (Math.abs(x - pool / 2) < half[0] + r && Math.abs(z - pool / 2) < half[2] + r) continue;
    const key = Math.round(x / (2 * r)) * 1000 + Math.round(z / (2 * r));
    top.set(key, Math.max(top.get(key) ?? 0, Position.y[eid]));
  }
  let sum = 0;
  for (const height of top.values()) sum += height;
  return sum / top.size + r;
}

/** The pool with the box of `density` (none when undefined), four seconds, with `options` (the solver, the backend). */
export async function floatingBoxRun(
  density: number | undefined,
  options: FluidSimulationOptions,
): Promise<FloatingBoxRun> {
  const simulation = new FluidSimulation({ particleRadius: r, capacity: 1024, ...options });
  await simulation.ready();
  const water = simulation.addMaterial({});
  simulation.addCollider({ shape: 'box', min: [0, 0, 0], max: [pool, 1, pool], container: true });
  simulation.spawnBlock({ min: [0, 0, 0], max: [pool, depth, pool], material: water });
  const count = simulation.particleCount;
  let box = -1;
  let y = depth + half[1];
  let velocity = 0;
  const mass = (density ?? 0) * size[0] * size[1] * size[2];
  const damping = 80; // N s/m, about half the critical damping of the bobbing
  const dt = simulation.settings.timeStep;
  const impulse = {
    impulse: [0, 0, 0] as [number, number, number],
    angularImpulse: [0, 0, 0] as [number, number, number],
  };
  if (density !== undefined) {
    box = simulation.addCollider({
      shape: 'box',
      min: [-half[0], -half[1], -half[2]],
      max: half,
      rigidBody: { centerOfMass: [0, 0, 0] },
    });
    simulation.setColliderTransform(box, { position: [pool / 2, y, pool / 2], teleport: true });
  }
  let level = 0;
  let bottom = 0;
  const gpu = simulation.backend === 'webgpu';
  for (let frame = 1; frame <= frames; frame++) {
    simulation.step();
    // The WebGPU backend hands the impulses over with its readbacks: wait for this step's.
    if (gpu && (box >= 0 || frame > frames - averaged)) await simulation.readback();
    if (box >= 0) {
      simulation.takeBodyImpulse(box, impulse);
      velocity = (velocity + impulse.impulse[1] / mass - 9.81 * dt) / (1 + (damping * dt) / mass);
      y += velocity * dt;
      simulation.setColliderTransform(box, { position: [pool / 2, y, pool / 2] });
    }
    if (frame > frames - averaged) {
      level += farLevel(simulation) / averaged;
      bottom += (y - half[1]) / averaged;
    }
  }
  const result = {
    level,
    bottom,
    count,
    countAtEnd: simulation.particleCount,
    inside: box >= 0 ? simulation.particlesInsideCollider(box) : 0,
  };
  simulation.dispose();
  return result;
}

/** The submerged fractions of the box (expected 0.5 at half water's density) from a blank and a floating run. */
export function submergedFractions(
  blank: FloatingBoxRun,
  floating: FloatingBoxRun,
): { displacement: number; geometric: number } {
  // Archimedes' own measure: the level rise far from the box times the pool's area is the volume the box
  // displaces (both runs measure the level the same way, so its offset from the true level cancels).
  const boxVolume = size[0] * size[1] * size[2];
  const displacement = ((floating.level - blank.level) * pool * pool) / boxVolume;
  // Geometry: the box's bottom below the true level, with the level's offset calibrated by the blank run,
  // whose true level is the water's volume (N particles of (2r)^3) over the pool's area.
  const trueBlank = (blank.count * (2 * r) ** 3) / (pool * pool);
  const geometric = (floating.level + trueBlank - blank.level - floating.bottom) / size[1];
  return { displacement, geometric };
}
