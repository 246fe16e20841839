/**
 * babylon-ecs-fluids: Position Based Fluids for Babylon.js games, with particles as bitecs entities.
 * @packageDocumentation
 */
export * from './components';
export type {
  Color3Input,
  Color3Like,
  Color4Like,
  QuaternionInput,
  QuaternionLike,
  QuaternionTuple,
  Vector3Input,
  Vector3Like,
  Vector3Tuple,
} from './core/checks';
export { FluidCapacityError, FluidError } from './core/errors';
export { poly6, spiky, spikyGradient } from './core/kernels';
export { SOLVERS } from './core/schema';
export * from './plugin';
export type { FluidStats } from './systems/context';
export type { DiffuseOptions } from './systems/diffuse/settings';
export { DiffuseKind, type DiffuseKindValue, type DiffuseParticles } from './systems/diffuse/state';
export { type AnisotropyOptions, ELLIPSOID_FLOATS } from './systems/ellipsoids/settings';
export type { GpuReadback, WebGpuSolver } from './systems/gpu/backend';
export type { FluidMaterialOptions } from './systems/material';
export { MPS_DEFAULTS, type MpsSettings } from './systems/mps/settings';
export { airGenerationLimit } from './systems/multifluid/air';
export type * from './systems/options';
export type { MirrorMode } from './systems/options';
export {
  type AsyncBakeOptions,
  type BakeOptions,
  bakeSignedDistanceField,
  bakeSignedDistanceFieldAsync,
  type TriangleMesh,
} from './systems/sdf/bake';
export { FIELD_NODE_STRIDE, SignedDistanceField, type SignedDistanceFieldData } from './systems/sdf/field';
export {
  createBoxMesh,
  createGlassMesh,
  createSphereMesh,
  createTorusMesh,
  type GlassMeshOptions,
} from './systems/sdf/shapes';
export * from './systems/simulation';
export { type FromSnapshotOptions, SNAPSHOT_CAPACITY_FLOOR, SNAPSHOT_FORMAT_VERSION } from './systems/snapshot/format';
export type { SphOptions } from './systems/sph/settings';
export {
  DEFAULT_CELL_SIZE_FACTOR,
  DEFAULT_ISO_LEVEL,
  type SurfaceExtractionOptions,
} from './systems/surface/extractionOptions';
export { fitSurfaceToColliders } from './systems/surface/fit';
export { type LevelSetOptions, LevelSetSmoother, type SparseBrickGrid } from './systems/surface/levelSet';
export { SurfaceExtractor, type SurfaceMesh } from './systems/surface/marchingCubes';
export {
  gatherSurfaceParticles,
  type SurfaceParticleArrays,
  SurfaceParticleBuffer,
} from './systems/surface/particles';
export {
  DEFAULT_SURFACE_THRESHOLD,
  SurfaceParticleDetector,
  type SurfaceParticleOptions,
} from './systems/surface/surfaceParticles';
