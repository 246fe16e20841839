/**
 * Boiling water (Müller, Solenthaler, Keiser and Gross 2005, section 4.4): a beaker of cold water on a hot
 * burner plate. The plate (a collider at 500 K with a heat transfer of 2 1/s) heats the water next to it
 * and the heat diffuses upwards (eq. 14, c = 0.0003 m^2/s). Bubbles form at cavitation sites on the hot
 * surface: a water particle within the kernel radius of the plate that has reached 100 degrees Celsius
 * turns into vapour with a probability of 0.002 per step (the paper uses 0.005 per 6 ms step; less here so
 * the pot lasts), drawn from the simulation's seeded generator. The vapour (100 kg/m^3, drawn as clear bubbles) rises,
 * pushed by the artificial buoyancy of eq. 17 (b = 2: gentler than the paper's 5, the bubbles stay longer),
 * and leaves at the free surface: the water level falls. The status line shows the water and vapour counts
 * and the water's mean temperature. Runs on the WebGPU backend where the engine has
 * WebGPU, else on the CPU. Uses only the public API; the values are components of the materials and of the burner collider.
 *
 * There is no latent heat: the water keeps warming past 373 K while it boils. Measured in headless
 * Chromium (full size, 384 particles): the mean water temperature passes 373 K after a few seconds, 1-5
 * vapour particles are alive at once, and the water count falls by about 10 particles per second. (The
 * test's pot, tests/multifluid-air.test.ts, uses a 700 K plate and p = 0.005: 97 boiled in 3 s.)
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
  showStats,
  startExample,
} from '../shared/exampleKit';

const parameters = readParameters();
const small = parameters.particles === 'small';
const engine = await createEngine(parameters);
const scene = createStudioScene(engine, 3, 0.1);
const camera = createOrbitCamera(scene, -Math.PI / 2, Math.PI / 2.3, 0.6, new Vector3(0, 0.08, 0));

// The beaker: the inside of the box [-HALF, HALF] x [0, HEIGHT] x [-HALF, HALF].
const HALF = 0.08;
const HEIGHT = 0.3;
/** Depth of the water when filled. */
const DEPTH = 0.12;
const COLD = 293.15;
const BOILING = 373.15;
const BURNER = 500;
/** Heat-transfer rate of the burner plate (1/s). */
const HEAT_TRANSFER = 2;
createGlassTank(scene, [-HALF, 0, -HALF], [HALF, HEIGHT, HALF]);
const burnerMaterial = new StandardMaterial('burner', scene);
burnerMaterial.diffuseColor = new Color3(0.5, 0.1, 0.03);
burnerMaterial.emissiveColor = new Color3(0.45, 0.08, 0);
const burnerMesh = CreateBox('burner', { width: 2 * HALF + 0.06, height: 0.03, depth: 2 * HALF + 0.06 }, scene);
burnerMesh.position.y = -0.015;
burnerMesh.material = burnerMaterial;

const particleRadius = small ? 0.012 : 0.01;
const fluid = await FluidPlugin.create(scene, {
  ...lookOptions(parameters),
  particleRadius,
  capacity: small ? 800 : 1500,
  iterations: 4,
  // The screen-space water: the water a blue liquid, the vapour (another material) clear refracting bubbles.
  renderMode: parameters.renderMode ?? 'fluid',
  colorBy: 'material',
});
const simulation = fluid.simulation;
const water = simulation.addMaterial({
  restDensity: 1000,
  numberDensity: true,
  diffusivity: 0.0003,
  initialTemperature: COLD,
  color: [0.15, 0.4, 0.9],
});
const vapour = simulation.addMaterial({
  restDensity: 100,
  numberDensity: true,
  surfaceColor: 0,
  diffusivity: 0.0003,
  color: [1, 1, 1],
});
const material = simulation.components.FluidMaterial;
material.airMaterial[water] = vapour;
material.boilingTemperature[water] = BOILING;
material.boilingProbability[water] = 0.002;
material.artificialBuoyancy[vapour] = 2;
simulation.addCollider({ shape: 'box', min: [-HALF, 0, -HALF], max: [HALF, HEIGHT, HALF], container: true });
// The burner: a solid under the beaker's floor that exchanges heat (the beaker gives the wall density).
const burner = simulation.addCollider({
  shape: 'box',
  min: [-1, -1, -1],
  max: [1, 0, 1],
  wallWeights: false,
  temperature: BURNER,
  heatTransfer: HEAT_TRANSFER,
});

/** Empties the beaker and fills it with cold water. */
function refill(): void {
  for (const eid of simulation.particles()) simulation.removeParticle(eid);
  simulation.spawnBlock({ min: [-HALF, 0, -HALF], max: [HALF, DEPTH, HALF], material: water });
}
refill();

const Collider = simulation.components.Collider;
window.addEventListener('keydown', (event) => {
  if (event.key === 'b' || event.key === 'B') {
    Collider.heatTransfer[burner] = Collider.heatTransfer[burner] > 0 ? 0 : HEAT_TRANSFER;
  }
  if (event.key === 'r' || event.key === 'R') refill();
});

/** Water and vapour counts, the water's mean temperature (K) and the vapour's mean height (m). */
function measureBeaker(): Record<string, number> {
  const { Particle, Position, Temperature } = simulation.components;
  let waterCount = 0;
  let vapourCount = 0;
  let temperature = 0;
  let vapourHeight = 0;
  for (const eid of simulation.particles()) {
    if (Particle.material[eid] === vapour) {
      vapourCount++;
      vapourHeight += Position.y[eid];
      continue;
    }
    waterCount++;
    temperature += Temperature[eid];
  }
  return {
    water: waterCount,
    vapour: vapourCount,
    waterTemperature: waterCount > 0 ? temperature / waterCount : 0,
    vapourHeight: vapourCount > 0 ? vapourHeight / vapourCount : 0,
  };
}

showStats(engine, scene, fluid, () => {
  const figures = measureBeaker();
  const stats = simulation.stats;
  return `water ${figures.water} at ${figures.waterTemperature.toFixed(0)} K | vapour ${figures.vapour} | boiled ${stats.boiledCount} this step`;
});
const pane = createDebugPane(parameters, fluid, { [water]: 'water', [vapour]: 'vapour' });
startExample(engine, scene, camera, fluid, measureBeaker, pane);
