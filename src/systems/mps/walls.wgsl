// The MPS walls' ghost sums of a particle (mirrors computeMpsWallTerms and addWall in mps/walls.ts): every
// collider within r_e, a container box as six flat walls, any other shape (meshes included) as its nearest
// surface, each looked up in the scene's `mpsWallTable` (linear in the distance). Result: `moment` = (the
// ghosts' first moment sum_g w (x_g - x_i) / |x_g - x_i|^2 (1/m), Z) and `hydrostatic` = (sum_g w (g . (x_g -
// x_i)) (x_g - x_i) / |x_g - x_i|^2 (m/s^2), sum_g w g . (x_g - x_i) (m^2/s^2)), and the two nearest
// coupled colliders' shares in `mpsNear` and `mpsNext`. Needs pose.wgsl and the shapes (collide/shapes.ts)
// before it.

struct MpsWallSums {
  moment: vec4<f32>,
  hydrostatic: vec4<f32>,
};

// With coupled colliders: the two nearest coupled colliders' shares of the sums (first moment and slot,
// hydrostatic sum and distance; slot -1 none), kept by `mpsWallSums` for the wall impulses (mps/apply.wgsl).
var<private> mpsNear: MpsWallSums;
var<private> mpsNext: MpsWallSums;

// Keeps collider `slot`'s share `term` at local-to-world distance `distance` if it is among the two nearest.
fn mpsKeepShare(slot: u32, term: MpsWallSums, distance: f32) {
  let share = MpsWallSums(vec4<f32>(term.moment.xyz, f32(slot)), vec4<f32>(term.hydrostatic.xyz, distance));
  if (distance < mpsNear.hydrostatic.w) {
    mpsNext = mpsNear;
    mpsNear = share;
  } else if (distance < mpsNext.hydrostatic.w) {
    mpsNext = share;
  }
}

// Adds one flat wall at world distance d (< r_e) with unit world normal n towards the fluid.
fn mpsAddWall(sums: ptr<function, MpsWallSums>, d: f32, n: vec3<f32>) {
  let position = max(d, 0.0) * scene.params.wallSamplesPerMetre;
  var k = WALL_WEIGHT_SAMPLES - 1u;
  if (position < f32(WALL_WEIGHT_SAMPLES - 1u)) { k = u32(floor(position)); }
  let t = position - f32(k);
  let low = scene.mpsWallTable[2u * k];
  let high = scene.mpsWallTable[2u * k + 2u];
  // (Z, s, a, b) and m at d.
  let v = low + t * (high - low);
  let lowDepth = scene.mpsWallTable[2u * k + 1u].x;
  let depth = lowDepth + t * (scene.mpsWallTable[2u * k + 3u].x - lowDepth);
  let g = scene.params.gravity.xyz;
  let gn = dot(g, n);
  // Ghosts lie behind the wall: x_g - x_i = -depth n + lateral; M g with M = a n n^T + b (I - n n^T).
  (*sums).moment = (*sums).moment + vec4<f32>(-v.y * n, v.x);
  (*sums).hydrostatic = (*sums).hydrostatic + vec4<f32>(v.z * gn * n + v.w * (g - gn * n), -depth * gn);
}

// The ghost sums at world position x; call with colliderCount > 0 (a loop runs its body once at least, see
// common.wgsl).
fn mpsWallSums(x: vec3<f32>) -> MpsWallSums {
  var sums = MpsWallSums(vec4<f32>(0.0), vec4<f32>(0.0));
  let none = MpsWallSums(vec4<f32>(0.0, 0.0, 0.0, -1.0), vec4<f32>(0.0, 0.0, 0.0, 3.0e38));
  mpsNear = none;
  mpsNext = none;
  let re = scene.params.kernelRadius;
  var slot = 0u;
  loop {
    let shape = loadShape(slot);
    let c = shape.c;
    if (c.wallWeights == 0u) { continue; }
    let pose = poseOf(slot, false);
    let scale = pose.scale.x;
    let localRe = re * pose.scale.y;
    let l = toLocal(pose, x);
    // This collider's sums and its nearest wall's local distance (for the coupled shares).
    var term = MpsWallSums(vec4<f32>(0.0), vec4<f32>(0.0));
    var nearest = localRe;
    if (c.shape == SHAPE_BOX && c.container == 1u) {
      // Six faces; the columns of R are the local axes in world space.
      let axisX = vec3<f32>(pose.row0.x, pose.row1.x, pose.row2.x);
      let axisY = vec3<f32>(pose.row0.y, pose.row1.y, pose.row2.y);
      let axisZ = vec3<f32>(pose.row0.z, pose.row1.z, pose.row2.z);
      let low = l - c.a.xyz;
      let high = c.b.xyz - l;
      if (low.x < localRe) { mpsAddWall(&term, scale * low.x, axisX); }
      if (high.x < localRe) { mpsAddWall(&term, scale * high.x, -axisX); }
      if (low.y < localRe) { mpsAddWall(&term, scale * low.y, axisY); }
      if (high.y < localRe) { mpsAddWall(&term, scale * high.y, -axisY); }
      if (low.z < localRe) { mpsAddWall(&term, scale * low.z, axisZ); }
      if (high.z < localRe) { mpsAddWall(&term, scale * high.z, -axisZ); }
      nearest = min(min(min(low.x, high.x), min(low.y, high.y)), min(low.z, high.z));
    } else {
      let surface = fluidSideDistance(shape, l, localRe);
      if (surface.x < localRe) { mpsAddWall(&term, scale * surface.x, rotate(pose, surface.yzw)); }
      nearest = surface.x;
    }
    if (nearest >= localRe) { continue; }
    sums = MpsWallSums(sums.moment + term.moment, sums.hydrostatic + term.hydrostatic);
    if (c.coupled == 1u) { mpsKeepShare(slot, term, scale * nearest); }
    continuing {
      slot = slot + 1u;
      break if slot >= scene.params.colliderCount;
    }
  }
  return sums;
}
