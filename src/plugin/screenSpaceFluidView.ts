/**
 * The screen-space water view: Babylon's `FluidRenderer` set up for water, drawing from the CPU buffers or,
 * on the WebGPU backend, from vertex buffers over the position storage buffer (and the GPU color buffer
 * when it colors particles one by one). It registers the fluid renderer's shaders up front: Babylon 9 loads
 * some of them lazily and then fails to compile them. Babylon's WebGPU engine does not rebuild raw cube
 * textures after a lost device, so the generated sky is made again on `onContextRestoredObservable`.
 */
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
import { EllipsoidParticles } from './ellipsoidParticles';
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

/** The screen-space water view. */
export class ScreenSpaceFluidView {
  private renderObject: IFluidRenderingRenderObject | undefined;
  /** The storage buffer the render object draws from (undefined: the CPU buffers). */
  private source: DataBuffer | undefined;
  /** On the GPU: the color storage buffer the render object's color vertex buffer reads (if any). */
  private colorSource: DataBuffer | undefined;
  private readonly fluidRenderer: FluidRenderer;
  private diffuse = false;
  private sky: BaseTexture | undefined;
  private readonly restoreObserver: Observer<AbstractEngine>;
  /** True when the water draws anisotropic particles (`look.anisotropy` is not false). */
  private readonly anisotropic: boolean;
  /** On the GPU: the ellipsoid storage buffer the anisotropic particles' vertex buffers read (if any). */
  private ellipsoidSource: DataBuffer | undefined;

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
    const target = this.renderObject?.targetRenderer;
    if (target !== undefined && target.environmentMap === old) target.environmentMap = this.sky;
    old.dispose();
  }

  /** Creates the render object (on first use and after switching back from another mode). */
  private create(useDiffuseColors: boolean): IFluidRenderingRenderObject {
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
    if (this.anisotropic) renderObject.object = this.ellipsoidObject(renderObject.object);
    const object = renderObject.object;
    if (storage !== undefined) {
      const vertexBuffers = (object as FluidRenderingObjectCustomParticles).vertexBuffers;
      vertexBuffers.position?.dispose();
      vertexBuffers.position = storagePositions(this.scene.getEngine(), storage, 'position', true);
    }
    this.source = storage;
    this.colorSource = undefined;
    this.ellipsoidSource = undefined;
    object.particleSize = drawnDiameter(this.particleDiameter, look);
    object.particleThicknessAlpha = look.particleThickness ?? 0.04;
    const target = renderObject.targetRenderer;
    const color = look.color === undefined ? this.defaultColor() : checkColor3('look.color', look.color);
    target.fluidColor = new Color3(color[0], color[1], color[2]);
    target.density = look.density ?? 1.6;
    target.refractionStrength = look.refractionStrength ?? 0.06;
    target.specularPower = look.specularPower ?? 250;
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
    this.diffuse = useDiffuseColors;
    return renderObject;
  }

  /**
   * Puts anisotropic particles in place of the render object `original` that `addCustomParticles` made (with
   * the same buffers: the CPU color buffer, or the GPU's placeholder). `original` stays only to relay size
   * changes to the renderer, which listens to it.
   */
  private ellipsoidObject(original: FluidRenderingObject): EllipsoidParticles {
    const buffers = this.buffers;
    const object = new EllipsoidParticles(
      this.scene,
      buffers.gpuPositions === undefined ? { color: buffers.colors } : {},
      0,
    );
    object.priority = original.priority;
    object.onParticleSizeChanged.add(() => original.onParticleSizeChanged.notifyObservers(original));
    const placeholders = (original as FluidRenderingObjectCustomParticles).vertexBuffers;
    for (const name in placeholders) placeholders[name].dispose();
    return object;
  }

  /**
   * Uploads the first `buffers.count` particles; `useDiffuseColors` renders the per-particle colors. On the
   * GPU (`buffers.gpuPositions` set) nothing is uploaded: the render object reads the storage buffer (and,
   * with `useDiffuseColors`, the GPU color buffer), and is made again only when that buffer changes (a new
   * backend).
   */
  update(useDiffuseColors: boolean): void {
    const storage = this.buffers.gpuPositions;
    if (this.renderObject !== undefined && this.source !== storage) this.release();
    if (this.renderObject !== undefined && this.diffuse !== useDiffuseColors) {
      this.renderObject.targetRenderer.generateDiffuseTexture = useDiffuseColors;
      this.diffuse = useDiffuseColors;
    }
    this.renderObject ??= this.create(useDiffuseColors);
    const object = this.renderObject.object;
    const count = this.buffers.count;
    if (storage !== undefined && useDiffuseColors) this.bindGpuColors(object as FluidRenderingObjectCustomParticles);
    const engine = this.scene.getEngine();
    if (object instanceof EllipsoidParticles) {
      const ellipsoids = this.buffers.gpuEllipsoids?.buffer.getBuffer();
      if (storage !== undefined && ellipsoids !== undefined && ellipsoids !== this.ellipsoidSource) {
        object.bindStorage(engine, ellipsoids);
        this.ellipsoidSource = ellipsoids;
      }
      const data = this.buffers.ellipsoids;
      if (storage === undefined && data !== undefined)
        object.uploadEllipsoids(engine, data, count, this.buffers.capacity);
    }
    if (storage === undefined) {
      const buffers = object.vertexBuffers;
      if (!(object instanceof EllipsoidParticles))
        uploadParticles(engine, buffers.position, this.buffers.positions, 3, count);
      if (useDiffuseColors) uploadParticles(engine, buffers.color, this.buffers.colors, 4, count);
    }
    (object as FluidRenderingObjectCustomParticles).setNumParticles(this.seenByCamera() ? count : 0);
  }

  /**
   * False while the camera the water is drawn for (the target renderer's, else the scene's active camera)
   * excludes the plugin's `layerMask` (`camera.layerMask & layerMask` is 0): the water then draws no particle.
   * Babylon's `FluidRenderer` has no mesh to carry a layer mask, so this is how the view honours it.
   */
  private seenByCamera(): boolean {
    const camera = this.renderObject?.targetRenderer.camera ?? this.scene.activeCamera;
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

  /** The render object, once created (tests read its readiness). */
  get current(): IFluidRenderingRenderObject | undefined {
    return this.renderObject;
  }

  /** Removes the render object (the view is off); `update` creates it again. */
  release(): void {
    if (this.renderObject === undefined) return;
    this.fluidRenderer.removeRenderObject(this.renderObject, true);
    this.renderObject = undefined;
    this.source = undefined;
    this.colorSource = undefined;
    this.ellipsoidSource = undefined;
  }

  dispose(): void {
    this.scene.getEngine().onContextRestoredObservable.remove(this.restoreObserver);
    this.release();
    this.sky?.dispose();
    this.sky = undefined;
    if (this.fluidRenderer.renderObjects.length === 0) this.scene.disableFluidRenderer();
  }
}
