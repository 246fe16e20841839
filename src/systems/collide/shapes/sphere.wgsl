// The sphere collider shape's distance (mirrors roundedDistance, shapes/sphere.ts): (d, n) of the sphere of
// `radius` around q, d positive outside, n the outward normal (+y at the center). The capsule's too.
fn roundedDistance(q: vec3<f32>, radius: f32, l: vec3<f32>) -> vec4<f32> {
  let delta = l - q;
  let distance = sqrt(dot(delta, delta));
  var g = vec3<f32>(0.0, 1.0, 0.0);
  if (distance > 1e-12) { g = delta / distance; }
  return vec4<f32>(distance - radius, g);
}
