/**
 * FluidPlugin on a NullEngine: the backend choice ('auto' runs the CPU there, 'webgpu' is refused),
 * scheduling (one step per render, accumulator cap, pause, time scale, no step before the simulation is
 * ready, errors reported instead of thrown), events, disposal, Babylon meshes as colliders on their world
 * pose, emitters following nodes, and the debug views' buffers.
 */
import { FreeCamera } from '@babylonjs/core/Cameras/freeCamera.js';
import { NullEngine } from '@babylonjs/core/Engines/nullEngine.js';
import { Quaternion, Vector3 } from '@babylonjs/core/Maths/math.vector.js';
import { CreateBox } from '@babylonjs/core/Meshes/Builders/boxBuilder.js';
import type { Mesh } from '@babylonjs/core/Meshes/mesh.js';
import { TransformNode } from '@babylonjs/core/Meshes/transformNode.js';
import { Scene } from '@babylonjs/core/scene.js';
import { afterEach, describe, expect, it } from 'vitest';
import { FluidError, FluidPlugin, type FluidPluginOptions, FluidSimulation } from '../src';
import { bakeSignedDistanceField } from '../src/systems/sdf/bake';

const engines: NullEngine[] = [];

function createScene(): { engine: NullEngine; scene: Scene } {
  const engine = new NullEngine();
  engines.push(engine);
  const scene = new Scene(engine);
  new FreeCamera('camera', new Vector3(0, 1, -3), scene);
  return { engine, scene };
}

afterEach(() => {
  for (const engine of engines.splice(0)) engine.dispose();
});

/** A small settled-ish scene: a block of water in a box container. */
async function createWaterPlugin(scene: Scene, options: FluidPluginOptions = {}): Promise<FluidPlugin> {
  const fluid = await FluidPlugin.create(scene, { particleRadius: 0.05, capacity: 2000, ...options });
  const water = fluid.simulation.addMaterial({});
  fluid.simulation.addCollider({ shape: 'box', min: [0, 0, 0], max: [1, 1, 0.4], container: true });
  fluid.simulation.spawnBlock({ min: [0, 0, 0], max: [0.4, 0.6, 0.4], material: water });
  return fluid;
}

function positionsOf(simulation: FluidSimulation): number[] {
  const result: number[] = [];
  const ids = Array.from(simulation.particles()).sort((a, b) => a - b);
  for (const eid of ids)
    result.push(simulation.Position.x[eid], simulation.Position.y[eid], simulation.Position.z[eid]);
  return result;
}

