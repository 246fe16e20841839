// Steps 5, 7 and 8 of the coarse projection on the GPU (mirrors transfer.ts): each particle's stencils
// (`stencil`), the faces' sums over the particles and their coefficients (`scatter`, which also does step 6's
// faceCoefficients of solve.ts; a thread per cell gathers for its three faces
// from the particles of the 27 cells whose stencils can reach them, so no float atomics are needed and the
// sums do not depend on thread order), the faces' velocity changes (`changes`) and the particles' share of
// them (`gather`).

// The stencil of axis a for grid coordinates g: the base face's coordinates and the fractions.
struct FaceStencil {
  base: vec3<i32>,
  t: vec3<f32>,
};

fn faceStencil(g: vec3<f32>, a: u32) -> FaceStencil {
  let f = g - faceOffset(a);
  let b = floor(f);
  return FaceStencil(vec3<i32>(b), f - b);
}

// @entry stencil
// Per particle and axis, the normalisation of its trilinear weights over the faces that are not dead (1 /
// their sum, 0 when all are dead), into projectionParticle[3 i].xyz; -1 for a particle off the grid. And,
// for a particle on the grid, what `scatter` reads of it, three vec4s: (scales, m), (g, V) and (V v, V / rho0),
// g its grid coordinates and V = m / rho0 its rest volume (the density error occupancy kept in
// projectionParticle[3 i].w is read before this pass).
@compute @workgroup_size(WORKGROUP_SIZE)
fn stencil(@builtin(global_invocation_id) id: vec3<u32>) {
  let i = id.x;
  if (i >= state.count) { return; }
  let dims = gridDims();
  let g = gridCoordinates(sortedPredicted[i].xyz, scene.params.inverseKernelRadius);
  var scales = vec3<f32>(-1.0);
  if (projectionGrid.cells > 0u && onGrid(g, dims)) {
    for (var a = 0u; a < 3u; a = a + 1u) {
      let s = faceStencil(g, a);
      let base = cellIndex(s.base, dims);
      var total = 0.0;
      for (var k = 0u; k < 8u; k = k + 1u) {
        if (projectionFace[3u * cornerFace(base, k, dims) + a].kind != FACE_DEAD) {
          total = total + cornerWeight(s.t, k);
        }
      }
      scales[a] = select(0.0, 1.0 / total, total > 0.0);
    }
    let slot = sortedInfo[i].material;
    let mass = scene.materials[slot].mass;
    let inverseRestDensity = scene.materials[slot].inverseRestDensity;
    let restVolume = mass * inverseRestDensity;
    projectionParticle[3u * i] = vec4<f32>(scales, mass);
    projectionParticle[3u * i + 1u] = vec4<f32>(g, restVolume);
    projectionParticle[3u * i + 2u] = vec4<f32>(restVolume * sortedVelocity[i].xyz, restVolume * inverseRestDensity);
  } else {
    projectionParticle[3u * i] = vec4<f32>(scales, 0.0);
  }
}

// @entry scatter
// Step 5 (scatterToGrid): one thread per cell sums, for each of its three lower faces that is not dead,
// w m, w V, w V v_a and w V / rho0 over the particles whose stencil of that axis holds the face: those in
// the 27 cells around it (along axis a the cells one below and at the face, across it one around). The
// three axes' weights are computed together (zero outside a stencil), and the loops are written as the
// neighbour loop's (common.wgsl), which SwiftShader runs no more often than needed. A particle is read as
// the three vec4s `stencil` wrote, and kept where it is on the grid and floor(g) of its grid coordinates g
// lies within one cell of q on every axis (not by its sort key, so no position is read). Its sort key's cell
// K and floor(g) can differ: g = fl(x / h - origin) may round up onto the next integer, F = K + 1 (never
// past it). So a particle in the nine rows' buckets is kept by floor(g), whichever of those rows holds it
// (they share no bucket: rowBase, gpu/common.wgsl), and one with K outside the 27 cells and F inside lies
// at g = q - 1 exactly on that axis, where its weights on q's faces are zero. Other particles in the rows'
// buckets lie two cells or more from q (rowBase).

