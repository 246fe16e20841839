/**
 * The views of the fluid: Babylon's screen-space `FluidRenderer` (water), and debug views as points or
 * instanced spheres. Every one of these reads the {@link ParticleBuffers} that {@link feedParticles} fills;
 * the surface views (`'surface'`, `'splats'`, see surfaceRenderer.ts) read the simulation's components
 * instead, on the CPU. On the WebGPU backend the views draw straight from the simulation's
 * position storage buffer (`ParticleBuffers.gpuPositions`) through vertex buffers over it (stride 16 bytes,
 * xyz read), and take per-particle colors from the color buffer the GPU color pass writes in the same
 * order (`ParticleBuffers.gpuColors`, see particleColors.ts), bound the same way as an instanced (spheres,
 * water) or per-vertex (points) color attribute: no position or color is read back or uploaded per frame.
 * Their GPU objects are made once per storage buffer (again only when the backend changes, e.g. after a
 * lost device).
 */
import { VertexBuffer } from '@babylonjs/core/Buffers/buffer.js';
import type { DataBuffer } from '@babylonjs/core/Buffers/dataBuffer.js';
import type { Camera } from '@babylonjs/core/Cameras/camera.js';
import type { AbstractEngine } from '@babylonjs/core/Engines/abstractEngine.js';
import { ShaderLanguage } from '@babylonjs/core/Materials/shaderLanguage.js';
import { ShaderMaterial } from '@babylonjs/core/Materials/shaderMaterial.js';
import { StandardMaterial } from '@babylonjs/core/Materials/standardMaterial.js';
import { Color3 } from '@babylonjs/core/Maths/math.color.js';
import { Vector3 } from '@babylonjs/core/Maths/math.vector.js';
import { CreateIcoSphere } from '@babylonjs/core/Meshes/Builders/icoSphereBuilder.js';
import { Mesh } from '@babylonjs/core/Meshes/mesh.js';
import { VertexData } from '@babylonjs/core/Meshes/mesh.vertexData.js';
import type { Observer } from '@babylonjs/core/Misc/observable.js';
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
import type { FluidSimulation } from '../systems/simulation';
import type { ParticleBuffers } from './particleFeed';
import { createSkyTexture } from './sky';
import { type FluidSurfaceOptions, SplatView, SurfaceMeshView } from './surfaceRenderer';

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

/**
 * A vertex buffer of `kind` reading xyz from the position storage buffer `storage` (one vec4, 16 bytes, per
 * particle). Disposing the vertex buffer releases one reference to `storage`: it takes one here, so the
 * storage buffer lives on until its owner (the simulation's solver) disposes it too.
 */
function storagePositions(engine: AbstractEngine, storage: DataBuffer, kind: string, instanced: boolean): VertexBuffer {
  storage.references++;
  return new VertexBuffer(engine, storage, kind, false, false, 4, instanced, 0, 3);
}

/**
 * A vertex buffer of `kind` reading r, g, b, a from the color storage buffer `storage` (one vec4 per
 * particle, see particleColors.ts); it takes a reference to `storage` as {@link storagePositions} does.
 */
function storageColors(engine: AbstractEngine, storage: DataBuffer, kind: string, instanced: boolean): VertexBuffer {
  storage.references++;
  return new VertexBuffer(engine, storage, kind, false, false, 4, instanced, 0, 4);
}

/** The GPU color buffer of `buffers` (undefined on the CPU backend or before the GPU color pass was made). */
function gpuColorBuffer(buffers: ParticleBuffers): DataBuffer | undefined {
  return buffers.gpuColors?.colorBuffer.getBuffer();
}

/** Looks of the screen-space water; every field is optional. */
export interface FluidLookOptions {
  /**
   * Color whose complement the fluid absorbs with depth (Beer-Lambert: transmitted light is
   * `exp(-density * thickness * (1 - color))`). Default: the first material's color.
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
  /** The storage buffer the render object draws from (undefined: the CPU buffers). */
  private source: DataBuffer | undefined;
  /** On the GPU: the color storage buffer the render object's color vertex buffer reads (if any). */
  private colorSource: DataBuffer | undefined;
  private readonly fluidRenderer: FluidRenderer;
  private diffuse = false;
  private sky: BaseTexture | undefined;
  private readonly restoreObserver: Observer<AbstractEngine>;

