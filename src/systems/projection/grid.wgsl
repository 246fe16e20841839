// Steps 1-4 of the coarse projection on the GPU (mirrors grid.ts; see projection/cpu.ts for the whole
// substep): the particles' cell bounds and last density errors (`carry`), the grid over them (`plan`), the
// fluid cells (`occupancy`), the collider test (`classify`), the two surface layers left to the density
// constraints (`erodeFirst`, `erodeSecond`; with projection.freeSurface grown back by `growFirst` and
// `growSecond`) and the faces' kinds (`faces`). The GPU differs from the CPU in
// one way: a coupled body's cells are solid walls moving with it here (the CPU moves a body with a mass as
// rigid fluid in the same solve and hands it the pressure); its wall pressure reaches it through the density
// constraints on both backends.

// @entry carry
// One thread per particle place of the step before the sort (the sort left `cell[i].z` = its new place):
// the cell bounds of the predicted positions, and the density error of the particle's last solve (the solve
// buffer is still in the order of the last substep's sort, which became the particle order), carried into
// the new sorted order for the occupancy's cell means: C = rho / rho0 - 1 where its neighbourhood was full,
// else (and for particles appended this step) NO_DENSITY_ERROR.
@compute @workgroup_size(WORKGROUP_SIZE)
fn carry(@builtin(global_invocation_id) id: vec3<u32>) {
  let i = id.x;
  if (i >= state.previousCount) { return; }
  let c = cell[i];
  if (c.w == 1u) { return; }
  let p = scene.params;
  let x = position[i];
  let home = cellOf(x.xyz + p.timeStep * velocity[i].xyz);
  // Every thread's bounds go to the same six words: a thread changes one only where it lies beyond the value
  // there now (a load), so once the bounds are nearly found few threads write (the same minimum and maximum).
  for (var a = 0u; a < 3u; a = a + 1u) {
    let low = PROJECTION_BOUNDS + a;
    let high = PROJECTION_BOUNDS + 3u + a;
    if (home[a] < atomicLoad(&projectionGridAtomic[low])) { atomicMin(&projectionGridAtomic[low], home[a]); }
    if (home[a] > atomicLoad(&projectionGridAtomic[high])) { atomicMax(&projectionGridAtomic[high], home[a]); }
  }
  let s = solve[i];
  var error = NO_DENSITY_ERROR;
  // The particles this step appended (at the end; after a rebuild, all) have no solve of their own yet.
  let appended = state.substep == 0u && i >= state.previousCount - p.appendCount;
  if (!appended && s.z >= p.fullNeighbourhood) {
    error = s.x * scene.materials[u32(x.w)].inverseRestDensity - 1.0;
  }
  projectionParticle[3u * c.z] = vec4<f32>(0.0, 0.0, 0.0, error);
}

