/**
 * Babylon meshes as colliders: reading a mesh's local triangles, baking them (without freezing the page)
 * into a signed distance field cached per geometry, and reading a node's world pose as the collider pose
 * the simulation takes (position, rotation quaternion, uniform scaling).
 */

import { VertexBuffer } from '@babylonjs/core/Buffers/buffer.js';
import { type Matrix, Quaternion, Vector3 } from '@babylonjs/core/Maths/math.vector.js';
import type { AbstractMesh } from '@babylonjs/core/Meshes/abstractMesh.js';
import type { TransformNode } from '@babylonjs/core/Meshes/transformNode.js';
import { FluidError } from '../core/errors';
import { type AsyncBakeOptions, bakeSignedDistanceFieldAsync, type TriangleMesh } from '../systems/sdf/bake';
import type { SignedDistanceField } from '../systems/sdf/field';

/** Reads the triangles of `mesh` in its local space (positions as stored, indices or 0..n-1). */
export function readTriangleMesh(mesh: AbstractMesh): TriangleMesh {
  const positions = mesh.getVerticesData(VertexBuffer.PositionKind);
  if (positions === null || positions.length < 9) {
    throw new FluidError(`addMeshCollider: mesh '${mesh.name}' has no vertex positions (at least one triangle needed)`);
  }
  let indices: ArrayLike<number> | null = mesh.getIndices();
  if (indices === null || indices.length === 0) {
    const count = positions.length / 3 - ((positions.length / 3) % 3);
    const generated = new Uint32Array(count);
    for (let k = 0; k < count; k++) generated[k] = k;
    indices = generated;
  }
  return { positions, indices };
}

/** The object a baked field is cached on: the mesh's geometry (shared by clones and instances) or the mesh. */
function cacheOwner(mesh: AbstractMesh): object {
  const withGeometry = mesh as AbstractMesh & {
    geometry?: object | null;
    sourceMesh?: { geometry?: object | null };
  };
  return withGeometry.geometry ?? withGeometry.sourceMesh?.geometry ?? mesh;
}

const fieldCache = new WeakMap<object, Map<string, Promise<SignedDistanceField>>>();

/** Options of the field bake of a Babylon mesh (see the simulation's bake options). */
export interface MeshFieldOptions {
  /** Grid cell size of the field (m, mesh local units). Default: from `resolution`. */
  cellSize?: number;
  /** Cells along the longest side of the mesh's bounding box. Default 64. */
  resolution?: number;
  /** Called with fractions in [0, 1] while the bake runs (not called when the field comes from the cache). */
  onProgress?: (fraction: number) => void;
}

/**
 * The signed distance field of `mesh`'s local triangles, baked once per geometry and grid size: later
 * calls for the same geometry (clones, instances, other colliders) share the promise.
 */
export function bakeMeshField(mesh: AbstractMesh, options: MeshFieldOptions): Promise<SignedDistanceField> {
  const owner = cacheOwner(mesh);
  const key = options.cellSize !== undefined ? `cell:${options.cellSize}` : `resolution:${options.resolution ?? 64}`;
  let fields = fieldCache.get(owner);
  if (fields === undefined) {
    fields = new Map();
    fieldCache.set(owner, fields);
  }
  const cached = fields.get(key);
  if (cached !== undefined) return cached;
  const triangles = readTriangleMesh(mesh);
  const bakeOptions: AsyncBakeOptions = {};
  if (options.cellSize !== undefined) bakeOptions.cellSize = options.cellSize;
  if (options.resolution !== undefined) bakeOptions.resolution = options.resolution;
  if (options.onProgress !== undefined) bakeOptions.onProgress = options.onProgress;
  const promise = bakeSignedDistanceFieldAsync(triangles, bakeOptions);
  fields.set(key, promise);
  // A failed bake is not cached, so a corrected mesh or option can be baked again.
  promise.catch(() => fields.delete(key));
  return promise;
}

/** A world pose as the simulation takes it. */
export interface WorldPose {
  /** Translation (m). */
  position: [number, number, number];
  /** Rotation quaternion `[x, y, z, w]`. */
  rotation: [number, number, number, number];
  /** Uniform scaling factor (> 0). */
  scaling: number;
}

const scratchScaling = new Vector3();
const scratchRotation = new Quaternion();
const scratchTranslation = new Vector3();

/**
 * Decomposes `matrix` (a world matrix, local to world) into `out`. Throws {@link FluidError} naming
 * `name` when the matrix holds a non-finite value, or the scaling is not uniform (within 1e-4 relative) or
 * mirrors.
 */
export function decomposeWorldPose(matrix: Matrix, name: string, out: WorldPose): WorldPose {
  if (!matrix.decompose(scratchScaling, scratchRotation, scratchTranslation)) {
    throw new FluidError(`'${name}' has a degenerate world matrix (zero scaling); a collider needs scaling > 0`);
  }
  const { x, y, z } = scratchScaling;
  if (!Number.isFinite(x + y + z + scratchTranslation.x + scratchTranslation.y + scratchTranslation.z)) {
    throw new FluidError(
      `'${name}' has a non-finite world matrix (position ${scratchTranslation.x}, ${scratchTranslation.y}, ` +
        `${scratchTranslation.z}, scaling ${x}, ${y}, ${z}); a collider needs finite values`,
    );
  }
  const largest = Math.max(Math.abs(x), Math.abs(y), Math.abs(z));
  if (x < 0 || y < 0 || z < 0) {
    throw new FluidError(
      `'${name}' has a mirroring world scaling (${x}, ${y}, ${z}); mesh colliders need a positive uniform scaling`,
    );
  }
  if (Math.abs(x - y) > 1e-4 * largest || Math.abs(x - z) > 1e-4 * largest) {
    throw new FluidError(
      `'${name}' has a non-uniform world scaling (${x}, ${y}, ${z}); mesh colliders follow only uniform scaling: ` +
        'bake the scaling into the vertices (mesh.bakeCurrentTransformIntoVertices()) or scale uniformly',
    );
  }
  out.position[0] = scratchTranslation.x;
  out.position[1] = scratchTranslation.y;
  out.position[2] = scratchTranslation.z;
  out.rotation[0] = scratchRotation.x;
  out.rotation[1] = scratchRotation.y;
  out.rotation[2] = scratchRotation.z;
  out.rotation[3] = scratchRotation.w;
  out.scaling = (x + y + z) / 3;
  return out;
}

/** Current world pose of `node` (its world matrix recomputed now). */
export function readWorldPose(node: TransformNode, out: WorldPose): WorldPose {
  return decomposeWorldPose(node.computeWorldMatrix(true), node.name, out);
}

/** A pose filled with the identity. */
export function createWorldPose(): WorldPose {
  return { position: [0, 0, 0], rotation: [0, 0, 0, 1], scaling: 1 };
}
