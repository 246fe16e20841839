/**
 * The surface views of the fluid: the color-field isosurface as a Babylon mesh (`renderMode: 'surface'`,
 * Müller et al. 2003, section 4.2, fitted to the colliders' walls as in Harada et al. 2007, section 5.2) and
 * the surface particles as oriented discs (`renderMode: 'splats'`, point splatting, Müller et al. 2003,
 * section 4.1).
 *
 * Both are CPU-side: they read the simulation's `Position` and `Density` components. On the WebGPU backend
 * these are the components mirrored by the readbacks (with `mirror: 'every-frame'`, the default, a frame or
 * two behind the GPU; with `'on-demand'` or `'off'` only as fresh as the last readback).
 *
 * GPU objects: the mesh's vertex and index buffers are made once and updated in place each extraction
 * (only the written part of the vertex and index buffers is uploaded); they are made again only when the
 * extraction's buffers outgrow them. The splats are thin instances of one disc whose matrix buffer is sized once for
 * the simulation's capacity.
 */
import { VertexBuffer } from '@babylonjs/core/Buffers/buffer.js';
import type { DataBuffer } from '@babylonjs/core/Buffers/dataBuffer.js';
import { BoundingInfo } from '@babylonjs/core/Culling/boundingInfo.js';
import type { AbstractEngine } from '@babylonjs/core/Engines/abstractEngine.js';
import { Material } from '@babylonjs/core/Materials/material.js';
import { PBRMaterial } from '@babylonjs/core/Materials/PBR/pbrMaterial.js';
import { StandardMaterial } from '@babylonjs/core/Materials/standardMaterial.js';
import type { BaseTexture } from '@babylonjs/core/Materials/Textures/baseTexture.js';
import { Color3 } from '@babylonjs/core/Maths/math.color.js';
import { Vector3 } from '@babylonjs/core/Maths/math.vector.js';
import { CreateDisc } from '@babylonjs/core/Meshes/Builders/discBuilder.js';
import { Mesh } from '@babylonjs/core/Meshes/mesh.js';
import '@babylonjs/core/Meshes/thinInstanceMesh.js';
import type { Scene } from '@babylonjs/core/scene.js';
import { type Color3Input, checkColor3 } from '../core/checks';
import { FluidError } from '../core/errors';
import type { FluidSimulation } from '../systems/simulation';
import { resolveSurfaceExtractionOptions } from '../systems/surface/extractionOptions';
import { fitSurfaceToContextColliders } from '../systems/surface/fit';
import type { LevelSetOptions } from '../systems/surface/levelSet';
import { SurfaceExtractor } from '../systems/surface/marchingCubes';
import { gatherSurfaceParticles, SurfaceParticleBuffer } from '../systems/surface/particles';
import { SurfaceParticleDetector } from '../systems/surface/surfaceParticles';
import { createSkyTexture } from './sky';

