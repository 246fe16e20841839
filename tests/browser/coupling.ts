/**
 * Two-way coupling parity of the WebGPU backend against the CPU reference, run in the harness page (gpu.html)
 * for tests/webgpu.test.ts (PBF) and tests/sph-webgpu.test.ts (WCSPH, {@link sphCouplingParity}): a small pool (384 particles) in a tank, with a coupled box (friction) and a
 * coupled, rotated mesh box (a baked field, restitution), both built the same way on each backend (the same
 * entity ids), stepped in lockstep from the same particle state (the CPU's, rounded to float32 on both).
 * Results are plain numbers for the Node-side test to assert on.
 */
import type { WebGPUEngine } from '@babylonjs/core/Engines/webgpuEngine.js';
import { bakeSignedDistanceField, createBoxMesh, FluidSimulation, type SignedDistanceField } from '../../src';

/** The coupled bodies' poses: position (m) and rotation quaternion [x, y, z, w]. */
interface BodyPose {
  position: [number, number, number];
  rotation: [number, number, number, number];
}

/** One backend's pool scene. */
interface PoolScene {
  simulation: FluidSimulation;
  /** The fluid's material entity. */
  water: number;
  /** An uncoupled sphere out of the water, added before the bodies (removing it moves the mesh's slot). */
  dummy: number;
  box: number;
  mesh: number;
}

const BOX_HALF: [number, number, number] = [0.07, 0.05, 0.06];
const MESH_HALF = 0.05;
/** Centers of mass in the colliders' local space (off the shapes' centers, so the angular impulses differ). */
const BOX_CENTER: [number, number, number] = [0.01, -0.015, 0.005];
const MESH_CENTER: [number, number, number] = [-0.01, 0.01, 0];

/** A rotation of `angle` radians about the unit axis (x, y, z). */
function quaternion(x: number, y: number, z: number, angle: number): [number, number, number, number] {
  const s = Math.sin(angle / 2);
  return [x * s, y * s, z * s, Math.cos(angle / 2)];
}

const NORMAL: Record<'box' | 'mesh', BodyPose> = {
  box: { position: [0.17, 0.205, 0.2], rotation: quaternion(0, 0, 1, 0.15) },
  mesh: { position: [0.43, 0.2, 0.2], rotation: quaternion(0.6, 0.8, 0, 0.5) },
};

let sharedField: SignedDistanceField | undefined;

function poolScene(backend: 'cpu' | 'webgpu', engine: WebGPUEngine, solver: 'pbf' | 'sph' | 'mps' = 'pbf'): PoolScene {
  const simulation = new FluidSimulation({
    ...(solver === 'pbf' ? { projection: false } : { solver }),
    particleRadius: 0.025,
    capacity: 2048,
    backend,
    engine,
    mirror: 'off',
  });
  const water = simulation.addMaterial({});
  // Offset from the spawn lattice, so no particle sits on a sample of the wall weight table (see parity.ts).
  simulation.addCollider({
    shape: 'box',
    min: [-0.0137, -0.0071, -0.0093],
    max: [0.6119, 0.6, 0.4087],
    container: true,
  });
  const dummy = simulation.addCollider({ shape: 'sphere', center: [0.3, 1.5, 0.2], radius: 0.05 });
  const box = simulation.addCollider({
    shape: 'box',
    min: [-BOX_HALF[0], -BOX_HALF[1], -BOX_HALF[2]],
    max: BOX_HALF,
    friction: 0.2,
    rigidBody: { centerOfMass: BOX_CENTER },
  });
  const cube = createBoxMesh([-MESH_HALF, -MESH_HALF, -MESH_HALF], [MESH_HALF, MESH_HALF, MESH_HALF]);
  sharedField ??= bakeSignedDistanceField(cube, { resolution: 24 });
  const mesh = simulation.addCollider({
    shape: 'mesh',
    field: sharedField,
    restitution: 0.3,
    rigidBody: { centerOfMass: MESH_CENTER },
  });
  // Out of the water until the pool has settled.
  simulation.setColliderTransform(box, { position: [0.15, 1.2, 0.2], teleport: true });
  simulation.setColliderTransform(mesh, { position: [0.45, 1.2, 0.2], teleport: true });
  simulation.spawnBlock({ min: [0, 0, 0], max: [0.6, 0.2, 0.4], material: water });
  return { simulation, water, dummy, box, mesh };
}

