// Shared by the MPS passes (mps/*.wgsl, mirroring mps/cpu.ts and mps/pressure.ts): the weight and the blocks
// of the `mps` buffer (MPS_BLOCKS, gpu/structs.ts). The conjugate gradients' sums are in cg.wgsl.

// w(r) = r_e / max(r, 0.1 r_e) - 1 for r < r_e, else 0 (mpsWeight, mps/data.ts), from r^2.
fn mpsWeight(r2: f32) -> f32 {
  let p = scene.params;
  if (r2 >= p.kernelRadiusSquared) { return 0.0; }
  return p.kernelRadius / max(sqrt(r2), p.mpsMinimumDistance) - 1.0;
}

// Entry of particle place `i` in block `block` of the `mps` buffer.
fn mpsAt(block: u32, i: u32) -> u32 {
  return block * scene.params.capacity + i;
}
