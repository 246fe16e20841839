// The MPS pressure solve on the GPU: Jacobi-preconditioned conjugate gradients, matrix-free (mirrors
// solveConjugateGradient in mps/pcg.ts on the equation assembled by assemble.wgsl): (A v)_i = diagonal_i v_i -
// sum_j w_ij v_j over the neighbours j that are unknowns (diagonal_j > 0), w from the positions x*, which do not
// move during the solve. Free-surface particles (diagonal 0) hold 0 in every vector.
// Dot products: each particle pass writes its particle's terms to `mpsPartials[i]` (no workgroup barrier: on
// SwiftShader a workgroup reduction cost more than the pass's own work), and a one-workgroup pass of
// ONE_WORKGROUP_SIZE threads (256 on a GPU, 4 on a CPU adapter: `oneWorkgroupSize`, gpu/buffers.ts) sums them,
// each lane every ONE_WORKGROUP_SIZE-th entry in order, then the lanes in a fixed order (total4), so the solve is
// deterministic (no float atomics). Per iteration four passes, recorded K times per substep (see
// `mpsPressureGpuPasses`, mps/gpu.ts): `product` (d = z + beta d_old, q = A d; d.q), `alpha` (alpha = r.z / d.q;
// a breakdown d.q <= 0 stops the solve, where the CPU throws), `update` (x += alpha d, r -= alpha q, z = r /
// diagonal; r.z and r.r) and `beta` (beta = r.z new / r.z, the stopping test |r| <= tol |b| or the iteration
// limit, which sets `done`). Once done, the recorded passes left return at once (the one-workgroup ones after
// one barrier). The direction ping-pongs
// between the two direction slots (`MpsSolve.parity`), so `product` reads the old direction of its neighbours
// while it writes the new one of its own particle. `residual` then takes p = max(x, 0) (0 on the free surface),
// p^ = the smallest p of the particle and its neighbours (for the gradient, correction.wgsl) and the true
// residual |b - A x|, and keeps p as the particle's next warm start; `finish` writes the iterations and the
// relative residual, the largest over the step's substeps, to the state for the readback. (With b = 0 the CPU
// returns x = 0; here the assembly starts such an entry from 0, so all of x is 0 then too.)

const REDUCTION_PARTS: u32 = max(1u, ONE_WORKGROUP_SIZE / 16u);
var<workgroup> sums: array<vec4<f32>, ONE_WORKGROUP_SIZE>;
var<workgroup> partSums: array<vec4<f32>, 17>;
// `mpsSolve.done` for the whole workgroup of `alpha` and `beta`: lane 0 reads it, then a uniform load (mpsSolve
// is read-write there, so a test of it would not be uniform before the barriers of the sums).
var<workgroup> solveDone: u32;

// The sum of `value` over the workgroup's lanes in a fixed order (uniform): REDUCTION_PARTS partial sums of
// consecutive lanes, then their sum.
fn total4(lane: u32, value: vec4<f32>) -> vec4<f32> {
  let per = ONE_WORKGROUP_SIZE / REDUCTION_PARTS;
  sums[lane] = value;
  workgroupBarrier();
  if (lane < REDUCTION_PARTS) {
    var sum = vec4<f32>(0.0);
    for (var k = 0u; k < per; k = k + 1u) { sum = sum + sums[lane * per + k]; }
    partSums[lane] = sum;
  }
  workgroupBarrier();
  if (lane == 0u) {
    var sum = vec4<f32>(0.0);
    for (var k = 0u; k < REDUCTION_PARTS; k = k + 1u) { sum = sum + partSums[k]; }
    partSums[REDUCTION_PARTS] = sum;
  }
  return workgroupUniformLoad(&partSums[REDUCTION_PARTS]);
}

// The sum of the live particles' partials (one workgroup): lane l sums entries l, l + ONE_WORKGROUP_SIZE, ...
// in order, then total4.
fn sumPartials(lane: u32) -> vec4<f32> {
  var sum = vec4<f32>(0.0);
  for (var i = lane; i < state.count; i = i + ONE_WORKGROUP_SIZE) { sum = sum + mpsPartials[i]; }
  return total4(lane, sum);
}

