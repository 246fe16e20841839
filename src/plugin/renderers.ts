/**
 * The views of the fluid and the switching between them: Babylon's screen-space `FluidRenderer` (water,
 * screenSpaceFluidView.ts), and debug views as points or instanced spheres (pointsView.ts, spheresView.ts).
 * Every one of these reads the {@link ParticleBuffers} that {@link feedParticles} fills;
 * the surface views (`'surface'`, `'splats'`, see surfaceRenderer.ts) read the simulation's components
 * instead, on the CPU. On the WebGPU backend the views draw straight from the simulation's
 * position storage buffer (`ParticleBuffers.gpuPositions`) through vertex buffers over it (stride 16 bytes,
 * xyz read), and take per-particle colors from the color buffer the GPU color pass writes in the same
 * order (`ParticleBuffers.gpuColors`, see particleColors.ts), bound the same way as an instanced (spheres,
 * water) or per-vertex (points) color attribute: no position or color is read back or uploaded per frame
 * (vertexBuffers.ts). Their GPU objects are made once per storage buffer (again only when the backend
 * changes, e.g. after a lost device).
 */
import type { Camera } from '@babylonjs/core/Cameras/camera.js';
import type { AbstractEngine } from '@babylonjs/core/Engines/abstractEngine.js';
import type { Mesh } from '@babylonjs/core/Meshes/mesh.js';
import type { IFluidRenderingRenderObject } from '@babylonjs/core/Rendering/fluidRenderer/fluidRenderer.js';
import type { Scene } from '@babylonjs/core/scene.js';
import type { FluidSimulation } from '../systems/simulation';
import type { ParticleBuffers } from './particleFeed';
import { GpuPointsView, PointsView } from './pointsView';
import { type FluidLookOptions, type LiquidLook, ScreenSpaceFluidView } from './screenSpaceFluidView';
import { GpuSpheresView, SpheresView } from './spheresView';
import { type FluidSurfaceOptions, SplatView, SurfaceMeshView } from './surfaceRenderer';
import { gpuColorBuffer } from './vertexBuffers';

export type { FluidLookOptions } from './screenSpaceFluidView';

/**
 * How the plugin draws the fluid: `'fluid'` is Babylon's screen-space fluid renderer (a water surface),
 * `'surface'` a triangle mesh of the color field's isosurface (marching tetrahedra, fitted to the
 * colliders' walls), `'splats'` oriented discs on the surface particles (point splatting), `'points'` and
 * `'spheres'` are debug views colored by `colorBy`, `'none'` draws nothing. `'surface'` and `'splats'` are
 * extracted on the CPU from the particle components (mirrored by readbacks on the WebGPU backend).
 */
export type FluidRenderMode = 'fluid' | 'surface' | 'splats' | 'points' | 'spheres' | 'none';

/** True when Babylon's `FluidRenderer` can run on `engine`: WebGPU, or WebGL2 with float render targets. */
export function supportsFluidRenderer(engine: AbstractEngine): boolean {
  const caps = engine.getCaps();
  const floatTargets = caps.textureFloatRender || caps.textureHalfFloatRender;
  // NullEngine reports WebGL1-like capabilities without float render targets, so it is excluded here.
  return engine.isWebGPU || (engine.version >= 2 && floatTargets);
}

/**
 * Where the views' meshes are drawn in Babylon's terms: the rendering group and layer mask every mesh a view
 * makes gets (the plugin's `renderingGroupId` and `layerMask`, checked by the plugin). The screen-space
 * water has no mesh: it reads `layerMask` against its camera's (see `ScreenSpaceFluidView`).
 */
export interface ViewLayers {
  /** `mesh.renderingGroupId` of the views' meshes. */
  renderingGroupId: number;
  /** `mesh.layerMask` of the views' meshes. */
  layerMask: number;
}

/** What the surface views are made from: the simulation, the plugin's `surface` options and interval. */
interface SurfaceSource {
  /** The simulation whose components the views read. */
  readonly simulation: FluidSimulation;
  /** The plugin's `surface` options (checked). */
  readonly options: FluidSurfaceOptions;
  /** The plugin's `surfaceUpdateInterval` (frames). */
  readonly updateInterval: number;
}

/**
 * Owns the views, creates each on first use, shows the one of the current mode. The views match the
 * buffers' source: when `gpuPositions` changes (the backend changed), the views made for the old source
 * are disposed and made again for the new one.
 */
