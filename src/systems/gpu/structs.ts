/**
 * The structs the WebGPU backend shares between WGSL and TypeScript, each defined once (see `layout.ts`),
 * and the per-particle buffers every pass may bind. The WGSL preamble of every pass is generated here: the
 * structs, the constants (workgroup size, table sizes) and the bindings the pass uses.
 */
import { ColliderShape, DrainShape } from '../../components';
import { WALL_WEIGHT_SAMPLES } from '../../core/kernels';
import { EXTRA_PROJECTIONS, MAXIMUM_MARCH_STEPS } from '../collide/constants';
import { PENDING_PUSHES } from '../couple/state';
import {
  DIFFUSE_ALONG_NORMAL,
  DIFFUSE_FADE_TIME,
  DIFFUSE_MOST_PER_PARTICLE,
  DIFFUSE_SURFACE_OFFSET,
} from '../diffuse/state';
import {
  BODY_SURFACE_REACH,
  CellType,
  FaceKind,
  FLUID_CELL_FILL,
  GRID_MARGIN,
  NO_DENSITY_ERROR,
  THIN_WALL_NORMAL,
} from '../projection/state';
import { arrayOf, defineStruct, type StructLayout } from './layout';

/**
 * The `airEvents` buffer (multifluid/airFields.wgsl): the word indices of its counters (candidates appended,
 * never past the room; air particles deleted; particles boiled, counting past its cap, of which the CPU reads
 * min(counter, cap)) and the words before the boiled (entity, vapour slot) pairs.
 */
export const AIR_EVENTS = { candidates: 0, deleted: 1, boiled: 2, header: 4 } as const;

/** Threads per workgroup of every per-particle pass (one define, used by the WGSL and the dispatch sizes). */
export const WORKGROUP_SIZE = 256;
/** Threads per workgroup of the prefix scan; each thread scans `SCAN_ELEMENTS` entries. */
export const SCAN_WORKGROUP_SIZE = 64;
/**
 * The longest bucket the sort ranks one thread per particle (`rankParticles`, neighbours/sort.wgsl; a count
 * per particle costs the bucket's length squared); a longer one goes on the `longBuckets` list, which
 * `rankBuckets` sorts.
 */
export const SHORT_BUCKET = 64;
/**
 * Entries per scan thread: blocks of 2,048 entries keep the scan at two levels (three passes) up to a table of
 * 2^21 buckets, a capacity of 1,048,576 particles (16 took two more passes from 262,145; at most 512 particles the scan is one pass).
 */
export const SCAN_ELEMENTS = 32;
/** Entries one scan workgroup covers. */
export const SCAN_BLOCK = SCAN_WORKGROUP_SIZE * SCAN_ELEMENTS;
/** vec4s of the wall weight table (its `WALL_WEIGHT_SAMPLES + 1` values, padded). */
export const WALL_TABLE_VECTORS = Math.ceil((WALL_WEIGHT_SAMPLES + 1) / 4);
/**
 * The blocks of the `mps` buffer (mps/*.wgsl), `capacity` vec4s each, entry `block * capacity + place`: the
 * conjugate gradients' (x, r, z, 0); the two direction slots (d, A d, 0, 0), the current one chosen by
 * `MpsSolve.parity`, the first of which holds (p, p^ the smallest pressure of the particle and its neighbours,
 * 0, 0) after the solve; and the source block: (n at the start of the substep, n*, the walls' hydrostatic
 * Laplacian sum, 0) after the density passes, (diagonal, 0, b, warm start x0) after the assembly, the diagonal
 * 0 on the free surface (Dirichlet, no unknown). Each pass writes whole vec4s of its own particle in blocks no
 * neighbour reads in that pass. WGSL constants `MPS_SOLUTION`, `MPS_DIRECTION`, `MPS_SOURCE`.
 */
export const MPS_BLOCKS = { solution: 0, direction: 1, source: 3, count: 4 } as const;
/** vec4s of the MPS wall table: two per sample of its `WALL_WEIGHT_SAMPLES + 1` distances. */
export const MPS_WALL_TABLE_VECTORS = 2 * (WALL_WEIGHT_SAMPLES + 1);

/**
 * Reference temperature T_ref (K) of the WebGPU backend's `attributes` buffer, whose x holds T - T_ref in
 * float32: near 300 K an absolute float32 temperature has a resolution of 3e-5 K, coarser than the change
 * per diffusion part of a water-like diffusivity (1e-6 m^2/s), which would then stop diffusing; stored
 * relative to 293.15 K the resolution is about 1e-6 K or finer within tens of kelvin of it. Converted at
 * upload (gpu/backend.ts, `writeRecord`) and readback (gpu/systems.ts, `applyReadback`, in float64); the
 * passes that need the absolute temperature add it back (WGSL constant `TEMPERATURE_REFERENCE`, generated
 * from this value by `passSource`).
 */
export const TEMPERATURE_REFERENCE = 293.15;

/**
 * `ParticleRecord.info.material` of an edit record that leaves the particle's material on the GPU as it is
 * (game code did not change `Particle.material` since the GPU last had it; the GPU may have boiled the
 * particle since, which the CPU learns only at a readback). WGSL constant `KEEP_MATERIAL`, generated from
 * this value by `passSource`; `position.w` of such a record holds the material slot the CPU knew.
 */
export const KEEP_MATERIAL = 0xffffffff;

/**
 * The length word of a neighbour list whose particle has more neighbours within h than the list holds
 * (neighbours/lists.wgsl): the gathering passes then visit the 27 cells for it (neighbourLoop.wgsl). WGSL
 * constant `NEIGHBOUR_OVERFLOW`, generated from this value by `passSource`.
 */
