/**
 * The views of the fluid: Babylon's screen-space `FluidRenderer` (water), and debug views as points or
 * instanced spheres. Every view reads the {@link ParticleBuffers} that {@link feedParticles} fills; none
 * reads the simulation itself.
 */
import type { VertexBuffer } from '@babylonjs/core/Buffers/buffer.js';
import type { DataBuffer } from '@babylonjs/core/Buffers/dataBuffer.js';
import type { Camera } from '@babylonjs/core/Cameras/camera.js';
import type { AbstractEngine } from '@babylonjs/core/Engines/abstractEngine.js';
import { StandardMaterial } from '@babylonjs/core/Materials/standardMaterial.js';
import { Color3 } from '@babylonjs/core/Maths/math.color.js';
import { Vector3 } from '@babylonjs/core/Maths/math.vector.js';
import { CreateIcoSphere } from '@babylonjs/core/Meshes/Builders/icoSphereBuilder.js';
import { Mesh } from '@babylonjs/core/Meshes/mesh.js';
import { VertexData } from '@babylonjs/core/Meshes/mesh.vertexData.js';
import '@babylonjs/core/Meshes/thinInstanceMesh.js';
import type {
  FluidRenderer,
  IFluidRenderingRenderObject,
} from '@babylonjs/core/Rendering/fluidRenderer/fluidRenderer.js';
import '@babylonjs/core/Rendering/fluidRenderer/fluidRenderer.js';
import type { BaseTexture } from '@babylonjs/core/Materials/Textures/baseTexture.js';
import type { FluidRenderingObjectCustomParticles } from '@babylonjs/core/Rendering/fluidRenderer/fluidRenderingObjectCustomParticles.js';
import type { Scene } from '@babylonjs/core/scene.js';
// Babylon's fluid renderer loads its shaders lazily, and some of them (the blur passes' fragments, the
// per-particle colour pass's vertex shader, the full-screen vertex shader) arrive after the effect asked
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
import type { ParticleBuffers } from './particleFeed';
import { createSkyTexture } from './sky';

/**
 * How the plugin draws the fluid: `'fluid'` is Babylon's screen-space fluid renderer (a water surface),
 * `'points'` and `'spheres'` are debug views coloured by `colorBy`, `'none'` draws nothing.
 */
export type FluidRenderMode = 'fluid' | 'points' | 'spheres' | 'none';

/** True when Babylon's `FluidRenderer` can run on `engine`: WebGPU, or WebGL2 with float render targets. */
export function supportsFluidRenderer(engine: AbstractEngine): boolean {
  const caps = engine.getCaps();
  const floatTargets = caps.textureFloatRender || caps.textureHalfFloatRender;
  // NullEngine reports WebGL1-like capabilities without float render targets, so it is excluded here.
  return engine.isWebGPU || (engine.version >= 2 && floatTargets);
}

/** The engine call that uploads part of a dynamic vertex buffer (WebGL2, WebGPU and NullEngine have it). */
interface DynamicVertexBufferEngine {
  updateDynamicVertexBuffer(buffer: DataBuffer, data: Float32Array, byteOffset?: number, byteLength?: number): void;
}

/** Uploads the first `count` particles' worth (`floatsPerParticle` floats each) of `data` to `vertexBuffer`. */
function uploadParticles(
  engine: AbstractEngine,
  vertexBuffer: VertexBuffer | null | undefined,
  data: Float32Array,
  floatsPerParticle: number,
  count: number,
): void {
  const buffer = vertexBuffer?.getBuffer();
  if (buffer === null || buffer === undefined || count === 0) return;
  (engine as unknown as DynamicVertexBufferEngine).updateDynamicVertexBuffer(
    buffer,
    data,
    0,
    count * floatsPerParticle * 4,
  );
}

/** Looks of the screen-space water; every field is optional. */
export interface FluidLookOptions {
  /**
   * Colour whose complement the fluid absorbs with depth (Beer-Lambert: transmitted light is
   * `exp(-density * thickness * (1 - color))`). Default: the first material's colour.
   */
  color?: [number, number, number];
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
   * Cube texture the surface reflects (Fresnel). Default: the scene's `environmentTexture`, or, when the
   * scene has none, a generated sky (blue zenith, bright horizon, dim ground). `null`: no reflection.
   */
  environmentMap?: BaseTexture | null;
}

