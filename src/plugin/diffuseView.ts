/**
 * White water's view (docs/white-water.md): the simulation's diffuse particles (spray, foam, bubbles) drawn
 * as soft, depth-tested, camera-facing discs, one instance of a quad per particle, by a small shader material
 * (GLSL on WebGL2, WGSL on WebGPU) that takes each kind's opacity from the look. Per particle it reads
 * (x, y, z, 2 kind + fade), the fade going out over the last half second of its lifetime: on the CPU backend
 * written and uploaded each frame (the live ones), on the WebGPU backend straight from the GPU pool's storage
 * buffer (every slot; a free slot is moved out of view). They are ordinary scene meshes: Babylon's screen-space
 * water (`'fluid'` mode) is composited over the scene afterwards and refracts them, so bubbles show through
 * the water.
 */
import { VertexBuffer } from '@babylonjs/core/Buffers/buffer.js';
import type { DataBuffer } from '@babylonjs/core/Buffers/dataBuffer.js';
import type { Camera } from '@babylonjs/core/Cameras/camera.js';
import { Constants } from '@babylonjs/core/Engines/constants.js';
import { ShaderLanguage } from '@babylonjs/core/Materials/shaderLanguage.js';
import { ShaderMaterial } from '@babylonjs/core/Materials/shaderMaterial.js';
import { Color3, Vector3 } from '@babylonjs/core/Maths/math.js';
import { Mesh } from '@babylonjs/core/Meshes/mesh.js';
import { VertexData } from '@babylonjs/core/Meshes/mesh.vertexData.js';
import type { Scene } from '@babylonjs/core/scene.js';
import { type Color3Input, checkColor3, checkKnownKeys, checkNumber, optionNames } from '../core/checks';
import { FluidError } from '../core/errors';
import { DIFFUSE_FADE_TIME } from '../systems/diffuse/state';
import { DiffuseParticle } from '../systems/gpu/structs';
import type { FluidSimulation } from '../systems/simulation';
import { uploadParticles } from './vertexBuffers';

/** The look of white water (`whiteWater` of the plugin's options; live in `FluidPlugin.whiteWater`). */
export interface FluidWhiteWaterLook {
  /** Whether the diffuse particles are drawn (in every render mode but `'none'`). Default true. */
  visible?: boolean;
  /** Diameter of a diffuse particle's disc in m, (0, 100]. Default: the particle radius r. */
  size?: number;
  /** Color of the discs, each channel in [0, 1] (`[r, g, b]` or a Babylon `Color3`). Default white. */
  color?: Color3Input;
  /** Opacity of spray at its center, [0, 1]. Default 0.9. */
  sprayOpacity?: number;
  /** Opacity of foam at its center, [0, 1]. Default 0.85. */
  foamOpacity?: number;
  /** Opacity of a bubble at its center, [0, 1]. Default 0.5. */
  bubbleOpacity?: number;
}

/** The names of {@link FluidWhiteWaterLook}. */
export const WHITE_WATER_LOOK_NAMES = optionNames<FluidWhiteWaterLook>()(
  'visible',
  'size',
  'color',
  'sprayOpacity',
  'foamOpacity',
  'bubbleOpacity',
);

/** A white-water look with every default applied. */
export type ResolvedWhiteWaterLook = Required<Omit<FluidWhiteWaterLook, 'color'>> & { color: [number, number, number] };

