// WCSPH end of substep: the velocity the velocity pass took from the positions (with the contact response)
// goes to delta, where the write-back pass (gpu/bookkeeping.wgsl) reads each particle's final velocity (the
// PBF path has its XSPH-smoothed velocity there). Mirrors sphFinishSystem in sph/cpu.ts.

@compute @workgroup_size(WORKGROUP_SIZE)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
  let i = id.x;
  if (i >= state.count) { return; }
  delta[i] = vec4<f32>(sortedVelocity[i].xyz, 0.0);
}
