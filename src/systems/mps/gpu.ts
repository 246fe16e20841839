/**
 * The MPS passes on the WebGPU backend (`solver: 'mps'`, mirroring mps/cpu.ts and mps/pressure.ts; Premoze et
 * al. 2003, Algorithm 1): explicit viscosity (viscosity.wgsl), particle collisions and their advance
 * (collision.wgsl), number densities at the start, predicted and corrected positions with the ghost walls
 * (density.wgsl, walls.wgsl), the matrix-free assembly of the pressure equation (assemble.wgsl), its
 * Jacobi-preconditioned conjugate gradients with GPU reductions (cg.wgsl) and the pressure correction
 * (correction.wgsl), with the shared predict, sort, collide and velocity passes around them (the MPS schedule,
 * schedule.ts); with coupled colliders the drifts and the walls' pressure load on the bodies (apply.wgsl) and
 * the coupled variants of the collide and velocity passes. The parameters the passes read come from
 * {@link writeMpsParameters}, with the CPU's formulas.
 */

import { collidePassKey } from '../collide/gpu';
import poseSource from '../collide/pose.wgsl?raw';
import { analyticVariant, shapesSource } from '../collide/shapes';
import type { SimulationContext } from '../context';
import impulseSource from '../couple/impulse.wgsl?raw';
import commonSource from '../gpu/common.wgsl?raw';
import { type WordViews, word } from '../gpu/layout';
import { type GpuPasses, type PassBinding, type PassDefinition, R, W } from '../gpu/passes';
import { entrySection } from '../gpu/shaderSource';
import { Params } from '../gpu/structs';
import applySource from './apply.wgsl?raw';
import assembleSource from './assemble.wgsl?raw';
import cgSource from './cg.wgsl?raw';
import collisionSource from './collision.wgsl?raw';
import mpsCommonSource from './common.wgsl?raw';
import correctionSource from './correction.wgsl?raw';
import { DIMENSION, MPS_MINIMUM_DISTANCE_FRACTION } from './data';
import densitySource from './density.wgsl?raw';
import { mpsCompressibilityScale, mpsOperatorScale, mpsViscosityScale } from './pressure';
import { mpsState } from './state';
import viscositySource from './viscosity.wgsl?raw';
import wallsSource from './walls.wgsl?raw';

/**
 * The floor of the relative tolerance of the GPU's conjugate gradients: in float32 the true residual |b - A x|
 * stops falling near 1e-6 to 1e-5 |b| while the recurrence's keeps falling, so a tighter `mps.tolerance` (the
 * default is 1e-6) would only run the recorded iterations out (measured on the parity scenes of
 * tests/browser/mps.ts).
 */
export const MPS_GPU_TOLERANCE_FLOOR = 1e-5;

/** Conjugate gradient iterations a substep records at first (`WebGpuSolver` adapts it, see `mpsRecordedIterations`). */
export const MPS_GPU_FIRST_ITERATIONS = 64;

/** The fewest conjugate gradient iterations a substep records. */
export const MPS_GPU_FEWEST_ITERATIONS = 16;

const mpsHead = commonSource + mpsCommonSource;
const wallHead = mpsHead + poseSource + shapesSource + wallsSource;

function pass(
  key: string,
  source: string,
  entry: string,
  bindings: readonly PassBinding[],
  size: PassDefinition['size'] = 'particles',
): PassDefinition {
  return { key, name: key, source, entry, bindings, size };
}

const density = (entry: string) => wallHead + entrySection(densitySource, entry);
const cg = (entry: string) => mpsHead + entrySection(cgSource, entry);
const scalarBindings: readonly PassBinding[] = [
  ['scene', R],
  ['state', R],
  ['mpsPartials', R],
  ['mpsSolve', W],
];

