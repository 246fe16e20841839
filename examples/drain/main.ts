/**
 * A full tank empties through a plughole: a drain region at the bottom removes every particle that
 * enters it, and the water swirls down. Space opens and closes the plughole (editing the drain's
 * `enabled` component), R refills the tank. Uses only the public API of the library.
 */
import { StandardMaterial } from '@babylonjs/core/Materials/standardMaterial';
import { Color3 } from '@babylonjs/core/Maths/math.color';
import { Vector3 } from '@babylonjs/core/Maths/math.vector';
import { CreateDisc } from '@babylonjs/core/Meshes/Builders/discBuilder';
import { FluidPlugin } from '../../src';
import {
  createEngine,
  createGlassTank,
  createOrbitCamera,
  createStudioScene,
  createTuningPanel,
  readParameters,
  showStats,
  startExample,
} from '../shared/exampleKit';

const parameters = readParameters();
const small = parameters.particles === 'small';
const engine = await createEngine(parameters);
const scene = createStudioScene(engine, 5, 0.2);

const camera = createOrbitCamera(scene, -Math.PI / 2.4, Math.PI / 3.2, 2.0, new Vector3(0, 0.25, 0));

// The tank, on 0.1 m feet so the plughole shows below it.
const TANK = { min: [-0.5, 0, -0.35], max: [0.5, 0.7, 0.35] } as const;
createGlassTank(scene, TANK.min, TANK.max);
const plughole = CreateDisc('plughole', { radius: 0.07, tessellation: 32 }, scene);
plughole.rotation.x = Math.PI / 2;
plughole.position.set(0.25, 0.002, 0);
const dark = new StandardMaterial('dark', scene);
dark.diffuseColor = new Color3(0.08, 0.08, 0.1);
dark.specularColor = new Color3(0.3, 0.3, 0.3);
plughole.material = dark;

const fluid = await FluidPlugin.create(scene, {
  particleRadius: small ? 0.035 : 0.022,
  capacity: small ? 2000 : 9000,
  renderMode: parameters.renderMode,
});
const water = fluid.simulation.addMaterial({ color: [0.25, 0.55, 0.95], vorticity: 0.03 });
fluid.simulation.addCollider({ shape: 'box', min: TANK.min, max: TANK.max, container: true });
const radius = fluid.simulation.settings.particleRadius;
// The plughole: a drain box over the disc, one particle layer deep.
const drain = fluid.addDrain({ min: [0.18, -0.1, -0.07], max: [0.32, 1.5 * radius, 0.07] });
const Drain = fluid.simulation.components.Drain;

function refill(): void {
  for (const eid of fluid.simulation.particles()) fluid.simulation.removeParticle(eid);
  fluid.spawn({ shape: 'box', min: [-0.5, 0, -0.35], max: [0.5, 0.4, 0.35], material: water });
}
refill();

window.addEventListener('keydown', (event) => {
  if (event.key === ' ') Drain.enabled[drain] = Drain.enabled[drain] ? 0 : 1;
  if (event.key === 'r' || event.key === 'R') refill();
});
let drained = 0;
fluid.onParticlesRemovedObservable.add((ids) => {
  drained += ids.length;
});
if (parameters.panel) createTuningPanel(scene, fluid, water);
showStats(engine, scene, fluid, () => `drained ${drained}${Drain.enabled[drain] ? '' : ' (closed)'}`);
startExample(engine, scene, camera, fluid, () => ({ drained, remaining: fluid.simulation.particleCount }));