function place(scene: PoolScene, body: 'box' | 'mesh', pose: BodyPose, teleport: boolean): void {
  scene.simulation.setColliderTransform(scene[body], { position: pose.position, rotation: pose.rotation, teleport });
}

/** Particle state: position and velocity per entity, rounded to float32 (exact on both backends). */
type ParticleState = Map<number, number[]>;

function particleState(simulation: FluidSimulation): ParticleState {
  const state: ParticleState = new Map();
  const { Position: p, Velocity: v } = simulation;
  for (const eid of simulation.particles()) {
    state.set(
      eid,
      [p.x[eid], p.y[eid], p.z[eid], v.x[eid], v.y[eid], v.z[eid]].map((value) => Math.fround(value)),
    );
  }
  return state;
}

/** Sets the particles (the same ids on every scene) and the bodies' normal pose, for a lockstep from there. */
function restart(scenes: PoolScene[], state: ParticleState): void {
  for (const scene of scenes) {
    const { Position: p, Velocity: v } = scene.simulation;
    for (const [eid, [x, y, z, vx, vy, vz]] of state) {
      p.x[eid] = x;
      p.y[eid] = y;
      p.z[eid] = z;
      v.x[eid] = vx;
      v.y[eid] = vy;
      v.z[eid] = vz;
    }
    // Uploaded with the next step on the WebGPU backend (harmless on the CPU).
    scene.simulation.markParticlesChanged([...state.keys()]);
    place(scene, 'box', NORMAL.box, true);
    place(scene, 'mesh', NORMAL.mesh, true);
  }
}

/** A body's impulse over some steps: linear (N s) and angular (N m s) vectors. */
export interface ImpulsePair {
  linear: number[];
  angular: number[];
}

/** The same impulse on both backends and how far apart they are. */
export interface ImpulseComparison {
  cpu: ImpulsePair;
  gpu: ImpulsePair;
  /** |gpu - cpu| / |cpu| of the linear impulse vectors. */
  linearRelative: number;
  /** |gpu - cpu| / |cpu| of the angular impulse vectors. */
  angularRelative: number;
}

function take(simulation: FluidSimulation, id: number): ImpulsePair {
  if (simulation.components.BodyCoupling.coupled[id] !== 1) return zeroPair();
  const { impulse, angularImpulse } = simulation.takeBodyImpulse(id);
  return { linear: [...impulse], angular: [...angularImpulse] };
}

const length = (v: number[]) => Math.hypot(v[0], v[1], v[2]);
const difference = (a: number[], b: number[]) => Math.hypot(a[0] - b[0], a[1] - b[1], a[2] - b[2]);

function compareImpulses(cpu: ImpulsePair, gpu: ImpulsePair): ImpulseComparison {
  return {
    cpu,
    gpu,
    linearRelative: difference(gpu.linear, cpu.linear) / length(cpu.linear),
    angularRelative: difference(gpu.angular, cpu.angular) / length(cpu.angular),
  };
}

function addPair(sum: ImpulsePair, add: ImpulsePair): void {
  for (let k = 0; k < 3; k++) {
    sum.linear[k] += add.linear[k];
    sum.angular[k] += add.angular[k];
  }
}

const zeroPair = (): ImpulsePair => ({ linear: [0, 0, 0], angular: [0, 0, 0] });

/** Largest per-particle difference of positions (m) and velocities (m/s) between the two backends. */
function particleDifference(cpu: FluidSimulation, gpu: FluidSimulation): { position: number; velocity: number } {
  let position = 0;
  let velocity = 0;
  for (const eid of cpu.particles()) {
    const p = cpu.Position;
    const q = gpu.Position;
    position = Math.max(position, Math.hypot(p.x[eid] - q.x[eid], p.y[eid] - q.y[eid], p.z[eid] - q.z[eid]));
    const v = cpu.Velocity;
    const w = gpu.Velocity;
    velocity = Math.max(velocity, Math.hypot(v.x[eid] - w.x[eid], v.y[eid] - w.y[eid], v.z[eid] - w.z[eid]));
  }
  return { position, velocity };
}

