// Step 6 of the coarse projection on the GPU (mirrors solve.ts; its faceCoefficients runs at the end of
// transfer.wgsl's `scatter`, where each face's sums are known): the right-hand side, the diagonal and the warm
// start (`rightHandSide`), and Jacobi-preconditioned conjugate gradients in one workgroup of ONE_WORKGROUP_SIZE
// threads (`solve`; 256 on a GPU, 4 on a CPU adapter, see `oneWorkgroupSize` in gpu/buffers.ts): the grid is
// coarse (a cell of h holds about 8 particles), so one workgroup sweeps it, the
// dot products are reduced in workgroup memory in a fixed order, and the iterations stop on the GPU at the
// tolerance, as on the CPU, with no readback. Fluid enclosed by walls is treated as one region: the mean of b
// over all fluid cells is removed when no fluid cell has an open face to a cell of another type (the CPU
// does it per connected region; a grid with an enclosed region beside an open one is solved without it).

// The smallest relative residual the GPU's conjugate gradients aim at (`projection.tolerance` below it is
// taken as this; the CPU solves in float64).
const GPU_TOLERANCE_FLOOR: f32 = 1.0e-6;

// Not NaN or infinite: tested on the exponent bits, which no fast-math can fold.
fn isFinite(x: f32) -> bool {
  return (bitcast<u32>(x) & 0x7f800000u) != 0x7f800000u;
}

// @entry rightHandSide
// assembleRightHandSide and warmStart: b = beta H / dt times the cell's mean density error minus the
// divergence of the face velocities (closed faces count as zero), A's diagonal, and the last substep's phi
// moved into this grid (zero where the grids do not overlap or the value is not finite).
@compute @workgroup_size(WORKGROUP_SIZE)
fn rightHandSide(@builtin(global_invocation_id) id: vec3<u32>) {
  let c = id.x;
  let g = projectionGrid;
  if (c >= g.cells) { return; }
  let dims = gridDims();
  var b = 0.0;
  var diagonal = 0.0;
  var warm = 0.0;
  if (projectionCell[c].cellType == CELL_FLUID) {
    let q = cellCoordinates(c, dims);
    let previous = vec3<i32>(g.previousDimsX, g.previousDimsY, g.previousDimsZ);
    let old = q + gridOrigin() - vec3<i32>(g.previousOriginX, g.previousOriginY, g.previousOriginZ);
    if (g.previousCells > 0u && all(old >= vec3<i32>(0)) && all(old < previous)) {
      warm = projectionCell[cellIndex(old, previous)].phi;
      if (!isFinite(warm)) { warm = 0.0; }
    }
    var divergence = 0.0;
    for (var a = 0u; a < 3u; a = a + 1u) {
      // The three fields used, not the faces' whole structs (SwiftShader loads every field of a struct value).
      let own = 3u * c + a;
      let upper = 3u * (c + axisStride(a, dims)) + a;
      if (projectionFace[upper].kind != FACE_CLOSED) { divergence = divergence + projectionFace[upper].velocity; }
      if (projectionFace[own].kind != FACE_CLOSED) { divergence = divergence - projectionFace[own].velocity; }
      diagonal = diagonal + projectionFace[own].coefficient + projectionFace[upper].coefficient;
    }
    let errorCount = projectionCell[c].errorCount;
    let error = select(0.0, projectionCell[c].errorSum / f32(errorCount), errorCount > 0u);
    b = scene.params.projectionRelaxation * error - divergence;
  }
  projectionCell[c].rightHandSide = b;
  projectionCell[c].diagonal = diagonal;
  projectionCell[c].warm = warm;
}

// @entry solve
// The reductions of the workgroup: each lane's value, then REDUCTION_PARTS partial sums of the lanes in
// order, then their sum (three barriers; a tree would take log2(ONE_WORKGROUP_SIZE) + 2). The same order every
// time, so the solve is deterministic.
const REDUCTION_PARTS: u32 = max(1u, ONE_WORKGROUP_SIZE / 16u);
var<workgroup> sums: array<vec2<f32>, ONE_WORKGROUP_SIZE>;
var<workgroup> partSums: array<vec2<f32>, 17>;
var<workgroup> counts: array<u32, ONE_WORKGROUP_SIZE>;
var<workgroup> partCounts: array<u32, 17>;
var<workgroup> sharedCells: u32;

