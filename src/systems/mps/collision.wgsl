// MPS particle collisions (mirrors mpsCollisionSystem in mps/cpu.ts, the collision model of Koshizuka & Oka
// 1996), after the viscosity pass: every particle sees the positions x* + dt dv_visc and velocities
// v + dv_visc of its neighbours (dv_visc in delta), and each pair closer than `mpsCollisionLimitSquared`
// whose members approach each other exchanges dv_i = -(1 + e) m_j / (m_i + m_j) ((v_i - v_j) . r) r / |r|^2,
// r = x_i - x_j (momentum conserved; every pair sees the velocities before the pass). The total change
// dv_visc + dv_coll goes to omega; the `advance` entry adds it to the velocity and hands dt times it to the
// collide pass in delta (unclamped in mpsMode, as the CPU adds it to x*).

// @entry collide
@compute @workgroup_size(WORKGROUP_SIZE)
fn collide(@builtin(global_invocation_id) id: vec3<u32>) {
  let i = id.x;
  if (i >= state.count) { return; }
  let p = scene.params;
  let k = loadKernel();
  let own = sortedPredicted[i];
  let changeI = delta[i].xyz;
  let xi = own.xyz + p.timeStep * changeI;
  let vi = sortedVelocity[i].xyz + changeI;
  var change = changeI;
  if (p.mpsCollisionLimitSquared > 0.0) {
    let mi = scene.materials[u32(sortedPosition[i].w)].mass;
    let home = keyCell(u32(own.w));
    // @neighbours
        let changeJ = delta[j].xyz;
        let r = xi - (other.xyz + p.timeStep * changeJ);
        let r2 = dot(r, r);
        if (r2 >= p.mpsCollisionLimitSquared || r2 == 0.0) { continue; }
        let approach = dot(vi - (sortedVelocity[j].xyz + changeJ), r);
        if (approach >= 0.0) { continue; }
        let mj = scene.materials[u32(sortedPosition[j].w)].mass;
        change = change - (p.mpsCollisionFactor * approach * mj / (r2 * (mi + mj))) * r;
    // @end neighbours
  }
  omega[i] = vec4<f32>(change, 0.0);
}

// @entry advance
@compute @workgroup_size(WORKGROUP_SIZE)
fn advance(@builtin(global_invocation_id) id: vec3<u32>) {
  let i = id.x;
  if (i >= state.count) { return; }
  let change = omega[i].xyz;
  let v = sortedVelocity[i];
  sortedVelocity[i] = vec4<f32>(v.xyz + change, v.w);
  // w -1: a drift, no wall impulse (mps/apply.wgsl).
  delta[i] = vec4<f32>(scene.params.timeStep * change, -1.0);
}