export const NEIGHBOUR_OVERFLOW = 0xffffffff;

/** World-wide parameters of one step, written once before the step's dispatches. */
export const Params = defineStruct('Params', [
  ['gravity', 'vec4<f32>'],
  ['kernelRadius', 'f32'],
  ['kernelRadiusSquared', 'f32'],
  ['inverseKernelRadius', 'f32'],
  ['particleRadius', 'f32'],
  ['poly6', 'f32'],
  ['spiky', 'f32'],
  ['selfWeight', 'f32'],
  ['coincidentOffset', 'f32'],
  ['timeStep', 'f32'],
  ['inverseTimeStep', 'f32'],
  ['frameTimeStep', 'f32'],
  ['maxSpeed', 'f32'],
  ['restingSpeed', 'f32'],
  ['wallSamplesPerMetre', 'f32'],
  ['fullNeighbourhood', 'f32'],
  ['materialCount', 'u32'],
  ['colliderCount', 'u32'],
  ['drainCount', 'u32'],
  ['tableMask', 'u32'],
  ['deadBucket', 'u32'],
  // The neighbour lists in the `buckets` buffer (neighbours/lists.wgsl): the word where they start (after the
  // bucket starts) and the words per particle (its length, then its neighbours; see `neighbourListStride`).
  ['neighbourListBase', 'u32'],
  ['neighbourStride', 'u32'],
  ['appendCount', 'u32'],
  ['editCount', 'u32'],
  ['substeps', 'u32'],
  ['anyVorticity', 'u32'],
  // Body coupling (see `BodyImpulseAccumulator`): quanta per N s and per N m s, coupled colliders, and the
  // first place of the coupled colliders' wall-gradient shares in the wall buffer.
  ['inverseImpulseQuantum', 'f32'],
  ['inverseAngularImpulseQuantum', 'f32'],
  ['coupledCount', 'u32'],
  ['wallShareOffset', 'u32'],
  // WCSPH (`solver: 'sph'`, see sph/cpu.ts): 1 when the step runs the WCSPH passes (predict then only sorts
  // the current positions), the stiffness k = c_s^2 (m^2/s^2), 1 for the number-density estimate
  // (`features.numberDensity`; sph/density.wgsl), sigma (N/m), the surface threshold l (1/m), the pressure
  // force's spiky-gradient coefficient normalised on the rest lattice (see sph/cpu.ts), and the
  // viscosity-Laplacian and poly6-gradient coefficients (see kernels.ts). The viscosity mu is per material
  // (`Material.dynamicViscosity`).
  ['sphMode', 'u32'],
  ['sphStiffness', 'f32'],
  ['sphNumberDensity', 'u32'],
  ['sphSurfaceTension', 'f32'],
  ['sphSurfaceThreshold', 'f32'],
  ['sphPressureGradient', 'f32'],
  ['viscosityLaplacian', 'f32'],
  ['poly6Gradient', 'f32'],
  // Fluid-fluid interaction (Müller et al. 2005, see multifluid/interaction.ts): the tension threshold
  // TENSION_NORMAL_THRESHOLD / h (1/m), the explicit diffusion's stability bound (dimensionless), its most
  // parts per substep on the CPU, and the parts recorded per substep on the GPU (see `diffusionSlots` in
  // gpu/scene.ts).
  ['tensionThreshold', 'f32'],
  ['diffusionStability', 'f32'],
  ['maxDiffusionParts', 'u32'],
  ['diffusionSlots', 'u32'],
  // Trapped air and boiling (Müller et al. 2005, sections 3.4 and 4.4; multifluid/airFields.wgsl): the
  // volume 1 / kernelSum the color fields weight every particle with (m^3), the lattice spacing 2r (m),
  // the most air particles one step generates (airGenerationLimit), the capacity, the cosine of the
  // free-surface exit cone, and the step's index for the boiling draws' hash.
  ['airVolume', 'f32'],
  ['airSpacing', 'f32'],
  ['airGenerationLimit', 'u32'],
  ['capacity', 'u32'],
  ['airSurfaceExitCosine', 'f32'],
  ['airStep', 'u32'],
  // 1 when the step may propose air (section 3.4.1): every earlier step's candidates were read back and
  // created; 0 while some wait (a lagging readback), so the same particles do not propose twice.
  ['airGenerationOpen', 'u32'],
  // The PBF solver's coarse projection (projection/*.wgsl; see `FluidSettings.projection*`): the most cells
  // of its grid, the conjugate gradients' most iterations and tolerance, the density relaxation as
  // beta H / dt (m/s), the rest volume of a full cell's particles (m^3, `ProjectionState.fullVolume`) and the
  // mass below which a face is closed (kg, `closedFaceMass`).
  ['projectionMaxCells', 'u32'],
  ['projectionMaxIterations', 'u32'],
  ['projectionTolerance', 'f32'],
  ['projectionRelaxation', 'f32'],
  ['projectionFullVolume', 'f32'],
  ['projectionClosedMass', 'f32'],
  // White water (diffuse/diffuse.wgsl; see `FluidSettings.diffuse*`): the pool's capacity, the neighbour counts
  // that classify spray and bubbles, and the step count that seeds the generation's random numbers.
  ['diffuseCapacity', 'u32'],
  ['diffuseSprayNeighbours', 'u32'],
  ['diffuseBubbleNeighbours', 'u32'],
  ['diffuseStep', 'u32'],
  // MPS (`solver: 'mps'`, mps/*.wgsl mirroring mps/cpu.ts; the values come from `writeMpsParameters`, mps/gpu.ts):
  // 1 when the step runs the MPS passes (the collide pass then applies the drift unclamped), the rest number
  // density n0, the explicit viscosity's scale dt min(nu, stable nu) 2d / (lambda n0), the particle collisions'
  // squared distance (m^2) and 1 + e, the free-surface threshold beta n0, the operator scale lambda / (2d dt^2)
  // (1/s^2), the source relaxation gamma, the compressibility term's scale operatorScale n0 alpha (1/(Pa s^2)
  // per kg/m^3), the conjugate gradients' relative tolerance and most iterations, the gradient's d / n0 and the
  // weight's smallest distance (m). The wall sums' table is the scene's `mpsWallTable`.
  ['mpsMode', 'u32'],
  ['mpsRestNumberDensity', 'f32'],
  ['mpsViscosityScale', 'f32'],
  ['mpsCollisionLimitSquared', 'f32'],
  ['mpsCollisionFactor', 'f32'],
  ['mpsSurfaceThreshold', 'f32'],
  ['mpsOperatorScale', 'f32'],
  ['mpsRelaxation', 'f32'],
  ['mpsCompressibilityScale', 'f32'],
  ['mpsTolerance', 'f32'],
  ['mpsMaxIterations', 'u32'],
  ['mpsGradientScale', 'f32'],
  ['mpsMinimumDistance', 'f32'],
]);

