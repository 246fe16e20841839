// The mesh collider shape's distance (mirrors meshDistance, shapes/mesh.ts, and
// SignedDistanceField.sampleWithGradient, sdf/field.ts).

// Trilinear sample of the field `info` at local point l: (distance, gradient); the gradient is only
// interpolated when the distance lies in (gradientAbove, gradientBelow).
fn sampleField(info: FieldInfo, l: vec3<f32>, gradientAbove: f32, gradientBelow: f32) -> vec4<f32> {
  let cellSize = info.origin.w;
  let counts = info.counts.xyz;
  let limit = vec3<f32>(counts - vec3<u32>(1u));
  let f = (l - info.origin.xyz) / cellSize;
  let clamped = clamp(f, vec3<f32>(0.0), limit);
  let outside = f - clamped;
  let cellIndex = min(vec3<u32>(floor(clamped)), counts - vec3<u32>(2u));
  let t = clamped - vec3<f32>(cellIndex);
  let strideY = counts.x;
  let strideZ = counts.x * counts.y;
  let p000 = info.counts.w + cellIndex.z * strideZ + cellIndex.y * strideY + cellIndex.x;
  let v000 = fieldValues[p000];
  let v100 = fieldValues[p000 + 1u];
  let v010 = fieldValues[p000 + strideY];
  let v110 = fieldValues[p000 + strideY + 1u];
  let v001 = fieldValues[p000 + strideZ];
  let v101 = fieldValues[p000 + strideZ + 1u];
  let v011 = fieldValues[p000 + strideZ + strideY];
  let v111 = fieldValues[p000 + strideZ + strideY + 1u];
  let s = vec3<f32>(1.0) - t;
  let x00 = v000 * s.x + v100 * t.x;
  let x10 = v010 * s.x + v110 * t.x;
  let x01 = v001 * s.x + v101 * t.x;
  let x11 = v011 * s.x + v111 * t.x;
  let value = (x00 * s.y + x10 * t.y) * s.z + (x01 * s.y + x11 * t.y) * t.z;
  var distance = value.x;
  if (any(outside != vec3<f32>(0.0))) {
    let length = sqrt(dot(outside, outside));
    return vec4<f32>(distance + length * cellSize, outside / length);
  }
  if (!(distance > gradientAbove && distance < gradientBelow)) { return vec4<f32>(distance, 0.0, 0.0, 0.0); }
  var g = value.yzw;
  if (dot(g, g) < 1e-6) {
    // Medial surface: the trilinear distance's own gradient.
    g = vec3<f32>(
      s.y * s.z * (v100.x - v000.x) + t.y * s.z * (v110.x - v010.x) + s.y * t.z * (v101.x - v001.x) + t.y * t.z * (v111.x - v011.x),
      s.x * s.z * (v010.x - v000.x) + t.x * s.z * (v110.x - v100.x) + s.x * t.z * (v011.x - v001.x) + t.x * t.z * (v111.x - v101.x),
      s.x * s.y * (v001.x - v000.x) + t.x * s.y * (v101.x - v100.x) + s.x * t.y * (v011.x - v010.x) + t.x * t.y * (v111.x - v110.x));
    if (dot(g, g) < 1e-20) { g = vec3<f32>(0.0, 1.0, 0.0); }
  }
  return vec4<f32>(distance, normalize(g));
}