/** Checks `look` (throws {@link FluidError} naming a bad value) and applies the defaults; `radius` is r. */
export function resolveWhiteWaterLook(look: FluidWhiteWaterLook, radius: number): ResolvedWhiteWaterLook {
  if (typeof look !== 'object' || look === null) {
    throw new FluidError(`whiteWater is ${String(look)}; it must be an object of white-water look options`);
  }
  checkKnownKeys('whiteWater', look, WHITE_WATER_LOOK_NAMES);
  const visible = look.visible ?? true;
  if (typeof visible !== 'boolean')
    throw new FluidError(`whiteWater.visible is ${String(visible)}; it must be a boolean`);
  const size = checkNumber('whiteWater.size', look.size ?? radius, Number.MIN_VALUE, 100);
  const opacity = (name: 'sprayOpacity' | 'foamOpacity' | 'bubbleOpacity', fallback: number) =>
    checkNumber(`whiteWater.${name}`, look[name] ?? fallback, 0, 1);
  return {
    visible,
    size,
    color: checkColor3('whiteWater.color', look.color ?? [1, 1, 1]),
    sprayOpacity: opacity('sprayOpacity', 0.9),
    foamOpacity: opacity('foamOpacity', 0.85),
    bubbleOpacity: opacity('bubbleOpacity', 0.5),
  };
}

/** True when `value` is an opacity in [0, 1]. */
function opacity(value: number): boolean {
  return value >= 0 && value <= 1;
}

/** True when every value of the live `look` is in its range (checked each frame without allocating). */
function lookInRange(look: ResolvedWhiteWaterLook): boolean {
  const color = look.color;
  if (!Array.isArray(color) || color.length !== 3) return false;
  for (let channel = 0; channel < 3; channel++) if (!(color[channel] >= 0 && color[channel] <= 1)) return false;
  return (
    opacity(look.sprayOpacity) &&
    opacity(look.foamOpacity) &&
    opacity(look.bubbleOpacity) &&
    typeof look.visible === 'boolean' &&
    look.size > 0 &&
    look.size <= 100
  );
}

/**
 * The vertex shaders read per particle (x, y, z, 2 kind + fade): the kind (0 spray, 1 foam, 2 bubble) picks
 * the opacity, the fade in [0, 1] scales it; a particle with no opacity (a free slot) is moved out of view.
 */
const VERTEX_GLSL = `precision highp float;
attribute vec3 position;
attribute vec4 diffuseParticle;
uniform mat4 viewProjection;
uniform vec3 cameraRight;
uniform vec3 cameraUp;
uniform float size;
uniform vec3 opacities;
varying vec2 vCorner;
varying float vOpacity;
void main(void) {
  float kind = floor(diffuseParticle.w * 0.5);
  float fade = diffuseParticle.w - 2.0 * kind;
  float opacity = fade * (kind < 0.5 ? opacities.x : (kind < 1.5 ? opacities.y : opacities.z));
  vec3 world = diffuseParticle.xyz + (position.x * cameraRight + position.y * cameraUp) * size;
  gl_Position = opacity > 0.0 ? viewProjection * vec4(world, 1.0) : vec4(2.0, 2.0, 2.0, 1.0);
  vCorner = position.xy * 2.0;
  vOpacity = opacity;
}
`;

const FRAGMENT_GLSL = `precision highp float;
uniform vec3 color;
varying vec2 vCorner;
varying float vOpacity;
void main(void) {
  float r2 = dot(vCorner, vCorner);
  if (r2 > 1.0) discard;
  gl_FragColor = vec4(color, vOpacity * (1.0 - r2));
}
`;

const VERTEX_WGSL = /* wgsl */ `
attribute position : vec3f;
attribute diffuseParticle : vec4f;
uniform viewProjection : mat4x4f;
uniform cameraRight : vec3f;
uniform cameraUp : vec3f;
uniform size : f32;
uniform opacities : vec3f;
varying vCorner : vec2f;
varying vOpacity : f32;

@vertex
fn main(input : VertexInputs) -> FragmentInputs {
  let corner = vertexInputs.position;
  let particle = vertexInputs.diffuseParticle;
  let kind = floor(particle.w * 0.5);
  let fade = particle.w - 2.0 * kind;
  let opacity = fade * select(select(uniforms.opacities.z, uniforms.opacities.y, kind < 1.5), uniforms.opacities.x, kind < 0.5);
  let world = particle.xyz + (corner.x * uniforms.cameraRight + corner.y * uniforms.cameraUp) * uniforms.size;
  vertexOutputs.position = select(vec4f(2.0, 2.0, 2.0, 1.0), uniforms.viewProjection * vec4f(world, 1.0), opacity > 0.0);
  vertexOutputs.vCorner = corner.xy * 2.0;
  vertexOutputs.vOpacity = opacity;
}
`;

