/**
 * The screen-space water's anisotropic particles (docs/rendering.md, "Anisotropic particles"): a render object of
 * Babylon's `FluidRenderer` that draws each particle into the depth and thickness passes as the ellipsoid the
 * simulation computed for it (Yu and Turk 2013; systems/ellipsoids/), instead of a sphere. Each particle is one
 * camera-facing quad around its ellipsoid; the fragment shader casts the pixel's ray into the ellipsoid and
 * writes the depth of the front hit (depth pass) or the chord through it (thickness pass). Babylon's blur,
 * diffuse-color and composition passes are unchanged. GLSL (WebGL2) and WGSL (WebGPU), registered in Babylon's
 * shader store under their own names.
 *
 * Its vertex buffers read `ELLIPSOID_FLOATS` floats per particle: `position` (the drawn centre), `shape0` and
 * `shape1` (the shape matrix), as instanced attributes over one buffer: on the CPU backend a dynamic vertex buffer
 * the view uploads the simulation's `writeEllipsoids` output into; on WebGPU the storage buffer the GPU pass
 * writes (ellipsoidPass.ts), so nothing is uploaded or read back per frame.
 */
import { Buffer, VertexBuffer } from '@babylonjs/core/Buffers/buffer.js';
import type { DataBuffer } from '@babylonjs/core/Buffers/dataBuffer.js';
import type { AbstractEngine } from '@babylonjs/core/Engines/abstractEngine.js';
import { Constants } from '@babylonjs/core/Engines/constants.js';
import { ShaderStore } from '@babylonjs/core/Engines/shaderStore.js';
import { EffectWrapper } from '@babylonjs/core/Materials/effectRenderer.js';
import { FluidRenderingObjectCustomParticles } from '@babylonjs/core/Rendering/fluidRenderer/fluidRenderingObjectCustomParticles.js';
import type { Scene } from '@babylonjs/core/scene.js';
import { ELLIPSOID_FLOATS } from '../systems/ellipsoids/settings';

/** The attributes of an ellipsoid: name, offset (floats) in its `ELLIPSOID_FLOATS`, size (floats). */
const ELLIPSOID_ATTRIBUTES = [
  ['position', 0, 3],
  ['material', 3, 1],
  ['shape0', 4, 4],
  ['shape1', 8, 2],
] as const;

