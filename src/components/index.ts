/**
 * Components: data only. bitecs 0.4 stores (typed arrays indexed by entity id) and their defaults.
 */
import { type ColliderStore, createColliderStore } from './collider';
import { createFluidMaterialStore, type FluidMaterialStore } from './material';
import { createParticleComponents, type ParticleComponents } from './particle';

export * from './collider';
export * from './material';
export * from './particle';
export * from './settings';

/** Every component store of one simulation, as registered in its bitecs world. */
export interface FluidComponents extends ParticleComponents {
  /** Fluid material parameters, indexed by material entity id. */
  readonly FluidMaterial: FluidMaterialStore;
  /** Analytic colliders, indexed by collider entity id. */
  readonly Collider: ColliderStore;
}

/** Allocates every store for entity ids `0 .. size - 1`. */
export function createFluidComponents(size: number): FluidComponents {
  return {
    ...createParticleComponents(size),
    FluidMaterial: createFluidMaterialStore(size),
    Collider: createColliderStore(size),
  };
}
