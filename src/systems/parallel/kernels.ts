/**
 * The pair loops of the PBF step split into partitions that threads can run at once (docs/ARCHITECTURE.md,
 * "Threads"). The particles, in their sorted order, are cut into `PARTITION_COUNT` ranges of equal count
 * (`planPartitions`). A partition runs the half-list loops of its own particles: what a pair adds to its
 * first particle i is summed in i's own arrays, what it adds to the other particle j (j > i, in this range or
 * a later one) goes into the partition's own spill rows, one row of `SPILL_STRIDE` values per particle from
 * the partition's first to the last one it reaches. A finishing kernel then adds, for each particle, the
 * spill rows of its own and the earlier partitions in their order and completes the pass (lambda, the
 * velocity updates). (Writing a j of the same range straight into its arrays, and spilling only the later
 * ranges, took a branch per pair and made the one-thread loops 10-30% slower.)
 *
 * The partitions are fixed, whatever the number of threads: every sum is made in the same order whether one
 * thread runs all partitions or several threads share them, so the results are bit-identical for every
 * thread count.
 *
 * Every function in `PARALLEL_KERNELS` is self-contained (no imports, no module state): the worker's source
 * is made from their text (`workerSource` in pool.ts). They read the arrays by the names of `SolverState`
 * (context.ts) and `MaterialTable`, and the scalars from `parameters` (`KernelParameter`).
 */

/** The number of partitions the particles are cut into: the most threads that can share a pass. */
export const PARTITION_COUNT = 16;

/** Values per row of the spill array (the most any pass adds to a particle: XSPH and vorticity, 3 + 3). */
export const SPILL_STRIDE = 6;

/** Index of each scalar in the kernels' `parameters` array. */
export const KernelParameter = {
  /** Kernel radius h, m. */
  kernelRadius: 0,
  /** h². */
  kernelRadiusSquared: 1,
  /** The poly6 kernel's coefficient 315 / (64 pi h^9). */
  poly6: 2,
  /** The spiky gradient's coefficient 45 / (pi h^6). */
  spikyGradient: 3,
  /** The poly6 kernel at r = 0 (a particle's own weight). */
  selfWeight: 4,
  /** The offset given to coincident particles, m. */
  coincidentOffset: 5,
  /** The substep's time step, s. */
  substepTimeStep: 6,
  /** 1 when some material has vorticity confinement, else 0. */
  anyVorticity: 7,
  /**
   * The neighbour search's five forward cell rows (dense cell numbering, neighbours/cpu.ts): the offsets of
   * their first cells, at 8 to 12.
   */
  rowStarts: 8,
  /**
   * 1 when the job's spills were already added (the threads' WebAssembly did, parallel/wasm.ts): the finishing
   * kernels of XSPH and the confinement then only apply them.
   */
  spillsAdded: 13,
  /** How many values the array holds. */
  length: 14,
} as const;

/** The arrays of the solver state that the kernels read or write (by their names in `SolverState`). */
export const KERNEL_SOLVER_ARRAYS = [
  'predictedX',
  'predictedY',
  'predictedZ',
  'velocityX',
  'velocityY',
  'velocityZ',
  'mass',
  'material',
  'density',
  'lambda',
  'constraint',
  'wallWeight',
  'wallGradientX',
  'wallGradientY',
  'wallGradientZ',
  'gradientX',
  'gradientY',
  'gradientZ',
  'gradientSquares',
  'deltaX',
  'deltaY',
  'deltaZ',
  'vorticityX',
  'vorticityY',
  'vorticityZ',
  'volume',
  'projectionSolved',
  'neighbourStart',
  'neighbours',
  'pairGradient',
  'pairWeight',
  'partitionBounds',
  'spill',
  'cellHash',
  'bucketStart',
] as const;

/** The per-material arrays the kernels read (by their names in `MaterialTable`). */
export const KERNEL_MATERIAL_ARRAYS = [
  'inverseRestDensity',
  'relaxation',
  'artificialPressureScale',
  'inverseArtificialPressureWeight',
  'artificialPressureExponent',
  'artificialPressureRestPower',
  'viscosity',
  'vorticity',
] as const;

/** The solver arrays a kernel sees. */
export type KernelSolverArrays = {
  [K in (typeof KERNEL_SOLVER_ARRAYS)[number]]: K extends 'material'
    ? Uint16Array
    : K extends 'cellHash'
      ? Uint32Array
      : K extends 'neighbourStart' | 'neighbours' | 'partitionBounds' | 'bucketStart'
        ? Int32Array
        : Float64Array;
};

