// Position correction of each particle (mirrors computeCorrections in density/cpu.ts; Macklin & Müller 2013,
// eq. 13-14): delta_i = lambda_i (m_i / rho0_i) grad Z_i + sum_j (lambda_i + lambda_j + s_corr) (m_j / rho0_i) grad W_ij.

fn artificialPressure(material: u32, weight: f32) -> f32 {
  let m = scene.materials[material];
  let ratio = weight * m.inverseArtificialPressureWeight;
  var power: f32;
  if (m.artificialPressureExponent == 4.0) {
    let ratio2 = ratio * ratio;
    power = ratio2 * ratio2;
  } else {
    power = pow(ratio, m.artificialPressureExponent);
  }
  return -m.artificialPressureScale * power;
}

@compute @workgroup_size(WORKGROUP_SIZE)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
  let i = id.x;
  if (i >= state.count) { return; }
  let p = scene.params;
  let own = sortedPredicted[i];
  let xi = own.xyz;
  let materialI = sortedInfo[i].material;
  let mi = scene.materials[materialI].mass;
  let inverseRestDensity = scene.materials[materialI].inverseRestDensity;
  let lambdaI = solve[i].y;
  var sum = lambdaI * mi * inverseRestDensity * wall[i].xyz;
  let home = keyCell(u32(own.w));
  for (var dz = -1; dz <= 1; dz = dz + 1) {
    for (var dy = -1; dy <= 1; dy = dy + 1) {
      for (var dx = -1; dx <= 1; dx = dx + 1) {
        let key = cellKey(home + vec3<i32>(dx, dy, dz));
        let bucket = bucketOfKey(key);
        let end = buckets[bucket + 1u];
        for (var j = buckets[bucket]; j < end; j = j + 1u) {
          let other = sortedPredicted[j];
          if (u32(other.w) != key || j == i) { continue; }
          var r = xi - other.xyz;
          if (all(r == vec3<f32>(0.0))) { r.x = select(-p.coincidentOffset, p.coincidentOffset, i < j); }
          let r2 = dot(r, r);
          if (r2 >= p.kernelRadiusSquared) { continue; }
          var materialJ = materialI;
          if (p.materialCount > 1u) { materialJ = sortedInfo[j].material; }
          let weight = poly6(r2);
          var scorr: f32;
          if (materialJ == materialI) {
            scorr = artificialPressure(materialI, weight);
          } else {
            scorr = 0.5 * (artificialPressure(materialI, weight) + artificialPressure(materialJ, weight));
          }
          let f = (lambdaI + solve[j].y + scorr) * spikyScale(sqrt(r2));
          sum = sum + f * scene.materials[materialJ].mass * inverseRestDensity * r;
        }
      }
    }
  }
  delta[i] = vec4<f32>(sum, 0.0);
}