/** Settings and looks of the `'surface'` and `'splats'` render modes; every field is optional. */
export interface FluidSurfaceOptions {
  /** Iso-level of the color field, in (0, 1). Default 0.5 (see `SurfaceExtractionOptions.isoLevel`). */
  isoLevel?: number;
  /** Grid cell size of the extraction (m). Default 1.5 x the particle radius; range [h / 16, h]. */
  cellSize?: number;
  /**
   * Level-set smoothing of the surface over time (Premoze et al. 2003, eq. 29: volume-preserving
   * mean-curvature flow of a field carried between frames). Default: off. `{}` turns it on with its defaults.
   */
  smoothing?: LevelSetOptions;
  /**
   * Vertices closer than this to a collider's wall are moved onto the wall (m, >= 0; Harada et al. 2007,
   * eq. 19). Default: the particle radius. 0 turns fitting off.
   */
  fitDistance?: number;
  /**
   * Base color of the water: `[red, green, blue]` or a Babylon `Color3` or `Color4` (alpha ignored; the
   * surface's opacity is `alpha`), each channel in [0, 1]. Default: the color of the first live particle's
   * material (a water blue while there is no particle), read when the view is made (on entering the mode),
   * on either backend.
   */
  color?: Color3Input;
  /** Opacity of the surface mesh, in [0, 1]. Default 0.6. */
  alpha?: number;
  /**
   * Threshold l of surface-particle detection (eq. 23) for the `'splats'` view, in units of 1 / h (> 0): a
   * particle gets a disc when |grad c_S| > surfaceThreshold / h. Default 0.75
   * (`DEFAULT_SURFACE_THRESHOLD`). Used by the splats only; it is not the WCSPH solver's
   * `surfaceThreshold` (`SphOptions`, in 1/m, default 0.5 / h), which gates that solver's surface tension
   * force, and changing one does not change the other.
   */
  surfaceThreshold?: number;
  /** Diameter of a splat disc as a multiple of the particle radius (> 0). Default 3. */
  splatSize?: number;
  /**
   * Cube texture the surface reflects. Default: the scene's `environmentTexture`, or a generated sky when
   * the scene has none. `null`: no reflection.
   */
  environmentMap?: BaseTexture | null;
}

/** The engine calls that upload part of a dynamic buffer (WebGL2, WebGPU and NullEngine have them). */
interface DynamicBufferEngine {
  updateDynamicVertexBuffer(buffer: DataBuffer, data: Float32Array, byteOffset?: number, byteLength?: number): void;
  updateDynamicIndexBuffer(buffer: DataBuffer, indices: Uint32Array, offset?: number): void;
}

/** Uploads the first `floats` numbers of `data` to the vertex buffer of `kind` of `mesh`. */
function uploadVertices(engine: AbstractEngine, mesh: Mesh, kind: string, data: Float32Array, floats: number): void {
  const buffer = mesh.getVertexBuffer(kind)?.getBuffer();
  if (buffer === null || buffer === undefined || floats === 0) return;
  (engine as unknown as DynamicBufferEngine).updateDynamicVertexBuffer(buffer, data, 0, floats * 4);
}

/**
 * Uploads the first `count` entries of `indices` to the index buffer of `mesh`. The engine takes a typed
 * array, so the written part goes as a view (no copy); `Geometry.updateIndices` is not used because a
 * shorter array than the buffer's makes it rebuild the mesh's sub-mesh on every call.
 */
function uploadIndices(engine: AbstractEngine, mesh: Mesh, indices: Uint32Array, count: number): void {
  const buffer = mesh.geometry?.getIndexBuffer();
  if (buffer === null || buffer === undefined || count === 0) return;
  (engine as unknown as DynamicBufferEngine).updateDynamicIndexBuffer(buffer, indices.subarray(0, count), 0);
}

/** Checks a view's update interval: an integer in [1, 1000] (updates). */
function checkInterval(interval: number): void {
  if (!(Number.isInteger(interval) && interval >= 1 && interval <= 1000)) {
    throw new FluidError(`interval is ${String(interval)}; it must be an integer in [1, 1000] (updates)`);
  }
}

function checkUnit(name: string, value: number | undefined, fallback: number): number {
  const result = value ?? fallback;
  if (!(typeof result === 'number' && result >= 0 && result <= 1)) {
    throw new FluidError(`${name} is ${String(value)}; it must be a number in [0, 1]`);
  }
  return result;
}

/**
 * Checks every field of `options` that the views read, for a simulation of particle radius `particleRadius`
 * and kernel radius `kernelRadius` (m); throws {@link FluidError} naming a bad one.
 */
