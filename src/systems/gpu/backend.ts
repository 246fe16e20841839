/**
 * The WebGPU backend: the step's heavy passes as Babylon compute shaders over storage buffers that stay on
 * the GPU (docs/ARCHITECTURE.md, "Layers"). The CPU keeps the entity bookkeeping (which entities are particles, the
 * emitters' spawning, validation of every component game code may edit) and uploads, once per step before
 * any dispatch, the scene (parameters, materials, colliders and their poses for every substep, drains) and
 * the particles it added or game code edited. The substep index lives in a GPU counter advanced by a pass,
 * so no parameter is rewritten between the dispatches of one submit. Each pass's WGSL sits next to the CPU
 * system it mirrors; the structs both sides share come from `structs.ts`.
 *
 * Game code reads particles after an asynchronous readback ({@link WebGpuSolver.readback}); removals by
 * drains and lifetimes are found on the GPU and reach the entity bookkeeping through the same readback.
 *
 * Fluid-fluid interaction (Müller et al. 2005: density/numberDensity*.wgsl and restVolume.wgsl mirroring
 * density/numberDensity.ts, multifluid/*.wgsl mirroring multifluid/interaction.ts): each particle's `Temperature`
 * and `Color` live in the `attributes` buffer, indexed by entity id (so the per-substep sort leaves them in
 * place; the temperature relative to `TEMPERATURE_REFERENCE`, see structs.ts), written by the edit and append
 * passes from the upload records (spawns, `markParticlesChanged`) and read back with the particles while a step's
 * diffusion or heat passes changed them since the last completed copy (`attributesDirty`). The materials' colors,
 * tensions, diffusivities and alpha, and the colliders' temperature and heat transfer, are fields of the scene's
 * `Material` and `ColliderData` structs. A step records the multi-fluid passes only for the features in use
 * (`solver.multiFluid.features`): the number-density rest volumes, lambda and corrections in place of lambda and
 * correct; after vorticity, tension, then diffusion (rate, a one-thread plan, and per part a change, an apply and
 * a one-thread count pass; parts beyond the count the GPU planned as the CPU does return at once), then collider
 * heat.
 *
 * Trapped air and boiling (sections 3.4 and 4.4, multifluid/airFields.wgsl, mirroring multifluid/air.ts
 * and phase.ts): the artificial buoyancy of eq. 17 is a substep pass after collider heat; boiling, the
 * color fields and the generation and deletion decisions run once per step, in the last substep before
 * `writeBack`, on the same final positions, velocities, materials and temperatures as the CPU's step-end
 * systems. Boiling changes the material slot in place and lists (entity, vapour slot) for the CPU
 * (`Particle.material` and `Color` at the readback). Deleted air particles get lifetime -1 and leave
 * through the drains' path (the next step's predict pass, their ids with that step's readback). Generated
 * air particles are candidates (an atomic counter, at most `airGenerationLimit(capacity)` per readback and
 * the capacity left) that the readback brings to the CPU, which creates them at the start of the next step
 * as emitted particles (gpu/systems.ts, `gpuTrappedAirSystem`): one step later than the CPU backend. A
 * step proposes no air while an earlier step's candidates are not yet read back and created (a lagging
 * readback: several steps per frame, a slow GPU), so the same particles never propose twice. An edit
 * upload that leaves `Particle.material` alone keeps the GPU's material (KEEP_MATERIAL, structs.ts), so
 * it cannot undo a boil the CPU has not read yet. The boiling draws hash (step, entity id) instead of using the CPU's seeded generator, and a capped atomic
 * counter decides which candidates are kept when more qualify than the limit: the backends agree on the
 * fields and decisions of one step (tests/multifluid-air-webgpu.test.ts) and statistically over a run.
 */
import '@babylonjs/core/Engines/WebGPU/Extensions/engine.computeShader.js';
import { StorageBuffer } from '@babylonjs/core/Buffers/storageBuffer.js';
import { ComputeShader } from '@babylonjs/core/Compute/computeShader.js';
import type { WebGPUEngine } from '@babylonjs/core/Engines/webgpuEngine.js';
import { FluidError } from '../../core/errors';
import type { MultiFluidFeatures, SimulationContext } from '../context';
import { airGenerationLimit } from '../multifluid/air';
import { MAX_DIFFUSION_PARTS } from '../multifluid/interaction';
import { scanPass } from '../neighbours/gpu';
import { gpuPassDefinitions, gpuStepOrder } from '../schedule';
import { createWordViews, type StructLayout, type WordViews, word } from './layout';
import type { GpuPlan, PassSize } from './passes';
import { type SceneStep, writeColliders, writeDrains, writeMaterials, writeParams, writePoses } from './scene';
import { expandNeighbourLoops } from './shaderSource';
import {
  type Access,
  AIR_EVENTS,
  BODY_IMPULSE_COMPONENTS,
  BodyImpulseAccumulator,
  type BodyImpulseQuanta,
  type BufferName,
  bodyImpulseQuanta,
  Contact,
  defineScene,
  FieldInfo,
  KEEP_MATERIAL,
  Params,
  ParticleInfo,
  ParticleRecord,
  Pose,
  passSource,
  SCAN_BLOCK,
  SCAN_WORKGROUP_SIZE,
  State,
  TEMPERATURE_REFERENCE,
  WORKGROUP_SIZE,
} from './structs';

/** Storage buffer creation flags: STORAGE (32) + READ (copy source, 1) + WRITE (copy destination, 2). */
const STORAGE_FLAGS = 32 | 1 | 2;
/** The same plus VERTEX (8): the position buffer is also the renderer's vertex buffer. */
const VERTEX_STORAGE_FLAGS = STORAGE_FLAGS | 8;

/**
 * Most bytes the scene buffer may give to collider poses (two per collider and substep): 64 MiB, half of
 * WebGPU's default `maxStorageBufferBindingSize` (128 MiB), so the header (materials, colliders, drains)
 * always fits. WCSPH's `sphMaxSubsteps` x `maxColliders` is therefore at most 524288 on the WebGPU backend
 * (e.g. 256 substeps with 2048 colliders, or 4096 with 128).
 */
export const MAX_POSE_BYTES = 64 * 1024 * 1024;

/** One compute pass: a shader and how many threads it runs. */
interface Pass {
  readonly name: string;
  readonly shader: ComputeShader;
  /** The buffer names it binds (to rebind a buffer that was replaced). */
  readonly bindings: readonly BufferName[];
  /** Workgroups to dispatch, evaluated at dispatch time. */
  readonly groups: () => number;
}

