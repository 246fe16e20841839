/**
 * A lava lamp with the parameters of Müller, Solenthaler, Keiser and Gross 2005, section 4.2: two immiscible
 * fluids of opposite polarity in a tall glass, 4800 blue particles (500 kg/m^3) over 1200 red ones
 * (1000 kg/m^3 at 10 degrees Celsius, twice the blue particle's mass), interface tension sigma^i = 2 N/m
 * (eq. 11) and temperature diffusion c = 0.0001 m^2/s (eq. 14). A heater under the middle of the floor warms
 * the red fluid, whose rest density follows the temperature (rho0 = alpha / T, eq. 16): once lighter than
 * the blue fluid, blobs of it rise in a plume, cool under the cold plate at the top of the fluid and sink
 * again along the walls. Runs on the WebGPU backend where the engine has WebGPU (the full scene's 5880
 * particles need it for interactive rates: about 170 ms a step on one CPU thread), else on the CPU. Uses only
 * the public API.
 *
 * The paper's rho0 = 10000 / T is written in degrees Celsius (1000 kg/m^3 at 10 degrees, 500 at 20); the
 * Temperature component is in kelvin, and rho0 = alpha / T with alpha = 1000 x 283.15 keeps rho0 =
 * 1000 kg/m^3 at 10 degrees: the red fluid turns lighter than the blue above 566 K. The heater (a 0.1 m
 * square under the middle of the floor, the lamp's bulb) sits at 1000 K, the cold plate at 283.15 K just
 * above the fluid's surface. Full scene: r = 0.007 m, 14 x 30 x 14 particles, the paper's counts within 2%
 * (1176 red, 4704 blue). Measured in Node (on one thread, the default until 2026-11-29) with the small
 * particles (r = 0.0125 m, 192 red and 832 blue) and
 * the defaults (2 substeps x 2 iterations with the coarse pressure projection, its surface layers kept, see
 * below): the red fluid first reaches
 * the top after about 16 s; by 50 s, 142 of its 192 particles have been under the cold plate (above 75% of
 * the fill height), and red particles came back down below 30% of it 191 times in all (before the
 * projection, at 2 x 3: 6 s, 130 and 137). The blobs are loose at this resolution: 40-52% of a red
 * particle's neighbours within 3 spacings are red (19% for a uniform mix, 80% at the start), and single
 * particles next to the hottest red ones reach up to 7 m/s (a red particle at 1000 K takes 3.5 times a blue
 * one's volume).
 *
 * The lamp keeps the two cell layers under its surface with the density constraints (`projection: {
 * freeSurface: false }`) instead of the still-water mode: solved up to its surface, under the cold plate 2 cm
 * above it (less than one projection cell of 5 cm), the heated red fluid's first rise comes about 30 steps
 * later on the CPU and 60 on WebGPU (measured with the small particles: its highest particle 0.124 and 0.115 m
 * after 90 steps, against 0.144 and 0.145 m with the layers; 0.165 and 0.153 m against 0.160 and 0.176 m after
 * 180).
 *
 * `?solver=sph` runs it with WCSPH (the defaults: c_s 20 m/s, 10 Pa s). Measured in Node with the small
 * particles: the red fluid warms as with PBF (639 K on average after 40 s, lighter than the blue by 10%) but
 * its layer has not risen by then (its highest particle 0.167 m; 0.171-0.179 m with 4 and 2 Pa s). With the
 * interface tension of 2 N/m a flat interface between fluids 48 kg/m^3 apart is stable against
 * Rayleigh-Taylor fingers narrower than 2 pi sqrt(sigma / (delta rho g)), about 0.4 m, twice the lamp's
 * width, so WCSPH's quiet layer is what the equations predict until the red fluid is much hotter; PBF's plumes
 * start from its noisier interface. At 1 Pa s WCSPH does not settle: the two fluids churn at up to 6 m/s.
 */