  constructor(
    private readonly scene: Scene,
    private readonly buffers: ParticleBuffers,
    private readonly particleDiameter: number,
    private readonly camera: Camera | undefined,
    private readonly look: FluidLookOptions,
    private readonly defaultColor: () => [number, number, number],
  ) {
    this.fluidRenderer = scene.enableFluidRenderer() as FluidRenderer;
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
    const object = renderObject.object;
    if (storage !== undefined) {
      const vertexBuffers = (object as FluidRenderingObjectCustomParticles).vertexBuffers;
      vertexBuffers.position?.dispose();
      vertexBuffers.position = storagePositions(this.scene.getEngine(), storage, 'position', true);
    }
    this.source = storage;
    this.colorSource = undefined;
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
    if (storage === undefined) {
      const buffers = object.vertexBuffers;
      const engine = this.scene.getEngine();
      uploadParticles(engine, buffers.position, this.buffers.positions, 3, count);
      if (useDiffuseColors) uploadParticles(engine, buffers.color, this.buffers.colors, 4, count);
    }
    (object as FluidRenderingObjectCustomParticles).setNumParticles(count);
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
  }

  dispose(): void {
    this.scene.getEngine().onContextRestoredObservable.remove(this.restoreObserver);
    this.release();
    this.sky?.dispose();
    this.sky = undefined;
    if (this.fluidRenderer.renderObjects.length === 0) this.scene.disableFluidRenderer();
  }
}

/** The point-cloud debug view: one vertex per particle, colored per vertex. */
class PointsView {
  readonly mesh: Mesh;
  /** It reads the CPU buffers. */
  readonly source: DataBuffer | undefined = undefined;
  /** Its colors are the CPU buffers' too. */
  readonly colorSource: DataBuffer | undefined = undefined;
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
  /** It reads the CPU buffers. */
  readonly source: DataBuffer | undefined = undefined;
  /** Its colors are the CPU buffers' too. */
  readonly colorSource: DataBuffer | undefined = undefined;
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

/**
 * The point-cloud view on the GPU: one vertex per particle read from the position storage buffer, colored
 * per vertex from the GPU color buffer.
 */
class GpuPointsView {
  readonly mesh: Mesh;
  private readonly material: StandardMaterial;

  constructor(
    scene: Scene,
    private readonly buffers: ParticleBuffers,
    readonly source: DataBuffer,
    readonly colorSource: DataBuffer,
  ) {
    this.mesh = new Mesh('fluidPoints', scene);
    this.mesh.isUnIndexed = true;
    const engine = scene.getEngine();
    this.mesh.setVerticesBuffer(
      storagePositions(engine, source, VertexBuffer.PositionKind, false),
      true,
      buffers.capacity,
    );
    this.mesh.setVerticesBuffer(
      storageColors(engine, colorSource, VertexBuffer.ColorKind, false),
      true,
      buffers.capacity,
    );
    this.mesh.alwaysSelectAsActiveMesh = true;
    this.mesh.isPickable = false;
    this.mesh.doNotSyncBoundingInfo = true;
    // As the CPU view: a white emissive material multiplied by the vertex colors.
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
    const subMesh = mesh.subMeshes?.[0];
    if (count === 0 || subMesh === undefined) return;
    subMesh.verticesStart = 0;
    subMesh.verticesCount = count;
  }

  hide(): void {
    this.mesh.setEnabled(false);
  }

