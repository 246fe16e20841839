/**
 * Pour water into a glass that the player carries with the mouse: press the left button and drag, and the
 * glass slides across the floor towards the pointer (at most 1.2 m/s); the right button orbits the camera,
 * the wheel zooms. Space opens and closes the tap, R empties the glass and the floor. The glass is a lathe mesh turned into
 * a mesh collider (baked once, then kept on the mesh's world pose every frame); a tap above pours
 * through an emitter that follows a node; water spilled on the floor soaks away through a drain region.
 * Uses only the public API of the library.
 *
 * `?render=surface` (or `?mode=surface`, as in every example) draws the water as the color field's
 * isosurface mesh (marching tetrahedra on the CPU, fitted to the glass's walls), `?render=splats` (or
 * `?mode=splats`) as discs on the surface particles; the V key switches between the surface mesh and the
 * starting render mode.
 */
import { ArcRotateCamera } from '@babylonjs/core/Cameras/arcRotateCamera';
import { PointerEventTypes } from '@babylonjs/core/Events/pointerEvents';
import { StandardMaterial } from '@babylonjs/core/Materials/standardMaterial';
import { Color3 } from '@babylonjs/core/Maths/math.color';
import { Plane } from '@babylonjs/core/Maths/math.plane';
import { Vector3 } from '@babylonjs/core/Maths/math.vector';
import { CreateCylinder } from '@babylonjs/core/Meshes/Builders/cylinderBuilder';
import { CreateLathe } from '@babylonjs/core/Meshes/Builders/latheBuilder';
import { TransformNode } from '@babylonjs/core/Meshes/transformNode';
import '@babylonjs/core/Culling/ray';
import { FluidPlugin } from '../../src';
import {
  createDebugPane,
  createEngine,
  createGlassMaterial,
  createStudioScene,
  lookOptions,
  orbitWithRightButton,
  readParameters,
  showStats,
  startExample,
  whiteWaterOptions,
} from '../shared/exampleKit';

const parameters = readParameters();
const renderQuery = new URLSearchParams(window.location.search).get('render');
const surfaceMode = renderQuery === 'surface' || renderQuery === 'splats' ? renderQuery : undefined;
const small = parameters.particles === 'small';
const engine = await createEngine(parameters);
const scene = createStudioScene(engine, 4, 0.1);

const camera = new ArcRotateCamera('camera', -Math.PI / 2, Math.PI / 2.9, 1.25, new Vector3(0, 0.2, 0), scene);
camera.attachControl(true);
orbitWithRightButton(camera); // the left button carries the glass
camera.wheelPrecision = 200;
camera.minZ = 0.02;
camera.maxZ = 20;

// The glass: a closed profile (outside, rim, inside, bottom) turned about the y axis.
const OUTER = 0.13;
const WALL = 0.02;
const HEIGHT = 0.26;
const BOTTOM = 0.025;
const profile = [
  new Vector3(0, 0, 0),
  new Vector3(OUTER, 0, 0),
  new Vector3(OUTER, HEIGHT, 0),
  new Vector3(OUTER - WALL, HEIGHT, 0),
  new Vector3(OUTER - WALL, BOTTOM, 0),
  new Vector3(0, BOTTOM, 0),
];
const glass = CreateLathe('glass', { shape: profile, tessellation: 48 }, scene);
glass.material = createGlassMaterial(scene, 0.22);

// The tap: a short metal pipe whose node carries the emitter (pouring along the node's local -Y).
const tap = new TransformNode('tap', scene);
tap.position.set(0, 0.62, 0);
const pipe = CreateCylinder('pipe', { diameter: 0.07, height: 0.12 }, scene);
pipe.parent = tap;
pipe.position.y = 0.06;
const metal = new StandardMaterial('metal', scene);
metal.diffuseColor = new Color3(0.6, 0.62, 0.66);
metal.specularColor = new Color3(0.9, 0.9, 0.9);
pipe.material = metal;