export class FluidViews {
  private fluid: ScreenSpaceFluidView | undefined;
  private points: PointsView | GpuPointsView | undefined;
  private spheres: SpheresView | GpuSpheresView | undefined;
  private surface: SurfaceMeshView | undefined;
  private splats: SplatView | undefined;
  /** True while the surface view was colored with no particle to take the color from. */
  private surfaceColorPending = false;
  private shown: FluidRenderMode = 'none';

  /** The rendering group and layer mask of the views' meshes (read by the views as they are made). */
  private readonly layers: ViewLayers;

  constructor(
    private readonly scene: Scene,
    private readonly buffers: ParticleBuffers,
    private readonly particleDiameter: number,
    private readonly camera: Camera | undefined,
    private readonly look: FluidLookOptions,
    private readonly defaultColor: () => [number, number, number],
    private readonly surfaceSource?: SurfaceSource,
    layers: ViewLayers = { renderingGroupId: 0, layerMask: 0x0fffffff },
  ) {
    this.layers = { ...layers };
  }

  /** The rendering group of the views' meshes. */
  get renderingGroupId(): number {
    return this.layers.renderingGroupId;
  }

  /** Sets the rendering group of the views' meshes, those that exist and those made later (checked by the plugin). */
  set renderingGroupId(group: number) {
    this.layers.renderingGroupId = group;
    for (const mesh of this.meshes()) mesh.renderingGroupId = group;
  }

  /** The layer mask of the views' meshes (and the one the water reads against its camera's). */
  get layerMask(): number {
    return this.layers.layerMask;
  }

  /** Sets the layer mask of the views' meshes, those that exist and those made later (checked by the plugin). */
  set layerMask(mask: number) {
    this.layers.layerMask = mask;
    for (const mesh of this.meshes()) mesh.layerMask = mask;
  }

  /** Every mesh the views have made and not disposed: points, spheres, surface, splats. */
  private meshes(): Mesh[] {
    const meshes = this.debugMeshes;
    if (this.surface) meshes.push(this.surface.mesh);
    if (this.splats) meshes.push(this.splats.mesh);
    return meshes;
  }

  /** Gives a view's new mesh the plugin's rendering group and layer mask; returns the view. */
  private placed<View extends { readonly mesh: Mesh }>(view: View): View {
    view.mesh.renderingGroupId = this.layers.renderingGroupId;
    view.mesh.layerMask = this.layers.layerMask;
    return view;
  }

  /** True if the view of `mode` needs instance matrices from the feed. */
  static needsMatrices(mode: FluidRenderMode): boolean {
    return mode === 'spheres';
  }

  /**
   * True if the view of `mode` draws per-particle colors: the debug views always, the water when
   * `useDiffuseColors` (the plugin's `colorBy` is not `'material'`, or the particles are of several materials).
   * On the WebGPU backend the plugin then runs the GPU color pass (`feedGpuColors`) before `show`.
   */
  static needsParticleColors(mode: FluidRenderMode, useDiffuseColors: boolean): boolean {
    return mode === 'points' || mode === 'spheres' || (mode === 'fluid' && useDiffuseColors);
  }

  /** True if the view of `mode` reads the particle buffers (`'surface'` and `'splats'` read the simulation). */
  static needsFeed(mode: FluidRenderMode): boolean {
    return mode !== 'none' && mode !== 'surface' && mode !== 'splats';
  }

  /**
   * Prepares the view of `mode` for a feed from the CPU buffers (before the feed runs, so the sphere view's
   * matrices exist). Not needed before a GPU feed.
   */
  prepare(mode: FluidRenderMode): void {
    if (mode !== 'spheres') return;
    if (this.spheres !== undefined && this.spheres.source !== undefined) {
      this.spheres.dispose();
      this.spheres = undefined;
    }
    this.spheres ??= this.placed(new SpheresView(this.scene, this.buffers, this.particleDiameter));
  }