export function checkSurfaceOptions(options: FluidSurfaceOptions, particleRadius: number, kernelRadius: number): void {
  if (typeof options !== 'object' || options === null) throw new FluidError('surface options must be an object');
  // The extractor's settings are checked without building one (its buffers are large); the detector's
  // constructor only checks and keeps a few numbers.
  resolveSurfaceExtractionOptions({
    particleRadius,
    kernelRadius,
    cellSize: options.cellSize,
    isoLevel: options.isoLevel,
    smoothing: options.smoothing,
  });
  new SurfaceParticleDetector({ kernelRadius, threshold: options.surfaceThreshold });
  const fit = options.fitDistance;
  if (fit !== undefined && !(typeof fit === 'number' && fit >= 0 && Number.isFinite(fit))) {
    throw new FluidError(`fitDistance is ${String(fit)}; it must be a finite number >= 0 (m)`);
  }
  checkUnit('alpha', options.alpha, 0.6);
  const size = options.splatSize;
  if (size !== undefined && !(typeof size === 'number' && size > 0 && Number.isFinite(size))) {
    throw new FluidError(`splatSize is ${String(size)}; it must be a finite number > 0 (particle radii)`);
  }
  if (options.color !== undefined) checkColor3('surface.color', options.color);
}

/**
 * The isosurface mesh view (`renderMode: 'surface'`): extracts the surface every `interval` updates
 * (gather, marching tetrahedra, wall fitting) and uploads it into the mesh's buffers in place.
 */
export class SurfaceMeshView {
  /** The water surface mesh (indexed, with normals). */
  readonly mesh: Mesh;
  private readonly material: PBRMaterial;
  private readonly particles = new SurfaceParticleBuffer();
  private readonly extractor: SurfaceExtractor;
  private readonly fitDistance: number;
  private sky: BaseTexture | undefined;
  /** The extraction arrays the mesh's buffers were made from (new arrays mean grown buffers). */
  private uploadedPositions: Float32Array | undefined;
  private uploadedIndices: Uint32Array | undefined;
  private updates = 0;
  private readonly boundsMin = new Vector3();
  private readonly boundsMax = new Vector3();
  private bounds: BoundingInfo | undefined;
  /** True when `options.color` set the color (then {@link SurfaceMeshView.setColor} is ignored). */
  private readonly fixedColor: boolean;

  /**
   * Makes the (empty, hidden) mesh and its material; the first {@link SurfaceMeshView.update} fills it.
   * `FluidPlugin` makes one on the first frame in `renderMode: 'surface'`.
   *
   * @param scene - The scene the mesh and material are added to.
   * @param simulation - The simulation whose `Position` and `Density` components are read, and whose
   *   colliders the surface is fitted to.
   * @param options - Extraction settings and looks (see {@link FluidSurfaceOptions}; checked by
   *   `checkSurfaceOptions`, bad values throw {@link FluidError}). Every field has a default.
   * @param interval - The surface is extracted on the first {@link SurfaceMeshView.update} and on every
   *   `interval`-th one after (an integer in [1, 1000], in updates, i.e. frames; the plugin's
   *   `surfaceUpdateInterval`, default 1).
   * @param color - Base color of the water (r, g, b in [0, 1]) when `options.color` is unset; the plugin
   *   passes the first particle's material color. The albedo is this color times 0.35 (the darker body
   *   color of water seen through its reflection).
   */
  constructor(
    private readonly scene: Scene,
    private readonly simulation: FluidSimulation,
    options: FluidSurfaceOptions,
    private readonly interval: number,
    color: [number, number, number],
  ) {
    const settings = simulation.settings;
    checkSurfaceOptions(options, settings.particleRadius, settings.kernelRadius);
    checkInterval(interval);
    checkColor3('color', color);
    this.extractor = new SurfaceExtractor({
      particleRadius: settings.particleRadius,
      kernelRadius: settings.kernelRadius,
      cellSize: options.cellSize,
      isoLevel: options.isoLevel,
      smoothing: options.smoothing,
    });
    this.fitDistance = options.fitDistance ?? settings.particleRadius;
    this.mesh = new Mesh('fluidSurface', scene);
    this.mesh.isPickable = false;
    this.mesh.alwaysSelectAsActiveMesh = true;
    this.mesh.doNotSyncBoundingInfo = true;
    const material = new PBRMaterial('fluidSurfaceMaterial', scene);
    this.fixedColor = options.color !== undefined;
    const base = options.color === undefined ? color : checkColor3('surface.color', options.color);
    material.albedoColor = new Color3(base[0] * 0.35, base[1] * 0.35, base[2] * 0.35);
    material.metallic = 0;
    material.roughness = 0.05;
    material.alpha = options.alpha ?? 0.6;
    material.transparencyMode = PBRMaterial.PBRMATERIAL_ALPHABLEND;
    material.indexOfRefraction = 1.33;
    // The extraction winds triangles counter-clockwise seen from outside in the right-hand sense, the
    // reverse of Babylon's builders (whose meshes default to counter-clockwise in a left-handed scene and
    // clockwise in a right-handed one): the front faces need the other orientation.
    material.sideOrientation = scene.useRightHandedSystem
      ? Material.CounterClockWiseSideOrientation
      : Material.ClockWiseSideOrientation;
    let environment = options.environmentMap === undefined ? scene.environmentTexture : options.environmentMap;
    if (options.environmentMap === undefined && (environment === null || environment === undefined)) {
      try {
        this.sky = createSkyTexture(scene);
      } catch {
        // An engine without texture support (NullEngine) cannot make the sky: no reflection then.
        this.sky = undefined;
      }
      environment = this.sky ?? null;
    }
    material.reflectionTexture = environment;
    this.material = material;
    this.mesh.material = material;
    this.mesh.setEnabled(false);
  }

