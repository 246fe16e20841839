/**
 * The signed distance fields of mesh colliders on the WebGPU backend (gpu/backend.ts): whether the
 * simulation's field list changed since it was last uploaded, how many nodes it holds, and its packing: every
 * field's values concatenated for the `fieldValues` buffer, and each field's origin, cell size, node counts
 * and first node in the scene buffer's `FieldInfo` table (sampled in collide/shapes/mesh.wgsl).
 */
import type { SignedDistanceField } from '../sdf/field';
import { type StructLayout, type WordViews, word } from './layout';
import { FieldInfo } from './structs';

/** The simulation's field list (`ctx.colliders.fields`; undefined: an unused place). */
export type FieldList = readonly (SignedDistanceField | undefined)[];

/** True when `fields` holds the same fields, in the same places, as `uploaded` (the list last uploaded). */
export function sameFields(fields: FieldList, uploaded: readonly unknown[]): boolean {
  return fields.length === uploaded.length && fields.every((f, k) => f === uploaded[k]);
}

/** Nodes (4 floats each) of every field of `fields`. */
export function fieldNodes(fields: FieldList): number {
  let nodes = 0;
  for (const field of fields) if (field) nodes += field.values.length / 4;
  return nodes;
}

/**
 * Writes each field's `FieldInfo` into the scene words `sceneWords` (layout `scene`) and returns the values
 * of all `nodes` nodes, concatenated in list order (at least one node's room).
 */
export function packFields(fields: FieldList, scene: StructLayout, sceneWords: WordViews, nodes: number): Float32Array {
  const all = new Float32Array(Math.max(4, nodes * 4));
  const f = sceneWords.f32;
  const u = sceneWords.u32;
  let offset = 0;
  fields.forEach((field, index) => {
    if (!field) return;
    all.set(field.values, offset * 4);
    const base = scene.offsets.fields + index * FieldInfo.size;
    const origin = word(FieldInfo, 'origin', base);
    const counts = word(FieldInfo, 'counts', base);
    f[origin] = field.origin[0];
    f[origin + 1] = field.origin[1];
    f[origin + 2] = field.origin[2];
    f[origin + 3] = field.cellSize;
    u[counts] = field.nodeCounts[0];
    u[counts + 1] = field.nodeCounts[1];
    u[counts + 2] = field.nodeCounts[2];
    u[counts + 3] = offset;
    offset += field.values.length / 4;
  });
  return all;
}
