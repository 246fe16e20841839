/**
 * The headless simulation: owns the bitecs world, the component stores and the ordered system list, and
 * offers the calls game code and tests use to drive it without Babylon rendering.
 */
import { addComponent, addEntity, createWorld, entityExists, hasComponent, removeEntity, type World } from 'bitecs';
import {
  ColliderShape,
  createFluidComponents,
  type FluidBackend,
  type FluidComponents,
  type FluidSettings,
  type Vector3Store,
} from '../components';
import { commitColliderPose } from './collide/cpu';
import { createSimulationContext, type FluidStats, type SimulationContext } from './context';
import { FluidCapacityError, FluidError } from './errors';
import { MAX_SCALE, MIN_SCALE } from './gather';
import { type FluidMaterialOptions, registerMaterial, resolveMaterial, writeMaterial } from './material';
import { cpuSystems, type FluidSystem, runStep } from './pipeline';
import { SignedDistanceField } from './sdf/field';
import {
  checkInteger,
  checkNumber,
  checkQuaternion,
  checkVector3,
  type QuaternionTuple,
  type Vector3Tuple,
  withDefault,
} from './validate';

/** Options of {@link FluidSimulation}. Every option has a default giving stable water at 1/60 s. */
export interface FluidSimulationOptions {
  /** Particle radius r in metres; particles spawn on a lattice of spacing 2r. Range (0.0001, 100]. Default 0.025. */
  particleRadius?: number;
  /** Kernel radius h in metres. Range [3r, 8r]. Default 4r (about 30 neighbours per particle). */
  kernelRadius?: number;
  /** Maximum number of live particles. Integer in [1, 4194304]. Default 32768. */
  capacity?: number;
  /** Maximum number of materials. Integer in [1, 1024]. Default 16. */
  maxMaterials?: number;
  /** Maximum number of colliders. Integer in [1, 4096]. Default 64. */
  maxColliders?: number;
  /** Gravity in m/s^2, `[x, y, z]`, each component in [-1000, 1000]. Default `[0, -9.81, 0]`. */
  gravity?: Vector3Tuple;
  /** Step duration in seconds used by `step()` without argument. Range (0, 0.1]. Default 1/60. */
  timeStep?: number;
  /** Substeps per step. Integer in [1, 32]. Default 2. */
  substeps?: number;
  /** Density constraint iterations per substep. Integer in [1, 64]. Default 3. */
  iterations?: number;
  /**
   * Speed clamp in m/s applied after external forces each substep, so that no particle crosses more
   * than about one kernel radius per substep (neighbour search and collisions stay valid). The velocity
   * after a step can exceed it by what the solve adds: at most one particle radius of correction per
   * iteration, and the surface speed of a moving collider.
   * Range (0, 10000]. Default h / (timeStep / substeps), 12 m/s for the defaults.
   */
  maxSpeed?: number;
  /** Backend. Only `'cpu'` exists yet. Default `'cpu'`. */
  backend?: FluidBackend;
}

/** Fields every collider shares. */
export interface ColliderCommonOptions {
  /** True keeps the fluid inside the shape; false (default) keeps it outside. */
  container?: boolean;
  /** Coulomb friction coefficient. Range [0, 100]. Default 0. */
  friction?: number;
  /** Coefficient of restitution of the normal velocity. Range [0, 1]. Default 0. */
  restitution?: number;
  /**
   * True (default) adds the wall's density contribution to particles within the kernel radius
   * (Harada et al. 2007, wall weight function, eq. 12), so they neither stack against the wall nor stop
   * short of it. False leaves only the collision projection.
   */
  wallWeights?: boolean;
}

/** A box, axis-aligned in the collider's local space. */
export interface BoxColliderOptions extends ColliderCommonOptions {
  /** Shape tag. */
  shape: 'box';
  /** Minimum corner (m, local space). */
  min: Vector3Tuple;
  /** Maximum corner (m, local space); greater than `min` on every axis. */
  max: Vector3Tuple;
}

/** A sphere. */
export interface SphereColliderOptions extends ColliderCommonOptions {
  /** Shape tag. */
  shape: 'sphere';
  /** Centre (m, local space). */
  center: Vector3Tuple;
  /** Radius (m), > 0. */
  radius: number;
}