/** What the readback of one step brings back (typed views over a staging copy). */
export interface GpuReadback {
  /** Live particles on the GPU after the step. */
  readonly count: number;
  /** Entity ids removed by drains, lifetimes and removals in the step. */
  readonly removed: Uint32Array;
  /** True if a step produced a non-finite position or velocity (the GPU state is then invalid). */
  readonly nonFinite: boolean;
  /** When particles were read: xyz + material per particle, in GPU order (else undefined). */
  readonly position?: Float32Array;
  /** Velocity xyz (+ unused w) per particle. */
  readonly velocity?: Float32Array;
  /** `ParticleInfo` per particle (entity, material, age, lifetime), as words. */
  readonly info?: Uint32Array;
  /** The same memory as `info` read as float32, for the float fields (age and lifetime, in seconds). */
  readonly infoFloat?: Float32Array;
  /** (density, lambda, neighbour count, unused) per particle. */
  readonly solve?: Float32Array;
  /**
   * (wall gradient, w) per particle: w unused, except with the number-density constraint
   * (density/numberDensityLambda.wgsl), where it holds the rest volume V_i (m^3).
   */
  readonly wall?: Float32Array;
  /**
   * Per ENTITY id (not per particle), (temperature - TEMPERATURE_REFERENCE in K, color red, green, blue;
   * see `TEMPERATURE_REFERENCE` in structs.ts), when a step diffused or heated them since the last readback
   * that brought them ({@link WebGpuSolver.attributesDirty}; else undefined).
   */
  readonly attributes?: Float32Array;
  /**
   * Substeps, since the previous readback, whose diffusion wanted more parts than the step recorded (see
   * `diffusionSlots`): the GPU then diffused less than the CPU would. 0 normally.
   */
  readonly diffusionLimitedSubsteps: number;
  /** Coupled colliders whose impulses this readback brought (entries of the three arrays below). */
  readonly bodyCount: number;
  /** Collider entity per entry (-1: the slot's collider was not coupled). */
  readonly bodyEntities: Int32Array;
  /** The entity's collider generation when the impulses were gathered (see `WebGpuSolver.colliderGeneration`). */
  readonly bodyGenerations: Uint32Array;
  /**
   * Per entry, the linear (N s) and angular impulse (N m s, about the center of mass), world space, that the
   * fluid gave the body since the previous readback took them.
   */
  readonly bodyImpulses: Float64Array;
  /**
   * Trapped air and boiling (multifluid/airFields.wgsl), when in use (else empty and 0): the particles the
   * step(s) since the previous readback turned into vapour, as (entity id, vapour material slot) pairs.
   */
  readonly boiled: Uint32Array;
  /** Air particles the GPU marked for deletion (section 3.4.2) since the previous readback. */
  readonly airDeletedCount: number;
  /** Air generation candidates (section 3.4.1) this readback added to the solver's pending list. */
  readonly airCandidateCount: number;
  /**
   * True when this readback took the air events (the first readback after a step that recorded the air
   * passes, whether or not the features are still on).
   */
  readonly airEventsRead: boolean;
}

/** A pending upload: particles added by the CPU, or edited (a record with lifetime < 0 removes). */
interface Upload {
  readonly entity: number;
  readonly kind: 'append' | 'edit' | 'remove' | 'cancelled';
}

/** Air generation candidates read back from the GPU (see {@link WebGpuSolver.takeAirCandidates}). */
export interface AirCandidates {
  /** How many candidates `data` holds. */
  readonly count: number;
  /**
   * 8 floats per candidate: position xyz (m), air material slot, velocity xyz (m/s), source entity id.
   * Valid until the next readback.
   */
  readonly data: Float32Array;
}

/**
 * The WebGPU solver of one simulation. Created by `FluidSimulation` for `backend: 'webgpu'`; holds every GPU
 * object it uses (created here, once, or when a limit such as the field data grows, never per frame).
 */
export class WebGpuSolver {
  /** Particle positions (xyz, material slot in w) in the GPU's order: the renderer's vertex buffer. */
  readonly positionBuffer: StorageBuffer;
  private readonly engine: WebGPUEngine;
  private readonly ctx: SimulationContext;
  private readonly scene: StructLayout;
  private readonly sceneWords: WordViews;
  private readonly headerBytes: number;
  private readonly tableSize: number;
  private readonly bucketLength: number;
  private readonly buffers: Record<string, StorageBuffer> = {};
  private fieldBuffer: StorageBuffer;
  private fieldsVersion: readonly unknown[] = [];
  private fieldNodeCount = 0;
  private readonly passes: Record<string, Pass> = {};
  private readonly records: WordViews;
  private readonly uploads: Upload[] = [];
  private readonly uploadIndex = new Map<number, number>();
  private appendCount = 0;
  private editCount = 0;
  private readonly staging: GPUBuffer[] = [];
  /** CPU copies of the staging buffers, reused: a readback's views stay valid until its slot is reused. */
  private readonly stagingCopies: ArrayBuffer[] = [];
  private readonly stagingBusy: boolean[] = [];
  private readonly stagingBytes: number;
  /** Upper bound of the live particles on the GPU (the CPU's count: removals reach it later). */
  private boundCount = 0;
  private disposed = false;
  /** Set when a readback took the removed ids: the next step resets their count on the GPU. */
  private removedRead = false;
  private readonly zeroWord = new Uint32Array(1);
  /** Fixed-point quanta of the impulse accumulators (see `BodyImpulseAccumulator`). */
  private readonly impulseQuanta: BodyImpulseQuanta;
  /** Remaps the accumulators when collider slots change while they hold impulses (see `mapImpulses`). */
  private readonly impulseScratch: StorageBuffer;
  /** Per accumulator slot, the coupled collider entity its impulses belong to (-1: none), as of the last step. */
  private readonly accumulatorEntity: Int32Array;
  /** Per accumulator slot, that entity's collider generation. */
  private readonly accumulatorGeneration: Uint32Array;
  /** Accumulator slots in use (the collider count of the last step). */
  private accumulatorCount = 0;
  /** True when a step added impulses that no readback copied yet. */
  private impulsesPending = false;
  /** Set by `resetParticles`: the next step drops the impulses no readback took. */
  private impulsesDropped = false;
  /** Bumped per entity by `forgetCollider`: impulses gathered under an older generation are dropped. */
  private readonly generation: Uint32Array;
  /** Per staging buffer, the decoded impulses of its last readback (see `GpuReadback.bodyImpulses`). */
  private readonly stagingBodies: { entities: Int32Array; generations: Uint32Array; impulses: Float64Array }[] = [];
  /** True once the wall buffer has room for the coupled colliders' wall-gradient shares (see lambda.wgsl). */
  private wallShares = false;

