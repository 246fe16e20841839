/**
 * The MPS walls' data (walls.ts computes the terms): the ghost sums behind a flat wall tabulated over the
 * distance, and the per-particle wall terms with their coupling lists, allocated without a simulation context
 * so that the MPS state (state.ts) can be held by the context.
 */
import { WALL_WEIGHT_SAMPLES } from '../../core/kernels';

/** MPS weight r_e / r - 1 (distance floored at 0.1 r_e); see `mpsWeight` in cpu.ts. */
function weight(r: number, re: number): number {
  if (r >= re) return 0;
  const floor = 0.1 * re;
  return re / (r > floor ? r : floor) - 1;
}

/** Ghost sums behind a flat wall, tabulated at `WALL_WEIGHT_SAMPLES + 1` distances over [0, r_e]. */
export interface MpsWallTables {
  /** Z(d): ghost number density (dimensionless). */
  readonly numberDensity: Float64Array;
  /** s(d): sum w depth / |x|^2 (1/m). */
  readonly firstMoment: Float64Array;
  /** a(d): sum w depth^2 / |x|^2 (dimensionless). */
  readonly normalMoment: Float64Array;
  /** b(d): sum w lateral_x^2 / |x|^2, the same along any tangent (dimensionless). */
  readonly tangentialMoment: Float64Array;
  /** m(d): sum w depth (m). */
  readonly depthSum: Float64Array;
}

/** Tabulates the ghost sums for particle radius r (m) and interaction radius r_e (m). */
export function mpsWallTables(particleRadius: number, re: number): MpsWallTables {
  const spacing = 2 * particleRadius;
  const size = WALL_WEIGHT_SAMPLES + 1;
  const numberDensity = new Float64Array(size);
  const firstMoment = new Float64Array(size);
  const normalMoment = new Float64Array(size);
  const tangentialMoment = new Float64Array(size);
  const depthSum = new Float64Array(size);
  const lateral = Math.ceil(re / spacing) + 1;
  const offsets = 4;
  const average = 1 / (offsets * offsets);
  for (let sample = 0; sample < size; sample++) {
    const d = (sample / WALL_WEIGHT_SAMPLES) * re;
    let z = 0;
    let s = 0;
    let a = 0;
    let b = 0;
    let m = 0;
    for (let oa = 0; oa < offsets; oa++) {
      for (let ob = 0; ob < offsets; ob++) {
        const shiftA = (oa / offsets) * spacing;
        const shiftB = (ob / offsets) * spacing;
        for (let layer = 0; d + particleRadius + layer * spacing < re; layer++) {
          const depth = d + particleRadius + layer * spacing;
          for (let ia = -lateral; ia <= lateral; ia++) {
            for (let ib = -lateral; ib <= lateral; ib++) {
              const x = ia * spacing + shiftA;
              const y = ib * spacing + shiftB;
              const r2 = depth * depth + x * x + y * y;
              const w = weight(Math.sqrt(r2), re);
              if (w === 0) continue;
              z += w;
              s += (w * depth) / r2;
              a += (w * depth * depth) / r2;
              b += (0.5 * w * (x * x + y * y)) / r2;
              m += w * depth;
            }
          }
        }
      }
    }
    numberDensity[sample] = z * average;
    firstMoment[sample] = s * average;
    normalMoment[sample] = a * average;
    tangentialMoment[sample] = b * average;
    depthSum[sample] = m * average;
  }
  return { numberDensity, firstMoment, normalMoment, tangentialMoment, depthSum };
}

/** Per-particle ghost sums, summed over the walls within r_e (arrays indexed by place). */
export interface MpsWallTerms {
  /** Ghost number density Z (dimensionless). */
  readonly numberDensity: Float64Array;
  /** sum_g w (x_g - x_i) / |x_g - x_i|^2 (1/m), per axis. */
  readonly firstMomentX: Float64Array;
  readonly firstMomentY: Float64Array;
  readonly firstMomentZ: Float64Array;
  /** sum_g w (g . (x_g - x_i)) (x_g - x_i) / |x_g - x_i|^2 (m/s^2), per axis: the hydrostatic gradient sum / rho. */
  readonly hydrostaticX: Float64Array;
  readonly hydrostaticY: Float64Array;
  readonly hydrostaticZ: Float64Array;
  /** sum_g w g . (x_g - x_i) (m^2/s^2): the ghosts' Laplacian sum / rho. */
  readonly hydrostaticLaplacian: Float64Array;
  /** The coupled colliders' shares of the gradient sums, recorded by the `full` pass. */
  readonly coupling: MpsCouplingList;
}

/**
 * What each wall of a coupled collider (`BodyCoupling.coupled` 1) added to a particle's gradient sums in
 * the last `full` pass of {@link computeMpsWallTerms}: entry k is particle place `particle[k]`, collider
 * slot `slot[k]`, and six numbers at `moments[6k]`: its first moment (1/m, as `firstMomentX..Z`) and its
 * hydrostatic sum (m/s^2, as `hydrostaticX..Z`). A container box records one entry per face.
 */
export interface MpsCouplingList {
  /** Entries in use. */
  count: number;
  /** Particle place per entry. */
  particle: Int32Array;
  /** Collider slot per entry. */
  slot: Int32Array;
  /** First moment (x, y, z) then hydrostatic sum (x, y, z) per entry. */
  moments: Float64Array;
}

/** Appends an entry to `list` (growing its arrays when full) and returns its index. */
export function addCouplingEntry(list: MpsCouplingList, i: number, slot: number): number {
  if (list.count === list.particle.length) {
    const size = 2 * list.particle.length;
    const particle = new Int32Array(size);
    particle.set(list.particle);
    const slots = new Int32Array(size);
    slots.set(list.slot);
    const moments = new Float64Array(6 * size);
    moments.set(list.moments);
    list.particle = particle;
    list.slot = slots;
    list.moments = moments;
  }
  const k = list.count++;
  list.particle[k] = i;
  list.slot[k] = slot;
  return k;
}

/** Allocates the per-particle ghost sums for `capacity` particles. */
export function createMpsWallTerms(capacity: number): MpsWallTerms {
  const f = () => new Float64Array(capacity);
  return {
    numberDensity: f(),
    firstMomentX: f(),
    firstMomentY: f(),
    firstMomentZ: f(),
    hydrostaticX: f(),
    hydrostaticY: f(),
    hydrostaticZ: f(),
    hydrostaticLaplacian: f(),
    coupling: {
      count: 0,
      particle: new Int32Array(256),
      slot: new Int32Array(256),
      moments: new Float64Array(6 * 256),
    },
  };
}
