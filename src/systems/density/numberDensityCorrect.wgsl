// Mass-weighted position corrections of the number-density constraint (mirrors
// computeNumberDensityCorrections in density/numberDensity.ts): prepended by the artificial pressure function of
// density/correct.wgsl (its part before the entry point). From the values numberDensityLambda.wgsl wrote,
// solve = (rho, lambda V b / (m / rho0_material), count, lambda V) and wall = (grad Z, V):
// dx_i = lambda_i V_i b_i grad Z_i + sum_j (lambda_i V_i + lambda_j V_j m_j / m_i + s_ij m_j) grad W_ij,
// s_ij = s (V_i + V_j) / (m_i + m_j), s the artificial pressure (eq. 13 of Macklin and Müller 2013 as written,
// without the single-fluid solve's rest-spacing offset; the mean of the two materials' for a pair of different
// materials).

@compute @workgroup_size(WORKGROUP_SIZE)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
  let i = id.x;
  if (i >= state.count) { return; }
  let k = loadKernel();
  let materialCount = scene.params.materialCount;
  let coincidentOffset = scene.params.coincidentOffset;
  let own = sortedPredicted[i];
  let xi = own.xyz;
  let materialI = sortedInfo[i].material;
  let mi = scene.materials[materialI].mass;
  let solveI = solve[i];
  let wallI = wall[i];
  let vi = wallI.w;
  let pushI = solveI.w;
  var sum = (solveI.y * mi * scene.materials[materialI].inverseRestDensity) * wallI.xyz;
  let home = keyCell(u32(own.w));
  // @neighbours
        var r = xi - other.xyz;
        if (all(r == vec3<f32>(0.0))) { r.x = select(-coincidentOffset, coincidentOffset, i < j); }
        let r2 = dot(r, r);
        if (r2 >= k.radiusSquared) { continue; }
        let weight = poly6(k, r2);
        var pressure = artificialPressure(materialI, weight, 0.0);
        var mj = mi;
        if (materialCount > 1u) {
          let materialJ = sortedInfo[j].material;
          if (materialJ != materialI) {
            pressure = 0.5 * (pressure + artificialPressure(materialJ, weight, 0.0));
            mj = scene.materials[materialJ].mass;
          }
        }
        let sharedPressure = pressure * (vi + wall[j].w) / (mi + mj);
        let a = (pushI + solve[j].w * mj / mi + sharedPressure * mj) * spikyScale(k, sqrt(r2));
        sum = sum + a * r;
  // @end neighbours
  delta[i] = vec4<f32>(sum, 0.0);
}
