// Shared by the projection passes that bind `projectionGrid` (grid.wgsl, transfer.wgsl, solve.wgsl): the
// grid's plan, cell coordinates and the faces' stencil (mirrors cellCoordinates in grid.ts and faceStencil in
// transfer.ts). Cells are numbered x fastest; face 3 c + a is the lower face of cell c along axis a.

fn gridDims() -> vec3<i32> {
  return vec3<i32>(projectionGrid.dimsX, projectionGrid.dimsY, projectionGrid.dimsZ);
}

fn gridOrigin() -> vec3<i32> {
  return vec3<i32>(projectionGrid.originX, projectionGrid.originY, projectionGrid.originZ);
}

fn cellCoordinates(c: u32, dims: vec3<i32>) -> vec3<i32> {
  let i = i32(c);
  return vec3<i32>(i % dims.x, (i / dims.x) % dims.y, i / (dims.x * dims.y));
}

fn cellIndex(q: vec3<i32>, dims: vec3<i32>) -> u32 {
  return u32((q.z * dims.y + q.y) * dims.x + q.x);
}

// Index step of one cell along axis a.
fn axisStride(a: u32, dims: vec3<i32>) -> u32 {
  return select(select(u32(dims.x * dims.y), u32(dims.x), a == 1u), 1u, a == 0u);
}

// Grid coordinates of the faces of axis a relative to cells: integer along a, cell centers across.
fn faceOffset(a: u32) -> vec3<f32> {
  return select(vec3<f32>(0.5), vec3<f32>(0.0), vec3<u32>(a) == vec3<u32>(0u, 1u, 2u));
}

// A particle's grid coordinates (cells of h from the grid's origin) for 1 / h `inverseH`.
fn gridCoordinates(x: vec3<f32>, inverseH: f32) -> vec3<f32> {
  return x * inverseH - vec3<f32>(gridOrigin());
}

// The particle at grid coordinates g is on the grid when its cell is at least one cell from the grid's edge
// (its stencils then stay within the grid).
fn onGrid(g: vec3<f32>, dims: vec3<i32>) -> bool {
  let q = vec3<i32>(floor(g));
  return all(q >= vec3<i32>(1)) && all(q <= dims - vec3<i32>(2));
}

// The trilinear weight of corner k (bit 0: x + 1, bit 1: y + 1, bit 2: z + 1) for fractions t.
fn cornerWeight(t: vec3<f32>, k: u32) -> f32 {
  let upper = vec3<u32>(k & 1u, (k >> 1u) & 1u, (k >> 2u) & 1u) == vec3<u32>(1u);
  let w = select(vec3<f32>(1.0) - t, t, upper);
  return w.x * w.y * w.z;
}

// Index of corner k's face from the stencil's base face.
fn cornerFace(base: u32, k: u32, dims: vec3<i32>) -> u32 {
  let nx = u32(dims.x);
  let nxy = u32(dims.x * dims.y);
  return base + (k & 1u) + ((k >> 1u) & 1u) * nx + ((k >> 2u) & 1u) * nxy;
}

