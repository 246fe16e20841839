// The plane collider shape's distance (mirrors planeDistance, shapes/plane.ts): a the point, b the unit normal.
fn planeDistance(a: vec3<f32>, b: vec3<f32>, l: vec3<f32>) -> vec4<f32> {
  return vec4<f32>(dot(l - a, b), b);
}