/** World to local of a pose with unit quaternion q and translation t (unit scale). */
function toLocal(pose: BodyPose, x: number, y: number, z: number): [number, number, number] {
  const [qx, qy, qz, qw] = pose.rotation;
  const [tx, ty, tz] = pose.position;
  // R^T (x - t): rotate by the conjugate quaternion.
  const vx = x - tx;
  const vy = y - ty;
  const vz = z - tz;
  const cx = -qx;
  const cy = -qy;
  const cz = -qz;
  // v' = v + 2 w (c x v) + 2 c x (c x v)
  const ux = cy * vz - cz * vy;
  const uy = cz * vx - cx * vz;
  const uz = cx * vy - cy * vx;
  return [
    vx + 2 * (qw * ux + (cy * uz - cz * uy)),
    vy + 2 * (qw * uy + (cz * ux - cx * uz)),
    vz + 2 * (qw * uz + (cx * uy - cy * ux)),
  ];
}

/** Signed distance of a world point to a body at `pose` (negative inside). */
function bodyDistance(body: 'box' | 'mesh', pose: BodyPose, x: number, y: number, z: number): number {
  const [lx, ly, lz] = toLocal(pose, x, y, z);
  if (body === 'mesh') return (sharedField as SignedDistanceField).sample(lx, ly, lz);
  const qx = Math.abs(lx) - BOX_HALF[0];
  const qy = Math.abs(ly) - BOX_HALF[1];
  const qz = Math.abs(lz) - BOX_HALF[2];
  const outside = Math.hypot(Math.max(qx, 0), Math.max(qy, 0), Math.max(qz, 0));
  return outside + Math.min(Math.max(qx, qy, qz), 0);
}

/** Result of {@link couplingParity}. */
export interface CouplingParityResult {
  particles: number;
  /** One step of one substep and one iteration, bodies moving (pushed down and turned) through the water. */
  oneSubstep: {
    box: ImpulseComparison;
    mesh: ImpulseComparison;
    particles: { position: number; velocity: number };
  };
  /** The same step with a fluid 10^4 times denser (impulses of 10^3 to 10^4 N s). */
  dense: { box: ImpulseComparison; mesh: ImpulseComparison };
  /** The same motion in a default step (2 substeps of 3 iterations; later iterations see other neighbours). */
  defaultStep: { box: ImpulseComparison; mesh: ImpulseComparison };
  /** Both bodies teleported 7 cm down into the water (their wall weights off), one substep of one iteration. */
  teleport: {
    /** Particles whose center started inside a body at its new pose. */
    penetrating: number;
    particles: { position: number; velocity: number };
    /**
     * Per backend, the largest |v| dt / |x_end - x_start| of a penetrating particle: 1 if the push out of
     * the body had become velocity, near 0 when it moved the start position too.
     */
    velocityGained: { cpu: number; gpu: number };
    /** Smallest distance (m) a penetrating particle moved in the step (the CPU's). */
    smallestMove: number;
    box: ImpulseComparison;
    mesh: ImpulseComparison;
  };
  /**
   * Seven steps (bodies held still in the settled pool) on two GPU simulations from the same state: one
   * reads back and takes the impulses after every step, the other steps seven times without waiting (the
   * readbacks of steps 4 to 7 are skipped, the three staging buffers being busy; step 7 first removes the
   * uncoupled dummy collider, so the mesh moves to its slot while its impulses wait on the GPU) and reads
   * back once. And the CPU's sums over the same seven steps.
   */
  readbacks: {
    /** Staging buffers busy after the seven unwaited steps (3, the most: the later readbacks were skipped). */
    busyStagingBuffers: number;
    /** The box's vertical impulse of each step (N s), GPU, read back after every step. */
    boxLiftPerStep: number[];
    everyStep: { box: ImpulsePair; mesh: ImpulsePair };
    once: { box: ImpulsePair; mesh: ImpulsePair };
    cpu: { box: ImpulsePair; mesh: ImpulsePair };
    /** |once - everyStep| / |everyStep|, largest over bodies and linear / angular. */
    onceAgainstEveryStep: number;
    /** |gpu - cpu| / |cpu| of the seven-step sums, largest over bodies and linear / angular. */
    gpuAgainstCpu: number;
    /**
     * A coupled collider removed while the readback of its last step is in flight, and a new coupled
     * collider out of the water that gets the same entity id: the impulse the new one receives (N s, 0).
     */
    recycledId: { sameId: boolean; impulse: number };
  };
}

