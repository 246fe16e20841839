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