  dispose(): void {
    this.mesh.dispose();
    this.material.dispose();
  }
}

/** The GPU sphere view's vertex shader: the unit-diameter sphere scaled and moved to its instance's particle. */
const GPU_SPHERE_VERTEX = /* wgsl */ `
attribute position : vec3f;
attribute normal : vec3f;
attribute particlePosition : vec3f;
attribute particleColor : vec4f;
uniform viewProjection : mat4x4f;
uniform diameter : f32;
varying vNormal : vec3f;
varying vColor : vec3f;

@vertex
fn main(input : VertexInputs) -> FragmentInputs {
  let world = vertexInputs.position * uniforms.diameter + vertexInputs.particlePosition;
  vertexOutputs.position = uniforms.viewProjection * vec4f(world, 1.0);
  vertexOutputs.vNormal = vertexInputs.normal;
  vertexOutputs.vColor = vertexInputs.particleColor.rgb;
}
`;

/** The GPU sphere view's fragment shader: the particle's color, lit by a fixed sky light. */
const GPU_SPHERE_FRAGMENT = /* wgsl */ `
varying vNormal : vec3f;
varying vColor : vec3f;

@fragment
fn main(input : FragmentInputs) -> FragmentOutputs {
  let normal = normalize(fragmentInputs.vNormal);
  let light = 0.45 + 0.55 * max(dot(normal, normalize(vec3f(0.3, 1.0, -0.4))), 0.0);
  fragmentOutputs.color = vec4f(fragmentInputs.vColor * light, 1.0);
}
`;

/**
 * The sphere view on the GPU: a low-poly sphere drawn once per particle (instanced), each instance placed
 * by a vertex buffer over the position storage buffer and colored by one over the GPU color buffer.
 */
class GpuSpheresView {
  readonly mesh: Mesh;
  private readonly material: ShaderMaterial;

  constructor(
    scene: Scene,
    private readonly buffers: ParticleBuffers,
    readonly source: DataBuffer,
    readonly colorSource: DataBuffer,
    diameter: number,
  ) {
    this.mesh = CreateIcoSphere('fluidSpheres', { radius: 0.5, subdivisions: 1, flat: false }, scene);
    this.mesh.isPickable = false;
    this.mesh.alwaysSelectAsActiveMesh = true;
    this.mesh.doNotSyncBoundingInfo = true;
    this.mesh.setVerticesBuffer(storagePositions(scene.getEngine(), source, 'particlePosition', true));
    this.mesh.setVerticesBuffer(storageColors(scene.getEngine(), colorSource, 'particleColor', true));
    this.material = new ShaderMaterial(
      'fluidSpheresMaterial',
      scene,
      { vertexSource: GPU_SPHERE_VERTEX, fragmentSource: GPU_SPHERE_FRAGMENT },
      {
        attributes: ['position', 'normal', 'particlePosition', 'particleColor'],
        uniforms: ['viewProjection', 'diameter'],
        shaderLanguage: ShaderLanguage.WGSL,
      },
    );
    this.material.setFloat('diameter', diameter);
    this.mesh.material = this.material;
    this.mesh.setEnabled(false);
  }

  update(): void {
    const count = this.buffers.count;
    // A forced instance count of 0 would draw one sphere: the mesh is off instead.
    this.mesh.setEnabled(count > 0);
    this.mesh.forcedInstanceCount = count;
  }

  hide(): void {
    this.mesh.setEnabled(false);
  }

  dispose(): void {
    this.mesh.dispose();
    this.material.dispose();
  }
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

  constructor(
    private readonly scene: Scene,
    private readonly buffers: ParticleBuffers,
    private readonly particleDiameter: number,
    private readonly camera: Camera | undefined,
    private readonly look: FluidLookOptions,
    private readonly defaultColor: () => [number, number, number],
    private readonly surfaceSource?: SurfaceSource,
  ) {}

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
    this.spheres ??= new SpheresView(this.scene, this.buffers, this.particleDiameter);
  }

  /** Shows `mode` with the data now in the buffers. */
  show(mode: FluidRenderMode, useDiffuseColors: boolean): void {
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
        );
        this.fluid.update(useDiffuseColors);
        break;
      case 'points':
        // On the GPU the view needs the color buffer (the plugin makes it first with `feedGpuColors`).
        if (storage === undefined) this.points ??= new PointsView(this.scene, this.buffers);
        else if (colors !== undefined) this.points ??= new GpuPointsView(this.scene, this.buffers, storage, colors);
        this.points?.update();
        break;
      case 'spheres':
        if (storage === undefined) this.prepare('spheres');
        else if (colors !== undefined) {
          this.spheres ??= new GpuSpheresView(this.scene, this.buffers, storage, colors, this.particleDiameter);
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
  private makeSurfaceView<View>(
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
    return new type(this.scene, source.simulation, source.options, source.updateInterval, this.defaultColor());
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
