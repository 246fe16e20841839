// Distances to collider shapes in the collider's local space (mirrors fluidSideDistance, collide/cpu.ts): the
// dispatch over the shapes, whose own distances live in shapes/<name>.wgsl (concatenated before this file by
// shapes/index.ts). Result: (d, n) with d measured on the fluid side (positive where the fluid belongs) and n the
// unit normal towards the fluid side.

// SHAPE_BOX, SHAPE_SPHERE, ... are generated from `ColliderShape` (components/collider.ts) by `passSource`
// (gpu/structs.ts), like every constant the CPU and the GPU share.

// A collider's data and its field (see `loadShape`), loaded once and passed by value: SwiftShader runs
// every branch of a shader (masked), so each load from the scene buffer here costs on every call. For the
// same reason the passes that measure distances have a variant for scenes without mesh colliders, which
// leaves out the `// @mesh` lines (`analyticShapesSource`, shapes/index.ts).
struct Shape {
  c: ColliderData,
  field: FieldInfo,
};

fn loadShape(slot: u32) -> Shape {
  let c = scene.colliders[slot];
  return Shape(c, scene.fields[c.field]);
}

// Fluid-side distance and normal of local point l to collider `shape` (local units). For a mesh the normal
// is only computed where the fluid-side distance is below `normalWithin`.
fn fluidSideDistance(shape: Shape, l: vec3<f32>, normalWithin: f32) -> vec4<f32> {
  let c = shape.c;
  let a = c.a.xyz;
  let b = c.b.xyz;
  var result: vec4<f32>;
  if (c.shape == SHAPE_BOX) {
    result = boxDistance(a, b, l);
  } else if (c.shape == SHAPE_MESH) {
    // @mesh
    if (c.container == 1u) {
      result = sampleField(shape.field, l, -normalWithin, 3.0e38);
    } else {
      result = sampleField(shape.field, l, -3.0e38, normalWithin);
    }
    // @end mesh
  } else if (c.shape == SHAPE_PLANE) {
    result = planeDistance(a, b, l);
  } else if (c.shape == SHAPE_CAPSULE) {
    result = capsuleDistance(a, b, c.radius, l);
  } else {
    result = roundedDistance(a, c.radius, l);
  }
  if (c.container == 1u) { return -result; }
  return result;
}
