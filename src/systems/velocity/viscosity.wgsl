// XSPH viscosity (eq. 17) and vorticity (eq. 15) from the same velocities (mirrors the first pass of
// viscosityVorticitySystem in velocity/cpu.ts): v_i' = v_i + c sum_j V_j W_ij (v_j - v_i),
// omega_i = sum_j V_j (v_i - v_j) x grad_i W_ij. Writes (v_i', V_i) to delta and (omega_i, |omega_i|) to omega.

@compute @workgroup_size(WORKGROUP_SIZE)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
  let i = id.x;
  if (i >= state.count) { return; }
  let k = loadKernel();
  let own = sortedPredicted[i];
  let xi = own.xyz;
  let velocityI = sortedVelocity[i];
  let vi = velocityI.xyz;
  var xsph = vec3<f32>(0.0);
  var vorticity = vec3<f32>(0.0);
  let home = keyCell(u32(own.w));
  // @neighbours
        let r = xi - other.xyz;
        let r2 = dot(r, r);
        if (r2 >= k.radiusSquared) { continue; }
        let velocityJ = sortedVelocity[j];
        let u = vi - velocityJ.xyz;
        xsph = xsph - velocityJ.w * poly6(k, r2) * u;
        if (r2 > 0.0) {
          vorticity = vorticity + velocityJ.w * cross(u, spikyScale(k, sqrt(r2)) * r);
        }
  // @end neighbours
  let viscosity = scene.materials[sortedInfo[i].material].viscosity;
  delta[i] = vec4<f32>(vi + viscosity * xsph, velocityI.w);
  omega[i] = vec4<f32>(vorticity, length(vorticity));
}
