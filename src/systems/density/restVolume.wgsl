// Rest volume of each particle for the number-density constraint (mirrors computeRestVolumes in
// density/numberDensity.ts): V_i = m_i / rho0_i (m^3), with rho0_i = alpha / T_i for a material with a
// temperature-dependent rest density (Müller et al. 2005, eq. 16), else the material's rest density. Run once
// per substep, after the sort and before the solver iterations; written to wall[i].w, which the
// number-density lambda pass (numberDensityLambda.wgsl) reads and keeps. With WCSPH sph/density.wgsl reads it
// and then writes the material's dynamic viscosity there.

@compute @workgroup_size(WORKGROUP_SIZE)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
  let i = id.x;
  if (i >= state.count) { return; }
  let particle = sortedInfo[i];
  let m = scene.materials[particle.material];
  var volume = m.mass * m.inverseRestDensity;
  // attributes.x holds T - TEMPERATURE_REFERENCE (see gpu/structs.ts).
  if (m.temperatureDensity > 0.0) {
    volume = m.mass * (attributes[particle.entity].x + TEMPERATURE_REFERENCE) / m.temperatureDensity;
  }
  wall[i] = vec4<f32>(wall[i].xyz, volume);
}
