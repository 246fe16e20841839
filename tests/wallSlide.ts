/**
 * Water released against vertical walls, the check of "walls do not hold water up": small lumps of
 * particles at rest touching the outside of a glass (a baked mesh collider, as in the pour example) and the
 * face of a solid box, at three heights each, with the default friction (0), and the same lumps far from any
 * wall as the control (a lump's own pressure spreads it, so its particles do not all fall exactly g t² / 2).
 * Used by tests/wall-slide.test.ts on the CPU and by the `wallSlide` scenario of the WebGPU harness page.
 */
import { bakeSignedDistanceField, createGlassMesh, FluidSimulation, type FluidSimulationOptions } from '../src';

/** The glass of the pour example: outer radius, wall thickness, height, bottom (m). */
export const WALL_SLIDE_GLASS = { outerRadius: 0.13, wallThickness: 0.02, height: 0.26, bottomThickness: 0.025 };
/** The box wall's face the lumps touch (x, m); the box spans x in [face, face + 0.1]. */
const BOX_FACE = 0.5;
/** The control lumps' x (m): 0.37 m from the glass, 0.9 m from the box. */
const CONTROL = -0.5;
/** Heights of the lumps' lower faces (m). */
const HEIGHTS = [0.08, 0.15, 0.22];

/** What {@link wallSlide} measured. */
export interface WallSlideResult {
  /** Particles released (and still there at the end). */
  particles: number;
  count: number;
  /** Seconds stepped. */
  seconds: number;
  /** Free fall from rest in that time, g t^2 / 2 (m). */
  freeFall: number;
  /** Smallest and median drop of a particle against a wall (m). */
  smallestDrop: number;
  medianDrop: number;
  /** Smallest and median drop of a particle of the control lumps, far from any wall (m). */
  controlSmallestDrop: number;
  controlMedianDrop: number;
  /** Smallest distance of a particle centre outside a wall (m): under the particle radius means inside. */
  closestToGlass: number;
  closestToBox: number;
}

/** The scene: a floor far below, the glass at the origin, the box wall beside it, nine lumps at rest. */
export function wallSlideScene(options: FluidSimulationOptions = {}): FluidSimulation {
  const radius = 0.01;
  const glass = bakeSignedDistanceField(createGlassMesh({ ...WALL_SLIDE_GLASS, segments: 48 }), { resolution: 64 });
  const simulation = new FluidSimulation({ particleRadius: radius, capacity: 200, ...options });
  const water = simulation.addMaterial({});
  simulation.addCollider({ shape: 'plane', point: [0, -1, 0], normal: [0, 1, 0] });
  simulation.addCollider({ shape: 'mesh', field: glass });
  simulation.addCollider({ shape: 'box', min: [BOX_FACE, -1, -0.2], max: [BOX_FACE + 0.1, 0.4, 0.2] });
  const side = 2 * radius * 2;
  for (const y of HEIGHTS) {
    // 2 x 2 x 2 particles, touching the glass's outside at +x, and the box's face from -x.
    const glassFace = WALL_SLIDE_GLASS.outerRadius + 0.0005;
    simulation.spawnBlock({
      min: [glassFace, y, -side / 2],
      max: [glassFace + side, y + side, side / 2],
      material: water,
    });
    simulation.spawnBlock({
      min: [BOX_FACE - side - 0.0005, y, -side / 2],
      max: [BOX_FACE - 0.0005, y + side, side / 2],
      material: water,
    });
    simulation.spawnBlock({ min: [CONTROL, y, -side / 2], max: [CONTROL + side, y + side, side / 2], material: water });
  }
  return simulation;
}

/** Steps `frames` frames of 1/60 s and measures each particle's drop against free fall. */
export async function wallSlide(simulation: FluidSimulation, frames: number): Promise<WallSlideResult> {
  await simulation.ready();
  const start = new Map<number, number>();
  for (const id of simulation.particles()) start.set(id, simulation.Position.y[id]);
  for (let frame = 0; frame < frames; frame++) simulation.step();
  await simulation.readback();
  const { Position } = simulation;
  const drops: number[] = [];
  const controlDrops: number[] = [];
  let closestToGlass = Number.POSITIVE_INFINITY;
  let closestToBox = Number.POSITIVE_INFINITY;
  for (const id of simulation.particles()) {
    const drop = (start.get(id) ?? Number.NaN) - Position.y[id];
    const x = Position.x[id];
    if (x < CONTROL / 2) {
      controlDrops.push(drop);
      continue;
    }
    drops.push(drop);
    if (x < 0.3)
      closestToGlass = Math.min(closestToGlass, Math.hypot(x, Position.z[id]) - WALL_SLIDE_GLASS.outerRadius);
    else closestToBox = Math.min(closestToBox, BOX_FACE - x);
  }
  drops.sort((a, b) => a - b);
  controlDrops.sort((a, b) => a - b);
  const seconds = frames / 60;
  return {
    particles: start.size,
    count: drops.length + controlDrops.length,
    seconds,
    freeFall: 0.5 * 9.81 * seconds * seconds,
    smallestDrop: drops[0],
    medianDrop: drops[drops.length >> 1],
    controlSmallestDrop: controlDrops[0],
    controlMedianDrop: controlDrops[controlDrops.length >> 1],
    closestToGlass,
    closestToBox,
  };
}
