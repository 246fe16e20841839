/**
 * The pool of the `pool` example without its page: a water tank with static Havok walls, floating crates,
 * a sinking rock, a small boat, a wave-making paddle at one end and a paddle the player moves, all coupled
 * with the water through the library's public API (`FluidPlugin.addRigidBody` for the dynamic bodies,
 * `FluidPlugin.addMeshCollider` for the two kinematic paddles). Nothing here touches the page (DOM,
 * input, GUI), so the same scene runs on a `NullEngine` in Node.
 *
 * Time: once a body is coupled, the plugin advances the water inside Havok's steps (one fluid step per
 * physics step of the fluid's `timeStep`), so the two never drift apart. While the water stands still
 * (paused, or the WebGPU backend still compiling its shaders) Havok is held too, so bodies never fall
 * through it.
 */
import '@babylonjs/core/Physics/v2/physicsEngineComponent.js';
import '@babylonjs/core/Physics/joinedPhysicsEngineComponent.js';
import { StandardMaterial } from '@babylonjs/core/Materials/standardMaterial.js';
import { Color3 } from '@babylonjs/core/Maths/math.color.js';
import { Quaternion, Vector3 } from '@babylonjs/core/Maths/math.vector.js';
import type { AbstractMesh } from '@babylonjs/core/Meshes/abstractMesh.js';
import { CreateBox } from '@babylonjs/core/Meshes/Builders/boxBuilder.js';
import { CreateCylinder } from '@babylonjs/core/Meshes/Builders/cylinderBuilder.js';
import { CreateIcoSphere } from '@babylonjs/core/Meshes/Builders/icoSphereBuilder.js';
import { VertexBuffer } from '@babylonjs/core/Meshes/buffer.js';
import { Mesh } from '@babylonjs/core/Meshes/mesh.js';
import { VertexData } from '@babylonjs/core/Meshes/mesh.vertexData.js';
import { PhysicsMotionType, PhysicsShapeType } from '@babylonjs/core/Physics/v2/IPhysicsEnginePlugin.js';
import { HavokPlugin } from '@babylonjs/core/Physics/v2/Plugins/havokPlugin.js';
import { PhysicsAggregate } from '@babylonjs/core/Physics/v2/physicsAggregate.js';
import type { Scene } from '@babylonjs/core/scene.js';
import type HavokPhysics from '@babylonjs/havok';
import type { FluidPlugin } from '../../src';

/** The Havok module (`await HavokPhysics()`). */
export type HavokModule = Awaited<ReturnType<typeof HavokPhysics>>;

/** The pool's inside (m): the fluid's container and the static Havok walls around it. */
export const POOL_MIN = [-0.8, 0, -0.45] as const;
export const POOL_MAX = [0.8, 0.55, 0.45] as const;
/** Depth of the water spawned in the pool (m). */
export const WATER_DEPTH = 0.3;
/** A crate (m): wider than tall, so it floats face up (a cube half as dense as water floats on an edge). */
export const CRATE_SIZE = [0.24, 0.15, 0.24] as const;
/** Densities (kg/m^3): water is 1000. */
export const CRATE_DENSITY = 500;
export const ROCK_DENSITY = 2500;
/** The boat's mass over the volume of its hull and keel: it floats about half submerged. */
export const BOAT_DENSITY = 500;
/** Crates in the pool at most: throwing another removes the oldest. */
export const MAXIMUM_CRATES = 8;
/** Resolution of the bodies' signed distance fields (cells along the longest side): modest, fast to bake. */
const FIELD_RESOLUTION = 24;
/** The wave maker: a board across the pool's -x end, moving along x about `restX` (m), period in s. */
const WAVE_MAKER = { restX: -0.72, thickness: 0.04, height: 0.45, amplitude: 0.045, period: 1.5, rampTime: 1.5 };
/** The player's paddle (m): a board, moved at most `speed` (m/s) and turned at most `turnSpeed` (rad/s). */
const PADDLE = { size: [0.04, 0.3, 0.3] as const, height: 0.32, speed: 0.7, turnSpeed: 4 };
/** Crates placed at the start (x, z in m), away from the rock, the boat and the paddle. */
const START_CRATES: readonly (readonly [number, number])[] = [
  [-0.42, -0.2],
  [-0.4, 0.2],
  [-0.06, 0.25],
];
const ROCK_START = [-0.12, 0.52, -0.14] as const;
const BOAT_START = [0.3, 0.08] as const;
const PADDLE_START = [0.6, -0.2] as const;
/** Shortest and longest flight of a thrown crate (s), and its clearance over the pool's walls (m). */
const THROW = { shortest: 0.45, longest: 1.5, clearance: 0.25 };
const GRAVITY = -9.81;

