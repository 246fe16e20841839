// The neighbour lists of a substep (mirrors the half lists of neighbourSystem in neighbours/cpu.ts, built
// once per substep on the predicted positions): after the sort, each particle visits the 27 cells around
// its own once and keeps the particles within h, in the order the cells loop of neighbourLoop.wgsl visits
// them, so every gathering pass of the substep sums over the same neighbours in the same order. Unlike the
// CPU's, each list is whole (i lists j and j lists i): a GPU thread writes only its own particle. The lists
// follow the bucket starts in the same buffer (`neighbourTable`, from word `neighbourListBase`, one of
// `neighbourStride` words per particle: the length, then the neighbours); a particle with more neighbours
// than a list holds gets the length NEIGHBOUR_OVERFLOW, and the passes visit the cells for it. This pass also
// ends the sort (finish.wgsl, by its first thread; the backend dispatches it with at least one workgroup):
// its threads take the live count from the dead bucket's start, not from `state`, which thread 0 changes.

@compute @workgroup_size(WORKGROUP_SIZE)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
  let i = id.x;
  let live = neighbourTable[scene.params.deadBucket];
  if (i == 0u) { finishSort(live); }
  if (i >= live) { return; }
  let k = loadKernel();
  let own = sortedPredicted[i];
  let xi = own.xyz;
  let home = keyCell(u32(own.w));
  let start = scene.params.neighbourListBase + i * scene.params.neighbourStride;
  let room = scene.params.neighbourStride - 1u;
  var length = 0u;
  var found = 0u;
  // @neighbours
        let r = xi - other.xyz;
        if (dot(r, r) >= k.radiusSquared) { continue; }
        found = found + 1u;
        if (found <= room) {
          neighbourTable[start + found] = j;
        }
  // @end neighbours
  neighbourTable[start] = select(NEIGHBOUR_OVERFLOW, found, found <= room);
}
