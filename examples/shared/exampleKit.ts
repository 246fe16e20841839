/**
 * What every example page shares: the engine chosen from the URL (`?engine=webgpu` or the default WebGL2
 * `Engine`), a bright studio backdrop for the water to refract, the stats line (fps, particles, ms per
 * step), the live-tuning panel (Babylon GUI) and the `window.fluidExample` handle the browser tests use.
 * Uses only the public API of the library.
 */
import { ArcRotateCamera } from '@babylonjs/core/Cameras/arcRotateCamera';
import type { TargetCamera } from '@babylonjs/core/Cameras/targetCamera';
import type { AbstractEngine } from '@babylonjs/core/Engines/abstractEngine';
import { Engine } from '@babylonjs/core/Engines/engine';
import { WebGPUEngine } from '@babylonjs/core/Engines/webgpuEngine';
import { DirectionalLight } from '@babylonjs/core/Lights/directionalLight';
import { HemisphericLight } from '@babylonjs/core/Lights/hemisphericLight';
import { StandardMaterial } from '@babylonjs/core/Materials/standardMaterial';
import { RawTexture } from '@babylonjs/core/Materials/Textures/rawTexture';
import { Texture } from '@babylonjs/core/Materials/Textures/texture';
import { Color3, Color4 } from '@babylonjs/core/Maths/math.color';
import { Matrix, Vector3 } from '@babylonjs/core/Maths/math.vector';
import { Viewport } from '@babylonjs/core/Maths/math.viewport';
import { CreateBox } from '@babylonjs/core/Meshes/Builders/boxBuilder';
import { CreateGround } from '@babylonjs/core/Meshes/Builders/groundBuilder';
import type { Mesh } from '@babylonjs/core/Meshes/mesh';
import '@babylonjs/core/Rendering/edgesRenderer';
import { UtilityLayerRenderer } from '@babylonjs/core/Rendering/utilityLayerRenderer';
import { Scene } from '@babylonjs/core/scene';
import { AdvancedDynamicTexture } from '@babylonjs/gui/2D/advancedDynamicTexture';
import { Button } from '@babylonjs/gui/2D/controls/button';
import { Control } from '@babylonjs/gui/2D/controls/control';
import { Slider } from '@babylonjs/gui/2D/controls/sliders/slider';
import { StackPanel } from '@babylonjs/gui/2D/controls/stackPanel';
import { TextBlock } from '@babylonjs/gui/2D/controls/textBlock';
import type { FluidColorBy, FluidPlugin, FluidRenderMode } from '../../src';

/** URL switches of every example. */
export interface ExampleParameters {
  /** `webgpu` (WebGPUEngine) or `webgl` (the default, a WebGL2 Engine). */
  engine: 'webgl' | 'webgpu';
  /** `small`: few particles (the browser tests); `full` (default): the intended scene. */
  particles: 'small' | 'full';
  /** `?panel=0` hides the tuning panel. */
  panel: boolean;
  /**
   * Optional `?mode=` render mode to start with: `fluid`, `points`, `spheres`, `none`, `surface` (the
   * isosurface mesh) or `splats` (discs on the surface particles).
   */
  renderMode: FluidRenderMode | undefined;
}

/** Reads the URL switches. */
export function readParameters(): ExampleParameters {
  const query = new URLSearchParams(window.location.search);
  const mode = query.get('mode');
  const modes: readonly FluidRenderMode[] = ['fluid', 'points', 'spheres', 'none', 'surface', 'splats'];
  return {
    engine: query.get('engine') === 'webgpu' ? 'webgpu' : 'webgl',
    particles: query.get('particles') === 'small' ? 'small' : 'full',
    panel: query.get('panel') !== '0',
    renderMode: modes.find((known) => known === mode),
  };
}

/** Creates the engine named by the URL on the page's `#renderCanvas`, with an opaque canvas. */
export async function createEngine(parameters: ExampleParameters): Promise<AbstractEngine> {
  const canvas = document.getElementById('renderCanvas') as HTMLCanvasElement;
  if (parameters.engine === 'webgpu') {
    const engine = new WebGPUEngine(canvas, { antialias: true, stencil: true, premultipliedAlpha: false });
    await engine.initAsync();
    return engine;
  }
  return new Engine(canvas, true, { preserveDrawingBuffer: true, stencil: true, alpha: false });
}