// The single-density test of faceMobility in float32: M_f S_f / V_f^2 - 1 below this (rounding) is one fluid.
const SINGLE_DENSITY_TOLERANCE: f32 = 1.0e-5;

// faceMobility (transfer.ts) of a face with the sums `mass`, `volume` (V_f) and `shareVolume` (S_f): 1 / (rho0
// V_full) between two full cells on a face of one rest density, S_f / V_f^2 elsewhere.
fn faceMobility(mass: f32, volume: f32, shareVolume: f32, full: bool) -> f32 {
  let v = volume;
  if (!(v > 0.0)) { return 0.0; }
  let single = mass * shareVolume <= v * v * (1.0 + SINGLE_DENSITY_TOLERANCE);
  return shareVolume / (v * select(v, scene.params.projectionFullVolume, full && single));
}

// The weights of the particle at grid coordinates g on the lower faces of cell q along the three axes: its
// stencils' trilinear weights there, prod_d max(0, 1 - |g_d - o_d - q_d|) with the face offsets o of
// faceOffset (0 along the axis, 1/2 across): the weight of the stencil's corner at q, 0 where q is not one
// of its corners, without finding the stencil.
fn faceWeights(g: vec3<f32>, q: vec3<i32>) -> vec3<f32> {
  let d = g - vec3<f32>(q);
  let along = max(vec3<f32>(0.0), vec3<f32>(1.0) - abs(d));
  let across = max(vec3<f32>(0.0), vec3<f32>(1.0) - abs(d - vec3<f32>(0.5)));
  return vec3<f32>(along.x * across.y * across.z, across.x * along.y * across.z, across.x * across.y * along.z);
}

@compute @workgroup_size(WORKGROUP_SIZE)
fn scatter(@builtin(global_invocation_id) id: vec3<u32>) {
  let c = id.x;
  if (c >= projectionGrid.cells) { return; }
  let p = scene.params;
  let dims = gridDims();
  let origin = gridOrigin();
  let q = cellCoordinates(c, dims);
  let live = vec3<bool>(projectionFace[3u * c].kind != FACE_DEAD, projectionFace[3u * c + 1u].kind != FACE_DEAD,
    projectionFace[3u * c + 2u].kind != FACE_DEAD);
  var massSum = vec3<f32>(0.0);
  var volume = vec3<f32>(0.0);
  var flux = vec3<f32>(0.0);
  var share = vec3<f32>(0.0);
  if (any(live)) {
    // The 27 cells as 9 rows along x (rowPart, common.wgsl), also beyond the grid's edge: a particle sorted
    // there may be on the grid by floor(g) (see above).
    var row = 0u;
    var part = 0u;
    loop {
      let rowQ = q.yz + vec2<i32>(i32(row % 3u) - 1, i32(row / 3u) - 1);
      let rowStart = cellKey(origin + vec3<i32>(q.x - 1, rowQ));
      let range = rowPart((rowStart >> 8u) & 255u, rowStart >> 16u, rowStart & 255u, part, p.tableMask);
      let end = buckets[range.y];
      var j = buckets[range.x];
      if (j < end) {
        loop {
          let scales = projectionParticle[3u * j];
          let place = projectionParticle[3u * j + 1u];
          let flow = projectionParticle[3u * j + 2u];
          // On the grid, and floor(g) within one cell of q (a bucket holds other cells too).
          let cell = vec3<i32>(floor(place.xyz));
          if (scales.x < 0.0 || any(abs(cell - q) > vec3<i32>(1))) { continue; }
          let w = select(vec3<f32>(0.0), scales.xyz, live) * faceWeights(place.xyz, q);
          massSum = massSum + scales.w * w;
          volume = volume + place.w * w;
          flux = flux + flow.xyz * w;
          share = share + flow.w * w;
          continuing {
            j = j + 1u;
            break if j >= end;
          }
        }
      }
      continuing {
        let next = nextRowPart(row, part, range.z == 1u);
        row = next.x;
        part = next.y;
        break if row == 9u;
      }
    }
  }
  // Then faceCoefficients (solve.ts) on the sums, here rather than in a pass of its own: an open face with less
  // than projectionClosedMass is closed; else its velocity is its volume flux over its volume and A's
  // coefficient H^2 k_f (between two full cells where the cell below, c - stride, is full too, tested as
  // faceMobility of transfer.ts tests it).
  let area = p.kernelRadius * p.kernelRadius;
  let full = projectionCell[c].full == 1u;
  for (var a = 0u; a < 3u; a = a + 1u) {
    let f = 3u * c + a;
    projectionFace[f].mass = massSum[a];
    projectionFace[f].volume = volume[a];
    projectionFace[f].volumeFlux = flux[a];
    projectionFace[f].shareVolume = share[a];
    var coefficient = 0.0;
    if (projectionFace[f].kind == FACE_OPEN) {
      if (massSum[a] < p.projectionClosedMass) {
        projectionFace[f].kind = FACE_CLOSED;
      } else {
        let stride = axisStride(a, dims);
        let bothFull = full && c >= stride && projectionCell[c - stride].full == 1u;
        projectionFace[f].velocity = flux[a] / volume[a];
        coefficient = area * faceMobility(massSum[a], volume[a], share[a], bothFull);
      }
    }
    projectionFace[f].coefficient = coefficient;
  }
}