  constructor(engine: WebGPUEngine, ctx: SimulationContext) {
    this.engine = engine;
    this.ctx = ctx;
    const settings = ctx.settings;
    const capacity = settings.capacity;
    this.scene = defineScene({
      maxMaterials: settings.maxMaterials,
      maxColliders: settings.maxColliders,
      maxDrains: settings.maxEmitters,
    });
    // Poses for every substep (start and end, Pose.size = 64 bytes each): at most 32 substeps for PBF, up to
    // `sphMaxSubsteps` (fixed at creation) for WCSPH's adaptive count, i.e. 128 bytes x maxColliders x
    // substeps: 2 MiB at the defaults (256 x 64 colliders); more than MAX_POSE_BYTES is refused.
    const maxSubsteps = settings.solver === 'sph' ? Math.max(32, settings.sphMaxSubsteps) : 32;
    const poseCount = maxSubsteps * settings.maxColliders * 2;
    if (poseCount * Pose.size > MAX_POSE_BYTES) {
      throw new FluidError(
        `sph.maxSubsteps ${settings.sphMaxSubsteps} x maxColliders ${settings.maxColliders} needs ${poseCount * Pose.size} bytes of collider poses on the WebGPU backend; allowed are ${MAX_POSE_BYTES} (sph.maxSubsteps x maxColliders <= ${MAX_POSE_BYTES / (2 * Pose.size)}): lower one of them`,
      );
    }
    this.headerBytes = this.scene.offsets.poses;
    this.sceneWords = createWordViews(this.headerBytes + poseCount * Pose.size);
    let table = 1024;
    while (table < 2 * capacity) table *= 2;
    this.tableSize = table;
    this.bucketLength = Math.ceil((table + 1) / SCAN_BLOCK) * SCAN_BLOCK;
    const vec4 = capacity * 16;
    const make = (name: string, bytes: number, flags = STORAGE_FLAGS): StorageBuffer => {
      const buffer = new StorageBuffer(engine, Math.max(16, bytes), flags, `fluid-${name}`);
      this.buffers[name] = buffer;
      return buffer;
    };
    make('scene', this.sceneWords.buffer.byteLength);
    make('state', State.size);
    this.positionBuffer = make('position', vec4, VERTEX_STORAGE_FLAGS);
    make('velocity', vec4);
    make('info', capacity * ParticleInfo.size);
    make('cell', vec4);
    make('buckets', this.bucketLength * 4);
    this.buffers.bucketsAtomic = this.buffers.buckets;
    make('sortedPosition', vec4);
    make('sortedPredicted', vec4);
    make('sortedVelocity', vec4);
    make('sortedInfo', capacity * ParticleInfo.size);
    make('removed', capacity * 4);
    make('solve', vec4);
    make('wall', vec4);
    make('delta', vec4);
    make('contact', capacity * Contact.size);
    make('omega', vec4);
    make('placeOfEntity', ctx.entityCapacity * 4);
    make('records', capacity * ParticleRecord.size);
    // Fluid-fluid interaction (multifluid/*.wgsl): attributes by entity id, a diffusion part's changes, the
    // substep's largest diffusion rate and the diffusion plan (part length).
    make('attributes', ctx.entityCapacity * 16);
    make('diffusionChange', vec4);
    make('diffusionMax', 16);
    make('diffusionPlan', 16);
    // Trapped air and boiling (multifluid/airFields.wgsl): the fields (two vec4s per place), the
    // generation candidates and the event words, each bounded by airGenerationLimit(capacity).
    const airLimit = airGenerationLimit(capacity);
    this.airLimit = airLimit;
    make('airFields', capacity * 32);
    make('airCandidates', airLimit * 32);
    make('airEvents', (AIR_EVENTS.header + 2 * airLimit) * 4);
    this.pendingAir = new Float32Array(airLimit * 8);
    this.fieldBuffer = make('fieldValues', 16);
    const accumulatorBytes = settings.maxColliders * BodyImpulseAccumulator.size;
    make('impulses', accumulatorBytes);
    this.impulseScratch = new StorageBuffer(engine, accumulatorBytes, STORAGE_FLAGS, 'fluid-impulseScratch');
    this.accumulatorEntity = new Int32Array(settings.maxColliders).fill(-1);
    this.accumulatorGeneration = new Uint32Array(settings.maxColliders);
    this.generation = new Uint32Array(ctx.entityCapacity);
    this.gpuMaterial = new Int32Array(ctx.entityCapacity).fill(-1);
    this.impulseQuanta = bodyImpulseQuanta(settings.particleRadius, settings.timeStep / settings.substeps);
    this.records = createWordViews(capacity * ParticleRecord.size);
    this.stagingBytes =
      State.size +
      capacity * (4 + 16 * 6) +
      accumulatorBytes +
      ctx.entityCapacity * 16 +
      (AIR_EVENTS.header + 2 * airLimit) * 4 +
      airLimit * 32;
    this.createPasses();
  }

  /**
   * @internal The layout of the scene buffer (its `Material` table holds the materials' render colors), for
   * the plugin's color pass.
   */
  get sceneLayout(): StructLayout {
    return this.scene;
  }

  /**
   * The storage buffer `name` (see `BUFFER_TYPES`), for passes outside the step that read the particles
   * after it, such as the views' color pass (plugin/particleColors.ts), and for tests. After a step, the
   * per-particle buffers `position`, `velocity`, `info` (whose `entity` maps a place to its entity id) and
   * `solve` (density in x) are all in the same order, the draw order; `attributes` is indexed by entity id.
   * The buffer stays the same object for the solver's life, except `wall` and `fieldValues`, which grow.
   */
  storageBuffer(name: BufferName): StorageBuffer {
    return this.buffers[name];
  }

  private shader(name: string, body: string, entry: string, bindings: readonly (readonly [BufferName, Access])[]) {
    const { source, mapping } = passSource(this.scene, bindings, expandNeighbourLoops(body));
    const shader = new ComputeShader(
      `fluid-${name}`,
      this.engine,
      { computeSource: source },
      { bindingsMapping: mapping, entryPoint: entry },
    );
    return shader;
  }

  private bind(
    shader: ComputeShader,
    bindings: readonly (readonly [BufferName, Access])[],
    names?: Record<string, StorageBuffer>,
  ): void {
    for (const [name] of bindings) shader.setStorageBuffer(name, names?.[name] ?? this.buffers[name]);
  }

  private addPass(
    name: string,
    body: string,
    entry: string,
    bindings: readonly (readonly [BufferName, Access])[],
    groups: () => number,
    buffers?: Record<string, StorageBuffer>,
  ): Pass {
    const shader = this.shader(name, body, entry, bindings);
    this.bind(shader, bindings, buffers);
    const pass = { name, shader, groups, bindings: bindings.map(([bufferName]) => bufferName) };
    return pass;
  }

  /** Workgroups of a pass of size `size` (see `PassSize`), evaluated when it is dispatched. */
  private groupsOf(size: PassSize): () => number {
    switch (size) {
      case 'particles':
        return () => Math.ceil(this.boundCount / WORKGROUP_SIZE);
      case 'one':
        return () => 1;
      case 'edits':
        return () => Math.ceil(this.editCount / WORKGROUP_SIZE);
      case 'appends':
        return () => Math.ceil(this.appendCount / WORKGROUP_SIZE);
      case 'buckets':
        return () => Math.ceil(this.bucketLength / SCAN_WORKGROUP_SIZE);
    }
  }

  /**
   * Compiles every pass of the solver's schedule (gpu/passes.ts; the definitions live in each folder's
   * `gpu.ts`), and the scan levels of the neighbour search: buckets -> sums1 -> sums2 ... until one block covers
   * the data (their number depends on the capacity).
   */
  private createPasses(): void {
    for (const definition of gpuPassDefinitions(this.ctx.settings.solver)) {
      let aliases: Record<string, StorageBuffer> | undefined;
      for (const [name, buffer] of Object.entries(definition.aliases ?? {})) {
        aliases = { ...aliases, [name]: this.buffers[buffer as BufferName] };
      }
      this.passes[definition.key] = this.addPass(
        definition.name,
        definition.source,
        definition.entry,
        definition.bindings,
        this.groupsOf(definition.size),
        aliases,
      );
    }
    let data = this.buffers.buckets;
    let length = this.bucketLength;
    let level = 0;
    const levels: { data: StorageBuffer; sums: StorageBuffer; blocks: number }[] = [];
    for (;;) {
      const blocks = Math.ceil(length / SCAN_BLOCK);
      const sums = new StorageBuffer(this.engine, Math.max(16, blocks * 4), STORAGE_FLAGS, `fluid-scan-${level}`);
      this.buffers[`scanSums${level}`] = sums;
      levels.push({ data, sums, blocks });
      if (blocks === 1) break;
      data = sums;
      length = blocks;
      level++;
    }
    const scans: string[] = [];
    const adds: string[] = [];
    for (let k = 0; k < levels.length; k++) {
      const { data: d, sums, blocks } = levels[k];
      const buffers = { scanData: d, scanSums: sums };
      const level = (key: string, entry: 'scanBlocks' | 'addSums') => {
        const definition = scanPass(key, entry);
        this.passes[key] = this.addPass(key, definition.source, entry, definition.bindings, () => blocks, buffers);
      };
      level(`scan${k}`, 'scanBlocks');
      scans.push(`scan${k}`);
      if (k + 1 < levels.length) {
        level(`scanAdd${k}`, 'addSums');
        adds.unshift(`scanAdd${k}`);
      }
    }
    this.scanPasses = [...scans, ...adds];
  }