  /** The extractor (its mesh arrays hold the last extraction). */
  get extraction(): SurfaceExtractor {
    return this.extractor;
  }

  /** Extracts and uploads the surface on the first call and every `interval`-th call after. */
  update(): void {
    const due = this.updates % this.interval === 0;
    this.updates++;
    if (!due) {
      this.mesh.setEnabled(this.extractor.indexCount > 0);
      return;
    }
    const simulation = this.simulation;
    const extractor = this.extractor;
    extractor.extract(gatherSurfaceParticles(simulation, this.particles));
    if (this.fitDistance > 0) {
      fitSurfaceToContextColliders(
        simulation.internalContext,
        extractor.positions,
        extractor.normals,
        extractor.vertexCount,
        this.fitDistance,
      );
    }
    this.upload();
  }

  private upload(): void {
    const extractor = this.extractor;
    const mesh = this.mesh;
    const indexCount = extractor.indexCount;
    mesh.setEnabled(indexCount > 0);
    if (indexCount === 0) return;
    if (this.uploadedPositions !== extractor.positions || this.uploadedIndices !== extractor.indices) {
      // First upload, or the extraction outgrew the buffers: make them again at the new capacity.
      mesh.setVerticesData(VertexBuffer.PositionKind, extractor.positions, true, 3);
      mesh.setVerticesData(VertexBuffer.NormalKind, extractor.normals, true, 3);
      mesh.setIndices(extractor.indices, extractor.positions.length / 3, true);
      this.uploadedPositions = extractor.positions;
      this.uploadedIndices = extractor.indices;
    } else {
      const engine = this.scene.getEngine();
      uploadVertices(engine, mesh, VertexBuffer.PositionKind, extractor.positions, 3 * extractor.vertexCount);
      uploadVertices(engine, mesh, VertexBuffer.NormalKind, extractor.normals, 3 * extractor.vertexCount);
      uploadIndices(engine, mesh, extractor.indices, indexCount);
    }
    // Bounds of the written vertices (the buffers' tails are stale), for culling and transparent sorting.
    const positions = extractor.positions;
    const min = this.boundsMin.setAll(Number.POSITIVE_INFINITY);
    const max = this.boundsMax.setAll(Number.NEGATIVE_INFINITY);
    for (let p = 0; p < 3 * extractor.vertexCount; p += 3) {
      min.minimizeInPlaceFromFloats(positions[p], positions[p + 1], positions[p + 2]);
      max.maximizeInPlaceFromFloats(positions[p], positions[p + 1], positions[p + 2]);
    }
    const world = mesh.getWorldMatrix();
    mesh.getBoundingInfo().reConstruct(min, max, world);
    if (this.bounds === undefined) this.bounds = new BoundingInfo(min, max, world);
    else this.bounds.reConstruct(min, max, world);
    const subMesh = mesh.subMeshes?.[0];
    if (subMesh !== undefined) {
      subMesh.verticesStart = 0;
      subMesh.verticesCount = extractor.vertexCount;
      subMesh.indexStart = 0;
      subMesh.indexCount = indexCount;
      subMesh.setBoundingInfo(this.bounds);
    }
  }