// @entry changes
// Step 7 (faceChanges): an open face changes by -(phi_upper - phi_lower) H^2 k_f (its coefficient), a solid
// one to its collider's velocity; and what a particle takes of it per unit of share weight, dv_f V_f / S_f.
@compute @workgroup_size(WORKGROUP_SIZE)
fn changes(@builtin(global_invocation_id) id: vec3<u32>) {
  let c = id.x;
  if (c >= projectionGrid.cells) { return; }
  let dims = gridDims();
  let upper = select(0.0, projectionCell[c].phi, projectionCell[c].cellType == CELL_FLUID);
  for (var a = 0u; a < 3u; a = a + 1u) {
    let f = 3u * c + a;
    let face = projectionFace[f];
    var change = 0.0;
    if (face.kind == FACE_OPEN) {
      let lowerIndex = c - axisStride(a, dims);
      let lower = select(0.0, projectionCell[lowerIndex].phi, projectionCell[lowerIndex].cellType == CELL_FLUID);
      change = -(upper - lower) * face.coefficient;
    } else if (face.kind >= 0) {
      change = face.velocity - select(0.0, face.volumeFlux / face.volume, face.volume > 0.0);
    }
    projectionFace[f].change = change;
    projectionFace[f].transfer = select(0.0, change * face.volume / face.shareVolume,
      change != 0.0 && face.shareVolume > 0.0);
  }
}

// @entry gather
// Step 8 (gatherFromGrid): each particle on the grid takes its stencils' changes times its share weight
// 1 / rho0, less the even share of the full faces' excess momentum: v += dv, x* += dt dv.
@compute @workgroup_size(WORKGROUP_SIZE)
fn gather(@builtin(global_invocation_id) id: vec3<u32>) {
  let i = id.x;
  if (i >= state.count) { return; }
  let scales = projectionParticle[3u * i].xyz;
  if (scales.x < 0.0 || projectionGrid.cells == 0u) { return; }
  let p = scene.params;
  let dims = gridDims();
  let predicted = sortedPredicted[i];
  let g = gridCoordinates(predicted.xyz, p.inverseKernelRadius);
  let share = scene.materials[sortedInfo[i].material].inverseRestDensity;
  let excess = vec3<f32>(projectionGrid.excessX, projectionGrid.excessY, projectionGrid.excessZ);
  var dv = vec3<f32>(0.0);
  for (var a = 0u; a < 3u; a = a + 1u) {
    let s = faceStencil(g, a);
    let base = cellIndex(s.base, dims);
    var sum = 0.0;
    for (var k = 0u; k < 8u; k = k + 1u) {
      sum = sum + cornerWeight(s.t, k) * projectionFace[3u * cornerFace(base, k, dims) + a].transfer;
    }
    dv[a] = share * scales[a] * sum - projectionGrid.inverseGridMass * excess[a];
  }
  let v = sortedVelocity[i];
  sortedVelocity[i] = vec4<f32>(v.xyz + dv, v.w);
  sortedPredicted[i] = vec4<f32>(predicted.xyz + p.timeStep * dv, predicted.w);
}
