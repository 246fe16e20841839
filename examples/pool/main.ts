/**
 * A pool with Havok rigid bodies coupled both ways with the water: crates float, a rock sinks and rests
 * on the floor, a small boat rocks on the waves that a paddle at the far end makes. Click throws another
 * crate from the camera into the pool (at most eight: the oldest goes); W A S D or the arrow keys push
 * the player's paddle through the water (it shoves crates too); space stops and starts the wave maker;
 * P pauses and resumes; the right button orbits the camera and the wheel zooms. Buoyancy is nothing but the particles' impulses on the bodies: no factor is set anywhere.
 * Havok's wasm comes from node_modules through Vite (no network). Uses only the public API of the library.
 */
import { PointerEventTypes } from '@babylonjs/core/Events/pointerEvents';
import { Plane } from '@babylonjs/core/Maths/math.plane';
import { Vector3 } from '@babylonjs/core/Maths/math.vector';
import '@babylonjs/core/Culling/ray';
import HavokPhysics from '@babylonjs/havok';
import havokWasmUrl from '@babylonjs/havok/lib/esm/HavokPhysics.wasm?url';
import { FluidPlugin } from '../../src';
import {
  createDebugPane,
  createEngine,
  createGlassTank,
  createOrbitCamera,
  createStudioScene,
  lookOptions,
  orbitWithRightButton,
  readParameters,
  showStats,
  startExample,
  whiteWaterOptions,
} from '../shared/exampleKit';
import { enablePoolPhysics, POOL_MAX, POOL_MIN, Pool, WATER_DEPTH } from './poolScene';

const parameters = readParameters();
const small = parameters.particles === 'small';
const engine = await createEngine(parameters);
const scene = createStudioScene(engine, 5, 0.2);

// Orbit with the right button and the wheel; the left button throws, the keys move the paddle.
const camera = createOrbitCamera(scene, -Math.PI / 2, Math.PI / 3.1, 2.5, new Vector3(0, 0.18, 0));
camera.inputs.removeByType('ArcRotateCameraKeyboardMoveInput');
orbitWithRightButton(camera);

createGlassTank(scene, POOL_MIN, POOL_MAX);
const havok = await HavokPhysics({ locateFile: () => havokWasmUrl });
enablePoolPhysics(scene, havok);

const fluid = await FluidPlugin.create(scene, {
  ...lookOptions(parameters),
  particleRadius: small ? 0.035 : 0.024,
  capacity: small ? 2000 : 6000,
  renderMode: parameters.renderMode,
  ...whiteWaterOptions(parameters, small ? 6000 : 18000),
});
const pool = await Pool.create(scene, fluid);

// The paddle: held keys give its direction (x to the right, z away from the camera's start).
const held = new Set<string>();
function updatePaddle(): void {
  const right = Number(held.has('d') || held.has('arrowright')) - Number(held.has('a') || held.has('arrowleft'));
  const away = Number(held.has('w') || held.has('arrowup')) - Number(held.has('s') || held.has('arrowdown'));
  pool.paddleInput.x = right;
  pool.paddleInput.z = away;
}
window.addEventListener('keydown', (event) => {
  const key = event.key.toLowerCase();
  if (key === ' ') pool.waveMakerEnabled = !pool.waveMakerEnabled;
  if (key === 'p') fluid.paused = !fluid.paused;
  held.add(key);
  updatePaddle();
});
window.addEventListener('keyup', (event) => {
  held.delete(event.key.toLowerCase());
  updatePaddle();
});
window.addEventListener('blur', () => {
  held.clear();
  updatePaddle();
});

// Click: throw a crate from just in front of the camera to where the pointer meets the water's surface. The
// debug pane takes its own clicks (they never reach the scene), so every left press the scene sees is the
// player's.
const pane = createDebugPane(parameters, fluid, { [pool.water]: 'water' });
const surface = Plane.FromPositionAndNormal(new Vector3(0, WATER_DEPTH, 0), Vector3.Up());
scene.onPointerObservable.add((info) => {
  if (info.type !== PointerEventTypes.POINTERDOWN || info.event.button !== 0) return;
  const ray = scene.createPickingRay(scene.pointerX, scene.pointerY, null, camera);
  const distance = ray.intersectsPlane(surface);
  const target = distance === null ? new Vector3(0, WATER_DEPTH, 0) : ray.origin.add(ray.direction.scale(distance));
  const origin = camera.globalPosition.add(ray.direction.scale(0.35));
  origin.y -= 0.1;
  pool.throwCrate(origin, target).catch((error: unknown) => console.error(error));
});

showStats(engine, scene, fluid, () => {
  const figures = pool.measure();
  return `bodies ${figures.bodies} | floating ${figures.floating}/${figures.crates} crates${pool.waveMakerEnabled ? '' : ' | waves off'}`;
});
startExample(engine, scene, camera, fluid, () => ({ ...pool.measure() }), pane);
