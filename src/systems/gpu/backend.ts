/**
 * The WebGPU backend: the step's heavy passes as Babylon compute shaders over storage buffers that stay on
 * the GPU (docs/ARCHITECTURE.md, "Layers"). The CPU keeps the entity bookkeeping (which entities are particles, the
 * emitters' spawning, validation of every component game code may edit) and uploads, once per step before
 * any dispatch, the scene (parameters, materials, colliders and their poses for every substep, drains) and
 * the particles it added or game code edited. The substep index lives in a GPU counter the write-back advances,
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
 * Trapped air and boiling (sections 3.4 and 4.4, multifluid/airFields.wgsl): gpu/airEvents.ts says when they
 * run and when a readback takes their events.
 *
 * The class keeps the step's state and order; its parts live next to it: buffers.ts (sizes and storage
 * buffers), compile.ts (the passes), passLists.ts (which passes a step dispatches), uploads.ts (the upload
 * queue), fields.ts (the signed distance fields), scene.ts (the scene buffer), impulses.ts (the coupled bodies'
 * impulse accumulators), airEvents.ts, staging.ts (the staging buffers), readback.ts (what a readback brings
 * and its decoding) and testHooks.ts (the parity tests' and benchmark's hooks).
 */
import '@babylonjs/core/Engines/WebGPU/Extensions/engine.computeShader.js';
import { StorageBuffer } from '@babylonjs/core/Buffers/storageBuffer.js';
import type { WebGPUEngine } from '@babylonjs/core/Engines/webgpuEngine.js';
import { FluidError } from '../../core/errors';
import type { SimulationContext } from '../context';
import { MPS_GPU_FEWEST_ITERATIONS, MPS_GPU_FIRST_ITERATIONS, MPS_GPU_TOLERANCE_FLOOR } from '../mps/gpu';
import { type AirCandidates, AirEventBook } from './airEvents';
import {
  adapterDescription,
  BUFFER_ALIASES,
  createStorageBuffers,
  freeDiffusePool,
  neighbourMode,
  oneWorkgroupSize,
  runsOnCpu,
  solverSizes,
} from './buffers';
import {
  compilePasses,
  dispatchPass,
  type Pass,
  passCompilationErrors,
  passesReady,
  rebindBuffer,
  STORAGE_FLAGS,
  whenPassesReady,
} from './compile';
import { fieldNodes, packFields, sameFields } from './fields';
import { ImpulseAccumulators } from './impulses';
import { createWordViews, type StructLayout, type WordViews, word } from './layout';
import type { PassSize } from './passes';
import { PassLists } from './passLists';
import {
  decodeAirEvents,
  decodeDiffuse,
  decodeParticles,
  decodeRemoved,
  decodeState,
  type GpuReadback,
  type ReadbackRequest,
} from './readback';
import { type SceneStep, writeSceneWords } from './scene';
import type { NeighbourMode } from './shaderSource';
import { StagingBuffers, StagingCopy } from './staging';
import {
  AIR_EVENTS,
  BodyImpulseAccumulator,
  type BufferName,
  bodyImpulseQuanta,
  DIFFUSE_COUNTERS,
  DiffuseParticle,
  Params,
  ParticleInfo,
  PROJECTION_CELL_GROUPS,
  SCAN_BLOCK,
  State,
  WORKGROUP_SIZE,
} from './structs';
import { adapterForTests, dispatchUntil, neighbourModeForTests, profilePasses, readBufferBytes } from './testHooks';
import { UploadQueue } from './uploads';