/** The material arrays a kernel sees. */
export type KernelMaterialArrays = { [K in (typeof KERNEL_MATERIAL_ARRAYS)[number]]: Float64Array };

/**
 * One partition's share of a pass: `partition` in [0, PARTITION_COUNT). The partition table
 * `partitionBounds` holds the starts (PARTITION_COUNT + 1 values, the last is the particle count), then
 * each partition's spill end (the particle after the last one it spills into), then each partition's first
 * spill row, then where each partition's neighbour lists end in `neighbours` (-1: its region was too small).
 */
export type PartitionKernel = (
  solver: KernelSolverArrays,
  materials: KernelMaterialArrays,
  parameters: Float64Array,
  partition: number,
) => void;

/**
 * Density and the constraint gradient's sums of the partition's particles (Macklin & Müller 2013, eq. 2,
 * 8-9; the walls by Harada et al. 2007, eq. 12), caching each pair's kernel values; mirrors computeLambda
 * in density/cpu.ts.
 */
export function lambdaPairs(
  solver: KernelSolverArrays,
  materials: KernelMaterialArrays,
  parameters: Float64Array,
  partition: number,
): void {
  const count = 16; // PARTITION_COUNT
  const stride = 6; // SPILL_STRIDE
  const bounds = solver.partitionBounds;
  const from = bounds[partition];
  const to = bounds[partition + 1];
  const spillEnd = bounds[count + 1 + partition];
  const spillBase = bounds[2 * count + 1 + partition];
  const h = parameters[0];
  const hSquared = parameters[1];
  const poly6C = parameters[2];
  const spikyC = parameters[3];
  const w0 = parameters[4];
  const coincidentOffset = parameters[5];
  const { predictedX, predictedY, predictedZ, mass, material, density, neighbourStart, neighbours } = solver;
  const { wallWeight, wallGradientX, wallGradientY, wallGradientZ, spill } = solver;
  const { gradientX, gradientY, gradientZ, gradientSquares, pairGradient, pairWeight } = solver;
  const inverseRestDensity = materials.inverseRestDensity;
  for (let i = from; i < to; i++) {
    const mi = mass[i];
    const scale = mi * inverseRestDensity[material[i]];
    density[i] = mi * (w0 + wallWeight[i]);
    gradientX[i] = scale * wallGradientX[i];
    gradientY[i] = scale * wallGradientY[i];
    gradientZ[i] = scale * wallGradientZ[i];
    gradientSquares[i] = 0;
  }
  spill.fill(0, spillBase * stride, (spillBase + spillEnd - from) * stride);
  const spillOrigin = (spillBase - from) * stride;
  for (let i = from; i < to; i++) {
    const xi = predictedX[i];
    const yi = predictedY[i];
    const zi = predictedZ[i];
    const mi = mass[i];
    const invRho0i = inverseRestDensity[material[i]];
    let rho = density[i];
    let gix = gradientX[i];
    let giy = gradientY[i];
    let giz = gradientZ[i];
    let squares = gradientSquares[i];
    const end = neighbourStart[i + 1];
    for (let k = neighbourStart[i]; k < end; k++) {
      const j = neighbours[k];
      let rx = xi - predictedX[j];
      const ry = yi - predictedY[j];
      const rz = zi - predictedZ[j];
      // Coincident particles (a block spawned twice) get a tiny offset so the spiky gradient separates them.
      if (rx === 0 && ry === 0 && rz === 0) rx = coincidentOffset;
      const r2 = rx * rx + ry * ry + rz * rz;
      if (r2 >= hSquared) {
        pairGradient[k] = 0;
        pairWeight[k] = 0;
        continue;
      }
      const mj = mass[j];
      const d = hSquared - r2;
      const w = poly6C * d * d * d;
      pairWeight[k] = w;
      rho += mj * w;
      const r = Math.sqrt(r2);
      const e = h - r;
      // grad_i W_ij = g (x_i - x_j); grad_j W_ij = -g (x_i - x_j).
      const g = (-spikyC * e * e) / r;
      pairGradient[k] = g;
      const a = g * mj * invRho0i;
      gix += a * rx;
      giy += a * ry;
      giz += a * rz;
      squares += a * a * r2;
      const b = g * mi * inverseRestDensity[material[j]];
      const row = spillOrigin + j * stride;
      spill[row] += mi * w;
      spill[row + 1] -= b * rx;
      spill[row + 2] -= b * ry;
      spill[row + 3] -= b * rz;
      spill[row + 4] += b * b * r2;
    }
    density[i] = rho;
    gradientX[i] = gix;
    gradientY[i] = giy;
    gradientZ[i] = giz;
    gradientSquares[i] = squares;
  }
}