import { StandardMaterial } from '@babylonjs/core/Materials/standardMaterial';
import { Color3 } from '@babylonjs/core/Maths/math.color';
import { Vector3 } from '@babylonjs/core/Maths/math.vector';
import { CreateBox } from '@babylonjs/core/Meshes/Builders/boxBuilder';
import { FluidPlugin } from '../../src';
import {
  createDebugPane,
  createEngine,
  createGlassTank,
  createOrbitCamera,
  createStudioScene,
  lookOptions,
  readParameters,
  severalFluidsSolver,
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
const particleRadius = small ? 0.0125 : 0.007;
const spacing = 2 * particleRadius;
/** Particle rows of the filled lamp (about 0.4 m), a fifth of them red (the paper's 1200 of 6000). */
const ROWS = Math.round(0.41 / spacing);
const RED_ROWS = Math.round(ROWS / 5);
/** Top of the fluid when filled: about two thirds of the glass. */
const FILL = ROWS * spacing;
/** Underside of the cold plate, just above the fluid's surface (within the kernel radius of it). */
const PLATE = FILL + 0.02;
/** Top of the red layer when filled. */
const RED_TOP = RED_ROWS * spacing;
const COLD = 283.15;
const HOT = 1000;
/** Half side of the heater under the middle of the floor (m). */
const HEATER_HALF = 0.05;
/** Heat-transfer rates of the heater and of the cold plate (1/s). */
const HEAT_TRANSFER = 1;
const COOLING = 3;
createGlassTank(scene, [-HALF, 0, -HALF], [HALF, HEIGHT, HALF]);
const heaterMaterial = new StandardMaterial('heater', scene);
heaterMaterial.diffuseColor = new Color3(0.5, 0.12, 0.05);
heaterMaterial.emissiveColor = new Color3(0.35, 0.06, 0);
const heaterMesh = CreateBox('heater', { width: 2 * HEATER_HALF, height: 0.04, depth: 2 * HEATER_HALF }, scene);
heaterMesh.position.y = -0.02;
heaterMesh.material = heaterMaterial;
const capMaterial = new StandardMaterial('cap', scene);
capMaterial.diffuseColor = new Color3(0.55, 0.58, 0.62);
const capMesh = CreateBox('cap', { width: 2 * HALF + 0.04, height: 0.04, depth: 2 * HALF + 0.04 }, scene);
capMesh.position.y = PLATE + 0.02;
capMesh.material = capMaterial;

const fluid = await FluidPlugin.create(scene, {
  ...lookOptions(parameters),
  particleRadius,
  capacity: small ? 1100 : 6000,
  projection: { freeSurface: false },
  renderMode: parameters.renderMode ?? 'fluid',
  colorBy: 'material',
  solver: severalFluidsSolver(parameters),
});
const simulation = fluid.simulation;
// Section 4.2: opposite polarities, interface tension, temperature diffusion 0.0001, both at 10 degrees.
const shared = { interfaceTension: 2, diffusivity: 0.0001, initialTemperature: COLD, numberDensity: true };
const blue = simulation.addMaterial({ ...shared, restDensity: 500, interfaceColor: -0.5, color: [0.15, 0.3, 0.9] });
const red = simulation.addMaterial({
  ...shared,
  restDensity: 1000, // sets the particle mass (twice the blue one's); the solver uses alpha / T
  temperatureDensity: 1000 * COLD,
  interfaceColor: 0.5,
  color: [0.95, 0.2, 0.1],
});
simulation.addCollider({ shape: 'box', min: [-HALF, 0, -HALF], max: [HALF, HEIGHT, HALF], container: true });
// Heater and cold plate: solids under the glass's floor and just above the fluid's surface that exchange
// heat (the glass already gives the walls' density contribution; the plate is the fluid's lid).
const heater = simulation.addCollider({
  shape: 'box',
  min: [-HEATER_HALF, -1, -HEATER_HALF],
  max: [HEATER_HALF, 0, HEATER_HALF],
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
  heatTransfer: COOLING,
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
  if (event.key === 'r' || event.key === 'R') {
    fill();
    cooledAtTop.clear();
    sinkings = 0;
  }
});

/** The live particle ids, rewritten each frame (no allocation per frame). */
const ids = new Uint32Array(simulation.settings.capacity);
/** Red particles that have been under the cold plate (above 75% of the fill height) and not yet back down. */
const cooledAtTop = new Set<number>();
/** Times a red particle came back below 30% of the fill height after being under the cold plate. */
let sinkings = 0;
scene.onAfterRenderObservable.add(() => {
  const { Position, Particle } = simulation.components;
  for (const eid of simulation.particles(ids)) {
    if (Particle.material[eid] !== red) continue;
    const y = Position.y[eid];
    if (y > 0.75 * FILL) cooledAtTop.add(eid);
    else if (y < 0.3 * FILL && cooledAtTop.delete(eid)) sinkings++;
  }
});

/**
 * Mean height (m) and temperature (K) of the red fluid, its highest particle (m), the blue fluid's mean
 * height (m), the fastest particle's speed (m/s) and the red particles' round trips (`sinkings`).
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
    sinkings,
  };
}

showStats(engine, scene, fluid, () => {
  const figures = measureLamp();
  return `red ${figures.redTemperature.toFixed(0)} K at ${figures.redHeight.toFixed(2)} m, ${figures.sinkings} sank back`;
});
const pane = createDebugPane(parameters, fluid, { [blue]: 'blue', [red]: 'red' });
startExample(engine, scene, camera, fluid, measureLamp, pane);