function comparePair(a: ImpulsePair, b: ImpulsePair): number {
  return Math.max(
    difference(a.linear, b.linear) / length(b.linear),
    difference(a.angular, b.angular) / length(b.angular),
  );
}

/** Steps both simulations once and compares the bodies' impulses of that step. */
async function lockstep(cpu: PoolScene, gpu: PoolScene): Promise<{ box: ImpulseComparison; mesh: ImpulseComparison }> {
  for (const scene of [cpu, gpu]) {
    take(scene.simulation, scene.box);
    take(scene.simulation, scene.mesh);
  }
  cpu.simulation.step();
  gpu.simulation.step();
  await gpu.simulation.readback();
  return {
    box: compareImpulses(take(cpu.simulation, cpu.box), take(gpu.simulation, gpu.box)),
    mesh: compareImpulses(take(cpu.simulation, cpu.mesh), take(gpu.simulation, gpu.mesh)),
  };
}

function setIterations(scenes: PoolScene[], substeps: number, iterations: number): void {
  for (const scene of scenes) {
    scene.simulation.settings.substeps = substeps;
    scene.simulation.settings.iterations = iterations;
  }
}

/** Variations of the readback part of {@link couplingParity} (for diagnosis). */
export interface CouplingOptions {
  /** Substeps and iterations of the seven readback steps (default 2 and 3). */
  readbackSubsteps?: number;
  readbackIterations?: number;
  /**
   * Body descent per readback step (m, default 0.003: the bodies move down through the settled pool without
   * teleporting, so each step must start from the pose the previous one ended at).
   */
  descent?: number;
}

