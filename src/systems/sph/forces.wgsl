// WCSPH accelerations and the leap-frog kick (mirrors computeSphAccelerations and sphForceSystem in
// sph/cpu.ts; Müller et al. 2003, section 3): per particle, gathered over its neighbours,
// a_i = -sum_j m_j (p_i / rho_i^2 + p_j / rho_j^2) grad W_spiky (normalised on the rest lattice; with the
// number-density estimate -(1 / m_i) sum_j (p_i V_i^2 + p_j V_j^2) grad W_spiky, Solenthaler and Pajarola
// 2008) + sum_j (mu_i + mu_j) / 2 m_j (v_j - v_i) / (rho_i rho_j) lap W_viscosity (eq. 14 with eq. 9 of
// Müller et al. 2005; mu per material, wall.w from the density pass) - m_i p_i / rho_i^2 grad Z_i (walls) + g,
// plus surface tension
// -sigma lap(c_S) n / (|n| rho_i) where |n| > l (eq. 15-19, poly6 gradient and Laplacian, the walls counted
// in n). Then v = v + dt a, clamped to maxSpeed, and the drift dt v is written to delta (b_i to delta.w): the collide pass adds
// it to x* (= x here) without the clamp to one particle radius it applies to PBF's corrections (sphMode 1;
// the drift exceeds r when lambda h > r and v is comparable to c_s, or when maxSubsteps caps the count), and
// the velocity pass takes v = (x* - x) / dt back from the positions, as on the CPU.

@compute @workgroup_size(WORKGROUP_SIZE)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
  let i = id.x;
  if (i >= state.count) { return; }
  let p = scene.params;
  let k = loadKernel();
  let coincidentOffset = p.coincidentOffset;
  let own = sortedPredicted[i];
  let xi = own.xyz;
  let vi = sortedVelocity[i].xyz;
  let solveI = solve[i];
  let rhoI = solveI.x;
  let pressureI = solveI.y;
  let volumeI = solveI.w;
  // Masses as V rho (the density pass stored V = m / rho): one buffer fewer to bind (at most 8 per pass).
  let mi = volumeI * rhoI;
  let inverseRhoISquared = 1.0 / (rhoI * rhoI);
  let wallI = wall[i];
  let gradientZ = wallI.xyz;
  let muI = wallI.w;
  let color = p.poly6Gradient;
  let viscosity = 0.5 * p.viscosityLaplacian / rhoI;
  let numberDensity = p.sphNumberDensity == 1u;
  let pressureWeightI = pressureI * volumeI * volumeI;
  var acceleration = vec3<f32>(0.0);
  // The number-density form's sums for the walls' pressure scale b_i (see below).
  var neighbourhoodMass = mi * p.selfWeight;
  var neighbourhoodNumber = p.selfWeight;
  var normal = volumeI * gradientZ;
  // The particle's own color Laplacian at r = 0: -color h^2 (3 h^2).
  var laplacian = volumeI * (-color * 3.0 * k.radiusSquared * k.radiusSquared);
  let home = keyCell(u32(own.w));
  // @neighbours
        var r = xi - other.xyz;
        if (all(r == vec3<f32>(0.0))) { r.x = select(-coincidentOffset, coincidentOffset, i < j); }
        let r2 = dot(r, r);
        if (r2 >= k.radiusSquared) { continue; }
        let distance = sqrt(r2);
        let solveJ = solve[j];
        let mj = solveJ.w * solveJ.x;
        let e = k.radius - distance;
        var pressureScale = p.sphPressureGradient * e * e / distance;
        if (numberDensity) {
          pressureScale = pressureScale * (pressureWeightI + solveJ.y * solveJ.w * solveJ.w) / (mi * mj);
        } else {
          pressureScale = pressureScale * (pressureI * inverseRhoISquared + solveJ.y / (solveJ.x * solveJ.x));
        }
        if (numberDensity) {
          let w = poly6(k, r2);
          neighbourhoodMass = neighbourhoodMass + mj * w;
          neighbourhoodNumber = neighbourhoodNumber + w;
        }
        let viscosityScale = viscosity * (muI + wall[j].w) * (k.radius - distance) / solveJ.x;
        acceleration = acceleration + mj * (pressureScale * r + viscosityScale * (sortedVelocity[j].xyz - vi));
        let d = k.radiusSquared - r2;
        normal = normal + (solveJ.w * -color * d * d) * r;
        laplacian = laplacian + solveJ.w * -color * d * (3.0 * k.radiusSquared - 7.0 * r2);
  // @end neighbours
  // The walls' pressure, scaled by b_i (1 in one fluid; with the number density the walls' virtual particles
  // carry the neighbourhood's mean mass, r_i = that over m_i, b_i = 2 r_i - 1 where r_i > 1, as
  // computeSphDensity in sph/cpu.ts). b_i goes to delta.w for the wall impulses of sph/apply.wgsl.
  var wallScale = 1.0;
  if (numberDensity) {
    let ratio = neighbourhoodMass / (neighbourhoodNumber * mi);
    wallScale = select(ratio, 2.0 * ratio - 1.0, ratio > 1.0);
  }
  acceleration = acceleration + (-mi * pressureI * wallScale * inverseRhoISquared) * gradientZ;
  acceleration = acceleration + p.gravity.xyz;
  let lengthSquared = dot(normal, normal);
  if (p.sphSurfaceTension > 0.0 && lengthSquared > p.sphSurfaceThreshold * p.sphSurfaceThreshold && lengthSquared > 0.0) {
    acceleration = acceleration + (-p.sphSurfaceTension * laplacian / (sqrt(lengthSquared) * rhoI)) * normal;
  }
  var v = vi + p.timeStep * acceleration;
  let speedSquared = dot(v, v);
  if (speedSquared > p.maxSpeed * p.maxSpeed) { v = v * (p.maxSpeed / sqrt(speedSquared)); }
  delta[i] = vec4<f32>(p.timeStep * v, wallScale);
}