/** Per-material solver values (see `MaterialTable`). */
export const Material = defineStruct('Material', [
  ['inverseRestDensity', 'f32'],
  ['mass', 'f32'],
  ['viscosity', 'f32'],
  ['vorticity', 'f32'],
  ['relaxation', 'f32'],
  ['artificialPressureScale', 'f32'],
  ['artificialPressureExponent', 'f32'],
  ['inverseArtificialPressureWeight', 'f32'],
  ['artificialPressureRestPower', 'f32'],
  // Fluid-fluid interaction (Müller et al. 2005; see the `FluidMaterial` component): interface color c^i
  // and surface color c^s (dimensionless), interface and surface tension sigma (N/m, eq. 11-12), thermal
  // and color diffusivity (m^2/s, eq. 14) and the temperature-dependent rest density's alpha (kg K/m^3,
  // eq. 16; 0: the rest density is fixed).
  ['interfaceColor', 'f32'],
  ['surfaceColor', 'f32'],
  ['interfaceTension', 'f32'],
  ['surfaceTension', 'f32'],
  ['diffusivity', 'f32'],
  ['colorDiffusivity', 'f32'],
  ['temperatureDensity', 'f32'],
  // WCSPH dynamic viscosity mu (Pa s; `MaterialTable.dynamicViscosity`), the pair's mean in sph/forces.wgsl.
  ['dynamicViscosity', 'f32'],
  // Render color (red, green, blue in 0..1; the `FluidMaterial` component's `color`), for the views'
  // per-particle colors (plugin/particleColors.wgsl).
  ['colorRed', 'f32'],
  ['colorGreen', 'f32'],
  ['colorBlue', 'f32'],
  // Trapped air and boiling (sections 3.4, 4.4; see the `FluidMaterial` fields of the same names): the
  // slot of `airMaterial` (-1: none), 1 when this material is some material's air material, the
  // generation threshold t_p h and distance d (spacings), the boiling temperature (K) and probability per
  // step, the artificial buoyancy b (eq. 17), the deletion thresholds t_s h, t_b h and the isolated
  // fraction, and the rest density (kg/m^3) eq. 17 compares with.
  ['airMaterial', 'i32'],
  ['isAirMaterial', 'u32'],
  ['airGenerationThreshold', 'f32'],
  ['airGenerationDistance', 'f32'],
  ['boilingTemperature', 'f32'],
  ['boilingProbability', 'f32'],
  ['artificialBuoyancy', 'f32'],
  ['airDeletionSurfaceThreshold', 'f32'],
  ['airDeletionBoundaryThreshold', 'f32'],
  ['airDeletionDensity', 'f32'],
  ['restDensity', 'f32'],
  // White water (see the `FluidMaterial` fields of the same names).
  ['diffuseTrappedAirMin', 'f32'],
  ['diffuseTrappedAirMax', 'f32'],
  ['diffuseWaveCrestMin', 'f32'],
  ['diffuseWaveCrestMax', 'f32'],
  ['diffuseEnergyMin', 'f32'],
  ['diffuseEnergyMax', 'f32'],
  ['diffuseTrappedAirRate', 'f32'],
  ['diffuseWaveCrestRate', 'f32'],
  ['diffuseBuoyancy', 'f32'],
  ['diffuseDrag', 'f32'],
  ['diffuseSprayDrag', 'f32'],
  ['diffuseLifetimeMin', 'f32'],
  ['diffuseLifetimeMax', 'f32'],
]);

/**
 * A collider's shape and contact parameters (see the `Collider` component), and its coupling with a rigid
 * body (see the `BodyCoupling` component: `coupled` 0 or 1, the center of mass in local space in xyz).
 */
export const ColliderData = defineStruct('ColliderData', [
  ['shape', 'u32'],
  ['container', 'u32'],
  ['wallWeights', 'u32'],
  ['field', 'u32'],
  ['friction', 'f32'],
  ['restitution', 'f32'],
  ['radius', 'f32'],
  ['coupled', 'u32'],
  ['a', 'vec4<f32>'],
  ['b', 'vec4<f32>'],
  ['centerOfMass', 'vec4<f32>'],
  // Heat exchange with the fluid (multifluid/interaction.ts): surface temperature (K) and rate (1/s).
  ['temperature', 'f32'],
  ['heatTransfer', 'f32'],
  // 1 for a coupled body too thin for the projection grid in the still-water mode (THIN_BODY_DEPTH;
  // isThinCoupledBody, projection/grid.ts), else 0.
  ['thinBody', 'u32'],
]);

