/**
 * The point-cloud debug view: one vertex per particle, colored per vertex; from the CPU buffers
 * (`PointsView`) or, on the WebGPU backend, from vertex buffers over the position storage buffer and the
 * GPU color buffer (`GpuPointsView`).
 */
import { VertexBuffer } from '@babylonjs/core/Buffers/buffer.js';
import type { DataBuffer } from '@babylonjs/core/Buffers/dataBuffer.js';
import { StandardMaterial } from '@babylonjs/core/Materials/standardMaterial.js';
import { Color3 } from '@babylonjs/core/Maths/math.color.js';
import { Mesh } from '@babylonjs/core/Meshes/mesh.js';
import { VertexData } from '@babylonjs/core/Meshes/mesh.vertexData.js';
import type { Scene } from '@babylonjs/core/scene.js';
import type { ParticleBuffers } from './particleFeed';
import { storageColors, storagePositions, uploadParticles } from './vertexBuffers';

/**
 * What both point views set on their mesh: always drawn, not pickable, no bounding sync, hidden until it has
 * particles, and a white emissive point-cloud material (4 px points) multiplied by the vertex colors.
 */
function preparePointsMesh(mesh: Mesh, scene: Scene): StandardMaterial {
  mesh.alwaysSelectAsActiveMesh = true;
  mesh.isPickable = false;
  mesh.doNotSyncBoundingInfo = true;
  const material = new StandardMaterial('fluidPointsMaterial', scene);
  material.pointsCloud = true;
  material.pointSize = 4;
  material.disableLighting = true;
  material.emissiveColor = new Color3(1, 1, 1);
  mesh.material = material;
  mesh.setEnabled(false);
  return material;
}

/** The point-cloud debug view: one vertex per particle, colored per vertex. */
export class PointsView {
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
    this.material = preparePointsMesh(this.mesh, scene);
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

/**
 * The point-cloud view on the GPU: one vertex per particle read from the position storage buffer, colored
 * per vertex from the GPU color buffer.
 */
export class GpuPointsView {
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
    this.material = preparePointsMesh(this.mesh, scene);
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