/**
 * An orbit camera looking at `target` (m) from angles `alpha`, `beta` (rad) and distance `radius` (m), with
 * mouse control and near and far planes suited to a tabletop scene of a few metres.
 */
export function createOrbitCamera(
  scene: Scene,
  alpha: number,
  beta: number,
  radius: number,
  target: Vector3,
): ArcRotateCamera {
  const camera = new ArcRotateCamera('camera', alpha, beta, radius, target, scene);
  camera.attachControl(true);
  camera.wheelPrecision = 100;
  camera.minZ = 0.03;
  camera.maxZ = 30;
  return camera;
}

/**
 * A scene with a light studio backdrop: pale sky, a tiled floor the water refracts, a soft sky light and
 * a sun. Water is mostly what it shows of its surroundings, so a dark void makes it look like ink.
 */
export function createStudioScene(engine: AbstractEngine, floorSize = 6, tileSize = 0.25): Scene {
  const scene = new Scene(engine);
  scene.clearColor = new Color4(0.78, 0.85, 0.92, 1);
  scene.ambientColor = new Color3(0.3, 0.3, 0.3);
  const sky = new HemisphericLight('sky', new Vector3(0.2, 1, -0.3), scene);
  sky.intensity = 0.75;
  sky.groundColor = new Color3(0.45, 0.45, 0.5);
  const sun = new DirectionalLight('sun', new Vector3(-0.4, -1, 0.5), scene);
  sun.intensity = 0.55;
  const floor = CreateGround('floor', { width: floorSize, height: floorSize }, scene);
  floor.position.y = -0.001;
  // A checkered tile texture made in memory (8 x 8 texels, one per tile, nearest filtering).
  const texels = new Uint8Array(8 * 8 * 4);
  for (let row = 0; row < 8; row++) {
    for (let column = 0; column < 8; column++) {
      const light = (row + column) % 2 === 0;
      texels.set(light ? [233, 228, 218, 255] : [185, 178, 166, 255], 4 * (row * 8 + column));
    }
  }
  const tiles = RawTexture.CreateRGBATexture(texels, 8, 8, scene, false, false, Texture.NEAREST_SAMPLINGMODE);
  tiles.uScale = floorSize / (8 * tileSize);
  tiles.vScale = floorSize / (8 * tileSize);
  const floorMaterial = new StandardMaterial('floorMaterial', scene);
  floorMaterial.diffuseTexture = tiles;
  floorMaterial.specularColor = new Color3(0.05, 0.05, 0.05);
  floor.material = floorMaterial;
  floor.isPickable = false;
  return scene;
}

/** A glass-like material for containers (faint, slightly blue, specular). */
export function createGlassMaterial(scene: Scene, alpha = 0.18): StandardMaterial {
  const glass = new StandardMaterial('glass', scene);
  glass.diffuseColor = new Color3(0.75, 0.85, 0.95);
  glass.specularColor = new Color3(0.9, 0.9, 0.9);
  glass.specularPower = 96;
  glass.alpha = alpha;
  glass.backFaceCulling = false;
  return glass;
}

/** A glass tank filling the box `min`..`max` (m): a faint box with drawn edges. */
export function createGlassTank(
  scene: Scene,
  min: readonly [number, number, number],
  max: readonly [number, number, number],
  alpha = 0.07,
): Mesh {
  const tank = CreateBox('tank', { width: max[0] - min[0], height: max[1] - min[1], depth: max[2] - min[2] }, scene);
  tank.position.set(0.5 * (min[0] + max[0]), 0.5 * (min[1] + max[1]), 0.5 * (min[2] + max[2]));
  tank.material = createGlassMaterial(scene, alpha);
  tank.enableEdgesRendering();
  tank.edgesWidth = 1.2;
  tank.edgesColor = new Color4(0.35, 0.45, 0.55, 0.8);
  return tank;
}

/**
 * Updates the corner stats line every few frames: fps, particle count, ms per step (the CPU time of a step:
 * on the WebGPU backend, recording its passes), the backend running the steps (`webgpu` or `cpu`) and the
 * render mode.
 */