// The vertex shader of both passes. The shape matrix M in view space (R M R^T, R the view's rotation, times
// shapeScale: the render object's particleSize against the one the ellipsoids were computed for, squared) and its
// inverse (from its cofactors; M is symmetric positive definite), whose rows the fragment shader dots the ray
// with; the ellipsoid's half extents along the view axes, sqrt(M_xx), sqrt(M_yy), sqrt(M_zz); and a quad in the
// plane of its centre (as Babylon's spheres: the near plane clips only what is in front of it) covering its
// perspective image: a side of the box at lateral offset s projects to s d / z over the box's depths z, so the
// quad's side is s d / z_near where s points away from the view axis and s d / z_far where it points across it
// (d the centre's depth; z_near capped at d / 100 when the camera is inside the box's depths). M = 0 (a place the
// solver no longer fills), or another material than the object's MATERIAL_SLOT (-1: every material), puts the
// quad outside the clip volume.
const GLSL_VERTEX = `attribute vec3 position;attribute float material;attribute vec2 offset;attribute vec4 shape0;attribute vec2 shape1;
uniform mat4 view;uniform mat4 projection;uniform float shapeScale;
varying vec3 viewPos;varying vec3 centre;varying vec3 inverse0;varying vec3 inverse1;varying vec3 inverse2;
#ifdef FLUIDRENDERING_RHS
#define FORWARD -1.0
#else
#define FORWARD 1.0
#endif
void main(void) {
mat3 rotation=mat3(view);
mat3 m=shapeScale*(rotation*mat3(shape0.x,shape0.y,shape0.z,shape0.y,shape0.w,shape1.x,shape0.z,shape1.x,shape1.y)*transpose(rotation));
float c00=m[1][1]*m[2][2]-m[1][2]*m[1][2];float c01=m[0][2]*m[1][2]-m[0][1]*m[2][2];float c02=m[0][1]*m[1][2]-m[0][2]*m[1][1];
float c11=m[0][0]*m[2][2]-m[0][2]*m[0][2];float c12=m[0][1]*m[0][2]-m[0][0]*m[1][2];float c22=m[0][0]*m[1][1]-m[0][1]*m[0][1];
float det=m[0][0]*c00+m[0][1]*c01+m[0][2]*c02;float inverseDet=det>0.0?1.0/det:0.0;
inverse0=vec3(c00,c01,c02)*inverseDet;inverse1=vec3(c01,c11,c12)*inverseDet;inverse2=vec3(c02,c12,c22)*inverseDet;
vec3 extent=sqrt(max(vec3(m[0][0],m[1][1],m[2][2]),vec3(0.0)));
centre=(view*vec4(position,1.0)).xyz;
float depth=FORWARD*centre.z;bool perspective=projection[2][3]!=0.0&&depth>0.0;
float nearScale=perspective?depth/max(depth-extent.z,0.01*depth):1.0;float farScale=perspective?depth/(depth+extent.z):1.0;
vec2 high=centre.xy+extent.xy;vec2 low=centre.xy-extent.xy;
high*=mix(vec2(farScale),vec2(nearScale),step(0.0,high));low*=mix(vec2(nearScale),vec2(farScale),step(0.0,low));
viewPos=vec3(mix(low,high,offset),centre.z);
bool drawn=det>0.0&&(MATERIAL_SLOT<0.0||abs(material-MATERIAL_SLOT)<0.5);
gl_Position=drawn?projection*vec4(viewPos,1.0):vec4(0.0,0.0,2.0,1.0);
}
`;

// The pixel's ray x = origin + t direction, from the pixel's point on the quad (next to the ellipsoid, so that
// float32 keeps the quadratic's digits at any distance) along the eye's ray through it (or the view axis for an
// orthographic projection), against (x - c)^T M^-1 (x - c) = 1: a t^2 + 2 b t + (p^T M^-1 p - 1) = 0, p =
// origin - c, so t = (-b -+ sqrt(discriminant)) / a (negative t: the hit lies before the quad's plane).
const GLSL_RAY = `uniform mat4 projection;
varying vec3 viewPos;varying vec3 centre;varying vec3 inverse0;varying vec3 inverse1;varying vec3 inverse2;
#ifdef FLUIDRENDERING_RHS
#define FORWARD -1.0
#else
#define FORWARD 1.0
#endif
`;
const GLSL_HIT = `bool perspective=projection[2][3]!=0.0;
vec3 origin=viewPos;vec3 direction=perspective?normalize(viewPos):vec3(0.0,0.0,FORWARD);
vec3 p=origin-centre;vec3 q=vec3(dot(inverse0,direction),dot(inverse1,direction),dot(inverse2,direction));
vec3 qp=vec3(dot(inverse0,p),dot(inverse1,p),dot(inverse2,p));
float a=dot(direction,q);float b=dot(p,q);float discriminant=b*b-a*(dot(p,qp)-1.0);if (discriminant<0.0||a<=0.0) discard;
`;

const GLSL_DEPTH = `${GLSL_RAY}void main(void) {
${GLSL_HIT}vec3 hit=origin+direction*((-b-sqrt(discriminant))/a);vec4 clip=projection*vec4(hit,1.0);
#ifdef WEBGPU
gl_FragDepth=clip.z/clip.w;
#else
gl_FragDepth=(clip.z/clip.w)*0.5+0.5;
#endif
glFragColor=vec4(FORWARD*hit.z,0.,0.,1.);
}
`;

// Thickness: the chord through the ellipsoid over the drawn diameter (a sphere of the drawn size gives
// Babylon's sqrt(1 - r^2) at the pixel).
const GLSL_THICKNESS = `${GLSL_RAY}uniform float particleAlpha;uniform vec2 size;void main(void) {
${GLSL_HIT}float chord=2.0*sqrt(discriminant)/a;glFragColor=vec4(vec3(particleAlpha*chord/size.x),1.0);
}
`;