/** This and the earlier partitions' spills into this partition's particles, then each one's constraint and lambda (eq. 11). */
export function lambdaFinish(
  solver: KernelSolverArrays,
  materials: KernelMaterialArrays,
  _parameters: Float64Array,
  partition: number,
): void {
  const count = 16; // PARTITION_COUNT
  const stride = 6; // SPILL_STRIDE
  const bounds = solver.partitionBounds;
  const from = bounds[partition];
  const to = bounds[partition + 1];
  const { density, gradientX, gradientY, gradientZ, gradientSquares, spill, material, lambda, constraint } = solver;
  for (let p = 0; p <= partition; p++) {
    const spillEnd = bounds[count + 1 + p];
    const last = spillEnd < to ? spillEnd : to;
    const origin = (bounds[2 * count + 1 + p] - bounds[p]) * stride;
    for (let j = from; j < last; j++) {
      const row = origin + j * stride;
      density[j] += spill[row];
      gradientX[j] += spill[row + 1];
      gradientY[j] += spill[row + 2];
      gradientZ[j] += spill[row + 3];
      gradientSquares[j] += spill[row + 4];
    }
  }
  const inverseRestDensity = materials.inverseRestDensity;
  const relaxation = materials.relaxation;
  for (let i = from; i < to; i++) {
    const slot = material[i];
    const c = density[i] * inverseRestDensity[slot] - 1;
    constraint[i] = c;
    const gx = gradientX[i];
    const gy = gradientY[i];
    const gz = gradientZ[i];
    lambda[i] = c > 0 ? -c / (gradientSquares[i] + gx * gx + gy * gy + gz * gz + relaxation[slot]) : 0;
  }
}

/**
 * The position corrections of the partition's pairs (eq. 12-14, with the artificial pressure s_corr of
 * eq. 13 averaged over the two materials), from the kernel values `lambdaPairs` cached; mirrors
 * computeCorrections in density/cpu.ts.
 */
