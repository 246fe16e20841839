/**
 * A Babylon developer's first hour: the plugin never silently does nothing (the README's five lines step on a
 * NullEngine both in `engine.runRenderLoop` and in a hand-written `scene.render()` loop, warning once where
 * the engine has no frame clock), Babylon's `Vector3`, `Quaternion`, `Color3` and `Color4` go wherever a
 * tuple goes and give the same state, the plugin behaves like a Babylon object (`getClassName`, `name`,
 * `uniqueId`, `onDisposeObservable`), its gravity follows the scene's physics engine unless given, and every
 * view's meshes carry the plugin's `renderingGroupId` and `layerMask`.
 */

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { FreeCamera } from '@babylonjs/core/Cameras/freeCamera.js';
import { NullEngine } from '@babylonjs/core/Engines/nullEngine.js';
import { Color3, Color4 } from '@babylonjs/core/Maths/math.color.js';
import { Quaternion, Vector3 } from '@babylonjs/core/Maths/math.vector.js';
import { CreateBox } from '@babylonjs/core/Meshes/Builders/boxBuilder.js';
import { TransformNode } from '@babylonjs/core/Meshes/transformNode.js';
import { Observable } from '@babylonjs/core/Misc/observable.js';
import { Scene } from '@babylonjs/core/scene.js';
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  bakeSignedDistanceField,
  createBoxMesh,
  FluidError,
  FluidPlugin,
  type FluidPluginOptions,
  FluidSimulation,
  type SignedDistanceField,
} from '../src';
import { createPhysicsScene } from './havokScene';

const engines: NullEngine[] = [];

function createScene(): { engine: NullEngine; scene: Scene; camera: FreeCamera } {
  const engine = new NullEngine();
  engines.push(engine);
  const scene = new Scene(engine);
  const camera = new FreeCamera('camera', new Vector3(0, 0.2, -1), scene);
  return { engine, scene, camera };
}

afterEach(() => {
  vi.restoreAllMocks();
  for (const engine of engines.splice(0)) {
    engine.stopRenderLoop();
    engine.dispose();
  }
});

/** The code of the README's "Five lines into your game" section, verbatim (its first ```ts block). */
function readmeFiveLines(): string {
  const readme = readFileSync(join(__dirname, '..', 'README.md'), 'utf8');
  const section = readme.indexOf('## Five lines into your game');
  if (section < 0) throw new Error('README.md has no "## Five lines into your game" section');
  const block = /```ts\n([\s\S]*?)```/.exec(readme.slice(section));
  if (!block) throw new Error('the "Five lines into your game" section of README.md has no ```ts block');
  return block[1];
}

type FiveLines = (
  plugin: typeof FluidPlugin,
  scene: Scene,
  glassMesh: unknown,
  tapNode: unknown,
) => Promise<FluidPlugin>;

/**
 * The five lines as an async function of the names they use: verbatim, but for the package import, which
 * becomes the `FluidPlugin` parameter (the same class, from src/).
 */
