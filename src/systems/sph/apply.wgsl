// WCSPH's drift and wall impulses in steps with coupled colliders (mirrors accumulateSphWallImpulses and the
// drift of sphForceSystem in sph/cpu.ts): x* = x + dt v (the drift the forces pass wrote to delta, not
// clamped, as the collide pass does in sphMode without coupled colliders), no pending pushes (the collide
// pass's coupled variant adds its own and hands them to the bodies), and each of the two coupled colliders
// nearest to the particle receives the opposite of the wall pressure it exerted in the substep,
// dt m_i^2 p_i / rho_i^2 grad Z_b at the particle (the density pass kept the shares grad Z_b in
// wall[wallShareOffset + i] and wall[2 wallShareOffset + i]: gradient, slot; slot -1 none).

@compute @workgroup_size(WORKGROUP_SIZE)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
  let i = id.x;
  if (i >= state.count) { return; }
  let p = scene.params;
  let own = sortedPredicted[i];
  sortedPredicted[i] = vec4<f32>(own.xyz + delta[i].xyz, own.w);
  // solve: (rho, p, neighbour count, m / rho); delta.w: the walls' pressure scale b_i (sph/forces.wgsl).
  let solveI = solve[i];
  let mass = solveI.w * solveI.x;
  let scale = p.timeStep * mass * mass * solveI.y * delta[i].w / (solveI.x * solveI.x);
  for (var pending = 0u; pending < PENDING_PUSHES; pending = pending + 1u) {
    contact[i].pending[pending] = vec4<f32>(0.0, 0.0, 0.0, -1.0);
  }
  if (scale == 0.0) { return; }
  for (var share = 1u; share <= 2u; share = share + 1u) {
    let entry = wall[share * p.wallShareOffset + i];
    if (entry.w >= 0.0) {
      let slot = u32(entry.w);
      addBodyImpulse(slot, poseOf(slot, false), scene.colliders[slot].centerOfMass.xyz, scale * entry.xyz, own.xyz);
    }
  }
}
