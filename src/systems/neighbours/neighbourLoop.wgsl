// The neighbour loops every gathering pass shares (expanded around the pass's body between
// `// @neighbours` and `// @end neighbours` by `expandNeighbourLoops`, gpu/shaderSource.ts), with
// `other` = sortedPredicted[j] for each neighbour j != i. The pass defines i, home (the cell i was sorted
// into) and k (a Kernel), and binds `neighbourTable` (the bucket starts, then the neighbour lists). The body
// may `continue` to the next neighbour, and must give no contribution from a particle farther than h (each
// tests the distance, or uses a weight that is zero beyond h): the cells loop also visits particles of other
// cells that share its buckets (rowBase, common.wgsl), at least 2h away where the substep's sort placed them. Loops are written `loop { ... continuing { ...; break if done; } }`
// so that their body runs exactly as often as needed on compilers that run one extra masked iteration after
// a loop's own test fails (see common.wgsl). Two forms, chosen once per solver (`NeighbourMode`): the list
// (with its fallback) and the cells.
// @loop list
// The particle's neighbour list (built by `neighbourList`, lists.wgsl, once per substep): its length,
// then its neighbours in the order of the cells loop. The expansion follows it with the cells loop for a
// particle whose list overflowed (the body again; `expandNeighbourLoops` makes it a loop tested at the top
// that starts past its end for every other particle: SwiftShader runs a branch's code for all lanes, masked,
// so an `else` holding the cells loop would cost every particle its 9 rows).
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
// Every particle sorted into one of the 27 cells around `home`, row by row (dz outer, dy inner; in a row
// the cells x - 1, x, x + 1 in order): one range of the bucket starts per row (rowPart, common.wgsl).
  let rowX = u32(home.x + 255) & 255u;
  var row = 0u;
  var part = 0u;
  loop {
    let rowY = u32(home.y + i32(row % 3u) + 255) & 255u;
    let rowZ = u32(home.z + i32(row / 3u) + 255) & 255u;
    let range = rowPart(rowY, rowZ, rowX, part, k.tableMask);
    let end = neighbourTable[range.y];
    var j = neighbourTable[range.x];
    if (j < end) {
      loop {
        let other = sortedPredicted[j];
        // The range's particles of other cells lie at least 2h away (rowBase, common.wgsl): the body's
        // distance test leaves them out, so no key is tested here.
        if (j == i) { continue; }
// @body
        continuing {
          j = j + 1u;
          break if j >= end;
        }
      }
    }
    continuing {
      let next = nextRowPart(row, part, range.z == 1u);
      row = next.x;
      part = next.y;
      break if row == 9u;
    }
  }