/** The screen-space water view. */
class ScreenSpaceFluidView {
  private renderObject: IFluidRenderingRenderObject | undefined;
  private readonly fluidRenderer: FluidRenderer;
  private diffuse = false;
  private sky: BaseTexture | undefined;

  constructor(
    private readonly scene: Scene,
    private readonly buffers: ParticleBuffers,
    private readonly particleDiameter: number,
    private readonly camera: Camera | undefined,
    private readonly look: FluidLookOptions,
    private readonly defaultColor: () => [number, number, number],
  ) {
    this.fluidRenderer = scene.enableFluidRenderer() as FluidRenderer;
  }

  /** Creates the render object (on first use and after switching back from another mode). */
  private create(useDiffuseColors: boolean): IFluidRenderingRenderObject {
    const buffers = this.buffers;
    const renderObject = this.fluidRenderer.addCustomParticles(
      { position: buffers.positions, color: buffers.colors },
      buffers.count,
      useDiffuseColors,
      undefined,
      this.camera,
    );
    const look = this.look;
    const object = renderObject.object;
    object.particleSize = this.particleDiameter * (look.particleSizeFactor ?? 1.6);
    object.particleThicknessAlpha = look.particleThickness ?? 0.04;
    const target = renderObject.targetRenderer;
    const color = look.color ?? this.defaultColor();
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

  /** Uploads the first `buffers.count` particles; `useDiffuseColors` renders the per-particle colours. */
  update(useDiffuseColors: boolean): void {
    if (this.renderObject !== undefined && this.diffuse !== useDiffuseColors) {
      this.renderObject.targetRenderer.generateDiffuseTexture = useDiffuseColors;
      this.diffuse = useDiffuseColors;
    }
    this.renderObject ??= this.create(useDiffuseColors);
    const object = this.renderObject.object;
    const count = this.buffers.count;
    const buffers = object.vertexBuffers;
    const engine = this.scene.getEngine();
    uploadParticles(engine, buffers.position, this.buffers.positions, 3, count);
    if (useDiffuseColors) uploadParticles(engine, buffers.color, this.buffers.colors, 4, count);
    (object as FluidRenderingObjectCustomParticles).setNumParticles(count);
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
  }

  dispose(): void {
    this.release();
    this.sky?.dispose();
    this.sky = undefined;
    if (this.fluidRenderer.renderObjects.length === 0) this.scene.disableFluidRenderer();
  }
}

/** The point-cloud debug view: one vertex per particle, coloured per vertex. */
class PointsView {
  readonly mesh: Mesh;
  private readonly material: StandardMaterial;

  constructor(
    scene: Scene,
    private readonly buffers: ParticleBuffers,
  ) {
    this.mesh = new Mesh('fluidPoints', scene);
    const data = new VertexData();
    data.positions = buffers.positions;
    data.colors = buffers.colors;
    data.applyToMesh(this.mesh, true);
    this.mesh.isUnIndexed = true;
    this.mesh.alwaysSelectAsActiveMesh = true;
    this.mesh.isPickable = false;
    this.mesh.doNotSyncBoundingInfo = true;
    this.material = new StandardMaterial('fluidPointsMaterial', scene);
    this.material.pointsCloud = true;
    this.material.pointSize = 4;
    this.material.disableLighting = true;
    this.material.emissiveColor = new Color3(1, 1, 1);
    this.mesh.material = this.material;
    this.mesh.setEnabled(false);
  }

  update(): void {
    const count = this.buffers.count;
    const mesh = this.mesh;
    mesh.setEnabled(count > 0);
    if (count === 0) return;
    const engine = mesh.getEngine();
    uploadParticles(engine, mesh.getVertexBuffer('position'), this.buffers.positions, 3, count);
    uploadParticles(engine, mesh.getVertexBuffer('color'), this.buffers.colors, 4, count);
    const subMesh = mesh.subMeshes?.[0];
    if (subMesh !== undefined) {
      subMesh.verticesStart = 0;
      subMesh.verticesCount = count;
    }
  }