export function correctionPairs(
  solver: KernelSolverArrays,
  materials: KernelMaterialArrays,
  parameters: Float64Array,
  partition: number,
): void {
  const count = 16; // PARTITION_COUNT
  const stride = 6; // SPILL_STRIDE
  const bounds = solver.partitionBounds;
  const from = bounds[partition];
  const to = bounds[partition + 1];
  const spillEnd = bounds[count + 1 + partition];
  const spillBase = bounds[2 * count + 1 + partition];
  const coincidentOffset = parameters[5];
  const { predictedX, predictedY, predictedZ, mass, material, lambda, deltaX, deltaY, deltaZ, spill } = solver;
  const { neighbourStart, neighbours, wallGradientX, wallGradientY, wallGradientZ, pairGradient, pairWeight } = solver;
  const solved = solver.projectionSolved;
  const inverseRestDensity = materials.inverseRestDensity;
  const scorrScales = materials.artificialPressureScale;
  const scorrInverseWeights = materials.inverseArtificialPressureWeight;
  const scorrExponents = materials.artificialPressureExponent;
  const scorrRestPowers = materials.artificialPressureRestPower;
  // The walls push with the particle's own lambda (they carry no constraint of their own).
  for (let i = from; i < to; i++) {
    const wallScale = lambda[i] * mass[i] * inverseRestDensity[material[i]];
    deltaX[i] = wallScale * wallGradientX[i];
    deltaY[i] = wallScale * wallGradientY[i];
    deltaZ[i] = wallScale * wallGradientZ[i];
  }
  spill.fill(0, spillBase * stride, (spillBase + spillEnd - from) * stride);
  const spillOrigin = (spillBase - from) * stride;
  for (let i = from; i < to; i++) {
    const xi = predictedX[i];
    const yi = predictedY[i];
    const zi = predictedZ[i];
    const slotI = material[i];
    const invRho0i = inverseRestDensity[slotI];
    const mi = mass[i];
    const li = lambda[i];
    const scorrScale = scorrScales[slotI];
    const scorrInverseWeight = scorrInverseWeights[slotI];
    const scorrExponentFour = scorrExponents[slotI] === 4;
    const scorrRestPower = scorrRestPowers[slotI];
    let dx = deltaX[i];
    let dy = deltaY[i];
    let dz = deltaZ[i];
    const end = neighbourStart[i + 1];
    for (let k = neighbourStart[i]; k < end; k++) {
      const g = pairGradient[k];
      if (g === 0) continue;
      const j = neighbours[k];
      const slotJ = material[j];
      const weight = pairWeight[k];
      let scorr: number;
      if (slotJ === slotI && scorrExponentFour) {
        const ratio = weight * scorrInverseWeight;
        const ratio2 = ratio * ratio;
        // Without the still-water offset, eq. 13 in the order of the code before it (bit for bit).
        scorr =
          scorrRestPower === 0
            ? -scorrScale * ratio2 * ratio2
            : -scorrScale * Math.max(ratio2 * ratio2 - 0.5 * (solved[i] + solved[j]) * scorrRestPower, 0);
      } else {
        // eq. 13 for each material, averaged, with the pair's share of the rest offset (artificialPressure in
        // density/shared.ts): -k max((W / W(delta q))^n - share (W(2r) / W(delta q))^n, 0).
        const share = 0.5 * (solved[i] + solved[j]);
        let sum = 0;
        for (let side = 0; side < 2; side++) {
          const slot = side === 0 ? slotI : slotJ;
          const ratio = weight * scorrInverseWeights[slot];
          const exponent = scorrExponents[slot];
          let power: number;
          if (exponent === 4) {
            const ratio2 = ratio * ratio;
            power = ratio2 * ratio2;
          } else {
            power = ratio ** exponent;
          }
          sum += -scorrScales[slot] * Math.max(power - share * scorrRestPowers[slot], 0);
        }
        scorr = 0.5 * sum;
      }
      const f = (li + lambda[j] + scorr) * g;
      let rx = xi - predictedX[j];
      const ry = yi - predictedY[j];
      const rz = zi - predictedZ[j];
      if (rx === 0 && ry === 0 && rz === 0) rx = coincidentOffset;
      const a = f * mass[j] * invRho0i;
      dx += a * rx;
      dy += a * ry;
      dz += a * rz;
      const b = f * mi * inverseRestDensity[slotJ];
      const row = spillOrigin + j * stride;
      spill[row] -= b * rx;
      spill[row + 1] -= b * ry;
      spill[row + 2] -= b * rz;
    }
    deltaX[i] = dx;
    deltaY[i] = dy;
    deltaZ[i] = dz;
  }
}

/** This and the earlier partitions' spills of corrections into this partition's particles. */
export function correctionFinish(
  solver: KernelSolverArrays,
  _materials: KernelMaterialArrays,
  _parameters: Float64Array,
  partition: number,
): void {
  const count = 16; // PARTITION_COUNT
  const stride = 6; // SPILL_STRIDE
  const bounds = solver.partitionBounds;
  const from = bounds[partition];
  const to = bounds[partition + 1];
  const { deltaX, deltaY, deltaZ, spill } = solver;
  for (let p = 0; p <= partition; p++) {
    const spillEnd = bounds[count + 1 + p];
    const last = spillEnd < to ? spillEnd : to;
    const origin = (bounds[2 * count + 1 + p] - bounds[p]) * stride;
    for (let j = from; j < last; j++) {
      const row = origin + j * stride;
      deltaX[j] += spill[row];
      deltaY[j] += spill[row + 1];
      deltaZ[j] += spill[row + 2];
    }
  }
}

/**
 * The XSPH sum (eq. 17) and the vorticity (eq. 15) of the partition's pairs, from the same velocities,
 * into delta and vorticity, with the volumes m / rho the system computed before.
 */