export function showStats(engine: AbstractEngine, scene: Scene, plugin: FluidPlugin, extra?: () => string): void {
  const line = document.getElementById('stats') as HTMLDivElement;
  let frame = 0;
  scene.onAfterRenderObservable.add(() => {
    if (frame++ % 10 !== 0) return;
    const stats = plugin.simulation.stats;
    const settings = plugin.simulation.settings;
    const fps = engine.getFps();
    line.textContent =
      `${Number.isFinite(fps) ? fps.toFixed(0) : '-'} fps | particles ${plugin.simulation.particleCount} | step ${stats.stepMilliseconds.toFixed(1)} ms ` +
      `(${settings.substeps}x${settings.iterations}) | ${plugin.backend} | ${plugin.renderMode}${extra ? ` | ${extra()}` : ''}`;
  });
}

/** One slider of the tuning panel. */
interface SliderSpec {
  label: string;
  minimum: number;
  maximum: number;
  step: number;
  get: () => number;
  set: (value: number) => void;
  digits: number;
}

/**
 * The live-tuning panel (Babylon GUI): sliders for the material components (viscosity, vorticity,
 * artificial pressure, rest density) and the solver settings (substeps, iterations), and buttons that
 * cycle the render mode and the debug coloring. Edits act on the next step.
 */
export function createTuningPanel(scene: Scene, plugin: FluidPlugin, material: number): AdvancedDynamicTexture {
  // The panel lives in a utility layer drawn after the scene, so the water does not refract it.
  const layer = new UtilityLayerRenderer(scene);
  const ui = AdvancedDynamicTexture.CreateFullscreenUI('tuning', true, layer.utilityLayerScene);
  const panel = new StackPanel('panel');
  panel.width = '230px';
  panel.horizontalAlignment = Control.HORIZONTAL_ALIGNMENT_RIGHT;
  panel.verticalAlignment = Control.VERTICAL_ALIGNMENT_TOP;
  panel.paddingTop = '8px';
  panel.paddingRight = '8px';
  panel.background = 'rgba(16, 21, 28, 0.55)';
  ui.addControl(panel);
  const store = plugin.simulation.components.FluidMaterial;
  const settings = plugin.simulation.settings;
  const specs: SliderSpec[] = [
    {
      label: 'viscosity',
      minimum: 0,
      maximum: 0.5,
      step: 0.005,
      digits: 3,
      get: () => store.viscosity[material],
      set: (v) => (store.viscosity[material] = v),
    },
    {
      label: 'vorticity',
      minimum: 0,
      maximum: 0.2,
      step: 0.005,
      digits: 3,
      get: () => store.vorticity[material],
      set: (v) => (store.vorticity[material] = v),
    },
    {
      label: 'artificial pressure',
      minimum: 0,
      maximum: 0.5,
      step: 0.01,
      digits: 2,
      get: () => store.artificialPressureStrength[material],
      set: (v) => (store.artificialPressureStrength[material] = v),
    },
    {
      label: 'rest density',
      minimum: 500,
      maximum: 2000,
      step: 10,
      digits: 0,
      get: () => store.restDensity[material],
      set: (v) => (store.restDensity[material] = v),
    },
    {
      label: 'substeps',
      minimum: 1,
      maximum: 6,
      step: 1,
      digits: 0,
      get: () => settings.substeps,
      set: (v) => (settings.substeps = Math.round(v)),
    },
    {
      label: 'iterations',
      minimum: 1,
      maximum: 10,
      step: 1,
      digits: 0,
      get: () => settings.iterations,
      set: (v) => (settings.iterations = Math.round(v)),
    },
  ];
  for (const spec of specs) {
    const caption = new TextBlock(`${spec.label}Label`, '');
    caption.height = '20px';
    caption.color = '#dde6ef';
    caption.fontSize = 13;
    caption.textHorizontalAlignment = Control.HORIZONTAL_ALIGNMENT_LEFT;
    caption.paddingLeft = '8px';
    const refresh = () => {
      caption.text = `${spec.label}: ${spec.get().toFixed(spec.digits)}`;
    };
    refresh();
    const slider = new Slider(`${spec.label}Slider`);
    slider.minimum = spec.minimum;
    slider.maximum = spec.maximum;
    slider.step = spec.step;
    slider.value = spec.get();
    slider.height = '16px';
    slider.width = '210px';
    slider.color = '#7fc4ff';
    slider.background = '#33404f';
    slider.onValueChangedObservable.add((value) => {
      spec.set(value);
      refresh();
    });
    panel.addControl(caption);
    panel.addControl(slider);
  }
  // The surface views come last, after 'none' (they extract on the CPU every frame).
  const modes: FluidRenderMode[] = ['fluid', 'spheres', 'points', 'none', 'surface', 'splats'];
  const modeButton = Button.CreateSimpleButton('renderMode', `render: ${plugin.renderMode}`);
  const colorings: readonly FluidColorBy[] = ['material', 'speed', 'density', 'color'];
  const colorButton = Button.CreateSimpleButton('colorBy', `color: ${plugin.colorBy}`);
  for (const button of [modeButton, colorButton]) {
    button.height = '26px';
    button.width = '210px';
    button.color = '#dde6ef';
    button.fontSize = 13;
    button.background = '#2a3a4c';
    button.paddingTop = '4px';
    panel.addControl(button);
  }
  modeButton.onPointerClickObservable.add(() => {
    plugin.renderMode = modes[(modes.indexOf(plugin.renderMode) + 1) % modes.length];
    if (modeButton.textBlock) modeButton.textBlock.text = `render: ${plugin.renderMode}`;
  });
  colorButton.onPointerClickObservable.add(() => {
    plugin.colorBy = colorings[(colorings.indexOf(plugin.colorBy) + 1) % colorings.length];
    if (colorButton.textBlock) colorButton.textBlock.text = `color: ${plugin.colorBy}`;
  });
  return ui;
}

