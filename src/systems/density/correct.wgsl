// Position correction of each particle (mirrors computeCorrections in density/cpu.ts; Macklin & Müller 2013,
// eq. 13-14): delta_i = lambda_i (m_i / rho0_i) grad Z_i + sum_j (lambda_i + lambda_j + s_corr) (m_j / rho0_i) grad W_ij.

// Artificial pressure s_corr (eq. 13; artificialPressure in density/shared.ts) of the material in slot m at
// poly6 weight w, offset by restShare (0 to 1) times its value at the rest spacing 2r (0 unless
// projection.freeSurface): this pass passes the mean of the pair's solve[].w (1 where the projection solves
// the particle's cell), so that s_corr is zero between such particles at or beyond the rest spacing;
// numberDensityCorrect.wgsl passes 0 (as written). The passes read single
// fields of a material, never the whole struct: SwiftShader loads every field of a struct value.
fn artificialPressure(m: u32, weight: f32, restShare: f32) -> f32 {
  let ratio = weight * scene.materials[m].inverseArtificialPressureWeight;
  let exponent = scene.materials[m].artificialPressureExponent;
  var power: f32;
  if (exponent == 4.0) {
    let ratio2 = ratio * ratio;
    power = ratio2 * ratio2;
  } else {
    power = pow(ratio, exponent);
  }
  return -scene.materials[m].artificialPressureScale
    * max(power - restShare * scene.materials[m].artificialPressureRestPower, 0.0);
}

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
  let massI = scene.materials[materialI].mass;
  let inverseRestDensity = scene.materials[materialI].inverseRestDensity;
  let pressureWeight = scene.materials[materialI].inverseArtificialPressureWeight;
  let pressureScale = scene.materials[materialI].artificialPressureScale;
  let pressureRestPower = scene.materials[materialI].artificialPressureRestPower;
  let solveI = solve[i];
  let lambdaI = solveI.y;
  var sum = lambdaI * massI * inverseRestDensity * wall[i].xyz;
  let home = keyCell(u32(own.w));
  // @neighbours
        var r = xi - other.xyz;
        if (all(r == vec3<f32>(0.0))) { r.x = select(-coincidentOffset, coincidentOffset, i < j); }
        let r2 = dot(r, r);
        if (r2 >= k.radiusSquared) { continue; }
        let weight = poly6(k, r2);
        let solveJ = solve[j];
        let restShare = 0.5 * (solveI.w + solveJ.w);
        // @general
        var scorr = artificialPressure(materialI, weight, restShare);
        var mj = massI;
        if (materialCount > 1u) {
          let materialJ = sortedInfo[j].material;
          if (materialJ != materialI) {
            scorr = 0.5 * (scorr + artificialPressure(materialJ, weight, restShare));
            mj = scene.materials[materialJ].mass;
          }
        }
        // @simple
        // One material, exponent 4 (see `simpleMaterials` in gpu/backend.ts): artificialPressure's first case.
        let ratio = weight * pressureWeight;
        let ratio2 = ratio * ratio;
        let scorr = -pressureScale * max(ratio2 * ratio2 - restShare * pressureRestPower, 0.0);
        let mj = massI;
        // @end
        let f = (lambdaI + solveJ.y + scorr) * spikyScale(k, sqrt(r2));
        sum = sum + f * mj * inverseRestDensity * r;
  // @end neighbours
  delta[i] = vec4<f32>(sum, 0.0);
}
