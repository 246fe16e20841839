// The neighbour loop every gathering pass shares (expanded around the pass's body between
// `// @neighbours` and `// @end neighbours` by `expandNeighbourLoops`, gpu/backend.ts): every particle j != i
// sorted into one of the 27 cells around `home` (the cell i was sorted into), with `other` = sortedPredicted[j].
// The pass defines i, home and k (a Kernel). The body may `continue` to the next candidate. Loops are written
// `loop { ... continuing { ...; break if done; } }` so that their body runs exactly as often as needed on
// compilers that run one extra masked iteration after a loop's own test fails (see common.wgsl).
  var near = 0;
  loop {
    let key = neighbourKey(home, near);
    // Keys are below 2^24, exact as f32 (predicted.w).
    let keyValue = f32(key);
    let bucket = bucketOfKey(key, k.tableMask);
    let end = buckets[bucket + 1u];
    var j = buckets[bucket];
    if (j < end) {
      loop {
        let other = sortedPredicted[j];
        if (other.w != keyValue || j == i) { continue; }
// @body
        continuing {
          j = j + 1u;
          break if j >= end;
        }
      }
    }
    continuing {
      near = near + 1;
      break if near == 27;
    }
  }