// @entry start
// r = b - A x0, z = r / diagonal; partials (r.z, r.r, b.b).
@compute @workgroup_size(WORKGROUP_SIZE)
fn start(@builtin(global_invocation_id) id: vec3<u32>) {
  let i = id.x;
  if (i >= state.count) { return; }
  var partial = vec4<f32>(0.0);
  let source = mps[mpsAt(MPS_SOURCE, i)];
  let diagonal = source.x;
  var solution = vec4<f32>(0.0);
  if (diagonal > 0.0) {
    let k = loadKernel();
    let own = sortedPredicted[i];
    let xi = own.xyz;
    var product = diagonal * source.w;
    let home = keyCell(u32(own.w));
    // @neighbours
        let r = xi - other.xyz;
        let w = mpsWeight(dot(r, r));
        if (w == 0.0) { continue; }
        let neighbour = mps[mpsAt(MPS_SOURCE, j)];
        if (neighbour.x > 0.0) { product = product - w * neighbour.w; }
    // @end neighbours
    let residual = source.z - product;
    let z = residual / diagonal;
    solution = vec4<f32>(source.w, residual, z, 0.0);
    partial = vec4<f32>(residual * z, residual * residual, source.z * source.z, 0.0);
  }
  mps[mpsAt(MPS_SOLUTION, i)] = solution;
  mpsPartials[i] = partial;
}

// @entry begin
// b.b, the threshold, r.z; done at once when b = 0 or |r0| <= tol |b|.
@compute @workgroup_size(ONE_WORKGROUP_SIZE)
fn begin(@builtin(local_invocation_index) lane: u32) {
  let sum = sumPartials(lane);
  if (lane == 0u) {
    let tolerance = scene.params.mpsTolerance;
    let threshold = tolerance * tolerance * sum.z;
    mpsSolve.rightHandSideSquared = sum.z;
    mpsSolve.thresholdSquared = threshold;
    mpsSolve.residualDotPreconditioned = sum.x;
    mpsSolve.residualSquared = sum.y;
    mpsSolve.alpha = 0.0;
    mpsSolve.beta = 0.0;
    mpsSolve.iterations = 0u;
    mpsSolve.parity = 0u;
    mpsSolve.breakdown = 0u;
    mpsSolve.residual = 0.0;
    mpsSolve.done = select(0u, 1u, sum.z == 0.0 || !(sum.y > threshold));
  }
}

// @entry product
// d = z + beta d_old (own and, on the fly, the neighbours'), q = A d into the other slot; partial d.q.
@compute @workgroup_size(WORKGROUP_SIZE)
fn product(@builtin(global_invocation_id) id: vec3<u32>) {
  let i = id.x;
  if (i >= state.count || mpsSolve.done != 0u) { return; }
  let beta = mpsSolve.beta;
  let current = MPS_DIRECTION + mpsSolve.parity;
  let next = MPS_DIRECTION + 1u - mpsSolve.parity;
  let diagonal = mps[mpsAt(MPS_SOURCE, i)].x;
  var direction = 0.0;
  var product = 0.0;
  if (diagonal > 0.0) {
    let k = loadKernel();
    let own = sortedPredicted[i];
    let xi = own.xyz;
    direction = mps[mpsAt(MPS_SOLUTION, i)].z + beta * mps[mpsAt(current, i)].x;
    product = diagonal * direction;
    let home = keyCell(u32(own.w));
    // @neighbours
        let r = xi - other.xyz;
        let w = mpsWeight(dot(r, r));
        if (w == 0.0) { continue; }
        if (mps[mpsAt(MPS_SOURCE, j)].x > 0.0) {
          product = product - w * (mps[mpsAt(MPS_SOLUTION, j)].z + beta * mps[mpsAt(current, j)].x);
        }
    // @end neighbours
  }
  mps[mpsAt(next, i)] = vec4<f32>(direction, product, 0.0, 0.0);
  mpsPartials[i] = vec4<f32>(direction * product, 0.0, 0.0, 0.0);
}

// @entry alpha
// alpha = r.z / d.q; a breakdown (d.q <= 0, or not finite) stops the solve.
@compute @workgroup_size(ONE_WORKGROUP_SIZE)
fn alpha(@builtin(local_invocation_index) lane: u32) {
  // The pass binds the scene (`scalarBindings`, mps/gpu.ts) without otherwise using it: this use keeps it in
  // the pipeline's layout.
  _ = scene.params.capacity;
  if (lane == 0u) { solveDone = mpsSolve.done; }
  if (workgroupUniformLoad(&solveDone) != 0u) { return; }
  let curvature = sumPartials(lane).x;
  if (lane == 0u) {
    if (curvature > 0.0) {
      mpsSolve.alpha = mpsSolve.residualDotPreconditioned / curvature;
    } else {
      mpsSolve.alpha = 0.0;
      mpsSolve.breakdown = 1u;
      mpsSolve.done = 1u;
    }
  }
}