/** Creates Havok physics on `scene` (the plugin sets its step to the fluid's when the first body is coupled). */
export function enablePoolPhysics(scene: Scene, havok: HavokModule): HavokPlugin {
  const physics = new HavokPlugin(true, havok);
  scene.enablePhysics(new Vector3(0, GRAVITY, 0), physics);
  return physics;
}

/** A dynamic body coupled with the water. */
interface CoupledBody {
  readonly mesh: Mesh;
  readonly aggregate: PhysicsAggregate;
  /** The fluid collider of the body, once its field is baked. */
  collider: number | undefined;
  /** True once removed (a removal may come while the field is still baking). */
  removed: boolean;
}

/** A kinematic board (wave maker or paddle): a Havok animated body and a mesh collider of the fluid. */
interface Board {
  readonly mesh: Mesh;
  readonly aggregate: PhysicsAggregate;
  readonly target: Vector3;
  readonly rotation: Quaternion;
}

/** The figures of {@link Pool.measure}. Heights are metres above the pool's floor. */
export type PoolFigures = {
  /** Seconds of simulated time (physics steps taken, times the time step). */
  time: number;
  /** Dynamic bodies coupled with the water (crates, rock, boat). */
  bodies: number;
  /** Crates in the pool (placed and thrown) and how many of them float (center within a crate height of the surface). */
  crates: number;
  floating: number;
  /** Crates thrown so far. */
  thrown: number;
  /** The water's surface: the median over the pool's columns of the highest particle center, plus a radius. */
  waterLevel: number;
  /** Mean and lowest center height of the crates placed at the start (those still in the pool). */
  crateHeight: number;
  lowestCrateHeight: number;
  /** The rock's center height and its lowest point's height. */
  rockHeight: number;
  rockClearance: number;
  /** The boat's center height and tilt (rad, angle of its up axis from the vertical), and the largest tilt so far. */
  boatHeight: number;
  boatTilt: number;
  largestBoatTilt: number;
};

/** Options of {@link Pool.create}. */
export interface PoolOptions {
  /** Color of the water (absorption tint), RGB in [0, 1]. */
  color?: [number, number, number];
}

/** The pool scene. Needs a scene with physics from {@link enablePoolPhysics}. */
export class Pool {
  /** The water's material entity. */
  readonly water: number;
  /** The player's wish: paddle direction in the x-z plane (components in [-1, 1]), set by the page's input. */
  readonly paddleInput = { x: 0, z: 0 };
  /** The wave maker runs while true (it eases in and out). */
  waveMakerEnabled = true;
  /** Seconds of simulated time (physics steps taken). */
  time = 0;
  /** Crates thrown so far. */
  thrown = 0;

  private readonly crates: CoupledBody[] = [];
  private readonly placedCrates = new Set<CoupledBody>();
  private rock!: CoupledBody;
  private boat!: CoupledBody;
  private waveMaker!: Board;
  private paddle!: Board;
  private crateTemplate!: Mesh;
  private crateMaterial!: StandardMaterial;
  private waveAmplitude = 0;
  private paddleYaw = 0;
  private largestBoatTilt = 0;

  private constructor(
    private readonly scene: Scene,
    private readonly fluid: FluidPlugin,
    options: PoolOptions,
  ) {
    this.water = fluid.simulation.addMaterial({ color: options.color ?? [0.25, 0.55, 0.95], vorticity: 0.02 });
  }

  /** Builds the pool, fills it and couples its bodies (bakes their fields: awaits). */
  static async create(scene: Scene, fluid: FluidPlugin, options: PoolOptions = {}): Promise<Pool> {
    const pool = new Pool(scene, fluid, options);
    await pool.build();
    return pool;
  }

