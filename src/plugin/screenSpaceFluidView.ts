/**
 * The screen-space water view: Babylon's `FluidRenderer` set up for water, drawing from the CPU buffers or,
 * on the WebGPU backend, from vertex buffers over the position storage buffer (and the GPU color buffer
 * when it colors particles one by one). It registers the fluid renderer's shaders up front: Babylon 9 loads
 * some of them lazily and then fails to compile them. Babylon's WebGPU engine does not rebuild raw cube
 * textures after a lost device, so the generated sky is made again on `onContextRestoredObservable`.
 */
import type { Buffer } from '@babylonjs/core/Buffers/buffer.js';
import type { DataBuffer } from '@babylonjs/core/Buffers/dataBuffer.js';
import type { Camera } from '@babylonjs/core/Cameras/camera.js';
import type { AbstractEngine } from '@babylonjs/core/Engines/abstractEngine.js';
import { Color3 } from '@babylonjs/core/Maths/math.color.js';
import { Vector3 } from '@babylonjs/core/Maths/math.vector.js';
import type { Observer } from '@babylonjs/core/Misc/observable.js';
import type {
  FluidRenderer,
  IFluidRenderingRenderObject,
} from '@babylonjs/core/Rendering/fluidRenderer/fluidRenderer.js';
import '@babylonjs/core/Rendering/fluidRenderer/fluidRenderer.js';
import type { BaseTexture } from '@babylonjs/core/Materials/Textures/baseTexture.js';
import type { FluidRenderingObject } from '@babylonjs/core/Rendering/fluidRenderer/fluidRenderingObject.js';
import type { FluidRenderingObjectCustomParticles } from '@babylonjs/core/Rendering/fluidRenderer/fluidRenderingObjectCustomParticles.js';
import type { Scene } from '@babylonjs/core/scene.js';
// Babylon's fluid renderer loads its shaders lazily, and some of them (the blur passes' fragments, the
// per-particle color pass's vertex shader, the full-screen vertex shader) arrive after the effect asked
// for them and are then fetched as files, which fails. Register them all up front.
import '@babylonjs/core/Shaders/fluidRenderingBilateralBlur.fragment.js';
import '@babylonjs/core/Shaders/fluidRenderingParticleDepth.fragment.js';
import '@babylonjs/core/Shaders/fluidRenderingParticleDepth.vertex.js';
import '@babylonjs/core/Shaders/fluidRenderingParticleDiffuse.fragment.js';
import '@babylonjs/core/Shaders/fluidRenderingParticleDiffuse.vertex.js';
import '@babylonjs/core/Shaders/fluidRenderingParticleThickness.fragment.js';
import '@babylonjs/core/Shaders/fluidRenderingParticleThickness.vertex.js';
import '@babylonjs/core/Shaders/fluidRenderingRender.fragment.js';
import '@babylonjs/core/Shaders/fluidRenderingStandardBlur.fragment.js';
import '@babylonjs/core/Shaders/postprocess.vertex.js';
import '@babylonjs/core/ShadersWGSL/fluidRenderingBilateralBlur.fragment.js';
import '@babylonjs/core/ShadersWGSL/fluidRenderingParticleDepth.fragment.js';
import '@babylonjs/core/ShadersWGSL/fluidRenderingParticleDepth.vertex.js';
import '@babylonjs/core/ShadersWGSL/fluidRenderingParticleDiffuse.fragment.js';
import '@babylonjs/core/ShadersWGSL/fluidRenderingParticleDiffuse.vertex.js';
import '@babylonjs/core/ShadersWGSL/fluidRenderingParticleThickness.fragment.js';
import '@babylonjs/core/ShadersWGSL/fluidRenderingParticleThickness.vertex.js';
import '@babylonjs/core/ShadersWGSL/fluidRenderingRender.fragment.js';
import '@babylonjs/core/ShadersWGSL/fluidRenderingStandardBlur.fragment.js';
import '@babylonjs/core/ShadersWGSL/postprocess.vertex.js';
import { type Color3Input, checkColor3 } from '../core/checks';
import { type AnisotropyOptions, type ResolvedAnisotropy, resolveAnisotropy } from '../systems/ellipsoids/settings';
import { createEllipsoidUpload, EllipsoidParticles } from './ellipsoidParticles';
import type { ParticleBuffers } from './particleFeed';
import { createSkyTexture } from './sky';
import { gpuColorBuffer, storageColors, storagePositions, uploadParticles } from './vertexBuffers';

