// MPS particle number densities (mirrors computeStartNumberDensity and computeNumberDensity in mps/cpu.ts;
// Premoze et al. 2003, section 3.1): n_i = sum_j w_ij plus the walls' ghost number density Z (mps/walls.wgsl).
// - `start`: n at the start-of-substep positions (sortedPosition, after the first collide pass moved the
//   particles it pre-stabilised), over the 27 cells around the particle's predicted cell (the pass visits
//   cells, not the list of x* pairs; a pair whose members the substep moved past a cell apart is missed, where
//   the CPU's own grid of the start positions finds every pair). Writes the source block's x.
// - `predicted`: n* at x* (after the first collide pass) with the walls' full sums: wall[i] = (first moment,
//   Z), wall[capacity + i] = (hydrostatic sum, its Laplacian sum), and the source block (n, n*, the
//   hydrostatic Laplacian sum, 0) for the assembly; with coupled colliders also the two nearest ones' shares
//   in wall blocks 2 to 5 (see mps/apply.wgsl).
// - `end`: n at the corrected positions (same lists, walls' Z), reported as solve[i] = (rho0 n / n0, p,
//   neighbours within r_e, 1 on the free surface), which the readback takes as the density and the neighbour
//   count.

// @entry start
@compute @workgroup_size(WORKGROUP_SIZE)
fn start(@builtin(global_invocation_id) id: vec3<u32>) {
  let i = id.x;
  if (i >= state.count) { return; }
  let k = loadKernel();
  let own = sortedPredicted[i];
  let xi = sortedPosition[i].xyz;
  var n = 0.0;
  if (scene.params.colliderCount > 0u) { n = mpsWallSums(xi).moment.w; }
  let home = keyCell(u32(own.w));
  // @neighbours
        let r = xi - sortedPosition[j].xyz;
        n = n + mpsWeight(dot(r, r));
  // @end neighbours
  mps[mpsAt(MPS_SOURCE, i)] = vec4<f32>(n, 0.0, 0.0, 0.0);
}

// @entry predicted
@compute @workgroup_size(WORKGROUP_SIZE)
fn predicted(@builtin(global_invocation_id) id: vec3<u32>) {
  let i = id.x;
  if (i >= state.count) { return; }
  let p = scene.params;
  let k = loadKernel();
  let own = sortedPredicted[i];
  let xi = own.xyz;
  var walls = MpsWallSums(vec4<f32>(0.0), vec4<f32>(0.0));
  if (p.colliderCount > 0u) { walls = mpsWallSums(xi); }
  var n = walls.moment.w;
  let home = keyCell(u32(own.w));
  // @neighbours
        let r = xi - other.xyz;
        n = n + mpsWeight(dot(r, r));
  // @end neighbours
  wall[i] = walls.moment;
  wall[p.capacity + i] = walls.hydrostatic;
  if (p.coupledCount > 0u) {
    // The coupled colliders' shares (mps/apply.wgsl), with the impulse factor dt (d / n0) m_i.
    let factor = p.timeStep * p.mpsGradientScale * scene.materials[u32(sortedPosition[i].w)].mass;
    wall[2u * p.capacity + i] = mpsNear.moment;
    wall[3u * p.capacity + i] = vec4<f32>(mpsNear.hydrostatic.xyz, factor);
    wall[4u * p.capacity + i] = mpsNext.moment;
    wall[5u * p.capacity + i] = vec4<f32>(mpsNext.hydrostatic.xyz, factor);
  }
  let startDensity = mps[mpsAt(MPS_SOURCE, i)].x;
  mps[mpsAt(MPS_SOURCE, i)] = vec4<f32>(startDensity, n, walls.hydrostatic.w, 0.0);
}

// @entry end
@compute @workgroup_size(WORKGROUP_SIZE)
fn end(@builtin(global_invocation_id) id: vec3<u32>) {
  let i = id.x;
  if (i >= state.count) { return; }
  let p = scene.params;
  let k = loadKernel();
  let own = sortedPredicted[i];
  let xi = own.xyz;
  var n = 0.0;
  if (p.colliderCount > 0u) { n = mpsWallSums(xi).moment.w; }
  var neighbours = 0u;
  let home = keyCell(u32(own.w));
  // @neighbours
        let r = xi - other.xyz;
        let r2 = dot(r, r);
        if (r2 >= k.radiusSquared) { continue; }
        neighbours = neighbours + 1u;
        n = n + mpsWeight(r2);
  // @end neighbours
  let rho = 1.0 / scene.materials[u32(sortedPosition[i].w)].inverseRestDensity;
  let surface = select(0.0, 1.0, mps[mpsAt(MPS_SOURCE, i)].x == 0.0);
  solve[i] = vec4<f32>(rho * n / p.mpsRestNumberDensity, mps[mpsAt(MPS_DIRECTION, i)].x, f32(neighbours), surface);
}
