// Interface and surface tension (mirrors applyTension in multifluid/interaction.ts, run for both color
// fields at once; Müller et al. 2005, eq. 10-12): for each field with per-material color c and tension
// sigma, n_i = sum_j V_j c_j grad W_ij (poly6 gradient), sigma lap(c)_i = sigma_i V_i c_i lap W(0)
// + sum_j (sigma_i + sigma_j) / 2 V_j c_j lap W_ij, and where sigma lap(c) != 0 and |n_i| >= threshold / h:
// v_i += dt (-sigma lap(c)_i) n_i / (|n_i| rho_i). V_j = m_j / rho_j from the density solve (solve.x), as
// the CPU's volume. Adds to the velocities the viscosity and vorticity passes (PBF), or sph/finish.wgsl
// (WCSPH), left in delta.xyz.

@compute @workgroup_size(WORKGROUP_SIZE)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
  let i = id.x;
  if (i >= state.count) { return; }
  let p = scene.params;
  let k = loadKernel();
  let coefficient = p.poly6Gradient;
  let own = sortedPredicted[i];
  let xi = own.xyz;
  let slotI = sortedInfo[i].material;
  let density = solve[i].x;
  let volume = scene.materials[slotI].mass / density;
  // lap W(0) = -k h^2 (3 h^2) for the particle's own term; x: interface field, y: surface field.
  let selfLaplacian = -coefficient * k.radiusSquared * 3.0 * k.radiusSquared;
  let colorI = vec2<f32>(scene.materials[slotI].interfaceColor, scene.materials[slotI].surfaceColor);
  let sigmaI = vec2<f32>(scene.materials[slotI].interfaceTension, scene.materials[slotI].surfaceTension);
  var laplacian = sigmaI * volume * colorI * selfLaplacian;
  var interfaceNormal = vec3<f32>(0.0);
  var surfaceNormal = vec3<f32>(0.0);
  let home = keyCell(u32(own.w));
  // @neighbours
        let r = xi - other.xyz;
        let r2 = dot(r, r);
        if (r2 >= k.radiusSquared) { continue; }
        let d = k.radiusSquared - r2;
        let g = -coefficient * d * d;
        let l = -coefficient * d * (3.0 * k.radiusSquared - 7.0 * r2);
        let slotJ = sortedInfo[j].material;
        let weightJ = (scene.materials[slotJ].mass / solve[j].x) * vec2<f32>(scene.materials[slotJ].interfaceColor,
          scene.materials[slotJ].surfaceColor);
        interfaceNormal = interfaceNormal + (weightJ.x * g) * r;
        surfaceNormal = surfaceNormal + (weightJ.y * g) * r;
        let pairSigma = 0.5 * (sigmaI + vec2<f32>(scene.materials[slotJ].interfaceTension,
          scene.materials[slotJ].surfaceTension));
        laplacian = laplacian + pairSigma * weightJ * l;
  // @end neighbours
  var v = delta[i];
  let interfaceLength = length(interfaceNormal);
  if (laplacian.x != 0.0 && interfaceLength >= p.tensionThreshold) {
    v = vec4<f32>(v.xyz + ((-laplacian.x * p.timeStep) / (interfaceLength * density)) * interfaceNormal, v.w);
  }
  let surfaceLength = length(surfaceNormal);
  if (laplacian.y != 0.0 && surfaceLength >= p.tensionThreshold) {
    v = vec4<f32>(v.xyz + ((-laplacian.y * p.timeStep) / (surfaceLength * density)) * surfaceNormal, v.w);
  }
  delta[i] = v;
}