/** A collider pose: rotation rows with the translation in w (local to world), then (s, 1/s, 0, 0). */
export const Pose = defineStruct('Pose', [
  ['row0', 'vec4<f32>'],
  ['row1', 'vec4<f32>'],
  ['row2', 'vec4<f32>'],
  ['scale', 'vec4<f32>'],
]);

/** A drain (see the `Drain` component). */
export const DrainData = defineStruct('DrainData', [
  ['shape', 'u32'],
  ['enabled', 'u32'],
  ['radius', 'f32'],
  ['unused', 'f32'],
  ['min', 'vec4<f32>'],
  ['max', 'vec4<f32>'],
]);

/** Where a signed distance field sits in the concatenated field values: origin and cell size, node counts and first node. */
export const FieldInfo = defineStruct('FieldInfo', [
  ['origin', 'vec4<f32>'],
  ['counts', 'vec4<u32>'],
]);

/**
 * A slot of white water's pool on the GPU (diffuse/diffuse.wgsl): position and age (s), velocity and lifetime
 * (s; 0: a free slot, whose index is on the free stack of `diffuseCounters`), what the view draws (position, 2 kind + fade, see `DIFFUSE_FADE_TIME`; all 0 for a free
 * slot), and (kind, material slot, 0, 0).
 */
export const DiffuseParticle = defineStruct('DiffuseParticle', [
  ['position', 'vec4<f32>'],
  ['velocity', 'vec4<f32>'],
  ['render', 'vec4<f32>'],
  ['info', 'vec4<u32>'],
]);

/**
 * The parameters of the anisotropic particles' pass (ellipsoids/ellipsoids.wgsl, run by plugin/ellipsoidPass.ts): the
 * places to write, the drawn radius R (m), the paper's lambda, 1 / k_r, N_epsilon and k_n, and the motion
 * stretch's half time s dt / 2 (s; see `AnisotropyOptions`).
 */
export const EllipsoidParams = defineStruct('EllipsoidParams', [
  ['count', 'u32'],
  ['radius', 'f32'],
  ['smoothing', 'f32'],
  ['inverseStretch', 'f32'],
  ['minNeighbours', 'u32'],
  ['isolatedScale', 'f32'],
  ['stretchTime', 'f32'],
]);

/**
 * The `diffuseCounters` words (diffuse/diffuse.wgsl): the free slots on the stack (kept between steps), then
 * this step's diffuse particles generated, dropped (no free slot), deleted, and the live ones of each kind after
 * the step; from word `words` on, the stack of free slots (`capacity` words; the first `free` hold the free
 * slots' indices).
 */
export const DIFFUSE_COUNTERS = {
  free: 0,
  generated: 1,
  dropped: 2,
  removed: 3,
  spray: 4,
  foam: 5,
  bubble: 6,
  words: 8,
} as const;

/** Per-particle bookkeeping: entity id, material slot, age (s) and lifetime (s; 0 = forever, < 0 = removed). */
export const ParticleInfo = defineStruct('ParticleInfo', [
  ['entity', 'u32'],
  ['material', 'u32'],
  ['age', 'f32'],
  ['lifetime', 'f32'],
]);

/**
 * A particle the CPU adds (an emitter, a spawn) or edits (game code), uploaded before the step; `attributes`
 * are its `Temperature` (K) and `Color` (red, green, blue) for the entity-indexed `attributes` buffer.
 */
export const ParticleRecord = defineStruct('ParticleRecord', [
  ['position', 'vec4<f32>'],
  ['velocity', 'vec4<f32>'],
  ['info', ParticleInfo],
  ['attributes', 'vec4<f32>'],
]);

/**
 * The contact of one particle in the current substep, and its pending pushes by coupled colliders in the
 * current solver iteration (`PENDING_PUSHES` of them: displacement in m in xyz, collider slot in w, -1 if
 * free; see `addPendingPush` in couple/cpu.ts), written by the apply pass and handed over by the collide pass.
 */
export const Contact = defineStruct('Contact', [
  ['normal', 'vec4<f32>'],
  ['collider', 'i32'],
  ['approach', 'f32'],
  ['pending', arrayOf('vec4<f32>', PENDING_PUSHES)],
]);

/**
 * Counters the GPU owns: live particles, substep index, removed particles not yet read back, the count
 * before the last sort, a flag set when a step produced a non-finite position or velocity, and the
 * substeps since the last readback whose diffusion wanted more parts than the step recorded (written by the
 * diffusion plan, multifluid/diffusion.wgsl; the readback that copies it zeroes it, see
 * `FluidStats.diffusionLimitedSubsteps`).
 */
export const State = defineStruct('State', [
  ['count', 'u32'],
  ['substep', 'u32'],
  ['removedCount', 'u32'],
  ['previousCount', 'u32'],
  ['nonFinite', 'u32'],
  ['diffusionLimited', 'u32'],
  // Diffusion parts of the current substep still to run (multifluid/diffusion.wgsl: set by `plan`, counted
  // down by `next`; the recorded parts beyond it return at once).
  ['diffusionPartsLeft', 'u32'],
  // The conjugate gradient iterations of the last substep's projection (projection/solve.wgsl; see
  // `FluidStats.projectionIterations`).
  ['projectionIterations', 'u32'],
  // The MPS pressure solve's largest iteration count and relative residual over the substeps of the last step
  // (mps/cg.wgsl; see `FluidStats.pressureSolveIterations`), zeroed by `begin`.
  ['pressureSolveIterations', 'u32'],
  ['pressureSolveResidual', 'f32'],
]);