// @entry plan
// Step 1 (planGrid): the grid over the bounds with GRID_MARGIN cells on every side, cut around its center
// along its longest axis until it has at most projectionMaxCells cells (in f32: bounds of far-flung particles
// may not fit an i32 product). The plan of the last substep becomes the warm start's, when it had cells.
// The bounds are left empty for the next substep's `carry` (low above high; the buffer starts so, see
// `emptyProjectionGrid` in gpu/buffers.ts), which saves a pass of their own.
@compute @workgroup_size(1)
fn plan() {
  var g = projectionGrid;
  if (g.cells > 0u) {
    g.previousOriginX = g.originX;
    g.previousOriginY = g.originY;
    g.previousOriginZ = g.originZ;
    g.previousDimsX = g.dimsX;
    g.previousDimsY = g.dimsY;
    g.previousDimsZ = g.dimsZ;
    g.previousCells = g.cells;
  }
  let low = vec3<f32>(vec3<i32>(g.lowX, g.lowY, g.lowZ));
  let high = vec3<f32>(vec3<i32>(g.highX, g.highY, g.highZ));
  g.lowX = EMPTY_BOUND;
  g.lowY = EMPTY_BOUND;
  g.lowZ = EMPTY_BOUND;
  g.highX = -EMPTY_BOUND;
  g.highY = -EMPTY_BOUND;
  g.highZ = -EMPTY_BOUND;
  g.cells = 0u;
  g.iterations = 0u;
  g.relativeResidual = 0.0;
  if (all(low <= high)) {
    let margin = f32(GRID_MARGIN);
    var origin = low - vec3<f32>(margin);
    var dims = high - low + vec3<f32>(1.0 + 2.0 * margin);
    let most = f32(scene.params.projectionMaxCells);
    var cells = dims.x * dims.y * dims.z;
    var rounds = 0u;
    while (cells > most && rounds < 64u) {
      var a = 0u;
      if (dims.y > dims[a]) { a = 1u; }
      if (dims.z > dims[a]) { a = 2u; }
      let cut = max(1.0, ceil(dims[a] * (1.0 - most / cells)));
      origin[a] = origin[a] + floor(0.5 * cut);
      dims[a] = dims[a] - cut;
      cells = dims.x * dims.y * dims.z;
      rounds = rounds + 1u;
    }
    if (cells <= most && all(dims >= vec3<f32>(1.0))) {
      g.originX = i32(origin.x);
      g.originY = i32(origin.y);
      g.originZ = i32(origin.z);
      g.dimsX = i32(dims.x);
      g.dimsY = i32(dims.y);
      g.dimsZ = i32(dims.z);
      g.cells = u32(g.dimsX * g.dimsY * g.dimsZ);
    }
  }
  // The workgroups of the passes over the cells (on a CPU adapter they are dispatched indirectly from these
  // words, none past the grid; see runsOnCpu, gpu/buffers.ts).
  g.cellGroupsX = (g.cells + WORKGROUP_SIZE - 1u) / WORKGROUP_SIZE;
  g.cellGroupsY = 1u;
  g.cellGroupsZ = 1u;
  projectionGrid = g;
}

// @entry occupancy
// Step 2 (markFluidCells): one thread per cell gathers the particles sorted into it (its hash bucket, their
// exact cell checked, since keys wrap every 256 cells): mass, rest volume and the density errors of those
// with a full neighbourhood; a cell on the grid's edge holds no particle of the grid. Fluid where the rest
// volumes fill FLUID_CELL_FILL of the cell.
@compute @workgroup_size(WORKGROUP_SIZE)
fn occupancy(@builtin(global_invocation_id) id: vec3<u32>) {
  let c = id.x;
  if (c >= projectionGrid.cells) { return; }
  let p = scene.params;
  let dims = gridDims();
  let q = cellCoordinates(c, dims);
  var mass = 0.0;
  var volume = 0.0;
  var errorSum = 0.0;
  var errorCount = 0u;
  if (all(q >= vec3<i32>(1)) && all(q <= dims - vec3<i32>(2))) {
    let world = gridOrigin() + q;
    let key = cellKey(world);
    let keyValue = f32(key);
    let bucket = bucketOfKey(key, p.tableMask);
    let end = buckets[bucket + 1u];
    for (var j = buckets[bucket]; j < end; j = j + 1u) {
      let other = sortedPredicted[j];
      if (other.w != keyValue || any(cellOf(other.xyz) != world)) { continue; }
      let slot = sortedInfo[j].material;
      let particleMass = scene.materials[slot].mass;
      mass = mass + particleMass;
      volume = volume + particleMass * scene.materials[slot].inverseRestDensity;
      let error = projectionParticle[3u * j].w;
      if (error != NO_DENSITY_ERROR) {
        errorSum = errorSum + error;
        errorCount = errorCount + 1u;
      }
    }
  }
  var cellData: ProjectionCell;
  // The last substep's pressure stays where it is (rightHandSide reads it for the warm start).
  cellData.phi = projectionCell[c].phi;
  cellData.mass = mass;
  cellData.volume = volume;
  cellData.errorSum = errorSum;
  cellData.errorCount = errorCount;
  let h = p.kernelRadius;
  cellData.occupied = select(CELL_AIR, CELL_FLUID, volume >= FLUID_CELL_FILL * h * h * h);
  cellData.nearest = -1;
  cellData.distance = 3.0e38;
  projectionCell[c] = cellData;
}

