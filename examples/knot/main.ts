/**
 * Water poured over a slowly turning torus knot in a glass tank. The knot is a Babylon mesh with thin,
 * interlaced tubes, baked once into a signed distance field and used as a solid mesh collider that
 * follows the mesh's rotation every frame. Space opens and closes the tap; R restarts (empties the tank,
 * drops the first splash again and opens the tap). Uses only the public API of the library.
 */
import { StandardMaterial } from '@babylonjs/core/Materials/standardMaterial';
import { Color3 } from '@babylonjs/core/Maths/math.color';
import { Vector3 } from '@babylonjs/core/Maths/math.vector';
import { CreateTorusKnot } from '@babylonjs/core/Meshes/Builders/torusKnotBuilder';
import { TransformNode } from '@babylonjs/core/Meshes/transformNode';
import { FluidPlugin } from '../../src';
import {
  createDebugPane,
  createEngine,
  createGlassTank,
  createOrbitCamera,
  createStudioScene,
  lookOptions,
  readParameters,
  showStats,
  startExample,
  whiteWaterOptions,
} from '../shared/exampleKit';

const parameters = readParameters();
const small = parameters.particles === 'small';
const engine = await createEngine(parameters);
const scene = createStudioScene(engine, 5, 0.2);

const camera = createOrbitCamera(scene, -Math.PI / 2.3, Math.PI / 3.1, 2.3, new Vector3(0, 0.4, 0));

// The tank (1.2 x 1.1 x 0.9 m, open at the top in looks, closed for the fluid).
const TANK = { min: [-0.6, 0, -0.45], max: [0.6, 1.1, 0.45] } as const;
createGlassTank(scene, TANK.min, TANK.max);

// The knot: tubes of 4.5 cm radius wound three times, 0.5 m across.
const knot = CreateTorusKnot(
  'knot',
  { radius: 0.2, tube: 0.045, radialSegments: 160, tubularSegments: 16, p: 2, q: 3 },
  scene,
);
knot.position.set(0, 0.42, 0);
knot.rotation.x = Math.PI / 2;
const bronze = new StandardMaterial('bronze', scene);
bronze.diffuseColor = new Color3(0.7, 0.45, 0.25);
bronze.specularColor = new Color3(0.6, 0.5, 0.4);
knot.material = bronze;

const fluid = await FluidPlugin.create(scene, {
  ...lookOptions(parameters),
  particleRadius: small ? 0.03 : 0.018,
  capacity: small ? 1500 : 9000,
  renderMode: parameters.renderMode,
  ...whiteWaterOptions(parameters, small ? 4500 : 27000),
});
const water = fluid.simulation.addMaterial({ color: [0.25, 0.55, 0.95] });
fluid.simulation.addCollider({ shape: 'box', min: TANK.min, max: TANK.max, container: true });
await fluid.addMeshCollider(knot, { resolution: 96 });
const tap = new TransformNode('tap', scene);
tap.position.set(0.05, 1.0, 0.03);
const emitter = fluid.addEmitter({ material: water, node: tap, radius: small ? 0.07 : 0.06, speed: 1 });
const Emitter = fluid.simulation.components.Emitter;

/** Empties the tank, drops a first splash (a ball of water) on the knot and opens the tap. */
function restart(): void {
  for (const eid of fluid.simulation.particles()) fluid.simulation.removeParticle(eid);
  fluid.spawn({ shape: 'sphere', center: [-0.1, 0.85, 0], radius: 0.14, material: water });
  Emitter.enabled[emitter] = 1;
}
restart();

// The knot turns slowly; the collider follows its world matrix and stirs the water.
scene.onBeforeRenderObservable.add(() => {
  if (!fluid.paused) knot.rotation.y += 0.25 * (engine.getDeltaTime() / 1000);
});

window.addEventListener('keydown', (event) => {
  if (event.key === ' ') Emitter.enabled[emitter] = Emitter.enabled[emitter] ? 0 : 1;
  if (event.key === 'r' || event.key === 'R') restart();
});
const pane = createDebugPane(parameters, fluid, { [water]: 'water' });
showStats(engine, scene, fluid);
startExample(
  engine,
  scene,
  camera,
  fluid,
  () => {
    // Lowest particle height: stays above the floor's particle layer only if nothing tunnels through the knot.
    let inside = 0;
    const { Position } = fluid.simulation;
    for (const eid of fluid.simulation.particles()) {
      const dx = Position.x[eid] - knot.position.x;
      const dy = Position.y[eid] - knot.position.y;
      const dz = Position.z[eid] - knot.position.z;
      if (dx * dx + dy * dy + dz * dz < 0.04) inside++;
    }
    return { nearKnot: inside };
  },
  pane,
);
