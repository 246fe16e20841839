// Number density, constraint and lambda of each particle for several fluids (mirrors computeRestVolumes and
// computeNumberDensityLambda in density/numberDensity.ts; Müller et al. 2005, section 3.1, with the number
// density of Solenthaler and Pajarola 2008). Prepended by the wall functions of density/lambda.wgsl (its
// part before the entry point). One thread per particle gathers over the 27 cells around its cell:
// delta_i = W(0) + Z_i + sum_j W_ij, V_i = m_i / rho0_i from wall[i].w (see restVolume.wgsl),
// grad_i C_i = V_i (grad Z_i + sum_j grad W_ij), squares_i = sum_j (m_i / m_j) V_i^2 |grad W_ij|^2,
// lambda_i = -C_i / (squares_i + |grad_i C_i|^2 + epsilon), C_i = max(V_i delta_i - 1, 0);
// r_i = (sum_j m_j W_ij + m_i W(0)) / ((delta_i - Z_i) m_i), b_i = 2 r_i - 1 if r_i > 1, else r_i.
// Writes solve = (rho_i = m_i delta_i, lambda_i V_i b_i / (m_i / rho0_material), neighbour count, lambda_i V_i)
// and wall = (grad Z_i, V_i): solve.y is what the apply pass (couple/apply.wgsl) multiplies by m / rho0 of
// the material to get the wall share lambda_i V_i b_i of density/numberDensity.ts, solve.w and wall.w are what
// the correction pass (numberDensityCorrect.wgsl) reads of the neighbours.

@compute @workgroup_size(WORKGROUP_SIZE)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
  let i = id.x;
  if (i >= state.count) { return; }
  let p = scene.params;
  let k = loadKernel();
  let materialCount = p.materialCount;
  let coincidentOffset = p.coincidentOffset;
  let own = sortedPredicted[i];
  let xi = own.xyz;
  let materialI = sortedInfo[i].material;
  let mi = scene.materials[materialI].mass;
  // V_i, written by the restVolume pass (restVolume.wgsl) before the substep's iterations.
  let vi = wall[i].w;
  var walls = vec4<f32>(0.0);
  nearShare = vec4<f32>(0.0, 0.0, 0.0, 3.0e38);
  nearSlot = -1;
  nextShare = nearShare;
  nextSlot = -1;
  if (p.colliderCount > 0u) { walls = wallWeights(xi); }
  var delta = p.selfWeight + walls.w;
  var neighbourhoodMass = mi * p.selfWeight;
  var gradient = vi * walls.xyz;
  var squares = 0.0;
  var neighbours = 0u;
  let home = keyCell(u32(own.w));
  // @neighbours
        var r = xi - other.xyz;
        if (all(r == vec3<f32>(0.0))) { r.x = select(-coincidentOffset, coincidentOffset, i < j); }
        let r2 = dot(r, r);
        if (r2 >= k.radiusSquared) { continue; }
        neighbours = neighbours + 1u;
        var mj = mi;
        if (materialCount > 1u) { mj = scene.materials[sortedInfo[j].material].mass; }
        let w = poly6(k, r2);
        delta = delta + w;
        neighbourhoodMass = neighbourhoodMass + mj * w;
        let a = spikyScale(k, sqrt(r2)) * vi;
        gradient = gradient + a * r;
        squares = squares + (mi / mj) * a * a * r2;
  // @end neighbours
  let constraint = vi * delta - 1.0;
  // Mean mass of the neighbourhood over the particle's own: the walls' virtual particles carry it.
  let ratio = neighbourhoodMass / ((delta - walls.w) * mi);
  var lambda = 0.0;
  if (constraint > 0.0) {
    // The wall part counts with weight 1 here although the correction gives it b_i (see density.ts).
    lambda = -constraint / (squares + dot(gradient, gradient) + scene.materials[materialI].relaxation);
  }
  let share = vi * select(ratio, 2.0 * ratio - 1.0, ratio > 1.0);
  solve[i] = vec4<f32>(mi * delta, lambda * share / (scene.materials[materialI].mass * scene.materials[materialI].inverseRestDensity), f32(neighbours),
    lambda * vi);
  wall[i] = vec4<f32>(walls.xyz, vi);
  if (p.coupledCount > 0u) {
    wall[p.wallShareOffset + i] = vec4<f32>(nearShare.xyz, f32(nearSlot));
    wall[2u * p.wallShareOffset + i] = vec4<f32>(nextShare.xyz, f32(nextSlot));
  }
}