  /**
   * Sets the base color (r, g, b in [0, 1]; the albedo is 0.35 times it) unless `options.color` fixed it.
   * The plugin calls it once the first particle exists when the view was made before any.
   */
  setColor(color: [number, number, number]): void {
    checkColor3('color', color);
    if (!this.fixedColor) this.material.albedoColor.set(color[0] * 0.35, color[1] * 0.35, color[2] * 0.35);
  }

  /** Hides the mesh (the view is off). */
  hide(): void {
    this.mesh.setEnabled(false);
  }

  /** Disposes the mesh, its material and the generated sky. */
  dispose(): void {
    this.mesh.dispose();
    this.material.dispose();
    this.sky?.dispose();
    this.sky = undefined;
  }
}

/**
 * The point-splat view (`renderMode: 'splats'`): one disc per surface particle (|grad c_S| > l, eq. 23),
 * facing along its outward normal (eq. 24) and placed a particle radius out from the particle center (where
 * the surface is), as thin instances of one disc mesh.
 */
export class SplatView {
  /** The disc mesh whose thin instances are the splats. */
  readonly mesh: Mesh;
  private readonly material: StandardMaterial;
  private readonly particles = new SurfaceParticleBuffer();
  private readonly detector: SurfaceParticleDetector;
  private readonly matrices: Float32Array;
  private readonly diameter: number;
  private readonly offset: number;
  private updates = 0;
  /** True when `options.color` set the color (then {@link SplatView.setColor} is ignored). */
  private readonly fixedColor: boolean;

  /**
   * Makes the (hidden) disc mesh, its material and a thin-instance matrix buffer sized for the simulation's
   * capacity; the first {@link SplatView.update} places the discs. `FluidPlugin` makes one on the first
   * frame in `renderMode: 'splats'`.
   *
   * @param scene - The scene the disc mesh and material are added to.
   * @param simulation - The simulation whose `Position` and `Density` components are read.
   * @param options - Detection settings and looks (see {@link FluidSurfaceOptions}: `surfaceThreshold`,
   *   `splatSize`, `color`); every field has a default; bad values throw {@link FluidError}.
   * @param interval - The splats are placed again on the first {@link SplatView.update} and on every
   *   `interval`-th one after (an integer in [1, 1000], in updates, i.e. frames; the plugin's
   *   `surfaceUpdateInterval`, default 1).
   * @param color - Diffuse color of the discs (r, g, b in [0, 1]) when `options.color` is unset; the plugin
   *   passes the first particle's material color.
   */
  constructor(
    scene: Scene,
    private readonly simulation: FluidSimulation,
    options: FluidSurfaceOptions,
    private readonly interval: number,
    color: [number, number, number],
  ) {
    const settings = simulation.settings;
    checkSurfaceOptions(options, settings.particleRadius, settings.kernelRadius);
    checkInterval(interval);
    checkColor3('color', color);
    this.detector = new SurfaceParticleDetector({
      kernelRadius: settings.kernelRadius,
      threshold: options.surfaceThreshold,
    });
    this.diameter = (options.splatSize ?? 3) * settings.particleRadius;
    this.offset = settings.particleRadius;
    // A unit disc in the xy plane; its front face looks along local -z.
    this.mesh = CreateDisc('fluidSplats', { radius: 0.5, tessellation: 12 }, scene);
    this.mesh.isPickable = false;
    this.mesh.alwaysSelectAsActiveMesh = true;
    this.mesh.doNotSyncBoundingInfo = true;
    this.material = new StandardMaterial('fluidSplatsMaterial', scene);
    this.fixedColor = options.color !== undefined;
    const base = options.color === undefined ? color : checkColor3('surface.color', options.color);
    this.material.diffuseColor = new Color3(base[0], base[1], base[2]);
    this.material.specularColor = new Color3(0.6, 0.6, 0.6);
    this.material.specularPower = 64;
    this.material.backFaceCulling = false;
    this.mesh.material = this.material;
    this.matrices = new Float32Array(16 * settings.capacity);
    this.mesh.thinInstanceSetBuffer('matrix', this.matrices, 16, false);
    this.mesh.thinInstanceCount = 0;
    this.mesh.setEnabled(false);
  }