export type { AirCandidates } from './airEvents';
export { MAX_POSE_BYTES } from './buffers';
export type { GpuReadback } from './readback';

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
  private readonly bucketLength: number;
  /**
   * How the gathering passes find their neighbours: per-substep lists where they fit the device's
   * storage-buffer limits, else the 27 cells (see `neighbourMode`, gpu/buffers.ts).
   */
  readonly neighbourMode: NeighbourMode;
  /** Most cells of the projection's grid (the `cells` passes' dispatch size). */
  private readonly projectionCells: number;
  private readonly buffers: Record<string, StorageBuffer>;
  private fieldBuffer: StorageBuffer;
  private fieldsVersion: readonly unknown[] = [];
  private fieldNodeCount = 0;
  private readonly passes: Record<string, Pass>;
  private readonly passLists: PassLists;
  private readonly uploads: UploadQueue;
  /** The readback's staging buffers (staging.ts). */
  private readonly staging: StagingBuffers;
  /** `staging.busy`, the same array (tests/browser/coupling.ts reads it under this name). */
  private readonly stagingBusy: boolean[];
  /** Upper bound of the live particles on the GPU (the CPU's count: removals reach it later). */
  private boundCount = 0;
  private disposed = false;
  /** Set when a readback took the removed ids: the next step resets their count on the GPU. */
  private removedRead = false;
  private readonly zeroWord = new Uint32Array(1);
  /** The coupled bodies' impulse accumulators (see impulses.ts); `impulseScratch` is their remapping buffer. */
  private readonly impulses: ImpulseAccumulators;
  private readonly impulseScratch: StorageBuffer;
  /** True once the wall buffer has room for the coupled colliders' wall-gradient shares (see lambda.wgsl). */
  private wallShares = false;
  /** Most air candidates and boiled events one readback holds: airGenerationLimit(capacity). */
  private readonly airLimit: number;
  /**
   * Air generation candidates read back and not yet created (8 floats each: position xyz, material slot,
   * velocity xyz, source entity); see {@link WebGpuSolver.takeAirCandidates}.
   */
  private readonly pendingAir: Float32Array;
  private pendingAirCount = 0;
  /** When readbacks take the air events and steps may propose air (see airEvents.ts). */
  private readonly air = new AirEventBook();
  private readonly zeroAirHeader = new Uint32Array(AIR_EVENTS.header);
  /** The step values the scene writers read, updated in place (no object per step). */
  private readonly sceneStep: SceneStep;
  /**
   * MPS (`solver: 'mps'`): the pressure solve's conjugate gradient iterations each substep records (0 for the
   * other solvers); see {@link WebGpuSolver.noteMpsSolve}.
   */
  private mpsIterations = 0;
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

  constructor(engine: WebGPUEngine, ctx: SimulationContext) {
    this.engine = engine;
    this.ctx = ctx;
    const settings = ctx.settings;
    const sizes = solverSizes(ctx);
    this.scene = sizes.scene;
    this.headerBytes = sizes.headerBytes;
    this.sceneWords = createWordViews(sizes.sceneBytes);
    this.bucketLength = sizes.bucketLength;
    this.projectionCells = sizes.projectionCells;
    this.airLimit = sizes.airLimit;
    this.staging = new StagingBuffers(sizes.stagingBytes, settings.maxColliders);
    this.stagingBusy = this.staging.busy;
    this.neighbourMode = neighbourModeForTests.mode ?? neighbourMode(sizes.neighbourListBytes, engine._device.limits);
    this.buffers = createStorageBuffers(engine, ctx, sizes, this.neighbourMode);
    this.positionBuffer = this.buffers.position;
    this.fieldBuffer = this.buffers.fieldValues;
    this.pendingAir = new Float32Array(sizes.airLimit * 8);
    this.impulseScratch = new StorageBuffer(engine, sizes.accumulatorBytes, STORAGE_FLAGS, 'fluid-impulseScratch');
    const quanta = bodyImpulseQuanta(settings.particleRadius, settings.timeStep / settings.substeps);
    this.impulses = new ImpulseAccumulators(this.impulseScratch, settings.maxColliders, ctx.entityCapacity, quanta);
    this.uploads = new UploadQueue(settings.capacity, ctx.entityCapacity);
    this.sceneStep = {
      tableSize: sizes.tableSize,
      neighbourListBase: sizes.bucketLength,
      neighbourStride: sizes.neighbourStride,
      appendCount: 0,
      editCount: 0,
      airLimit: sizes.airLimit,
      stepsRecorded: 0,
      airGenerationOpen: true,
      impulseQuanta: quanta,
      projectionCells: sizes.projectionCells,
    };
    const adapter = adapterForTests.description ?? adapterDescription(engine);
    const compiled = compilePasses(
      {
        engine,
        scene: this.scene,
        buffers: this.buffers,
        bucketLength: this.bucketLength,
        neighbourMode: this.neighbourMode,
        oneWorkgroupSize: oneWorkgroupSize(adapter),
        groupsOf: (size) => this.groupsOf(size),
        // On a CPU adapter the projection's cell passes run over the grid's cells only (dispatched from the
        // workgroups `plan` wrote): there a workgroup past the grid still runs the pass's code, masked. On a
        // GPU those return at once, and Dawn checks each indirect dispatch with a pass of its own
        // (docs/performance.md), so they run over the largest grid. The grid's buffer never changes size.
        indirectOf: (size) =>
          size === 'cells' && runsOnCpu(adapter)
            ? { buffer: this.buffers.projectionGrid, offset: PROJECTION_CELL_GROUPS }
            : undefined,
      },
      settings.solver,
      settings.diffuseCapacity > 0,
    );
    this.passes = compiled.passes;
    this.passLists = new PassLists(this.passes, compiled.scanPasses, settings.solver, this.neighbourMode);
    if (settings.solver === 'mps') this.mpsIterations = MPS_GPU_FIRST_ITERATIONS;
  }

  /**
   * The conjugate gradient iterations each MPS substep records now: at most `mps.maxIterations`. The GPU stops
   * iterating once the solve converged; the recorded passes left return at once.
   */
  get mpsRecordedIterations(): number {
    const most = this.ctx.mps?.settings.maxIterations ?? 0;
    return Math.min(this.mpsIterations, most);
  }

  /**
   * Adapts the MPS solve's recorded iterations to what a readback reports (its largest `iterations` over a
   * step's substeps and their largest relative `residual`): doubled, up to `mps.maxIterations`, when a solve
   * used every recorded iteration without reaching the tolerance (the GPU's floor {@link MPS_GPU_TOLERANCE_FLOOR}
   * applies); halved, down to {@link MPS_GPU_FEWEST_ITERATIONS}, when the solves needed less than a quarter.
   * Returns true when a solve was limited (it stopped at the recorded count, above the tolerance) and the
   * count could grow (it was below `mps.maxIterations`).
   */
  noteMpsSolve(iterations: number, residual: number): boolean {
    const settings = this.ctx.mps?.settings;
    if (!settings || this.mpsIterations === 0) return false;
    const recorded = this.mpsRecordedIterations;
    const tolerance = Math.max(settings.tolerance, MPS_GPU_TOLERANCE_FLOOR);
    const limited = iterations >= recorded && !(residual <= tolerance);
    if (limited) this.mpsIterations = Math.min(settings.maxIterations, 2 * recorded);
    else if (4 * iterations < recorded) this.mpsIterations = Math.max(MPS_GPU_FEWEST_ITERATIONS, recorded >> 1);
    return limited && recorded < settings.maxIterations;
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

  /** Workgroups of a pass of size `size` (see `PassSize`), evaluated when it is dispatched. */
  private groupsOf(size: PassSize): () => number {
    switch (size) {
      case 'particles':
        return () => Math.ceil(this.boundCount / WORKGROUP_SIZE);
      case 'particlesAndOne':
        return () => Math.max(1, Math.ceil(this.boundCount / WORKGROUP_SIZE));
      case 'one':
        return () => 1;
      case 'edits':
        return () => Math.ceil(this.uploads.editCount / WORKGROUP_SIZE);
      case 'appends':
        return () => Math.ceil(this.uploads.appendCount / WORKGROUP_SIZE);
      case 'buckets':
        return () => Math.ceil(this.bucketLength / SCAN_BLOCK);
      case 'cells':
        // The largest grid's (on a CPU adapter these passes are dispatched indirectly: see indirectOf).
        return () => Math.ceil(this.projectionCells / WORKGROUP_SIZE);
      case 'diffuse':
        return () => Math.ceil(this.ctx.settings.diffuseCapacity / WORKGROUP_SIZE);
    }
  }

  /**
   * Records that the GPU holds material entity `material` for particle `entity` (a boil event a readback
   * brought, applied to `Particle.material` by gpu/systems.ts): later edits of the particle that leave
   * `Particle.material` at this value keep the GPU's material.
   */
  noteGpuMaterial(entity: number, material: number): void {
    this.uploads.noteGpuMaterial(entity, material);
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

  /** True once every compute shader has compiled (asked of the shaders until then, remembered after). */
  isReady(): boolean {
    if (!this.compiled) this.compiled = passesReady(this.passes);
    return this.compiled;
  }

  /** Every compute shader has compiled (see `isReady`): a compiled shader stays so for the backend's life. */
  private compiled = false;

  /** Compilation errors of the passes so far (name: message). */
  compilationErrors(): string[] {
    return passCompilationErrors(this.passes);
  }

  /** Resolves when every compute shader has compiled; throws {@link FluidError} if one fails to compile. */
  async whenReady(): Promise<void> {
    await whenPassesReady(this.passes);
    this.compiled = true;
  }

  /** Queues particle `entity`, just created on the CPU, to be added to the GPU at the next step. */
  queueAppend(entity: number): void {
    this.uploads.queue(entity, 'append');
  }

  /** Queues the upload of particle `entity`'s components (position, velocity, material) at the next step. */
  queueEdit(entity: number): void {
    this.uploads.queue(entity, 'edit');
  }

  /** Queues the removal of particle `entity` at the next step (it leaves with the step's readback). */
  queueRemove(entity: number): void {
    this.uploads.queue(entity, 'remove');
  }

  /**
   * Drops the queued append of `entity` (created and removed before any step): returns true if there was
   * one, and the entity never reached the GPU.
   */
  cancelAppend(entity: number): boolean {
    return this.uploads.cancelAppend(entity);
  }

  /** True when an upload of `entity` waits for the next step (its components are newer than the GPU's). */
  isPending(entity: number): boolean {
    return this.uploads.has(entity);
  }

  /** Concatenates the simulation's signed distance fields into the field buffer when the list changed (fields.ts). */
  private writeFields(): void {
    const fields = this.ctx.colliders.fields;
    if (sameFields(fields, this.fieldsVersion)) return;
    this.fieldsVersion = fields.slice();
    const nodes = fieldNodes(fields);
    if (nodes > this.fieldNodeCount) {
      this.fieldBuffer.dispose();
      this.fieldBuffer = new StorageBuffer(this.engine, Math.max(16, nodes * 16), STORAGE_FLAGS, 'fluid-fieldValues');
      this.buffers.fieldValues = this.fieldBuffer;
      this.fieldNodeCount = nodes;
      rebindBuffer(this.passes, 'fieldValues', this.fieldBuffer);
    }
    const all = packFields(fields, this.scene, this.sceneWords, nodes);
    if (nodes > 0) this.fieldBuffer.update(all);
  }

  /** Writes parameters, materials, colliders, drains and poses for every substep of this step (scene.ts). */
  private writeScene(): void {
    const step = this.sceneStep;
    step.appendCount = this.uploads.appendCount;
    step.editCount = this.uploads.editCount;
    step.stepsRecorded = this.stepsRecorded;
    step.airGenerationOpen = this.air.generationOpen;
    const bytes = writeSceneWords(this.ctx, this.scene, this.sceneWords, step, this.headerBytes);
    this.buffers.scene.update(this.sceneWords.u32, 0, bytes);
  }

  /** Refills the pass lists from this step's parameters when the step's shape changed (see passLists.ts). */
  private updatePassLists(): void {
    this.passLists.update(this.ctx, this.sceneWords, this.scene.offsets.params, this.mpsRecordedIterations);
  }

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
    this.uploads.forEachCarryingComponents(visit);
  }

  /**
   * True when the particle components hold the velocities the GPU ended the last recorded step with: a
   * particle readback requested after that step has arrived (or no step ran since the GPU state was built
   * from the components). WCSPH and MPS plan their substeps from them only then (sph/cpu.ts, mps/cpu.ts).
   */
  velocitiesCurrent(): boolean {
    return this.particlesReadAtStep === this.stepsRecorded;
  }

  /** Uploads what changed, records the step's dispatches and submits them. */
  step(): void {
    this.prepare();
    this.updatePassLists();
    for (const pass of this.passLists.head) dispatchPass(pass);
    // The step's substep count: `settings.substeps`, or WCSPH's adaptive count (ctx.substepCount).
    const substeps = this.ctx.substepCount;
    for (let substep = 0; substep < substeps; substep++) {
      const passes = substep === substeps - 1 ? this.passLists.lastSubstep : this.passLists.substep;
      for (const pass of passes) dispatchPass(pass);
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
    if (this.removedRead) {
      this.buffers.state.update(this.zeroWord, State.offsets.removedCount, 4);
      this.removedRead = false;
    }
    // The air events' counters restart once a readback took them; air generation only while no earlier
    // step's candidates wait (see `AirEventBook.beginStep`).
    const features = this.ctx.solver.multiFluid.features;
    if (this.air.beginStep(this.stepsRecorded, features, this.pendingAirCount)) {
      this.buffers.airEvents.update(this.zeroAirHeader, 0, AIR_EVENTS.header * 4);
    }
    this.uploads.write(this.ctx, this.buffers.records);
    this.writeFields();
    this.writeScene();
    const coupled = this.sceneWords.u32[word(Params, 'coupledCount', this.scene.offsets.params)] > 0;
    if (coupled) this.addWallShares();
    this.impulses.map(this.engine, this.gpuBuffer('impulses'), this.ctx, coupled);
    this.boundCount = this.ctx.solver.count;
    // This step's diffusion and heat passes (see passLists.ts) change the attributes.
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
   * gradients and the two coupled-collider shares the lambda pass keeps (Params.wallShareOffset = capacity);
   * for MPS to six: its two blocks of wall sums and two per share (mps/apply.wgsl).
   */
  private addWallShares(): void {
    if (this.wallShares) return;
    this.wallShares = true;
    this.buffers.wall.dispose();
    const blocks = this.ctx.settings.solver === 'mps' ? 6 : 3;
    const wall = new StorageBuffer(this.engine, this.ctx.settings.capacity * 16 * blocks, STORAGE_FLAGS, 'fluid-wall');
    this.buffers.wall = wall;
    rebindBuffer(this.passes, 'wall', wall);
  }

  /**
   * Tells the solver that collider `entity` was removed: impulses it received that no readback has applied
   * yet are dropped, also if the entity id is reused by a new collider before they arrive.
   */
  forgetCollider(entity: number): void {
    this.impulses.forget(entity);
  }

  /** The generation of collider `entity` (see {@link WebGpuSolver.forgetCollider}), to match readbacks with it. */
  colliderGeneration(entity: number): number {
    return this.impulses.generationOf(entity);
  }

  /**
   * For the parity tests: uploads as `step` does and records the step's passes up to and including the
   * `occurrence`-th pass named `stopAfter` (1 = its first run), leaving the rest of the step undone.
   */
  stepUntil(stopAfter: string, occurrence = 1): void {
    this.prepare();
    this.updatePassLists();
    dispatchUntil(this.passLists.all(this.ctx.substepCount), stopAfter, occurrence);
  }

  /** For the parity tests: the first `bytes` of buffer `name`, read back now. */
  async readBuffer(name: BufferName, bytes: number): Promise<ArrayBuffer> {
    return await readBufferBytes(this.buffers[name], bytes);
  }

  /**
   * The same step as {@link step}, submitted and waited for after every pass: milliseconds per pass name
   * (summed over substeps and iterations). For the benchmark; slower than `step` by the waits.
   */
  async profileStep(): Promise<Record<string, number>> {
    this.prepare();
    return await profilePasses(this.engine, () => {
      this.updatePassLists();
      return this.passLists.all(this.ctx.substepCount);
    });
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
    const index = this.staging.acquire(this.engine._device);
    if (index < 0) return undefined;
    const request = this.recordReadback(index, particles);
    try {
      await this.staging.buffers[index].mapAsync(GPUMapMode.READ, 0, request.copies.bytes);
    } catch (error) {
      this.stagingBusy[index] = false;
      throw error;
    }
    return this.decodeReadback(this.staging.takeCopy(index, request.copies.bytes), request);
  }

  /**
   * Records and submits a readback's copies into staging buffer `index`: the state, the removed ids, the
   * impulses, the particles when `particles` is true, and the air events when this readback takes them.
   */
  private recordReadback(index: number, particles: boolean): ReadbackRequest {
    const atStep = this.stepsRecorded;
    const bound = this.boundCount;
    const encoder = this.engine._device.createCommandEncoder();
    const copies = new StagingCopy(encoder, this.staging.buffers[index], (name) => this.gpuBuffer(name));
    copies.copy('state', State.size);
    // The count of substeps with limited diffusion restarts once copied (same submission, in order).
    encoder.clearBuffer(this.gpuBuffer('state'), State.offsets.diffusionLimited, 4);
    copies.copy('removed', bound * 4);
    // The impulse accumulators of the colliders of the last step, zeroed in the same submission: every
    // impulse is read exactly once, however many steps ran since the last readback.
    const bodies = this.staging.bodies[index];
    const bodyCount = this.impulses.entriesForReadback(bodies);
    copies.copy('impulses', bodyCount * BodyImpulseAccumulator.size);
    this.impulses.clearAfterCopy(encoder, this.gpuBuffer('impulses'));
    if (particles) {
      copies.copy('position', bound * 16);
      copies.copy('velocity', bound * 16);
      copies.copy('info', bound * ParticleInfo.size);
      copies.copy('solve', bound * 16);
      copies.copy('wall', bound * 16);
      // While a step's diffusion or heat passes changed them since the newest completed copy, whatever the
      // features are now (one may have been switched off meanwhile).
      if (this.attributesDirty) copies.copy('attributes', this.ctx.entityCapacity * 16);
      // White water's pool, mirrored into `simulation.diffuseParticles` with the particles.
      if (this.ctx.settings.diffuseCapacity > 0) {
        copies.copy('diffuseParticles', this.ctx.settings.diffuseCapacity * DiffuseParticle.size);
      }
    }
    // White water's counters of the last step, with every readback (the stats).
    if (this.ctx.settings.diffuseCapacity > 0) copies.copy('diffuseCounters', DIFFUSE_COUNTERS.words * 4);
    // Trapped air and boiling: the event words and the candidates, with every readback (as the removed ids)
    // that takes them (see `AirEventBook.takeEvents`).
    if (this.air.takeEvents(this.stepsRecorded)) {
      copies.copy('airEvents', (AIR_EVENTS.header + 2 * this.airLimit) * 4);
      copies.copy('airCandidates', this.airLimit * 32);
    }
    this.engine.flushFramebuffer();
    this.engine._device.queue.submit([encoder.finish()]);
    this.removedRead = true;
    return { atStep, bound, particles, copies, bodyCount, bodies };
  }

  /**
   * Decodes the mapped copy of `request` (readback.ts) and notes what it brought: the attributes and
   * particles read, the air candidates added to the pending list, the impulses.
   */
  private decodeReadback(mapped: ArrayBuffer, request: ReadbackRequest): GpuReadback {
    const { copies, atStep, bodyCount, bodies } = request;
    const decoded = decodeState(mapped, request.bound);
    const { count, nonFinite, diffusionLimitedSubsteps, projectionIterations, removedCount } = decoded;
    const { pressureSolveIterations, pressureSolveResidual } = decoded;
    if (copies.at('attributes')) this.attributesReadAtStep = Math.max(this.attributesReadAtStep, atStep);
    const removed = decodeRemoved(mapped, copies, removedCount);
    const air = decodeAirEvents(mapped, copies, nonFinite, this.airLimit, this.pendingAir, this.pendingAirCount);
    if (copies.at('airEvents') && copies.at('airCandidates')) {
      this.pendingAirCount += air.airCandidateCount;
      this.air.arrived(atStep);
    }
    const impulsesAt = copies.at('impulses');
    if (impulsesAt) this.impulses.decode(new Uint32Array(mapped, impulsesAt[0], impulsesAt[1] / 4), bodyCount, bodies);
    const coupling = {
      bodyCount,
      bodyEntities: bodies.entities,
      bodyGenerations: bodies.generations,
      bodyImpulses: bodies.impulses,
    };
    const diffuse = decodeDiffuse(mapped, copies);
    const counters = {
      count,
      removed,
      nonFinite,
      diffusionLimitedSubsteps,
      projectionIterations,
      pressureSolveIterations,
      pressureSolveResidual,
      ...diffuse,
    };
    if (!request.particles) return { ...counters, ...coupling, ...air };
    // The caller applies the particles at once (gpu/systems.ts, applyReadback).
    this.particlesReadAtStep = Math.max(this.particlesReadAtStep, atStep);
    const read = decodeParticles(mapped, copies, count);
    // `attributes` first: the particle readback's keys in their documented order.
    const { attributes } = read;
    return { attributes, ...counters, ...read, ...coupling, ...air };
  }

  /**
   * Empties the GPU state and queues every live particle of the entity bookkeeping for upload from its
   * components: the next step starts from them (after a non-finite step, from the last mirrored state).
   */
  resetParticles(): void {
    this.buffers.state.update(new Uint32Array(State.size / 4));
    // White water's pool starts empty again (a restore drops the diffuse particles, as on the CPU).
    const diffuseCapacity = this.ctx.settings.diffuseCapacity;
    if (diffuseCapacity > 0) {
      this.buffers.diffuseParticles.update(new Uint8Array(diffuseCapacity * DiffuseParticle.size));
      this.buffers.diffuseCounters.update(freeDiffusePool(diffuseCapacity));
    }
    this.removedRead = false;
    this.impulses.drop();
    // Air candidates and events of the abandoned GPU state are dropped.
    this.pendingAirCount = 0;
    this.air.reset(this.stepsRecorded);
    this.uploads.clear();
    this.particlesReadAtStep = this.stepsRecorded;
    // The attributes are uploaded from the components again: nothing of the GPU's is left to read.
    this.attributesReadAtStep = this.stepsRecorded;
    const s = this.ctx.solver;
    for (let place = 0; place < s.count; place++) this.queueAppend(s.entity[place]);
    // MPS: the warm start of the pressure solve from the CPU's copy (a restored snapshot, or the last particle
    // readback's pressures).
    const mps = this.ctx.mps;
    if (this.ctx.settings.solver === 'mps' && mps)
      this.buffers.mpsPressure.update(new Float32Array(mps.pressureOfEntity));
  }

  /**
   * Bytes of GPU memory the solver holds now (storage buffers, including the field data, and the readback
   * staging buffers), 0 once disposed. Read-only: for soak tests and memory budgets.
   */
  get bufferBytes(): number {
    if (this.disposed) return 0;
    let bytes = this.impulseScratch.getBuffer().capacity;
    for (const name in this.buffers) {
      if (!(name in BUFFER_ALIASES)) bytes += this.buffers[name].getBuffer().capacity;
    }
    return bytes + this.staging.gpuBytes;
  }

  /** Frees every GPU object. */
  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    for (const name in this.buffers) {
      if (name in BUFFER_ALIASES) continue;
      this.buffers[name].dispose();
    }
    this.impulseScratch.dispose();
    this.staging.destroy();
  }
}
