// Shared by every per-particle pass: the particle count guard, cell keys and hashing (mirrors
// neighbours/cpu.ts; the GPU wraps cell coordinates to 8 bits per axis, see neighbours/gpu.ts).

fn cellOf(p: vec3<f32>) -> vec3<i32> {
  return vec3<i32>(floor(p * scene.params.inverseKernelRadius));
}

// Key of a cell: its coordinates modulo 256, packed in 24 bits (exact as an f32, stored in predicted.w).
fn cellKey(c: vec3<i32>) -> u32 {
  let w = vec3<u32>(c & vec3<i32>(255));
  return w.x | (w.y << 8u) | (w.z << 16u);
}

fn keyCell(key: u32) -> vec3<i32> {
  return vec3<i32>(i32(key & 255u), i32((key >> 8u) & 255u), i32((key >> 16u) & 255u));
}

// Bucket of a cell key (Teschner et al. 2003 primes, as hashCell on the CPU).
fn bucketOfKey(key: u32) -> u32 {
  let w = keyCell(key);
  let h = (u32(w.x) * 73856093u) ^ (u32(w.y) * 19349663u) ^ (u32(w.z) * 83492791u);
  return h & scene.params.tableMask;
}

fn poly6(r2: f32) -> f32 {
  let d = scene.params.kernelRadiusSquared - r2;
  return scene.params.poly6 * d * d * d;
}

// Spiky gradient scale g with grad_i W_ij = g (x_i - x_j), for 0 < r < h.
fn spikyScale(r: f32) -> f32 {
  let e = scene.params.kernelRadius - r;
  return -scene.params.spiky * e * e / r;
}