// @entry update
// x += alpha d, r -= alpha q, z = r / diagonal; partials (r.z, r.r).
@compute @workgroup_size(WORKGROUP_SIZE)
fn update(@builtin(global_invocation_id) id: vec3<u32>) {
  let i = id.x;
  if (i >= state.count || mpsSolve.done != 0u) { return; }
  let alpha = mpsSolve.alpha;
  let diagonal = mps[mpsAt(MPS_SOURCE, i)].x;
  var partial = vec4<f32>(0.0);
  if (diagonal > 0.0) {
    let row = mps[mpsAt(MPS_SOLUTION, i)];
    let direction = mps[mpsAt(MPS_DIRECTION + 1u - mpsSolve.parity, i)];
    let residual = row.y - alpha * direction.y;
    let z = residual / diagonal;
    mps[mpsAt(MPS_SOLUTION, i)] = vec4<f32>(row.x + alpha * direction.x, residual, z, 0.0);
    partial = vec4<f32>(residual * z, residual * residual, 0.0, 0.0);
  }
  mpsPartials[i] = partial;
}

// @entry beta
// beta = r.z new / r.z; the iteration count, the slot of the new direction, and the stopping test.
@compute @workgroup_size(ONE_WORKGROUP_SIZE)
fn beta(@builtin(local_invocation_index) lane: u32) {
  if (lane == 0u) { solveDone = mpsSolve.done; }
  if (workgroupUniformLoad(&solveDone) != 0u) { return; }
  let sum = sumPartials(lane);
  if (lane == 0u) {
    let iterations = mpsSolve.iterations + 1u;
    mpsSolve.beta = sum.x / mpsSolve.residualDotPreconditioned;
    mpsSolve.residualDotPreconditioned = sum.x;
    mpsSolve.residualSquared = sum.y;
    mpsSolve.iterations = iterations;
    mpsSolve.parity = 1u - mpsSolve.parity;
    let converged = !(sum.y > mpsSolve.thresholdSquared);
    mpsSolve.done = select(0u, 1u, converged || iterations >= scene.params.mpsMaxIterations);
  }
}

// @entry residual
// p = max(x, 0) (0 on the free surface), p^ = min(p, p_j over the neighbours within r_e) into the first
// direction slot, p into mpsPressure (the next warm start); partial |b - A x|^2.
@compute @workgroup_size(WORKGROUP_SIZE)
fn residual(@builtin(global_invocation_id) id: vec3<u32>) {
  let i = id.x;
  if (i >= state.count) { return; }
  let source = mps[mpsAt(MPS_SOURCE, i)];
  let diagonal = source.x;
  var pressure = 0.0;
  var minimum = 0.0;
  var partial = vec4<f32>(0.0);
  if (diagonal > 0.0) {
    let k = loadKernel();
    let own = sortedPredicted[i];
    let xi = own.xyz;
    let x = mps[mpsAt(MPS_SOLUTION, i)].x;
    pressure = max(x, 0.0);
    minimum = pressure;
    var product = diagonal * x;
    let home = keyCell(u32(own.w));
    // @neighbours
        let r = xi - other.xyz;
        let w = mpsWeight(dot(r, r));
        if (w == 0.0) { continue; }
        var pressureJ = 0.0;
        if (mps[mpsAt(MPS_SOURCE, j)].x > 0.0) {
          let xj = mps[mpsAt(MPS_SOLUTION, j)].x;
          product = product - w * xj;
          pressureJ = max(xj, 0.0);
        }
        minimum = min(minimum, pressureJ);
    // @end neighbours
    let residual = source.z - product;
    partial = vec4<f32>(residual * residual, 0.0, 0.0, 0.0);
  }
  mps[mpsAt(MPS_DIRECTION, i)] = vec4<f32>(pressure, minimum, 0.0, 0.0);
  mpsPressure[sortedInfo[i].entity] = pressure;
  mpsPartials[i] = partial;
}

// @entry finish
// The relative residual; the largest iterations and residual of the step's substeps into the state.
@compute @workgroup_size(ONE_WORKGROUP_SIZE)
fn finish(@builtin(local_invocation_index) lane: u32) {
  // Keeps the bound scene in the layout, as in `alpha`.
  _ = scene.params.capacity;
  let sum = sumPartials(lane);
  if (lane == 0u) {
    let squares = mpsSolve.rightHandSideSquared;
    var relative = 0.0;
    if (squares > 0.0) { relative = sqrt(sum.x / squares); }
    mpsSolve.residual = relative;
    state.pressureSolveIterations = max(state.pressureSolveIterations, mpsSolve.iterations);
    // NaN wins (max would drop it): the readback then shows it.
    if (!(relative <= state.pressureSolveResidual)) { state.pressureSolveResidual = relative; }
  }
}