/**
 * The scalars of the MPS pressure solve's conjugate gradients on the GPU (mps/cg.wgsl; mirrors
 * `solveConjugateGradient` in mps/pcg.ts): b.b, the stopping threshold tol^2 b.b, r.z, r.r, alpha, beta, the
 * iterations done, 1 once it stopped (converged, the most iterations, or a breakdown d.Ad <= 0), which of the two
 * direction slots holds the current direction (0 or 1), 1 after a breakdown, and the true relative residual
 * |b - A x| / |b| of the finished solve.
 */
export const MpsSolve = defineStruct('MpsSolve', [
  ['rightHandSideSquared', 'f32'],
  ['thresholdSquared', 'f32'],
  ['residualDotPreconditioned', 'f32'],
  ['residualSquared', 'f32'],
  ['alpha', 'f32'],
  ['beta', 'f32'],
  ['iterations', 'u32'],
  ['done', 'u32'],
  ['parity', 'u32'],
  ['breakdown', 'u32'],
  ['residual', 'f32'],
]);

/**
 * The coarse projection's grid on the GPU (projection/grid.wgsl; mirrors `ProjectionPlan` and the solve's
 * records in projection/state.ts), one per solver. The first six words are the particles' cell bounds,
 * gathered with atomics through the `projectionGridAtomic` binding (words `PROJECTION_BOUNDS` ..
 * `PROJECTION_BOUNDS` + 5: low xyz, high xyz); then the plan of this substep and of the one whose pressures
 * the warm start reads, the solve's iterations and relative residual, the momentum the full faces gave
 * beyond the telescoped pressure per axis with the inverse of the mass on the grid (see `gatherFromGrid`), and
 * the workgroups of a pass over the grid's cells (x, y, z; written by `plan`), from which the passes of size
 * `'cells'` are dispatched on an adapter that runs shaders on the CPU (`dispatchIndirect`,
 * `PROJECTION_CELL_GROUPS`; `runsOnCpu`, gpu/buffers.ts).
 */
export const ProjectionGrid = defineStruct('ProjectionGrid', [
  ['lowX', 'i32'],
  ['lowY', 'i32'],
  ['lowZ', 'i32'],
  ['highX', 'i32'],
  ['highY', 'i32'],
  ['highZ', 'i32'],
  ['originX', 'i32'],
  ['originY', 'i32'],
  ['originZ', 'i32'],
  ['dimsX', 'i32'],
  ['dimsY', 'i32'],
  ['dimsZ', 'i32'],
  ['cells', 'u32'],
  ['previousOriginX', 'i32'],
  ['previousOriginY', 'i32'],
  ['previousOriginZ', 'i32'],
  ['previousDimsX', 'i32'],
  ['previousDimsY', 'i32'],
  ['previousDimsZ', 'i32'],
  ['previousCells', 'u32'],
  ['iterations', 'u32'],
  ['relativeResidual', 'f32'],
  ['excessX', 'f32'],
  ['excessY', 'f32'],
  ['excessZ', 'f32'],
  ['inverseGridMass', 'f32'],
  ['cellGroupsX', 'u32'],
  ['cellGroupsY', 'u32'],
  ['cellGroupsZ', 'u32'],
]);

/** Word of `ProjectionGrid.lowX`, the first of the six bound words the atomic binding addresses. */
export const PROJECTION_BOUNDS = 0;

/**
 * The empty bounds: lowX..lowZ hold this and highX..highZ its negative (low above high), from which `carry`'s
 * atomic minimum and maximum start (left so by `plan`, projection/grid.wgsl, and at the buffer's creation).
 */
export const EMPTY_BOUND = 2147483647;

/** Byte offset of the indirect dispatch arguments in `ProjectionGrid` (`cellGroupsX`, `cellGroupsY`, `cellGroupsZ`). */
export const PROJECTION_CELL_GROUPS = ProjectionGrid.offsets.cellGroupsX;

/**
 * One cell of the projection grid on the GPU (mirrors the per-cell arrays of `ProjectionState`): its type
 * after the occupancy (`occupied`), the collider test (`classified`), the first and the second surface layer
 * (`eroded`, `cellType`; values of `CellType`), whether it lies beside a coupled body (`besideBody`, 0 or 1,
 * see `BODY_SURFACE_REACH`), whether it is full, its nearest collider, fluid-side distance and
 * normal, the particles' mass, rest volume and density errors, the solve's vectors, and an entry of the
 * solve's list of fluid cells.
 */
export const ProjectionCell = defineStruct('ProjectionCell', [
  ['occupied', 'u32'],
  ['classified', 'u32'],
  ['eroded', 'u32'],
  ['cellType', 'u32'],
  ['besideBody', 'u32'],
  ['full', 'u32'],
  ['nearest', 'i32'],
  ['errorCount', 'u32'],
  ['distance', 'f32'],
  ['normalX', 'f32'],
  ['normalY', 'f32'],
  ['normalZ', 'f32'],
  ['mass', 'f32'],
  ['volume', 'f32'],
  ['errorSum', 'f32'],
  ['rightHandSide', 'f32'],
  ['diagonal', 'f32'],
  ['phi', 'f32'],
  ['warm', 'f32'],
  ['residual', 'f32'],
  ['preconditioned', 'f32'],
  ['direction', 'f32'],
  ['product', 'f32'],
  // Entry k of the solve's list of fluid cells (for k below their count): the k-th fluid cell's index.
  ['fluidCell', 'u32'],
]);

/**
 * One face of the projection grid on the GPU, three per cell (index 3 c + axis: the cell's lower face along
 * the axis; mirrors the per-face arrays of `ProjectionState`): its kind (`FaceKind` or a collider slot), the
 * particles' sums of w m, w V, w V v and w V / rho, its velocity (the collider's on a solid face), A's
 * coefficient, the velocity change and what a particle takes of it per unit of share weight.
 */
