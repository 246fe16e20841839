/**
 * Test scenes with Havok in Node: a NullEngine scene with a chosen frame rate, Havok physics (its wasm
 * read from the package, since Node cannot fetch it), a pool with static Havok walls matching the fluid's
 * container, and boxes as dynamic bodies.
 */
import '@babylonjs/core/Physics/v2/physicsEngineComponent.js';
import '@babylonjs/core/Physics/joinedPhysicsEngineComponent.js';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { FreeCamera } from '@babylonjs/core/Cameras/freeCamera.js';
import { NullEngine } from '@babylonjs/core/Engines/nullEngine.js';
import { type Matrix, Vector3 } from '@babylonjs/core/Maths/math.vector.js';
import { CreateBox } from '@babylonjs/core/Meshes/Builders/boxBuilder.js';
import type { Mesh } from '@babylonjs/core/Meshes/mesh.js';
import { PhysicsShapeType } from '@babylonjs/core/Physics/v2/IPhysicsEnginePlugin.js';
import { HavokPlugin } from '@babylonjs/core/Physics/v2/Plugins/havokPlugin.js';
import { PhysicsAggregate } from '@babylonjs/core/Physics/v2/physicsAggregate.js';
import { Scene } from '@babylonjs/core/scene.js';
import HavokPhysics from '@babylonjs/havok';
import type { FluidMaterialOptions, FluidSimulation } from '../src';

type HavokModule = Awaited<ReturnType<typeof HavokPhysics>>;
let havok: Promise<HavokModule> | undefined;

/** Havok's wasm module, loaded once per test file. */
export function loadHavok(): Promise<HavokModule> {
  if (havok === undefined) {
    const require = createRequire(import.meta.url);
    const bytes = readFileSync(require.resolve('@babylonjs/havok/lib/esm/HavokPhysics.wasm'));
    havok = HavokPhysics({ wasmBinary: new Uint8Array(bytes).buffer });
  }
  return havok;
}

/** A scene rendering at `framesPerSecond` (the engine's delta time is stubbed) with Havok physics. */
export async function createPhysicsScene(
  framesPerSecond: number,
  gravity = -9.81,
): Promise<{ engine: NullEngine; scene: Scene; physics: HavokPlugin }> {
  const hk = await loadHavok();
  const engine = new NullEngine();
  engine.getDeltaTime = () => 1000 / framesPerSecond;
  const scene = new Scene(engine);
  new FreeCamera('camera', new Vector3(0, 1, -3), scene);
  const physics = new HavokPlugin(true, hk);
  scene.enablePhysics(new Vector3(0, gravity, 0), physics);
  return { engine, scene, physics };
}

/** Static Havok boxes around the box [0, size] (floor and four walls, 0.2 m thick), for bodies in a pool. */
export function addStaticPool(scene: Scene, size: readonly [number, number, number]): void {
  const [w, h, d] = size;
  const t = 0.2;
  const walls: [number, number, number, number, number, number][] = [
    [w / 2, -t / 2, d / 2, w + 2 * t, t, d + 2 * t],
    [-t / 2, h / 2, d / 2, t, h, d + 2 * t],
    [w + t / 2, h / 2, d / 2, t, h, d + 2 * t],
    [w / 2, h / 2, -t / 2, w, h, t],
    [w / 2, h / 2, d + t / 2, w, h, t],
  ];
  for (const [x, y, z, width, height, depth] of walls) {
    const wall = CreateBox('wall', { width, height, depth }, scene);
    wall.position.set(x, y, z);
    // Frictionless: a floating body that drifts against a wall must not hang on it.
    new PhysicsAggregate(wall, PhysicsShapeType.BOX, { mass: 0, friction: 0 }, scene);
  }
}

/** A dynamic Havok box of the given size (m) and density (kg/m^3) at `position`. */
export function addBox(
  scene: Scene,
  size: readonly [number, number, number],
  density: number,
  position: readonly [number, number, number],
): { mesh: Mesh; aggregate: PhysicsAggregate; mass: number } {
  const mesh = CreateBox('crate', { width: size[0], height: size[1], depth: size[2] }, scene);
  mesh.position.set(position[0], position[1], position[2]);
  const mass = density * size[0] * size[1] * size[2];
  const aggregate = new PhysicsAggregate(mesh, PhysicsShapeType.BOX, { mass, friction: 0.2, restitution: 0 }, scene);
  return { mesh, aggregate, mass };
}