function fiveLinesFunction(): FiveLines {
  const lines = readmeFiveLines().split('\n');
  const imports = lines.filter((line) => /^import .* from 'babylon-ecs-fluids';$/.test(line));
  expect(imports).toEqual(["import { FluidPlugin } from 'babylon-ecs-fluids';"]);
  const body = lines.filter((line) => !imports.includes(line)).join('\n');
  expect(body).toMatch(/const fluid = await FluidPlugin\.create\(scene/);
  const AsyncFunction = Object.getPrototypeOf(async () => {}).constructor as new (...args: string[]) => FiveLines;
  return new AsyncFunction('FluidPlugin', 'scene', 'glassMesh', 'tapNode', `${body}\nreturn fluid;`);
}

/** The scene of the package test: a 20 cm box (`glassMesh`) and, 30 cm above its center, `tapNode`. */
async function runFiveLines(scene: Scene): Promise<FluidPlugin> {
  const glassMesh = CreateBox('glass', { size: 0.2 }, scene);
  const tapNode = new TransformNode('tap', scene);
  tapNode.position.set(0, 0.3, 0);
  return fiveLinesFunction()(FluidPlugin, scene, glassMesh, tapNode);
}

describe("the README's five lines on a NullEngine", () => {
  it('step in a hand-written scene.render() loop, warning once that the engine has no frame clock', async () => {
    const { engine, scene } = createScene();
    expect(engine.getDeltaTime()).toBe(0);
    const consoleWarnings: string[] = [];
    vi.spyOn(console, 'warn').mockImplementation((message: unknown) => consoleWarnings.push(String(message)));
    const fluid = await runFiveLines(scene);
    const notices: string[] = [];
    fluid.onWarningObservable.add((message) => notices.push(message));
    expect(fluid.useDeltaTime).toBe(true);
    for (let frame = 0; frame < 40; frame++) scene.render();
    // The first render of any loop has no measured duration; every later one takes a fixed step.
    expect(fluid.simulation.stats.stepCount).toBe(39);
    expect(fluid.stepsLastFrame).toBe(1);
    expect(fluid.simulation.particleCount).toBeGreaterThan(0);
    const fluidWarnings = consoleWarnings.filter((message) => message.startsWith('FluidPlugin'));
    expect(fluidWarnings.length).toBe(1);
    expect(fluidWarnings[0]).toMatch(/useDeltaTime/);
    expect(fluidWarnings[0]).toMatch(/fixed timeStep/);
    expect(notices).toEqual(fluidWarnings);
    // The water poured from the tap (y = 0.3) has fallen towards the glass (top at y = 0.1).
    const { Position } = fluid.simulation;
    let lowest = Number.POSITIVE_INFINITY;
    for (const eid of fluid.simulation.particles()) lowest = Math.min(lowest, Position.y[eid]);
    expect(lowest).toBeLessThan(0.2);
    // Warned once only; `useDeltaTime: false` asks for the same stepping without a warning.
    for (let frame = 0; frame < 5; frame++) scene.render();
    expect(fluid.simulation.stats.stepCount).toBe(44);
    expect(notices.length).toBe(1);
    const quiet = await FluidPlugin.create(createScene().scene, { useDeltaTime: false });
    const quietNotices: string[] = [];
    quiet.onWarningObservable.add((message) => quietNotices.push(message));
    for (let frame = 0; frame < 5; frame++) quiet.scene.render();
    expect(quiet.simulation.stats.stepCount).toBe(5);
    expect(quietNotices).toEqual([]);
  });

  it('step in engine.runRenderLoop(() => scene.render()) by the measured frame time, without a warning', async () => {
    const { engine, scene } = createScene();
    const warn = vi.spyOn(console, 'warn');
    const fluid = await runFiveLines(scene);
    const notices: string[] = [];
    fluid.onWarningObservable.add((message) => notices.push(message));
    let frames = 0;
    engine.runRenderLoop(() => {
      scene.render();
      frames++;
    });
    const start = Date.now();
    while (fluid.simulation.stats.stepCount < 20 && Date.now() - start < 60_000) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    engine.stopRenderLoop();
    expect(fluid.simulation.stats.stepCount).toBeGreaterThanOrEqual(20);
    expect(frames).toBeGreaterThan(0);
    expect(fluid.simulation.particleCount).toBeGreaterThan(0);
    // Frame times were measured (16 ms timers), so the clock was there: no warning.
    expect(notices).toEqual([]);
    expect(warn.mock.calls.filter((call) => String(call[0]).startsWith('FluidPlugin'))).toEqual([]);
  });

  it('a single render without a frame time takes no step, and a measured one resets the count', async () => {
    const { engine, scene } = createScene();
    const fluid = await FluidPlugin.create(scene, { particleRadius: 0.05, capacity: 100 });
    const notices: string[] = [];
    fluid.onWarningObservable.add((message) => notices.push(message));
    let milliseconds = 0;
    engine.getDeltaTime = () => milliseconds;
    const steps: number[] = [];
    for (const frameTime of [0, 1000 / 60, 0, 1000 / 60, 0, 0, 0]) {
      milliseconds = frameTime;
      scene.render();
      steps.push(fluid.stepsLastFrame);
    }
    expect(steps).toEqual([0, 1, 0, 1, 0, 1, 1]);
    expect(notices.length).toBe(1);
    // An engine whose getDeltaTime returns no number has no frame clock either.
    (engine as unknown as { getDeltaTime: () => unknown }).getDeltaTime = () => undefined;
    const before = fluid.simulation.stats.stepCount;
    for (let frame = 0; frame < 3; frame++) scene.render();
    expect(fluid.simulation.stats.stepCount - before).toBe(3);
    expect(notices.length).toBe(1);
  });
});

/** A mesh field for the mesh collider and the mesh spawn: a 20 cm box. */
function boxField(): SignedDistanceField {
  return bakeSignedDistanceField(createBoxMesh(new Vector3(-0.1, -0.1, -0.1), [0.1, 0.1, 0.1]), { resolution: 12 });
}

/**
 * A scene built through every call that takes a vector, quaternion or color, with tuples or with Babylon's
 * objects (`babylon`), stepped 5 times; returns its snapshot. `velocityX` varies one value (a control that
 * the comparison can fail).
 */
function buildScene(babylon: boolean, field: SignedDistanceField, velocityX = 0.5): Uint8Array {
  const v = (x: number, y: number, z: number) => (babylon ? new Vector3(x, y, z) : ([x, y, z] as const));
  const q = (x: number, y: number, z: number, w: number) =>
    babylon ? new Quaternion(x, y, z, w) : ([x, y, z, w] as const);
  const c3 = (r: number, g: number, b: number) => (babylon ? new Color3(r, g, b) : ([r, g, b] as const));
  const c4 = (r: number, g: number, b: number) => (babylon ? new Color4(r, g, b, 0.3) : ([r, g, b] as const));
  const simulation = new FluidSimulation({ particleRadius: 0.04, capacity: 3000, gravity: v(0.5, -9, 0.25) });
  const water = simulation.addMaterial({ color: c3(0.1, 0.5, 0.9) });
  const oil = simulation.addMaterial({ color: c4(0.8, 0.6, 0.1), restDensity: 800 });
  simulation.addCollider({ shape: 'box', min: v(-1, 0, -0.5), max: v(1, 2, 0.5), container: true });
  simulation.addCollider({ shape: 'sphere', center: v(0.5, 0.3, 0), radius: 0.1 });
  simulation.addCollider({ shape: 'capsule', a: v(-0.6, 0.2, 0), b: v(-0.4, 0.3, 0.1), radius: 0.05 });
  simulation.addCollider({ shape: 'plane', point: v(0, 0.05, 0), normal: v(0.1, 1, 0) });
  const mesh = simulation.addCollider({
    shape: 'mesh',
    field,
    rigidBody: { centerOfMass: v(0.01, 0, -0.01), mass: 2 },
  });
  simulation.setColliderTransform(mesh, {
    position: v(0.2, 0.8, 0),
    rotation: q(0, 0.38268343, 0, 0.92387953),
    scaling: v(1.5, 1.5, 1.5),
    teleport: true,
  });
  simulation.spawnBlock({
    min: v(-0.3, 0.9, -0.2),
    max: v(0, 1.2, 0.2),
    material: water,
    velocity: v(velocityX, 0, 0),
    color: c3(0.3, 0.2, 0.1),
  });
  simulation.spawn({ shape: 'sphere', center: v(0.6, 1.2, 0), radius: 0.12, material: oil, velocity: v(0, -1, 0) });
  simulation.spawn({
    shape: 'mesh',
    field,
    position: v(-0.6, 1.0, 0),
    rotation: q(0, 0, 0.2588190451, 0.9659258263),
    scaling: v(0.8, 0.8, 0.8),
    material: water,
    velocity: v(0, 0, 0.2),
  });
  simulation.spawnBlock({ min: v(0.2, 1.4, -0.1), max: v(0.4, 1.6, 0.1), material: oil, color: c4(0.9, 0.1, 0.2) });
  const emitter = simulation.addEmitter({ material: water, position: v(0, 1.8, 0), direction: v(0.2, -1, 0) });
  simulation.addDrain({ min: v(0.9, 0, -0.5), max: v(1, 0.2, 0.5) });
  simulation.addDrain({ shape: 'sphere', center: v(-0.9, 0.1, 0), radius: 0.1 });
  for (let step = 0; step < 5; step++) {
    simulation.setEmitterTransform(emitter, { position: v(0.01 * step, 1.8, 0), direction: v(0, -1, 0.1 * step) });
    simulation.step();
  }
  return simulation.snapshot();
}

describe("Babylon's Vector3, Quaternion, Color3 and Color4 beside tuples", () => {
  it('give every simulation call the same state as the tuples (compared byte for byte in a snapshot)', () => {
    const field = boxField();
    const tuples = buildScene(false, field);
    const babylon = buildScene(true, field);
    expect(babylon.length).toBe(tuples.length);
    expect(Buffer.from(babylon).equals(Buffer.from(tuples))).toBe(true);
    // The comparison sees a difference of one velocity component.
    expect(Buffer.from(buildScene(true, field, 0.6)).equals(Buffer.from(tuples))).toBe(false);
  });

  it('keep tuples in the state: settings.gravity is a fresh array, not the Vector3 given', () => {
    const gravity = new Vector3(0, -3, 0);
    const simulation = new FluidSimulation({ gravity });
    expect(Array.isArray(simulation.settings.gravity)).toBe(true);
    expect(simulation.settings.gravity).toEqual([0, -3, 0]);
    gravity.y = -20;
    expect(simulation.settings.gravity[1]).toBe(-3);
    const material = simulation.addMaterial({ color: new Color3(0.5, 0.25, 1) });
    expect(simulation.components.FluidMaterial.colorGreen[material]).toBeCloseTo(0.25, 6);
  });

  it('refuse bad objects naming the argument and its component', () => {
    const simulation = new FluidSimulation({ particleRadius: 0.05, capacity: 100 });
    const water = simulation.addMaterial({});
    const collider = simulation.addCollider({ shape: 'sphere', center: [0, 0, 0], radius: 0.1 });
    expect(() => new FluidSimulation({ gravity: new Vector3(0, Number.NaN, 0) })).toThrow(
      /gravity\.y is NaN; allowed range is \[-1000, 1000\]/,
    );
    expect(() => simulation.addEmitter({ material: water, position: { x: 0, y: 1 } as never })).toThrow(
      /position is \{ x, y \}, without z; it must be an array of 3 finite numbers \[x, y, z\] or an object with numeric x, y, z \(a Babylon Vector3\)/,
    );
    // Euler angles (mesh.rotation) are no quaternion.
    expect(() =>
      simulation.setColliderTransform(collider, { rotation: new Vector3(0, 1, 0) as unknown as Quaternion }),
    ).toThrow(/rotation is \{X: 0 Y: 1 Z: 0\}, without w; .*Quaternion\.FromEulerAngles/);
    expect(() => simulation.setColliderTransform(collider, { rotation: new Quaternion(0, 0, 0, 0) })).toThrow(
      /rotation has length 0/,
    );
    expect(() => simulation.addMaterial({ color: new Color3(2, 0, 0) })).toThrow(
      /color\.r is 2; allowed range is \[0, 1\]/,
    );
    expect(() => simulation.addMaterial({ color: [0, -0.5, 0] })).toThrow(
      /color\[1\] is -0\.5; allowed range is \[0, 1\]/,
    );
    expect(() => simulation.addMaterial({ color: new Vector3(0, 0, 1) as never })).toThrow(
      /color is \{X: 0 Y: 0 Z: 1\}, without r, g, b; .*Color3/,
    );
    expect(() => simulation.setColliderTransform(collider, { scaling: new Vector3(1, 2, 1) })).toThrow(
      /only uniform scaling/,
    );
    expect(() => simulation.addCollider({ shape: 'box', min: 'low' as never, max: [1, 1, 1] })).toThrow(FluidError);
  });

  it('work in the plugin: gravity, node emitters, the water and surface colors', async () => {
    const { scene } = createScene();
    const node = new TransformNode('nozzle', scene);
    node.position.set(0.1, 1, 0);
    node.rotationQuaternion = Quaternion.RotationAxis(new Vector3(0, 0, 1), 0.4);
    const created: { fluid: FluidPlugin; emitters: number[] }[] = [];
    for (const babylon of [false, true]) {
      const options: FluidPluginOptions = babylon
        ? { gravity: new Vector3(0, -5, 0), look: { color: new Color3(0.2, 0.4, 0.6) } }
        : { gravity: [0, -5, 0], look: { color: [0.2, 0.4, 0.6] } };
      const fluid = await FluidPlugin.create(scene, {
        particleRadius: 0.03,
        capacity: 500,
        useDeltaTime: false,
        ...options,
      });
      const water = fluid.simulation.addMaterial({});
      const v = (x: number, y: number, z: number) => (babylon ? new Vector3(x, y, z) : ([x, y, z] as const));
      const emitters = [
        fluid.addEmitter({ material: water, node, localPosition: v(0.05, 0, 0), localDirection: v(0, -1, 0.5) }),
        fluid.addEmitter({ material: water, position: v(0, 0.5, 0.1), direction: v(1, 0, 0) }),
      ];
      created.push({ fluid, emitters });
    }
    const [tuples, babylon] = created;
    expect(babylon.fluid.simulation.settings.gravity).toEqual([0, -5, 0]);
    expect(babylon.fluid.gravityFollowsPhysics).toBe(false);
    // Both plugins step in the same scene: the node's emitter is moved by a frame too.
    for (let frame = 0; frame < 5; frame++) scene.render();
    const a = tuples.fluid.simulation.components.Emitter;
    const b = babylon.fluid.simulation.components.Emitter;
    for (const [index, emitter] of tuples.emitters.entries()) {
      const other = babylon.emitters[index];
      for (const field of ['positionX', 'positionY', 'positionZ', 'directionX', 'directionY', 'directionZ'] as const) {
        expect(b[field][other]).toBe(a[field][emitter]);
      }
    }
    expect(a.directionX[tuples.emitters[0]]).toBeGreaterThan(0.1); // the node's rotation reached the emitter
    expect(a.positionX[tuples.emitters[0]]).not.toBeCloseTo(0.1, 3); // and its local offset, turned
    const [left, right] = [tuples.fluid.simulation, babylon.fluid.simulation];
    expect(right.particleCount).toBe(left.particleCount);
    expect(right.particleCount).toBeGreaterThan(0);
    await expect(FluidPlugin.create(scene, { look: { color: new Color3(0, 1.5, 0) } })).rejects.toThrow(
      /look\.color\.g is 1\.5; allowed range is \[0, 1\]/,
    );
    await expect(FluidPlugin.create(scene, { surface: { color: new Color4(0, 0, -1, 1) } })).rejects.toThrow(
      /surface\.color\.b is -1; allowed range is \[0, 1\]/,
    );
    // A Color4 surface color: its r, g, b tint the surface mesh (alpha is the surface option's).
    const surfaceFluid = await FluidPlugin.create(scene, {
      particleRadius: 0.05,
      capacity: 500,
      renderMode: 'surface',
      useDeltaTime: false,
      surface: { color: new Color4(0.4, 0.2, 0.8, 0.1) },
    });
    const material = surfaceFluid.simulation.addMaterial({});
    surfaceFluid.simulation.spawnBlock({ min: [0, 0, 0], max: [0.3, 0.3, 0.3], material });
    scene.render();
    const albedo = (surfaceFluid.surfaceMesh?.material as { albedoColor: Color3 } | undefined)?.albedoColor;
    expect(albedo?.r).toBeCloseTo(0.4 * 0.35, 6);
    expect(albedo?.b).toBeCloseTo(0.8 * 0.35, 6);
  });
});

describe('FluidPlugin as a Babylon object', () => {
  it('has a class name, a name, a unique id and notifies onDisposeObservable once', async () => {
    const { scene } = createScene();
    const first = await FluidPlugin.create(scene, { capacity: 100 });
    const second = await FluidPlugin.create(scene, { capacity: 100, name: 'lava' });
    expect(first.getClassName()).toBe('FluidPlugin');
    expect(first.name).toBe('fluid');
    expect(second.name).toBe('lava');
    expect(Number.isInteger(first.uniqueId)).toBe(true);
    expect(second.uniqueId).not.toBe(first.uniqueId);
    const nextId = scene.getUniqueId();
    expect(nextId).toBeGreaterThan(second.uniqueId);
    await expect(FluidPlugin.create(scene, { name: 7 as never })).rejects.toThrow(/name is 7; it must be a string/);
    const disposed: FluidPlugin[] = [];
    first.onDisposeObservable.add((plugin) => {
      expect(plugin.isDisposed).toBe(true);
      disposed.push(plugin);
    });
    second.onDisposeObservable.add((plugin) => disposed.push(plugin));
    first.dispose();
    first.dispose();
    expect(disposed).toEqual([first]);
    expect(first.onDisposeObservable.hasObservers()).toBe(false);
    scene.dispose(); // disposes the second plugin with the scene
    expect(disposed).toEqual([first, second]);
  });
});

describe("gravity follows the scene's physics engine", () => {
  it("takes Havok's gravity, follows setGravity each frame, and holds a given gravity", async () => {
    const { engine, scene } = await createPhysicsScene(60, -3);
    engines.push(engine);
    const fluid = await FluidPlugin.create(scene, { particleRadius: 0.05, capacity: 100 });
    const fixed = await FluidPlugin.create(scene, { particleRadius: 0.05, capacity: 100, gravity: [0, -9.81, 0] });
    expect(fluid.gravityFollowsPhysics).toBe(true);
    expect(fixed.gravityFollowsPhysics).toBe(false);
    expect(fluid.simulation.settings.gravity).toEqual([0, -3, 0]);
    expect(fixed.simulation.settings.gravity).toEqual([0, -9.81, 0]);
    // One particle in free fall (no collider, no neighbour): its velocity is gravity times time.
    const water = fluid.simulation.addMaterial({});
    const [particle] = fluid.simulation.spawnBlock({ min: [0, 1, 0], max: [0.1, 1.1, 0.1], material: water });
    const timeStep = fluid.simulation.settings.timeStep;
    for (let frame = 0; frame < 10; frame++) scene.render();
    expect(fluid.simulation.stats.stepCount).toBe(10);
    const { Velocity } = fluid.simulation;
    expect(Velocity.y[particle]).toBeCloseTo(-3 * 10 * timeStep, 9);
    const physicsEngine = scene.getPhysicsEngine();
    if (!physicsEngine) throw new Error('no physics engine');
    physicsEngine.setGravity(new Vector3(2, -3, 0));
    for (let frame = 0; frame < 5; frame++) scene.render();
    expect(fluid.simulation.settings.gravity).toEqual([2, -3, 0]);
    expect(Velocity.x[particle]).toBeCloseTo(2 * 5 * timeStep, 9);
    expect(Velocity.y[particle]).toBeCloseTo(-3 * 15 * timeStep, 9);
    expect(fixed.simulation.settings.gravity).toEqual([0, -9.81, 0]);
    // Switched off, game code owns settings.gravity again.
    fluid.gravityFollowsPhysics = false;
    fluid.simulation.settings.gravity[0] = 0;
    scene.render();
    expect(fluid.simulation.settings.gravity).toEqual([0, -3, 0]);
  });

  it('keeps the default [0, -9.81, 0] in a scene without physics', async () => {
    const { scene } = createScene();
    const fluid = await FluidPlugin.create(scene, { capacity: 100 });
    expect(fluid.gravityFollowsPhysics).toBe(true);
    scene.render();
    expect(fluid.simulation.settings.gravity).toEqual([0, -9.81, 0]);
  });
});

describe('renderingGroupId and layerMask', () => {
  it('are carried by the meshes of every view, made before and after a change', async () => {
    const { scene } = createScene();
    const fluid = await FluidPlugin.create(scene, {
      particleRadius: 0.05,
      capacity: 1000,
      useDeltaTime: false,
      renderMode: 'points',
      renderingGroupId: 2,
      layerMask: 0x10000000,
    });
    const water = fluid.simulation.addMaterial({});
    fluid.simulation.spawnBlock({ min: [0, 0, 0], max: [0.3, 0.3, 0.3], material: water });
    const meshes = () =>
      [...fluid.debugMeshes, fluid.surfaceMesh, fluid.splatMesh].filter((mesh) => mesh !== undefined);
    const seen = new Set<string>();
    for (const mode of ['points', 'spheres', 'surface', 'splats'] as const) {
      fluid.renderMode = mode;
      scene.render();
      for (const mesh of meshes()) {
        seen.add(mesh.name);
        expect([mesh.name, mesh.renderingGroupId, mesh.layerMask]).toEqual([mesh.name, 2, 0x10000000]);
      }
    }
    expect([...seen].sort()).toEqual(['fluidPoints', 'fluidSpheres', 'fluidSplats', 'fluidSurface']);
    // A change reaches the meshes that exist (splats, points, spheres) and the ones made later (surface).
    fluid.renderingGroupId = 1;
    fluid.layerMask = 0x00000003;
    for (const mesh of meshes()) expect([mesh.renderingGroupId, mesh.layerMask]).toEqual([1, 3]);
    fluid.renderMode = 'surface';
    scene.render();
    expect([fluid.surfaceMesh?.renderingGroupId, fluid.surfaceMesh?.layerMask]).toEqual([1, 3]);
    expect(fluid.renderingGroupId).toBe(1);
    expect(fluid.layerMask).toBe(3);
    expect(() => {
      fluid.renderingGroupId = 4;
    }).toThrow(/renderingGroupId is 4; it must be an integer in \[0, 3\]/);
    expect(() => {
      fluid.layerMask = -1;
    }).toThrow(/layerMask is -1; it must be an integer in \[0, 4294967295\]/);
    await expect(FluidPlugin.create(scene, { renderingGroupId: 1.5 })).rejects.toThrow(/renderingGroupId is 1\.5/);
    await expect(FluidPlugin.create(scene, { layerMask: 2 ** 32 })).rejects.toThrow(/layerMask is 4294967296/);
  });

  it("hide the screen-space water from a camera whose layerMask excludes the plugin's", async () => {
    // Babylon's FluidRenderer needs float render targets, which a NullEngine lacks: a stand-in records what
    // the view asks of it (the plugin's code path is the same). The water's anisotropic particles (the
    // default) put their own render object in the stand-in's entry; its count is read from there.
    const { scene, camera } = createScene();
    let standInDrawn = -1;
    const target = { camera, environmentMap: null as unknown, fluidColor: undefined as Color3 | undefined };
    const renderObject = {
      object: {
        vertexBuffers: {},
        priority: 0,
        onParticleSizeChanged: new Observable<unknown>(),
        setNumParticles: (count: number) => {
          standInDrawn = count;
        },
      } as { vertexBuffers: object; setNumParticles(count: number): void; numParticles?: number },
      targetRenderer: target,
    };
    const standIn = {
      renderObjects: [] as unknown[],
      addCustomParticles: () => {
        standIn.renderObjects.push(renderObject);
        return renderObject;
      },
      removeRenderObject: () => standIn.renderObjects.splice(0),
    };
    (scene as unknown as { enableFluidRenderer: () => unknown }).enableFluidRenderer = () => standIn;
    camera.layerMask = 0x0fffffff;
    const fluid = await FluidPlugin.create(scene, {
      particleRadius: 0.05,
      capacity: 1000,
      useDeltaTime: false,
      renderMode: 'fluid',
      layerMask: 0x10000000,
      look: { environmentMap: null, color: new Color4(0.1, 0.2, 0.3, 1) },
    });
    const water = fluid.simulation.addMaterial({});
    fluid.simulation.spawnBlock({ min: [0, 0, 0], max: [0.3, 0.3, 0.3], material: water });
    scene.render();
    // The count the render object draws: the anisotropic particles' (numParticles), else the stand-in's.
    const drawn = () => renderObject.object.numParticles ?? standInDrawn;

    expect(fluid.fluidRenderObject?.object.getClassName?.()).toBe('EllipsoidParticles');
    expect(fluid.particleBuffers.count).toBeGreaterThan(0);
    expect(drawn()).toBe(0);
    expect([target.fluidColor?.r, target.fluidColor?.g, target.fluidColor?.b]).toEqual([0.1, 0.2, 0.3]);
    fluid.layerMask = 0x0fffffff;
    scene.render();
    expect(drawn()).toBe(fluid.particleBuffers.count);
    camera.layerMask = 0x10000000;
    scene.render();
    expect(drawn()).toBe(0);
  });
});