/** A capsule: all points within `radius` of the segment a..b. */
export interface CapsuleColliderOptions extends ColliderCommonOptions {
  /** Shape tag. */
  shape: 'capsule';
  /** First end of the segment (m, local space). */
  a: Vector3Tuple;
  /** Second end of the segment (m, local space). */
  b: Vector3Tuple;
  /** Radius (m), > 0. */
  radius: number;
}

/** A plane; the solid is the half-space opposite to the normal (the fluid stays on the normal's side). */
export interface PlaneColliderOptions extends ColliderCommonOptions {
  /** Shape tag. */
  shape: 'plane';
  /** A point on the plane (m, local space). */
  point: Vector3Tuple;
  /** Normal (local space, normalised here), pointing to the fluid side. */
  normal: Vector3Tuple;
}

/**
 * A triangle mesh, as a signed distance field baked by {@link bakeSignedDistanceField} in the mesh's own
 * space. The collider's pose (position, rotation, uniform scaling) places it in the world, so moving,
 * rotating and uniformly scaled meshes need no re-baking. As a solid (default) the fluid stays outside the
 * mesh: a glass or a bathtub is a solid whose walls should be at least one particle radius thick and two
 * field cells thick. With `container: true` the fluid stays inside a closed mesh.
 */
export interface MeshColliderOptions extends ColliderCommonOptions {
  /** Shape tag. */
  shape: 'mesh';
  /** The baked field; one field may serve any number of colliders. */
  field: SignedDistanceField;
}

/** Any collider. */
export type ColliderOptions =
  | BoxColliderOptions
  | SphereColliderOptions
  | CapsuleColliderOptions
  | PlaneColliderOptions
  | MeshColliderOptions;

/** A collider pose: where its local space sits in the world. */
export interface ColliderTransform {
  /** Translation (m). Default: unchanged. */
  position?: Vector3Tuple;
  /** Rotation quaternion `[x, y, z, w]` (normalised here). Default: unchanged. */
  rotation?: QuaternionTuple;
  /**
   * Uniform scaling of the local shape, a number or `[s, s, s]` with equal components (within 1e-4
   * relative). Range [1e-6, 1e6]. Default: unchanged (1 at creation). Non-uniform scaling would distort
   * distances: bake the scaled mesh instead.
   */
  scaling?: number | Vector3Tuple;
  /**
   * True moves the collider without sweeping: it does not push the fluid with a velocity. Default false:
   * the next step moves the collider from its last pose to this one and it pushes fluid on its way.
   */
  teleport?: boolean;
}

/** Options of {@link FluidSimulation.spawnBlock}. */
export interface SpawnBlockOptions {
  /** Minimum corner of the box to fill (m). */
  min: Vector3Tuple;
  /** Maximum corner (m). */
  max: Vector3Tuple;
  /** Material entity id returned by `addMaterial`. */
  material: number;
  /** Initial velocity (m/s). Default `[0, 0, 0]`. */
  velocity?: Vector3Tuple;
}

const DEFAULT_PARTICLE_RADIUS = 0.025;

/** Checks a uniform scaling given as a number or as `[s, s, s]`; returns the number. */
function checkScaling(value: unknown): number {
  if (typeof value === 'number') return checkNumber('scaling', value, MIN_SCALE, MAX_SCALE);
  const [x, y, z] = checkVector3('scaling', value, MAX_SCALE);
  const largest = Math.max(Math.abs(x), Math.abs(y), Math.abs(z));
  if (Math.abs(x - y) > 1e-4 * largest || Math.abs(x - z) > 1e-4 * largest) {
    throw new FluidError(
      `scaling is [${x}, ${y}, ${z}]; only uniform scaling (equal components) is allowed: bake the scaled mesh instead`,
    );
  }
  return checkNumber('scaling', x, MIN_SCALE, MAX_SCALE);
}

/**
 * A Position Based Fluids simulation (Macklin & Müller 2013) whose particles are bitecs entities.
 *
 * ```ts
 * const simulation = new FluidSimulation({ particleRadius: 0.025 });
 * const water = simulation.addMaterial({});
 * simulation.addCollider({ shape: 'box', min: [0, 0, 0], max: [1, 1, 1], container: true });
 * simulation.spawnBlock({ min: [0, 0, 0], max: [0.5, 0.5, 1], material: water });
 * simulation.step();
 * const { Position } = simulation;
 * ```
 */