/** Mean of the highest particle center of every 2r x 2r column of the pool, skipping columns `skip` says. */
export function meanTopCenter(
  simulation: FluidSimulation,
  skip: (x: number, z: number) => boolean = () => false,
): number {
  const { Position } = simulation;
  const cell = 2 * simulation.settings.particleRadius;
  const columns = new Map<number, number>();
  for (const eid of simulation.particles()) {
    const x = Position.x[eid];
    const z = Position.z[eid];
    if (skip(x, z)) continue;
    const key = Math.floor(x / cell) * 100003 + Math.floor(z / cell);
    const top = columns.get(key);
    if (top === undefined || Position.y[eid] > top) columns.set(key, Position.y[eid]);
  }
  let sum = 0;
  for (const top of columns.values()) sum += top;
  return sum / columns.size;
}

/**
 * The particles between the planes y = `low` and y = `high` (m), each counted as a slab one spacing 2r thick
 * centred on it: the fraction of its slab between the planes. Water in layers of one spacing then counts the
 * same wherever its layers lie against the planes (counting centres would jump by half a layer).
 */
function slabCount(simulation: FluidSimulation, low: number, high: number): number {
  const radius = simulation.settings.particleRadius;
  let count = 0;
  for (const eid of simulation.particles()) {
    const y = simulation.Position.y[eid];
    count += Math.max(0, Math.min(y + radius, high) - Math.max(y - radius, low)) / (2 * radius);
  }
  return count;
}

/**
 * The particles per cubic metre of a settled pool between heights `low` and `high` (m), over its whole
 * floor area `area` (m^2): the packing that {@link levelByCount} turns particles into volume with.
 */
export function numberDensity(simulation: FluidSimulation, low: number, high: number, area: number): number {
  return slabCount(simulation, low, high) / ((high - low) * area);
}

/**
 * The water level of a pool of floor area `area` (m^2) by volume above the plane y = `plane` (m): the plane
 * plus the particles above it (each a slab one spacing thick, see `slabCount`) at `density` particles per
 * cubic metre, spread over the area. Unlike the mean top particle, it does not depend on how the surface
 * particles are arranged: a freshly spawned lattice puts every column's top particle at one height, and the
 * same water once stirred reads about 3 mm lower by its tops (at r = 1 cm) while its volume is the same.
 */
export function levelByCount(simulation: FluidSimulation, plane: number, density: number, area: number): number {
  return plane + slabCount(simulation, plane, Number.POSITIVE_INFINITY) / (density * area);
}

/**
 * A settled pool of water, `depth` deep, in a container [0, width] x [0, height] x [0, width], with static
 * Havok walls around it, of `material` (default: water's defaults). Returns the pool's level by volume,
 * N m / rho0 / A (m): where its surface would be at rest density.
 */
export function fillPool(
  scene: Scene,
  simulation: FluidSimulation,
  width: number,
  depth: number,
  height = 0.6,
  material: FluidMaterialOptions = {},
): { level: number } {
  addStaticPool(scene, [width, height, width]);
  const water = simulation.addMaterial(material);
  simulation.addCollider({ shape: 'box', min: [0, 0, 0], max: [width, height, width], container: true });
  simulation.spawnBlock({ min: [0, 0, 0], max: [width, depth, width], material: water });
  for (let step = 0; step < 60; step++) simulation.step();
  const store = simulation.components.FluidMaterial;
  const volume = (simulation.particleCount * store.particleMass[water]) / store.restDensity[water];
  return { level: volume / (width * width) };
}

/**
 * Fraction of a box (size in its local space) below the plane y = level, from a 24^3 grid of sample points
 * inside it in its world pose `world` (so a tilted box is measured right).
 */
export function submergedFraction(world: Matrix, size: readonly [number, number, number], level: number): number {
  const samples = 24;
  const local = new Vector3();
  const point = new Vector3();
  let below = 0;
  for (let i = 0; i < samples; i++) {
    for (let j = 0; j < samples; j++) {
      for (let k = 0; k < samples; k++) {
        local.set(
          ((i + 0.5) / samples - 0.5) * size[0],
          ((j + 0.5) / samples - 0.5) * size[1],
          ((k + 0.5) / samples - 0.5) * size[2],
        );
        Vector3.TransformCoordinatesToRef(local, world, point);
        if (point.y < level) below++;
      }
    }
  }
  return below / samples ** 3;
}