/** See {@link CouplingParityResult}. */
export async function couplingParity(
  engine: WebGPUEngine,
  options: CouplingOptions = {},
): Promise<CouplingParityResult> {
  const cpu = poolScene('cpu', engine);
  const gpu = poolScene('webgpu', engine);
  const gpuOnce = poolScene('webgpu', engine);
  await gpu.simulation.ready();
  await gpuOnce.simulation.ready();
  const reference = cpu.simulation;
  // Settle the pool on the CPU, put the bodies in (pre-stabilisation moves the particles they overlap out)
  // and let the water settle around them: every part below starts from this state.
  for (let k = 0; k < 20; k++) reference.step();
  place(cpu, 'box', NORMAL.box, true);
  place(cpu, 'mesh', NORMAL.mesh, true);
  for (let k = 0; k < 60; k++) reference.step();
  const settled = particleState(reference);
  const moved = (pose: BodyPose, dy: number, angle: number): BodyPose => ({
    position: [pose.position[0] + 0.004, pose.position[1] + dy, pose.position[2]],
    rotation: [pose.rotation[0], pose.rotation[1] + angle, pose.rotation[2], pose.rotation[3]],
  });
  const move = (scenes: PoolScene[]) => {
    for (const scene of scenes) {
      place(scene, 'box', moved(NORMAL.box, -0.01, 0.02), false);
      place(scene, 'mesh', moved(NORMAL.mesh, -0.008, -0.02), false);
    }
  };

  // One substep of one iteration, the bodies pushed down and turned: the same neighbours on both backends.
  restart([cpu, gpu], settled);
  setIterations([cpu, gpu], 1, 1);
  move([cpu, gpu]);
  const oneSubstep = { ...(await lockstep(cpu, gpu)), particles: particleDifference(reference, gpu.simulation) };

  // The same with a fluid 10^4 times denser (rest density and particle mass: the same motion, impulses 10^4
  // times larger): single contributions beyond 2^31 quanta and sums beyond 2^32 use the accumulators' high words.
  const density = (factor: number) => {
    for (const scene of [cpu, gpu]) {
      const material = scene.simulation.components.FluidMaterial;
      material.restDensity[scene.water] *= factor;
      material.particleMass[scene.water] *= factor;
    }
  };
  restart([cpu, gpu], settled);
  move([cpu, gpu]);
  density(1e4);
  const dense = await lockstep(cpu, gpu);
  density(1e-4);

  // The default step (2 substeps of 3 iterations), the same motion.
  restart([cpu, gpu], settled);
  setIterations([cpu, gpu], 2, 3);
  move([cpu, gpu]);
  const defaultStep = await lockstep(cpu, gpu);

  // Teleported into the water: overlapped particles are pushed out without gaining velocity. The bodies'
  // wall weights are off for this step, so the collision push is the only large move of those particles.
  restart([cpu, gpu], settled);
  setIterations([cpu, gpu], 1, 1);
  const sunk = (pose: BodyPose): BodyPose => ({
    position: [pose.position[0] + 0.02, pose.position[1] - 0.07, pose.position[2] + 0.01],
    rotation: pose.rotation,
  });
  const before = new Map<number, number[]>();
  for (const [eid, [x, y, z]] of settled) {
    if (bodyDistance('box', sunk(NORMAL.box), x, y, z) < 0 || bodyDistance('mesh', sunk(NORMAL.mesh), x, y, z) < 0) {
      before.set(eid, [x, y, z]);
    }
  }
  const wallWeights = (value: number) => {
    for (const scene of [cpu, gpu]) {
      scene.simulation.components.Collider.wallWeights[scene.box] = value;
      scene.simulation.components.Collider.wallWeights[scene.mesh] = value;
    }
  };
  wallWeights(0);
  for (const scene of [cpu, gpu]) {
    place(scene, 'box', sunk(NORMAL.box), true);
    place(scene, 'mesh', sunk(NORMAL.mesh), true);
  }
  const teleportImpulses = await lockstep(cpu, gpu);
  wallWeights(1);
  // Per penetrating particle, its speed times dt over the distance it moved: 1 if the push had become
  // velocity (v = (x* - x) / dt), about 0 with pre-stabilisation.
  const gained = (simulation: FluidSimulation) => {
    let largest = 0;
    const dt = simulation.settings.timeStep;
    for (const [eid, start] of before) {
      const p = simulation.Position;
      const v = simulation.Velocity;
      const distance = Math.hypot(p.x[eid] - start[0], p.y[eid] - start[1], p.z[eid] - start[2]);
      largest = Math.max(largest, (Math.hypot(v.x[eid], v.y[eid], v.z[eid]) * dt) / distance);
    }
    return largest;
  };
  let smallestMove = Number.POSITIVE_INFINITY;
  for (const [eid, start] of before) {
    const p = reference.Position;
    smallestMove = Math.min(smallestMove, Math.hypot(p.x[eid] - start[0], p.y[eid] - start[1], p.z[eid] - start[2]));
  }
  const teleport = {
    penetrating: before.size,
    particles: particleDifference(reference, gpu.simulation),
    velocityGained: { cpu: gained(reference), gpu: gained(gpu.simulation) },
    smallestMove,
    ...teleportImpulses,
  };

  // Readbacks: seven steps, the bodies moving down 3 mm a step, on both GPU simulations and the CPU.
  const scenes = [cpu, gpu, gpuOnce];
  restart(scenes, settled);
  setIterations(scenes, options.readbackSubsteps ?? 2, options.readbackIterations ?? 3);
  for (const scene of scenes) {
    take(scene.simulation, scene.box);
    take(scene.simulation, scene.mesh);
  }
  const hold = (scene: PoolScene, step: number) => {
    // Step 7 removes the dummy collider: the mesh, last in the collider table, takes its slot.
    if (step === 7) scene.simulation.removeCollider(scene.dummy);
    const descent = (options.descent ?? 0.003) * step;
    for (const body of ['box', 'mesh'] as const) {
      const pose = NORMAL[body];
      place(
        scene,
        body,
        { position: [pose.position[0], pose.position[1] - descent, pose.position[2]], rotation: pose.rotation },
        false,
      );
    }
  };
  const everyStep = { box: zeroPair(), mesh: zeroPair() };
  const cpuSums = { box: zeroPair(), mesh: zeroPair() };
  const perStep: number[] = [];
  for (let step = 1; step <= 7; step++) {
    hold(cpu, step);
    reference.step();
    addPair(cpuSums.box, take(reference, cpu.box));
    addPair(cpuSums.mesh, take(reference, cpu.mesh));
    hold(gpu, step);
    gpu.simulation.step();
    await gpu.simulation.readback();
    const box = take(gpu.simulation, gpu.box);
    perStep.push(box.linear[1]);
    addPair(everyStep.box, box);
    addPair(everyStep.mesh, take(gpu.simulation, gpu.mesh));
  }
  // No await between these steps: from the fourth on, every staging buffer is busy and the step's
  // readback is skipped, so the impulses of steps 4 to 7 wait on the GPU (and move with the mesh's slot).
  const solver = gpuOnce.simulation.gpuSolver;
  if (!solver) throw new Error('no GPU solver');
  for (let step = 1; step <= 7; step++) {
    hold(gpuOnce, step);
    gpuOnce.simulation.step();
  }
  // biome-ignore lint/complexity/useLiteralKeys: `stagingBusy` is private; the bracket reaches it for this test only
  const busyStagingBuffers = solver['stagingBusy'].filter((busy) => busy).length;
  await gpuOnce.simulation.readback();
  const once = { box: take(gpuOnce.simulation, gpuOnce.box), mesh: take(gpuOnce.simulation, gpuOnce.mesh) };

  // A coupled collider removed while the readback of its last step is in flight; a new coupled collider
  // out of the water gets its entity id and must not receive those impulses. Ids are reused only once every
  // id below the entity capacity was handed out, the one freed longest ago first: particles spawned and
  // removed at once (never uploaded, so freed at once) use the id space up, and one more takes the dummy
  // collider's id (freed at step 7, before the box's) and frees it again, behind the box's.
  const recycler = gpuOnce.simulation;
  recycler.step();
  recycler.removeCollider(gpuOnce.box);
  const limits = recycler.settings;
  const lastId = limits.capacity + limits.maxMaterials + limits.maxColliders + limits.maxEmitters;
  const cycle = (): number => {
    const [eid] = recycler.spawnBlock({ min: [0.3, 1.4, 0.2], max: [0.35, 1.45, 0.25], material: gpuOnce.water });
    recycler.removeParticle(eid);
    return eid;
  };
  for (let spawned = 0; spawned < lastId && cycle() !== lastId; spawned++);
  const dummyCycled = cycle() === gpuOnce.dummy;
  const newcomer = recycler.addCollider({ shape: 'sphere', center: [0, 0, 0], radius: 0.05, rigidBody: {} });
  recycler.setColliderTransform(newcomer, { position: [0.3, 1.4, 0.2], teleport: true });
  recycler.step();
  await recycler.readback();
  const recycled = recycler.takeBodyImpulse(newcomer);

  gpu.simulation.dispose();
  gpuOnce.simulation.dispose();
  return {
    particles: reference.particleCount,
    oneSubstep,
    dense,
    defaultStep,
    teleport,
    readbacks: {
      busyStagingBuffers,
      boxLiftPerStep: perStep,
      everyStep,
      once,
      cpu: cpuSums,
      onceAgainstEveryStep: Math.max(comparePair(once.box, everyStep.box), comparePair(once.mesh, everyStep.mesh)),
      gpuAgainstCpu: Math.max(comparePair(everyStep.box, cpuSums.box), comparePair(everyStep.mesh, cpuSums.mesh)),
      recycledId: { sameId: dummyCycled && newcomer === gpuOnce.box, impulse: length(recycled.impulse) },
    },
  };
}

