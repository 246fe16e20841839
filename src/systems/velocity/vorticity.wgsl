// Vorticity confinement (eq. 16; mirrors the second pass of viscosityVorticitySystem in velocity/cpu.ts):
// eta_i = sum_j V_j (|omega_j| - |omega_i|) grad_i W_ij, N = eta / |eta|, v_i += dt epsilon (N x omega_i).

@compute @workgroup_size(WORKGROUP_SIZE)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
  let i = id.x;
  if (i >= state.count) { return; }
  let k = loadKernel();
  let timeStep = scene.params.timeStep;
  let epsilon = scene.materials[sortedInfo[i].material].vorticity;
  if (epsilon == 0.0) { return; }
  let own = sortedPredicted[i];
  let xi = own.xyz;
  let omegaI = omega[i];
  var eta = vec3<f32>(0.0);
  let home = keyCell(u32(own.w));
  // @neighbours
        let r = xi - other.xyz;
        let r2 = dot(r, r);
        if (r2 >= k.radiusSquared || r2 == 0.0) { continue; }
        eta = eta + spikyScale(k, sqrt(r2)) * (omega[j].w - omegaI.w) * sortedVelocity[j].w * r;
  // @end neighbours
  let etaLength = length(eta);
  if (etaLength < 1e-9) { return; }
  let n = eta / etaLength;
  let v = delta[i];
  delta[i] = vec4<f32>(v.xyz + timeStep * epsilon * cross(n, omegaI.xyz), v.w);
}