const startDensity: PassDefinition = {
  ...pass('mpsStartDensity', density('start'), 'start', [
    ['scene', R],
    ['state', R],
    ['sortedPosition', R],
    ['sortedPredicted', R],
    ['neighbourTable', R],
    ['mps', W],
    ['fieldValues', R],
  ]),
  // Pairs within r_e at the start positions: the cells, not the lists of x* pairs.
  neighbourLoop: 'cells',
};
const numberDensity = pass('mpsNumberDensity', density('predicted'), 'predicted', [
  ['scene', R],
  ['state', R],
  ['sortedPredicted', R],
  ['sortedPosition', R],
  ['neighbourTable', R],
  ['wall', W],
  ['mps', W],
  ['fieldValues', R],
]);
const endDensity = pass('mpsEndDensity', density('end'), 'end', [
  ['scene', R],
  ['state', R],
  ['sortedPredicted', R],
  ['sortedPosition', R],
  ['neighbourTable', R],
  ['mps', R],
  ['solve', W],
  ['fieldValues', R],
]);

/** Every MPS pass (the density passes also in their `Analytic` variants). */
export const mpsPasses: readonly PassDefinition[] = [
  pass('mpsViscosity', mpsHead + viscositySource, 'main', [
    ['scene', R],
    ['state', R],
    ['sortedPredicted', R],
    ['neighbourTable', R],
    ['sortedVelocity', R],
    ['delta', W],
  ]),
  pass('mpsCollision', mpsHead + entrySection(collisionSource, 'collide'), 'collide', [
    ['scene', R],
    ['state', R],
    ['sortedPredicted', R],
    ['neighbourTable', R],
    ['sortedVelocity', R],
    ['sortedPosition', R],
    ['delta', R],
    ['omega', W],
  ]),
  pass('mpsAdvance', entrySection(collisionSource, 'advance'), 'advance', [
    ['scene', R],
    ['state', R],
    ['sortedVelocity', W],
    ['omega', R],
    ['delta', W],
  ]),
  startDensity,
  analyticVariant(startDensity),
  numberDensity,
  analyticVariant(numberDensity),
  pass('mpsAssemble', mpsHead + assembleSource, 'main', [
    ['scene', R],
    ['state', R],
    ['sortedPosition', R],
    ['sortedPredicted', R],
    ['neighbourTable', R],
    ['sortedInfo', R],
    ['mps', W],
    ['mpsPressure', R],
  ]),
  pass('mpsCgStart', cg('start'), 'start', [
    ['scene', R],
    ['state', R],
    ['sortedPredicted', R],
    ['neighbourTable', R],
    ['mps', W],
    ['mpsPartials', W],
  ]),
  pass('mpsCgBegin', cg('begin'), 'begin', scalarBindings, 'one'),
  pass('mpsCgProduct', cg('product'), 'product', [
    ['scene', R],
    ['state', R],
    ['sortedPredicted', R],
    ['neighbourTable', R],
    ['mps', W],
    ['mpsSolve', R],
    ['mpsPartials', W],
  ]),
  pass('mpsCgAlpha', cg('alpha'), 'alpha', scalarBindings, 'one'),
  pass('mpsCgUpdate', cg('update'), 'update', [
    ['scene', R],
    ['state', R],
    ['mps', W],
    ['mpsSolve', R],
    ['mpsPartials', W],
  ]),
  pass('mpsCgBeta', cg('beta'), 'beta', scalarBindings, 'one'),
  pass('mpsCgResidual', cg('residual'), 'residual', [
    ['scene', R],
    ['state', R],
    ['sortedPredicted', R],
    ['neighbourTable', R],
    ['sortedInfo', R],
    ['mps', W],
    ['mpsPartials', W],
    ['mpsPressure', W],
  ]),
  pass(
    'mpsCgFinish',
    cg('finish'),
    'finish',
    [
      ['scene', R],
      ['state', W],
      ['mpsPartials', R],
      ['mpsSolve', W],
    ],
    'one',
  ),
  pass('mpsCorrection', mpsHead + correctionSource, 'main', [
    ['scene', R],
    ['state', R],
    ['sortedPredicted', R],
    ['sortedPosition', R],
    ['neighbourTable', R],
    ['wall', R],
    ['mps', R],
    ['delta', W],
  ]),
  endDensity,
  analyticVariant(endDensity),
  // With coupled colliders, before each coupled collide pass.
  pass('mpsApply', commonSource + poseSource + impulseSource + applySource, 'main', [
    ['scene', R],
    ['state', R],
    ['sortedPredicted', W],
    ['delta', R],
    ['wall', R],
    ['contact', W],
    ['impulses', W],
  ]),
];

