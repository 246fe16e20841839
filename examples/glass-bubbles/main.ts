/**
 * Water poured into a glass, with trapped air (Müller, Solenthaler, Keiser and Gross 2005, sections 3.4
 * and 4.3): where the falling water's front can trap air (the underside of the jet and of its splashes, a
 * large upward gradient of the particles' color field c^P) the water generates air particles (section
 * 3.4.1); the air bubbles are pushed up by the artificial buoyancy of eq. 17 (b = 5, the paper's) and by
 * their lower rest density (100 kg/m^3 against 1000, the paper's densities, with the multi-fluid density
 * constraint), and are deleted where they no longer matter (section 3.4.2): at the free surface (the
 * bubble bursts), away from the water, or isolated. The air is drawn as clear bubbles in the blue water (each material its own liquid). The
 * status line shows the water and air particle counts. Runs on the WebGPU
 * backend where the engine has WebGPU (there the air made in a step appears one step later), else on the CPU.
 * Uses only the public API.
 *
 * The trapped-air values are components of the materials (`simulation.components.FluidMaterial`), so a
 * game can change them while it runs. Measured in headless Chromium (full size): 3-10 air particles at a
 * time while pouring, most of them under water, none a second after the tap closes at half height (about
 * 1000 water particles). The test's glass (tests/multifluid-air.test.ts, a coherent jet at 2.5 m/s): up
 * to 55 at once, all gone 0.6 s after the pour.
 */

import { Vector3 } from '@babylonjs/core/Maths/math.vector';
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
const camera = createOrbitCamera(scene, -Math.PI / 2, Math.PI / 2.2, 0.8, new Vector3(0, 0.15, 0));

// The glass: the inside of the box [-HALF, HALF] x [0, HEIGHT] x [-HALF, HALF].
const HALF = 0.1;
const HEIGHT = 0.4;
/** Depth of the water the glass starts with. */
const POOL = 0.06;
/** Height of the nozzle. */
const NOZZLE = 0.32;
createGlassTank(scene, [-HALF, 0, -HALF], [HALF, HEIGHT, HALF]);

const particleRadius = small ? 0.012 : 0.01;
const capacity = small ? 1200 : 2500;
const fluid = await FluidPlugin.create(scene, {
  ...lookOptions(parameters),
  particleRadius,
  capacity,
  iterations: 4,
  // The screen-space water: the water a blue liquid, the air (another material) clear refracting bubbles.
  renderMode: parameters.renderMode ?? 'fluid',
  colorBy: 'material',
});
const simulation = fluid.simulation;
// Section 4.3: water 1000 kg/m^3, air 100 kg/m^3 (the same spacing: a tenth of the mass), b = 5.
const water = simulation.addMaterial({ restDensity: 1000, numberDensity: true, color: [0.15, 0.4, 0.9] });
const air = simulation.addMaterial({ restDensity: 100, numberDensity: true, surfaceColor: 0, color: [1, 1, 1] });
const material = simulation.components.FluidMaterial;
material.airMaterial[water] = air;
// t_p h: the paper's t_p = 22 1/m with h = 0.045 m is about 1 with its SPH volumes; with the rest-lattice
// volumes used here the underside of a falling front reaches 0.6-0.8 and a flat surface about 1.3.
material.airGenerationThreshold[water] = 0.6;
material.artificialBuoyancy[air] = 5;
simulation.addCollider({ shape: 'box', min: [-HALF, 0, -HALF], max: [HALF, HEIGHT, HALF], container: true });
const emitter = simulation.addEmitter({
  material: water,
  position: [0, NOZZLE, 0],
  radius: 2 * particleRadius,
  // Below the coherent-jet rate (about 600 particles/s here) the jet breaks into pieces that trap air.
  rate: 300,
  speed: 2.5,
  spread: 0.2,
});

/** Whether the tap was closed automatically since the last restart. */
let tapClosed = false;

/** Empties the glass, puts the starting water back and starts pouring. */
function restart(): void {
  tapClosed = false;
  for (const eid of simulation.particles()) simulation.removeParticle(eid);
  simulation.spawnBlock({ min: [-HALF, 0, -HALF], max: [HALF, POOL, HALF], material: water });
  simulation.components.Emitter.enabled[emitter] = 1;
}
restart();

window.addEventListener('keydown', (event) => {
  const Emitter = simulation.components.Emitter;
  if (event.key === 'p' || event.key === 'P') Emitter.enabled[emitter] = Emitter.enabled[emitter] === 1 ? 0 : 1;
  if (event.key === 'r' || event.key === 'R') restart();
});

/** The live particle ids, rewritten at each measurement (no allocation per frame). */
const ids = new Uint32Array(capacity);

/** Water and air particle counts, the water's nominal level (m) and the air particles below it. */
function measureGlass(): Record<string, number> {
  const { Particle, Position } = simulation.components;
  const live = simulation.particles(ids);
  let waterCount = 0;
  for (const eid of live) if (Particle.material[eid] !== air) waterCount++;
  const level = (waterCount * (2 * particleRadius) ** 3) / (2 * HALF) ** 2;
  let submerged = 0;
  for (const eid of live) {
    if (Particle.material[eid] === air && Position.y[eid] < level) submerged++;
  }
  return { water: waterCount, air: live.length - waterCount, submergedAir: submerged, level };
}

// Half full: the tap closes once per fill (the bubbles then rise and burst within about a second); P opens
// it again.
scene.onAfterRenderObservable.add(() => {
  if (tapClosed || measureGlass().level < HEIGHT * 0.5) return;
  simulation.components.Emitter.enabled[emitter] = 0;
  tapClosed = true;
});

showStats(engine, scene, fluid, () => {
  const figures = measureGlass();
  return `water ${figures.water} | air ${figures.air} (${figures.submergedAir} under water)`;
});
const pane = createDebugPane(parameters, fluid, { [water]: 'water', [air]: 'air' });
startExample(engine, scene, camera, fluid, measureGlass, pane);
