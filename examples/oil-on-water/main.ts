/**
 * Oil poured onto water (Müller, Solenthaler, Keiser and Gross 2005, sections 3.1-3.2): a tank holds a
 * layer of water; a tap above pours oil (800 kg/m^3, non-polar, interface color +0.5) for four seconds.
 * The oil plunges into the water, rises back through it (buoyancy from the two rest densities, with the
 * number-density constraint that keeps the interface free of false tension) and spreads into a layer on
 * top, held apart from the water by the interface tension of eq. 11 (sigma^i = 0.5 N/m). P pours again,
 * R restarts. Uses only the public API.
 *
 * Measured in Node (on one thread, the default until 2026-11-29) with the full scene (r = 0.0125 m, 864 water
 * and 800 oil particles, CPU backend, the
 * defaults: 2 substeps x 2 iterations with the coarse pressure projection): 4 s after the tap closes, all
 * of the oil sits above the water's median height, the oil's mean height is 0.215 m against 0.147 m for the
 * water's 90th percentile (before the projection, at 2 x 3: 97%, 0.20 m against 0.18 m).
 *
 * `?solver=sph` runs it with WCSPH (the defaults: c_s 20 m/s, 10 Pa s for both fluids, 27-31 substeps a
 * step; the number-density estimate, docs/several-fluids.md). Measured the same way: 4 s after the tap
 * closes 99.8% of the oil sits above the water's median height, the oil's mean height is 0.203 m against
 * 0.182 m for the water's 90th percentile, the fastest particle moves at 0.03 m/s.
 */

import { Vector3 } from '@babylonjs/core/Maths/math.vector';
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
  severalFluidsSolver,
  showStats,
  startExample,
} from '../shared/exampleKit';

const parameters = readParameters();
const small = parameters.particles === 'small';
const engine = await createEngine(parameters);
const scene = createStudioScene(engine, 3, 0.1);
const camera = createOrbitCamera(scene, -Math.PI / 2, Math.PI / 2.6, 1.2, new Vector3(0, 0.18, 0));

/** The tank's inside: [-HALF, HALF] x [0, HEIGHT] x [-HALF, HALF] (m). */
const HALF = 0.15;
const HEIGHT = 0.5;
/** Top of the water layer when filled (m). */
const WATER_TOP = 0.16;
/** Seconds the tap pours per press of P. */
const POUR_SECONDS = 4;
createGlassTank(scene, [-HALF, 0, -HALF], [HALF, HEIGHT, HALF]);

// Screen-space water by default: with two materials the plugin colors it per particle (its diffuse-color
// pass), so the oil shows as a golden layer on the blue water.
const fluid = await FluidPlugin.create(scene, {
  ...lookOptions(parameters),
  particleRadius: small ? 0.02 : 0.0125,
  capacity: small ? 600 : 2400,
  renderMode: parameters.renderMode ?? 'fluid',
  colorBy: 'material',
  solver: severalFluidsSolver(parameters),
});
const simulation = fluid.simulation;
// Opposite polarities (Table 2) and one interface tension between them (eq. 11); the number-density
// constraint (numberDensity) is what keeps the 800/1000 interface free of the false tension of mass densities.
const water = simulation.addMaterial({
  restDensity: 1000,
  numberDensity: true,
  interfaceColor: -0.5,
  interfaceTension: 0.5,
  color: [0.2, 0.45, 0.95],
});
const oil = simulation.addMaterial({
  restDensity: 800,
  numberDensity: true,
  interfaceColor: 0.5,
  interfaceTension: 0.5,
  viscosity: 0.05,
  color: [0.95, 0.72, 0.1],
});
simulation.addCollider({ shape: 'box', min: [-HALF, 0, -HALF], max: [HALF, HEIGHT, HALF], container: true });

const tap = new TransformNode('tap', scene);
tap.position.set(0, 0.45, 0);
const emitter = fluid.addEmitter({ material: oil, node: tap, radius: small ? 0.04 : 0.03, speed: 1 });
const Emitter = simulation.components.Emitter;
/** Simulated seconds since the last restart. */
const simulatedSeconds = (): number => (simulation.stats.stepCount - startStep) * simulation.settings.timeStep;
let startStep = 0;
let pourUntil = POUR_SECONDS;

/** Refills the tank with water only and starts pouring oil. */
function restart(): void {
  for (const eid of simulation.particles()) simulation.removeParticle(eid);
  simulation.spawnBlock({ min: [-HALF, 0, -HALF], max: [HALF, WATER_TOP, HALF], material: water });
  startStep = simulation.stats.stepCount;
  pourUntil = POUR_SECONDS;
}
restart();

window.addEventListener('keydown', (event) => {
  if (event.key === 'p' || event.key === 'P') pourUntil = simulatedSeconds() + POUR_SECONDS;
  if (event.key === 'r' || event.key === 'R') restart();
});
scene.onBeforeRenderObservable.add(() => {
  Emitter.enabled[emitter] = simulatedSeconds() < pourUntil ? 1 : 0;
});

/**
 * The oil's share above the water's median height, the oil's mean height (m), the water's 90th-percentile
 * height (m) and the particle counts.
 */
function measureLayers(): Record<string, number> {
  const { Position, Particle } = simulation.components;
  const waterHeights: number[] = [];
  const oilHeights: number[] = [];
  for (const eid of simulation.particles()) {
    (Particle.material[eid] === oil ? oilHeights : waterHeights).push(Position.y[eid]);
  }
  waterHeights.sort((a, b) => a - b);
  const median = waterHeights[waterHeights.length >> 1] ?? 0;
  const oilMean = oilHeights.reduce((sum, y) => sum + y, 0) / Math.max(1, oilHeights.length);
  return {
    oilAboveWaterMedian: oilHeights.filter((y) => y > median).length / Math.max(1, oilHeights.length),
    oilHeight: oilMean,
    waterTop: waterHeights[Math.floor(waterHeights.length * 0.9)] ?? 0,
    oilCount: oilHeights.length,
    waterCount: waterHeights.length,
  };
}

showStats(engine, scene, fluid, () => {
  const figures = measureLayers();
  return `oil ${figures.oilCount}, ${(100 * figures.oilAboveWaterMedian).toFixed(0)}% above the water`;
});
const pane = createDebugPane(parameters, fluid, { [water]: 'water', [oil]: 'oil' });
startExample(engine, scene, camera, fluid, measureLayers, pane);