const FRAGMENT_WGSL = /* wgsl */ `
uniform color : vec3f;
varying vCorner : vec2f;
varying vOpacity : f32;

@fragment
fn main(input : FragmentInputs) -> FragmentOutputs {
  let r2 = dot(fragmentInputs.vCorner, fragmentInputs.vCorner);
  if (r2 > 1.0) {
    discard;
  }
  fragmentOutputs.color = vec4f(uniforms.color, fragmentInputs.vOpacity * (1.0 - r2));
}
`;

/**
 * The diffuse particles' discs: one instanced quad, (x, y, z, 2 kind + fade) per particle. On the CPU backend
 * from `simulation.diffuseParticles`, uploaded each frame (the live ones); on the WebGPU backend from the pool's
 * storage buffer itself (its `render` vec4 per slot, written by the advection pass; a free slot draws nothing),
 * every slot drawn, nothing read back or uploaded.
 */
export class DiffuseView {
  /** The quad mesh, drawn once per diffuse particle (per pool slot on the WebGPU backend). */
  readonly mesh: Mesh;
  /** The live look (edits apply from the next frame; checked then). */
  readonly look: ResolvedWhiteWaterLook;
  private readonly material: ShaderMaterial;
  /** Per particle: x, y, z, 2 kind + fade (the CPU backend's). */
  private readonly data: Float32Array;
  private readonly cpuInstances: VertexBuffer;
  /** The vertex buffer over the GPU pool and the storage buffer it reads, while the WebGPU backend runs. */
  private gpuInstances: VertexBuffer | undefined;
  private gpuSource: DataBuffer | undefined;
  private readonly right = new Vector3();
  private readonly up = new Vector3();
  private readonly color = new Color3();
  private readonly opacities = new Vector3();

  constructor(
    private readonly scene: Scene,
    private readonly simulation: FluidSimulation,
    look: ResolvedWhiteWaterLook,
  ) {
    this.look = look;
    const engine = scene.getEngine();
    this.mesh = new Mesh('fluidWhiteWater', scene);
    const quad = new VertexData();
    quad.positions = [-0.5, -0.5, 0, 0.5, -0.5, 0, 0.5, 0.5, 0, -0.5, 0.5, 0];
    quad.indices = [0, 1, 2, 0, 2, 3];
    quad.applyToMesh(this.mesh);
    this.mesh.isPickable = false;
    this.mesh.alwaysSelectAsActiveMesh = true;
    this.mesh.doNotSyncBoundingInfo = true;
    this.data = new Float32Array(Math.max(1, simulation.diffuseParticles.capacity) * 4);
    this.cpuInstances = new VertexBuffer(engine, this.data, 'diffuseParticle', true, false, 4, true);
    this.mesh.setVerticesBuffer(this.cpuInstances);
    const webgpu = engine.isWebGPU;
    this.material = new ShaderMaterial(
      'fluidWhiteWaterMaterial',
      scene,
      webgpu
        ? { vertexSource: VERTEX_WGSL, fragmentSource: FRAGMENT_WGSL }
        : { vertexSource: VERTEX_GLSL, fragmentSource: FRAGMENT_GLSL },
      {
        attributes: ['position', 'diffuseParticle'],
        uniforms: ['viewProjection', 'cameraRight', 'cameraUp', 'size', 'opacities', 'color'],
        needAlphaBlending: true,
        shaderLanguage: webgpu ? ShaderLanguage.WGSL : ShaderLanguage.GLSL,
      },
    );
    this.material.backFaceCulling = false;
    this.material.disableDepthWrite = true;
    this.material.alphaMode = Constants.ALPHA_COMBINE;
    this.mesh.material = this.material;
    this.mesh.setEnabled(false);
  }

