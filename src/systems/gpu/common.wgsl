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

// The passes visit the 27 cells around a particle's as 9 rows along x (rowPart), and every loop in the form
// `loop { ... continuing { ...; break if done; } }`: SwiftShader runs a loop's body once more, with no lane
// active, after a loop's own test fails at the top, and runs every branch of an `if` (masked), so nested
// loops and early exits are paid for in full.
fn keyCell(key: u32) -> vec3<i32> {
  return vec3<i32>(i32(key & 255u), i32((key >> 8u) & 255u), i32((key >> 16u) & 255u));
}

// Hash of a row of cells (its y and z modulo 256; Teschner et al. 2003 primes).
fn rowHash(y: u32, z: u32) -> u32 {
  return (y * 19349663u) ^ (z * 83492791u);
}

// The first bucket of row (y, z)'s sub-table: the table (mask + 1 buckets, at least 1024) is cut into 16
// sub-tables, one per (y modulo 4, z modulo 4), so the nine rows around a cell (three consecutive y and z,
// distinct modulo 4; 256 is a multiple of 4, so the keys' wrap keeps that) never share a bucket. Whatever
// else the buckets of those rows hold lies at least 2h from the cell: a row of the same sub-table is four
// rows away or more, and a cell of the same row hashed into the same buckets (mask + 1) / 16 cells away. So
// the neighbour loops need no key test: their bodies' distance test (within h) leaves those out.
fn rowBase(y: u32, z: u32, mask: u32) -> u32 {
  return ((y & 3u) | ((z & 3u) << 2u)) * ((mask >> 4u) + 1u);
}

// Bucket of a cell key: in its row's sub-table, its row's hash plus its x, so that the cells x, x + 1, x + 2
// of a row take consecutive buckets, and their particles one range of the sorted order (rowPart).
fn bucketOfKey(key: u32, mask: u32) -> u32 {
  let y = (key >> 8u) & 255u;
  let z = key >> 16u;
  return rowBase(y, z, mask) + ((rowHash(y, z) + (key & 255u)) & (mask >> 4u));
}

// Part `part` of the three cells x0, x0 + 1, x0 + 2 (x0 modulo 256) of the row (y, z): (first bucket, the
// bucket whose start ends the range, 1 if the part is the whole row). A row is one part, its three buckets,
// unless it wraps (x0 > 253, or its buckets pass its sub-table's end): then three parts of one bucket each.
// The range also holds the particles of other cells hashed into those buckets, all at least 2h away (rowBase).
fn rowPart(y: u32, z: u32, x0: u32, part: u32, mask: u32) -> vec3<u32> {
  let sub = mask >> 4u;
  let base = rowBase(y, z, mask);
  let hash = rowHash(y, z);
  let first = (hash + x0) & sub;
  if (x0 <= 253u && first + 2u <= sub) { return vec3<u32>(base + first, base + first + 3u, 1u); }
  let bucket = base + ((hash + ((x0 + part) & 255u)) & sub);
  return vec3<u32>(bucket, bucket + 1u, 0u);
}

// The (row, part) after `part` of `row` in a row-wise visit: the next part of a wrapped row, else the next
// row's first (`whole`: rowPart's z, the row was one part).
fn nextRowPart(row: u32, part: u32, whole: bool) -> vec2<u32> {
  let next = select(part + 1u, 3u, whole);
  return select(vec2<u32>(row, next), vec2<u32>(row + 1u, 0u), next == 3u);
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
