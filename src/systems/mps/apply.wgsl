// MPS in steps with coupled colliders (mirrors addWallPressureImpulses in mps/pressure.ts and the drifts of
// mps/cpu.ts), before each coupled collide pass (which then does not apply delta itself): x* += delta, unclamped
// (the drift of viscosity and collisions, or the correction, clamped to one radius by correction.wgsl), the
// pending pushes cleared, and after the correction (delta.w >= 0: 2 p_i / rho_i, correction.wgsl; the drift
// has -1 there) the ghost walls' pressure load on the bodies of the two coupled colliders nearest to the
// particle, at x* before the correction: dt (d / n0) m_i (2 p_i / rho_i S + H), S and H the collider's shares
// of the walls' first-moment and hydrostatic sums (mps/walls.wgsl keeps them in wall blocks 2 to 5; the factor
// dt (d / n0) m_i in the w of blocks 3 and 5). The CPU hands every coupled wall its share; the GPU the two
// nearest colliders', the approximation of PBF's and WCSPH's wall impulses on the GPU.

@compute @workgroup_size(WORKGROUP_SIZE)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
  let i = id.x;
  if (i >= state.count) { return; }
  let p = scene.params;
  let own = sortedPredicted[i];
  let change = delta[i];
  sortedPredicted[i] = vec4<f32>(own.xyz + change.xyz, own.w);
  for (var pending = 0u; pending < PENDING_PUSHES; pending = pending + 1u) {
    contact[i].pending[pending] = vec4<f32>(0.0, 0.0, 0.0, -1.0);
  }
  if (change.w < 0.0) { return; }
  for (var share = 0u; share < 2u; share = share + 1u) {
    let first = wall[(2u + 2u * share) * p.capacity + i];
    if (first.w >= 0.0) {
      let second = wall[(3u + 2u * share) * p.capacity + i];
      let slot = u32(first.w);
      let impulse = second.w * (change.w * first.xyz + second.xyz);
      addBodyImpulse(slot, poseOf(slot, false), scene.colliders[slot].centerOfMass.xyz, impulse, own.xyz);
    }
  }
}
