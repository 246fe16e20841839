/**
 * A lava lamp (Müller, Solenthaler, Keiser and Gross 2005, section 4.2): two immiscible fluids of opposite
 * polarity in a tall glass, a light blue one (750 kg/m^3) over a heavy red one (1000 kg/m^3 at 10 degrees
 * Celsius). A hot floor heats the red fluid, whose rest density follows the temperature (rho0 = alpha / T,
 * eq. 16): once lighter than the blue fluid, blobs of it rise, held together by the interface tension
 * (sigma^i = 1 N/m), cool under the cold plate at the top of the fluid and sink again. Temperature diffuses
 * with c = 0.0001 m^2/s (eq. 14). CPU backend (the WebGPU backend does not implement these terms yet). Uses
 * only the public API.
 *
 * The paper's rho0 = 10000 / T is written in degrees Celsius; in kelvin, alpha = 1000 x 283.15 keeps
 * rho0 = 1000 kg/m^3 at 10 degrees and the red fluid turns lighter than the blue above 378 K. The heater
 * sits at 600 K (472 kg/m^3 there: a heated particle takes up to about twice its cold volume), the cold
 * plate at 283.15 K. The fluid fills the glass to two thirds, leaving room for the red fluid to expand,
 * and the cold plate (a heat-exchanging lid) sits just above the fluid's surface, as the paper cools the
 * top of its lamp. Measured in Node with the small particles (r = 0.02 m, 250 particles): over 15 s the
 * red fluid's mean temperature rises from 283 K to about 420 K, its highest particle climbs from 0.10 m to
 * 0.30-0.35 m (the surface is at 0.4 m), the blue fluid's mean height stays at 0.30 m (the fluids do not
 * mix) and no particle moves faster than 0.85 m/s after the first half second.
 * Particle masses: rest densities 1000 and 750 at the same spacing (the paper uses the ratio 1:2).
 */

import { StandardMaterial } from '@babylonjs/core/Materials/standardMaterial';
import { Color3 } from '@babylonjs/core/Maths/math.color';
import { Vector3 } from '@babylonjs/core/Maths/math.vector';
import { CreateBox } from '@babylonjs/core/Meshes/Builders/boxBuilder';
import { FluidPlugin } from '../../src';
import {
  createEngine,
  createGlassTank,
  createOrbitCamera,
  createStudioScene,
  readParameters,
  showStats,
  startExample,
} from '../shared/exampleKit';

const parameters = readParameters();
const small = parameters.particles === 'small';
const engine = await createEngine(parameters);
const scene = createStudioScene(engine, 3, 0.1);
const camera = createOrbitCamera(scene, -Math.PI / 2, Math.PI / 2.2, 1.3, new Vector3(0, 0.3, 0));

// The lamp's glass: the inside is the box [-HALF, HALF] x [0, HEIGHT] x [-HALF, HALF].
const HALF = 0.1;
const HEIGHT = 0.6;
/** Top of the fluid when filled: two thirds of the glass. */
const FILL = 0.4;
/** Underside of the cold plate, just above the fluid's surface (within the kernel radius of it). */
const PLATE = 0.45;
/** Top of the red layer when filled. */
const RED_TOP = 0.12;
const COLD = 283.15;
const HOT = 600;
/** Heat-transfer rate of the heater and of the cold plate (1/s). */
const HEAT_TRANSFER = 0.5;
createGlassTank(scene, [-HALF, 0, -HALF], [HALF, HEIGHT, HALF]);
const heaterMaterial = new StandardMaterial('heater', scene);
heaterMaterial.diffuseColor = new Color3(0.5, 0.12, 0.05);
heaterMaterial.emissiveColor = new Color3(0.35, 0.06, 0);
const heaterMesh = CreateBox('heater', { width: 2 * HALF + 0.04, height: 0.04, depth: 2 * HALF + 0.04 }, scene);
heaterMesh.position.y = -0.02;
heaterMesh.material = heaterMaterial;
const capMaterial = new StandardMaterial('cap', scene);
capMaterial.diffuseColor = new Color3(0.55, 0.58, 0.62);
const capMesh = CreateBox('cap', { width: 2 * HALF + 0.04, height: 0.04, depth: 2 * HALF + 0.04 }, scene);
capMesh.position.y = PLATE + 0.02;
capMesh.material = capMaterial;