  private async build(): Promise<void> {
    const { scene, fluid } = this;
    const simulation = fluid.simulation;
    if (!scene.getPhysicsEngine()) throw new Error('Pool: enable physics first (enablePoolPhysics)');
    // The plugin steps the physics with the water once bodies are coupled (and holds it while the water is
    // paused or compiling); the boards move before each physics step.
    scene.onBeforePhysicsObservable.add(() => this.beforePhysicsStep());

    this.addStaticWalls();
    simulation.addCollider({ shape: 'box', min: POOL_MIN, max: POOL_MAX, container: true });

    // The kinematic boards first: the water is spawned around them.
    const wood = new StandardMaterial('paddleWood', scene);
    wood.diffuseColor = new Color3(0.85, 0.55, 0.25);
    wood.specularColor = new Color3(0.1, 0.1, 0.1);
    const makerDepth = POOL_MAX[2] - POOL_MIN[2] - 0.02;
    this.waveMaker = this.createBoard(
      'waveMaker',
      [WAVE_MAKER.thickness, WAVE_MAKER.height, makerDepth],
      new Vector3(WAVE_MAKER.restX, WAVE_MAKER.height / 2, 0),
      wood,
    );
    this.paddle = this.createBoard(
      'paddle',
      PADDLE.size,
      new Vector3(PADDLE_START[0], PADDLE.height, PADDLE_START[1]),
      wood,
    );
    const radius = simulation.settings.particleRadius;
    const waterStart = WAVE_MAKER.restX + WAVE_MAKER.thickness / 2 + WAVE_MAKER.amplitude + radius;
    fluid.spawn({
      shape: 'box',
      min: [waterStart, POOL_MIN[1], POOL_MIN[2]],
      max: [POOL_MAX[0], WATER_DEPTH, POOL_MAX[2]],
      material: this.water,
    });
    this.removeParticlesInside(this.paddle.mesh, PADDLE.size, radius);
    await fluid.addMeshCollider(this.waveMaker.mesh, { resolution: FIELD_RESOLUTION });
    await fluid.addMeshCollider(this.paddle.mesh, { resolution: FIELD_RESOLUTION });

    // The crates: clones of one hidden template share its geometry, so their field is baked once.
    this.crateMaterial = new StandardMaterial('crateWood', scene);
    this.crateMaterial.diffuseColor = new Color3(0.62, 0.44, 0.25);
    this.crateMaterial.specularColor = new Color3(0.08, 0.08, 0.08);
    this.crateTemplate = CreateBox(
      'crateTemplate',
      { width: CRATE_SIZE[0], height: CRATE_SIZE[1], depth: CRATE_SIZE[2] },
      scene,
    );
    this.crateTemplate.setEnabled(false);
    // Released just above the surface: they drop in and settle at their floating depth.
    const dropHeight = WATER_DEPTH + CRATE_SIZE[1] / 2 + 0.02;
    for (const [x, z] of START_CRATES) {
      const crate = this.createCrate(new Vector3(x, dropHeight, z), Quaternion.Identity());
      this.placedCrates.add(crate);
      await this.couple(crate);
    }
    this.rock = this.createRock();
    await this.couple(this.rock);
    this.boat = this.createBoat();
    await this.couple(this.boat);
  }

  /** Static Havok boxes: a floor slab under the whole scene and four walls around the pool. */
  private addStaticWalls(): void {
    const thickness = 0.1;
    const [x0, y0, z0] = POOL_MIN;
    const [x1, y1, z1] = POOL_MAX;
    const width = x1 - x0;
    const depth = z1 - z0;
    const walls: [number, number, number, number, number, number][] = [
      [0, y0 - thickness / 2, 0, 6, thickness, 6],
      [x0 - thickness / 2, y1 / 2, 0.5 * (z0 + z1), thickness, y1, depth + 2 * thickness],
      [x1 + thickness / 2, y1 / 2, 0.5 * (z0 + z1), thickness, y1, depth + 2 * thickness],
      [0.5 * (x0 + x1), y1 / 2, z0 - thickness / 2, width, y1, thickness],
      [0.5 * (x0 + x1), y1 / 2, z1 + thickness / 2, width, y1, thickness],
    ];
    for (const [x, y, z, sizeX, sizeY, sizeZ] of walls) {
      const wall = CreateBox('poolWall', { width: sizeX, height: sizeY, depth: sizeZ }, this.scene);
      wall.position.set(x, y, z);
      wall.isVisible = false;
      wall.isPickable = false;
      new PhysicsAggregate(wall, PhysicsShapeType.BOX, { mass: 0, friction: 0.5 }, this.scene);
    }
  }

