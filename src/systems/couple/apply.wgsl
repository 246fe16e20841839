// Applies each particle's correction, clamped to one particle radius (mirrors applyCorrections in
// density/cpu.ts), and records the coupled colliders' share of the wall-weight pressure as pending pushes
// (mirrors accumulateWallImpulses in couple/cpu.ts): the correction's wall part of collider b is
// clamp lambda_i (m_i / rho0_i) grad Z_b. The lambda pass kept the shares grad Z_b of the two coupled
// colliders nearest to the particle (wall[wallShareOffset + i] and wall[2 wallShareOffset + i]: gradient,
// slot; slot -1: none). The collide pass hands the pending pushes to the bodies (-m_i dx / dt) after the
// collisions, less what other colliders pushed back. This pass runs only when a collider is coupled; the
// collide pass then leaves the correction out (see `stepPasses` in gpu/backend.ts).

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
  let slot = sortedInfo[i].material;
  let scale = clampScale * solve[i].y * scene.materials[slot].mass * scene.materials[slot].inverseRestDensity;
  var share = 0u;
  loop {
    let entry = wall[(share + 1u) * p.wallShareOffset + i];
    var pending = vec4<f32>(0.0, 0.0, 0.0, -1.0);
    if (entry.w >= 0.0 && scale != 0.0) { pending = vec4<f32>(scale * entry.xyz, entry.w); }
    contact[i].pending[share] = pending;
    continuing {
      share = share + 1u;
      break if share >= PENDING_PUSHES;
    }
  }
}