const WGSL_VERTEX = `attribute position: vec3f;attribute material: f32;attribute offset: vec2f;attribute shape0: vec4f;attribute shape1: vec2f;
uniform view: mat4x4f;uniform projection: mat4x4f;uniform shapeScale: f32;
varying viewPos: vec3f;varying centre: vec3f;varying inverse0: vec3f;varying inverse1: vec3f;varying inverse2: vec3f;
#ifdef FLUIDRENDERING_RHS
const FORWARD: f32=-1.0;
#else
const FORWARD: f32=1.0;
#endif
@vertex
fn main(input: VertexInputs)->FragmentInputs {
let rotation=mat3x3f(uniforms.view[0].xyz,uniforms.view[1].xyz,uniforms.view[2].xyz);
let s0=vertexInputs.shape0;let s1=vertexInputs.shape1;
let m=uniforms.shapeScale*(rotation*mat3x3f(s0.x,s0.y,s0.z,s0.y,s0.w,s1.x,s0.z,s1.x,s1.y)*transpose(rotation));
let c00=m[1][1]*m[2][2]-m[1][2]*m[1][2];let c01=m[0][2]*m[1][2]-m[0][1]*m[2][2];let c02=m[0][1]*m[1][2]-m[0][2]*m[1][1];
let c11=m[0][0]*m[2][2]-m[0][2]*m[0][2];let c12=m[0][1]*m[0][2]-m[0][0]*m[1][2];let c22=m[0][0]*m[1][1]-m[0][1]*m[0][1];
let det=m[0][0]*c00+m[0][1]*c01+m[0][2]*c02;let inverseDet=select(0.0,1.0/det,det>0.0);
vertexOutputs.inverse0=vec3f(c00,c01,c02)*inverseDet;vertexOutputs.inverse1=vec3f(c01,c11,c12)*inverseDet;vertexOutputs.inverse2=vec3f(c02,c12,c22)*inverseDet;
let extent=sqrt(max(vec3f(m[0][0],m[1][1],m[2][2]),vec3f(0.0)));
let c=(uniforms.view*vec4f(vertexInputs.position,1.0)).xyz;
vertexOutputs.centre=c;
let depth=FORWARD*c.z;let perspective=uniforms.projection[2][3]!=0.0&&depth>0.0;
let nearScale=select(1.0,depth/max(depth-extent.z,0.01*depth),perspective);let farScale=select(1.0,depth/(depth+extent.z),perspective);
var high=c.xy+extent.xy;var low=c.xy-extent.xy;
high=high*mix(vec2f(farScale),vec2f(nearScale),step(vec2f(0.0),high));low=low*mix(vec2f(nearScale),vec2f(farScale),step(vec2f(0.0),low));
let corner=vec3f(mix(low,high,vertexInputs.offset),c.z);
vertexOutputs.viewPos=corner;
let drawn=det>0.0&&(MATERIAL_SLOT<0.0||abs(vertexInputs.material-MATERIAL_SLOT)<0.5);
vertexOutputs.position=select(vec4f(0.0,0.0,2.0,1.0),uniforms.projection*vec4f(corner,1.0),drawn);
}
`;

const WGSL_RAY = `uniform projection: mat4x4f;
varying viewPos: vec3f;varying centre: vec3f;varying inverse0: vec3f;varying inverse1: vec3f;varying inverse2: vec3f;
#ifdef FLUIDRENDERING_RHS
const FORWARD: f32=-1.0;
#else
const FORWARD: f32=1.0;
#endif
`;
const WGSL_HIT = `let perspective=uniforms.projection[2][3]!=0.0;
let origin=input.viewPos;let direction=select(vec3f(0.0,0.0,FORWARD),normalize(input.viewPos),perspective);
let p=origin-input.centre;let q=vec3f(dot(input.inverse0,direction),dot(input.inverse1,direction),dot(input.inverse2,direction));
let qp=vec3f(dot(input.inverse0,p),dot(input.inverse1,p),dot(input.inverse2,p));
let a=dot(direction,q);let b=dot(p,q);let discriminant=b*b-a*(dot(p,qp)-1.0);if (discriminant<0.0||a<=0.0) {discard;}
`;

