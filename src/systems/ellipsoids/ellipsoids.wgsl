// The anisotropic particles on the GPU (mirrors ellipsoids/cpu.ts, `computeEllipsoids`; Yu and Turk 2013): after
// a step, per draw place i (the sorted order of the last substep, which the position buffer shares), from the
// neighbour lists of that substep and the final positions (sortedPredicted): the weighted mean and covariance
// of the particle and its neighbours within h (w = 1 - (d / h)^3), its principal axes by the same Jacobi
// rotations as the CPU, and the ellipsoid: centre x + lambda (xw - x), semi-axes proportional to the
// eigenvalues, each at least sigma_1 / k_r, scaled to the volume of the sphere of radius R; fewer than
// N_epsilon neighbours: a sphere of k_n R; then the motion stretch along the velocity. Places from the solver's
// count on (particles removed on the GPU) get a zero shape, which the views do not draw. Written as the centre
// and the shape matrix, ELLIPSOID_FLOATS / 4 vec4s per place, into `ellipsoids`,
// which the screen-space water binds as instanced vertex buffers (plugin/ellipsoidParticles.ts).

// Eigen decomposition of the symmetric matrix `a` (row-major 3 x 3): JACOBI_SWEEPS cyclic sweeps of Jacobi
// rotations in the order of `jacobiEigen` (ellipsoids/cpu.ts). Returns the rotated matrix (eigenvalues on its
// diagonal) and the eigenvectors as the columns of `v`.
struct Eigen {
  a: array<f32, 9>,
  v: array<f32, 9>,
}

// One Jacobi rotation in the plane (p, q), r the third axis (as `rotate` in ellipsoids/cpu.ts).
fn rotate(a: ptr<function, array<f32, 9>>, v: ptr<function, array<f32, 9>>, p: u32, q: u32, r: u32) {
  let apq = (*a)[3u * p + q];
  if (apq == 0.0) { return; }
  let theta = ((*a)[3u * q + q] - (*a)[3u * p + p]) / (2.0 * apq);
  let t = select(-1.0, 1.0, theta >= 0.0) / (abs(theta) + sqrt(theta * theta + 1.0));
  let c = 1.0 / sqrt(t * t + 1.0);
  let s = t * c;
  (*a)[3u * p + p] = (*a)[3u * p + p] - t * apq;
  (*a)[3u * q + q] = (*a)[3u * q + q] + t * apq;
  (*a)[3u * p + q] = 0.0;
  (*a)[3u * q + p] = 0.0;
  let arp = (*a)[3u * r + p];
  let arq = (*a)[3u * r + q];
  let rp = c * arp - s * arq;
  let rq = s * arp + c * arq;
  (*a)[3u * r + p] = rp;
  (*a)[3u * p + r] = rp;
  (*a)[3u * r + q] = rq;
  (*a)[3u * q + r] = rq;
  for (var k = 0u; k < 9u; k = k + 3u) {
    let vkp = (*v)[k + p];
    let vkq = (*v)[k + q];
    (*v)[k + p] = c * vkp - s * vkq;
    (*v)[k + q] = s * vkp + c * vkq;
  }
}

fn eigen(matrix: array<f32, 9>) -> Eigen {
  var a = matrix;
  var v = array<f32, 9>(1.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 1.0);
  for (var sweep = 0u; sweep < JACOBI_SWEEPS; sweep = sweep + 1u) {
    rotate(&a, &v, 0u, 1u, 2u);
    rotate(&a, &v, 0u, 2u, 1u);
    rotate(&a, &v, 1u, 2u, 0u);
  }
  return Eigen(a, v);
}

// Writes the ellipsoid of place `i`: centre `centre`, the material slot (position.w, as the draw order keeps it),
// shape `shape` (xx, xy, xz, yy; then yz, zz) plus the motion stretch (t^2) v v^T, t = `stretchTime` (see
// `ELLIPSOID_FLOATS`).
fn writeEllipsoid(i: u32, centre: vec3<f32>, shape: array<f32, 6>, v: vec3<f32>, t: f32) {
  let s = t * v;
  ellipsoids[3u * i] = vec4<f32>(centre, position[i].w);
  ellipsoids[3u * i + 1u] = vec4<f32>(shape[0] + s.x * s.x, shape[1] + s.x * s.y, shape[2] + s.x * s.z, shape[3] + s.y * s.y);
  ellipsoids[3u * i + 2u] = vec4<f32>(shape[4] + s.y * s.z, shape[5] + s.z * s.z, 0.0, 0.0);
}