/** Looks of the screen-space water; every field is optional. */
export interface FluidLookOptions {
  /**
   * Color whose complement the fluid absorbs with depth (Beer-Lambert: transmitted light is
   * `exp(-density * thickness * (1 - color))`): `[red, green, blue]` or a Babylon `Color3` or `Color4` (alpha
   * ignored), each channel in [0, 1]. Default: the first material's color.
   */
  color?: Color3Input;
  /** Absorption strength. Default 1.6. */
  density?: number;
  /** Screen-space refraction offset scale. Default 0.06. */
  refractionStrength?: number;
  /** Exponent of the specular highlight. Default 250. */
  specularPower?: number;
  /** Thickness a particle adds where it covers a pixel (the renderer's particleThicknessAlpha). Default 0.04. */
  particleThickness?: number;
  /** Drawn particle diameter as a multiple of the particle spacing (2r). Default 1.6. */
  particleSizeFactor?: number;
  /**
   * Draw each particle as the ellipsoid of its neighbourhood (Yu and Turk 2013; see {@link AnisotropyOptions}):
   * flat along the free surface, long along a thin stream, so the water's surface is smooth and a jet is one
   * stream instead of a string of beads. `false` draws spheres (Babylon's own particle shaders). Fixed when the
   * water is made. Default `true` (the defaults of {@link AnisotropyOptions}).
   */
  anisotropy?: boolean | AnisotropyOptions;
  /**
   * Cube texture the surface reflects (Fresnel). Default: the scene's `environmentTexture`, or, when the
   * scene has none, a generated sky (blue zenith, bright horizon, dim ground). `null`: no reflection.
   */
  environmentMap?: BaseTexture | null;
}

/**
 * The water's anisotropic particles as `look.anisotropy` asks (checked: a {@link FluidError} names a bad
 * field), or undefined for spheres (`false`).
 */
export function resolveLookAnisotropy(look: FluidLookOptions): ResolvedAnisotropy | undefined {
  const anisotropy: unknown = look.anisotropy;
  if (anisotropy === false) return undefined;
  return resolveAnisotropy(anisotropy === true ? undefined : (anisotropy as AnisotropyOptions | undefined));
}

/** The drawn particle diameter of the water: the particle spacing times `look.particleSizeFactor` (default 1.6). */
export function drawnDiameter(particleDiameter: number, look: FluidLookOptions): number {
  return particleDiameter * (look.particleSizeFactor ?? 1.6);
}

/**
 * One material drawn as its own liquid (the water's per-material layout, see {@link ScreenSpaceFluidView}):
 * its slot, its render color (the absorption tint) and whether it is some material's air or vapour (drawn as
 * bubbles: no absorption, more refraction).
 */
export interface LiquidLook {
  slot: number;
  color: [number, number, number];
  air: boolean;
}

/** One render object of the water and the material slot it draws (-1: every particle). */
interface WaterEntry {
  readonly renderObject: IFluidRenderingRenderObject;
  readonly slot: number;
}

/**
 * The screen-space water view. Two layouts: one render object for every particle (tinted by one color, or by
 * per-particle colors through Babylon's diffuse pass), or, with anisotropic particles and several materials
 * colored by material, one render object and target renderer per material (`liquids`): each material is then a
 * liquid of its own color and absorption, composited over the scene heaviest first (a lighter fluid, usually
 * the one around or above, refracts the heavier one behind it), air and vapour last as bubbles.
 */