const fluid = await FluidPlugin.create(scene, {
  ...lookOptions(parameters),
  particleRadius: small ? 0.015 : 0.01,
  capacity: small ? 1500 : 6000,
  renderMode: surfaceMode ?? parameters.renderMode,
  // The surface mesh is extracted on the CPU: every second frame is enough for a pour.
  surfaceUpdateInterval: 2,
  surface: { alpha: 0.55 },
  ...whiteWaterOptions(parameters, small ? 4500 : 18000),
});
const startingMode = fluid.renderMode;
const water = fluid.simulation.addMaterial({ color: [0.25, 0.55, 0.95] });
fluid.simulation.addCollider({ shape: 'plane', point: [0, 0, 0], normal: [0, 1, 0] });
await fluid.addMeshCollider(glass, { resolution: 64 });
const emitter = fluid.addEmitter({ material: water, node: tap, radius: 0.025, speed: 1.2 });
// Water on the floor soaks away: a drain over the whole floor, below any particle in the glass.
fluid.addDrain({ min: [-5, -1, -5], max: [5, 0.6 * fluid.simulation.settings.particleRadius + 0.006, 5] });

// Carry the glass: while the left button is held, the glass slides towards the point of the floor under the
// pointer, at most 1.2 m/s (a press alone sets the goal too). Moving the mouse without the button leaves it.
const floorPlane = Plane.FromPositionAndNormal(Vector3.Zero(), Vector3.Up());
const target = new Vector3(0, 0, 0);
let carrying = false;
scene.onPointerObservable.add((info) => {
  if (info.type === PointerEventTypes.POINTERDOWN && info.event.button === 0) carrying = true;
  if (info.type === PointerEventTypes.POINTERUP && info.event.button === 0) carrying = false;
  if (info.type !== PointerEventTypes.POINTERMOVE && info.type !== PointerEventTypes.POINTERDOWN) return;
  if (!carrying) return;
  const ray = scene.createPickingRay(scene.pointerX, scene.pointerY, null, camera);
  const distance = ray.intersectsPlane(floorPlane);
  if (distance === null) return;
  const point = ray.origin.add(ray.direction.scale(distance));
  target.set(Math.max(-0.6, Math.min(0.6, point.x)), 0, Math.max(-0.4, Math.min(0.4, point.z)));
});
scene.onBeforeRenderObservable.add(() => {
  if (fluid.paused) return;
  const step = Math.min(
    1,
    (1.2 * engine.getDeltaTime()) / 1000 / Math.max(1e-6, Vector3.Distance(glass.position, target)),
  );
  Vector3.LerpToRef(glass.position, target, step, glass.position);
});
// The plugin's observer was added first, so it steps before the glass moves this frame: the collider
// follows the glass with one frame of lag, as any game object updated after physics would.

const Emitter = fluid.simulation.components.Emitter;
window.addEventListener('keydown', (event) => {
  if (event.key === ' ') Emitter.enabled[emitter] = Emitter.enabled[emitter] ? 0 : 1;
  if (event.key === 'v' || event.key === 'V') {
    fluid.renderMode =
      fluid.renderMode === 'surface' ? (startingMode === 'surface' ? 'fluid' : startingMode) : 'surface';
  }
  if (event.key === 'r' || event.key === 'R') {
    for (const eid of fluid.simulation.particles()) fluid.simulation.removeParticle(eid);
  }
});

/**
 * Particles inside the glass (within its inner radius, between its bottom and rim), the water level they
 * make (their volume at rest, (2r)^3 each, spread over the glass's inner cross-section) and where the glass
 * stands (m).
 */
function measureGlass(): Record<string, number> {
  const { Position } = fluid.simulation;
  const inner = OUTER - WALL;
  let count = 0;
  for (const eid of fluid.simulation.particles()) {
    const x = Position.x[eid] - glass.position.x;
    const z = Position.z[eid] - glass.position.z;
    const y = Position.y[eid] - glass.position.y;
    if (x * x + z * z < inner * inner && y > BOTTOM && y < HEIGHT) count++;
  }
  const spacing = 2 * fluid.simulation.settings.particleRadius;
  return {
    inGlass: count,
    level: BOTTOM + (count * spacing ** 3) / (Math.PI * inner * inner),
    glassX: glass.position.x,
    glassZ: glass.position.z,
  };
}

const pane = createDebugPane(parameters, fluid, { [water]: 'water' });
showStats(engine, scene, fluid, () => `in glass ${measureGlass().inGlass}`);
startExample(engine, scene, camera, fluid, measureGlass, pane);