describe('FluidPlugin scheduling', () => {
  it('renders nothing by default on a NullEngine and steps once per scene.render() without delta time', async () => {
    const { scene } = createScene();
    const fluid = await createWaterPlugin(scene, { useDeltaTime: false });
    expect(fluid.renderMode).toBe('none');
    const reference = new FluidSimulation({ particleRadius: 0.05, capacity: 2000 });
    const water = reference.addMaterial({});
    reference.addCollider({ shape: 'box', min: [0, 0, 0], max: [1, 1, 0.4], container: true });
    reference.spawnBlock({ min: [0, 0, 0], max: [0.4, 0.6, 0.4], material: water });
    for (let frame = 1; frame <= 5; frame++) {
      scene.render();
      reference.step();
      expect(fluid.simulation.stats.stepCount).toBe(frame);
      expect(fluid.stepsLastFrame).toBe(1);
    }
    expect(positionsOf(fluid.simulation)).toEqual(positionsOf(reference));
  });

  it('accumulates frame time in fixed steps and caps a slow frame at maxStepsPerFrame', async () => {
    const { engine, scene } = createScene();
    const fluid = await createWaterPlugin(scene, { maxStepsPerFrame: 3 });
    let deltaMilliseconds = 25;
    engine.getDeltaTime = () => deltaMilliseconds;
    const steps: number[] = [];
    for (let frame = 0; frame < 6; frame++) {
      scene.render();
      steps.push(fluid.stepsLastFrame);
    }
    // 6 x 25 ms = 150 ms = 9 steps of 1/60 s, spread 1, 1, 2, 1, 2, 2 by the carried remainder.
    expect(steps.reduce((sum, count) => sum + count, 0)).toBe(9);
    expect(Math.max(...steps)).toBeLessThanOrEqual(2);
    expect(fluid.droppedTime).toBe(0);
    deltaMilliseconds = 250; // a 15-step frame
    scene.render();
    expect(fluid.stepsLastFrame).toBe(3);
    expect(fluid.droppedTime).toBeCloseTo(12 / 60, 9);
    expect(fluid.simulation.stats.stepCount).toBe(12);
  });

  it('pauses, and scales time', async () => {
    const { engine, scene } = createScene();
    const fluid = await createWaterPlugin(scene, { useDeltaTime: false, paused: true });
    for (let frame = 0; frame < 3; frame++) scene.render();
    expect(fluid.simulation.stats.stepCount).toBe(0);
    fluid.paused = false;
    fluid.timeScale = 0.5;
    for (let frame = 0; frame < 6; frame++) scene.render();
    expect(fluid.simulation.stats.stepCount).toBe(3); // one fixed step every other render
    fluid.useDeltaTime = true;
    fluid.timeScale = 2;
    engine.getDeltaTime = () => 1000 / 60;
    for (let frame = 0; frame < 4; frame++) scene.render();
    expect(fluid.simulation.stats.stepCount).toBe(3 + 8);
    expect(() => {
      fluid.timeScale = -1;
    }).toThrow(FluidError);
    expect(() => {
      fluid.maxStepsPerFrame = 0;
    }).toThrow(FluidError);
  });

  it('notifies after each step and dispose removes its observers and views', async () => {
    const { scene } = createScene();
    const observersBefore = scene.onBeforeRenderObservable.observers.length;
    const fluid = await createWaterPlugin(scene, { useDeltaTime: false, renderMode: 'spheres' });
    let notified = 0;
    fluid.onAfterStepObservable.add((plugin) => {
      expect(plugin).toBe(fluid);
      notified++;
    });
    scene.render();
    scene.render();
    expect(notified).toBe(2);
    expect(scene.onBeforeRenderObservable.observers.length).toBe(observersBefore + 1);
    const meshCount = scene.meshes.length;
    expect(fluid.debugMeshes.length).toBe(1);
    fluid.dispose();
    await new Promise((resolve) => setTimeout(resolve, 0)); // Babylon removes observers on the next tick
    expect(scene.onBeforeRenderObservable.observers.length).toBe(observersBefore);
    expect(scene.meshes.length).toBe(meshCount - 1);
    expect(fluid.onAfterStepObservable.hasObservers()).toBe(false);
    scene.render();
    expect(fluid.simulation.stats.stepCount).toBe(2);
    fluid.dispose(); // twice is fine
  });
});

