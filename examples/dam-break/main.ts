/**
 * Dam break: a block of water released in a glass tank runs into a stone. The FluidPlugin steps the
 * simulation from the render loop and draws it with Babylon's screen-space fluid renderer; the debug pane
 * (the button at the top right) tunes the material and the solver live. Uses only the public API of the
 * library.
 *
 * `?solver=pbf` (default), `?solver=sph` (weakly compressible SPH) or `?solver=mps` picks the solver. Each
 * runs on the WebGPU backend with `?engine=webgpu` (the plugin's 'auto' backend) and on the CPU with the
 * default WebGL2 engine. compare.html shows
 * the three side by side (and passes its `?engine=` on to all three).
 */
import { StandardMaterial } from '@babylonjs/core/Materials/standardMaterial';
import { Color3 } from '@babylonjs/core/Maths/math.color';
import { Vector3 } from '@babylonjs/core/Maths/math.vector';
import { CreateSphere } from '@babylonjs/core/Meshes/Builders/sphereBuilder';
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
/** The `?solver=` switch: 'pbf' (default), 'sph' or 'mps'. */
const solver = parameters.solver;
const engine = await createEngine(parameters);
const scene = createStudioScene(engine);

const camera = createOrbitCamera(scene, -Math.PI / 2.5, Math.PI / 3, 3.1, new Vector3(1.0, 0.3, 0.4));

// The glass tank (2 x 1.2 x 0.8 m) and the stone the wave hits.
createGlassTank(scene, [0, 0, 0], [2.0, 1.2, 0.8], 0.08);
const stone = CreateSphere('stone', { diameter: 0.36, segments: 24 }, scene);
stone.position.set(1.3, 0.15, 0.4);
const stoneMaterial = new StandardMaterial('stoneMaterial', scene);
stoneMaterial.diffuseColor = new Color3(0.55, 0.5, 0.45);
stone.material = stoneMaterial;

const fluid = await FluidPlugin.create(scene, {
  ...lookOptions(parameters),
  particleRadius: small ? 0.04 : 0.025,
  capacity: 12000,
  renderMode: parameters.renderMode,
  solver,
  // White water (spray, foam, bubbles) with PBF and WCSPH; MPS has none.
  ...(solver === 'mps' ? {} : whiteWaterOptions(parameters, 36000)),
});
const water = fluid.simulation.addMaterial({ color: [0.25, 0.55, 0.95] });
fluid.simulation.addCollider({ shape: 'box', min: [0, 0, 0], max: [2.0, 1.2, 0.8], container: true });
fluid.simulation.addCollider({ shape: 'sphere', center: [1.3, 0.15, 0.4], radius: 0.18 });

function reset(): void {
  for (const eid of fluid.simulation.particles()) fluid.simulation.removeParticle(eid);
  fluid.spawn({ shape: 'box', min: [0, 0, 0], max: [0.7, 0.9, 0.8], material: water });
}
reset();

window.addEventListener('keydown', (event) => {
  if (event.key === 'r' || event.key === 'R') reset();
  if (event.key === 'p' || event.key === 'P') fluid.paused = !fluid.paused;
});
const pane = createDebugPane(parameters, fluid, { [water]: 'water' });
showStats(engine, scene, fluid, () => `solver ${solver}, ${fluid.simulation.stats.solverSubsteps} substeps`);
startExample(
  engine,
  scene,
  camera,
  fluid,
  () => {
    let front = 0;
    for (const eid of fluid.simulation.particles()) front = Math.max(front, fluid.simulation.Position.x[eid]);
    return { front };
  },
  pane,
);
