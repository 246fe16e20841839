// Counting sort, second half (mirrors sortByBucket in neighbours/cpu.ts): each particle's destination is its
// bucket's start plus its slot in the bucket. `destination` moves the bookkeeping and writes the ids of
// removed particles (the dead bucket, at the end) to `removed`, after those not yet read back; `scatter` moves positions and velocities and
// stores x* with the cell key in w; `finish` (one thread) sets the new count.

// @entry destination
@compute @workgroup_size(WORKGROUP_SIZE)
fn destination(@builtin(global_invocation_id) id: vec3<u32>) {
  let i = id.x;
  if (i >= state.count) { return; }
  var c = cell[i];
  let place = buckets[c.y] + c.z;
  c.z = place;
  cell[i] = c;
  sortedInfo[place] = info[i];
  contact[place].collider = -1;
  if (c.w == 1u) {
    removed[state.removedCount + place - buckets[scene.params.deadBucket]] = info[i].entity;
  }
}

// @entry scatter
@compute @workgroup_size(WORKGROUP_SIZE)
fn scatter(@builtin(global_invocation_id) id: vec3<u32>) {
  let i = id.x;
  if (i >= state.count) { return; }
  let c = cell[i];
  let place = c.z;
  let x = position[i];
  let v = velocity[i];
  sortedPosition[place] = x;
  sortedVelocity[place] = v;
  // x* as the predict pass computed it (WCSPH, sphMode 1: x* = x, see predict.wgsl).
  let drift = select(scene.params.timeStep, 0.0, scene.params.sphMode == 1u);
  sortedPredicted[place] = vec4<f32>(x.xyz + drift * v.xyz, f32(c.x));
}

// @entry finish
@compute @workgroup_size(1)
fn finish() {
  let live = buckets[scene.params.deadBucket];
  // Removed ids accumulate until the CPU has read them (it then resets the count, see gpu/backend.ts).
  state.removedCount = state.removedCount + state.count - live;
  state.previousCount = state.count;
  state.count = live;
}
