// Counting sort, second half (mirrors sortByBucket in neighbours/cpu.ts). The predict pass counted each
// bucket with an atomic add, whose slot order is a race between threads; so the sort is made stable here,
// as the CPU's is: `bucketOrder` lists each particle at its bucket's start plus its raced slot, then each
// particle's place is its bucket's start plus the number of the bucket's particles with a lower index:
// `rankParticles` (one thread per particle) counts them in a bucket of at most SHORT_BUCKET particles (a cell
// holds about 8) and lists each longer bucket once in `longBuckets` (cleared by `clear`, gpu/bookkeeping.wgsl;
// their order there is a race, but each is sorted on its own), whose buckets `rankBuckets` (one workgroup)
// sorts by index and places. So the same input always gives the same order (and the sums over neighbours the
// same rounding), the removed particles' bucket (the dead bucket, after every cell) included, so their ids
// reach `removed` in a fixed order too. `destination` moves the bookkeeping and writes the ids of removed
// particles to `removed`, after those not yet read back; `scatter` moves positions and velocities and stores
// x* with the cell key in w; `finish` (one thread, finish.wgsl) sets the new count; in the 'list' neighbour mode
// the first thread of `neighbourList` does instead (lists.wgsl).

// @entry bucketOrder
@compute @workgroup_size(WORKGROUP_SIZE)
fn bucketOrder(@builtin(global_invocation_id) id: vec3<u32>) {
  let i = id.x;
  if (i >= state.count) { return; }
  let c = cell[i];
  sortOrder[buckets[c.y] + c.z] = i;
}

// @entry rankParticles
@compute @workgroup_size(WORKGROUP_SIZE)
fn rankParticles(@builtin(global_invocation_id) id: vec3<u32>) {
  let i = id.x;
  if (i >= state.count) { return; }
  let c = cell[i];
  let start = buckets[c.y];
  // The dead bucket ends with the particles (state.count is the count before `finish`).
  let end = select(buckets[c.y + 1u], state.count, c.y == scene.params.deadBucket);
  if (end - start > SHORT_BUCKET) {
    // A long bucket: listed once, by the particle in its first raced slot, for rankBuckets.
    if (sortOrder[start] == i) { atomicStore(&longBuckets[1u + atomicAdd(&longBuckets[0], 1u)], c.y); }
    return;
  }
  var lower = 0u;
  var k = start;
  loop {
    lower = lower + select(0u, 1u, sortOrder[k] < i);
    continuing {
      k = k + 1u;
      break if k >= end;
    }
  }
  cell[i].z = start + lower;
}

// @entry rankBuckets
// Sorts sortOrder[start, end) of each listed bucket (longer than SHORT_BUCKET) ascending by heapsort
// (n log n) and places its particles; one workgroup, a bucket per thread. (Over every bucket, SwiftShader ran
// the heapsort's code masked for each of them, though few are long.)
fn siftDown(start: u32, root: u32, length: u32) {
  var parent = root;
  loop {
    var child = 2u * parent + 1u;
    if (child >= length) { break; }
    if (child + 1u < length && sortOrder[start + child + 1u] > sortOrder[start + child]) { child = child + 1u; }
    let top = sortOrder[start + parent];
    let larger = sortOrder[start + child];
    if (top >= larger) { break; }
    sortOrder[start + parent] = larger;
    sortOrder[start + child] = top;
    parent = child;
  }
}

@compute @workgroup_size(ONE_WORKGROUP_SIZE)
fn rankBuckets(@builtin(local_invocation_id) local: vec3<u32>) {
  let dead = scene.params.deadBucket;
  let count = atomicLoad(&longBuckets[0]);
  for (var k = local.x; k < count; k = k + ONE_WORKGROUP_SIZE) {
    let b = atomicLoad(&longBuckets[1u + k]);
    let start = buckets[b];
    let end = select(buckets[b + 1u], state.count, b == dead);
    let length = end - start;
    for (var root = length / 2u; root > 0u; root = root - 1u) { siftDown(start, root - 1u, length); }
    for (var last = length - 1u; last > 0u; last = last - 1u) {
      let largest = sortOrder[start];
      sortOrder[start] = sortOrder[start + last];
      sortOrder[start + last] = largest;
      siftDown(start, 0u, last);
    }
    for (var place = start; place < end; place = place + 1u) { cell[sortOrder[place]].z = place; }
  }
}

// @entry destination
@compute @workgroup_size(WORKGROUP_SIZE)
fn destination(@builtin(global_invocation_id) id: vec3<u32>) {
  let i = id.x;
  if (i >= state.count) { return; }
  let c = cell[i];
  let place = c.z;
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
  finishSort(buckets[scene.params.deadBucket]);
}