describe('FluidPlugin backend', () => {
  it("picks the CPU backend for 'auto' on a NullEngine and reports it", async () => {
    const { scene } = createScene();
    const fluid = await createWaterPlugin(scene, { useDeltaTime: false });
    expect(fluid.backend).toBe('cpu');
    expect(fluid.simulation.backend).toBe('cpu');
    expect(fluid.simulation.settings.backend).toBe('cpu');
    expect(fluid.simulation.stats.backend).toBe('cpu');
    expect(fluid.isReady).toBe(true);
    await fluid.ready();
    scene.render();
    await fluid.readback(); // at once on the CPU
    const eid = fluid.simulation.particles()[0];
    fluid.simulation.Velocity.y[eid] = 1;
    fluid.markParticlesChanged(eid);
    expect(() => fluid.markParticlesChanged(100000)).toThrow(FluidError);
    expect(fluid.particleBuffers.gpuPositions).toBeUndefined();
    const cpu = await createWaterPlugin(createScene().scene, { backend: 'cpu' });
    expect(cpu.backend).toBe('cpu');
  });

  it("rejects backend 'webgpu' on a NullEngine with a FluidError naming the engine", async () => {
    const { scene } = createScene();
    const attempt = FluidPlugin.create(scene, { backend: 'webgpu' });
    await expect(attempt).rejects.toThrow(FluidError);
    await expect(attempt).rejects.toThrow(/NullEngine/);
    await expect(FluidPlugin.create(scene, { backend: 'gpu' as never })).rejects.toThrow(/backend is 'gpu'/);
    expect(scene.onBeforeRenderObservable.observers.length).toBe(0);
  });

  it('does not step before the simulation is ready, and reports errors of a frame instead of throwing', async () => {
    const { scene } = createScene();
    const fluid = await createWaterPlugin(scene, { useDeltaTime: false, renderMode: 'points' });
    let ready = false;
    Object.defineProperty(fluid.simulation, 'isReady', { get: () => ready, configurable: true });
    scene.render();
    scene.render();
    expect(fluid.simulation.stats.stepCount).toBe(0);
    expect(fluid.particleBuffers.count).toBe(fluid.simulation.particleCount); // drawn while waiting
    ready = true;
    scene.render();
    expect(fluid.simulation.stats.stepCount).toBe(1);
    const errors: Error[] = [];
    fluid.onErrorObservable.add((error) => errors.push(error));
    const eid = fluid.simulation.particles()[3];
    fluid.simulation.Position.x[eid] = Number.NaN;
    expect(() => scene.render()).not.toThrow();
    expect(errors.length).toBe(1);
    expect(errors[0]).toBeInstanceOf(FluidError);
    expect(errors[0].message).toMatch(/Position/);
    expect(fluid.simulation.stats.stepCount).toBe(1);
    fluid.simulation.Position.x[eid] = 0.2;
    scene.render();
    expect(fluid.simulation.stats.stepCount).toBe(2);
    expect(errors.length).toBe(1);
  });

  it('forwards backend changes of the simulation and stops listening when disposed', async () => {
    const { scene } = createScene();
    const fluid = await createWaterPlugin(scene);
    const changes: string[] = [];
    fluid.onBackendChangedObservable.add((change) => changes.push(`${change.backend}:${change.reason}`));
    expect(fluid.simulation.onBackendChanged.size).toBe(1);
    for (const listener of fluid.simulation.onBackendChanged) listener({ backend: 'cpu', reason: 'device-lost' });
    expect(changes).toEqual(['cpu:device-lost']);
    fluid.dispose();
    expect(fluid.simulation.onBackendChanged.size).toBe(0);
    expect(fluid.onBackendChangedObservable.hasObservers()).toBe(false);
  });
});

describe('FluidPlugin debug views', () => {
  it('feeds positions and colors of every particle to the sphere and point views, switchable at run time', async () => {
    const { scene } = createScene();
    const fluid = await createWaterPlugin(scene, { useDeltaTime: false, renderMode: 'spheres', colorBy: 'speed' });
    scene.render();
    const buffers = fluid.particleBuffers;
    const simulation = fluid.simulation;
    expect(buffers.count).toBe(simulation.particleCount);
    const eid = buffers.ids[7];
    expect(buffers.positions[21]).toBeCloseTo(simulation.Position.x[eid], 5);
    expect(buffers.positions[22]).toBeCloseTo(simulation.Position.y[eid], 5);
    expect(buffers.matrices?.[16 * 7 + 13]).toBeCloseTo(simulation.Position.y[eid], 5);
    expect(buffers.matrices?.[16 * 7]).toBeCloseTo(0.1, 6); // the particle diameter
    const spheres = fluid.debugMeshes[0] as Mesh;
    expect(spheres.thinInstanceCount).toBe(simulation.particleCount);
    fluid.colorBy = 'material';
    fluid.renderMode = 'points';
    expect(spheres.isEnabled()).toBe(false);
    const points = fluid.debugMeshes.find((mesh) => mesh.name === 'fluidPoints') as Mesh;
    expect(points.isEnabled()).toBe(true);
    expect(points.subMeshes[0].verticesCount).toBe(simulation.particleCount);
    expect(buffers.colors[4 * 7 + 2]).toBeCloseTo(0.9, 5); // default material blue
    fluid.renderMode = 'none';
    expect(points.isEnabled()).toBe(false);
    expect(() => {
      fluid.renderMode = 'wireframe' as never;
    }).toThrow(FluidError);
  });
});