export const ProjectionFace = defineStruct('ProjectionFace', [
  ['kind', 'i32'],
  ['mass', 'f32'],
  ['volume', 'f32'],
  ['volumeFlux', 'f32'],
  ['shareVolume', 'f32'],
  ['velocity', 'f32'],
  ['coefficient', 'f32'],
  ['change', 'f32'],
  ['transfer', 'f32'],
]);

/** Components of a body's impulse: the linear impulse xyz (N s), then the angular impulse xyz (N m s). */
export const BODY_IMPULSE_COMPONENTS = 6;

/**
 * The impulse accumulators of one coupled collider on the GPU, one per collider slot (mirrors the impulse
 * fields of the `BodyCoupling` component). Each of the {@link BODY_IMPULSE_COMPONENTS} components is a 64-bit
 * two's complement integer number of quanta, `high` x 2^32 + `low` (`high` read as i32, `low` as u32),
 * kept in two 32-bit atomics: a thread adds its rounded value to `low` with `atomicAdd`, whose previous
 * value tells whether the addition carried, and then adds the carry and the value's high word to `high`
 * (couple/impulse.wgsl). Integer sums are exact and independent of the order of the threads.
 *
 * Quanta (see {@link bodyImpulseQuanta}): about 2^-24 of the reference impulse J of one particle moved by one
 * radius in one substep (linear), and that times the particle radius r (angular), so the resolution scales
 * with the particle size. Range: a component holds +-2^63 quanta, at least +-3.8 x 10^11 J (+-3.8 x 10^11 J r
 * angular); a body resting on 100,000 particles receives about 10^5 g dt / r J per second (about 10^6 J for
 * r = 1 cm, dt = 1/120 s), and readbacks take the sums every step or two. Precision: each contribution is
 * rounded to the nearest quantum, an error below 4.3 x 10^-8 J (4.3 x 10^-8 J r angular), far below the
 * float32 rounding of a contribution of J. The accumulators gather over the steps until a readback copies
 * them; that same submission zeroes them, so each step's impulses are read exactly once.
 */
export const BodyImpulseAccumulator = defineStruct('BodyImpulseAccumulator', [
  ['low', arrayOf('atomic<u32>', BODY_IMPULSE_COMPONENTS)],
  ['high', arrayOf('atomic<u32>', BODY_IMPULSE_COMPONENTS)],
]);

/** The quanta of {@link BodyImpulseAccumulator}: N s per linear quantum, N m s per angular quantum. */
export interface BodyImpulseQuanta {
  /** Linear impulse per quantum (N s), a power of two. */
  readonly linear: number;
  /** Angular impulse per quantum (N m s), a power of two. */
  readonly angular: number;
}

/**
 * The quanta of {@link BodyImpulseAccumulator} for particles of radius `particleRadius` (m) and substeps of
 * `substepTimeStep` (s): the reference impulse is the momentum change of a particle of water density
 * (1000 kg/m^3, (2r)^3 of fluid) moved by one radius in one substep, m r / dt; the linear quantum is the power
 * of two nearest to 2^-24 of it, the angular quantum the linear one times the power of two nearest to r.
 * Fixed when the solver is created (the sums are integers, so a later change of the time step or of a
 * material's mass only changes how finely impulses are resolved).
 */
export function bodyImpulseQuanta(particleRadius: number, substepTimeStep: number): BodyImpulseQuanta {
  const referenceMass = 1000 * (2 * particleRadius) ** 3;
  const reference = (referenceMass * particleRadius) / substepTimeStep;
  const linear = 2 ** Math.round(Math.log2(reference) - 24);
  return { linear, angular: linear * 2 ** Math.round(Math.log2(particleRadius)) };
}

/** Sizes fixed when the simulation is created. */
export interface SceneLimits {
  readonly maxMaterials: number;
  readonly maxColliders: number;
  readonly maxDrains: number;
}

/** The read-only scene buffer: parameters, wall weight table, materials, colliders, drains, fields, poses. */
export function defineScene(limits: SceneLimits): StructLayout {
  return defineStruct('Scene', [
    ['params', Params],
    ['wallTable', arrayOf('vec4<f32>', WALL_TABLE_VECTORS)],
    // The MPS walls' ghost sums over the distance (mps/wallTables.ts), two vec4s per sample k:
    // [2k] = (Z, s, a, b), [2k + 1] = (m, 0, 0, 0).
    ['mpsWallTable', arrayOf('vec4<f32>', MPS_WALL_TABLE_VECTORS)],
    ['materials', arrayOf(Material, limits.maxMaterials)],
    ['colliders', arrayOf(ColliderData, limits.maxColliders)],
    ['drains', arrayOf(DrainData, limits.maxDrains)],
    ['fields', arrayOf(FieldInfo, limits.maxColliders)],
    // [substep][collider][end, start]
    ['poses', arrayOf(Pose, 0)],
  ]);
}

/** Access of a binding. */
export type Access = 'read' | 'read_write';

