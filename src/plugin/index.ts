/**
 * The Babylon.js adapter: {@link FluidPlugin} and the types of its options and views.
 * @packageDocumentation
 */

export type { ColorMapRanges, FluidColorBy } from './colorMaps';
export { FluidDebugPane, type FluidDebugPaneCorner, type FluidDebugPaneOptions } from './debugPane';
export type { FluidWhiteWaterLook, ResolvedWhiteWaterLook } from './diffuseView';
export { FluidPlugin } from './fluidPlugin';
export type { MeshFieldOptions } from './meshCollider';
export type {
  FluidPluginOptions,
  PluginEmitterOptions,
  PluginMeshColliderOptions,
  PluginRigidBodyOptions,
} from './options';
export type { GpuParticleColors } from './particleColors';
export type { ParticleBuffers } from './particleFeed';
export { type FluidLookOptions, type FluidRenderMode, supportsFluidRenderer } from './renderers';
export type { RigidBodyLike } from './rigidBodies';
export { type FluidSurfaceOptions, SplatView, SurfaceMeshView } from './surfaceRenderer';
