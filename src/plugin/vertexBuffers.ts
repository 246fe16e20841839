/**
 * The vertex buffers of the views: uploads of the CPU buffers into dynamic vertex buffers, and, on the
 * WebGPU backend, vertex buffers over the simulation's position storage buffer and the GPU color buffer
 * (no position or color is read back or uploaded per frame).
 */
import { VertexBuffer } from '@babylonjs/core/Buffers/buffer.js';
import type { DataBuffer } from '@babylonjs/core/Buffers/dataBuffer.js';
import type { AbstractEngine } from '@babylonjs/core/Engines/abstractEngine.js';
import type { ParticleBuffers } from './particleFeed';

/** The engine call that uploads part of a dynamic vertex buffer (WebGL2, WebGPU and NullEngine have it). */
interface DynamicVertexBufferEngine {
  updateDynamicVertexBuffer(buffer: DataBuffer, data: Float32Array, byteOffset?: number, byteLength?: number): void;
}

/** Uploads the first `count` particles' worth (`floatsPerParticle` floats each) of `data` to `vertexBuffer`. */
export function uploadParticles(
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
export function storagePositions(
  engine: AbstractEngine,
  storage: DataBuffer,
  kind: string,
  instanced: boolean,
): VertexBuffer {
  storage.references++;
  return new VertexBuffer(engine, storage, kind, false, false, 4, instanced, 0, 3);
}

/**
 * A vertex buffer of `kind` reading r, g, b, a from the color storage buffer `storage` (one vec4 per
 * particle, see particleColors.ts); it takes a reference to `storage` as {@link storagePositions} does.
 */
export function storageColors(
  engine: AbstractEngine,
  storage: DataBuffer,
  kind: string,
  instanced: boolean,
): VertexBuffer {
  storage.references++;
  return new VertexBuffer(engine, storage, kind, false, false, 4, instanced, 0, 4);
}

/** The GPU color buffer of `buffers` (undefined on the CPU backend or before the GPU color pass was made). */
export function gpuColorBuffer(buffers: ParticleBuffers): DataBuffer | undefined {
  return buffers.gpuColors?.colorBuffer.getBuffer();
}