describe('FluidPlugin white water', () => {
  it('draws the diffuse particles as one instance each, in every mode but none, with a checked look', async () => {
    const { scene } = createScene();
    const plain = await createWaterPlugin(scene, { useDeltaTime: false });
    expect(plain.whiteWater).toBeUndefined();
    expect(plain.whiteWaterMesh).toBeUndefined();
    const fluid = await createWaterPlugin(scene, {
      useDeltaTime: false,
      renderMode: 'points',
      diffuse: { capacity: 100 },
      whiteWater: { bubbleOpacity: 0.3 },
    });
    expect(fluid.whiteWater).toEqual({
      visible: true,
      size: 0.05,
      color: [1, 1, 1],
      sprayOpacity: 0.9,
      foamOpacity: 0.85,
      bubbleOpacity: 0.3,
    });
    // Three spray particles high above the water (they fall one step before they are drawn).
    const pool = fluid.simulation.diffuseParticles;
    pool.count = 3;
    for (let d = 0; d < 3; d++) {
      pool.positionX[d] = 0.5;
      pool.positionY[d] = 0.9;
      pool.positionZ[d] = 0.1 * d;
      pool.lifetime[d] = 3;
      pool.material[d] = fluid.simulation.components.Particle.material[fluid.simulation.particles()[0]];
    }
    scene.render();
    const mesh = fluid.whiteWaterMesh as Mesh;
    expect(mesh.isEnabled()).toBe(true);
    expect(mesh.forcedInstanceCount).toBe(3);
    fluid.whiteWater!.visible = false;
    scene.render();
    expect(mesh.isEnabled()).toBe(false);
    fluid.whiteWater!.visible = true;
    // A bad live value is reported by the frame (never thrown into the render loop), naming it.
    const errors: string[] = [];
    fluid.onErrorObservable.add((error) => errors.push(error.message));
    fluid.whiteWater!.sprayOpacity = 3;
    scene.render();
    expect(errors.some((message) => /whiteWater\.sprayOpacity is 3/.test(message))).toBe(true);
    fluid.whiteWater!.sprayOpacity = 0.9;
    fluid.renderMode = 'none';
    expect(mesh.isEnabled()).toBe(false);
    fluid.renderMode = 'points';
    expect(mesh.isEnabled()).toBe(true);
    await expect(FluidPlugin.create(scene, { diffuse: { capacity: 10 }, whiteWater: { size: -1 } })).rejects.toThrow(
      /whiteWater\.size is -1/,
    );
    await expect(
      FluidPlugin.create(scene, { diffuse: { capacity: 10 }, whiteWater: { foamOpacity: 2 } }),
    ).rejects.toThrow(/whiteWater\.foamOpacity is 2; .*\[0, 1\]/);
    await expect(FluidPlugin.create(scene, { whiteWater: { shade: 1 } as never })).rejects.toThrow(FluidError);
  });
});

/** Quaternion [x, y, z, w] of a rotation by `angle` about the unit `axis`, computed without Babylon. */
function axisAngle(axis: [number, number, number], angle: number): [number, number, number, number] {
  const s = Math.sin(angle / 2);
  return [axis[0] * s, axis[1] * s, axis[2] * s, Math.cos(angle / 2)];
}