const WGSL_DEPTH = `${WGSL_RAY}@fragment
fn main(input: FragmentInputs)->FragmentOutputs {
${WGSL_HIT}let hit=origin+direction*((-b-sqrt(discriminant))/a);let clip=uniforms.projection*vec4f(hit,1.0);
fragmentOutputs.fragDepth=clip.z/clip.w;
fragmentOutputs.color=vec4f(FORWARD*hit.z,0.,0.,1.);
}
`;

const WGSL_THICKNESS = `${WGSL_RAY}uniform particleAlpha: f32;uniform size: vec2f;@fragment
fn main(input: FragmentInputs)->FragmentOutputs {
${WGSL_HIT}let chord=2.0*sqrt(discriminant)/a;fragmentOutputs.color=vec4f(vec3f(uniforms.particleAlpha*chord/uniforms.size.x),1.0);
}
`;

/**
 * Registers the shaders in Babylon's shader store (once each): the fragment shaders, and the vertex shader of
 * `materialSlot` (its slot a constant of its source, so each material's object compiles its own) under the name
 * it returns.
 */
function registerShaders(materialSlot: number): string {
  const glsl = ShaderStore.ShadersStore;
  const wgsl = ShaderStore.ShadersStoreWGSL;
  glsl.fluidEllipsoidDepthPixelShader ??= GLSL_DEPTH;
  glsl.fluidEllipsoidThicknessPixelShader ??= GLSL_THICKNESS;
  wgsl.fluidEllipsoidDepthPixelShader ??= WGSL_DEPTH;
  wgsl.fluidEllipsoidThicknessPixelShader ??= WGSL_THICKNESS;
  const name = materialSlot < 0 ? 'fluidEllipsoid' : `fluidEllipsoid${materialSlot}`;
  const slot = materialSlot.toFixed(1);
  glsl[`${name}VertexShader`] ??= `const float MATERIAL_SLOT=${slot};\n${GLSL_VERTEX}`;
  wgsl[`${name}VertexShader`] ??= `const MATERIAL_SLOT: f32=${slot};\n${WGSL_VERTEX}`;
  return name;
}

/**
 * A `FluidRenderer` render object that draws anisotropic particles: Babylon's custom-particles object with its
 * depth and thickness effects replaced by the ellipsoid shaders above (its diffuse-color pass is Babylon's, at
 * the drawn centres). Its vertex buffers are set by {@link bindEllipsoidBuffers}.
 */
export class EllipsoidParticles extends FluidRenderingObjectCustomParticles {
  /** The vertex shader's name in the store (its material slot baked in). */
  private readonly vertexShader: string;
  /** The ellipsoid buffer the vertex buffers read (undefined: none bound yet). */
  private source: DataBuffer | undefined;
  /**
   * The drawn diameter (m) the ellipsoids were computed for: a `particleSize` other than this scales them (0 hides
   * them). Set by the view with the feed's drawn radius.
   */
  computedDiameter = 0;

  /**
   * `buffers`: the buffers besides the ellipsoids' (the CPU backend's per-particle `color`); `materialSlot`: the
   * material slot whose particles it draws (-1: every particle).
   */
  constructor(
    scene: Scene,
    buffers: Record<string, Float32Array>,
    numberOfParticles: number,
    readonly materialSlot = -1,
  ) {
    super(scene, buffers, numberOfParticles);
    this.vertexShader = registerShaders(materialSlot);
  }

  override getClassName(): string {
    return 'EllipsoidParticles';
  }

