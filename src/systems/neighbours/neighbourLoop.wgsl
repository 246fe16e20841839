// The neighbour loops every gathering pass shares (expanded around the pass's body between
// `// @neighbours` and `// @end neighbours` by `expandNeighbourLoops`, gpu/shaderSource.ts), with
// `other` = sortedPredicted[j] for each neighbour j != i. The pass defines i, home (the cell i was sorted
// into) and k (a Kernel), and binds `neighbourTable` (the bucket starts, then the neighbour lists). The body
// may `continue` to the next neighbour. Loops are written `loop { ... continuing { ...; break if done; } }`
// so that their body runs exactly as often as needed on compilers that run one extra masked iteration after
// a loop's own test fails (see common.wgsl). Two forms, chosen once per solver (`NeighbourMode`): the list
// (with its fallback) and the cells.
// @loop list
// The particle's neighbour list (built by `neighbourList`, lists.wgsl, once per substep): its length,
// then its neighbours in the order of the cells loop. The expansion follows it with the cells loop for a
// particle whose list overflowed (the body again; `expandNeighbourLoops` makes it a loop tested at the top
// that starts past its end for every other particle: SwiftShader runs a branch's code for all lanes, masked,
// so an `else` holding the 27-cell loop would cost every particle the 27 cells).
  let listStart = scene.params.neighbourListBase + i * scene.params.neighbourStride + 1u;
  let listLength = neighbourTable[listStart - 1u];
  if (listLength != NEIGHBOUR_OVERFLOW) {
    var slot = listStart;
    if (listLength > 0u) {
      loop {
        let j = neighbourTable[slot];
        let other = sortedPredicted[j];
// @body
        continuing {
          slot = slot + 1u;
          break if slot >= listStart + listLength;
        }
      }
    }
  }
// @loop cells
// Every particle sorted into one of the 27 cells around `home` (the bucket starts of the hash table).
  var near = 0;
  loop {
    let key = neighbourKey(home, near);
    // Keys are below 2^24, exact as f32 (predicted.w).
    let keyValue = f32(key);
    let bucket = bucketOfKey(key, k.tableMask);
    let end = neighbourTable[bucket + 1u];
    var j = neighbourTable[bucket];
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