/**
 * The passes of the MPS pressure entry of one substep (mpsPressureSystem on the CPU), for `plan`: collide the
 * drift of viscosity and collisions, the number densities, the assembly, `plan.mpsIterations` recorded
 * conjugate gradient iterations, the correction, collide again, the end-of-substep density (the collision's
 * `Boxes` variant while every collider is a box container).
 */
export const mpsPressureGpuPasses: GpuPasses = (plan) => {
  const analytic = plan.meshes ? '' : 'Analytic';
  // With coupled colliders the apply pass adds the drift (and after the correction hands the walls'
  // pressure load to the bodies), then the coupled collide pass adds the collision impulses.
  const collide = [...(plan.coupled ? ['mpsApply'] : []), collidePassKey(plan)];
  const passes = [
    ...collide,
    `mpsStartDensity${analytic}`,
    `mpsNumberDensity${analytic}`,
    'mpsAssemble',
    'mpsCgStart',
    'mpsCgBegin',
  ];
  for (let k = 0; k < plan.mpsIterations; k++) passes.push('mpsCgProduct', 'mpsCgAlpha', 'mpsCgUpdate', 'mpsCgBeta');
  passes.push('mpsCgResidual', 'mpsCgFinish', 'mpsCorrection', ...collide, `mpsEndDensity${analytic}`);
  return passes;
};

/**
 * Writes the MPS values of the scene's `Params` (at word `base`) for the step of `ctx`: the same formulas as
 * the CPU's substep (mps/cpu.ts, mps/pressure.ts), and `mpsMode` 1; with another solver `mpsMode` 0 only.
 */
export function writeMpsParameters(ctx: SimulationContext, words: WordViews, base: number): void {
  const P = (name: string) => word(Params, name, base);
  const mps = ctx.settings.solver === 'mps';
  words.u32[P('mpsMode')] = mps ? 1 : 0;
  if (!mps) return;
  const f = words.f32;
  const state = mpsState(ctx);
  const settings = state.settings;
  const n0 = state.lattice.restNumberDensity;
  const dt = ctx.substepTimeStep;
  const limit = settings.collisionDistance * 2 * ctx.settings.particleRadius;
  f[P('mpsRestNumberDensity')] = n0;
  f[P('mpsViscosityScale')] = settings.kinematicViscosity === 0 ? 0 : mpsViscosityScale(state, dt);
  f[P('mpsCollisionLimitSquared')] = limit * limit;
  f[P('mpsCollisionFactor')] = 1 + settings.collisionRestitution;
  f[P('mpsSurfaceThreshold')] = settings.surfaceThreshold * n0;
  f[P('mpsOperatorScale')] = mpsOperatorScale(state, dt);
  f[P('mpsRelaxation')] = settings.sourceRelaxation;
  f[P('mpsCompressibilityScale')] = mpsCompressibilityScale(state, dt);
  f[P('mpsTolerance')] = Math.max(settings.tolerance, MPS_GPU_TOLERANCE_FLOOR);
  words.u32[P('mpsMaxIterations')] = settings.maxIterations;
  f[P('mpsGradientScale')] = DIMENSION / n0;
  f[P('mpsMinimumDistance')] = MPS_MINIMUM_DISTANCE_FRACTION * ctx.settings.kernelRadius;
}

/**
 * The MPS walls' table of the scene (`mpsWallTable`, gpu/structs.ts) from the CPU's (mps/wallTables.ts), two
 * vec4s per sample: (Z, s, a, b), (m, 0, 0, 0).
 */
export function writeMpsWallTable(ctx: SimulationContext, words: WordViews, offset: number): void {
  if (ctx.settings.solver !== 'mps') return;
  const tables = mpsState(ctx).lattice.wallTables;
  const f = words.f32;
  const base = offset >> 2;
  for (let k = 0; k < tables.numberDensity.length; k++) {
    const o = base + 8 * k;
    f[o] = tables.numberDensity[k];
    f[o + 1] = tables.firstMoment[k];
    f[o + 2] = tables.normalMoment[k];
    f[o + 3] = tables.tangentialMoment[k];
    f[o + 4] = tables.depthSum[k];
    f[o + 5] = 0;
    f[o + 6] = 0;
    f[o + 7] = 0;
  }
}