// The sums of `value` (two at once) over the workgroup, uniform.
fn total2(lane: u32, value: vec2<f32>) -> vec2<f32> {
  let per = ONE_WORKGROUP_SIZE / REDUCTION_PARTS;
  sums[lane] = value;
  workgroupBarrier();
  if (lane < REDUCTION_PARTS) {
    var sum = vec2<f32>(0.0);
    for (var k = 0u; k < per; k = k + 1u) { sum = sum + sums[lane * per + k]; }
    partSums[lane] = sum;
  }
  workgroupBarrier();
  if (lane == 0u) {
    var sum = vec2<f32>(0.0);
    for (var k = 0u; k < REDUCTION_PARTS; k = k + 1u) { sum = sum + partSums[k]; }
    partSums[REDUCTION_PARTS] = sum;
  }
  return workgroupUniformLoad(&partSums[REDUCTION_PARTS]);
}

fn total(lane: u32, value: f32) -> f32 {
  return total2(lane, vec2<f32>(value, 0.0)).x;
}

// The lanes' counts before `lane` (in lane order) and over all lanes (uniform), as `total2`.
fn prefixCount(lane: u32, count: u32) -> vec2<u32> {
  let per = ONE_WORKGROUP_SIZE / REDUCTION_PARTS;
  counts[lane] = count;
  workgroupBarrier();
  if (lane < REDUCTION_PARTS) {
    var running = 0u;
    for (var k = 0u; k < per; k = k + 1u) {
      let value = counts[lane * per + k];
      counts[lane * per + k] = running;
      running = running + value;
    }
    partCounts[lane] = running;
  }
  workgroupBarrier();
  if (lane == 0u) {
    var running = 0u;
    for (var k = 0u; k < REDUCTION_PARTS; k = k + 1u) {
      let value = partCounts[k];
      partCounts[k] = running;
      running = running + value;
    }
    partCounts[REDUCTION_PARTS] = running;
  }
  let all = workgroupUniformLoad(&partCounts[REDUCTION_PARTS]);
  return vec2<u32>(counts[lane] + partCounts[lane / per], all);
}

fn cellValue(c: u32, which: u32) -> f32 {
  if (which == 0u) { return projectionCell[c].phi; }
  return projectionCell[c].direction;
}

// (A x)_c for x = phi (which 0) or the search direction (which 1): the diagonal times x_c less each open
// face's coefficient times the value across it (zero outside the fluid cells).
fn product(c: u32, dims: vec3<i32>, which: u32) -> f32 {
  let nx = u32(dims.x);
  let nxy = u32(dims.x * dims.y);
  var sum = projectionCell[c].diagonal * cellValue(c, which);
  sum = sum - projectionFace[3u * (c + 1u)].coefficient * cellValue(c + 1u, which);
  sum = sum - projectionFace[3u * c].coefficient * cellValue(c - 1u, which);
  sum = sum - projectionFace[3u * (c + nx) + 1u].coefficient * cellValue(c + nx, which);
  sum = sum - projectionFace[3u * c + 1u].coefficient * cellValue(c - nx, which);
  sum = sum - projectionFace[3u * (c + nxy) + 2u].coefficient * cellValue(c + nxy, which);
  sum = sum - projectionFace[3u * c + 2u].coefficient * cellValue(c - nxy, which);
  return sum;
}

