/**
 * What `FluidPlugin` draws: the render mode and the coloring (switchable at run time), the views
 * (`FluidViews`) and each frame's render feed: which buffers the current mode reads, whether the water is
 * tinted by one material or colored per particle, the GPU color pass, and nothing while the engine's
 * context is lost.
 */

import type { Camera } from '@babylonjs/core/Cameras/camera.js';
import type { AbstractEngine } from '@babylonjs/core/Engines/abstractEngine.js';
import type { Observer } from '@babylonjs/core/Misc/observable.js';
import type { Scene } from '@babylonjs/core/scene.js';
import { PLUGIN_OPTIONS } from '../core/schema';
import type { ResolvedAnisotropy } from '../systems/ellipsoids/settings';
import type { FluidSimulation } from '../systems/simulation';
import type { ColorMapRanges, FluidColorBy } from './colorMaps';
import { DiffuseView, type ResolvedWhiteWaterLook } from './diffuseView';
import { checkPluginOption, type FluidPluginOptions } from './options';
import { feedEllipsoids, feedGpuColors, feedParticles, type ParticleBuffers } from './particleFeed';
import { type FluidRenderMode, FluidViews } from './renderers';
import { drawnDiameter, type LiquidLook, resolveLookAnisotropy } from './screenSpaceFluidView';
import { checkSurfaceOptions } from './surfaceRenderer';

/** A liquid of `FluidDisplay.liquidLooks`, with its material entity and rest density. */
interface MaterialLiquid extends LiquidLook {
  entity: number;
  density: number;
}

/** The order the liquids are composited in: air last, then heaviest first, then by slot. */
function compositingOrder(a: MaterialLiquid, b: MaterialLiquid): number {
  if (a.air !== b.air) return a.air ? 1 : -1;
  return b.density - a.density || a.slot - b.slot;
}

/** The plugin's options the display is made from (besides the render mode and coloring, checked first). */
export type DisplayOptions = Pick<
  FluidPluginOptions,
  'camera' | 'look' | 'surface' | 'surfaceUpdateInterval' | 'renderingGroupId' | 'layerMask'
> & {
  /** The white-water look, checked by the plugin (`resolveWhiteWaterLook`). */
  readonly whiteWater: ResolvedWhiteWaterLook;
};

/** The plugin's views, the mode they show and what they are colored by. */
export class FluidDisplay {
  /** How the fluid is drawn (checked by the plugin). */
  mode: FluidRenderMode;
  /** What the particles are colored by (checked by the plugin). */
  coloring: FluidColorBy;
  /** The views, each made on first use. */
  readonly views: FluidViews;
  /** White water's discs, when the simulation has diffuse particles (`diffuse.capacity`). */
  readonly diffuse: DiffuseView | undefined;
  /** True between the engine's context (device) loss and its restoration: nothing is drawn then. */
  private contextLost = false;
  private readonly contextObservers: Observer<AbstractEngine>[];
  /** The plugin's `camera` option (else the scene's active camera draws the white water). */
  private readonly camera: Camera | undefined;
  /** The water's anisotropic particles (`look.anisotropy`), undefined for spheres. */
  private readonly anisotropy: ResolvedAnisotropy | undefined;
  /** The water's drawn particle radius (m). */
  private readonly drawnRadius: number;

