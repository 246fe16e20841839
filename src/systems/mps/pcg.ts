/**
 * Jacobi-preconditioned conjugate gradients for a sparse symmetric positive definite system A x = b, the
 * solver of the MPS pressure Poisson equation (Premoze et al. 2003, section 3.2 and section 5: "The
 * Poisson pressure equation can be efficiently solved with a Conjugate Gradient (CG) method"; the paper
 * used an incomplete Cholesky preconditioner, this one uses the diagonal, which needs no factorisation
 * and no fill-in). The matrix is stored as its diagonal plus the off-diagonal entries in compressed sparse
 * rows (CSR). Nothing is allocated per solve: the caller owns every array.
 */
import { FluidError } from '../../core/errors';

/** A sparse symmetric matrix: diagonal plus off-diagonal entries in compressed sparse rows. */
export interface SparseSymmetricMatrix {
  /** Number of rows (and columns) in use. */
  rowCount: number;
  /** Diagonal entry of each row (length >= rowCount); must be > 0. */
  diagonal: Float64Array;
  /** Start of each row's off-diagonal entries in `column` and `value` (length >= rowCount + 1). */
  rowStart: Int32Array;
  /** Column of each off-diagonal entry (< rowCount). Entry (i, j) must equal entry (j, i). */
  column: Int32Array;
  /** Value of each off-diagonal entry. */
  value: Float64Array;
}

/** Scratch vectors of one solve, each of length >= the matrix's row count. */
export interface ConjugateGradientScratch {
  /** Residual r = b - A x. */
  residual: Float64Array;
  /** Preconditioned residual z = D^-1 r. */
  preconditioned: Float64Array;
  /** Search direction d. */
  direction: Float64Array;
  /** Product A d. */
  product: Float64Array;
}

/** Allocates the scratch of solves of up to `rowCapacity` rows. */
export function createConjugateGradientScratch(rowCapacity: number): ConjugateGradientScratch {
  return {
    residual: new Float64Array(rowCapacity),
    preconditioned: new Float64Array(rowCapacity),
    direction: new Float64Array(rowCapacity),
    product: new Float64Array(rowCapacity),
  };
}

/** What one solve did. */
export interface ConjugateGradientResult {
  /** Iterations taken (0 when the initial guess already met the tolerance). */
  iterations: number;
  /** Final relative residual |b - A x| / |b|, recomputed from x (0 for b = 0). */
  residual: number;
}

/** out = A x over the first `matrix.rowCount` entries. */
export function multiplySparse(matrix: SparseSymmetricMatrix, x: Float64Array, out: Float64Array): void {
  const { rowCount, diagonal, rowStart, column, value } = matrix;
  for (let i = 0; i < rowCount; i++) {
    let sum = diagonal[i] * x[i];
    const end = rowStart[i + 1];
    for (let k = rowStart[i]; k < end; k++) sum += value[k] * x[column[k]];
    out[i] = sum;
  }
}

function dot(a: Float64Array, b: Float64Array, n: number): number {
  let sum = 0;
  for (let i = 0; i < n; i++) sum += a[i] * b[i];
  return sum;
}

/**
 * Solves A x = b by Jacobi-preconditioned conjugate gradients, starting from the guess in `x` (overwritten
 * with the solution); the counts go to `result` (a new object when omitted) and it is returned. Stops when |r| / |b| <= `tolerance` (dimensionless, in (0, 1)) or after
 * `maxIterations` iterations (integer >= 1). A bad tolerance or iteration count, a non-positive diagonal
 * entry, a non-finite right-hand side or a breakdown (d . A d <= 0: the matrix is not positive definite)
 * throws {@link FluidError}; the solve never returns NaN.
 */
export function solveConjugateGradient(
  matrix: SparseSymmetricMatrix,
  b: Float64Array,
  x: Float64Array,
  tolerance: number,
  maxIterations: number,
  scratch: ConjugateGradientScratch,
  result: ConjugateGradientResult = { iterations: 0, residual: 0 },
): ConjugateGradientResult {
  if (!(tolerance > 0 && tolerance < 1)) {
    throw new FluidError(`the conjugate gradient tolerance is ${tolerance}; allowed range is (0, 1)`);
  }
  if (!(Number.isInteger(maxIterations) && maxIterations >= 1)) {
    throw new FluidError(`the conjugate gradient iteration limit is ${maxIterations}; it must be an integer >= 1`);
  }
  const n = matrix.rowCount;
  const diagonal = matrix.diagonal;
  const { residual, preconditioned, direction, product } = scratch;
  for (let i = 0; i < n; i++) {
    if (!(diagonal[i] > 0)) {
      throw new FluidError(`diagonal entry ${i} of the pressure matrix is ${diagonal[i]}; it must be > 0`);
    }
  }
  const bNorm = Math.sqrt(dot(b, b, n));
  if (!Number.isFinite(bNorm)) throw new FluidError('the right-hand side of the pressure equation is not finite');
  if (bNorm === 0) {
    x.fill(0, 0, n);
    result.iterations = 0;
    result.residual = 0;
    return result;
  }
  for (let i = 0; i < n; i++) if (!Number.isFinite(x[i])) x[i] = 0;
  multiplySparse(matrix, x, product);
  for (let i = 0; i < n; i++) {
    const r = b[i] - product[i];
    residual[i] = r;
    const z = r / diagonal[i];
    preconditioned[i] = z;
    direction[i] = z;
  }
  let rz = dot(residual, preconditioned, n);
  const threshold = tolerance * bNorm;
  let residualNorm = Math.sqrt(dot(residual, residual, n));
  let iterations = 0;
  while (residualNorm > threshold && iterations < maxIterations) {
    multiplySparse(matrix, direction, product);
    const curvature = dot(direction, product, n);
    if (!(curvature > 0)) {
      throw new FluidError(
        `conjugate gradient breakdown at iteration ${iterations}: d . A d is ${curvature}; the matrix must be positive definite`,
      );
    }
    const alpha = rz / curvature;
    let squares = 0;
    for (let i = 0; i < n; i++) {
      x[i] += alpha * direction[i];
      const r = residual[i] - alpha * product[i];
      residual[i] = r;
      squares += r * r;
      preconditioned[i] = r / diagonal[i];
    }
    residualNorm = Math.sqrt(squares);
    const rzNext = dot(residual, preconditioned, n);
    const beta = rzNext / rz;
    rz = rzNext;
    for (let i = 0; i < n; i++) direction[i] = preconditioned[i] + beta * direction[i];
    iterations++;
  }
  // The reported residual is recomputed from x, not taken from the recurrence.
  multiplySparse(matrix, x, product);
  let squares = 0;
  for (let i = 0; i < n; i++) {
    const r = b[i] - product[i];
    squares += r * r;
  }
  const relative = Math.sqrt(squares) / bNorm;
  if (!Number.isFinite(relative)) throw new FluidError('the pressure solve produced a non-finite residual');
  result.iterations = iterations;
  result.residual = relative;
  return result;
}