export class ScreenSpaceFluidView {
  private entries: WaterEntry[] = [];
  /** The liquids' slots the entries were made for (empty: one render object for every particle). */
  private readonly slots: number[] = [];
  /** The storage buffer the render objects draw from (undefined: the CPU buffers). */
  private source: DataBuffer | undefined;
  /** On the GPU: the color storage buffer the render object's color vertex buffer reads (if any). */
  private colorSource: DataBuffer | undefined;
  private readonly fluidRenderer: FluidRenderer;
  private diffuse = false;
  private sky: BaseTexture | undefined;
  private readonly restoreObserver: Observer<AbstractEngine>;
  /** True when the water draws anisotropic particles (`look.anisotropy` is not false). */
  private readonly anisotropic: boolean;
  /** CPU backend, anisotropic particles: the upload buffer of the ellipsoids every render object reads. */
  private upload: Buffer | undefined;

  constructor(
    private readonly scene: Scene,
    private readonly buffers: ParticleBuffers,
    private readonly particleDiameter: number,
    private readonly camera: Camera | undefined,
    private readonly look: FluidLookOptions,
    private readonly defaultColor: () => [number, number, number],
    /** The plugin's `layerMask` now (the water draws nothing while its camera's layer mask excludes it). */
    private readonly layerMask: () => number = () => 0x0fffffff,
  ) {
    this.fluidRenderer = scene.enableFluidRenderer() as FluidRenderer;
    this.anisotropic = look.anisotropy !== false;
    this.restoreObserver = scene.getEngine().onContextRestoredObservable.add(() => this.rebuildSky());
  }

  /**
   * Makes the generated sky again after the engine restored a lost context: Babylon's WebGPU engine does
   * not rebuild raw cube textures, so the old one would still point at the lost device.
   */
  private rebuildSky(): void {
    const old = this.sky;
    if (old === undefined) return;
    this.sky = createSkyTexture(this.scene);
    for (const { renderObject } of this.entries) {
      const target = renderObject.targetRenderer;
      if (target.environmentMap === old) target.environmentMap = this.sky;
    }
    old.dispose();
  }

  /**
   * Creates one render object (with its own target renderer) drawing material slot `slot` (-1: every particle),
   * tinted by `liquid`'s color (else the look's), as anisotropic particles when the look has them.
   */
  private create(useDiffuseColors: boolean, slot: number, liquid: LiquidLook | undefined): WaterEntry {
    const buffers = this.buffers;
    const storage = buffers.gpuPositions;
    // On the GPU the render object starts with a placeholder position buffer, replaced below by one over
    // the storage buffer (passing the storage buffer as data would assume 3 floats per particle).
    const renderObject = this.fluidRenderer.addCustomParticles(
      storage === undefined
        ? { position: buffers.positions, color: buffers.colors }
        : { position: new Float32Array(3) },
      storage === undefined ? buffers.count : 0,
      useDiffuseColors,
      undefined,
      this.camera,
    );
    const look = this.look;
    if (this.anisotropic) renderObject.object = this.ellipsoidObject(renderObject.object, slot);
    const object = renderObject.object;
    if (storage !== undefined && !this.anisotropic) {
      const vertexBuffers = (object as FluidRenderingObjectCustomParticles).vertexBuffers;
      vertexBuffers.position?.dispose();
      vertexBuffers.position = storagePositions(this.scene.getEngine(), storage, 'position', true);
    }
    object.particleSize = drawnDiameter(this.particleDiameter, look);
    if (object instanceof EllipsoidParticles) object.computedDiameter = object.particleSize;
    object.particleThicknessAlpha = look.particleThickness ?? 0.04;
    const target = renderObject.targetRenderer;
    const color =
      liquid !== undefined
        ? liquid.color
        : look.color === undefined
          ? this.defaultColor()
          : checkColor3('look.color', look.color);
    target.fluidColor = new Color3(color[0], color[1], color[2]);
    target.density = look.density ?? 1.6;
    target.refractionStrength = look.refractionStrength ?? 0.06;
    target.specularPower = look.specularPower ?? 250;
    if (liquid?.air === true) {
      // Bubbles: clear (no absorption), bending the light more than water.
      target.fluidColor = new Color3(1, 1, 1);
      target.refractionStrength = 3 * target.refractionStrength;
    }
    let environment = look.environmentMap === undefined ? this.scene.environmentTexture : look.environmentMap;
    if (environment === undefined) environment = null;
    if (look.environmentMap === undefined && environment === null) {
      this.sky ??= createSkyTexture(this.scene);
      environment = this.sky;
    }
    target.environmentMap = environment;
    target.fresnelClamp = 0.9;
    target.dirLight = new Vector3(-1, -2, 0.6).normalize();
    target.minimumThickness = 0;
    target.enableBlurDepth = true;
    target.blurDepthFilterSize = 12;
    target.blurDepthNumIterations = 3;
    target.blurDepthDepthScale = 12;
    target.blurDepthSizeDivisor = 1;
    target.enableBlurThickness = true;
    target.blurThicknessFilterSize = 8;
    target.blurThicknessNumIterations = 2;
    target.blurThicknessSizeDivisor = 1;
    return { renderObject, slot };
  }

