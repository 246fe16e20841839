// Applies each particle's correction, clamped to one particle radius (mirrors applyCorrections in
// density/cpu.ts), and adds the coupled colliders' share of the wall-weight pressure to their impulse
// accumulators (mirrors accumulateWallImpulses in couple/cpu.ts): the correction's wall part of collider b
// is clamp lambda_i (m_i / rho0_i) grad Z_b, and the body receives -m_i times it over dt, at the corrected
// position. The lambda pass kept the shares grad Z_b of the two coupled colliders nearest to the particle
// (wall[wallShareOffset + i] and wall[2 wallShareOffset + i]: gradient, slot; slot -1: none). This pass runs
// only when a collider is coupled; the collide pass then leaves the correction out (see `stepPasses` in
// gpu/backend.ts).

@compute @workgroup_size(WORKGROUP_SIZE)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
  let i = id.x;
  if (i >= state.count) { return; }
  let p = scene.params;
  let own = sortedPredicted[i];
  var correction = delta[i].xyz;
  var clampScale = 1.0;
  let lengthSquared = dot(correction, correction);
  if (lengthSquared > p.particleRadius * p.particleRadius) {
    clampScale = p.particleRadius / sqrt(lengthSquared);
    correction = correction * clampScale;
  }
  let x = own.xyz + correction;
  sortedPredicted[i] = vec4<f32>(x, own.w);
  let material = scene.materials[sortedInfo[i].material];
  let m = material.mass;
  let scale = -m * clampScale * solve[i].y * m * material.inverseRestDensity * p.inverseTimeStep;
  if (scale == 0.0) { return; }
  var share = 0u;
  loop {
    let entry = wall[(share + 1u) * p.wallShareOffset + i];
    if (entry.w >= 0.0) {
      let slot = u32(entry.w);
      addBodyImpulse(slot, poseOf(slot, false), scene.colliders[slot].centreOfMass.xyz, scale * entry.xyz, x);
    }
    continuing {
      share = share + 1u;
      break if share >= 2u;
    }
  }
}
