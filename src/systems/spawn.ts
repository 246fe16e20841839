/**
 * Spawning particles on the lattice of spacing 2r: a box (`spawnBlock`), a sphere or a closed mesh
 * (`spawnShape`), all or nothing within the capacity.
 */
import {
  type Color3Input,
  checkColor3,
  checkKnownKeys,
  checkNumber,
  checkQuaternion,
  checkVector3,
  type QuaternionInput,
  type Vector3Input,
  withDefault,
} from '../core/checks';
import { FluidCapacityError, FluidError } from '../core/errors';
import { TEMPERATURE_RULE } from '../core/schema';
import { colliderDistanceAt, writePose } from './collide/cpu';
import { POSE_SIZE, type SimulationContext } from './context';
import { createParticle } from './entities';
import { checkScaling } from './gather';
import { SPAWN_BLOCK_OPTION_NAMES, SPAWN_OPTION_NAMES, type SpawnBlockOptions, type SpawnOptions } from './options';
import { SignedDistanceField } from './sdf/field';

/** Most lattice points `spawn` tests against a sphere or a mesh (a larger volume is refused, not searched). */
const MAX_SPAWN_SEARCH = 1e8;

/** True if `id` is a material entity of the simulation of `ctx`. */
export function isMaterialEntity(ctx: SimulationContext, id: number): boolean {
  return Number.isInteger(id) && id > 0 && id < ctx.entityCapacity && ctx.materials.slotOfEntity[id] >= 0;
}

/**
 * Fills the box [min, max] with particles on a cubic lattice of spacing 2r, centered in the box, and
 * returns their entity ids. Throws {@link FluidCapacityError} (spawning nothing) if the particles would
 * exceed the capacity, and {@link FluidError} for an invalid box or material.
 */
export function spawnBlock(ctx: SimulationContext, options: SpawnBlockOptions): Uint32Array {
  if (typeof options !== 'object' || options === null) throw new FluidError('spawnBlock options must be an object');
  checkKnownKeys('spawnBlock', options, SPAWN_BLOCK_OPTION_NAMES);
  return fillBlock(ctx, options);
}

/** Fills the box of checked-to-be-an-object `options` (see {@link spawnBlock}). */
function fillBlock(ctx: SimulationContext, options: SpawnBlockOptions): Uint32Array {
  const min = checkVector3('min', options.min);
  const max = checkVector3('max', options.max);
  const velocity = checkVector3('velocity', withDefault<Vector3Input>(options.velocity, [0, 0, 0]), 1e4);
  if (!isMaterialEntity(ctx, options.material)) {
    throw new FluidError(`material is ${String(options.material)}, which is not a material entity of this simulation`);
  }
  const material = ctx.components.FluidMaterial;
  const temperature = checkNumber(
    'temperature',
    withDefault(options.temperature, material.initialTemperature[options.material]),
    TEMPERATURE_RULE.min,
    TEMPERATURE_RULE.max,
  );
  const color = checkColor3(
    'color',
    withDefault<Color3Input>(options.color, [
      material.colorRed[options.material],
      material.colorGreen[options.material],
      material.colorBlue[options.material],
    ]),
  );
  const spacing = 2 * ctx.settings.particleRadius;
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
  const s = ctx.solver;
  if (s.count + total > ctx.settings.capacity) {
    throw new FluidCapacityError(
      `spawning ${total} particles would make ${s.count + total}, over the capacity of ${ctx.settings.capacity}; nothing was spawned`,
    );
  }
  const points = new Float64Array(3 * total);
  let k = 0;
  for (let iz = 0; iz < counts[2]; iz++) {
    for (let iy = 0; iy < counts[1]; iy++) {
      for (let ix = 0; ix < counts[0]; ix++) {
        points[k++] = offsets[0] + ix * spacing;
        points[k++] = offsets[1] + iy * spacing;
        points[k++] = offsets[2] + iz * spacing;
      }
    }
  }
  compressHydrostatically(ctx, points);
  const ids = new Uint32Array(total);
  for (k = 0; k < total; k++) {
    const [x, y, z] = [points[3 * k], points[3 * k + 1], points[3 * k + 2]];
    ids[k] = createParticle(ctx, x, y, z, velocity[0], velocity[1], velocity[2], options.material, 0);
  }
  const { Temperature, Color } = ctx.components;
  for (const id of ids) {
    Temperature[id] = temperature;
    Color.red[id] = color[0];
    Color.green[id] = color[1];
    Color.blue[id] = color[2];
  }
  return ids;
}