  /** The scan passes in order: every level's scan, then the sums added back from the top level down. */
  private scanPasses: readonly string[] = [];

  /** Most air candidates and boiled events one readback holds: airGenerationLimit(capacity). */
  private readonly airLimit: number;
  /**
   * Air generation candidates read back and not yet created (8 floats each: position xyz, material slot,
   * velocity xyz, source entity); see {@link WebGpuSolver.takeAirCandidates}.
   */
  private readonly pendingAir: Float32Array;
  private pendingAirCount = 0;
  /** Set when a readback took the air events: the next step resets their counters on the GPU. */
  private airRead = false;
  /** `stepsRecorded` when a readback last took the air events. */
  private airReadAtStep = 0;
  /**
   * `stepsRecorded` of the last step that recorded the air passes (`airFields`, `airDecide`): a readback
   * takes the events while this is newer than `airReadAtStep`, whatever the features are now.
   */
  private lastAirStep = 0;
  /** The newest `airReadAtStep` whose readback has arrived (its candidates are in `pendingAir`). */
  private airArrivedAtStep = 0;
  /** Params.airGenerationOpen of the step being recorded (see `prepare`). */
  private airGenerationOpen = true;
  /**
   * Per entity: the material entity the GPU was last known to hold (written by an upload, or learnt from a
   * boil event through {@link WebGpuSolver.noteGpuMaterial}); -1 for none. An edit whose `Particle.material`
   * equals it uploads KEEP_MATERIAL, so it cannot undo a boil the CPU has not read back yet.
   */
  private readonly gpuMaterial: Int32Array;
  private readonly zeroAirHeader = new Uint32Array(AIR_EVENTS.header);

  /**
   * Records that the GPU holds material entity `material` for particle `entity` (a boil event a readback
   * brought, applied to `Particle.material` by gpu/systems.ts): later edits of the particle that leave
   * `Particle.material` at this value keep the GPU's material.
   */
  noteGpuMaterial(entity: number, material: number): void {
    if (entity >= 0 && entity < this.gpuMaterial.length) this.gpuMaterial[entity] = material;
  }

  /**
   * @internal The air generation candidates (section 3.4.1) that readbacks brought since the last call, and empties
   * the list: `count` candidates of 8 floats in `data` (position xyz in m, air material slot, velocity xyz
   * in m/s, source entity id), valid until the next readback. The step-start system `gpuTrappedAir`
   * (gpu/systems.ts) creates them as particles, one step after the CPU backend would.
   */
  takeAirCandidates(): AirCandidates {
    const count = this.pendingAirCount;
    this.pendingAirCount = 0;
    return { count, data: this.pendingAir };
  }

  /** True once every compute shader has compiled. */
  isReady(): boolean {
    // Every shader is asked (no early return): asking starts its compilation, so all compile at once
    // instead of one per frame.
    let ready = true;
    for (const name in this.passes) if (!this.passes[name].shader.isReady()) ready = false;
    return ready;
  }

  /** Compilation errors of the passes so far (name: message). */
  compilationErrors(): string[] {
    const errors: string[] = [];
    for (const pass of Object.values(this.passes)) {
      // Babylon keeps the compiled effect private; its compilation error is the only thing read here.
      const effect = (pass.shader as unknown as { _effect?: { getCompilationError(): string } })._effect;
      const error = effect?.getCompilationError();
      if (error) errors.push(`${pass.name}: ${error}`);
    }
    return errors;
  }