  /**
   * Puts anisotropic particles of material slot `slot` (-1: all) in place of the render object `original` that
   * `addCustomParticles` made (with the same buffers: the CPU color buffer, or the GPU's placeholder).
   * `original` stays only to relay size changes to the renderer, which listens to it.
   */
  private ellipsoidObject(original: FluidRenderingObject, slot: number): EllipsoidParticles {
    const buffers = this.buffers;
    const object = new EllipsoidParticles(
      this.scene,
      buffers.gpuPositions === undefined ? { color: buffers.colors } : {},
      0,
      slot,
    );
    object.priority = original.priority;
    object.onParticleSizeChanged.add(() => original.onParticleSizeChanged.notifyObservers(original));
    const placeholders = (original as FluidRenderingObjectCustomParticles).vertexBuffers;
    for (const name in placeholders) placeholders[name].dispose();
    return object;
  }

  /**
   * Draws the first `buffers.count` particles: in one render object (`useDiffuseColors` renders the
   * per-particle colors), or, given `liquids` (anisotropic particles only), one per material in that order.
   * On the CPU backend it uploads the positions (or the ellipsoids, once for every render object); on the GPU
   * (`buffers.gpuPositions` set) nothing is uploaded: the render objects read the storage buffers (positions or
   * ellipsoids and, with `useDiffuseColors`, the GPU color buffer). The render objects are made again only when
   * the backend or the layout (one, or which liquids) changes.
   */
  update(useDiffuseColors: boolean, liquids?: readonly LiquidLook[]): void {
    const storage = this.buffers.gpuPositions;
    const perMaterial = this.anisotropic && liquids !== undefined && liquids.length > 1;
    const slots = this.slots;
    let sameLayout = slots.length === (perMaterial ? liquids.length : 0);
    for (let k = 0; sameLayout && perMaterial && k < slots.length; k++) sameLayout = slots[k] === liquids[k].slot;
    if (this.entries.length > 0 && (this.source !== storage || !sameLayout)) this.release();
    if (this.entries.length === 0) {
      this.entries = perMaterial
        ? liquids.map((liquid) => this.create(false, liquid.slot, liquid))
        : [this.create(useDiffuseColors, -1, undefined)];
      slots.length = 0;
      if (perMaterial) for (const liquid of liquids) slots.push(liquid.slot);
      this.source = storage;
      this.diffuse = !perMaterial && useDiffuseColors;
      this.colorSource = undefined;
    }
    if (!perMaterial && this.diffuse !== useDiffuseColors) {
      this.entries[0].renderObject.targetRenderer.generateDiffuseTexture = useDiffuseColors;
      this.diffuse = useDiffuseColors;
    }
    const count = this.buffers.count;
    const engine = this.scene.getEngine();
    const ellipsoids = this.anisotropic ? this.ellipsoidSource(engine, count) : undefined;
    const drawn = this.seenByCamera() ? count : 0;
    for (let k = 0; k < this.entries.length; k++) {
      const { renderObject } = this.entries[k];
      const object = renderObject.object as FluidRenderingObjectCustomParticles;
      if (perMaterial) {
        const color = (liquids as readonly LiquidLook[])[k];
        if (!color.air) setColor(renderObject.targetRenderer.fluidColor, color.color);
      } else if (storage !== undefined && useDiffuseColors) {
        this.bindGpuColors(object);
      }
      if (object instanceof EllipsoidParticles && ellipsoids !== undefined) object.bindEllipsoids(engine, ellipsoids);
      if (storage === undefined) {
        const buffers = object.vertexBuffers;
        if (!this.anisotropic) uploadParticles(engine, buffers.position, this.buffers.positions, 3, count);
        if (useDiffuseColors && !perMaterial) uploadParticles(engine, buffers.color, this.buffers.colors, 4, count);
      }
      object.setNumParticles(drawn);
    }
  }