  /** A board moved by Havok towards a target each step (an animated body: it pushes crates, nothing pushes it). */
  private createBoard(
    name: string,
    size: readonly [number, number, number],
    position: Vector3,
    material: StandardMaterial,
  ): Board {
    const mesh = CreateBox(name, { width: size[0], height: size[1], depth: size[2] }, this.scene);
    mesh.position.copyFrom(position);
    mesh.rotationQuaternion = Quaternion.Identity();
    mesh.material = material;
    const aggregate = new PhysicsAggregate(mesh, PhysicsShapeType.BOX, { mass: 1, friction: 0.3 }, this.scene);
    aggregate.body.setMotionType(PhysicsMotionType.ANIMATED);
    return { mesh, aggregate, target: position.clone(), rotation: Quaternion.Identity() };
  }

  /** Removes the spawned particles inside a box mesh (size in its local space), with a particle's margin. */
  private removeParticlesInside(mesh: Mesh, size: readonly [number, number, number], margin: number): void {
    const simulation = this.fluid.simulation;
    const { Position } = simulation;
    const center = mesh.position;
    const doomed: number[] = [];
    for (const eid of simulation.particles()) {
      if (
        Math.abs(Position.x[eid] - center.x) < size[0] / 2 + margin &&
        Math.abs(Position.y[eid] - center.y) < size[1] / 2 + margin &&
        Math.abs(Position.z[eid] - center.z) < size[2] / 2 + margin
      ) {
        doomed.push(eid);
      }
    }
    for (const eid of doomed) simulation.removeParticle(eid);
  }

  private createCrate(position: Vector3, rotation: Quaternion): CoupledBody {
    const mesh = this.crateTemplate.clone(`crate${this.crates.length + this.thrown}`);
    mesh.setEnabled(true);
    mesh.material = this.crateMaterial;
    mesh.position.copyFrom(position);
    mesh.rotationQuaternion = rotation;
    const mass = CRATE_DENSITY * CRATE_SIZE[0] * CRATE_SIZE[1] * CRATE_SIZE[2];
    const aggregate = new PhysicsAggregate(
      mesh,
      PhysicsShapeType.BOX,
      { mass, friction: 0.4, restitution: 0.1 },
      this.scene,
    );
    const crate: CoupledBody = { mesh, aggregate, collider: undefined, removed: false };
    this.crates.push(crate);
    return crate;
  }

  /** An irregular rock: an icosphere pushed in and out by a smooth function of the direction (stays closed). */
  private createRock(): CoupledBody {
    const mesh = CreateIcoSphere('rock', { radius: 0.1, subdivisions: 2, flat: false }, this.scene);
    const positions = mesh.getVerticesData(VertexBuffer.PositionKind) as number[] | Float32Array;
    for (let k = 0; k < positions.length; k += 3) {
      const x = positions[k];
      const y = positions[k + 1];
      const z = positions[k + 2];
      const length = Math.hypot(x, y, z);
      const bump =
        1 +
        0.12 * Math.sin(9 * x + 2) * Math.sin(11 * z + 1) +
        0.08 * Math.sin(13 * y + 4) -
        0.12 * (y < 0 ? -y / length : 0);
      positions[k] = x * bump;
      positions[k + 1] = y * bump;
      positions[k + 2] = z * bump;
    }
    const normals: number[] = [];
    const indices = mesh.getIndices() as ArrayLike<number>;
    VertexData.ComputeNormals(positions, indices, normals);
    mesh.updateVerticesData(VertexBuffer.PositionKind, positions);
    mesh.updateVerticesData(VertexBuffer.NormalKind, normals);
    mesh.refreshBoundingInfo();
    const material = new StandardMaterial('rockMaterial', this.scene);
    material.diffuseColor = new Color3(0.45, 0.43, 0.41);
    material.specularColor = new Color3(0.12, 0.12, 0.12);
    mesh.material = material;
    mesh.position.set(ROCK_START[0], ROCK_START[1], ROCK_START[2]);
    mesh.rotationQuaternion = Quaternion.Identity();
    const mass = ROCK_DENSITY * enclosedVolume(mesh);
    const aggregate = new PhysicsAggregate(
      mesh,
      PhysicsShapeType.CONVEX_HULL,
      { mass, friction: 0.7, restitution: 0 },
      this.scene,
    );
    return { mesh, aggregate, collider: undefined, removed: false };
  }