  /** Resolves when every compute shader has compiled; throws {@link FluidError} if one fails to compile. */
  async whenReady(): Promise<void> {
    const start = performance.now();
    while (!this.isReady()) {
      const errors = this.compilationErrors();
      if (errors.length > 0)
        throw new FluidError(`WebGPU backend: a compute shader failed to compile: ${errors.join('; ')}`);
      if (performance.now() - start > 60_000)
        throw new FluidError('WebGPU backend: the compute shaders did not compile within 60 s');
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  }

  /** Queues particle `entity`, just created on the CPU, to be added to the GPU at the next step. */
  queueAppend(entity: number): void {
    this.queue(entity, 'append');
  }

  /** Queues the upload of particle `entity`'s components (position, velocity, material) at the next step. */
  queueEdit(entity: number): void {
    this.queue(entity, 'edit');
  }

  /** Queues the removal of particle `entity` at the next step (it leaves with the step's readback). */
  queueRemove(entity: number): void {
    this.queue(entity, 'remove');
  }

  /**
   * Drops the queued append of `entity` (created and removed before any step): returns true if there was
   * one, and the entity never reached the GPU.
   */
  cancelAppend(entity: number): boolean {
    const index = this.uploadIndex.get(entity);
    if (index === undefined || this.uploads[index].kind !== 'append') return false;
    this.uploads[index] = { entity, kind: 'cancelled' };
    this.uploadIndex.delete(entity);
    return true;
  }

  private queue(entity: number, kind: Upload['kind']): void {
    const index = this.uploadIndex.get(entity);
    if (index !== undefined) {
      const previous = this.uploads[index];
      // An append carries the latest components anyway; a removal wins over an edit.
      if (previous.kind === 'append') {
        if (kind === 'remove') this.uploads[index] = { entity, kind: 'remove' };
        return;
      }
      if (previous.kind === 'remove') return;
      this.uploads[index] = { entity, kind };
      return;
    }
    this.uploadIndex.set(entity, this.uploads.length);
    this.uploads.push({ entity, kind });
  }

  /** True when an upload of `entity` waits for the next step (its components are newer than the GPU's). */
  isPending(entity: number): boolean {
    return this.uploadIndex.has(entity);
  }

  /**
   * Writes upload record `slot` from `entity`'s components. An edit (`edit` true) whose `Particle.material`
   * is the one the GPU was last known to hold writes KEEP_MATERIAL (the GPU may have boiled the particle
   * since); else the material is written and becomes the known one.
   */
  private writeRecord(slot: number, entity: number, lifetime: number, edit: boolean): void {
    const { Position, Velocity, Particle } = this.ctx.components;
    const f = this.records.f32;
    const u = this.records.u32;
    const base = slot * ParticleRecord.size;
    const position = word(ParticleRecord, 'position', base);
    const velocity = word(ParticleRecord, 'velocity', base);
    const info = base + ParticleRecord.offsets.info;
    const materialSlot = this.ctx.materials.slotOfEntity[Particle.material[entity]];
    f[position] = Position.x[entity];
    f[position + 1] = Position.y[entity];
    f[position + 2] = Position.z[entity];
    f[position + 3] = materialSlot;
    f[velocity] = Velocity.x[entity];
    f[velocity + 1] = Velocity.y[entity];
    f[velocity + 2] = Velocity.z[entity];
    f[velocity + 3] = 0;
    u[word(ParticleInfo, 'entity', info)] = entity;
    const keep = edit && Particle.material[entity] === this.gpuMaterial[entity];
    u[word(ParticleInfo, 'material', info)] = keep ? KEEP_MATERIAL : materialSlot;
    if (!keep) this.gpuMaterial[entity] = Particle.material[entity];
    f[word(ParticleInfo, 'age', info)] = Particle.age[entity];
    f[word(ParticleInfo, 'lifetime', info)] = lifetime;
    const { Temperature, Color } = this.ctx.components;
    const attributes = word(ParticleRecord, 'attributes', base);
    // Relative to TEMPERATURE_REFERENCE (see structs.ts), computed in float64 before the float32 rounding.
    f[attributes] = Temperature[entity] - TEMPERATURE_REFERENCE;
    f[attributes + 1] = Color.red[entity];
    f[attributes + 2] = Color.green[entity];
    f[attributes + 3] = Color.blue[entity];
  }

  /** Writes the queued uploads as records: edits and removals first, then appends. */
  private writeUploads(): void {
    const { Position, Velocity, Particle } = this.ctx.components;
    let edits = 0;
    for (const upload of this.uploads) {
      if (upload.kind === 'append' || upload.kind === 'cancelled') continue;
      const e = upload.entity;
      if (upload.kind === 'edit') {
        if (
          !Number.isFinite(
            Position.x[e] + Position.y[e] + Position.z[e] + Velocity.x[e] + Velocity.y[e] + Velocity.z[e],
          )
        ) {
          throw new FluidError(`particle ${e} has a non-finite position or velocity`);
        }
        // A material id past the table reads undefined, which `< 0` would let through.
        if (!(this.ctx.materials.slotOfEntity[Particle.material[e]] >= 0)) {
          throw new FluidError(`Particle.material[${e}] is ${Particle.material[e]}, which is not a material entity`);
        }
      }
      this.writeRecord(edits++, e, upload.kind === 'remove' ? -1 : Particle.lifetime[e], true);
    }
    let appends = 0;
    for (const upload of this.uploads) {
      if (upload.kind !== 'append') continue;
      this.writeRecord(edits + appends++, upload.entity, this.ctx.components.Particle.lifetime[upload.entity], false);
    }
    this.editCount = edits;
    this.appendCount = appends;
    this.uploads.length = 0;
    this.uploadIndex.clear();
    if (edits + appends > 0) {
      this.buffers.records.update(this.records.u32, 0, (edits + appends) * ParticleRecord.size);
    }
  }

  /** Concatenates the simulation's signed distance fields into the field buffer when the list changed. */
  private writeFields(): void {
    const fields = this.ctx.colliders.fields;
    const same = fields.length === this.fieldsVersion.length && fields.every((f, k) => f === this.fieldsVersion[k]);
    if (same) return;
    this.fieldsVersion = fields.slice();
    let nodes = 0;
    for (const field of fields) if (field) nodes += field.values.length / 4;
    if (nodes > this.fieldNodeCount) {
      this.fieldBuffer.dispose();
      this.fieldBuffer = new StorageBuffer(this.engine, Math.max(16, nodes * 16), STORAGE_FLAGS, 'fluid-fieldValues');
      this.buffers.fieldValues = this.fieldBuffer;
      this.fieldNodeCount = nodes;
      for (const name in this.passes) {
        const pass = this.passes[name];
        if (pass.bindings.includes('fieldValues')) pass.shader.setStorageBuffer('fieldValues', this.fieldBuffer);
      }
    }
    const all = new Float32Array(Math.max(4, nodes * 4));
    const f = this.sceneWords.f32;
    const u = this.sceneWords.u32;
    let offset = 0;
    fields.forEach((field, index) => {
      if (!field) return;
      all.set(field.values, offset * 4);
      const base = this.scene.offsets.fields + index * FieldInfo.size;
      const origin = word(FieldInfo, 'origin', base);
      const counts = word(FieldInfo, 'counts', base);
      f[origin] = field.origin[0];
      f[origin + 1] = field.origin[1];
      f[origin + 2] = field.origin[2];
      f[origin + 3] = field.cellSize;
      u[counts] = field.nodeCounts[0];
      u[counts + 1] = field.nodeCounts[1];
      u[counts + 2] = field.nodeCounts[2];
      u[counts + 3] = offset;
      offset += field.values.length / 4;
    });
    if (nodes > 0) this.fieldBuffer.update(all);
  }

  /** The step values `writeScene` hands the scene writers, updated in place (no object per step). */
  private get sceneStep(): SceneStep {
    this.sceneStepValues ??= {
      tableSize: this.tableSize,
      appendCount: 0,
      editCount: 0,
      airLimit: this.airLimit,
      stepsRecorded: 0,
      airGenerationOpen: true,
      impulseQuanta: this.impulseQuanta,
    };
    return this.sceneStepValues;
  }
  private sceneStepValues: SceneStep | undefined;

  /** Writes parameters, materials, colliders, drains and poses for every substep of this step. */
  private writeScene(): void {
    const step = this.sceneStep;
    step.appendCount = this.appendCount;
    step.editCount = this.editCount;
    step.stepsRecorded = this.stepsRecorded;
    step.airGenerationOpen = this.airGenerationOpen;
    writeParams(this.ctx, this.scene, this.sceneWords, step);
    writeMaterials(this.ctx, this.scene, this.sceneWords);
    writeColliders(this.ctx, this.scene, this.sceneWords, step);
    writeDrains(this.ctx, this.scene, this.sceneWords);
    const poseBytes = writePoses(this.ctx, this.sceneWords, this.headerBytes);
    this.buffers.scene.update(this.sceneWords.u32, 0, this.headerBytes + poseBytes);
  }

  private dispatch(pass: Pass): void {
    const groups = pass.groups();
    if (groups > 0) pass.shader.dispatch(groups);
  }

  /**
   * Fills `passHead` (once per step) and `passSubstep` (once per substep) with the passes of a step, in
   * order (the scan levels expanded); refilled, in place, only when their shape changes (not with the
   * substep count, which WCSPH changes from step to step): no allocation per step.
   */
  private updatePassLists(): void {
    const anyVorticity = this.sceneWords.u32[word(Params, 'anyVorticity', this.scene.offsets.params)] === 1;
    const m = this.ctx.materials;
    const simpleMaterials = m.count <= 1 && (m.count === 0 || Math.fround(m.artificialPressureExponent[0]) === 4);
    const coupled = this.sceneWords.u32[word(Params, 'coupledCount', this.scene.offsets.params)] > 0;
    const { iterations } = this.ctx.settings;
    const features = this.ctx.solver.multiFluid.features;
    const slots = this.sceneWords.u32[word(Params, 'diffusionSlots', this.scene.offsets.params)];
    const single = (iterations << 3) | (anyVorticity ? 4 : 0) | (simpleMaterials ? 2 : 0) | (coupled ? 1 : 0);
    const shape = (single * 128 + multiFluidShape(features)) * (MAX_DIFFUSION_PARTS + 1) + slots;
    if (shape === this.passListShape) return;
    this.passListShape = shape;
    this.buildPassLists({
      iterations,
      vorticity: anyVorticity,
      simpleMaterials,
      coupled,
      features,
      diffusionParts: slots,
      colliderHeat: features.colliderHeat && this.ctx.colliders.count > 0,
      scanPasses: this.scanPasses,
    });
  }

  /** The whole step's passes in order, head and every substep (a new array: for the tests and benchmark). */
  private stepPasses(): Pass[] {
    this.updatePassLists();
    const list = [...this.passHead];
    const substeps = this.ctx.substepCount;
    for (let substep = 0; substep < substeps; substep++) {
      list.push(...(substep === substeps - 1 ? this.passLastSubstep : this.passSubstep));
    }
    return list;
  }

  private passListShape = -1;
  private readonly passHead: Pass[] = [];
  private readonly passSubstep: Pass[] = [];
  /** The last substep's passes: `passSubstep` with the step-end air passes before `writeBack`. */
  private readonly passLastSubstep: Pass[] = [];

  /**
   * Fills the pass lists for `plan`: the head (uploads, begin), then every substep's passes and the last
   * substep's, in the order of the solver's schedule (`gpuStepOrder`, schedule.ts).
   */
  private buildPassLists(plan: GpuPlan): void {
    const p = this.passes;
    const head = this.passHead;
    head.length = 0;
    head.push(p.edit, p.append, p.begin);
    const order = gpuStepOrder(this.ctx.settings.solver, plan);
    this.passSubstep.length = 0;
    this.passLastSubstep.length = 0;
    for (const key of order.substep) this.passSubstep.push(p[key]);
    for (const key of order.lastSubstep) this.passLastSubstep.push(p[key]);
  }

  /** Steps recorded since creation. */
  private stepsRecorded = 0;
  /** `stepsRecorded` when the newest particle readback applied so far was requested (or the state was uploaded). */
  private particlesReadAtStep = 0;
  /** `stepsRecorded` of the newest step whose diffusion or heat passes changed the `attributes` buffer. */
  private attributesWrittenAtStep = 0;
  /**
   * `stepsRecorded` when the newest readback that copied `attributes` and completed was requested (or when
   * the attributes were uploaded from the components, `resetParticles`).
   */
  private attributesReadAtStep = 0;

  /**
   * True while a recorded step's diffusion or heat passes changed the GPU's temperatures or colors and no
   * readback requested after it has completed: particle readbacks copy the `attributes` buffer while this
   * holds, whatever the features are now (one switched off after diffusing still leaves values to read).
   */
  get attributesDirty(): boolean {
    return this.attributesWrittenAtStep > this.attributesReadAtStep;
  }

  /**
   * The entities whose queued upload (an append or an edit, not a removal) carries their components to the
   * GPU at the next step, for the step-start checks of their `Temperature` and `Color`
   * (multifluid/validate.ts), which run before anything changes. Calls `visit` once per entity.
   */
  forEachPendingUpload(visit: (entity: number) => void): void {
    for (const upload of this.uploads) if (upload.kind === 'append' || upload.kind === 'edit') visit(upload.entity);
  }

  /**
   * True when the particle components hold the velocities the GPU ended the last recorded step with: a
   * particle readback requested after that step has arrived (or no step ran since the GPU state was built
   * from the components). WCSPH plans its substeps from them only then (sph/cpu.ts).
   */
  velocitiesCurrent(): boolean {
    return this.particlesReadAtStep === this.stepsRecorded;
  }

  /** Uploads what changed, records the step's dispatches and submits them. */
  step(): void {
    this.prepare();
    this.updatePassLists();
    for (const pass of this.passHead) this.dispatch(pass);
    // The step's substep count: `settings.substeps`, or WCSPH's adaptive count (ctx.substepCount).
    const substeps = this.ctx.substepCount;
    for (let substep = 0; substep < substeps; substep++) {
      const passes = substep === substeps - 1 ? this.passLastSubstep : this.passSubstep;
      for (const pass of passes) this.dispatch(pass);
    }
    // Submit now: the next step's uploads (queue writes) must not overtake this step's dispatches, which
    // otherwise wait in the engine's command encoder until the end of the frame.
    this.engine.flushFramebuffer();
  }

  private prepare(): void {
    if (this.disposed) throw new FluidError('the WebGPU solver was disposed');
    if (!this.isReady())
      throw new FluidError('the WebGPU backend is not ready yet: await simulation.ready() before stepping');
    this.stepsRecorded++;
    // (A collider coupled with a rigid body in a WCSPH simulation is refused before the step by
    // FluidSimulation.addCollider and FluidSimulation.step.)
    if (this.removedRead) {
      this.buffers.state.update(this.zeroWord, State.offsets.removedCount, 4);
      this.removedRead = false;
    }
    // The air events' counters restart once a readback took them (queue order: after its copy).
    if (this.airRead) {
      this.buffers.airEvents.update(this.zeroAirHeader, 0, AIR_EVENTS.header * 4);
      this.airRead = false;
    }
    // Air generation (section 3.4.1) only once every earlier air step's candidates arrived and were taken
    // (created by `gpuTrappedAir` before this step): else the same particles would propose again.
    this.airGenerationOpen = this.airArrivedAtStep >= this.lastAirStep && this.pendingAirCount === 0;
    const airFeatures = this.ctx.solver.multiFluid.features;
    if (airFeatures.airGeneration || airFeatures.boiling) this.lastAirStep = this.stepsRecorded;
    this.writeUploads();
    this.writeFields();
    this.writeScene();
    if (this.sceneWords.u32[word(Params, 'coupledCount', this.scene.offsets.params)] > 0) this.addWallShares();
    this.mapImpulses();
    this.boundCount = this.ctx.solver.count;
    // This step's diffusion and heat passes (see `buildPassLists`) change the attributes.
    const features = this.ctx.solver.multiFluid.features;
    const diffuses = features.temperatureDiffusion || features.colorDiffusion;
    if (diffuses || (features.colliderHeat && this.ctx.colliders.count > 0)) {
      this.attributesWrittenAtStep = this.stepsRecorded;
    }
  }

  private gpuBuffer(name: string): GPUBuffer {
    return this.buffers[name].getBuffer().underlyingResource as GPUBuffer;
  }

  /**
   * Once a collider is coupled: grows the wall buffer to three blocks of `capacity` entries, the wall
   * gradients and the two coupled-collider shares the lambda pass keeps (Params.wallShareOffset = capacity).
   */
  private addWallShares(): void {
    if (this.wallShares) return;
    this.wallShares = true;
    this.buffers.wall.dispose();
    const wall = new StorageBuffer(this.engine, this.ctx.settings.capacity * 16 * 3, STORAGE_FLAGS, 'fluid-wall');
    this.buffers.wall = wall;
    for (const name in this.passes) {
      const pass = this.passes[name];
      if (pass.bindings.includes('wall')) pass.shader.setStorageBuffer('wall', wall);
    }
  }

  /**
   * Keeps the impulse accumulators with their colliders. They are indexed by collider slot, and slots change
   * when colliders are added or removed (the last collider takes a removed one's slot), or when one is
   * coupled or uncoupled. If the coupled colliders' slots changed while the accumulators hold impulses no
   * readback took yet, the accumulators move to their colliders' new slots (a copy through the scratch
   * buffer, submitted before the step's passes); those of removed or uncoupled colliders, and after
   * `resetParticles` all of them, are dropped.
   */
  private mapImpulses(): void {
    const table = this.ctx.colliders;
    const coupled = this.ctx.components.BodyCoupling.coupled;
    const entityOf = (slot: number): number => (coupled[table.entity[slot]] === 1 ? table.entity[slot] : -1);
    let changed = table.count !== this.accumulatorCount;
    for (let slot = 0; slot < table.count && !changed; slot++) {
      const eid = entityOf(slot);
      changed =
        eid !== this.accumulatorEntity[slot] || (eid >= 0 && this.generation[eid] !== this.accumulatorGeneration[slot]);
    }
    if (this.impulsesPending && (changed || this.impulsesDropped)) {
      const size = BodyImpulseAccumulator.size;
      const accumulators = this.gpuBuffer('impulses');
      const scratch = this.impulseScratch.getBuffer().underlyingResource as GPUBuffer;
      const encoder = this.engine._device.createCommandEncoder();
      encoder.copyBufferToBuffer(accumulators, 0, scratch, 0, this.accumulatorCount * size);
      encoder.clearBuffer(accumulators, 0, Math.max(this.accumulatorCount, table.count) * size);
      if (!this.impulsesDropped) {
        const previous = new Map<number, number>();
        for (let k = 0; k < this.accumulatorCount; k++) {
          const eid = this.accumulatorEntity[k];
          if (eid >= 0 && this.generation[eid] === this.accumulatorGeneration[k]) previous.set(eid, k);
        }
        for (let slot = 0; slot < table.count; slot++) {
          const from = previous.get(entityOf(slot));
          if (from !== undefined) encoder.copyBufferToBuffer(scratch, from * size, accumulators, slot * size, size);
        }
      }
      // After whatever this solver recorded before (the previous step's passes are already submitted).
      this.engine.flushFramebuffer();
      this.engine._device.queue.submit([encoder.finish()]);
    }
    this.impulsesDropped = false;
    for (let slot = 0; slot < table.count; slot++) {
      const eid = entityOf(slot);
      this.accumulatorEntity[slot] = eid;
      this.accumulatorGeneration[slot] = eid >= 0 ? this.generation[eid] : 0;
    }
    this.accumulatorCount = table.count;
    // This step's passes add to them.
    if (this.sceneWords.u32[word(Params, 'coupledCount', this.scene.offsets.params)] > 0) this.impulsesPending = true;
  }

  /**
   * Tells the solver that collider `entity` was removed: impulses it received that no readback has applied
   * yet are dropped, also if the entity id is reused by a new collider before they arrive.
   */
  forgetCollider(entity: number): void {
    if (entity >= 0 && entity < this.generation.length) this.generation[entity]++;
  }

  /** The generation of collider `entity` (see {@link WebGpuSolver.forgetCollider}), to match readbacks with it. */
  colliderGeneration(entity: number): number {
    return this.generation[entity];
  }

  /**
   * For the parity tests: uploads as `step` does and records the step's passes up to and including the
   * `occurrence`-th pass named `stopAfter` (1 = its first run), leaving the rest of the step undone.
   */
  stepUntil(stopAfter: string, occurrence = 1): void {
    this.prepare();
    let seen = 0;
    for (const pass of this.stepPasses()) {
      this.dispatch(pass);
      if (pass.name === stopAfter && ++seen === occurrence) return;
    }
    throw new Error(`no pass ${stopAfter} (occurrence ${occurrence}) in the step`);
  }

  /** For the parity tests: the first `bytes` of buffer `name`, read back now. */
  async readBuffer(name: BufferName, bytes: number): Promise<ArrayBuffer> {
    const view = await this.buffers[name].read(0, bytes, undefined, true);
    return view.buffer.slice(view.byteOffset, view.byteOffset + bytes) as ArrayBuffer;
  }

  /**
   * The same step as {@link step}, submitted and waited for after every pass: milliseconds per pass name
   * (summed over substeps and iterations). For the benchmark; slower than `step` by the waits.
   */
  async profileStep(): Promise<Record<string, number>> {
    this.prepare();
    const device = this.engine._device;
    const times: Record<string, number> = {};
    this.engine.flushFramebuffer();
    await device.queue.onSubmittedWorkDone();
    for (const pass of this.stepPasses()) {
      const start = performance.now();
      this.dispatch(pass);
      this.engine.flushFramebuffer();
      await device.queue.onSubmittedWorkDone();
      const name = pass.name.startsWith('scan') ? 'scan' : pass.name;
      times[name] = (times[name] ?? 0) + performance.now() - start;
    }
    return times;
  }

  /** Submits what was recorded and resolves when the GPU finished it. */
  async finish(): Promise<void> {
    this.engine.flushFramebuffer();
    await this.engine._device.queue.onSubmittedWorkDone();
  }

  /**
   * Copies the step's results to a staging buffer and maps it: the count and removed ids always, and the
   * particles (positions, velocities, bookkeeping, densities) when `particles` is true. Resolves with
   * views that stay valid until the next call of `readback`; undefined when every staging buffer is busy.
   */
  async readback(particles: boolean): Promise<GpuReadback | undefined> {
    const device = this.engine._device;
    let index = this.stagingBusy.indexOf(false);
    if (index < 0) {
      if (this.staging.length >= 3) return undefined;
      this.staging.push(
        device.createBuffer({ size: this.stagingBytes, usage: GPUBufferUsage.MAP_READ | GPUBufferUsage.COPY_DST }),
      );
      this.stagingCopies.push(new ArrayBuffer(this.stagingBytes));
      this.stagingBusy.push(false);
      const maxColliders = this.ctx.settings.maxColliders;
      this.stagingBodies.push({
        entities: new Int32Array(maxColliders),
        generations: new Uint32Array(maxColliders),
        impulses: new Float64Array(BODY_IMPULSE_COMPONENTS * maxColliders),
      });
      index = this.staging.length - 1;
    }
    this.stagingBusy[index] = true;
    const requestedAtStep = this.stepsRecorded;
    const staging = this.staging[index];
    const bound = this.boundCount;
    const encoder = device.createCommandEncoder();
    const source = (name: string) => this.buffers[name].getBuffer().underlyingResource as GPUBuffer;
    let offset = 0;
    const layout: Record<string, [number, number]> = {};
    const copy = (name: string, bytes: number) => {
      if (bytes === 0) return;
      encoder.copyBufferToBuffer(source(name), 0, staging, offset, bytes);
      layout[name] = [offset, bytes];
      offset += bytes;
    };
    copy('state', State.size);
    // The count of substeps with limited diffusion restarts once copied (same submission, in order).
    encoder.clearBuffer(source('state'), State.offsets.diffusionLimited, 4);
    copy('removed', bound * 4);
    // The impulse accumulators of the colliders of the last step, zeroed in the same submission: every
    // impulse is read exactly once, however many steps ran since the last readback.
    const bodies = this.stagingBodies[index];
    const accumulatorBytes = this.accumulatorCount * BodyImpulseAccumulator.size;
    let bodyCount = 0;
    for (let slot = 0; slot < this.accumulatorCount; slot++) {
      const eid = this.accumulatorEntity[slot];
      bodies.entities[slot] = eid;
      bodies.generations[slot] = this.accumulatorGeneration[slot];
      if (eid >= 0) bodyCount = slot + 1;
    }
    // After `resetParticles` the impulses gathered before are dropped, not read.
    if (this.impulsesDropped) bodyCount = 0;
    copy('impulses', bodyCount * BodyImpulseAccumulator.size);
    if (this.impulsesPending) encoder.clearBuffer(source('impulses'), 0, accumulatorBytes);
    this.impulsesPending = false;
    if (particles) {
      copy('position', bound * 16);
      copy('velocity', bound * 16);
      copy('info', bound * ParticleInfo.size);
      copy('solve', bound * 16);
      copy('wall', bound * 16);
      // While a step's diffusion or heat passes changed them since the newest completed copy, whatever the
      // features are now (one may have been switched off meanwhile).
      if (this.attributesDirty) copy('attributes', this.ctx.entityCapacity * 16);
    }
    // Trapped air and boiling: the event words and the candidates, with every readback (as the removed ids).
    // Only the first readback after a step that recorded the air passes takes the events, whatever the
    // features are now (a skipped readback's events must not wait until they turn on again; a second
    // readback, e.g. `simulation.readback()` after the publish's, would read the same counters again:
    // they restart at the next step).
    const airInUse = this.airReadAtStep < this.lastAirStep;
    if (airInUse) {
      this.airReadAtStep = this.stepsRecorded;
      copy('airEvents', (AIR_EVENTS.header + 2 * this.airLimit) * 4);
      copy('airCandidates', this.airLimit * 32);
      this.airRead = true;
    }
    this.engine.flushFramebuffer();
    device.queue.submit([encoder.finish()]);
    this.removedRead = true;
    try {
      await staging.mapAsync(GPUMapMode.READ, 0, offset);
    } catch (error) {
      this.stagingBusy[index] = false;
      throw error;
    }
    const mapped = this.stagingCopies[index];
    new Uint8Array(mapped, 0, offset).set(new Uint8Array(staging.getMappedRange(0, offset)));
    staging.unmap();
    this.stagingBusy[index] = false;
    const view = (name: string) => layout[name];
    const state = new Uint32Array(mapped, 0, State.size / 4);
    const count = state[State.offsets.count / 4];
    const nonFinite = state[State.offsets.nonFinite / 4] !== 0;
    const diffusionLimitedSubsteps = state[State.offsets.diffusionLimited / 4];
    if (view('attributes')) this.attributesReadAtStep = Math.max(this.attributesReadAtStep, requestedAtStep);
    const removedCount = Math.min(state[State.offsets.removedCount / 4], bound);
    const removedAt = view('removed');
    const removed = removedAt ? new Uint32Array(mapped, removedAt[0], removedCount) : new Uint32Array(0);
    let boiled = new Uint32Array(0);
    let airDeletedCount = 0;
    let airCandidateCount = 0;
    const eventsAt = view('airEvents');
    const candidatesAt = view('airCandidates');
    if (eventsAt && candidatesAt) {
      const events = new Uint32Array(mapped, eventsAt[0], eventsAt[1] / 4);
      airDeletedCount = events[AIR_EVENTS.deleted];
      boiled = new Uint32Array(
        mapped,
        eventsAt[0] + AIR_EVENTS.header * 4,
        2 * Math.min(events[AIR_EVENTS.boiled], this.airLimit),
      );
      // Candidates accumulate until a step-start system takes them (at most airLimit waiting).
      const candidates = new Float32Array(mapped, candidatesAt[0], candidatesAt[1] / 4);
      // None from a non-finite GPU state (it is rebuilt from the components).
      airCandidateCount = nonFinite
        ? 0
        : Math.min(events[AIR_EVENTS.candidates], this.airLimit, this.airLimit - this.pendingAirCount);
      this.pendingAir.set(candidates.subarray(0, airCandidateCount * 8), this.pendingAirCount * 8);
      this.pendingAirCount += airCandidateCount;
      this.airArrivedAtStep = Math.max(this.airArrivedAtStep, requestedAtStep);
    }
    const air = { boiled, airDeletedCount, airCandidateCount, airEventsRead: eventsAt !== undefined };
    const impulsesAt = view('impulses');
    if (impulsesAt) this.decodeImpulses(new Uint32Array(mapped, impulsesAt[0], impulsesAt[1] / 4), bodyCount, bodies);
    const coupling = {
      bodyCount,
      bodyEntities: bodies.entities,
      bodyGenerations: bodies.generations,
      bodyImpulses: bodies.impulses,
    };
    if (!particles) return { count, removed, nonFinite, diffusionLimitedSubsteps, ...coupling, ...air };
    // The caller applies the particles at once (gpu/systems.ts, applyReadback).
    this.particlesReadAtStep = Math.max(this.particlesReadAtStep, requestedAtStep);
    const floats = (name: string) => {
      const at = view(name);
      return at ? new Float32Array(mapped, at[0], count * 4) : new Float32Array(0);
    };
    const infoAt = view('info');
    const attributesAt = view('attributes');
    return {
      attributes: attributesAt ? new Float32Array(mapped, attributesAt[0], attributesAt[1] / 4) : undefined,
      count,
      removed,
      nonFinite,
      diffusionLimitedSubsteps,
      position: floats('position'),
      velocity: floats('velocity'),
      info: infoAt ? new Uint32Array(mapped, infoAt[0], count * 4) : new Uint32Array(0),
      infoFloat: infoAt ? new Float32Array(mapped, infoAt[0], count * 4) : new Float32Array(0),
      solve: floats('solve'),
      wall: floats('wall'),
      ...coupling,
      ...air,
    };
  }

  /**
   * Converts `count` accumulators (words of `BodyImpulseAccumulator`s) to impulses: (high x 2^32 + low) quanta
   * per component, exact in float64 up to 2^53 quanta.
   */
  private decodeImpulses(words: Uint32Array, count: number, bodies: { impulses: Float64Array }): void {
    const { linear, angular } = this.impulseQuanta;
    for (let slot = 0; slot < count; slot++) {
      const base = slot * BodyImpulseAccumulator.size;
      const low = word(BodyImpulseAccumulator, 'low', base);
      const high = word(BodyImpulseAccumulator, 'high', base);
      for (let component = 0; component < BODY_IMPULSE_COMPONENTS; component++) {
        const quanta = (words[high + component] | 0) * 4294967296 + words[low + component];
        bodies.impulses[slot * BODY_IMPULSE_COMPONENTS + component] = quanta * (component < 3 ? linear : angular);
      }
    }
  }

  /**
   * Empties the GPU state and queues every live particle of the entity bookkeeping for upload from its
   * components: the next step starts from them (after a non-finite step, from the last mirrored state).
   */
  resetParticles(): void {
    this.buffers.state.update(new Uint32Array(State.size / 4));
    this.removedRead = false;
    this.impulsesDropped = true;
    // Air candidates and events of the abandoned GPU state are dropped.
    this.pendingAirCount = 0;
    this.airRead = true;
    this.airReadAtStep = this.stepsRecorded;
    this.airArrivedAtStep = this.stepsRecorded;
    this.uploads.length = 0;
    this.uploadIndex.clear();
    this.particlesReadAtStep = this.stepsRecorded;
    // The attributes are uploaded from the components again: nothing of the GPU's is left to read.
    this.attributesReadAtStep = this.stepsRecorded;
    const s = this.ctx.solver;
    for (let place = 0; place < s.count; place++) this.queueAppend(s.entity[place]);
  }

  /**
   * Bytes of GPU memory the solver holds now (storage buffers, including the field data, and the readback
   * staging buffers), 0 once disposed. Read-only: for soak tests and memory budgets.
   */
  get bufferBytes(): number {
    if (this.disposed) return 0;
    let bytes = this.impulseScratch.getBuffer().capacity;
    for (const name in this.buffers) {
      if (name !== 'bucketsAtomic') bytes += this.buffers[name].getBuffer().capacity;
    }
    for (const buffer of this.staging) bytes += buffer.size;
    return bytes;
  }

  /** Frees every GPU object. */
  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    for (const name in this.buffers) {
      if (name === 'bucketsAtomic') continue;
      this.buffers[name].dispose();
    }
    this.impulseScratch.dispose();
    for (const buffer of this.staging) buffer.destroy();
  }
}

/** Bits of the pass-list shape for the multi-fluid features (see `updatePassLists`), 0 to 127. */
function multiFluidShape(features: MultiFluidFeatures): number {
  return (
    (features.numberDensity ? 1 : 0) |
    (features.interfaceTension || features.surfaceTension ? 2 : 0) |
    (features.temperatureDiffusion || features.colorDiffusion ? 4 : 0) |
    (features.colliderHeat ? 8 : 0) |
    (features.airGeneration ? 16 : 0) |
    (features.boiling ? 32 : 0) |
    (features.artificialBuoyancy ? 64 : 0)
  );
}