describe('FluidPlugin mesh colliders', () => {
  it('keeps a mesh collider on the world pose of a translated, rotated, scaled and moving mesh', async () => {
    const { scene } = createScene();
    const options = { particleRadius: 0.04, capacity: 2000, useDeltaTime: false } as const;
    const fluid = await FluidPlugin.create(scene, options);
    const water = fluid.simulation.addMaterial({});
    fluid.simulation.addCollider({ shape: 'box', min: [-1, 0, -0.5], max: [1, 2, 0.5], container: true });
    fluid.simulation.spawnBlock({ min: [-0.3, 0.9, -0.2], max: [0.3, 1.3, 0.2], material: water });
    // A slab tilted by 0.3 rad about z, scaled 1.5x, that the block falls on; it slides along x.
    const slab = CreateBox('slab', { width: 1.2, height: 0.1, depth: 0.5 }, scene);
    const axis: [number, number, number] = [0, 0, 1];
    slab.rotationQuaternion = Quaternion.RotationAxis(new Vector3(...axis), 0.3);
    slab.scaling.setAll(1.5);
    slab.position.set(0.05, 0.5, 0);
    let progress = -1;
    const collider = await fluid.addMeshCollider(slab, { resolution: 24, onProgress: (f) => (progress = f) });
    expect(progress).toBe(1);

    // The same scene through raw simulation calls, with the pose computed by hand.
    const reference = new FluidSimulation({ particleRadius: 0.04, capacity: 2000 });
    const referenceWater = reference.addMaterial({});
    reference.addCollider({ shape: 'box', min: [-1, 0, -0.5], max: [1, 2, 0.5], container: true });
    reference.spawnBlock({ min: [-0.3, 0.9, -0.2], max: [0.3, 1.3, 0.2], material: referenceWater });
    const field = fluid.simulation.fields[fluid.simulation.components.Collider.field[collider]];
    expect(field).toBeDefined();
    if (field === undefined) return;
    const referenceCollider = reference.addCollider({ shape: 'mesh', field });
    const rotation = axisAngle(axis, 0.3);
    reference.setColliderTransform(referenceCollider, {
      position: [0.05, 0.5, 0],
      rotation,
      scaling: 1.5,
      teleport: true,
    });
    for (let frame = 0; frame < 30; frame++) {
      slab.position.x = 0.05 + 0.005 * frame;
      scene.render();
      reference.setColliderTransform(referenceCollider, { position: [0.05 + 0.005 * frame, 0.5, 0], rotation });
      reference.step();
    }
    const pluginPositions = positionsOf(fluid.simulation);
    const referencePositions = positionsOf(reference);
    expect(pluginPositions.length).toBe(referencePositions.length);
    let largest = 0;
    for (let k = 0; k < pluginPositions.length; k++) {
      largest = Math.max(largest, Math.abs(pluginPositions[k] - referencePositions[k]));
    }
    expect(largest).toBeLessThan(1e-5); // float32 rounding of Babylon's matrices only
    // And the fluid did land on the slab: most of it is still above the slab's lower end (y = 0.23).
    let above = 0;
    for (let k = 1; k < pluginPositions.length; k += 3) if (pluginPositions[k] > 0.2) above++;
    expect(above / (pluginPositions.length / 3)).toBeGreaterThan(0.8);
  });

  it('matches a bake of the world-space triangles (independent of the pose decomposition)', async () => {
    const { scene } = createScene();
    const fluid = await FluidPlugin.create(scene, { particleRadius: 0.04, capacity: 100 });
    const box = CreateBox('box', { width: 0.6, height: 0.2, depth: 0.4 }, scene);
    box.rotationQuaternion = Quaternion.RotationYawPitchRoll(0.4, -0.2, 0.7);
    box.scaling.setAll(0.8);
    box.position.set(0.3, -0.2, 0.5);
    const collider = await fluid.addMeshCollider(box, { resolution: 40 });
    // World-space triangles baked with an identity pose.
    box.computeWorldMatrix(true);
    const local = box.getVerticesData('position') as Float32Array;
    const world = new Float64Array(local.length);
    const point = new Vector3();
    for (let k = 0; k < local.length; k += 3) {
      Vector3.TransformCoordinatesFromFloatsToRef(local[k], local[k + 1], local[k + 2], box.getWorldMatrix(), point);
      world[k] = point.x;
      world[k + 1] = point.y;
      world[k + 2] = point.z;
    }
    const worldField = bakeSignedDistanceField(
      { positions: world, indices: box.getIndices() ?? [] },
      { resolution: 40 },
    );
    // Sample the plugin's collider through its pose: local = R^T (p - t) / s.
    const c = fluid.simulation.components.Collider;
    const field = fluid.simulation.fields[c.field[collider]];
    if (field === undefined) throw new Error('no field');
    const inverse = new Quaternion(
      c.rotationX[collider],
      c.rotationY[collider],
      c.rotationZ[collider],
      c.rotationW[collider],
    );
    inverse.conjugateInPlace();
    const t = new Vector3(c.positionX[collider], c.positionY[collider], c.positionZ[collider]);
    const scale = c.scale[collider];
    expect(scale).toBeCloseTo(0.8, 6);
    let worst = 0;
    for (let sample = 0; sample < 200; sample++) {
      const p = new Vector3(
        0.3 + 0.5 * Math.sin(sample * 1.7),
        -0.2 + 0.3 * Math.sin(sample * 2.3),
        0.5 + 0.4 * Math.cos(sample * 0.9),
      );
      const q = p
        .subtract(t)
        .applyRotationQuaternion(inverse)
        .scale(1 / scale);
      const viaPose = scale * field.sample(q.x, q.y, q.z);
      const viaWorld = worldField.sample(p.x, p.y, p.z);
      if (Math.abs(viaWorld) < 0.15) worst = Math.max(worst, Math.abs(viaPose - viaWorld));
    }
    expect(worst).toBeLessThan(0.01); // two grids of about 1.5 cm cells
  });

  it('caches the field per geometry, removes the collider with the mesh, rejects non-uniform scaling', async () => {
    const { scene } = createScene();
    const fluid = await FluidPlugin.create(scene, { particleRadius: 0.04, capacity: 100, useDeltaTime: false });
    const box = CreateBox('box', { size: 0.5 }, scene);
    const copy = box.clone('copy');
    copy.position.x = 1;
    const first = await fluid.addMeshCollider(box, { resolution: 16 });
    const second = await fluid.addMeshCollider(copy, { resolution: 16 });
    const c = fluid.simulation.components.Collider;
    expect(c.field[first]).toBe(c.field[second]);
    expect(c.positionX[second]).toBeCloseTo(1, 9);
    copy.dispose();
    expect(fluid.simulation.isCollider(second)).toBe(false);
    expect(fluid.simulation.isCollider(first)).toBe(true);
    const stretched = CreateBox('stretched', { size: 0.5 }, scene);
    stretched.scaling.set(1, 2, 1);
    await expect(fluid.addMeshCollider(stretched)).rejects.toThrow(/non-uniform world scaling/);
    box.scaling.set(1, 1, 3);
    // Found by a frame: reported, never thrown into the render loop.
    const errors: Error[] = [];
    fluid.onErrorObservable.add((error) => errors.push(error));
    expect(() => scene.render()).not.toThrow();
    expect(errors[0]).toBeInstanceOf(FluidError);
    expect(errors[0].message).toMatch(/non-uniform world scaling/);
  });
});