export function viscosityPairs(
  solver: KernelSolverArrays,
  _materials: KernelMaterialArrays,
  parameters: Float64Array,
  partition: number,
): void {
  const count = 16; // PARTITION_COUNT
  const stride = 6; // SPILL_STRIDE
  const bounds = solver.partitionBounds;
  const from = bounds[partition];
  const to = bounds[partition + 1];
  const spillEnd = bounds[count + 1 + partition];
  const spillBase = bounds[2 * count + 1 + partition];
  const h = parameters[0];
  const hSquared = parameters[1];
  const poly6C = parameters[2];
  const spikyC = parameters[3];
  const { predictedX, predictedY, predictedZ, velocityX, velocityY, velocityZ, volume } = solver;
  const { deltaX, deltaY, deltaZ, vorticityX, vorticityY, vorticityZ, neighbourStart, neighbours, spill } = solver;
  for (let i = from; i < to; i++) {
    vorticityX[i] = 0;
    vorticityY[i] = 0;
    vorticityZ[i] = 0;
    deltaX[i] = 0;
    deltaY[i] = 0;
    deltaZ[i] = 0;
  }
  spill.fill(0, spillBase * stride, (spillBase + spillEnd - from) * stride);
  const spillOrigin = (spillBase - from) * stride;
  for (let i = from; i < to; i++) {
    const xi = predictedX[i];
    const yi = predictedY[i];
    const zi = predictedZ[i];
    const vxi = velocityX[i];
    const vyi = velocityY[i];
    const vzi = velocityZ[i];
    const volumeI = volume[i];
    let wx = vorticityX[i];
    let wy = vorticityY[i];
    let wz = vorticityZ[i];
    let ax = deltaX[i];
    let ay = deltaY[i];
    let az = deltaZ[i];
    const end = neighbourStart[i + 1];
    for (let k = neighbourStart[i]; k < end; k++) {
      const j = neighbours[k];
      const rx = xi - predictedX[j];
      const ry = yi - predictedY[j];
      const rz = zi - predictedZ[j];
      const r2 = rx * rx + ry * ry + rz * rz;
      if (r2 >= hSquared) continue;
      const volumeJ = volume[j];
      const ux = vxi - velocityX[j];
      const uy = vyi - velocityY[j];
      const uz = vzi - velocityZ[j];
      const d = hSquared - r2;
      const w = poly6C * d * d * d;
      // XSPH: a_i += V_j W (v_j - v_i), a_j += V_i W (v_i - v_j).
      ax -= volumeJ * w * ux;
      ay -= volumeJ * w * uy;
      az -= volumeJ * w * uz;
      let cx = 0;
      let cy = 0;
      let cz = 0;
      if (r2 > 0) {
        const r = Math.sqrt(r2);
        const e = h - r;
        const g = (-spikyC * e * e) / r;
        const gx = g * rx;
        const gy = g * ry;
        const gz = g * rz;
        cx = uy * gz - uz * gy;
        cy = uz * gx - ux * gz;
        cz = ux * gy - uy * gx;
        wx += volumeJ * cx;
        wy += volumeJ * cy;
        wz += volumeJ * cz;
      }
      const row = spillOrigin + j * stride;
      spill[row] += volumeI * w * ux;
      spill[row + 1] += volumeI * w * uy;
      spill[row + 2] += volumeI * w * uz;
      spill[row + 3] += volumeI * cx;
      spill[row + 4] += volumeI * cy;
      spill[row + 5] += volumeI * cz;
    }
    vorticityX[i] = wx;
    vorticityY[i] = wy;
    vorticityZ[i] = wz;
    deltaX[i] = ax;
    deltaY[i] = ay;
    deltaZ[i] = az;
  }
}

/**
 * This and the earlier partitions' XSPH and vorticity spills into this partition's particles (unless
 * `KernelParameter.spillsAdded`), then XSPH applied
 * (v += c sum, eq. 17) and each vorticity's length kept (in `lambda`, free after the density solve) for
 * the confinement.
 */
export function viscosityFinish(
  solver: KernelSolverArrays,
  materials: KernelMaterialArrays,
  parameters: Float64Array,
  partition: number,
): void {
  const count = 16; // PARTITION_COUNT
  const stride = 6; // SPILL_STRIDE
  const bounds = solver.partitionBounds;
  const from = bounds[partition];
  const to = bounds[partition + 1];
  const { deltaX, deltaY, deltaZ, vorticityX, vorticityY, vorticityZ, spill, velocityX, velocityY, velocityZ } = solver;
  for (let p = 0; p <= partition && parameters[13] === 0; p++) {
    const spillEnd = bounds[count + 1 + p];
    const last = spillEnd < to ? spillEnd : to;
    const origin = (bounds[2 * count + 1 + p] - bounds[p]) * stride;
    for (let j = from; j < last; j++) {
      const row = origin + j * stride;
      deltaX[j] += spill[row];
      deltaY[j] += spill[row + 1];
      deltaZ[j] += spill[row + 2];
      vorticityX[j] += spill[row + 3];
      vorticityY[j] += spill[row + 4];
      vorticityZ[j] += spill[row + 5];
    }
  }
  const viscosity = materials.viscosity;
  const material = solver.material;
  for (let i = from; i < to; i++) {
    const c = viscosity[material[i]];
    velocityX[i] += c * deltaX[i];
    velocityY[i] += c * deltaY[i];
    velocityZ[i] += c * deltaZ[i];
  }
  if (parameters[7] !== 0) {
    const magnitude = solver.lambda;
    for (let i = from; i < to; i++) {
      magnitude[i] = Math.sqrt(vorticityX[i] ** 2 + vorticityY[i] ** 2 + vorticityZ[i] ** 2);
    }
  }
}