  /**
   * A small boat lying across the pool (so the waves roll it): a flat hull with a fin keel below, one
   * closed mesh, half as heavy as the water its hull and keel would displace, with its center of mass
   * lowered (ballast in the keel) so it rights itself. A mast and a sail ride along (not part of the body).
   */
  private createBoat(): CoupledBody {
    const scene = this.scene;
    const hull = CreateBox('hull', { width: 0.16, height: 0.08, depth: 0.34 }, scene);
    const keel = CreateBox('keel', { width: 0.03, height: 0.06, depth: 0.22 }, scene);
    keel.position.y = -0.07;
    const mesh = Mesh.MergeMeshes([hull, keel], true, true) as Mesh;
    mesh.name = 'boat';
    const paint = new StandardMaterial('boatPaint', scene);
    paint.diffuseColor = new Color3(0.85, 0.22, 0.18);
    paint.specularColor = new Color3(0.3, 0.3, 0.3);
    mesh.material = paint;
    mesh.position.set(BOAT_START[0], WATER_DEPTH + 0.04, BOAT_START[1]);
    mesh.rotationQuaternion = Quaternion.Identity();
    const mass = BOAT_DENSITY * enclosedVolume(mesh);
    const aggregate = new PhysicsAggregate(
      mesh,
      PhysicsShapeType.CONVEX_HULL,
      { mass, friction: 0.4, restitution: 0.1 },
      scene,
    );
    aggregate.body.setMassProperties({ mass, centerOfMass: new Vector3(0, -0.045, 0) });
    const mast = CreateCylinder('mast', { diameter: 0.012, height: 0.3 }, scene);
    mast.parent = mesh;
    mast.position.y = 0.19;
    const sail = CreateBox('sail', { width: 0.004, height: 0.2, depth: 0.14 }, scene);
    sail.parent = mesh;
    sail.position.set(0, 0.2, 0.075);
    const canvas = new StandardMaterial('sailCanvas', scene);
    canvas.diffuseColor = new Color3(0.95, 0.93, 0.86);
    sail.material = canvas;
    mast.material = canvas;
    return { mesh, aggregate, collider: undefined, removed: false };
  }

  /** Couples a body with the water (bakes its field unless cached). */
  private async couple(body: CoupledBody): Promise<void> {
    const collider = await this.fluid.addRigidBody(body.aggregate, { resolution: FIELD_RESOLUTION });
    if (body.removed) this.fluid.removeCollider(collider);
    else body.collider = collider;
  }

  /**
   * Throws a new crate from `origin` so that it lands at `target` (clamped inside the pool, at the water's
   * surface) on the shortest flight that clears the pool's walls; beyond {@link MAXIMUM_CRATES} the oldest
   * crate is removed.
   */
  throwCrate(origin: Vector3, target: Vector3): Promise<void> {
    const margin = 0.2;
    const landing = new Vector3(
      Math.min(POOL_MAX[0] - margin, Math.max(WAVE_MAKER.restX + margin, target.x)),
      WATER_DEPTH,
      Math.min(POOL_MAX[2] - margin, Math.max(POOL_MIN[2] + margin, target.z)),
    );
    const spin = this.thrown * 1.7;
    const crate = this.createCrate(origin, Quaternion.RotationYawPitchRoll(spin, 0.3 * Math.sin(spin), 0));
    this.thrown++;
    crate.aggregate.body.setLinearVelocity(throwVelocity(origin, landing));
    crate.aggregate.body.setAngularVelocity(new Vector3(1.5 * Math.cos(spin), 0.5, 1.5 * Math.sin(spin)));
    while (this.crates.length > MAXIMUM_CRATES) this.removeCrate(this.crates[0]);
    return this.couple(crate);
  }