  /**
   * Shows the diffuse particles facing `camera` (the CPU backend's written and uploaded; the WebGPU backend's
   * bound once); hides the view when the look is not visible, there is no camera or no diffuse particle.
   */
  update(camera: Camera | null | undefined): void {
    const p = this.simulation.diffuseParticles;
    const look = this.look;
    const storage = this.simulation.gpuSolver?.storageBuffer('diffuseParticles').getBuffer();
    const count = storage !== undefined ? p.capacity : p.count;
    if (!look.visible || camera === null || camera === undefined || count === 0) {
      this.mesh.setEnabled(false);
      return;
    }
    if (!lookInRange(look)) {
      // A bad value throws, naming it; a Color3 or Color4 given for `color` becomes its tuple.
      look.color = resolveWhiteWaterLook(look, look.size).color;
    }
    const checked = look;
    if (storage !== undefined) {
      this.bindGpu(storage);
    } else {
      this.bindCpu();
      const data = this.data;
      for (let d = 0; d < count; d++) {
        const o = 4 * d;
        data[o] = p.positionX[d];
        data[o + 1] = p.positionY[d];
        data[o + 2] = p.positionZ[d];
        // Fading out over the last DIFFUSE_FADE_TIME seconds; just below 1 at most, so that 2 kind + fade keeps
        // the kind (the GPU's advection writes the same, diffuse/diffuse.wgsl).
        const fade = Math.min(0.999, Math.max(0, (p.lifetime[d] - p.age[d]) / DIFFUSE_FADE_TIME));
        data[o + 3] = 2 * p.kind[d] + fade;
      }
      uploadParticles(this.scene.getEngine(), this.cpuInstances, data, 4, count);
    }
    // The camera's right and up axes in world space: the first two columns of the view matrix's rotation.
    const view = camera.getViewMatrix().m;
    this.right.set(view[0], view[4], view[8]);
    this.up.set(view[1], view[5], view[9]);
    this.material.setVector3('cameraRight', this.right);
    this.material.setVector3('cameraUp', this.up);
    this.material.setFloat('size', checked.size);
    this.opacities.set(checked.sprayOpacity, checked.foamOpacity, checked.bubbleOpacity);
    this.material.setVector3('opacities', this.opacities);
    this.color.set(checked.color[0], checked.color[1], checked.color[2]);
    this.material.setColor3('color', this.color);
    this.mesh.forcedInstanceCount = count;
    this.mesh.setEnabled(true);
  }

  /** Draws from the GPU pool `storage` (its `render` vec4s): a vertex buffer over it, made once per buffer. */
  private bindGpu(storage: DataBuffer): void {
    if (this.gpuSource === storage && this.gpuInstances !== undefined) return;
    this.gpuInstances?.dispose();
    const floats = DiffuseParticle.size / 4;
    // One reference to the storage buffer for the vertex buffer (released when it is disposed).
    storage.references++;
    this.gpuInstances = new VertexBuffer(
      this.scene.getEngine(),
      storage,
      'diffuseParticle',
      false,
      false,
      floats,
      true,
      DiffuseParticle.offsets.render / 4,
      4,
    );
    this.gpuSource = storage;
    this.mesh.setVerticesBuffer(this.gpuInstances);
  }

  /** Draws from the CPU buffer again (after a lost device the CPU backend runs). */
  private bindCpu(): void {
    if (this.gpuInstances === undefined) return;
    this.gpuInstances.dispose();
    this.gpuInstances = undefined;
    this.gpuSource = undefined;
    this.mesh.setVerticesBuffer(this.cpuInstances);
  }

  /** Hides the discs (render mode `'none'`). */
  hide(): void {
    this.mesh.setEnabled(false);
  }

  dispose(): void {
    this.mesh.dispose();
    this.material.dispose();
    this.cpuInstances.dispose();
    this.gpuInstances?.dispose();
  }
}