// The conjugate gradients sweep only the fluid cells (a sixth of the grid in a dam break, whose bounds hold
// the air around the water): the first sweep lists them in cell order, each lane a consecutive range of
// cells, in `projectionCell[k].fluidCell` for k below their count; every later sweep runs over that list.
@compute @workgroup_size(ONE_WORKGROUP_SIZE)
fn solve(@builtin(local_invocation_index) lane: u32) {
  if (lane == 0u) { sharedCells = projectionGrid.cells; }
  let cells = workgroupUniformLoad(&sharedCells);
  if (cells == 0u) {
    if (lane == 0u) { state.projectionIterations = 0u; }
    return;
  }
  let p = scene.params;
  let dims = vec3<i32>(projectionGrid.dimsX, projectionGrid.dimsY, projectionGrid.dimsZ);
  let nx = u32(dims.x);
  let nxy = u32(dims.x * dims.y);
  // The warm start, phi = 0 outside the fluid; whether some fluid cell opens to another cell (not enclosed).
  let chunk = (cells + ONE_WORKGROUP_SIZE - 1u) / ONE_WORKGROUP_SIZE;
  let first = min(lane * chunk, cells);
  let last = min(first + chunk, cells);
  var fluid = 0u;
  var open = 0.0;
  var sumB = 0.0;
  for (var c = first; c < last; c = c + 1u) {
    var phi = 0.0;
    if (projectionCell[c].cellType == CELL_FLUID) {
      phi = projectionCell[c].warm;
      fluid = fluid + 1u;
      sumB = sumB + projectionCell[c].rightHandSide;
      let across = array<u32, 6>(c + 1u, c - 1u, c + nx, c - nx, c + nxy, c - nxy);
      let faces = array<u32, 6>(3u * (c + 1u), 3u * c, 3u * (c + nx) + 1u, 3u * c + 1u, 3u * (c + nxy) + 2u,
        3u * c + 2u);
      for (var k = 0u; k < 6u; k = k + 1u) {
        if (projectionFace[faces[k]].coefficient > 0.0 && projectionCell[across[k]].cellType != CELL_FLUID) {
          open = 1.0;
        }
      }
    }
    projectionCell[c].phi = phi;
    projectionCell[c].direction = 0.0;
  }
  let place = prefixCount(lane, fluid);
  let fluidCells = place.y;
  var slot = place.x;
  for (var c = first; c < last; c = c + 1u) {
    if (projectionCell[c].cellType == CELL_FLUID) {
      projectionCell[slot].fluidCell = c;
      slot = slot + 1u;
    }
  }
  let openAndB = total2(lane, vec2<f32>(open, sumB));
  let opened = openAndB.x;
  let meanB = openAndB.y / max(f32(fluidCells), 1.0);
  storageBarrier();
  var squares = 0.0;
  for (var k = lane; k < fluidCells; k = k + ONE_WORKGROUP_SIZE) {
    let c = projectionCell[k].fluidCell;
    var b = projectionCell[c].rightHandSide;
    if (opened == 0.0) {
      b = b - meanB;
      projectionCell[c].rightHandSide = b;
    }
    squares = squares + b * b;
  }
  let normB = sqrt(total(lane, squares));
  storageBarrier();
  var iterations = 0u;
  var residualNorm = 0.0;
  if (normB > 0.0) {
    // r = b - A phi, z = r / diag, d = z.
    var rz = 0.0;
    var rr = 0.0;
    for (var k = lane; k < fluidCells; k = k + ONE_WORKGROUP_SIZE) {
      let c = projectionCell[k].fluidCell;
      let diagonal = projectionCell[c].diagonal;
      let r = projectionCell[c].rightHandSide - product(c, dims, 0u);
      let z = select(0.0, r / diagonal, diagonal > 0.0);
      projectionCell[c].residual = r;
      projectionCell[c].preconditioned = z;
      projectionCell[c].direction = z;
      rz = rz + r * z;
      rr = rr + r * r;
    }
    let sums0 = total2(lane, vec2<f32>(rz, rr));
    rz = sums0.x;
    rr = sums0.y;
    storageBarrier();
    // float32 residuals stall near 1e-6 of |b|: a tighter tolerance would only run to the iteration limit.
    let tolerance = max(p.projectionTolerance, GPU_TOLERANCE_FLOOR) * normB;
    loop {
      if (!(sqrt(rr) > tolerance) || iterations >= p.projectionMaxIterations) { break; }
      var pAp = 0.0;
      for (var k = lane; k < fluidCells; k = k + ONE_WORKGROUP_SIZE) {
        let c = projectionCell[k].fluidCell;
        let ap = product(c, dims, 1u);
        projectionCell[c].product = ap;
        pAp = pAp + projectionCell[c].direction * ap;
      }
      pAp = total(lane, pAp);
      if (!(pAp > 0.0)) { break; }
      let alpha = rz / pAp;
      if (!isFinite(alpha)) { break; }
      var next = vec2<f32>(0.0);
      for (var k = lane; k < fluidCells; k = k + ONE_WORKGROUP_SIZE) {
        let c = projectionCell[k].fluidCell;
        let diagonal = projectionCell[c].diagonal;
        let r = projectionCell[c].residual - alpha * projectionCell[c].product;
        let z = select(0.0, r / diagonal, diagonal > 0.0);
        projectionCell[c].phi = projectionCell[c].phi + alpha * projectionCell[c].direction;
        projectionCell[c].residual = r;
        projectionCell[c].preconditioned = z;
        next = next + vec2<f32>(r * z, r * r);
      }
      next = total2(lane, next);
      rr = next.y;
      let beta = select(0.0, next.x / rz, rz > 0.0);
      rz = next.x;
      for (var k = lane; k < fluidCells; k = k + ONE_WORKGROUP_SIZE) {
        let c = projectionCell[k].fluidCell;
        projectionCell[c].direction = projectionCell[c].preconditioned + beta * projectionCell[c].direction;
      }
      storageBarrier();
      iterations = iterations + 1u;
    }
    residualNorm = sqrt(rr) / normB;
  } else {
    for (var k = lane; k < fluidCells; k = k + ONE_WORKGROUP_SIZE) { projectionCell[projectionCell[k].fluidCell].phi = 0.0; }
  }
  storageBarrier();
  // excessMomentum (transfer.ts): per axis, what the open faces between full cells give beyond the
  // telescoped pressure, M_f dv_f + H^2 (phi_upper - phi_lower), and the mass on the grid.
  let area = p.kernelRadius * p.kernelRadius;
  var excess = vec3<f32>(0.0);
  var gridMass = 0.0;
  for (var c = lane; c < cells; c = c + ONE_WORKGROUP_SIZE) {
    gridMass = gridMass + projectionCell[c].mass;
    if (projectionCell[c].full != 1u) { continue; }
    let upper = select(0.0, projectionCell[c].phi, projectionCell[c].cellType == CELL_FLUID);
    for (var a = 0u; a < 3u; a = a + 1u) {
      let stride = axisStride(a, dims);
      if (c < stride) { continue; }
      let face = projectionFace[3u * c + a];
      let lowerIndex = c - stride;
      if (face.kind != FACE_OPEN || projectionCell[lowerIndex].full != 1u) { continue; }
      let lower = select(0.0, projectionCell[lowerIndex].phi, projectionCell[lowerIndex].cellType == CELL_FLUID);
      let change = -(upper - lower) * face.coefficient;
      let impulse = select(0.0, change * face.volume * face.volume / face.shareVolume, face.shareVolume > 0.0);
      excess[a] = excess[a] + impulse + area * (upper - lower);
    }
  }
  let excessXY = total2(lane, excess.xy);
  let excessZMass = total2(lane, vec2<f32>(excess.z, gridMass));
  let excessX = excessXY.x;
  let excessY = excessXY.y;
  let excessZ = excessZMass.x;
  let mass = excessZMass.y;
  if (lane == 0u) {
    state.projectionIterations = iterations;
    projectionGrid.iterations = iterations;
    projectionGrid.relativeResidual = residualNorm;
    projectionGrid.excessX = excessX;
    projectionGrid.excessY = excessY;
    projectionGrid.excessZ = excessZ;
    projectionGrid.inverseGridMass = select(0.0, 1.0 / mass, mass > 0.0);
  }
}