// The shape of a sphere of radius `radius`.
fn sphereShape(radius: f32) -> array<f32, 6> {
  let r2 = radius * radius;
  return array<f32, 6>(r2, 0.0, 0.0, r2, 0.0, r2);
}

// The shape a a^T of the semi-axis a.
fn axisShape(a: vec3<f32>) -> array<f32, 6> {
  return array<f32, 6>(a.x * a.x, a.x * a.y, a.x * a.z, a.y * a.y, a.y * a.z, a.z * a.z);
}

// Eigenvector `index` (a column) of `v`.
fn column(v: array<f32, 9>, index: u32) -> vec3<f32> {
  var vectors = v;
  return vec3<f32>(vectors[index], vectors[3u + index], vectors[6u + index]);
}

@compute @workgroup_size(WORKGROUP_SIZE)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
  let i = id.x;
  let parameters = ellipsoidParams;
  if (i >= parameters.count) { return; }
  if (i >= state.count) {
    ellipsoids[3u * i] = vec4<f32>(0.0, -1.0e7, 0.0, 0.0);
    ellipsoids[3u * i + 1u] = vec4<f32>(0.0);
    ellipsoids[3u * i + 2u] = vec4<f32>(0.0);
    return;
  }
  let k = loadKernel();
  let own = sortedPredicted[i];
  let xi = own.xyz;
  let vi = velocity[i].xyz;
  let home = keyCell(u32(own.w));
  var weight = 1.0;
  var offset = vec3<f32>(0.0);
  var diagonal = vec3<f32>(0.0);
  var upper = vec3<f32>(0.0);
  var neighbours = 0u;
  // @neighbours
        let d = other.xyz - xi;
        let r2 = dot(d, d);
        if (r2 >= k.radiusSquared) { continue; }
        let q = sqrt(r2) * k.inverseRadius;
        let w = 1.0 - q * q * q;
        weight = weight + w;
        neighbours = neighbours + 1u;
        offset = offset + w * d;
        diagonal = diagonal + w * d * d;
        upper = upper + w * vec3<f32>(d.x * d.y, d.x * d.z, d.y * d.z);
  // @end neighbours
  let inverseWeight = 1.0 / weight;
  let m = offset * inverseWeight;
  let centre = xi + parameters.smoothing * m;
  if (neighbours < parameters.minNeighbours) {
    writeEllipsoid(i, centre, sphereShape(parameters.isolatedScale * parameters.radius), vi, parameters.stretchTime);
    return;
  }
  let squares = diagonal * inverseWeight - m * m;
  let products = upper * inverseWeight - vec3<f32>(m.x * m.y, m.x * m.z, m.y * m.z);
  let decomposed = eigen(array<f32, 9>(
    squares.x, products.x, products.y,
    products.x, squares.y, products.z,
    products.y, products.z, squares.z,
  ));
  let values = vec3<f32>(decomposed.a[0], decomposed.a[4], decomposed.a[8]);
  // The eigenvalues in descending order, as the CPU sorts them (a, b, e: their columns).
  var a = 0u;
  var b = 1u;
  var e = 2u;
  var swap = a;
  if (values[b] > values[a]) { swap = a; a = b; b = swap; }
  if (values[e] > values[a]) { swap = a; a = e; e = swap; }
  if (values[e] > values[b]) { swap = b; b = e; e = swap; }
  let largest = values[a];
  if (!(largest > 0.0)) {
    writeEllipsoid(i, centre, sphereShape(parameters.radius), vi, parameters.stretchTime);
    return;
  }
  let floor = largest * parameters.inverseStretch;
  let middle = max(values[b], floor);
  let smallest = max(values[e], floor);
  let scale = parameters.radius / pow(largest * middle * smallest, 1.0 / 3.0);
  let first = axisShape(column(decomposed.v, a) * min(parameters.radius, largest * scale));
  let second = axisShape(column(decomposed.v, b) * min(parameters.radius, middle * scale));
  let third = axisShape(column(decomposed.v, e) * min(parameters.radius, smallest * scale));
  var shape = first;
  for (var k = 0u; k < 6u; k = k + 1u) { shape[k] = first[k] + second[k] + third[k]; }
  writeEllipsoid(i, centre, shape, vi, parameters.stretchTime);
}