  hide(): void {
    this.mesh.setEnabled(false);
  }

  dispose(): void {
    this.mesh.dispose();
    this.material.dispose();
  }
}

/** The sphere debug view: thin instances of a low-poly sphere, one per particle. */
class SpheresView {
  readonly mesh: Mesh;
  private readonly material: StandardMaterial;

  constructor(
    scene: Scene,
    private readonly buffers: ParticleBuffers,
    diameter: number,
  ) {
    this.mesh = CreateIcoSphere('fluidSpheres', { radius: 0.5, subdivisions: 1, flat: false }, scene);
    this.mesh.isPickable = false;
    this.mesh.alwaysSelectAsActiveMesh = true;
    this.mesh.doNotSyncBoundingInfo = true;
    this.material = new StandardMaterial('fluidSpheresMaterial', scene);
    this.material.specularColor = new Color3(0.25, 0.25, 0.25);
    this.material.diffuseColor = new Color3(1, 1, 1);
    this.mesh.material = this.material;
    buffers.matrixScale = diameter;
    buffers.matrices ??= new Float32Array(buffers.capacity * 16);
    buffers.matricesInitialised = false;
    this.mesh.thinInstanceSetBuffer('matrix', buffers.matrices, 16, false);
    this.mesh.thinInstanceSetBuffer('color', buffers.colors, 4, false);
    this.mesh.thinInstanceCount = 0;
    this.mesh.setEnabled(false);
  }

  update(): void {
    const count = this.buffers.count;
    const mesh = this.mesh;
    mesh.setEnabled(count > 0);
    mesh.thinInstanceCount = count;
    if (count === 0) return;
    mesh.thinInstanceBufferUpdated('matrix');
    mesh.thinInstanceBufferUpdated('color');
  }

  hide(): void {
    this.mesh.setEnabled(false);
  }

  dispose(): void {
    this.mesh.dispose();
    this.material.dispose();
    this.buffers.matrices = undefined;
    this.buffers.matricesInitialised = false;
  }
}

/** Owns the views, creates each on first use, shows the one of the current mode. */
export class FluidViews {
  private fluid: ScreenSpaceFluidView | undefined;
  private points: PointsView | undefined;
  private spheres: SpheresView | undefined;
  private shown: FluidRenderMode = 'none';

  constructor(
    private readonly scene: Scene,
    private readonly buffers: ParticleBuffers,
    private readonly particleDiameter: number,
    private readonly camera: Camera | undefined,
    private readonly look: FluidLookOptions,
    private readonly defaultColor: () => [number, number, number],
  ) {}

  /** True if the view of `mode` needs instance matrices from the feed. */
  static needsMatrices(mode: FluidRenderMode): boolean {
    return mode === 'spheres';
  }

  /** Prepares the view of `mode` (before the feed runs, so the sphere view's matrices exist). */
  prepare(mode: FluidRenderMode): void {
    if (mode === 'spheres') this.spheres ??= new SpheresView(this.scene, this.buffers, this.particleDiameter);
  }

  /** Shows `mode` with the data now in the buffers. */
  show(mode: FluidRenderMode, useDiffuseColors: boolean): void {
    if (mode !== this.shown) {
      if (this.shown === 'fluid') this.fluid?.release();
      if (this.shown === 'points') this.points?.hide();
      if (this.shown === 'spheres') this.spheres?.hide();
      this.shown = mode;
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
        );
        this.fluid.update(useDiffuseColors);
        break;
      case 'points':
        this.points ??= new PointsView(this.scene, this.buffers);
        this.points.update();
        break;
      case 'spheres':
        this.prepare('spheres');
        this.spheres?.update();
        break;
      case 'none':
        break;
    }
  }

  /** The screen-space render object while the fluid view is on. */
  get fluidRenderObject(): IFluidRenderingRenderObject | undefined {
    return this.fluid?.current;
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
    this.fluid = undefined;
    this.points = undefined;
    this.spheres = undefined;
  }
}
