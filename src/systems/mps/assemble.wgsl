// Assembles the MPS pressure equation, matrix-free (mirrors assemblePressureEquation in mps/pressure.ts;
// Premoze et al. 2003, eq. 14 and 18, scaled as in mps/cpu.ts): a particle with n* < beta n0 is on the free
// surface (p = 0, no unknown: diagonal 0); any other is an unknown with the diagonal sum_j w_ij over every
// fluid neighbour (free-surface ones included) plus the compressibility term operatorScale n0 alpha rho, and
// the right-hand side b = rho (operatorScale (gamma (n - n0) - d sum_j (D_j - D_i) . r_ij w_ij / r_ij^2) +
// the walls' hydrostatic Laplacian sum), D = x* - x the substep's displacement. The off-diagonal entries
// -w_ij between two unknowns are never stored: the conjugate gradient passes (cg.wgsl) take them from the
// positions. The warm start x0 is the particle's last pressure (mpsPressure, by entity id; 0 if not finite or
// where b is 0).
// Writes the source block (diagonal, 0, b, x0) and clears both direction slots.

@compute @workgroup_size(WORKGROUP_SIZE)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
  let i = id.x;
  if (i >= state.count) { return; }
  let p = scene.params;
  let k = loadKernel();
  let own = sortedPredicted[i];
  let xi = own.xyz;
  let start = sortedPosition[i];
  let displacement = xi - start.xyz;
  // (n, n*, hydrostatic Laplacian sum, 0) from the density passes.
  let source = mps[mpsAt(MPS_SOURCE, i)];
  mps[mpsAt(MPS_DIRECTION, i)] = vec4<f32>(0.0);
  mps[mpsAt(MPS_DIRECTION + 1u, i)] = vec4<f32>(0.0);
  if (source.y < p.mpsSurfaceThreshold) {
    mps[mpsAt(MPS_SOURCE, i)] = vec4<f32>(0.0);
    return;
  }
  let rho = 1.0 / scene.materials[u32(start.w)].inverseRestDensity;
  var diagonal = 0.0;
  var divergence = 0.0;
  let home = keyCell(u32(own.w));
  // @neighbours
        let r = other.xyz - xi;
        let r2 = dot(r, r);
        let w = mpsWeight(r2);
        if (w == 0.0) { continue; }
        diagonal = diagonal + w;
        if (r2 == 0.0) { continue; }
        divergence = divergence + dot(other.xyz - sortedPosition[j].xyz - displacement, r) * (w / r2);
  // @end neighbours
  diagonal = diagonal + p.mpsCompressibilityScale * rho;
  let b = rho * (p.mpsOperatorScale * (p.mpsRelaxation * (source.x - p.mpsRestNumberDensity) - 3.0 * divergence) + source.z);
  let warm = mpsPressure[sortedInfo[i].entity];
  // A non-finite warm start (exponent bits all set) starts from 0, as on the CPU; so does an entry whose b is
  // 0, so that with b = 0 the solve returns x = 0 as the CPU's does (elsewhere the start only changes the
  // iterations).
  let x0 = select(warm, 0.0, (bitcast<u32>(warm) & 0x7f800000u) == 0x7f800000u || b == 0.0);
  mps[mpsAt(MPS_SOURCE, i)] = vec4<f32>(diagonal, 0.0, b, x0);
}