  /**
   * Shows `mode` with the data now in the buffers; the water as `liquids`, one per material, when given (see
   * `ScreenSpaceFluidView.update`).
   */
  show(mode: FluidRenderMode, useDiffuseColors: boolean, liquids?: readonly LiquidLook[]): void {
    if (mode !== this.shown) {
      if (this.shown === 'fluid') this.fluid?.release();
      if (this.shown === 'points') this.points?.hide();
      if (this.shown === 'spheres') this.spheres?.hide();
      // The surface views are disposed when left: their meshes and materials go with the mode.
      if (this.shown === 'surface') {
        this.surface?.dispose();
        this.surface = undefined;
      }
      if (this.shown === 'splats') {
        this.splats?.dispose();
        this.splats = undefined;
      }
      this.shown = mode;
    }
    const storage = this.buffers.gpuPositions;
    const colors = gpuColorBuffer(this.buffers);
    const stale = (view: PointsView | GpuPointsView | SpheresView | GpuSpheresView) =>
      view.source !== storage || (view.source !== undefined && view.colorSource !== colors);
    if (this.points !== undefined && stale(this.points)) {
      this.points.dispose();
      this.points = undefined;
    }
    if (this.spheres !== undefined && stale(this.spheres)) {
      this.spheres.dispose();
      this.spheres = undefined;
    }
    switch (mode) {
      case 'fluid':
        this.fluid ??= new ScreenSpaceFluidView(
          this.scene,
          this.buffers,
          this.particleDiameter,
          this.camera,
          this.look,
          this.defaultColor,
          () => this.layers.layerMask,
        );
        this.fluid.update(useDiffuseColors, liquids);
        break;
      case 'points':
        // On the GPU the view needs the color buffer (the plugin makes it first with `feedGpuColors`).
        if (storage === undefined) this.points ??= this.placed(new PointsView(this.scene, this.buffers));
        else if (colors !== undefined) {
          this.points ??= this.placed(new GpuPointsView(this.scene, this.buffers, storage, colors));
        }
        this.points?.update();
        break;
      case 'spheres':
        if (storage === undefined) this.prepare('spheres');
        else if (colors !== undefined) {
          this.spheres ??= this.placed(
            new GpuSpheresView(this.scene, this.buffers, storage, colors, this.particleDiameter),
          );
        }
        this.spheres?.update();
        break;
      case 'surface':
      case 'splats': {
        const source = this.surfaceSource;
        if (source === undefined) break;
        let view: SurfaceMeshView | SplatView;
        if (mode === 'surface') {
          this.surface ??= this.makeSurfaceView(SurfaceMeshView, source);
          view = this.surface;
        } else {
          this.splats ??= this.makeSurfaceView(SplatView, source);
          view = this.splats;
        }
        // A view made before the first particle took the fallback color: recolor it once one exists.
        if (this.surfaceColorPending && source.simulation.particleCount > 0) {
          view.setColor(this.defaultColor());
          this.surfaceColorPending = false;
        }
        view.update();
        break;
      }
      case 'none':
        break;
    }
  }

  /** Makes a surface or splat view, colored as the first particle's material (or the fallback). */
  private makeSurfaceView<View extends { readonly mesh: Mesh }>(
    type: new (
      scene: Scene,
      simulation: FluidSimulation,
      options: FluidSurfaceOptions,
      interval: number,
      color: [number, number, number],
    ) => View,
    source: SurfaceSource,
  ): View {
    this.surfaceColorPending = source.simulation.particleCount === 0;
    return this.placed(
      new type(this.scene, source.simulation, source.options, source.updateInterval, this.defaultColor()),
    );
  }

  /** The screen-space render object while the fluid view is on. */
  get fluidRenderObject(): IFluidRenderingRenderObject | undefined {
    return this.fluid?.current;
  }

  /** The surface mesh while `renderMode` is `'surface'` (undefined otherwise). */
  get surfaceMesh(): Mesh | undefined {
    return this.surface?.mesh;
  }

  /** The splat disc mesh (thin instances) while `renderMode` is `'splats'` (undefined otherwise). */
  get splatMesh(): Mesh | undefined {
    return this.splats?.mesh;
  }

  /** The debug meshes that exist (points and spheres). */
  get debugMeshes(): Mesh[] {
    const meshes: Mesh[] = [];
    if (this.points) meshes.push(this.points.mesh);
    if (this.spheres) meshes.push(this.spheres.mesh);
    return meshes;
  }

  dispose(): void {
    this.fluid?.dispose();
    this.points?.dispose();
    this.spheres?.dispose();
    this.surface?.dispose();
    this.splats?.dispose();
    this.fluid = undefined;
    this.points = undefined;
    this.spheres = undefined;
    this.surface = undefined;
    this.splats = undefined;
  }
}