  private removeCrate(crate: CoupledBody): void {
    crate.removed = true;
    if (crate.collider !== undefined) this.fluid.removeCollider(crate.collider);
    crate.aggregate.dispose();
    crate.mesh.dispose();
    this.crates.splice(this.crates.indexOf(crate), 1);
    this.placedCrates.delete(crate);
  }

  /** Before each Havok step: the boards' targets for the end of the step. */
  private beforePhysicsStep(): void {
    const timeStep = this.fluid.simulation.settings.timeStep;
    this.time += timeStep;
    // The wave maker eases its amplitude in and out over `rampTime` when switched.
    const goal = this.waveMakerEnabled ? WAVE_MAKER.amplitude : 0;
    const change = (WAVE_MAKER.amplitude * timeStep) / WAVE_MAKER.rampTime;
    this.waveAmplitude += Math.max(-change, Math.min(change, goal - this.waveAmplitude));
    const phase = (2 * Math.PI * this.time) / WAVE_MAKER.period;
    this.waveMaker.target.x = WAVE_MAKER.restX + this.waveAmplitude * Math.sin(phase);
    this.moveBoard(this.waveMaker);

    // The paddle: towards the player's direction at PADDLE.speed, its broad face turned to the motion.
    const input = this.paddleInput;
    const length = Math.hypot(input.x, input.z);
    if (length > 1e-6) {
      const scale = (PADDLE.speed * timeStep) / Math.max(1, length);
      const target = this.paddle.target;
      const reach = 0.5 * Math.hypot(PADDLE.size[0], PADDLE.size[2]) + 0.01;
      target.x = Math.min(POOL_MAX[0] - reach, Math.max(WAVE_MAKER.restX + 0.15, target.x + input.x * scale));
      target.z = Math.min(POOL_MAX[2] - reach, Math.max(POOL_MIN[2] + reach, target.z + input.z * scale));
      // The board's local x (its thin side) along the motion: yaw = atan2(-dz, dx); a board is the same turned by pi.
      const wanted = Math.atan2(-input.z, input.x);
      let turn = wanted - this.paddleYaw;
      turn -= Math.PI * Math.round(turn / Math.PI);
      const most = PADDLE.turnSpeed * timeStep;
      this.paddleYaw += Math.max(-most, Math.min(most, turn));
      Quaternion.RotationYawPitchRollToRef(this.paddleYaw, 0, 0, this.paddle.rotation);
    }
    this.moveBoard(this.paddle);
  }

  private moveBoard(board: Board): void {
    board.aggregate.body.setTargetTransform(board.target, board.rotation);
  }

  /** The water's surface height (see {@link PoolFigures.waterLevel}). */
  waterLevel(): number {
    const simulation = this.fluid.simulation;
    const { Position } = simulation;
    const radius = simulation.settings.particleRadius;
    const cell = 2 * radius;
    const columns = new Map<number, number>();
    for (const eid of simulation.particles()) {
      const key =
        Math.floor((Position.x[eid] - POOL_MIN[0]) / cell) * 4096 + Math.floor((Position.z[eid] - POOL_MIN[2]) / cell);
      const top = columns.get(key);
      if (top === undefined || Position.y[eid] > top) columns.set(key, Position.y[eid]);
    }
    if (columns.size === 0) return 0;
    const tops = [...columns.values()].sort((a, b) => a - b);
    return tops[Math.floor(tops.length / 2)] + radius;
  }

  /** The figures the page shows and the tests check. */
  measure(): PoolFigures {
    const waterLevel = this.waterLevel();
    let floating = 0;
    for (const crate of this.crates) {
      const p = crate.mesh.position;
      const inPool = p.x > POOL_MIN[0] && p.x < POOL_MAX[0] && p.z > POOL_MIN[2] && p.z < POOL_MAX[2];
      if (inPool && Math.abs(p.y - waterLevel) < CRATE_SIZE[1]) floating++;
    }
    let sum = 0;
    let lowest = Number.POSITIVE_INFINITY;
    for (const crate of this.placedCrates) {
      sum += crate.mesh.position.y;
      lowest = Math.min(lowest, crate.mesh.position.y);
    }
    const placed = this.placedCrates.size;
    const boatTilt = tilt(this.boat.mesh);
    this.largestBoatTilt = Math.max(this.largestBoatTilt, boatTilt);
    return {
      time: this.time,
      bodies: this.crates.length + 2,
      crates: this.crates.length,
      floating,
      thrown: this.thrown,
      waterLevel,
      crateHeight: placed > 0 ? sum / placed : 0,
      lowestCrateHeight: placed > 0 ? lowest : 0,
      rockHeight: this.rock.mesh.position.y,
      rockClearance: lowestPoint(this.rock.mesh) - POOL_MIN[1],
      boatHeight: this.boat.mesh.position.y,
      boatTilt,
      largestBoatTilt: this.largestBoatTilt,
    };
  }
}

