/**
 * The particle data the surface reconstruction reads: compact arrays of positions and particle volumes
 * m_j / rho_j (the weights of the color field, eq. 15 of Müller et al. 2003), gathered from the
 * simulation's components into buffers that only grow, so a frame allocates nothing in the steady state.
 */
import { FluidError } from '../../core/errors';
import type { FluidSimulation } from '../simulation';

/** Compact per-particle arrays: entries `0 .. count - 1` are read. */
export interface SurfaceParticleArrays {
  /** Number of particles to read. */
  readonly count: number;
  /** x of each particle (m, world space). */
  readonly x: Float64Array;
  /** y of each particle (m, world space). */
  readonly y: Float64Array;
  /** z of each particle (m, world space). */
  readonly z: Float64Array;
  /** Volume of each particle, m_j / rho_j (m^3, > 0): its weight in the color field. */
  readonly volume: Float64Array;
}

/** Grow-only {@link SurfaceParticleArrays} plus the entity id of each entry (when gathered from a simulation). */
export class SurfaceParticleBuffer implements SurfaceParticleArrays {
  /** Number of particles written. */
  count = 0;
  /** x of each particle (m). */
  x = new Float64Array(0);
  /** y of each particle (m). */
  y = new Float64Array(0);
  /** z of each particle (m). */
  z = new Float64Array(0);
  /** m_j / rho_j of each particle (m^3). */
  volume = new Float64Array(0);
  /** Entity id of each particle (written by {@link gatherSurfaceParticles}; 0 otherwise). */
  ids = new Uint32Array(0);

  /** Makes room for `count` particles (keeps nothing when it grows) and sets `count`. */
  resize(count: number): void {
    if (!Number.isInteger(count) || count < 0) {
      throw new FluidError(`count is ${String(count)}; it must be an integer >= 0`);
    }
    if (count > this.x.length) {
      const size = Math.max(count, 2 * this.x.length, 64);
      this.x = new Float64Array(size);
      this.y = new Float64Array(size);
      this.z = new Float64Array(size);
      this.volume = new Float64Array(size);
      this.ids = new Uint32Array(size);
    }
    this.count = count;
  }
}

/**
 * Copies the live particles of `simulation` into `out`: positions from the `Position` components and
 * volumes m_j / rho_j from the material's particle mass and the `Density` component (the material's rest
 * density where the density is not yet known, before the first step). On the WebGPU backend these are
 * the mirrored components (as of the last readback). Allocates only when `out` grows.
 */
export function gatherSurfaceParticles(simulation: FluidSimulation, out: SurfaceParticleBuffer): SurfaceParticleBuffer {
  const count = simulation.particleCount;
  out.resize(count);
  const ids = simulation.particles(out.ids);
  const { Position, Density, Particle, FluidMaterial } = simulation.components;
  const { x, y, z } = Position;
  for (let k = 0; k < count; k++) {
    const eid = ids[k];
    const material = Particle.material[eid];
    const mass = FluidMaterial.particleMass[material];
    const density = Density[eid];
    const restDensity = FluidMaterial.restDensity[material];
    out.x[k] = x[eid];
    out.y[k] = y[eid];
    out.z[k] = z[eid];
    out.volume[k] = mass / (density > 0 && Number.isFinite(density) ? density : restDensity);
  }
  return out;
}
