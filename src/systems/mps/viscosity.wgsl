// MPS explicit viscosity (mirrors mpsViscositySystem in mps/cpu.ts; Premoze et al. 2003, eq. 7 and 9): per
// particle, gathered over its neighbours at the predicted positions, dv_i = dt min(nu, stable nu) 2d /
// (lambda n0) sum_j w_ij (v_j - v_i) (the scale is `mpsViscosityScale`, 0 without viscosity), into delta for
// the collision pass (collision.wgsl), which adds it to the velocity and dt dv to x*.

@compute @workgroup_size(WORKGROUP_SIZE)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
  let i = id.x;
  if (i >= state.count) { return; }
  let p = scene.params;
  let k = loadKernel();
  let own = sortedPredicted[i];
  let xi = own.xyz;
  let vi = sortedVelocity[i].xyz;
  var sum = vec3<f32>(0.0);
  let home = keyCell(u32(own.w));
  // @neighbours
        let r = xi - other.xyz;
        let r2 = dot(r, r);
        if (r2 >= k.radiusSquared) { continue; }
        sum = sum + mpsWeight(r2) * (sortedVelocity[j].xyz - vi);
  // @end neighbours
  delta[i] = vec4<f32>(p.mpsViscosityScale * sum, 0.0);
}