/**
 * Fills a box, a sphere or the inside of a baked mesh with particles on the rest lattice (spacing 2r)
 * and returns their ids (a burst or volume emitter). A mesh keeps the lattice points whose distance
 * inside the mesh is at least one particle radius. Throws {@link FluidCapacityError} (spawning nothing)
 * if the particles would exceed the capacity, and {@link FluidError} if the volume's bounding box spans
 * more than 1e8 lattice points (it is refused rather than searched for seconds).
 */
export function spawnShape(ctx: SimulationContext, options: SpawnOptions): Uint32Array {
  if (typeof options !== 'object' || options === null) throw new FluidError('spawn options must be an object');
  if (Object.hasOwn(SPAWN_OPTION_NAMES, options.shape)) {
    checkKnownKeys(`spawn({ shape: '${options.shape}' })`, options, SPAWN_OPTION_NAMES[options.shape]);
  }
  if (options.shape === 'box') return fillBlock(ctx, options);
  if (!isMaterialEntity(ctx, options.material)) {
    throw new FluidError(`material is ${String(options.material)}, which is not a material entity of this simulation`);
  }
  const velocity = checkVector3('velocity', withDefault<Vector3Input>(options.velocity, [0, 0, 0]), 1e4);
  const r = ctx.settings.particleRadius;
  const spacing = 2 * r;
  // The lattice points to fill, as world positions; the test of each point depends on the shape.
  let min: number[];
  let max: number[];
  let inside: (x: number, y: number, z: number) => boolean;
  if (options.shape === 'sphere') {
    const center = checkVector3('center', options.center);
    const radius = checkNumber('radius', options.radius, r, 1e7);
    const limit = (radius - r) ** 2 + 1e-12;
    min = center.map((c) => c - radius);
    max = center.map((c) => c + radius);
    inside = (x, y, z) => (x - center[0]) ** 2 + (y - center[1]) ** 2 + (z - center[2]) ** 2 <= limit;
  } else if (options.shape === 'mesh') {
    const field = options.field;
    if (!(field instanceof SignedDistanceField)) {
      throw new FluidError(`field is ${String(field)}; spawning in a mesh needs a SignedDistanceField`);
    }
    const position = checkVector3('position', withDefault<Vector3Input>(options.position, [0, 0, 0]));
    const [qx, qy, qz, qw] = checkQuaternion('rotation', withDefault<QuaternionInput>(options.rotation, [0, 0, 0, 1]));
    const scale = checkScaling(withDefault<number | Vector3Input>(options.scaling, 1));
    // Rotation matrix (row-major, local to world) of the quaternion.
    const m = new Float64Array(POSE_SIZE);
    writePose(m, 0, qx, qy, qz, qw, position[0], position[1], position[2], scale);
    // World box of the field's grid box: the eight corners mapped.
    min = [Infinity, Infinity, Infinity];
    max = [-Infinity, -Infinity, -Infinity];
    for (let corner = 0; corner < 8; corner++) {
      const l = [0, 1, 2].map((axis) => ((corner >> axis) & 1 ? field.max[axis] : field.min[axis]));
      for (let axis = 0; axis < 3; axis++) {
        const w = scale * (m[3 * axis] * l[0] + m[3 * axis + 1] * l[1] + m[3 * axis + 2] * l[2]) + position[axis];
        min[axis] = Math.min(min[axis], w);
        max[axis] = Math.max(max[axis], w);
      }
    }
    const localLimit = -r / scale;
    inside = (x, y, z) => {
      const wx = x - position[0];
      const wy = y - position[1];
      const wz = z - position[2];
      const lx = (m[0] * wx + m[3] * wy + m[6] * wz) / scale;
      const ly = (m[1] * wx + m[4] * wy + m[7] * wz) / scale;
      const lz = (m[2] * wx + m[5] * wy + m[8] * wz) / scale;
      return field.sample(lx, ly, lz) <= localLimit;
    };
  } else {
    throw new FluidError(
      `shape is '${String((options as { shape?: unknown }).shape)}'; allowed values are 'box', 'sphere', 'mesh'`,
    );
  }
  // Lattice aligned to the box's minimum corner plus r; count first so nothing is spawned past capacity.
  const counts = [0, 1, 2].map((axis) => Math.max(0, Math.floor((max[axis] - min[axis]) / spacing + 1e-6)) + 1);
  const searched = counts[0] * counts[1] * counts[2];
  if (!(searched <= MAX_SPAWN_SEARCH)) {
    throw new FluidError(
      `the volume spans ${counts.join(' x ')} lattice points (spacing ${spacing} m); at most ${MAX_SPAWN_SEARCH} are searched: spawn a smaller volume`,
    );
  }
  const s = ctx.solver;
  // Points past the room left are counted for the message, not stored.
  const room = ctx.settings.capacity - s.count;
  const points: number[] = [];
  let total = 0;
  for (let iz = 0; iz < counts[2]; iz++) {
    for (let iy = 0; iy < counts[1]; iy++) {
      for (let ix = 0; ix < counts[0]; ix++) {
        const x = min[0] + r + ix * spacing;
        const y = min[1] + r + iy * spacing;
        const z = min[2] + r + iz * spacing;
        if (!inside(x, y, z)) continue;
        if (total < room) points.push(x, y, z);
        total++;
      }
    }
  }
  if (s.count + total > ctx.settings.capacity) {
    throw new FluidCapacityError(
      `spawning ${total} particles would make ${s.count + total}, over the capacity of ${ctx.settings.capacity}; nothing was spawned`,
    );
  }
  compressHydrostatically(ctx, points);
  const ids = new Uint32Array(total);
  for (let k = 0; k < total; k++) {
    ids[k] = createParticle(
      ctx,
      points[3 * k],
      points[3 * k + 1],
      points[3 * k + 2],
      velocity[0],
      velocity[1],
      velocity[2],
      options.material,
      0,
    );
  }
  return ids;
}