/** The handle the browser tests read (`window.fluidExample`). */
export interface FluidExampleHandle {
  /** The plugin of the example. */
  plugin: FluidPlugin;
  /** Babylon objects. */
  scene: Scene;
  engine: AbstractEngine;
  camera: TargetCamera;
  /** Frames rendered since the example started. */
  frames: number;
  /** True once colliders are baked, the simulation has stepped and the first frame with fluid was drawn. */
  ready: boolean;
  /**
   * Screen positions (CSS pixels of the canvas) of every particle in front of the camera, x, y pairs, from
   * the particle components (on the WebGPU backend: as of the last readback).
   */
  projectParticles(): number[];
  /** Screen radius (CSS pixels) of a particle at the camera's target distance. */
  particleScreenRadius(): number;
  /** Example-specific figures (e.g. the water level in the glass). */
  measure(): Record<string, number>;
}

/**
 * Publishes `window.fluidExample`, starts the render loop and resizes with the window. `measure` gives
 * example-specific figures to the tests.
 */
export function startExample(
  engine: AbstractEngine,
  scene: Scene,
  camera: TargetCamera,
  plugin: FluidPlugin,
  measure: () => Record<string, number> = () => ({}),
): FluidExampleHandle {
  const world = Matrix.Identity();
  const projected = new Vector3();
  const point = new Vector3();
  const handle: FluidExampleHandle = {
    plugin,
    scene,
    engine,
    camera,
    frames: 0,
    ready: false,
    measure,
    projectParticles() {
      const canvas = engine.getRenderingCanvas() as HTMLCanvasElement;
      const width = canvas.clientWidth;
      const height = canvas.clientHeight;
      const viewport = new Viewport(0, 0, width, height);
      const transform = scene.getTransformMatrix();
      const result: number[] = [];
      const { Position } = plugin.simulation;
      const view = camera.getViewMatrix();
      for (const eid of plugin.simulation.particles()) {
        point.set(Position.x[eid], Position.y[eid], Position.z[eid]);
        if (Vector3.TransformCoordinates(point, view).z <= camera.minZ) continue;
        Vector3.ProjectToRef(point, world, transform, viewport, projected);
        result.push(projected.x, projected.y);
      }
      return result;
    },
    particleScreenRadius() {
      const canvas = engine.getRenderingCanvas() as HTMLCanvasElement;
      const target = camera.getTarget();
      const distance = Vector3.Distance(camera.globalPosition, target);
      const focal = canvas.clientHeight / 2 / Math.tan(camera.fov / 2);
      return (plugin.simulation.settings.particleRadius * focal) / distance;
    },
  };
  scene.onAfterRenderObservable.add(() => {
    handle.frames++;
    // On the WebGPU backend the first steps wait for its shaders; the fluid is drawn from the first step on.
    if (!handle.ready && plugin.simulation.particleCount > 0 && plugin.simulation.stats.stepCount > 0) {
      const object = plugin.fluidRenderObject;
      if (plugin.renderMode !== 'fluid' || object?.object.isReady()) handle.ready = true;
    }
  });
  (window as unknown as { fluidExample: FluidExampleHandle }).fluidExample = handle;
  engine.runRenderLoop(() => scene.render());
  window.addEventListener('resize', () => engine.resize());
  return handle;
}
