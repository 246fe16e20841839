/**
 * Dam break: a block of water released in a glass tank. WebGL2 engine, CPU backend; particles are drawn as
 * thin instances of a small sphere whose matrices come from the `Position` component each frame, and
 * coloured by speed. Uses only the public API of the library.
 */
import { ArcRotateCamera } from '@babylonjs/core/Cameras/arcRotateCamera';
import { Engine } from '@babylonjs/core/Engines/engine';
import { HemisphericLight } from '@babylonjs/core/Lights/hemisphericLight';
import { StandardMaterial } from '@babylonjs/core/Materials/standardMaterial';
import { Color3, Color4 } from '@babylonjs/core/Maths/math.color';
import { Vector3 } from '@babylonjs/core/Maths/math.vector';
import { CreateBox } from '@babylonjs/core/Meshes/Builders/boxBuilder';
import { CreateSphere } from '@babylonjs/core/Meshes/Builders/sphereBuilder';
import '@babylonjs/core/Meshes/thinInstanceMesh';
import '@babylonjs/core/Rendering/edgesRenderer';
import { Scene } from '@babylonjs/core/scene';
import { FluidSimulation } from '../../src';

const TANK = { min: [0, 0, 0], max: [2.0, 1.2, 0.8] } as const;
const BLOCK = { min: [0, 0, 0], max: [0.7, 0.9, 0.8] } as const;

const canvas = document.getElementById('renderCanvas') as HTMLCanvasElement;
const statsLine = document.getElementById('stats') as HTMLDivElement;
const engine = new Engine(canvas, true, { preserveDrawingBuffer: true });
const scene = new Scene(engine);
scene.clearColor = new Color4(0.06, 0.08, 0.11, 1);

const camera = new ArcRotateCamera('camera', -Math.PI / 2.6, Math.PI / 2.8, 3.2, new Vector3(1.0, 0.35, 0.4), scene);
camera.attachControl(canvas, true);
camera.wheelPrecision = 80;
camera.minZ = 0.01;
new HemisphericLight('light', new Vector3(0.3, 1, -0.4), scene);

// The glass tank: a faint box with drawn edges.
const tank = CreateBox('tank', { width: 2.0, height: 1.2, depth: 0.8 }, scene);
tank.position.set(1.0, 0.6, 0.4);
const glass = new StandardMaterial('glass', scene);
glass.alpha = 0.06;
glass.diffuseColor = new Color3(0.7, 0.85, 1);
tank.material = glass;
tank.enableEdgesRendering();
tank.edgesWidth = 1.5;
tank.edgesColor = new Color4(0.7, 0.85, 1, 0.6);

let simulation: FluidSimulation;
const particleMesh = CreateSphere('particle', { diameter: 1, segments: 4 }, scene);
const particleMaterial = new StandardMaterial('particles', scene);
particleMaterial.specularColor = new Color3(0.3, 0.3, 0.3);
particleMesh.material = particleMaterial;
particleMesh.alwaysSelectAsActiveMesh = true;
let matrices = new Float32Array(0);
let colors = new Float32Array(0);
let particleIds = new Uint32Array(0);

function reset(): void {
  simulation = new FluidSimulation({ particleRadius: 0.025, capacity: 12000 });
  const water = simulation.addMaterial({ color: [0.2, 0.5, 0.95] });
  simulation.addCollider({ shape: 'box', min: TANK.min, max: TANK.max, container: true });
  simulation.addCollider({ shape: 'sphere', center: [1.3, 0.15, 0.4], radius: 0.18 });
  simulation.spawnBlock({ min: BLOCK.min, max: BLOCK.max, material: water });
  const count = simulation.particleCount;
  matrices = new Float32Array(count * 16);
  colors = new Float32Array(count * 4);
  particleIds = new Uint32Array(simulation.settings.capacity);
  const diameter = 2 * simulation.settings.particleRadius;
  for (let k = 0; k < count; k++) {
    matrices[16 * k] = diameter;
    matrices[16 * k + 5] = diameter;
    matrices[16 * k + 10] = diameter;
    matrices[16 * k + 15] = 1;
  }
  particleMesh.thinInstanceSetBuffer('matrix', matrices, 16, false);
  particleMesh.thinInstanceSetBuffer('color', colors, 4, false);
}

// The obstacle the water runs into.
const obstacle = CreateSphere('obstacle', { diameter: 0.36, segments: 24 }, scene);
obstacle.position.set(1.3, 0.15, 0.4);
const stone = new StandardMaterial('stone', scene);
stone.diffuseColor = new Color3(0.55, 0.5, 0.45);
obstacle.material = stone;

reset();
let paused = false;
document.getElementById('reset')?.addEventListener('click', reset);
document.getElementById('pause')?.addEventListener('click', () => {
  paused = !paused;
});
window.addEventListener('keydown', (event) => {
  if (event.key === 'r' || event.key === 'R') reset();
  if (event.key === 'p' || event.key === 'P') paused = !paused;
});

let frame = 0;
scene.onBeforeRenderObservable.add(() => {
  if (!paused) simulation.step();
  const { Position, Velocity } = simulation;
  const ids = simulation.particles(particleIds);
  for (let k = 0; k < ids.length; k++) {
    const eid = ids[k];
    matrices[16 * k + 12] = Position.x[eid];
    matrices[16 * k + 13] = Position.y[eid];
    matrices[16 * k + 14] = Position.z[eid];
    const speed = Math.min(1, Math.hypot(Velocity.x[eid], Velocity.y[eid], Velocity.z[eid]) / 2.5);
    colors[4 * k] = 0.15 + 0.75 * speed;
    colors[4 * k + 1] = 0.4 + 0.55 * speed;
    colors[4 * k + 2] = 0.95;
    colors[4 * k + 3] = 1;
  }
  particleMesh.thinInstanceBufferUpdated('matrix');
  particleMesh.thinInstanceBufferUpdated('color');
  if (frame++ % 10 === 0) {
    const stats = simulation.stats;
    statsLine.textContent =
      `particles ${stats.particleCount} | step ${stats.stepMilliseconds.toFixed(1)} ms ` +
      `(${simulation.settings.substeps} substeps x ${simulation.settings.iterations} iterations) | ` +
      `density error mean ${(100 * stats.meanDensityError).toFixed(2)}% max ${(100 * stats.maxDensityError).toFixed(2)}% | ` +
      `${engine.getFps().toFixed(0)} fps`;
  }
});

engine.runRenderLoop(() => scene.render());
window.addEventListener('resize', () => engine.resize());
(window as unknown as { fluidExample: { scene: Scene; simulation: () => FluidSimulation } }).fluidExample = {
  scene,
  simulation: () => simulation,
};
