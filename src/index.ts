/**
 * babylon-ecs-fluids: Position Based Fluids for Babylon.js games, with particles as bitecs entities.
 * @packageDocumentation
 */
export * from './components';
export type { FluidStats } from './systems/context';
export { FluidCapacityError, FluidError } from './systems/errors';
export { poly6, spiky, spikyGradient } from './systems/kernels';
export type { FluidMaterialOptions } from './systems/material';
export * from './systems/simulation';
export type { QuaternionTuple, Vector3Tuple } from './systems/validate';
