// Steps 5, 7 and 8 of the coarse projection on the GPU (mirrors transfer.ts): each particle's stencils
// (`stencil`), the faces' sums over the particles (`scatter`; a thread per cell gathers for its three faces
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
// their sum, 0 when all are dead), into projectionParticle[3 i].xyz; -1 for a particle off the grid. And
// what `scatter` sums of it, so that it reads three vec4s per particle: (m, V, V / rho0) in
// projectionParticle[3 i + 1] and V v in projectionParticle[3 i + 2] (V = m / rho0, its rest volume).
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
    projectionParticle[3u * i + 1u] = vec4<f32>(mass, restVolume, restVolume * inverseRestDensity, 0.0);
    projectionParticle[3u * i + 2u] = vec4<f32>(restVolume * sortedVelocity[i].xyz, 0.0);
  }
  projectionParticle[3u * i] = vec4<f32>(scales, projectionParticle[3u * i].w);
}

// @entry scatter
// Step 5 (scatterToGrid): one thread per cell sums, for each of its three lower faces that is not dead,
// w m, w V, w V v_a and w V / rho0 over the particles whose stencil of that axis holds the face: those in
// the 27 cells around it (along axis a the cells one below and at the face, across it one around). The
// three axes' weights are computed together (zero outside a stencil), and the loops are written as the
// neighbour loop's (common.wgsl), which SwiftShader runs no more often than needed.

// The weight of the particle at grid coordinates g on the lower face of cell q along axis a: its
// stencil's trilinear weight there, 0 where the face is not in its stencil.
fn faceWeight(g: vec3<f32>, q: vec3<i32>, a: u32) -> f32 {
  let s = faceStencil(g, a);
  let corner = q - s.base;
  if (any(corner < vec3<i32>(0)) || any(corner > vec3<i32>(1))) { return 0.0; }
  return cornerWeight(s.t, u32(corner.x) + 2u * u32(corner.y) + 4u * u32(corner.z));
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
    var near = 0;
    loop {
      // The cells at the grid's edge hold no particle on the grid (see onGrid).
      let cellQ = q + vec3<i32>(near % 3 - 1, (near / 3) % 3 - 1, near / 9 - 1);
      if (all(cellQ >= vec3<i32>(1)) && all(cellQ <= dims - vec3<i32>(2))) {
        let world = origin + cellQ;
        let key = cellKey(world);
        let keyValue = f32(key);
        let bucket = bucketOfKey(key, p.tableMask);
        let end = buckets[bucket + 1u];
        var j = buckets[bucket];
        if (j < end) {
          loop {
            let other = sortedPredicted[j];
            if (other.w != keyValue || any(cellOf(other.xyz) != world)) { continue; }
            let scales = projectionParticle[3u * j].xyz;
            if (scales.x < 0.0) { continue; }
            let g = gridCoordinates(other.xyz, p.inverseKernelRadius);
            let amounts = projectionParticle[3u * j + 1u];
            let flow = projectionParticle[3u * j + 2u].xyz;
            let w = select(vec3<f32>(0.0), scales, live) *
              vec3<f32>(faceWeight(g, q, 0u), faceWeight(g, q, 1u), faceWeight(g, q, 2u));
            massSum = massSum + amounts.x * w;
            volume = volume + amounts.y * w;
            flux = flux + flow * w;
            share = share + amounts.z * w;
            continuing {
              j = j + 1u;
              break if j >= end;
            }
          }
        }
      }
      continuing {
        near = near + 1;
        break if near == 27;
      }
    }
  }
  for (var a = 0u; a < 3u; a = a + 1u) {
    let f = 3u * c + a;
    projectionFace[f].mass = massSum[a];
    projectionFace[f].volume = volume[a];
    projectionFace[f].volumeFlux = flux[a];
    projectionFace[f].shareVolume = share[a];
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
