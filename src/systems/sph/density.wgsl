// WCSPH density and pressure of each particle (mirrors computeSphDensity in sph/cpu.ts; Müller et al. 2003,
// eq. 3 and 12; walls by Harada et al. 2007, eq. 12): rho_i = m_i (W(0) + Z_i) + sum_j m_j W_poly6(x_i - x_j),
// p_i = max(0, k (rho_i - rho0_i)). One thread per particle gathers over the 27 cells around its cell, on the
// current positions (the predict pass left x* = x in sphMode). The wall weights come from the wall-weight
// functions of density/lambda.wgsl (its part before the entry point, prepended by gpu/backend.ts).
// With the number-density estimate (sphNumberDensity, several fluids; see computeSphDensity):
// rho_i = m_i (W(0) + Z_i + sum_j W_ij) and rho0_i = m_i / V0_i, V0_i from wall[i].w (the restVolume pass,
// density/restVolume.wgsl, ran before: alpha / T for a temperature-dependent rest density).
// Writes (rho, p, neighbour count, m / rho) to solve (the readback takes rho and the count for the stats) and (grad Z, mu_i) to wall, mu_i the material's dynamic
// viscosity for the forces pass; with coupled colliders also the shares of the two nearest (as the lambda
// pass does), for the wall impulses of sph/apply.wgsl.

@compute @workgroup_size(WORKGROUP_SIZE)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
  let i = id.x;
  if (i >= state.count) { return; }
  let p = scene.params;
  let k = loadKernel();
  let own = sortedPredicted[i];
  let xi = own.xyz;
  let materialI = sortedInfo[i].material;
  let mi = scene.materials[materialI].mass;
  var walls = vec4<f32>(0.0);
  nearShare = vec4<f32>(0.0, 0.0, 0.0, 3.0e38);
  nearSlot = -1;
  nextShare = nearShare;
  nextSlot = -1;
  if (p.colliderCount > 0u) { walls = wallWeights(xi); }
  var numberDensity = p.selfWeight + walls.w;
  var density = mi * numberDensity;
  var neighbours = 0u;
  let home = keyCell(u32(own.w));
  // @neighbours
        let r = xi - other.xyz;
        let r2 = dot(r, r);
        if (r2 >= k.radiusSquared) { continue; }
        neighbours = neighbours + 1u;
        let w = poly6(k, r2);
        density = density + scene.materials[sortedInfo[j].material].mass * w;
        numberDensity = numberDensity + w;
  // @end neighbours
  var restDensity = 1.0 / scene.materials[materialI].inverseRestDensity;
  if (p.sphNumberDensity == 1u) {
    density = mi * numberDensity;
    restDensity = mi / wall[i].w;
  }
  let pressure = max(0.0, p.sphStiffness * (density - restDensity));
  solve[i] = vec4<f32>(density, pressure, f32(neighbours), mi / density);
  wall[i] = vec4<f32>(walls.xyz, scene.materials[materialI].dynamicViscosity);
  if (p.coupledCount > 0u) {
    wall[p.wallShareOffset + i] = vec4<f32>(nearShare.xyz, f32(nearSlot));
    wall[2u * p.wallShareOffset + i] = vec4<f32>(nextShare.xyz, f32(nextSlot));
  }
}