const particleRadius = small ? 0.02 : 0.0125;
const fluid = await FluidPlugin.create(scene, {
  backend: 'cpu',
  particleRadius,
  capacity: small ? 1000 : 2000,
  renderMode: parameters.renderMode ?? 'spheres',
  colorBy: 'material',
});
const simulation = fluid.simulation;
// Section 4.2: opposite polarities, interface tension, temperature diffusion 0.0001, both at 10 degrees.
const shared = { interfaceTension: 1, diffusivity: 0.0001, initialTemperature: COLD, numberDensity: true };
const blue = simulation.addMaterial({ ...shared, restDensity: 750, interfaceColour: -0.5, color: [0.15, 0.3, 0.9] });
const red = simulation.addMaterial({
  ...shared,
  restDensity: 1000, // sets the particle mass (twice the blue one's); the solver uses alpha / T
  temperatureDensity: 1000 * COLD,
  interfaceColour: 0.5,
  color: [0.95, 0.2, 0.1],
});
simulation.addCollider({ shape: 'box', min: [-HALF, 0, -HALF], max: [HALF, HEIGHT, HALF], container: true });
// Heater and cold plate: solids under the glass's floor and just above the fluid's surface that exchange
// heat (the glass already gives the walls' density contribution; the plate is the fluid's lid).
const heater = simulation.addCollider({
  shape: 'box',
  min: [-1, -1, -1],
  max: [1, 0, 1],
  wallWeights: false,
  temperature: HOT,
  heatTransfer: HEAT_TRANSFER,
});
simulation.addCollider({
  shape: 'box',
  min: [-1, PLATE, -1],
  max: [1, PLATE + 1, 1],
  wallWeights: false,
  temperature: COLD,
  heatTransfer: HEAT_TRANSFER,
});

/** Fills the lamp to two thirds: the red fluid at the bottom, the blue one above it. */
function fill(): void {
  for (const eid of simulation.particles()) simulation.removeParticle(eid);
  simulation.spawnBlock({ min: [-HALF, 0, -HALF], max: [HALF, RED_TOP, HALF], material: red });
  simulation.spawnBlock({ min: [-HALF, RED_TOP, -HALF], max: [HALF, FILL, HALF], material: blue });
}
fill();

const Collider = simulation.components.Collider;
window.addEventListener('keydown', (event) => {
  if (event.key === 'h' || event.key === 'H') {
    Collider.heatTransfer[heater] = Collider.heatTransfer[heater] > 0 ? 0 : HEAT_TRANSFER;
  }
  if (event.key === 'r' || event.key === 'R') fill();
});

/**
 * Mean height (m) and temperature (K) of the red fluid, its highest particle (m), the blue fluid's mean
 * height (m) and the fastest particle's speed (m/s).
 */
function measureLamp(): Record<string, number> {
  const { Position, Particle, Temperature, Velocity } = simulation.components;
  let count = 0;
  let height = 0;
  let temperature = 0;
  let highest = 0;
  let blueCount = 0;
  let blueHeight = 0;
  let fastest = 0;
  for (const eid of simulation.particles()) {
    fastest = Math.max(fastest, Math.hypot(Velocity.x[eid], Velocity.y[eid], Velocity.z[eid]));
    if (Particle.material[eid] !== red) {
      blueCount++;
      blueHeight += Position.y[eid];
      continue;
    }
    count++;
    height += Position.y[eid];
    temperature += Temperature[eid];
    highest = Math.max(highest, Position.y[eid]);
  }
  return {
    redHeight: count > 0 ? height / count : 0,
    redTemperature: count > 0 ? temperature / count : 0,
    redHighest: highest,
    blueHeight: blueCount > 0 ? blueHeight / blueCount : 0,
    fastest,
  };
}

showStats(engine, scene, fluid, () => {
  const figures = measureLamp();
  return `red ${figures.redTemperature.toFixed(0)} K at ${figures.redHeight.toFixed(2)} m`;
});
startExample(engine, scene, camera, fluid, measureLamp);
