/**
 * The collider shapes, one module each (docs/ARCHITECTURE.md, "A new collider shape"): `SHAPES[code]` is the
 * module of `ColliderShape` code `code`, and {@link shapesSource} is the WGSL every pass that measures collider
 * distances includes (each shape's `<name>.wgsl`, then the dispatch of collide/shapes.wgsl).
 */
import { ColliderShape } from '../../../components';
import { FluidError } from '../../../core/errors';
import type { PassDefinition } from '../../gpu/passes';
import type { ColliderOptions } from '../../options';
import dispatchSource from '../shapes.wgsl?raw';
import { boxShape } from './box';
import boxSource from './box.wgsl?raw';
import { capsuleShape } from './capsule';
import capsuleSource from './capsule.wgsl?raw';
import { meshShape } from './mesh';
import meshSource from './mesh.wgsl?raw';
import { planeShape } from './plane';
import planeSource from './plane.wgsl?raw';
import { sphereShape } from './sphere';
import sphereSource from './sphere.wgsl?raw';
import type { ColliderGeometry, ColliderShapeModule } from './types';

/** The shape modules indexed by their `ColliderShape` code. */
export const SHAPES: readonly ColliderShapeModule[] = (() => {
  const shapes: ColliderShapeModule[] = [];
  shapes[ColliderShape.box] = boxShape;
  shapes[ColliderShape.sphere] = sphereShape;
  shapes[ColliderShape.capsule] = capsuleShape;
  shapes[ColliderShape.plane] = planeShape;
  shapes[ColliderShape.mesh] = meshShape;
  return shapes;
})();

/** The shapes' names in the order of their codes. */
export const SHAPE_NAMES: readonly string[] = SHAPES.map((shape) => shape.name);

/**
 * Checks the shape options of `addCollider` (`shape` and the fields it needs) and returns the shape's
 * component fields. Throws {@link FluidError} naming the bad value and what is allowed.
 */
export function readColliderGeometry(options: ColliderOptions): ColliderGeometry {
  const shape = SHAPES.find((candidate) => candidate.name === options.shape);
  if (shape === undefined) {
    throw new FluidError(
      `shape is '${String((options as { shape?: unknown }).shape)}'; allowed values are ${SHAPE_NAMES.map((name) => `'${name}'`).join(', ')}`,
    );
  }
  return shape.read(options);
}

/** Keeps (`meshes` true) or drops the `// @mesh` ... `// @end mesh` blocks of `source`. */
function meshVariant(source: string, meshes: boolean): string {
  return source.replace(/^[ \t]*\/\/ @mesh\n([\s\S]*?)^[ \t]*\/\/ @end mesh\n/gm, (_block, lines: string) =>
    meshes ? lines : '',
  );
}

/** The WGSL of the collider distances: each shape's function, then `fluidSideDistance` over them. */
export const shapesSource = [
  boxSource,
  sphereSource,
  capsuleSource,
  planeSource,
  meshSource,
  meshVariant(dispatchSource, true),
].join('\n');

/**
 * {@link shapesSource} without the mesh shape, for steps without mesh colliders (SwiftShader pays for the
 * field sampling of every distance query even where no collider is a mesh): binds no `fieldValues`.
 */
export const analyticShapesSource = [
  boxSource,
  sphereSource,
  capsuleSource,
  planeSource,
  meshVariant(dispatchSource, false),
].join('\n');

/**
 * The variant of a pass that measures collider distances for steps without mesh colliders: key
 * `<key>Analytic`, its source with {@link analyticShapesSource} in place of {@link shapesSource}, and no
 * `fieldValues` binding.
 */
export function analyticVariant(definition: PassDefinition): PassDefinition {
  if (!definition.source.includes(shapesSource)) throw new Error(`pass ${definition.key} measures no distances`);
  return {
    ...definition,
    key: `${definition.key}Analytic`,
    source: definition.source.replace(shapesSource, () => analyticShapesSource),
    bindings: definition.bindings.filter(([name]) => name !== 'fieldValues'),
  };
}

/**
 * The variant of a pass that measures collider distances for steps whose every collider is a box container
 * (a tank or a pool, the commonest scene): key `<key>Boxes`, its {@link analyticVariant} without the lines
 * between `// @shapes` and `// @end shapes` (the pass's code for every other collider: the distance
 * queries of the other shapes and of solid boxes). SwiftShader runs every branch of a shader, masked, so in
 * such a step that code cost every particle although no lane took it (docs/performance.md). Dispatched only
 * while every collider is a box container (`GpuPlan.containerBoxes`), where the stripped branches are never
 * taken.
 */
export function containerBoxVariant(definition: PassDefinition): PassDefinition {
  const analytic = analyticVariant(definition);
  const blocks = /^[ \t]*\/\/ @shapes\n[\s\S]*?^[ \t]*\/\/ @end shapes\n/gm;
  if (!blocks.test(analytic.source)) throw new Error(`pass ${definition.key} has no // @shapes lines`);
  return { ...analytic, key: `${definition.key}Boxes`, source: analytic.source.replace(blocks, '') };
}

export { boxDistance } from './box';
export { capsuleDistance } from './capsule';
export { meshDistance } from './mesh';
export { planeDistance } from './plane';
export { sphereDistance } from './sphere';
export type { ColliderGeometry, ColliderShapeModule } from './types';