  /**
   * The buffer the anisotropic particles read: on the GPU the ellipsoid pass's output (undefined before its
   * first pass), on the CPU the upload buffer, into which this uploads the feed's ellipsoids of `count` particles.
   */
  private ellipsoidSource(engine: AbstractEngine, count: number): DataBuffer | undefined {
    const buffers = this.buffers;
    if (buffers.gpuPositions !== undefined) return buffers.gpuEllipsoids?.buffer.getBuffer();
    const data = buffers.ellipsoids;
    if (data === undefined) return undefined;
    this.upload ??= createEllipsoidUpload(engine, buffers.capacity);
    if (count > 0) this.upload.updateDirectly(data, 0, count);
    return this.upload.getBuffer() ?? undefined;
  }

  /**
   * False while the camera the water is drawn for (the target renderer's, else the scene's active camera)
   * excludes the plugin's `layerMask` (`camera.layerMask & layerMask` is 0): the water then draws no particle.
   * Babylon's `FluidRenderer` has no mesh to carry a layer mask, so this is how the view honours it.
   */
  private seenByCamera(): boolean {
    const camera = this.entries[0]?.renderObject.targetRenderer.camera ?? this.scene.activeCamera;
    return camera === null || (camera.layerMask & this.layerMask()) !== 0;
  }

  /**
   * On the GPU: points the render object's instanced color vertex buffer at the GPU color buffer (once
   * per color buffer; the diffuse pass reads it when `useDiffuseColors` is on).
   */
  private bindGpuColors(object: FluidRenderingObjectCustomParticles): void {
    const colors = gpuColorBuffer(this.buffers);
    if (colors === undefined || colors === this.colorSource) return;
    const vertexBuffers = object.vertexBuffers;
    vertexBuffers.color?.dispose();
    vertexBuffers.color = storageColors(this.scene.getEngine(), colors, 'color', true);
    this.colorSource = colors;
  }

  /** The first render object, once created (tests read its readiness). */
  get current(): IFluidRenderingRenderObject | undefined {
    return this.entries[0]?.renderObject;
  }

  /** Every render object and the material slot it draws (-1: every particle), in compositing order. */
  get renderObjects(): readonly { readonly renderObject: IFluidRenderingRenderObject; readonly slot: number }[] {
    return this.entries;
  }

  /** Removes the render objects (the view is off); `update` creates them again. */
  release(): void {
    for (const { renderObject } of this.entries) this.fluidRenderer.removeRenderObject(renderObject, true);
    this.entries = [];
    this.slots.length = 0;
    this.source = undefined;
    this.colorSource = undefined;
  }

  dispose(): void {
    this.scene.getEngine().onContextRestoredObservable.remove(this.restoreObserver);
    this.release();
    this.upload?.dispose();
    this.upload = undefined;
    this.sky?.dispose();
    this.sky = undefined;
    if (this.fluidRenderer.renderObjects.length === 0) this.scene.disableFluidRenderer();
  }
}

/** Sets `target` to `color` when they differ (a material's color edited live). */
function setColor(target: Color3, color: readonly [number, number, number]): void {
  if (target.r !== color[0] || target.g !== color[1] || target.b !== color[2]) target.set(color[0], color[1], color[2]);
}