export class FluidSimulation {
  /** The resolved settings. `gravity`, `timeStep`, `substeps` and `iterations` may be edited between steps. */
  readonly settings: FluidSettings;
  /** The bitecs world; `world.components` holds the stores. */
  readonly world: World<{ components: FluidComponents }>;
  /** All component stores, indexed by entity id. */
  readonly components: FluidComponents;
  private readonly context: SimulationContext;
  private readonly systems: readonly FluidSystem[];
  private readonly entityCapacity: number;

  /** Creates a simulation; throws {@link FluidError} naming any invalid option and its allowed range. */
  constructor(options: FluidSimulationOptions = {}) {
    if (typeof options !== 'object' || options === null) throw new FluidError('options must be an object');
    const particleRadius = checkNumber(
      'particleRadius',
      withDefault(options.particleRadius, DEFAULT_PARTICLE_RADIUS),
      0.0001,
      100,
    );
    const kernelRadius = checkNumber(
      'kernelRadius',
      withDefault(options.kernelRadius, 4 * particleRadius),
      3 * particleRadius,
      8 * particleRadius,
    );
    const capacity = checkInteger('capacity', withDefault(options.capacity, 32768), 1, 4194304);
    const maxMaterials = checkInteger('maxMaterials', withDefault(options.maxMaterials, 16), 1, 1024);
    const maxColliders = checkInteger('maxColliders', withDefault(options.maxColliders, 64), 1, 4096);
    const gravity = checkVector3('gravity', withDefault<Vector3Tuple>(options.gravity, [0, -9.81, 0]), 1000);
    const timeStep = checkNumber('timeStep', withDefault(options.timeStep, 1 / 60), 1e-6, 0.1);
    const substeps = checkInteger('substeps', withDefault(options.substeps, 2), 1, 32);
    const iterations = checkInteger('iterations', withDefault(options.iterations, 3), 1, 64);
    const maxSpeed = checkNumber(
      'maxSpeed',
      withDefault(options.maxSpeed, kernelRadius / (timeStep / substeps)),
      1e-6,
      10000,
    );
    const backend = withDefault<string>(options.backend, 'cpu');
    if (backend !== 'cpu') throw new FluidError(`backend is '${backend}'; allowed values are 'cpu'`);

    this.settings = {
      particleRadius,
      kernelRadius,
      capacity,
      maxMaterials,
      maxColliders,
      gravity,
      timeStep,
      substeps,
      iterations,
      maxSpeed,
      backend: 'cpu',
    };
    // Entity ids of bitecs start at 1 and are recycled, so every id is below this bound.
    this.entityCapacity = capacity + maxMaterials + maxColliders + 1;
    this.components = createFluidComponents(this.entityCapacity);
    this.world = createWorld({ components: this.components });
    this.context = createSimulationContext(this.settings, this.world, this.components, this.entityCapacity);
    this.systems = cpuSystems;
    for (const system of this.systems) this.context.stats.systemMilliseconds[system.name] = 0;
  }

  /** Particle positions in metres, `Position.x[eid]`; current after each step. */
  get Position(): Vector3Store {
    return this.components.Position;
  }

  /** Particle velocities in m/s, `Velocity.x[eid]`; current after each step. */
  get Velocity(): Vector3Store {
    return this.components.Velocity;
  }

  /** Figures of the last step (read-only view; updated in place by each step). */
  get stats(): Readonly<FluidStats> {
    return this.context.stats;
  }

  /** Number of live particles. */
  get particleCount(): number {
    return this.context.solver.count;
  }

  /**
   * The live particle entity ids in the solver's spatial order: a new array, or, when `into` is given and
   * long enough (at least `particleCount`), written into it and returned as a view of its first
   * `particleCount` entries, so a render loop can reuse one buffer every frame.
   */
  particles(into?: Uint32Array): Uint32Array {
    const { entity, count } = this.context.solver;
    if (into === undefined) return entity.slice(0, count);
    if (into.length < count) {
      throw new FluidError(`particles(into): into has length ${into.length}; it needs at least ${count}`);
    }
    into.set(entity.subarray(0, count));
    return into.subarray(0, count);
  }

