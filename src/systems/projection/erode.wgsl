// The surface layers' erosion and, in the still-water mode, their growing back (erodeSurfaceCells in grid.ts),
// shared by the erosion and growing passes of grid.wgsl (each does one layer; they bind the projection's grid
// and cells).

// A cell's type before this erosion layer: after the collider test (`first`) or after the first layer.
fn layerType(c: u32, first: bool) -> u32 {
  if (first) { return projectionCell[c].classified; }
  return projectionCell[c].eroded;
}

// Whether one of the 6 neighbours of inner cell c has type `wanted` before this erosion (`grown` false) or
// growing layer (`grown` true); `first`: the layer's first pass.
fn besideType(c: u32, nx: u32, nxy: u32, grown: bool, first: bool, wanted: u32) -> bool {
  let beside = array<u32, 6>(c - 1u, c + 1u, c - nx, c + nx, c - nxy, c + nxy);
  for (var k = 0u; k < 6u; k = k + 1u) {
    var t: u32;
    if (grown) { t = grownLayerType(beside[k], first); } else { t = layerType(beside[k], first); }
    if (t == wanted) { return true; }
  }
  return false;
}

// One layer of erodeSurfaceCells (grid.ts) for cell c: a fluid cell beside an air cell, or in the grid's
// first or last z layer, becomes air.
fn erodedType(c: u32, first: bool) -> u32 {
  let t = layerType(c, first);
  if (t != CELL_FLUID) { return t; }
  let dims = gridDims();
  let nx = u32(dims.x);
  let nxy = u32(dims.x * dims.y);
  if (c < nxy || c >= projectionGrid.cells - nxy) { return CELL_AIR; }
  return select(CELL_FLUID, CELL_AIR, besideType(c, nx, nxy, false, first, CELL_AIR));
}

// A cell's type before this growing layer: after the erosion (`first`) or after the first grown layer.
fn grownLayerType(c: u32, first: bool) -> u32 {
  if (first) { return projectionCell[c].cellType; }
  return projectionCell[c].eroded;
}

// One growing layer of erodeSurfaceCells (grid.ts, `projection.freeSurface`) for cell c: a cell the erosion
// took (fluid after the collider test, not within BODY_SURFACE_REACH cells of a thin coupled body, not in the
// grid's first or last z layer) beside a fluid cell becomes fluid again.
fn grownType(c: u32, first: bool) -> u32 {
  let t = grownLayerType(c, first);
  if (t == CELL_FLUID || projectionCell[c].classified != CELL_FLUID || projectionCell[c].besideBody != 0u) {
    return t;
  }
  let dims = gridDims();
  let nx = u32(dims.x);
  let nxy = u32(dims.x * dims.y);
  if (c < nxy || c >= projectionGrid.cells - nxy) { return t; }
  return select(t, CELL_FLUID, besideType(c, nx, nxy, true, first, CELL_FLUID));
}

// Whether cell c of type t is full: fluid, at least half a cell (of size `cellSize`) from every collider.
fn fullCell(c: u32, t: u32, cellSize: f32) -> u32 {
  let full = t == CELL_FLUID && projectionCell[c].distance >= 0.499 * cellSize;
  return select(0u, 1u, full);
}