/** One step of {@link sphCouplingParity}: both backends from the same state. */
export interface SphCouplingStep {
  substepsCpu: number;
  substepsGpu: number;
  box: ImpulseComparison;
  mesh: ImpulseComparison;
  particles: { position: number; velocity: number };
}

/** Result of {@link sphCouplingParity}. */
export interface SphCouplingParityResult {
  particles: number;
  steps: SphCouplingStep[];
  /** The impulses summed over the steps. */
  sums: { box: ImpulseComparison; mesh: ImpulseComparison };
  /** Non-finite positions or velocities on the GPU at the end. */
  nonFinite: number;
}

/**
 * WCSPH with coupled colliders on both backends: the pool of {@link couplingParity} with `solver: 'sph'`, settled
 * on the CPU with the bodies in the water, then both backends from that state (rounded to float32) for `steps`
 * steps while the bodies sink 3 mm and turn 0.02 rad a step (not teleported), read back after every step (the
 * GPU plans each step's substeps from the velocities it read back, as the CPU does from its own): each step's
 * impulses on the box (friction) and the mesh (restitution) against the CPU's, and the particles'.
 */
export async function sphCouplingParity(
  engine: WebGPUEngine,
  steps = 5,
  solver: 'sph' | 'mps' = 'sph',
): Promise<SphCouplingParityResult> {
  const cpu = poolScene('cpu', engine, solver);
  const gpu = poolScene('webgpu', engine, solver);
  await gpu.simulation.ready();
  for (let k = 0; k < 20; k++) cpu.simulation.step();
  place(cpu, 'box', NORMAL.box, true);
  place(cpu, 'mesh', NORMAL.mesh, true);
  for (let k = 0; k < 30; k++) cpu.simulation.step();
  restart([cpu, gpu], particleState(cpu.simulation));
  // The restart teleports the bodies back to their poses (the CPU's were there already): one step for it.
  cpu.simulation.step();
  gpu.simulation.step();
  await gpu.simulation.readback();
  restart([cpu, gpu], particleState(cpu.simulation));
  // Sunk 3 mm a step and turned 0.02 rad a step about z after the pose's rotation: q' = t q, t = (0, 0, s, c).
  const turned = (pose: BodyPose, step: number): BodyPose => {
    const [x, y, z] = pose.position;
    const [qx, qy, qz, qw] = pose.rotation;
    const [, , s, c] = quaternion(0, 0, 1, 0.02 * step);
    return {
      position: [x, y - 0.003 * step, z],
      rotation: [c * qx - s * qy, c * qy + s * qx, c * qz + s * qw, c * qw - s * qz],
    };
  };
  const result: SphCouplingStep[] = [];
  const sums = { cpu: { box: zeroPair(), mesh: zeroPair() }, gpu: { box: zeroPair(), mesh: zeroPair() } };
  for (let step = 1; step <= steps; step++) {
    for (const scene of [cpu, gpu]) {
      place(scene, 'box', turned(NORMAL.box, step), false);
      place(scene, 'mesh', turned(NORMAL.mesh, step), false);
    }
    const impulses = await lockstep(cpu, gpu);
    addPair(sums.cpu.box, impulses.box.cpu);
    addPair(sums.cpu.mesh, impulses.mesh.cpu);
    addPair(sums.gpu.box, impulses.box.gpu);
    addPair(sums.gpu.mesh, impulses.mesh.gpu);
    result.push({
      substepsCpu: cpu.simulation.stats.solverSubsteps,
      substepsGpu: gpu.simulation.stats.solverSubsteps,
      box: impulses.box,
      mesh: impulses.mesh,
      particles: particleDifference(cpu.simulation, gpu.simulation),
    });
  }
  let nonFinite = 0;
  const { Position: p, Velocity: v } = gpu.simulation;
  for (const eid of gpu.simulation.particles()) {
    if (![p.x[eid], p.y[eid], p.z[eid], v.x[eid], v.y[eid], v.z[eid]].every(Number.isFinite)) nonFinite++;
  }
  const particles = cpu.simulation.particleCount;
  cpu.simulation.dispose();
  gpu.simulation.dispose();
  return {
    particles,
    steps: result,
    sums: {
      box: compareImpulses(sums.cpu.box, sums.gpu.box),
      mesh: compareImpulses(sums.cpu.mesh, sums.gpu.mesh),
    },
    nonFinite,
  };
}
