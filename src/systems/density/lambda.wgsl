// Wall weights, density and lambda of each particle (mirrors computeWallWeights in collide/cpu.ts and
// computeLambda in density/cpu.ts; Macklin & Müller 2013, eq. 2, 9-11; Harada et al. 2007, eq. 12). One
// thread per particle gathers over the 27 cells around its cell (no neighbour lists, no atomics):
// rho_i = m_i (W(0) + Z_i) + sum_j m_j W_ij, grad_i C_i = (m_i / rho0_i) grad Z_i + sum_j (m_j / rho0_i) grad W_ij,
// lambda_i = -C_i / (sum_j |grad_j C_i|^2 + |grad_i C_i|^2 + epsilon), C_i = max(rho_i / rho0_i - 1, 0).
// With coupled colliders it also keeps each particle's shares of the wall gradient of the two nearest coupled
// colliders (recordWallGradient in couple/cpu.ts records every one; a third coupled collider within h of the
// same particle is left out of the wall-pressure impulse, the approximation of the GPU) for the apply pass
// (couple/apply.wgsl): wall[wallShareOffset + i] and wall[2 wallShareOffset + i] = (share, slot), slot -1 none.

// The two nearest coupled colliders' shares of the wall gradient (xyz) and their distance (w), and slots.
var<private> nearShare: vec4<f32>;
var<private> nearSlot: i32;
var<private> nextShare: vec4<f32>;
var<private> nextSlot: i32;

// Keeps collider `slot`'s share if it is among the two nearest so far.
fn keepShare(slot: u32, gradient: vec3<f32>, distance: f32) {
  if (distance < nearShare.w) {
    nextShare = nearShare;
    nextSlot = nearSlot;
    nearShare = vec4<f32>(gradient, distance);
    nearSlot = i32(slot);
  } else if (distance < nextShare.w) {
    nextShare = vec4<f32>(gradient, distance);
    nextSlot = i32(slot);
  }
}

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
  // Called with colliderCount > 0 (a loop runs its body once at least, see common.wgsl).
  var slot = 0u;
  loop {
    let shape = loadShape(slot);
    let c = shape.c;
    if (c.wallWeights == 0u) { continue; }
    let pose = poseOf(slot, false);
    let scale = pose.scale.x;
    let localH = h * pose.scale.y;
    let l = toLocal(pose, x);
    // This collider's terms, and its nearest wall's local distance (for the coupled shares).
    var term = vec4<f32>(0.0);
    var nearest = localH;
    if (c.shape == SHAPE_BOX && c.container == 1u) {
      // Six faces; the columns of R are the local axes in world space.
      let axisX = vec3<f32>(pose.row0.x, pose.row1.x, pose.row2.x);
      let axisY = vec3<f32>(pose.row0.y, pose.row1.y, pose.row2.y);
      let axisZ = vec3<f32>(pose.row0.z, pose.row1.z, pose.row2.z);
      let low = l - c.a.xyz;
      let high = c.b.xyz - l;
      if (low.x < localH) { term = term + wallTerm(scale * low.x, axisX); }
      if (high.x < localH) { term = term + wallTerm(scale * high.x, -axisX); }
      if (low.y < localH) { term = term + wallTerm(scale * low.y, axisY); }
      if (high.y < localH) { term = term + wallTerm(scale * high.y, -axisY); }
      if (low.z < localH) { term = term + wallTerm(scale * low.z, axisZ); }
      if (high.z < localH) { term = term + wallTerm(scale * high.z, -axisZ); }
      nearest = min(min(min(low.x, high.x), min(low.y, high.y)), min(low.z, high.z));
      if (nearest >= localH) { continue; }
    } else {
      // Every other collider (left out of the `Boxes` variant, dispatched while all are box containers).
      // @shapes
      let surface = fluidSideDistance(shape, l, localH);
      if (surface.x >= localH) { continue; }
      term = wallTerm(scale * surface.x, rotate(pose, surface.yzw));
      nearest = surface.x;
      // @end shapes
    }
    sum = sum + term;
    if (c.coupled == 1u) { keepShare(slot, term.xyz, scale * nearest); }
    continuing {
      slot = slot + 1u;
      break if slot >= scene.params.colliderCount;
    }
  }
  return sum;
}

@compute @workgroup_size(WORKGROUP_SIZE)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
  let i = id.x;
  if (i >= state.count) { return; }
  let p = scene.params;
  let k = loadKernel();
  let materialCount = p.materialCount;
  let coincidentOffset = p.coincidentOffset;
  let own = sortedPredicted[i];
  let xi = own.xyz;
  let materialI = sortedInfo[i].material;
  let mi = scene.materials[materialI].mass;
  let inverseRestDensity = scene.materials[materialI].inverseRestDensity;
  var walls = vec4<f32>(0.0);
  nearShare = vec4<f32>(0.0, 0.0, 0.0, 3.0e38);
  nearSlot = -1;
  nextShare = nearShare;
  nextSlot = -1;
  if (p.colliderCount > 0u) { walls = wallWeights(xi); }
  var density = mi * (p.selfWeight + walls.w);
  var gradient = mi * inverseRestDensity * walls.xyz;
  var squares = 0.0;
  var neighbours = 0u;
  let home = keyCell(u32(own.w));
  // @neighbours
        var r = xi - other.xyz;
        if (all(r == vec3<f32>(0.0))) { r.x = select(-coincidentOffset, coincidentOffset, i < j); }
        let r2 = dot(r, r);
        if (r2 >= k.radiusSquared) { continue; }
        neighbours = neighbours + 1u;
        var mj = mi;
        // @general
        if (materialCount > 1u) { mj = scene.materials[sortedInfo[j].material].mass; }
        // @simple
        // @end
        density = density + mj * poly6(k, r2);
        let a = spikyScale(k, sqrt(r2)) * mj * inverseRestDensity;
        gradient = gradient + a * r;
        squares = squares + a * a * r2;
  // @end neighbours
  let constraint = density * inverseRestDensity - 1.0;
  var lambda = 0.0;
  if (constraint > 0.0) {
    lambda = -constraint / (squares + dot(gradient, gradient) + scene.materials[materialI].relaxation);
  }
  // w: whether the projection solves the particle's cell (still water; projection/grid.wgsl, solvedParticles).
  solve[i] = vec4<f32>(density, lambda, f32(neighbours), solve[i].w);
  wall[i] = vec4<f32>(walls.xyz, 0.0);
  if (p.coupledCount > 0u) {
    wall[p.wallShareOffset + i] = vec4<f32>(nearShare.xyz, f32(nearSlot));
    wall[2u * p.wallShareOffset + i] = vec4<f32>(nextShare.xyz, f32(nextSlot));
  }
}