  private newEntity(): number {
    const eid = addEntity(this.world);
    if (eid >= this.entityCapacity) {
      removeEntity(this.world, eid);
      throw new FluidCapacityError(`entity id ${eid} exceeds the entity capacity ${this.entityCapacity}`);
    }
    return eid;
  }

  /** Adds a fluid material entity and returns its id. Invalid options throw {@link FluidError}. */
  addMaterial(options: FluidMaterialOptions = {}): number {
    const table = this.context.materials;
    if (table.count >= this.settings.maxMaterials) {
      throw new FluidCapacityError(`maxMaterials (${this.settings.maxMaterials}) reached; cannot add a material`);
    }
    const resolved = resolveMaterial(options, this.context.lattice.kernelSum);
    const eid = this.newEntity();
    addComponent(this.world, eid, this.components.FluidMaterial);
    writeMaterial(this.components.FluidMaterial, eid, resolved);
    registerMaterial(table, eid);
    return eid;
  }

  /** True if `id` is a live material entity of this simulation. */
  isMaterial(id: number): boolean {
    return Number.isInteger(id) && id > 0 && id < this.entityCapacity && this.context.materials.slotOfEntity[id] >= 0;
  }

  /** True if `id` is a live particle entity of this simulation. */
  isParticle(id: number): boolean {
    return Number.isInteger(id) && id > 0 && id < this.entityCapacity && this.context.solver.placeOfEntity[id] >= 0;
  }

  /** True if `id` is a live collider entity of this simulation. */
  isCollider(id: number): boolean {
    return (
      Number.isInteger(id) &&
      id > 0 &&
      id < this.entityCapacity &&
      entityExists(this.world, id) &&
      hasComponent(this.world, id, this.components.Collider)
    );
  }

  /**
   * Fills the box [min, max] with particles on a cubic lattice of spacing 2r, centred in the box, and
   * returns their entity ids. Throws {@link FluidCapacityError} (spawning nothing) if the particles would
   * exceed the capacity, and {@link FluidError} for an invalid box or material.
   */
  spawnBlock(options: SpawnBlockOptions): Uint32Array {
    if (typeof options !== 'object' || options === null) throw new FluidError('spawnBlock options must be an object');
    const min = checkVector3('min', options.min);
    const max = checkVector3('max', options.max);
    const velocity = checkVector3('velocity', withDefault<Vector3Tuple>(options.velocity, [0, 0, 0]), 1e4);
    if (!this.isMaterial(options.material)) {
      throw new FluidError(
        `material is ${String(options.material)}, which is not a material entity of this simulation`,
      );
    }
    const spacing = 2 * this.settings.particleRadius;
    const counts = [0, 0, 0];
    const offsets = [0, 0, 0];
    for (let axis = 0; axis < 3; axis++) {
      const extent = max[axis] - min[axis];
      const count = Math.floor(extent / spacing + 1e-6);
      if (count < 1) {
        throw new FluidError(
          `max[${axis}] - min[${axis}] is ${extent}; it must be at least the lattice spacing ${spacing} (2 x particleRadius)`,
        );
      }
      counts[axis] = count;
      offsets[axis] = min[axis] + 0.5 * (extent - count * spacing) + 0.5 * spacing;
    }
    const total = counts[0] * counts[1] * counts[2];
    const s = this.context.solver;
    if (s.count + total > this.settings.capacity) {
      throw new FluidCapacityError(
        `spawning ${total} particles would make ${s.count + total}, over the capacity of ${this.settings.capacity}; nothing was spawned`,
      );
    }
    const ids = new Uint32Array(total);
    const { Position, Velocity, Particle, Density } = this.components;
    let k = 0;
    for (let iz = 0; iz < counts[2]; iz++) {
      for (let iy = 0; iy < counts[1]; iy++) {
        for (let ix = 0; ix < counts[0]; ix++) {
          const eid = this.newEntity();
          addComponent(this.world, eid, Position);
          addComponent(this.world, eid, Velocity);
          addComponent(this.world, eid, Particle);
          addComponent(this.world, eid, Density);
          Position.x[eid] = offsets[0] + ix * spacing;
          Position.y[eid] = offsets[1] + iy * spacing;
          Position.z[eid] = offsets[2] + iz * spacing;
          Velocity.x[eid] = velocity[0];
          Velocity.y[eid] = velocity[1];
          Velocity.z[eid] = velocity[2];
          Particle.material[eid] = options.material;
          s.entity[s.count] = eid;
          s.placeOfEntity[eid] = s.count;
          s.count++;
          ids[k++] = eid;
        }
      }
    }
    return ids;
  }

