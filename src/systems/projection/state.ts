/**
 * State of the coarse pressure projection (projection/cpu.ts): the grid plan and the working arrays,
 * allocated once for the most cells a grid may have. Data only.
 */

/** Cell types of the projection grid. */
export const CellType = { air: 0, fluid: 1, solid: 2 } as const;

/**
 * Face kinds of the projection grid (`ProjectionState.faceKind`); a collider slot (>= 0) marks a solid
 * face, whose velocity is that collider's.
 */
export const FaceKind = {
  /** No fluid cell on either side: no particle interpolates from it. */
  dead: -3,
  /** Fluid on a side, but too little mass near it to carry pressure: closed, no correction. */
  closed: -2,
  /** Fluid on a side, open: its velocity changes by -grad phi / rho. */
  open: -1,
} as const;

/**
 * Cell layers under a free surface that the projection leaves to the density constraints
 * (`erodeSurfaceCells` in grid.ts; the WebGPU backend has one pass per layer, grid.wgsl).
 */
export const SURFACE_LAYERS = 2;

/**
 * With `projection.freeSurface` (still water) the projection reaches the free surface except beside a coupled
 * body the grid does not resolve (see {@link THIN_BODY_DEPTH}): a cell whose center lies within this many
 * cells of one keeps the {@link SURFACE_LAYERS} rule. The cells inside such a body would flip with every bob
 * (a boat's hull thinner than a cell: 3 cells, then none; docs/method.md, "Still-water mode"); the particles'
 * wall pressure holds it up there, as with the default.
 */
export const BODY_SURFACE_REACH = SURFACE_LAYERS + 1;

/**
 * A coupled body is thin for the projection grid when no point inside it lies this many cells deep (a box
 * less than two cells across in some direction): then no cell need lie wholly inside it (see
 * {@link BODY_SURFACE_REACH}).
 */
export const THIN_BODY_DEPTH = 1;

/**
 * A face between two cells that both lie within a cell of the same collider, whose normals point away
 * from each other along the face's axis by more than this cosine, crosses a wall thinner than a cell (a
 * glass): it is solid.
 */
export const THIN_WALL_NORMAL = 0.5;

/**
 * A cell is fluid when its particles' rest volumes fill at least this fraction of it: its center is then
 * in the liquid, so the free surface (phi = 0 in the air cells) lies within half a cell of where the
 * particles end. Sparser cells are air; their particles take the changes of the faces around them.
 */
export const FLUID_CELL_FILL = 0.5;

/**
 * The WebGPU backend's density error (`projectionParticle[3 i].w`, projection/grid.wgsl) of a particle whose last
 * density solve had no full neighbourhood (fewer than `lattice.fullNeighbourhood` neighbours: at a free
 * surface its density is no measure of compression): its error does not enter its cell's mean. The CPU
 * tests the neighbour count of the current substep instead (see `scatterToGrid`), which the GPU does not
 * have before the density solve. Errors themselves are at least -1.
 */
export const NO_DENSITY_ERROR = -2;

/** Relative excess of M_f S_f over V_f^2 below which a face holds fluid of one rest density (rounding; `faceMobility`). */
export const SINGLE_DENSITY_TOLERANCE = 1e-9;

/** Cells of margin around the particles' bounding box on every side. */
export const GRID_MARGIN = 2;

/**
 * A face whose particle mass is below this fraction of a full face (the lightest material's rest density
 * times a cell's volume) is closed: an isolated particle grazing it would otherwise make the pressure
 * system arbitrarily stiff.
 */
export const CLOSED_FACE_MASS = 0.01;

/** The grid of one substep. */
export interface ProjectionPlan {
  /** Cell size (m). */
  cellSize: number;
  /** Origin of cell (0, 0, 0) in cells of `cellSize` (integer world cell coordinates). */
  readonly origin: Int32Array;
  /** Cells per axis. */
  readonly dims: Int32Array;
  /** Cells in use: dims[0] dims[1] dims[2]. */
  cells: number;
}