  /** The detector (its arrays hold the last detection). */
  get detection(): SurfaceParticleDetector {
    return this.detector;
  }

  /** Finds the surface particles and writes their disc matrices on the first and every `interval`-th call. */
  update(): void {
    const due = this.updates % this.interval === 0;
    this.updates++;
    if (!due) return;
    const particles = gatherSurfaceParticles(this.simulation, this.particles);
    const count = this.detector.detect(particles);
    const { indices, normals } = this.detector;
    const m = this.matrices;
    const s = this.diameter;
    for (let k = 0; k < count; k++) {
      const p = indices[k];
      const nx = normals[3 * k];
      const ny = normals[3 * k + 1];
      const nz = normals[3 * k + 2];
      // Local z goes to -n (the disc's front face looks along local -z, so it faces outward); x is any
      // unit vector across n; y = z x x completes a right-handed frame. Babylon's matrices act on row
      // vectors: the rows are the images of the local axes, the last row the translation.
      const zx = -nx;
      const zy = -ny;
      const zz = -nz;
      let ax = 1;
      let ay = 0;
      if (Math.abs(nx) > 0.9) {
        ax = 0;
        ay = 1;
      }
      // x = normalize(a x z) with a = (ax, ay, 0).
      let xx = ay * zz;
      let xy = -ax * zz;
      let xz = ax * zy - ay * zx;
      const length = Math.sqrt(xx * xx + xy * xy + xz * xz);
      xx /= length;
      xy /= length;
      xz /= length;
      const yx = zy * xz - zz * xy;
      const yy = zz * xx - zx * xz;
      const yz = zx * xy - zy * xx;
      const o = 16 * k;
      m[o] = s * xx;
      m[o + 1] = s * xy;
      m[o + 2] = s * xz;
      m[o + 3] = 0;
      m[o + 4] = s * yx;
      m[o + 5] = s * yy;
      m[o + 6] = s * yz;
      m[o + 7] = 0;
      m[o + 8] = s * zx;
      m[o + 9] = s * zy;
      m[o + 10] = s * zz;
      m[o + 11] = 0;
      m[o + 12] = particles.x[p] + this.offset * nx;
      m[o + 13] = particles.y[p] + this.offset * ny;
      m[o + 14] = particles.z[p] + this.offset * nz;
      m[o + 15] = 1;
    }
    const mesh = this.mesh;
    mesh.setEnabled(count > 0);
    mesh.thinInstanceCount = count;
    if (count > 0) mesh.thinInstanceBufferUpdated('matrix');
  }

  /**
   * Sets the discs' diffuse color (r, g, b in [0, 1]) unless `options.color` fixed it. The plugin calls it
   * once the first particle exists when the view was made before any.
   */
  setColor(color: [number, number, number]): void {
    checkColor3('color', color);
    if (!this.fixedColor) this.material.diffuseColor.set(color[0], color[1], color[2]);
  }

  /** Hides the discs (the view is off). */
  hide(): void {
    this.mesh.setEnabled(false);
  }

  /** Disposes the disc mesh and its material. */
  dispose(): void {
    this.mesh.dispose();
    this.material.dispose();
  }
}
