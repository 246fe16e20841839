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
  createDebugPane,
  createEngine,
  createGlassTank,
  createOrbitCamera,
  createStudioScene,
  lookOptions,
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
  ...lookOptions(parameters),
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

// Particles the last refill put in the tank, and those of the previous fill still waiting to leave.
let filled = 0;
let leaving = 0;
function refill(): void {
  leaving = fluid.simulation.particleCount;
  for (const eid of fluid.simulation.particles()) fluid.simulation.removeParticle(eid);
  filled = fluid.spawn({ shape: 'box', min: [-0.5, 0, -0.35], max: [0.5, 0.4, 0.35], material: water }).length;
}
refill();

window.addEventListener('keydown', (event) => {
  if (event.key === ' ') Drain.enabled[drain] = Drain.enabled[drain] ? 0 : 1;
  if (event.key === 'r' || event.key === 'R') refill();
});
/**
 * Particles drained since the last refill, from the live count: on the WebGPU backend removals happen on
 * the GPU and reach the count with the readbacks (a frame or two later), and removing the previous fill
 * takes effect with the next step, so the old particles still counted are set aside until they are gone.
 */
function drainedCount(): number {
  const count = fluid.simulation.particleCount;
  if (leaving > 0 && count <= filled) leaving = 0;
  return Math.max(0, filled - (count - leaving));
}
const pane = createDebugPane(parameters, fluid, { [water]: 'water' });
showStats(engine, scene, fluid, () => `drained ${drainedCount()}${Drain.enabled[drain] ? '' : ' (closed)'}`);
startExample(
  engine,
  scene,
  camera,
  fluid,
  () => ({ drained: drainedCount(), remaining: fluid.simulation.particleCount }),
  pane,
);