  /** Removes a particle entity. Throws {@link FluidError} if `id` is not a live particle. */
  removeParticle(id: number): void {
    if (!this.isParticle(id)) throw new FluidError(`removeParticle: ${String(id)} is not a live particle entity`);
    const s = this.context.solver;
    const place = s.placeOfEntity[id];
    const last = s.count - 1;
    const moved = s.entity[last];
    s.entity[place] = moved;
    s.placeOfEntity[moved] = place;
    s.placeOfEntity[id] = -1;
    s.count--;
    removeEntity(this.world, id);
  }

  /**
   * Adds an analytic collider entity and returns its id. Its shape is given in local space; its pose
   * starts at the identity and is changed with {@link FluidSimulation.setColliderTransform}.
   */
  addCollider(options: ColliderOptions): number {
    if (typeof options !== 'object' || options === null) throw new FluidError('addCollider options must be an object');
    const table = this.context.colliders;
    if (table.count >= this.settings.maxColliders) {
      throw new FluidCapacityError(`maxColliders (${this.settings.maxColliders}) reached; cannot add a collider`);
    }
    const friction = checkNumber('friction', withDefault(options.friction, 0), 0, 100);
    const restitution = checkNumber('restitution', withDefault(options.restitution, 0), 0, 1);
    const container = withDefault(options.container, false);
    if (typeof container !== 'boolean') throw new FluidError(`container is ${String(container)}; it must be a boolean`);
    const wallWeights = withDefault(options.wallWeights, true);
    if (typeof wallWeights !== 'boolean') {
      throw new FluidError(`wallWeights is ${String(wallWeights)}; it must be a boolean`);
    }
    let shape: number;
    let field: SignedDistanceField | undefined;
    let a: [number, number, number] = [0, 0, 0];
    let b: [number, number, number] = [0, 0, 0];
    let radius = 0;
    switch (options.shape) {
      case 'box': {
        shape = ColliderShape.box;
        a = checkVector3('min', options.min);
        b = checkVector3('max', options.max);
        for (let axis = 0; axis < 3; axis++) {
          if (!(b[axis] > a[axis]))
            throw new FluidError(`max[${axis}] (${b[axis]}) must be greater than min[${axis}] (${a[axis]})`);
        }
        break;
      }
      case 'sphere':
        shape = ColliderShape.sphere;
        a = checkVector3('center', options.center);
        radius = checkNumber('radius', options.radius, 1e-6, 1e7);
        break;
      case 'capsule':
        shape = ColliderShape.capsule;
        a = checkVector3('a', options.a);
        b = checkVector3('b', options.b);
        radius = checkNumber('radius', options.radius, 1e-6, 1e7);
        break;
      case 'plane': {
        shape = ColliderShape.plane;
        a = checkVector3('point', options.point);
        const normal = checkVector3('normal', options.normal);
        const length = Math.hypot(normal[0], normal[1], normal[2]);
        if (length < 1e-9) throw new FluidError('normal has zero length; a plane needs a non-zero normal');
        b = [normal[0] / length, normal[1] / length, normal[2] / length];
        break;
      }
      case 'mesh':
        shape = ColliderShape.mesh;
        if (!(options.field instanceof SignedDistanceField)) {
          throw new FluidError(
            `field is ${String(options.field)}; a mesh collider needs a SignedDistanceField (bakeSignedDistanceField)`,
          );
        }
        field = options.field;
        break;
      default:
        throw new FluidError(
          `shape is '${String((options as { shape?: unknown }).shape)}'; allowed values are 'box', 'sphere', 'capsule', 'plane', 'mesh'`,
        );
    }
    const eid = this.newEntity();
    const c = this.components.Collider;
    addComponent(this.world, eid, c);
    c.shape[eid] = shape;
    c.container[eid] = container ? 1 : 0;
    c.friction[eid] = friction;
    c.restitution[eid] = restitution;
    c.ax[eid] = a[0];
    c.ay[eid] = a[1];
    c.az[eid] = a[2];
    c.bx[eid] = b[0];
    c.by[eid] = b[1];
    c.bz[eid] = b[2];
    c.radius[eid] = radius;
    c.field[eid] = field === undefined ? -1 : this.registerField(field);
    c.wallWeights[eid] = wallWeights ? 1 : 0;
    c.scale[eid] = 1;
    c.positionX[eid] = 0;
    c.positionY[eid] = 0;
    c.positionZ[eid] = 0;
    c.rotationX[eid] = 0;
    c.rotationY[eid] = 0;
    c.rotationZ[eid] = 0;
    c.rotationW[eid] = 1;
    commitColliderPose(this.context, eid);
    table.entity[table.count] = eid;
    table.count++;
    return eid;
  }