// @entry classify
// Step 3 (classifyCells): the nearest collider of every cell whose center the step needs (a fluid cell or
// a 6-neighbour of one), its fluid-side distance and normal; an empty cell behind a collider's surface is
// solid; a cell within BODY_SURFACE_REACH cells of a thin coupled body (ColliderData.thinBody) is beside it.
@compute @workgroup_size(WORKGROUP_SIZE)
fn classify(@builtin(global_invocation_id) id: vec3<u32>) {
  let c = id.x;
  let cells = projectionGrid.cells;
  if (c >= cells) { return; }
  let p = scene.params;
  let dims = gridDims();
  let nx = u32(dims.x);
  let nxy = u32(dims.x * dims.y);
  // Single fields, not the whole cell: SwiftShader loads every field of a struct value.
  let occupied = projectionCell[c].occupied;
  var nearest = projectionCell[c].nearest;
  var distance = projectionCell[c].distance;
  var normal = vec3<f32>(projectionCell[c].normalX, projectionCell[c].normalY, projectionCell[c].normalZ);
  var near = occupied == CELL_FLUID;
  if (c >= 1u && projectionCell[c - 1u].occupied == CELL_FLUID) { near = true; }
  if (c + 1u < cells && projectionCell[c + 1u].occupied == CELL_FLUID) { near = true; }
  if (c >= nx && projectionCell[c - nx].occupied == CELL_FLUID) { near = true; }
  if (c + nx < cells && projectionCell[c + nx].occupied == CELL_FLUID) { near = true; }
  if (c >= nxy && projectionCell[c - nxy].occupied == CELL_FLUID) { near = true; }
  if (c + nxy < cells && projectionCell[c + nxy].occupied == CELL_FLUID) { near = true; }
  var classified = occupied;
  var besideBody = 0u;
  if (near && p.colliderCount > 0u) {
    let x = (vec3<f32>(gridOrigin() + cellCoordinates(c, dims)) + vec3<f32>(0.5)) * p.kernelRadius;
    let reach = BODY_SURFACE_REACH * p.kernelRadius;
    var slot = 0u;
    loop {
      let shape = loadShape(slot);
      let pose = poseOf(slot, false);
      let surface = fluidSideDistance(shape, toLocal(pose, x), 3.0e38);
      let d = surface.x * pose.scale.x;
      if (d < reach && shape.c.thinBody == 1u) { besideBody = 1u; }
      if (d < distance) {
        distance = d;
        nearest = i32(slot);
        normal = rotate(pose, surface.yzw);
      }
      continuing {
        slot = slot + 1u;
        break if slot >= p.colliderCount;
      }
    }
    if (occupied == CELL_AIR && distance < 0.0) { classified = CELL_SOLID; }
  }
  // Only the fields this pass owns: the neighbours' threads read `occupied`.
  projectionCell[c].classified = classified;
  projectionCell[c].besideBody = besideBody;
  projectionCell[c].nearest = nearest;
  projectionCell[c].distance = distance;
  projectionCell[c].normalX = normal.x;
  projectionCell[c].normalY = normal.y;
  projectionCell[c].normalZ = normal.z;
}

// @entry erodeFirst
// Step 3b (erodeSurfaceCells), first layer: a fluid cell beside an air cell (or in the grid's first or last
// z layer) becomes air.
@compute @workgroup_size(WORKGROUP_SIZE)
fn erodeFirst(@builtin(global_invocation_id) id: vec3<u32>) {
  let c = id.x;
  if (c >= projectionGrid.cells) { return; }
  projectionCell[c].eroded = erodedType(c, true);
}

// @entry erodeSecond
// The second layer, then the full cells: fluid, at least half a cell from every collider.
@compute @workgroup_size(WORKGROUP_SIZE)
fn erodeSecond(@builtin(global_invocation_id) id: vec3<u32>) {
  let c = id.x;
  if (c >= projectionGrid.cells) { return; }
  let t = erodedType(c, false);
  projectionCell[c].cellType = t;
  projectionCell[c].full = fullCell(c, t, scene.params.kernelRadius);
}

// @entry growFirst
// Still water (projection.freeSurface; erodeSurfaceCells in grid.ts): the eroded layers grow back over the
// fluid cells they took, first layer (into `eroded`, free once the second erosion has read it).
@compute @workgroup_size(WORKGROUP_SIZE)
fn growFirst(@builtin(global_invocation_id) id: vec3<u32>) {
  let c = id.x;
  if (c >= projectionGrid.cells) { return; }
  projectionCell[c].eroded = grownType(c, true);
}

