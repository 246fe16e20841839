// Shared by every per-particle pass: cell keys and hashing (mirrors neighbours/cpu.ts; the GPU wraps cell
// coordinates to 8 bits per axis, see gpu/backend.ts) and the kernels. The parameters the inner loops use
// are copied from the scene buffer into a `Kernel` value once per thread (a storage read per neighbour
// would be repeated, as the compiler cannot prove the read-write buffers do not alias it).

struct Kernel {
  radius: f32,
  radiusSquared: f32,
  inverseRadius: f32,
  poly6: f32,
  spiky: f32,
  tableMask: u32,
};

fn loadKernel() -> Kernel {
  let p = scene.params;
  return Kernel(p.kernelRadius, p.kernelRadiusSquared, p.inverseKernelRadius, p.poly6, p.spiky, p.tableMask);
}

fn cellOf(p: vec3<f32>) -> vec3<i32> {
  return vec3<i32>(floor(p * scene.params.inverseKernelRadius));
}

// Key of a cell: its coordinates modulo 256, packed in 24 bits (exact as an f32, stored in predicted.w).
fn cellKey(c: vec3<i32>) -> u32 {
  let w = vec3<u32>(c & vec3<i32>(255));
  return w.x | (w.y << 8u) | (w.z << 16u);
}

// Key of neighbour cell `n` (0..26: dz outer, dy, dx inner, each -1..1) of the cell `home`. The passes visit
// the 27 cells in one loop, and every loop in the form `loop { ... continuing { ...; break if done; } }`:
// SwiftShader runs a loop's body once more, with no lane active, after a loop's own test fails at the top,
// and runs every branch of an `if` (masked), so nested loops and early exits are paid for in full.
fn neighbourKey(home: vec3<i32>, n: i32) -> u32 {
  return cellKey(home + vec3<i32>(n % 3 - 1, (n / 3) % 3 - 1, n / 9 - 1));
}

fn keyCell(key: u32) -> vec3<i32> {
  return vec3<i32>(i32(key & 255u), i32((key >> 8u) & 255u), i32((key >> 16u) & 255u));
}

// Bucket of a cell key (Teschner et al. 2003 primes, as hashCell on the CPU).
fn bucketOfKey(key: u32, mask: u32) -> u32 {
  let w = keyCell(key);
  let h = (u32(w.x) * 73856093u) ^ (u32(w.y) * 19349663u) ^ (u32(w.z) * 83492791u);
  return h & mask;
}

fn poly6(k: Kernel, r2: f32) -> f32 {
  let d = k.radiusSquared - r2;
  return k.poly6 * d * d * d;
}

// Spiky gradient scale g with grad_i W_ij = g (x_i - x_j), for 0 < r < h.
fn spikyScale(k: Kernel, r: f32) -> f32 {
  let e = k.radius - r;
  return -k.spiky * e * e / r;
}