  /**
   * Checks the surface options and the surface update interval, makes the views and starts watching the
   * engine's context. The look, the rendering group and the layer mask come checked (`checkViewOptions`).
   */
  constructor(
    private readonly scene: Scene,
    private readonly simulation: FluidSimulation,
    private readonly buffers: ParticleBuffers,
    private readonly colorRanges: ColorMapRanges,
    mode: FluidRenderMode,
    coloring: FluidColorBy,
    options: DisplayOptions,
  ) {
    this.mode = mode;
    this.coloring = coloring;
    const { camera, look, surface, surfaceUpdateInterval, renderingGroupId, layerMask, whiteWater } = options;
    this.camera = camera;
    this.anisotropy = resolveLookAnisotropy(look ?? {});
    this.drawnRadius = drawnDiameter(2 * simulation.settings.particleRadius, look ?? {}) / 2;
    const layers = {
      renderingGroupId: renderingGroupId ?? PLUGIN_OPTIONS.renderingGroupId.default,
      layerMask: layerMask ?? PLUGIN_OPTIONS.layerMask.default,
    };
    const components = simulation.components;
    const surfaceOptions = surface ?? {};
    checkSurfaceOptions(surfaceOptions, simulation.settings.particleRadius, simulation.settings.kernelRadius);
    const surfaceSource = {
      simulation,
      options: surfaceOptions,
      updateInterval: checkPluginOption(
        'surfaceUpdateInterval',
        surfaceUpdateInterval ?? PLUGIN_OPTIONS.surfaceUpdateInterval.default,
      ),
    };
    this.views = new FluidViews(
      scene,
      buffers,
      2 * simulation.settings.particleRadius,
      camera,
      look ?? {},
      () => {
        // The first particle's material color; a water blue while there is no particle.
        const material = this.firstParticleMaterial();
        if (!simulation.isMaterial(material)) return [0.2, 0.45, 0.9];
        return [
          components.FluidMaterial.colorRed[material],
          components.FluidMaterial.colorGreen[material],
          components.FluidMaterial.colorBlue[material],
        ];
      },
      surfaceSource,
      layers,
    );
    this.diffuse =
      simulation.diffuseParticles.capacity > 0 ? new DiffuseView(scene, simulation, whiteWater) : undefined;
    const engine = scene.getEngine();
    this.contextObservers = [
      engine.onContextLostObservable.add(() => {
        this.contextLost = true;
      }),
      engine.onContextRestoredObservable.add(() => {
        this.contextLost = false;
      }),
    ];
  }

  /**
   * Feeds the current mode's view (nothing is read in mode `'none'`). On the WebGPU backend the views draw
   * from the simulation's position buffer, and, where they color particles one by one (the debug views;
   * the water when `colorBy` is not `'material'` or the particles are of several materials), from the
   * color buffer the GPU color pass fills after the steps (`feedGpuColors`).
   */
  render(): void {
    // A lost context draws nothing; views made now would compile effects that Babylon's restoration then
    // trips over. Steps go on (on the CPU after a lost WebGPU device), the views catch up once restored.
    if (this.contextLost) return;
    const mode = this.mode;
    const onGpu = this.simulation.gpuSolver !== undefined;
    const fed = FluidViews.needsFeed(mode);
    if (fed) {
      if (!onGpu) this.views.prepare(mode);
      feedParticles(this.simulation, this.buffers, this.coloring, this.colorRanges);
    }
    // The water: one tint, several liquids (anisotropic particles of several materials colored by material),
    // or per-particle colors; the debug views always color per particle.
    // The liquids follow the materials the simulation has, not those its particles have now: trapped air and
    // vapour come and go, and each change of layout would make the water's target renderers again.
    const liquids =
      mode === 'fluid' &&
      this.anisotropy !== undefined &&
      this.coloring === 'material' &&
      this.simulation.materialCount > 1
        ? this.liquidLooks()
        : undefined;
    const useDiffuseColors =
      mode === 'fluid' && liquids === undefined && (this.coloring !== 'material' || !this.singleMaterial());
    if (fed && onGpu && FluidViews.needsParticleColors(mode, useDiffuseColors)) {
      feedGpuColors(this.simulation, this.buffers, this.coloring, this.colorRanges, this.scene.getEngine());
    }
    const anisotropy = this.anisotropy;
    if (mode === 'fluid' && anisotropy !== undefined) {
      feedEllipsoids(this.simulation, this.buffers, anisotropy, this.drawnRadius, this.scene.getEngine());
    }
    this.views.show(mode, useDiffuseColors, liquids);
    const diffuse = this.diffuse;
    if (diffuse !== undefined) {
      diffuse.mesh.renderingGroupId = this.views.renderingGroupId;
      diffuse.mesh.layerMask = this.views.layerMask;
      diffuse.update(mode === 'none' ? null : (this.camera ?? this.scene.activeCamera));
    }
  }

