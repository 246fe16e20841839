// MPS pressure correction (mirrors applyPressureCorrection in mps/pressure.ts; Premoze et al. 2003, eq. 5 and
// 15-17): grad p_i = sum_j (p_j - p^_i) (x_j - x_i) w_ij / |x_j - x_i|^2 over the neighbours within r_e, plus
// the walls' ghosts, which carry p_g = p_i + rho g . (x_g - x_i): (p_i - p^_i) times their first moment plus rho
// times their hydrostatic sum (wall[i], wall[capacity + i], from density.wgsl); p and p^ from the residual pass
// (cg.wgsl). The correction dx = -(dt^2 / rho) (d / n0) grad p, clamped to one particle radius, goes to delta;
// the collide pass adds it to x* and collides again. Coincident particles are separated along x, in opposite
// directions for the two of a pair.

@compute @workgroup_size(WORKGROUP_SIZE)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
  let i = id.x;
  if (i >= state.count) { return; }
  let p = scene.params;
  let k = loadKernel();
  let own = sortedPredicted[i];
  let xi = own.xyz;
  let pressures = mps[mpsAt(MPS_DIRECTION, i)];
  let minimum = pressures.y;
  var gradient = vec3<f32>(0.0);
  let home = keyCell(u32(own.w));
  // @neighbours
        var r = other.xyz - xi;
        if (all(r == vec3<f32>(0.0))) { r.x = select(-p.coincidentOffset, p.coincidentOffset, i < j); }
        let r2 = dot(r, r);
        let w = mpsWeight(r2);
        if (w == 0.0) { continue; }
        gradient = gradient + ((mps[mpsAt(MPS_DIRECTION, j)].x - minimum) * w / r2) * r;
  // @end neighbours
  let inverseRho = scene.materials[u32(sortedPosition[i].w)].inverseRestDensity;
  gradient = gradient + (pressures.x - minimum) * wall[i].xyz + wall[p.capacity + i].xyz / inverseRho;
  var correction = (-p.timeStep * p.timeStep * inverseRho * p.mpsGradientScale) * gradient;
  let lengthSquared = dot(correction, correction);
  if (lengthSquared > p.particleRadius * p.particleRadius) {
    correction = correction * (p.particleRadius / sqrt(lengthSquared));
  }
  // w: 2 p_i / rho_i for the wall impulses of steps with coupled colliders (mps/apply.wgsl).
  delta[i] = vec4<f32>(correction, 2.0 * pressures.x * inverseRho);
}