/**
 * WCSPH only (`solver: 'sph'`): moves freshly spawned lattice points (x, y, z triples, in place) into the
 * hydrostatic rest state of the weakly compressible fluid when they rest on a collider, so that a block
 * spawned on the floor starts at rest instead of ringing in its lowest acoustic mode (a column 30 deep at
 * r = 1 cm breathed at 0.027 m/s after 4 s; see docs/method.md, "WCSPH").
 *
 * With the equation of state p = k (rho - rho0), k = c_s^2, and the pressure gradient normalised on the rest
 * lattice (sph/cpu.ts), hydrostatic balance dp/dd = rho g along the depth d below the spawned volume's top
 * gives rho(d') = rho0 exp(g d' / k) at the depth d' below the squeezed volume's top. The lattice keeps its
 * spacing across gravity and is squeezed along it; its poly6 density grows R = `latticeDensityResponse`
 * times faster than the squeeze (1.055 at h = 2 spacings), so (taking rho / rho0 = (rest spacing / local
 * spacing)^R) the local spacing at depth d' is exp(-g d' / (R k)) of the rest spacing, and the point at
 * depth d on the rest lattice moves to depth d' = (R k / g) ln(1 + g d / (R k)). The deepest points stay where they are (on what the volume rests on) and
 * the rest move down towards them. The top is the highest point plus one particle radius (the lattice's
 * surface).
 *
 * Left as they are: points of PBF and MPS (incompressible), all points when gravity is zero, and a volume
 * that does not rest on a collider (fewer than half of its deepest points within two particle radii of a
 * collider's surface): in free fall a fluid carries no pressure, and a block spawned in the air falls
 * at uniform density.
 */
export function compressHydrostatically(ctx: SimulationContext, points: Float64Array | number[]): void {
  const settings = ctx.settings;
  if (settings.solver !== 'sph' || points.length === 0) return;
  const [gx, gy, gz] = settings.gravity;
  const g = Math.hypot(gx, gy, gz);
  if (!(g > 0)) return;
  const stiffness = ctx.lattice.densityResponse * settings.sphSpeedOfSound * settings.sphSpeedOfSound;
  const [ux, uy, uz] = [gx / g, gy / g, gz / g];
  const r = settings.particleRadius;
  // Depth is measured along gravity from the top of the spawned volume.
  let top = Infinity;
  let bottom = -Infinity;
  for (let k = 0; k < points.length; k += 3) {
    const along = points[k] * ux + points[k + 1] * uy + points[k + 2] * uz;
    top = Math.min(top, along);
    bottom = Math.max(bottom, along);
  }
  // Does the volume rest on a collider? Its deepest points (within half a spacing of the bottom) are asked.
  const table = ctx.colliders;
  let deepest = 0;
  let supported = 0;
  for (let k = 0; k < points.length; k += 3) {
    if (points[k] * ux + points[k + 1] * uy + points[k + 2] * uz < bottom - r) continue;
    deepest++;
    for (let slot = 0; slot < table.count; slot++) {
      if (colliderDistanceAt(ctx, table.entity[slot], points[k], points[k + 1], points[k + 2]) <= 2 * r) {
        supported++;
        break;
      }
    }
  }
  if (2 * supported < deepest) return;
  top -= r;
  const squeezed = (depth: number): number => (stiffness / g) * Math.log1p((g * depth) / stiffness);
  const height = bottom - top;
  const anchor = height - squeezed(height);
  for (let k = 0; k < points.length; k += 3) {
    const depth = points[k] * ux + points[k + 1] * uy + points[k + 2] * uz - top;
    const move = squeezed(depth) - depth + anchor;
    points[k] += move * ux;
    points[k + 1] += move * uy;
    points[k + 2] += move * uz;
  }
}