/**
 * The gradient of the vorticity's length, eta = sum_j V_j (|omega_j| - |omega_i|) grad_i W_ij (eq. 16), of
 * the partition's pairs, into gradientX/Y/Z; mirrors the second pass of viscosityVorticitySystem.
 */
export function vorticityPairs(
  solver: KernelSolverArrays,
  _materials: KernelMaterialArrays,
  parameters: Float64Array,
  partition: number,
): void {
  const count = 16; // PARTITION_COUNT
  const stride = 6; // SPILL_STRIDE
  const bounds = solver.partitionBounds;
  const from = bounds[partition];
  const to = bounds[partition + 1];
  const spillEnd = bounds[count + 1 + partition];
  const spillBase = bounds[2 * count + 1 + partition];
  const h = parameters[0];
  const hSquared = parameters[1];
  const spikyC = parameters[3];
  const { predictedX, predictedY, predictedZ, volume, neighbourStart, neighbours, spill } = solver;
  const { gradientX: etaX, gradientY: etaY, gradientZ: etaZ, lambda: magnitude } = solver;
  for (let i = from; i < to; i++) {
    etaX[i] = 0;
    etaY[i] = 0;
    etaZ[i] = 0;
  }
  spill.fill(0, spillBase * stride, (spillBase + spillEnd - from) * stride);
  const spillOrigin = (spillBase - from) * stride;
  for (let i = from; i < to; i++) {
    const xi = predictedX[i];
    const yi = predictedY[i];
    const zi = predictedZ[i];
    const magnitudeI = magnitude[i];
    const volumeI = volume[i];
    let ex = etaX[i];
    let ey = etaY[i];
    let ez = etaZ[i];
    const end = neighbourStart[i + 1];
    for (let k = neighbourStart[i]; k < end; k++) {
      const j = neighbours[k];
      const rx = xi - predictedX[j];
      const ry = yi - predictedY[j];
      const rz = zi - predictedZ[j];
      const r2 = rx * rx + ry * ry + rz * rz;
      if (r2 >= hSquared || r2 === 0) continue;
      const r = Math.sqrt(r2);
      const e = h - r;
      const g = ((-spikyC * e * e) / r) * (magnitude[j] - magnitudeI);
      const a = g * volume[j];
      ex += a * rx;
      ey += a * ry;
      ez += a * rz;
      const b = g * volumeI;
      const row = spillOrigin + j * stride;
      spill[row] += b * rx;
      spill[row + 1] += b * ry;
      spill[row + 2] += b * rz;
    }
    etaX[i] = ex;
    etaY[i] = ey;
    etaZ[i] = ez;
  }
}

/**
 * This and the earlier partitions' eta spills (unless `KernelParameter.spillsAdded`), then the confinement force
 * f = epsilon (N x omega_i) (eq. 16) applied.
 */