  /**
   * Every material of the simulation as a liquid of the water's per-material layout: its slot, its color and
   * whether it is some material's air (`airMaterial`), heaviest rest density first and air last (the order the
   * liquids are composited in). Reuses its array and objects (remade when the material count changes).
   */
  private liquidLooks(): readonly LiquidLook[] {
    const simulation = this.simulation;
    const count = simulation.materialCount;
    const looks = this.liquids;
    if (looks.length !== count) {
      const materials = simulation.materials();
      looks.length = 0;
      for (let slot = 0; slot < count; slot++) {
        looks.push({ slot, color: [0, 0, 0], air: false, entity: materials[slot], density: 0 });
      }
    }
    const { FluidMaterial } = simulation.components;
    for (const look of looks) {
      look.color[0] = FluidMaterial.colorRed[look.entity];
      look.color[1] = FluidMaterial.colorGreen[look.entity];
      look.color[2] = FluidMaterial.colorBlue[look.entity];
      look.density = FluidMaterial.restDensity[look.entity];
      look.air = false;
    }
    for (const look of looks) {
      const air = FluidMaterial.airMaterial[look.entity];
      for (const other of looks) if (other.entity === air) other.air = true;
    }
    looks.sort(compositingOrder);
    return looks;
  }

  /** The liquids of `liquidLooks`, reused from frame to frame. */
  private readonly liquids: MaterialLiquid[] = [];

  /**
   * The material of the first live particle (0 when there is none): the color of the views that take one
   * (the water's tint when it is not per particle, the surface views). Read from
   * the CPU buffers when the current mode fed them this frame; otherwise (the WebGPU backend, or the
   * `'surface'`, `'splats'` and `'none'` modes, which skip the feed and leave the buffers empty or stale)
   * from the simulation.
   */
  private firstParticleMaterial(): number {
    const buffers = this.buffers;
    const simulation = this.simulation;
    const material = simulation.components.Particle.material;
    if (buffers.gpuPositions === undefined && FluidViews.needsFeed(this.mode)) {
      return buffers.count > 0 ? material[buffers.ids[0]] : 0;
    }
    const count = simulation.particleCount;
    if (count === 0) return 0;
    // Written into the feed's id buffer when it fits (no allocation; the next feed writes it again).
    return material[(count <= buffers.ids.length ? simulation.particles(buffers.ids) : simulation.particles())[0]];
  }

  /**
   * True when every fed particle has the material of the first one (the water tint is that material's
   * color). On the WebGPU backend, every live particle (the CPU keeps each particle's material; no readback).
   */
  private singleMaterial(): boolean {
    const buffers = this.buffers;
    const simulation = this.simulation;
    const material = simulation.components.Particle.material;
    let ids = buffers.ids;
    let count = buffers.count;
    if (buffers.gpuPositions !== undefined) {
      count = simulation.particleCount;
      ids = count <= ids.length ? simulation.particles(ids) : simulation.particles();
    }
    if (count === 0) return true;
    const first = material[ids[0]];
    for (let place = 1; place < count; place++) if (material[ids[place]] !== first) return false;
    return true;
  }

  /** Stops watching the engine's context and disposes the views. */
  dispose(): void {
    const engine = this.scene.getEngine();
    engine.onContextLostObservable.remove(this.contextObservers[0]);
    engine.onContextRestoredObservable.remove(this.contextObservers[1]);
    this.views.dispose();
    this.diffuse?.dispose();
  }
}
