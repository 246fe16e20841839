// The capsule collider shape's distance (mirrors capsuleDistance, shapes/capsule.ts): the segment a..b grown by
// `radius`; uses roundedDistance (shapes/sphere.wgsl).
fn capsuleDistance(a: vec3<f32>, b: vec3<f32>, radius: f32, l: vec3<f32>) -> vec4<f32> {
  let e = b - a;
  let lengthSquared = dot(e, e);
  var t = 0.0;
  if (lengthSquared > 0.0) { t = clamp(dot(l - a, e) / lengthSquared, 0.0, 1.0); }
  return roundedDistance(a + t * e, radius, l);
}