/** The buffers passes bind: WGSL element type per buffer (every one is an array, except scene and state). */
export const BUFFER_TYPES = {
  scene: 'Scene',
  state: 'State',
  position: 'array<vec4<f32>>',
  velocity: 'array<vec4<f32>>',
  info: 'array<ParticleInfo>',
  cell: 'array<vec4<u32>>',
  buckets: 'array<u32>',
  bucketsAtomic: 'array<atomic<u32>>',
  // The `buckets` buffer as the neighbour loops read it (neighbourLoop.wgsl): the bucket starts, then in
  // the 'list' neighbour mode the neighbour lists from word `neighbourListBase` (neighbours/lists.wgsl).
  neighbourTable: 'array<u32>',
  sortedPosition: 'array<vec4<f32>>',
  sortedPredicted: 'array<vec4<f32>>',
  sortedVelocity: 'array<vec4<f32>>',
  sortedInfo: 'array<ParticleInfo>',
  removed: 'array<u32>',
  // The counting sort's particle indices by place, each bucket ranked by index (neighbours/sort.wgsl).
  sortOrder: 'array<u32>',
  // The buckets longer than SHORT_BUCKET this substep (neighbours/sort.wgsl): their count, then their indices.
  longBuckets: 'array<atomic<u32>>',
  solve: 'array<vec4<f32>>',
  wall: 'array<vec4<f32>>',
  delta: 'array<vec4<f32>>',
  contact: 'array<Contact>',
  omega: 'array<vec4<f32>>',
  fieldValues: 'array<vec4<f32>>',
  placeOfEntity: 'array<u32>',
  records: 'array<ParticleRecord>',
  scanData: 'array<u32>',
  scanSums: 'array<u32>',
  impulses: 'array<BodyImpulseAccumulator>',
  // Fluid-fluid interaction (multifluid/*.wgsl): per ENTITY id (temperature K, color red, green, blue), so
  // the per-substep sort does not move them; per sorted place, a diffusion part's rates of change; the
  // largest diffusion rate of the substep (f32 bits, atomicMax); the diffusion plan (part length in s). The temperature
  // in `attributes` is stored as T - TEMPERATURE_REFERENCE (see there).
  attributes: 'array<vec4<f32>>',
  diffusionChange: 'array<vec4<f32>>',
  diffusionMax: 'array<atomic<u32>>',
  diffusionPlan: 'array<f32>',
  // Trapped air and boiling (multifluid/airFields.wgsl): per sorted place two vec4s, (grad c^P, number
  // density) and (grad c^S, decision bits: 1 generates, 2 deleted, 4 boiled); the generation candidates
  // (two vec4s each: position and target material slot, velocity and source entity); the event words
  // (see `AIR_EVENTS`: counters, then boiled (entity, vapour slot) pairs).
  airFields: 'array<vec4<f32>>',
  airCandidates: 'array<vec4<f32>>',
  airEvents: 'array<atomic<u32>>',
  // The PBF solver's coarse projection (projection/*.wgsl): the grid (and its first words as atomics, for
  // the particles' bounds; on a CPU adapter its buffer also holds the indirect dispatch arguments of the
  // passes over its cells),
  // the cells, three faces per cell, and per sorted place three vec4s: the stencil's normalisation per axis
  // (xyz; negative: the particle is off the grid) with the last density error (w) until `stencil` writes the
  // mass there, then (g, V) and (V v, V / rho0) for the faces' sums (transfer.wgsl, `stencil`).
  projectionGrid: 'ProjectionGrid',
  projectionGridAtomic: 'array<atomic<i32>>',
  projectionCell: 'array<ProjectionCell>',
  projectionFace: 'array<ProjectionFace>',
  projectionParticle: 'array<vec4<f32>>',
  // The MPS pressure solve (mps/*.wgsl), sized only for `solver: 'mps'`: per sorted place four vec4s (see
  // `MPS_BLOCKS`), per sorted place its terms of the conjugate gradients' dot products, their scalars, and per
  // ENTITY id the last pressure (Pa), the next solve's warm start.
  mps: 'array<vec4<f32>>',
  mpsPartials: 'array<vec4<f32>>',
  mpsSolve: 'MpsSolve',
  mpsPressure: 'array<f32>',
  // White water (diffuse/diffuse.wgsl): the pool, per sorted place two vec4s ((outward normal or 0, trapped
  // air), (entity id and material slot as bits, 0, 0)), and the counters (`DIFFUSE_COUNTERS`).
  diffuseParticles: 'array<DiffuseParticle>',
  diffuseFields: 'array<vec4<f32>>',
  diffuseCounters: 'array<atomic<u32>>',
  // The anisotropic particles (ellipsoids/ellipsoids.wgsl; not the solver's: plugin/ellipsoidPass.ts owns them): the
  // pass's parameters, and per draw place `ELLIPSOID_FLOATS` / 4 vec4s (the centre, then the shape matrix).
  ellipsoidParams: 'EllipsoidParams',
  ellipsoids: 'array<vec4<f32>>',
} as const;

/** Name of a bindable buffer. */
export type BufferName = keyof typeof BUFFER_TYPES;

/** Every struct declaration, in dependency order, for the WGSL preamble. */
export function structDeclarations(scene: StructLayout): string {
  return [
    Params,
    Material,
    ColliderData,
    Pose,
    DrainData,
    FieldInfo,
    ParticleInfo,
    ParticleRecord,
    Contact,
    State,
    BodyImpulseAccumulator,
    ProjectionGrid,
    ProjectionCell,
    ProjectionFace,
    MpsSolve,
    DiffuseParticle,
    EllipsoidParams,
    scene,
  ]
    .map((s) => s.wgsl)
    .join('');
}

/**
 * The WGSL preamble of one pass: constants, structs and one binding per buffer it uses, numbered in order.
 * Returns the source and the bindings mapping Babylon's `ComputeShader` needs. `oneWorkgroupSize` becomes
 * `ONE_WORKGROUP_SIZE`, the threads of the solver's one-workgroup passes (`oneWorkgroupSize`, gpu/buffers.ts;
 * default `WORKGROUP_SIZE`, 256, for passes compiled outside the solver, which do not use it).
 */