/** Working arrays of the projection, allocated once for `maxCells` cells. */
export interface ProjectionState {
  /** The most cells a grid may have (fixed at creation). */
  readonly maxCells: number;
  /** This substep's grid. */
  readonly plan: ProjectionPlan;
  /** The grid `phi` belongs to, for the warm start. */
  readonly previousPlan: ProjectionPlan;
  /** Per cell: {@link CellType}. */
  readonly type: Uint8Array;
  /** Per cell: 1 where erodeSurfaceCells changes the cell's type in the present layer (TypeScript only). */
  readonly flags: Uint8Array;
  /** Per cell: the connected region of fluid cells it belongs to, and a queue of cells (solvePressure). */
  readonly component: Int32Array;
  readonly queue: Int32Array;
  /** Per cell: 1 where the cell needs its collider distance (fluid, beside fluid, or in a coupled body). */
  readonly near: Uint8Array;
  /**
   * Per cell: 1 where the cell is full of fluid (a fluid cell of particles, not a body's, whose center is at
   * least half a cell from every collider); a face between two full cells gets the mobility of a full cell
   * (see `faceMobility`).
   */
  readonly full: Uint8Array;
  /**
   * Per cell: 1 where the cell's center lies within {@link BODY_SURFACE_REACH} cells of a thin coupled body
   * (classifyCells; 0 without `projection.freeSurface`): in that mode the surface layers are still left to the density
   * constraints there (erodeSurfaceCells).
   */
  readonly besideBody: Uint8Array;
  /** Per cell: the rest volume (m^3, mass / own rest density) of its particles (TypeScript only). */
  readonly cellVolume: Float64Array;
  /** Per particle place: its cell (-1: its stencil leaves the grid), grid coordinates (3 per place) and share weight. */
  readonly particleCell: Int32Array;
  readonly particleGrid: Float64Array;
  readonly particleShare: Float64Array;
  /**
   * Per cell: the slot of the coupled collider with a known mass whose inside this empty cell is (its
   * "rigid fluid" cell, moved by the projection as a fluid of the body's density), else -1.
   */
  readonly cellBody: Int32Array;
  /** Per collider slot: cells of its rigid fluid this substep, and their density (kg/m^3). */
  readonly bodyCells: Int32Array;
  readonly bodyDensity: Float64Array;
  /**
   * Per collider slot: 1 where it is a coupled body too thin for the grid ({@link THIN_BODY_DEPTH}; classifyCells,
   * only with `projection.freeSurface`, the one reader), else 0.
   */
  readonly thinBody: Uint8Array;
  /** Per cell: sum and number of the density errors of its particles with a full neighbourhood. */
  readonly errorSum: Float64Array;
  readonly errorCount: Int32Array;
  /** Per cell: fluid-side distance (m) to the nearest collider at its center, that collider's slot, its normal. */
  readonly distance: Float64Array;
  readonly nearest: Int32Array;
  readonly normalX: Float64Array;
  readonly normalY: Float64Array;
  readonly normalZ: Float64Array;
  /**
   * Per axis (x, y, z), per cell: the face on the cell's lower side along that axis. `kind` is a
   * {@link FaceKind} or the slot of the collider of a solid face; `mass`, `volume` and `volumeFlux` are the
   * scatter's sums of w m, w V and w V v (kg, m^3, m^4/s; V = m / rho0, the particle's rest volume);
   * `velocity` the face velocity, volume-weighted (the collider's on solid faces); `change` the correction
   * of the volume-weighted velocity (m/s).
   */
  readonly faceKind: readonly Int32Array[];
  readonly mass: readonly Float64Array[];
  readonly volume: readonly Float64Array[];
  readonly volumeFlux: readonly Float64Array[];
  /**
   * Per axis, per face: sum of w V / rho (rho the particle's rest density): the volume-weighted mean of
   * 1 / rho times the face's volume, how easily pressure moves what the face holds.
   */
  readonly shareVolume: readonly Float64Array[];
  readonly velocity: readonly Float64Array[];
  readonly change: readonly Float64Array[];
  /**
   * Per axis, per face: what a particle takes of the face's change per unit of its share weight (TypeScript
   * only: in WebAssembly these stay in the module's memory, from faceTransfers to the gather).
   */
  readonly transfer: readonly Float64Array[];
  /** Per cell: the unknown phi = p dt (Pa s), the right-hand side and the conjugate gradient vectors. */
  readonly phi: Float64Array;
  readonly rightHandSide: Float64Array;
  readonly residual: Float64Array;
  readonly preconditioned: Float64Array;
  readonly direction: Float64Array;
  readonly product: Float64Array;
  /** Per cell: the diagonal of A. */
  readonly diagonal: Float64Array;
  /** Per axis, per face: A's coefficient H^2 / M_f of an open face, else 0. */
  readonly coefficient: readonly Float64Array[];
  /** The fluid cells of this substep, the first ones in use. */
  readonly fluidCells: Int32Array;
  /**
   * The rest volume (m^3) the particles of a cell full of fluid at rest add up to: H^3 / ((2r)^3 x the
   * lattice's poly6 sum), 0.99 H^3 at h = 4r (set by `planGrid`).
   */
  fullVolume: number;
  /** Iterations and final relative residual of the last solve. */
  iterations: number;
  relativeResidual: number;
}

