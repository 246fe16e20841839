/**
 * The pass lists of the WebGPU solver's step (gpu/backend.ts): the head (uploads, begin) dispatched once per
 * step, the passes of every substep, and the last substep's (with the step-end air passes before
 * `writeBack`), in the order of the solver's schedule (`gpuStepOrder`, schedule.ts). They are refilled in
 * place only when their shape changes (not with the substep count, which WCSPH changes from step to step):
 * no allocation per step.
 */

import { ColliderShape } from '../../components/collider';
import type { FluidSolver } from '../../components/settings';
import type { SimulationContext } from '../context';
import { MAX_DIFFUSION_PARTS } from '../multifluid/interaction';
import type { MultiFluidFeatures } from '../multifluid/state';
import { gpuStepOrder } from '../schedule';
import type { Pass } from './compile';
import { type WordViews, word } from './layout';
import type { GpuPlan } from './passes';
import type { NeighbourMode } from './shaderSource';
import { Params } from './structs';

/** The passes a step dispatches, by part of the step; see the file comment. */
export class PassLists {
  /** Dispatched once per step, before the substeps: the uploads (edit, append) and `begin`. */
  readonly head: Pass[] = [];
  /** Every substep's passes but the last's. */
  readonly substep: Pass[] = [];
  /** The last substep's passes: `substep` with the step-end air passes before `writeBack`. */
  readonly lastSubstep: Pass[] = [];
  private shape = -1;
  private readonly passes: Record<string, Pass>;
  private readonly scanPasses: readonly string[];
  private readonly solver: FluidSolver;
  private readonly neighbourMode: NeighbourMode;

  /**
   * Lists over `passes` (every compiled pass by key) for `solver`'s schedule; `scanPasses` are the scan
   * levels' keys in order (see `CompiledPasses`); `neighbourMode` is the solver's (gpu/buffers.ts).
   */
  constructor(
    passes: Record<string, Pass>,
    scanPasses: readonly string[],
    solver: FluidSolver,
    neighbourMode: NeighbourMode,
  ) {
    this.passes = passes;
    this.scanPasses = scanPasses;
    this.solver = solver;
    this.neighbourMode = neighbourMode;
  }

  /**
   * Refills the lists when the shape of the step changed: the projection, the density iterations, whether some material
   * has vorticity, one simple material, coupled colliders, mesh colliders, box containers only, the multi-fluid features and the diffusion parts
   * (read from `ctx` and from the parameters this step wrote at `paramsBase` of the scene words), and the MPS
   * solve's recorded iterations `mpsIterations`.
   */
  update(ctx: SimulationContext, sceneWords: WordViews, paramsBase: number, mpsIterations = 0): void {
    const anyVorticity = sceneWords.u32[word(Params, 'anyVorticity', paramsBase)] === 1;
    const m = ctx.materials;
    const simpleMaterials = m.count <= 1 && (m.count === 0 || Math.fround(m.artificialPressureExponent[0]) === 4);
    const coupled = sceneWords.u32[word(Params, 'coupledCount', paramsBase)] > 0;
    let meshes = false;
    let containerBoxes = true;
    const { Collider } = ctx.components;
    for (let slot = 0; slot < ctx.colliders.count; slot++) {
      const entity = ctx.colliders.entity[slot];
      if (Collider.shape[entity] === ColliderShape.mesh) meshes = true;
      if (Collider.shape[entity] !== ColliderShape.box || Collider.container[entity] !== 1) containerBoxes = false;
    }
    const { iterations } = ctx.settings;
    const features = ctx.solver.multiFluid.features;
    const slots = sceneWords.u32[word(Params, 'diffusionSlots', paramsBase)];
    const projection = ctx.settings.projection;
    const projectionFreeSurface = projection && ctx.settings.projectionFreeSurface;
    const single =
      (iterations << 7) |
      (containerBoxes ? 64 : 0) |
      (projectionFreeSurface ? 32 : 0) |
      (meshes ? 16 : 0) |
      (projection ? 8 : 0) |
      (anyVorticity ? 4 : 0) |
      (simpleMaterials ? 2 : 0) |
      (coupled ? 1 : 0);
    const shape =
      ((single * 128 + multiFluidShape(features)) * (MAX_DIFFUSION_PARTS + 1) + slots) * 131072 + mpsIterations;
    if (shape === this.shape) return;
    this.shape = shape;
    this.build({
      projection,
      projectionFreeSurface,
      iterations,
      vorticity: anyVorticity,
      simpleMaterials,
      coupled,
      meshes,
      containerBoxes,
      features,
      diffusionParts: slots,
      colliderHeat: features.colliderHeat && ctx.colliders.count > 0,
      scanPasses: this.scanPasses,
      neighbourMode: this.neighbourMode,
      diffuse: ctx.settings.diffuseCapacity > 0,
      mpsIterations,
    });
  }

  /** The whole step's passes in order, head and `substeps` substeps (a new array: for the tests and benchmark). */
  all(substeps: number): Pass[] {
    const list = [...this.head];
    for (let substep = 0; substep < substeps; substep++) {
      list.push(...(substep === substeps - 1 ? this.lastSubstep : this.substep));
    }
    return list;
  }

  /**
   * Fills the lists for `plan`: the head (uploads, begin), then every substep's passes and the last
   * substep's, in the order of the solver's schedule (`gpuStepOrder`, schedule.ts).
   */
  private build(plan: GpuPlan): void {
    const p = this.passes;
    this.head.length = 0;
    this.head.push(p.edit, p.append, p.begin);
    const order = gpuStepOrder(this.solver, plan);
    this.substep.length = 0;
    this.lastSubstep.length = 0;
    for (const key of order.substep) this.substep.push(p[key]);
    for (const key of order.lastSubstep) this.lastSubstep.push(p[key]);
  }
}

/** Bits of the pass-list shape for the multi-fluid features (see `PassLists.update`), 0 to 127. */
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