export function vorticityFinish(
  solver: KernelSolverArrays,
  materials: KernelMaterialArrays,
  parameters: Float64Array,
  partition: number,
): void {
  const count = 16; // PARTITION_COUNT
  const stride = 6; // SPILL_STRIDE
  const bounds = solver.partitionBounds;
  const from = bounds[partition];
  const to = bounds[partition + 1];
  const { gradientX: etaX, gradientY: etaY, gradientZ: etaZ, spill, material } = solver;
  const { vorticityX, vorticityY, vorticityZ, velocityX, velocityY, velocityZ } = solver;
  for (let p = 0; p <= partition && parameters[13] === 0; p++) {
    const spillEnd = bounds[count + 1 + p];
    const last = spillEnd < to ? spillEnd : to;
    const origin = (bounds[2 * count + 1 + p] - bounds[p]) * stride;
    for (let j = from; j < last; j++) {
      const row = origin + j * stride;
      etaX[j] += spill[row];
      etaY[j] += spill[row + 1];
      etaZ[j] += spill[row + 2];
    }
  }
  const dt = parameters[6];
  const strength = materials.vorticity;
  for (let i = from; i < to; i++) {
    const epsilon = strength[material[i]];
    const ex = etaX[i];
    const ey = etaY[i];
    const ez = etaZ[i];
    const etaLength = Math.sqrt(ex * ex + ey * ey + ez * ez);
    if (epsilon === 0 || etaLength < 1e-9) continue;
    const nx = ex / etaLength;
    const ny = ey / etaLength;
    const nz = ez / etaLength;
    const wxi = vorticityX[i];
    const wyi = vorticityY[i];
    const wzi = vorticityZ[i];
    velocityX[i] += dt * epsilon * (ny * wzi - nz * wyi);
    velocityY[i] += dt * epsilon * (nz * wxi - nx * wzi);
    velocityZ[i] += dt * epsilon * (nx * wyi - ny * wxi);
  }
}

/**
 * The half neighbour lists of the partition's particles (dense cell numbering; mirrors the dense mode of
 * neighbours/cpu.ts): each particle's neighbours j > i within h, from its own cell and the 13 cells after
 * it, written from the partition's region of `neighbours` (the array cut into PARTITION_COUNT equal
 * regions; the lists are made contiguous afterwards, `joinNeighbourLists`). `neighbourStart[i]` is the
 * list's start within the region; the region's end goes to the partition table, -1 when it did not fit.
 */
export function neighbourPairs(
  solver: KernelSolverArrays,
  _materials: KernelMaterialArrays,
  parameters: Float64Array,
  partition: number,
): void {
  const count = 16; // PARTITION_COUNT
  const bounds = solver.partitionBounds;
  const from = bounds[partition];
  const to = bounds[partition + 1];
  const hSquared = parameters[1];
  const r0 = parameters[8];
  const r1 = parameters[9];
  const r2 = parameters[10];
  const r3 = parameters[11];
  const r4 = parameters[12];
  const { predictedX, predictedY, predictedZ, neighbourStart, neighbours, cellHash, bucketStart } = solver;
  const regionEnd = Math.floor(((partition + 1) * neighbours.length) / count);
  let total = Math.floor((partition * neighbours.length) / count);
  for (let i = from; i < to; i++) {
    const cell = cellHash[i];
    neighbourStart[i] = total;
    const xi = predictedX[i];
    const yi = predictedY[i];
    const zi = predictedZ[i];
    for (let r = -1; r < 5; r++) {
      let first: number;
      let last: number;
      if (r < 0) {
        first = i + 1;
        last = bucketStart[cell + 1];
      } else {
        const row = cell + (r === 0 ? r0 : r === 1 ? r1 : r === 2 ? r2 : r === 3 ? r3 : r4);
        first = bucketStart[row];
        last = bucketStart[row + (r === 0 ? 1 : 3)];
      }
      for (let j = first; j < last; j++) {
        const rx = xi - predictedX[j];
        const ry = yi - predictedY[j];
        const rz = zi - predictedZ[j];
        if (rx * rx + ry * ry + rz * rz < hSquared) {
          // The region is full: the lists need a longer array.
          if (total === regionEnd) {
            bounds[3 * count + 1 + partition] = -1;
            return;
          }
          neighbours[total++] = j;
        }
      }
    }
  }
  bounds[3 * count + 1 + partition] = total;
}

/** Every partition kernel, by its index in the threads' job word. */
export const PARALLEL_KERNELS: readonly PartitionKernel[] = [
  lambdaPairs,
  lambdaFinish,
  correctionPairs,
  correctionFinish,
  viscosityPairs,
  viscosityFinish,
  vorticityPairs,
  vorticityFinish,
  neighbourPairs,
];

/** Index of each kernel in `PARALLEL_KERNELS`. */
export const Kernel = {
  lambdaPairs: 0,
  lambdaFinish: 1,
  correctionPairs: 2,
  correctionFinish: 3,
  viscosityPairs: 4,
  viscosityFinish: 5,
  vorticityPairs: 6,
  vorticityFinish: 7,
  neighbourPairs: 8,
} as const;