  /** Index of `field` in the field list, adding it to the list (or to a free place) if it is not there. */
  private registerField(field: SignedDistanceField): number {
    const fields = this.context.colliders.fields;
    const index = fields.indexOf(field);
    if (index >= 0) return index;
    const free = fields.indexOf(undefined);
    if (free >= 0) {
      fields[free] = field;
      return free;
    }
    fields.push(field);
    return fields.length - 1;
  }

  /**
   * Signed distance fields of the mesh colliders; `components.Collider.field[eid]` indexes this list (a
   * place is `undefined` once no collider uses its field).
   */
  get fields(): readonly (SignedDistanceField | undefined)[] {
    return this.context.colliders.fields;
  }

  /**
   * Sets a collider's pose for the end of the next step. The step moves it there from its last pose, so
   * it pushes the fluid with its own velocity, unless `teleport` is true.
   */
  setColliderTransform(id: number, transform: ColliderTransform): void {
    if (!this.isCollider(id)) throw new FluidError(`setColliderTransform: ${String(id)} is not a collider entity`);
    const c = this.components.Collider;
    const position = transform.position === undefined ? undefined : checkVector3('position', transform.position);
    const rotation = transform.rotation === undefined ? undefined : checkQuaternion('rotation', transform.rotation);
    const scaling = transform.scaling === undefined ? undefined : checkScaling(transform.scaling);
    if (scaling !== undefined) c.scale[id] = scaling;
    if (position) {
      c.positionX[id] = position[0];
      c.positionY[id] = position[1];
      c.positionZ[id] = position[2];
    }
    if (rotation) {
      c.rotationX[id] = rotation[0];
      c.rotationY[id] = rotation[1];
      c.rotationZ[id] = rotation[2];
      c.rotationW[id] = rotation[3];
    }
    if (transform.teleport === true) commitColliderPose(this.context, id);
  }

  /** Removes a collider entity. */
  removeCollider(id: number): void {
    if (!this.isCollider(id)) throw new FluidError(`removeCollider: ${String(id)} is not a collider entity`);
    const table = this.context.colliders;
    for (let slot = 0; slot < table.count; slot++) {
      if (table.entity[slot] === id) {
        table.entity[slot] = table.entity[table.count - 1];
        table.count--;
        break;
      }
    }
    const c = this.components.Collider;
    const fieldIndex = c.field[id];
    c.field[id] = -1;
    if (fieldIndex >= 0) {
      let used = false;
      for (let slot = 0; slot < table.count; slot++) if (c.field[table.entity[slot]] === fieldIndex) used = true;
      if (!used) table.fields[fieldIndex] = undefined;
    }
    removeEntity(this.world, id);
  }

  /**
   * Advances the simulation by `timeStep` seconds (default `settings.timeStep`), in `settings.substeps`
   * substeps. Throws {@link FluidError} on invalid input or state (a NaN in a component, an out-of-range
   * material value); the components then keep their previous values.
   */
  step(timeStep: number = this.settings.timeStep): void {
    checkNumber('timeStep', timeStep, 1e-6, 0.1);
    const gravity = this.settings.gravity;
    for (let axis = 0; axis < 3; axis++) {
      if (!(Math.abs(gravity[axis]) <= 1000)) checkNumber(`settings.gravity[${axis}]`, gravity[axis], -1000, 1000);
    }
    checkInteger('settings.substeps', this.settings.substeps, 1, 32);
    checkInteger('settings.iterations', this.settings.iterations, 1, 64);
    checkNumber('settings.maxSpeed', this.settings.maxSpeed, 1e-6, 10000);
    runStep(this.context, this.systems, timeStep);
  }
}