  /** Replaces Babylon's sphere depth and thickness effects by the ellipsoid ones. */
  protected override _createEffects(): void {
    super._createEffects();
    this._depthEffectWrapper?.dispose(false);
    this._thicknessEffectWrapper?.dispose(false);
    const attributeNames = ['position', 'material', 'offset', 'shape0', 'shape1'];
    const defines = this._scene.useRightHandedSystem ? ['#define FLUIDRENDERING_RHS'] : [];
    const effect = (fragmentShader: string, uniformNames: string[]) =>
      new EffectWrapper({
        engine: this._engine,
        useShaderStore: true,
        vertexShader: this.vertexShader,
        fragmentShader,
        attributeNames,
        uniformNames,
        samplerNames: [],
        defines,
        shaderLanguage: this._shaderLanguage,
      });
    this._depthEffectWrapper = effect('fluidEllipsoidDepth', ['view', 'projection', 'size', 'shapeScale']);
    this._thicknessEffectWrapper = effect('fluidEllipsoidThickness', [
      'view',
      'projection',
      'size',
      'shapeScale',
      'particleAlpha',
    ]);
  }

  /** Draws the particles' ellipsoids into the depth texture (Babylon's pass, with the shape's scale). */
  override renderDepthTexture(): void {
    this.draw(this._depthEffectWrapper, false);
  }

  /** Draws the particles' chords into the thickness texture (additive, no depth writes), as Babylon does. */
  override renderThicknessTexture(): void {
    this.draw(this._thicknessEffectWrapper, true);
  }

  /**
   * One instanced draw of the quads with `wrapper`'s effect: the matrices, the size, the shape's scale (the
   * square of `particleSize` over `computedDiameter`: 0 hides the particles) and, for the thickness, its alpha
   * and blending (FluidRenderingObject's own passes, which do not know the scale).
   */
  private draw(wrapper: EffectWrapper | null, thickness: boolean): void {
    const count = this.numParticles;
    if (wrapper === null || count === 0) return;
    const engine = this._engine;
    const drawWrapper = wrapper.drawWrapper;
    const effect = drawWrapper.effect;
    if (effect === null) return;
    if (thickness) {
      engine.setAlphaMode(Constants.ALPHA_ONEONE);
      engine.setDepthWrite(false);
    }
    engine.enableEffect(drawWrapper);
    engine.bindBuffers(this.vertexBuffers, this.indexBuffer, effect);
    effect.setMatrix('view', this._scene.getViewMatrix());
    effect.setMatrix('projection', this._scene.getProjectionMatrix());
    effect.setFloat2('size', this._particleSize, this._particleSize);
    const scale = this.computedDiameter > 0 ? this._particleSize / this.computedDiameter : 0;
    effect.setFloat('shapeScale', scale * scale);
    if (thickness) effect.setFloat('particleAlpha', this.particleThicknessAlpha);
    engine.drawArraysType(Constants.MATERIAL_TriangleStripDrawMode, 0, 4, count);
    if (thickness) {
      engine.setDepthWrite(true);
      engine.setAlphaMode(Constants.ALPHA_DISABLE);
    }
  }

  /**
   * Points the ellipsoid vertex buffers at `source` (`ELLIPSOID_FLOATS` floats per particle: the CPU backend's
   * upload buffer or the GPU pass's storage buffer), when it is another buffer than the one bound. Each vertex
   * buffer takes a reference to `source`, so it lives until its owner and these vertex buffers are disposed.
   */
  bindEllipsoids(engine: AbstractEngine, source: DataBuffer): void {
    if (source === this.source) return;
    const buffers = this.vertexBuffers;
    for (const [name, offset, size] of ELLIPSOID_ATTRIBUTES) {
      source.references++;
      buffers[name]?.dispose();
      buffers[name] = new VertexBuffer(engine, source, name, false, false, ELLIPSOID_FLOATS, true, offset, size);
    }
    this.source = source;
  }
}

/**
 * The CPU backend's ellipsoid upload buffer: a dynamic vertex buffer for `capacity` particles the view writes
 * the simulation's `writeEllipsoids` output into once a frame, shared by the water's render objects.
 */
export function createEllipsoidUpload(engine: AbstractEngine, capacity: number): Buffer {
  return new Buffer(engine, new Float32Array(Math.max(1, capacity) * ELLIPSOID_FLOATS), true, ELLIPSOID_FLOATS);
}