describe('FluidPlugin emitters', () => {
  it('keeps an emitter on a moving, rotated TransformNode and reports emitted and removed particles', async () => {
    const { scene } = createScene();
    const fluid = await FluidPlugin.create(scene, { particleRadius: 0.03, capacity: 3000, useDeltaTime: false });
    const water = fluid.simulation.addMaterial({});
    const nozzle = new TransformNode('nozzle', scene);
    nozzle.position.set(0, 1, 0);
    // Turn the node so that its local -Y points along world +X (rotation of +90 degrees about z).
    nozzle.rotationQuaternion = Quaternion.RotationAxis(new Vector3(0, 0, 1), Math.PI / 2);
    const emitter = fluid.addEmitter({ material: water, node: nozzle, speed: 2, radius: 0.05 });
    fluid.addDrain({ min: [0.25, -10, -10], max: [10, 10, 10] });
    const Emitter = fluid.simulation.components.Emitter;
    expect(Emitter.directionX[emitter]).toBeCloseTo(1, 6);
    expect(Emitter.directionY[emitter]).toBeCloseTo(0, 6);
    let emitted = 0;
    let removed = 0;
    fluid.onParticlesEmittedObservable.add((ids) => {
      emitted += ids.length;
      for (const eid of ids) expect(fluid.simulation.isParticle(eid)).toBe(true);
    });
    fluid.onParticlesRemovedObservable.add((ids) => {
      removed += ids.length;
    });
    for (let frame = 0; frame < 20; frame++) {
      nozzle.position.z = 0.01 * frame;
      scene.render();
    }
    expect(Emitter.positionZ[emitter]).toBeCloseTo(0.19, 6);
    expect(Emitter.positionY[emitter]).toBeCloseTo(1, 6);
    expect(emitted).toBeGreaterThan(0);
    expect(removed).toBeGreaterThan(0); // the jet reaches the drain at x = 0.25 within 1/3 s
    expect(fluid.simulation.particleCount).toBe(emitted - removed);
    let meanVelocityX = 0;
    for (const eid of fluid.simulation.particles()) meanVelocityX += fluid.simulation.Velocity.x[eid];
    expect(meanVelocityX / fluid.simulation.particleCount).toBeGreaterThan(1);
    fluid.removeEmitter(emitter);
    expect(fluid.simulation.isEmitter(emitter)).toBe(false);
  });
});
