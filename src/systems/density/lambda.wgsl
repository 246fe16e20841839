// Wall weights, density and lambda of each particle (mirrors computeWallWeights in collide/cpu.ts and
// computeLambda in density/cpu.ts; Macklin & Müller 2013, eq. 2, 9-11; Harada et al. 2007, eq. 12). One
// thread per particle gathers over the 27 cells around its cell (no neighbour lists, no atomics):
// rho_i = m_i (W(0) + Z_i) + sum_j m_j W_ij, grad_i C_i = (m_i / rho0_i) grad Z_i + sum_j (m_j / rho0_i) grad W_ij,
// lambda_i = -C_i / (sum_j |grad_j C_i|^2 + |grad_i C_i|^2 + epsilon), C_i = max(rho_i / rho0_i - 1, 0).

fn wallTableValue(k: u32) -> f32 {
  return scene.wallTable[k / 4u][k % 4u];
}

// Adds one flat wall at world distance d (< h) with world normal n: (grad Z, Z).
fn wallTerm(d: f32, n: vec3<f32>) -> vec4<f32> {
  let position = max(d, 0.0) * scene.params.wallSamplesPerMetre;
  var k = WALL_WEIGHT_SAMPLES - 1u;
  if (position < f32(WALL_WEIGHT_SAMPLES - 1u)) { k = u32(floor(position)); }
  let t = position - f32(k);
  let low = wallTableValue(k);
  let difference = wallTableValue(k + 1u) - low;
  return vec4<f32>(difference * scene.params.wallSamplesPerMetre * n, low + t * difference);
}

fn wallWeights(x: vec3<f32>) -> vec4<f32> {
  var sum = vec4<f32>(0.0);
  let h = scene.params.kernelRadius;
  for (var slot = 0u; slot < scene.params.colliderCount; slot = slot + 1u) {
    let c = scene.colliders[slot];
    if (c.wallWeights == 0u) { continue; }
    let pose = poseOf(slot, false);
    let scale = pose.scale.x;
    let localH = h * pose.scale.y;
    let l = toLocal(pose, x);
    if (c.shape == SHAPE_BOX && c.container == 1u) {
      // Six faces; the columns of R are the local axes in world space.
      let axisX = vec3<f32>(pose.row0.x, pose.row1.x, pose.row2.x);
      let axisY = vec3<f32>(pose.row0.y, pose.row1.y, pose.row2.y);
      let axisZ = vec3<f32>(pose.row0.z, pose.row1.z, pose.row2.z);
      let low = l - c.a.xyz;
      let high = c.b.xyz - l;
      if (low.x < localH) { sum = sum + wallTerm(scale * low.x, axisX); }
      if (high.x < localH) { sum = sum + wallTerm(scale * high.x, -axisX); }
      if (low.y < localH) { sum = sum + wallTerm(scale * low.y, axisY); }
      if (high.y < localH) { sum = sum + wallTerm(scale * high.y, -axisY); }
      if (low.z < localH) { sum = sum + wallTerm(scale * low.z, axisZ); }
      if (high.z < localH) { sum = sum + wallTerm(scale * high.z, -axisZ); }
      continue;
    }
    let surface = fluidSideDistance(slot, l, localH);
    if (surface.x >= localH) { continue; }
    sum = sum + wallTerm(scale * surface.x, rotate(pose, surface.yzw));
  }
  return sum;
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
  var walls = vec4<f32>(0.0);
  if (p.colliderCount > 0u) { walls = wallWeights(xi); }
  var density = mi * (p.selfWeight + walls.w);
  var gradient = mi * inverseRestDensity * walls.xyz;
  var squares = 0.0;
  var neighbours = 0u;
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
          neighbours = neighbours + 1u;
          var mj = mi;
          if (p.materialCount > 1u) { mj = scene.materials[sortedInfo[j].material].mass; }
          density = density + mj * poly6(r2);
          let a = spikyScale(sqrt(r2)) * mj * inverseRestDensity;
          gradient = gradient + a * r;
          squares = squares + a * a * r2;
        }
      }
    }
  }
  let constraint = density * inverseRestDensity - 1.0;
  var lambda = 0.0;
  if (constraint > 0.0) {
    lambda = -constraint / (squares + dot(gradient, gradient) + scene.materials[materialI].relaxation);
  }
  solve[i] = vec4<f32>(density, lambda, f32(neighbours), 0.0);
  wall[i] = vec4<f32>(walls.xyz, 0.0);
}
