// The box collider shape's distance (mirrors boxDistance, shapes/box.ts): (d, n), d positive outside the box
// [a, b], n the outward normal.
fn boxDistance(a: vec3<f32>, b: vec3<f32>, l: vec3<f32>) -> vec4<f32> {
  let p = l - 0.5 * (a + b);
  let signs = select(vec3<f32>(1.0), vec3<f32>(-1.0), p < vec3<f32>(0.0));
  let q = abs(p) - 0.5 * (b - a);
  if (any(q > vec3<f32>(0.0))) {
    let o = max(q, vec3<f32>(0.0));
    let d = sqrt(dot(o, o));
    return vec4<f32>(d, signs * o / d);
  } else if (q.x >= q.y && q.x >= q.z) {
    return vec4<f32>(q.x, signs.x, 0.0, 0.0);
  } else if (q.y >= q.z) {
    return vec4<f32>(q.y, 0.0, signs.y, 0.0);
  }
  return vec4<f32>(q.z, 0.0, 0.0, signs.z);
}