export function passSource(
  scene: StructLayout,
  bindings: readonly (readonly [BufferName, Access])[],
  body: string,
  oneWorkgroupSize: number = WORKGROUP_SIZE,
): { source: string; mapping: Record<string, { group: number; binding: number }> } {
  const mapping: Record<string, { group: number; binding: number }> = {};
  const lines = bindings.map(([name, access], index) => {
    mapping[name] = { group: 0, binding: index };
    const type = BUFFER_TYPES[name];
    // Atomics (atomic arrays, the impulse accumulators) are read_write by WGSL's rules.
    const mode = type.includes('atomic') || name === 'impulses' ? 'read_write' : access;
    return `@group(0) @binding(${index}) var<storage, ${mode}> ${name}: ${type};`;
  });
  const constants = [
    `const WORKGROUP_SIZE: u32 = ${WORKGROUP_SIZE}u;`,
    `const ONE_WORKGROUP_SIZE: u32 = ${oneWorkgroupSize}u;`,
    `const SCAN_WORKGROUP_SIZE: u32 = ${SCAN_WORKGROUP_SIZE}u;`,
    `const SCAN_ELEMENTS: u32 = ${SCAN_ELEMENTS}u;`,
    `const SHORT_BUCKET: u32 = ${SHORT_BUCKET}u;`,
    `const WALL_WEIGHT_SAMPLES: u32 = ${WALL_WEIGHT_SAMPLES}u;`,
    `const PENDING_PUSHES: u32 = ${PENDING_PUSHES}u;`,
    `const TEMPERATURE_REFERENCE: f32 = ${TEMPERATURE_REFERENCE.toFixed(6)};`,
    `const KEEP_MATERIAL: u32 = ${KEEP_MATERIAL}u;`,
    `const NEIGHBOUR_OVERFLOW: u32 = ${NEIGHBOUR_OVERFLOW}u;`,
    `const EXTRA_PROJECTIONS: u32 = ${EXTRA_PROJECTIONS}u;`,
    `const MAXIMUM_MARCH_STEPS: u32 = ${MAXIMUM_MARCH_STEPS}u;`,
    `const CANDIDATE_COUNTER: u32 = ${AIR_EVENTS.candidates}u;`,
    `const DELETED_COUNTER: u32 = ${AIR_EVENTS.deleted}u;`,
    `const BOILED_COUNTER: u32 = ${AIR_EVENTS.boiled}u;`,
    `const AIR_EVENT_HEADER: u32 = ${AIR_EVENTS.header}u;`,
    `const DRAIN_BOX: u32 = ${DrainShape.box}u;`,
    `const MPS_SOLUTION: u32 = ${MPS_BLOCKS.solution}u;`,
    `const MPS_DIRECTION: u32 = ${MPS_BLOCKS.direction}u;`,
    `const MPS_SOURCE: u32 = ${MPS_BLOCKS.source}u;`,
    `const PROJECTION_BOUNDS: u32 = ${PROJECTION_BOUNDS}u;`,
    `const EMPTY_BOUND: i32 = ${EMPTY_BOUND};`,
    `const NO_DENSITY_ERROR: f32 = ${NO_DENSITY_ERROR.toFixed(1)};`,
    `const GRID_MARGIN: i32 = ${GRID_MARGIN};`,
    `const BODY_SURFACE_REACH: f32 = ${BODY_SURFACE_REACH.toFixed(1)};`,
    `const CELL_AIR: u32 = ${CellType.air}u;`,
    `const CELL_FLUID: u32 = ${CellType.fluid}u;`,
    `const CELL_SOLID: u32 = ${CellType.solid}u;`,
    `const FACE_DEAD: i32 = ${FaceKind.dead};`,
    `const FACE_CLOSED: i32 = ${FaceKind.closed};`,
    `const FACE_OPEN: i32 = ${FaceKind.open};`,
    `const FLUID_CELL_FILL: f32 = ${FLUID_CELL_FILL.toFixed(6)};`,
    `const THIN_WALL_NORMAL: f32 = ${THIN_WALL_NORMAL.toFixed(6)};`,
    `const DIFFUSE_FREE: u32 = ${DIFFUSE_COUNTERS.free}u;`,
    `const DIFFUSE_STACK: u32 = ${DIFFUSE_COUNTERS.words}u;`,
    `const DIFFUSE_GENERATED: u32 = ${DIFFUSE_COUNTERS.generated}u;`,
    `const DIFFUSE_DROPPED: u32 = ${DIFFUSE_COUNTERS.dropped}u;`,
    `const DIFFUSE_REMOVED: u32 = ${DIFFUSE_COUNTERS.removed}u;`,
    `const DIFFUSE_SPRAY: u32 = ${DIFFUSE_COUNTERS.spray}u;`,
    `const DIFFUSE_FOAM: u32 = ${DIFFUSE_COUNTERS.foam}u;`,
    `const DIFFUSE_BUBBLE: u32 = ${DIFFUSE_COUNTERS.bubble}u;`,
    `const DIFFUSE_SURFACE_OFFSET: f32 = ${DIFFUSE_SURFACE_OFFSET.toFixed(6)};`,
    `const DIFFUSE_ALONG_NORMAL: f32 = ${DIFFUSE_ALONG_NORMAL.toFixed(6)};`,
    `const DIFFUSE_FADE_TIME: f32 = ${DIFFUSE_FADE_TIME.toFixed(6)};`,
    `const DIFFUSE_MOST_PER_PARTICLE: u32 = ${DIFFUSE_MOST_PER_PARTICLE}u;`,
    // The collider shape codes: SHAPE_BOX = ColliderShape.box, ...
    ...Object.entries(ColliderShape).map(([name, code]) => `const SHAPE_${name.toUpperCase()}: u32 = ${code}u;`),
  ].join('\n');
  return { source: `${constants}\n${structDeclarations(scene)}${lines.join('\n')}\n${body}`, mapping };
}
