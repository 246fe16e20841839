// Exclusive prefix sum of scanData in blocks of SCAN_WORKGROUP_SIZE x SCAN_ELEMENTS entries; each block's
// total goes to scanSums (Blelloch-style work split; the threads' totals scanned by the first thread, two
// barriers: on SwiftShader, which switches between a workgroup's four-thread groups at every barrier, the
// thirteen of a Hillis-Steele scan cost more than 64 additions in a row). `addSums` then adds the scanned block
// totals back. Used for the bucket starts of the counting sort (Green 2008).

var<workgroup> partial: array<u32, SCAN_WORKGROUP_SIZE>;

@compute @workgroup_size(SCAN_WORKGROUP_SIZE)
fn scanBlocks(@builtin(local_invocation_id) local: vec3<u32>, @builtin(workgroup_id) group: vec3<u32>) {
  let base = (group.x * SCAN_WORKGROUP_SIZE + local.x) * SCAN_ELEMENTS;
  let length = arrayLength(&scanData);
  var values: array<u32, SCAN_ELEMENTS>;
  var total = 0u;
  for (var k = 0u; k < SCAN_ELEMENTS; k = k + 1u) {
    var value = 0u;
    if (base + k < length) { value = scanData[base + k]; }
    values[k] = total;
    total = total + value;
  }
  partial[local.x] = total;
  workgroupBarrier();
  // Inclusive scan of the thread totals.
  if (local.x == 0u) {
    var running = 0u;
    for (var t = 0u; t < SCAN_WORKGROUP_SIZE; t = t + 1u) {
      running = running + partial[t];
      partial[t] = running;
    }
  }
  workgroupBarrier();
  let before = partial[local.x] - total;
  for (var k = 0u; k < SCAN_ELEMENTS; k = k + 1u) {
    if (base + k < length) { scanData[base + k] = before + values[k]; }
  }
  if (local.x == SCAN_WORKGROUP_SIZE - 1u && group.x < arrayLength(&scanSums)) {
    scanSums[group.x] = partial[local.x];
  }
}

@compute @workgroup_size(SCAN_WORKGROUP_SIZE)
fn addSums(@builtin(local_invocation_id) local: vec3<u32>, @builtin(workgroup_id) group: vec3<u32>) {
  let base = (group.x * SCAN_WORKGROUP_SIZE + local.x) * SCAN_ELEMENTS;
  let length = arrayLength(&scanData);
  let add = scanSums[group.x];
  for (var k = 0u; k < SCAN_ELEMENTS; k = k + 1u) {
    if (base + k < length) { scanData[base + k] = scanData[base + k] + add; }
  }
}
