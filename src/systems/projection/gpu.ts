/**
 * The coarse projection's passes on the WebGPU backend (mirroring projection/cpu.ts step by step; grid.wgsl,
 * transfer.wgsl, solve.wgsl, with the grid helpers of common.wgsl): one substep's projection is sixteen
 * dispatches with no readback in the still-water mode, the default (thirteen with `freeSurface: false`), the
 * conjugate gradients in one workgroup (see solve.wgsl; its size: `oneWorkgroupSize`, gpu/buffers.ts).
 */
import poseSource from '../collide/pose.wgsl?raw';
import { analyticVariant, shapesSource } from '../collide/shapes';
import gpuCommonSource from '../gpu/common.wgsl?raw';
import { type GpuPlan, type PassBinding, type PassDefinition, type PassSize, R, W } from '../gpu/passes';
import { entrySection } from '../gpu/shaderSource';
import projectionCommonSource from './common.wgsl?raw';
import erodeSource from './erode.wgsl?raw';
import gridSource from './grid.wgsl?raw';
import solveSource from './solve.wgsl?raw';
import { SURFACE_LAYERS } from './state';
import transferSource from './transfer.wgsl?raw';

// grid.wgsl has one erosion pass per surface layer.
if (SURFACE_LAYERS !== 2) throw new Error('grid.wgsl erodes two surface layers (erodeFirst, erodeSecond)');

const onGrid = gpuCommonSource + projectionCommonSource;
const withPoses = onGrid + poseSource;
/** The erosion passes' helpers after the grid's (erode.wgsl). */
const eroding = projectionCommonSource + erodeSource;
const withColliders = withPoses + shapesSource;

function pass(
  entry: string,
  file: string,
  prefix: string,
  bindings: readonly PassBinding[],
  size: PassSize,
  aliased = false,
): PassDefinition {
  const key = `projection${entry[0].toUpperCase()}${entry.slice(1)}`;
  return {
    key,
    name: key,
    source: prefix + entrySection(file, entry),
    entry,
    bindings,
    size,
    ...(aliased ? { aliases: { projectionGridAtomic: 'projectionGrid' } } : {}),
  };
}

/**
 * One erosion or growing layer (grid.wgsl with erode.wgsl): the second of each pair also marks the full cells,
 * which needs the scene's kernel radius.
 */
function layerPass(entry: 'erodeFirst' | 'erodeSecond' | 'growFirst' | 'growSecond'): PassDefinition {
  const second = entry.endsWith('Second');
  const bindings: PassBinding[] = [
    ['projectionGrid', R],
    ['projectionCell', W],
  ];
  return pass(
    entry,
    gridSource,
    second ? gpuCommonSource + eroding : eroding,
    second ? [['scene', R], ...bindings] : bindings,
    'cells',
  );
}

/** The projection's passes, in the order of one substep. */
export const projectionPasses: readonly PassDefinition[] = [
  pass(
    'carry',
    gridSource,
    gpuCommonSource,
    [
      ['scene', R],
      ['state', R],
      ['cell', R],
      ['solve', R],
      ['position', R],
      ['velocity', R],
      ['projectionParticle', W],
      ['projectionGridAtomic', W],
    ],
    'particles',
    true,
  ),
  pass(
    'plan',
    gridSource,
    '',
    [
      ['scene', R],
      ['projectionGrid', W],
    ],
    'one',
  ),
  pass(
    'occupancy',
    gridSource,
    onGrid,
    [
      ['scene', R],
      ['projectionGrid', R],
      ['buckets', R],
      ['sortedPredicted', R],
      ['sortedInfo', R],
      ['projectionParticle', R],
      ['projectionCell', W],
    ],
    'cells',
  ),
  pass(
    'classify',
    gridSource,
    withColliders,
    [
      ['scene', R],
      ['state', R],
      ['projectionGrid', R],
      ['projectionCell', W],
      ['fieldValues', R],
    ],
    'cells',
  ),
  layerPass('erodeFirst'),
  layerPass('erodeSecond'),
  layerPass('growFirst'),
  layerPass('growSecond'),
  pass(
    'solvedParticles',
    gridSource,
    onGrid,
    [
      ['scene', R],
      ['state', R],
      ['projectionGrid', R],
      ['sortedPredicted', R],
      ['projectionCell', R],
      ['solve', W],
    ],
    'particles',
  ),
  pass(
    'faces',
    gridSource,
    withPoses,
    [
      ['scene', R],
      ['state', R],
      ['projectionGrid', R],
      ['projectionCell', R],
      ['projectionFace', W],
    ],
    'cells',
  ),
  pass(
    'stencil',
    transferSource,
    onGrid,
    [
      ['scene', R],
      ['state', R],
      ['projectionGrid', R],
      ['sortedPredicted', R],
      ['sortedVelocity', R],
      ['sortedInfo', R],
      ['projectionFace', R],
      ['projectionParticle', W],
    ],
    'particles',
  ),
  pass(
    'scatter',
    transferSource,
    onGrid,
    [
      ['scene', R],
      ['projectionGrid', R],
      ['buckets', R],
      ['projectionParticle', R],
      ['projectionCell', R],
      ['projectionFace', W],
    ],
    'cells',
  ),
  pass(
    'rightHandSide',
    solveSource,
    onGrid,
    [
      ['scene', R],
      ['projectionGrid', R],
      ['projectionCell', W],
      ['projectionFace', R],
    ],
    'cells',
  ),
  pass(
    'solve',
    solveSource,
    onGrid,
    [
      ['scene', R],
      ['state', W],
      ['projectionGrid', W],
      ['projectionCell', W],
      ['projectionFace', R],
    ],
    'one',
  ),
  pass(
    'changes',
    transferSource,
    projectionCommonSource,
    [
      ['projectionGrid', R],
      ['projectionCell', R],
      ['projectionFace', W],
    ],
    'cells',
  ),
  pass(
    'gather',
    transferSource,
    onGrid,
    [
      ['scene', R],
      ['state', R],
      ['projectionGrid', R],
      ['sortedPredicted', W],
      ['sortedVelocity', W],
      ['sortedInfo', R],
      ['projectionParticle', R],
      ['projectionFace', R],
    ],
    'particles',
  ),
];

/** The classification's variant for steps without mesh colliders (see `analyticVariant`). */
export const projectionVariants: readonly PassDefinition[] = [
  analyticVariant(projectionPasses.find((definition) => definition.key === 'projectionClassify') as PassDefinition),
];

/**
 * The passes that only the still-water mode (`projection.freeSurface`) runs: the eroded layers grow back, and
 * each particle learns whether the solve holds its cell (for the s_corr rest offset).
 */
const FREE_SURFACE_PASSES = new Set(['projectionGrowFirst', 'projectionGrowSecond', 'projectionSolvedParticles']);

/**
 * The projection's passes in a substep of `plan` (none when the projection is off); without mesh colliders,
 * the classification's `Analytic` variant; the growing passes and `solvedParticles` only with
 * `projection.freeSurface`.
 */
export function projectionGpuPasses(plan: GpuPlan): string[] {
  if (!plan.projection) return [];
  return projectionPasses
    .filter((definition) => plan.projectionFreeSurface || !FREE_SURFACE_PASSES.has(definition.key))
    .map((definition) =>
      definition.key === 'projectionClassify' && !plan.meshes ? 'projectionClassifyAnalytic' : definition.key,
    );
}
