/**
 * Components: data only. bitecs 0.4 stores (typed arrays indexed by entity id) and their defaults.
 */
import { type BodyCouplingStore, createBodyCouplingStore } from './bodyCoupling';
import { type ColliderStore, createColliderStore } from './collider';
import { createDrainStore, createEmitterStore, type DrainStore, type EmitterStore } from './emitter';
import { createFluidMaterialStore, type FluidMaterialStore } from './material';
import { createParticleComponents, type ParticleComponents } from './particle';

export * from './bodyCoupling';
export * from './collider';
export * from './emitter';
export * from './material';
export * from './particle';
export * from './settings';

/** Every component store of one simulation, as registered in its bitecs world. */
export interface FluidComponents extends ParticleComponents {
  /** Fluid material parameters, indexed by material entity id. */
  readonly FluidMaterial: FluidMaterialStore;
  /** Colliders (analytic shapes and mesh fields), indexed by collider entity id. */
  readonly Collider: ColliderStore;
  /** Two-way coupling of colliders with rigid bodies (the fluid's impulses), indexed by collider entity id. */
  readonly BodyCoupling: BodyCouplingStore;
  /** Nozzle emitters, indexed by emitter entity id. */
  readonly Emitter: EmitterStore;
  /** Drain regions, indexed by drain entity id. */
  readonly Drain: DrainStore;
}

/** Allocates every store for entity ids `0 .. size - 1`. */
export function createFluidComponents(size: number): FluidComponents {
  return {
    ...createParticleComponents(size),
    FluidMaterial: createFluidMaterialStore(size),
    Collider: createColliderStore(size),
    BodyCoupling: createBodyCouplingStore(size),
    Emitter: createEmitterStore(size),
    Drain: createDrainStore(size),
  };
}