// @entry growSecond
// The second layer grown back, then the full cells again.
@compute @workgroup_size(WORKGROUP_SIZE)
fn growSecond(@builtin(global_invocation_id) id: vec3<u32>) {
  let c = id.x;
  if (c >= projectionGrid.cells) { return; }
  let t = grownType(c, false);
  projectionCell[c].cellType = t;
  projectionCell[c].full = fullCell(c, t, scene.params.kernelRadius);
}

// @entry solvedParticles
// Still water (projection.freeSurface; markSolvedParticles in grid.ts): per particle, 1 in solve[i].w where
// the solve holds its cell (fluid after the surface layers grew back, or a fluid cell the surface layers keep
// only because a thin coupled body is beside it), else 0; the density passes keep w (lambda.wgsl), and the
// correction pass offsets a pair's s_corr by the mean of the two (correct.wgsl).
@compute @workgroup_size(WORKGROUP_SIZE)
fn solvedParticles(@builtin(global_invocation_id) id: vec3<u32>) {
  let i = id.x;
  if (i >= state.count) { return; }
  var solved = 0.0;
  let dims = gridDims();
  let g = gridCoordinates(sortedPredicted[i].xyz, scene.params.inverseKernelRadius);
  if (projectionGrid.cells > 0u && onGrid(g, dims)) {
    let c = cellIndex(vec3<i32>(floor(g)), dims);
    let cellType = projectionCell[c].cellType;
    let kept = projectionCell[c].besideBody == 1u && projectionCell[c].classified == CELL_FLUID;
    if (cellType == CELL_FLUID || kept) { solved = 1.0; }
  }
  solve[i].w = solved;
}

// @entry faces
// The fluid-side normal of cell c's nearest collider (classify), its three fields only.
fn cellNormal(c: u32) -> vec3<f32> {
  return vec3<f32>(projectionCell[c].normalX, projectionCell[c].normalY, projectionCell[c].normalZ);
}

// Step 4 (classifyFaces): each cell's three lower faces. A face with fluid on a side is open, or solid (a
// collider slot, moving with the collider's surface velocity at the face's center) beside a solid cell or
// across a wall thinner than a cell; else dead.
@compute @workgroup_size(WORKGROUP_SIZE)
fn faces(@builtin(global_invocation_id) id: vec3<u32>) {
  let c = id.x;
  if (c >= projectionGrid.cells) { return; }
  let p = scene.params;
  let dims = gridDims();
  // Single fields, not whole cells: SwiftShader loads every field of a struct value (24 words a cell).
  let upperType = projectionCell[c].cellType;
  let q = cellCoordinates(c, dims);
  for (var a = 0u; a < 3u; a = a + 1u) {
    let f = 3u * c + a;
    let stride = axisStride(a, dims);
    projectionFace[f].kind = FACE_DEAD;
    projectionFace[f].velocity = 0.0;
    if (c < stride) { continue; }
    let below = c - stride;
    let lowerType = projectionCell[below].cellType;
    if (lowerType != CELL_FLUID && upperType != CELL_FLUID) { continue; }
    var slot = -1;
    let lowerNearest = projectionCell[below].nearest;
    let upperNearest = projectionCell[c].nearest;
    if (lowerType == CELL_SOLID) {
      slot = lowerNearest;
    } else if (upperType == CELL_SOLID) {
      slot = upperNearest;
    } else if (lowerNearest >= 0 && lowerNearest == upperNearest) {
      let lowerDistance = projectionCell[below].distance;
      let upperDistance = projectionCell[c].distance;
      let lowerNormal = cellNormal(below)[a];
      let upperNormal = cellNormal(c)[a];
      if (lowerDistance > 0.0 && upperDistance > 0.0 && lowerDistance + upperDistance < p.kernelRadius &&
          lowerNormal < -THIN_WALL_NORMAL && upperNormal > THIN_WALL_NORMAL) {
        slot = upperNearest;
      }
    }
    if (slot < 0) {
      projectionFace[f].kind = FACE_OPEN;
      continue;
    }
    projectionFace[f].kind = slot;
    let x = (vec3<f32>(gridOrigin() + q) + faceOffset(a)) * p.kernelRadius;
    let pose = poseOf(u32(slot), false);
    let start = toWorld(poseOf(u32(slot), true), toLocal(pose, x));
    projectionFace[f].velocity = ((x - start) * p.inverseTimeStep)[a];
  }
}
