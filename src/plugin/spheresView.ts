/**
 * The sphere debug view: a low-poly sphere per particle; from the CPU buffers as thin instances
 * (`SpheresView`, instance matrices written by the feed) or, on the WebGPU backend, instanced with a WGSL
 * shader material reading vertex buffers over the position storage buffer and the GPU color buffer
 * (`GpuSpheresView`).
 */
import type { DataBuffer } from '@babylonjs/core/Buffers/dataBuffer.js';
import { ShaderLanguage } from '@babylonjs/core/Materials/shaderLanguage.js';
import { ShaderMaterial } from '@babylonjs/core/Materials/shaderMaterial.js';
import { StandardMaterial } from '@babylonjs/core/Materials/standardMaterial.js';
import { Color3 } from '@babylonjs/core/Maths/math.color.js';
import { CreateIcoSphere } from '@babylonjs/core/Meshes/Builders/icoSphereBuilder.js';
import type { Mesh } from '@babylonjs/core/Meshes/mesh.js';
import '@babylonjs/core/Meshes/thinInstanceMesh.js';
import type { Scene } from '@babylonjs/core/scene.js';
import type { ParticleBuffers } from './particleFeed';
import { storageColors, storagePositions } from './vertexBuffers';

/** The sphere debug view: thin instances of a low-poly sphere, one per particle. */
export class SpheresView {
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
export class GpuSpheresView {
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