/**
 * The rest volume (m^3) the particles of a cell of side `cellSize` full of fluid at rest add up to:
 * H^3 / ((2r)^3 x the lattice's poly6 sum), for the spawn lattice's `spacing` 2r and `kernelSum`
 * (`ProjectionState.fullVolume`; the WebGPU backend's `projectionFullVolume`).
 */
export function fullCellVolume(cellSize: number, spacing: number, kernelSum: number): number {
  return cellSize ** 3 / (spacing ** 3 * kernelSum);
}

/** The lightest rest density (kg/m^3) of the first `count` materials, from their 1 / rho0; +Infinity for none. */
export function lightestRestDensity(inverseRestDensity: ArrayLike<number>, count: number): number {
  let lightest = Number.POSITIVE_INFINITY;
  for (let slot = 0; slot < count; slot++) lightest = Math.min(lightest, 1 / inverseRestDensity[slot]);
  return lightest;
}

/** The most cells of a projection grid for a simulation of `capacity` particles. */
export function projectionMaxCells(capacity: number): number {
  return Math.min(1 << 17, Math.max(4096, 2 * capacity));
}

function createPlan(): ProjectionPlan {
  return { cellSize: 0, origin: new Int32Array(3), dims: new Int32Array(3), cells: 0 };
}

/**
 * Allocates the projection's arrays for a simulation of `capacity` particles and `maxColliders` colliders,
 * with a grid of at most `maxCells` cells.
 */
export function createProjectionState(
  capacity: number,
  maxColliders: number,
  maxCells: number = projectionMaxCells(capacity),
): ProjectionState {
  const f = () => new Float64Array(maxCells);
  const perAxis = () => [f(), f(), f()] as const;
  return {
    maxCells,
    plan: createPlan(),
    previousPlan: createPlan(),
    type: new Uint8Array(maxCells),
    flags: new Uint8Array(maxCells),
    near: new Uint8Array(maxCells),
    full: new Uint8Array(maxCells),
    besideBody: new Uint8Array(maxCells),
    component: new Int32Array(maxCells),
    queue: new Int32Array(maxCells),
    cellVolume: f(),
    particleCell: new Int32Array(capacity),
    particleGrid: new Float64Array(3 * capacity),
    particleShare: new Float64Array(capacity),
    cellBody: new Int32Array(maxCells),
    bodyCells: new Int32Array(maxColliders),
    bodyDensity: new Float64Array(maxColliders),
    thinBody: new Uint8Array(maxColliders),
    errorSum: f(),
    errorCount: new Int32Array(maxCells),
    distance: f(),
    nearest: new Int32Array(maxCells),
    normalX: f(),
    normalY: f(),
    normalZ: f(),
    faceKind: [new Int32Array(maxCells), new Int32Array(maxCells), new Int32Array(maxCells)],
    mass: perAxis(),
    volume: perAxis(),
    volumeFlux: perAxis(),
    shareVolume: perAxis(),
    velocity: perAxis(),
    change: perAxis(),
    transfer: perAxis(),
    phi: f(),
    rightHandSide: f(),
    residual: f(),
    preconditioned: f(),
    direction: f(),
    product: f(),
    diagonal: f(),
    coefficient: perAxis(),
    fluidCells: new Int32Array(maxCells),
    fullVolume: 0,
    iterations: 0,
    relativeResidual: 0,
  };
}
