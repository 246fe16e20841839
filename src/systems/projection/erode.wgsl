// The surface layers' erosion (erodeSurfaceCells in grid.ts), shared by the two erosion passes of grid.wgsl
// (each erodes one layer; they bind the projection's grid and cells).

// A cell's type before this erosion layer: after the collider test (`first`) or after the first layer.
fn layerType(c: u32, first: bool) -> u32 {
  if (first) { return projectionCell[c].classified; }
  return projectionCell[c].eroded;
}

// One layer of erodeSurfaceCells (grid.ts) for cell c: a fluid cell beside an air cell, or in the grid's
// first or last z layer, becomes air; with `projection.freeSurface` (still water, `freeSurface`) only the
// latter, but within BODY_SURFACE_REACH cells of a thin coupled body (`besideBody`).
fn erodedType(c: u32, first: bool, freeSurface: bool) -> u32 {
  let t = layerType(c, first);
  if (t != CELL_FLUID) { return t; }
  let dims = gridDims();
  let nx = u32(dims.x);
  let nxy = u32(dims.x * dims.y);
  if (c < nxy || c >= projectionGrid.cells - nxy) { return CELL_AIR; }
  if (freeSurface && projectionCell[c].besideBody == 0u) { return CELL_FLUID; }
  let beside = array<u32, 6>(c - 1u, c + 1u, c - nx, c + nx, c - nxy, c + nxy);
  for (var k = 0u; k < 6u; k = k + 1u) {
    if (layerType(beside[k], first) == CELL_AIR) { return CELL_AIR; }
  }
  return CELL_FLUID;
}