/**
 * Launch velocity (m/s) of a ballistic flight from `origin` to `landing`: the shortest flight time, in
 * steps of 0.05 s, at which the crate's center passes over the pool's walls with {@link THROW}'s clearance
 * where its path enters the pool from above (x(t) = x0 + v t + g t^2 / 2 reaches `landing` at time T).
 */
function throwVelocity(origin: Vector3, landing: Vector3): Vector3 {
  // Where the horizontal path enters the pool's footprint: the largest entry fraction over x and z.
  let entry = 0;
  for (const [start, end, low, high] of [
    [origin.x, landing.x, POOL_MIN[0], POOL_MAX[0]],
    [origin.z, landing.z, POOL_MIN[2], POOL_MAX[2]],
  ]) {
    if (start >= low && start <= high) continue;
    entry = Math.max(entry, ((start < low ? low : high) - start) / (end - start));
  }
  let time = THROW.shortest;
  for (; time < THROW.longest; time += 0.05) {
    const vertical = (landing.y - origin.y) / time - 0.5 * GRAVITY * time;
    const at = entry * time;
    if (origin.y + vertical * at + 0.5 * GRAVITY * at * at >= POOL_MAX[1] + THROW.clearance) break;
  }
  const velocity = landing.subtract(origin).scaleInPlace(1 / time);
  velocity.y -= 0.5 * GRAVITY * time;
  return velocity;
}

/** Angle (rad) between a mesh's local up axis and the world's. */
function tilt(mesh: AbstractMesh): number {
  const up = Vector3.TransformNormal(Vector3.UpReadOnly, mesh.computeWorldMatrix(true)).normalize();
  return Math.acos(Math.max(-1, Math.min(1, up.y)));
}

/** Height (m) of a mesh's lowest vertex in its current world pose. */
function lowestPoint(mesh: Mesh): number {
  const world = mesh.computeWorldMatrix(true).m;
  const positions = mesh.getVerticesData(VertexBuffer.PositionKind) as ArrayLike<number>;
  let lowest = Number.POSITIVE_INFINITY;
  for (let k = 0; k < positions.length; k += 3) {
    // Row-vector convention: y' = x m[1] + y m[5] + z m[9] + m[13].
    const y = positions[k] * world[1] + positions[k + 1] * world[5] + positions[k + 2] * world[9] + world[13];
    lowest = Math.min(lowest, y);
  }
  return lowest;
}

/** Volume (m^3) enclosed by a closed mesh's triangles in its local space (divergence theorem). */
function enclosedVolume(mesh: Mesh): number {
  const positions = mesh.getVerticesData(VertexBuffer.PositionKind) as ArrayLike<number>;
  const indices = mesh.getIndices() as ArrayLike<number>;
  let volume = 0;
  for (let k = 0; k < indices.length; k += 3) {
    const a = 3 * indices[k];
    const b = 3 * indices[k + 1];
    const c = 3 * indices[k + 2];
    // Signed volume of the tetrahedron (origin, a, b, c): a . (b x c) / 6.
    volume +=
      (positions[a] * (positions[b + 1] * positions[c + 2] - positions[b + 2] * positions[c + 1]) +
        positions[a + 1] * (positions[b + 2] * positions[c] - positions[b] * positions[c + 2]) +
        positions[a + 2] * (positions[b] * positions[c + 1] - positions[b + 1] * positions[c])) /
      6;
  }
  // Babylon's winding is clockwise for outward faces in its left-handed frame: the sum comes out negative.
  return Math.abs(volume);
}
