// The sort's end (sort.wgsl): `live`, the dead bucket's start, becomes the count; the particles past it were
// removed. Called by one thread, by the `finish` pass, or in the 'list' neighbour mode by the first thread of
// `neighbourList` (lists.wgsl), whose threads read the count from the buckets instead, so no pass of its own.
fn finishSort(live: u32) {
  // Removed ids accumulate until the CPU has read them (it then resets the count, see gpu/backend.ts).
  state.removedCount = state.removedCount + state.count - live;
  state.previousCount = state.count;
  state.count = live;
}
