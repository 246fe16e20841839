/**
 * One schedule per solver (src/systems/schedule.ts) drives both backends: the CPU system list and the WebGPU
 * backend's pass order come from the same entries. These are the orders the WebGPU step records for the
 * scenes the browser tests run (the parity tests check the results against the CPU): every pass key the
 * schedule names is compiled, and the order matches the CPU systems' order.
 */
import { describe, expect, it } from 'vitest';
import type { GpuPlan } from '../src/systems/gpu/passes';
import type { MultiFluidFeatures } from '../src/systems/multifluid/state';
import { sphCpuSystems } from '../src/systems/pipeline';
import { gpuPassDefinitions, gpuStepOrder, mpsSchedule, pbfSchedule, sphSchedule } from '../src/systems/schedule';

const NO_FEATURES: MultiFluidFeatures = {
  numberDensity: false,
  numberDensityOptIn: false,
  temperatureDensity: false,
  interfaceTension: false,
  surfaceTension: false,
  temperatureDiffusion: false,
  colorDiffusion: false,
  colliderHeat: false,
  airGeneration: false,
  boiling: false,
  artificialBuoyancy: false,
};

const SCANS = ['scan0', 'scan1', 'scanAdd0'];
const SORT = [
  'clear',
  'predict',
  ...SCANS,
  'bucketOrder',
  'rankParticles',
  'rankBuckets',
  'destination',
  'scatter',
  // The lists' pass also ends the sort (lists.wgsl); where no lists are built, `finish` does.
  'neighbourList',
];
/** The coarse projection's passes (projection/gpu.ts), after the sort as on the CPU. */
const PROJECTION = [
  'projectionCarry',
  'projectionPlan',
  'projectionOccupancy',
  'projectionClassify',
  'projectionErodeFirst',
  'projectionErodeSecond',
  'projectionFaces',
  'projectionStencil',
  'projectionScatter',
  'projectionRightHandSide',
  'projectionSolve',
  'projectionChanges',
  'projectionGather',
];

function plan(overrides: Partial<GpuPlan>): GpuPlan {
  return {
    projection: false,
    projectionFreeSurface: false,
    iterations: 3,
    vorticity: true,
    simpleMaterials: true,
    coupled: false,
    features: NO_FEATURES,
    diffusionParts: 1,
    colliderHeat: false,
    scanPasses: SCANS,
    neighbourMode: 'list',
    meshes: true,
    containerBoxes: false,
    diffuse: false,
    mpsIterations: 0,
    ...overrides,
  };
}

describe('the schedule', () => {
  it('gives the CPU systems in the order of the step (PBF: tests/sph.test.ts, "PBF keeps its system list")', () => {
    expect(sphCpuSystems.map((system) => system.name)).toEqual([
      'emit',
      'gather',
      'sphSubsteps',
      'colliderPose',
      'neighbours',
      'sphForces',
      'velocity',
      'sphFinish',
      'multiFluid',
      'artificialBuoyancy',
      'publish',
      'diffuse',
      'boiling',
      'trappedAir',
    ]);
  });

  it('gives the WebGPU pass order of a single-fluid PBF step in the same order', () => {
    const single = gpuStepOrder('pbf', plan({}));
    const iteration = ['lambdaSimple', 'correctSimple', 'collide'];
    const expected = [
      ...SORT,
      ...iteration,
      ...iteration,
      ...iteration,
      'velocity',
      'viscosity',
      'vorticity',
      'writeBack',
    ];
    expect(single.substep).toEqual(expected);
    expect(single.lastSubstep).toEqual(expected);
    // Where the lists do not fit the device's limits, the gathering passes visit cells: no lists are built,
    // and `finish` ends the sort.
    const cells = gpuStepOrder('pbf', plan({ neighbourMode: 'cells' }));
    expect(cells.substep).toEqual(expected.map((key) => (key === 'neighbourList' ? 'finish' : key)));
    // Without mesh colliders, the passes that measure collider distances take their variants without fields.
    const analytic = gpuStepOrder('pbf', plan({ meshes: false, projection: true }));
    const analyticIteration = ['lambdaSimpleAnalytic', 'correctSimple', 'collideAnalytic'];
    expect(analytic.substep).toEqual([
      ...SORT,
      ...PROJECTION.map((key) => (key === 'projectionClassify' ? 'projectionClassifyAnalytic' : key)),
      ...analyticIteration,
      ...analyticIteration,
      ...analyticIteration,
      ...expected.slice(SORT.length + 3 * iteration.length),
    ]);
    // Every collider a box container: lambda's and the collision's variants without the other shapes' code;
    // a coupled collider keeps the coupled collision's analytic variant.
    const boxes = gpuStepOrder('pbf', plan({ meshes: false, containerBoxes: true, iterations: 2 }));
    const boxesIteration = ['lambdaSimpleBoxes', 'correctSimple', 'collideBoxes'];
    expect(boxes.substep).toEqual([
      ...SORT,
      ...boxesIteration,
      ...boxesIteration,
      ...expected.slice(SORT.length + 3 * iteration.length),
    ]);
    const boxesCoupled = gpuStepOrder(
      'pbf',
      plan({ meshes: false, containerBoxes: true, coupled: true, simpleMaterials: false, iterations: 1 }),
    );
    expect(boxesCoupled.substep.slice(SORT.length, SORT.length + 4)).toEqual([
      'lambdaBoxes',
      'correct',
      'apply',
      'collideCoupledAnalytic',
    ]);
    // Several materials and a coupled rigid body: the general variants, and apply before the coupled collision;
    // with the projection, its passes between the sort and the density solve.
    const coupled = gpuStepOrder(
      'pbf',
      plan({ projection: true, iterations: 2, vorticity: false, simpleMaterials: false, coupled: true }),
    );
    const coupledIteration = ['lambda', 'correct', 'apply', 'collideCoupled'];
    expect(coupled.substep).toEqual([
      ...SORT,
      ...PROJECTION,
      ...coupledIteration,
      ...coupledIteration,
      'velocityCoupled',
      'viscosity',
      'writeBack',
    ]);
    // The still-water mode (projection.freeSurface): the eroded layers grow back, right after the erosion.
    const stillWater = gpuStepOrder('pbf', plan({ projection: true, projectionFreeSurface: true }));
    const grown = [...PROJECTION];
    grown.splice(
      grown.indexOf('projectionErodeSecond') + 1,
      0,
      'projectionGrowFirst',
      'projectionGrowSecond',
      'projectionSolvedParticles',
    );
    expect(stillWater.substep).toEqual([...SORT, ...grown, ...expected.slice(SORT.length)]);
  });

  it('gives the multi-fluid, air and boiling passes where the CPU systems run, the step-end ones last', () => {
    const features: MultiFluidFeatures = {
      ...NO_FEATURES,
      numberDensity: true,
      interfaceTension: true,
      temperatureDiffusion: true,
      colliderHeat: true,
      airGeneration: true,
      boiling: true,
      artificialBuoyancy: true,
    };
    const order = gpuStepOrder('pbf', plan({ iterations: 1, features, diffusionParts: 2, colliderHeat: true }));
    const substep = [
      ...SORT,
      'restVolume',
      'numberDensityLambda',
      'numberDensityCorrect',
      'collide',
      'velocity',
      'viscosity',
      'vorticity',
      'tension',
      'diffusionRate',
      'diffusionPlan',
      'diffusionChange',
      'diffusionApply',
      'diffusionNext',
      'diffusionChange',
      'diffusionApply',
      'diffusionNext',
      'heat',
      'buoyancy',
    ];
    expect(order.substep).toEqual([...substep, 'writeBack']);
    expect(order.lastSubstep).toEqual([...substep, 'boil', 'airFields', 'airDecide', 'writeBack']);
  });

  it('gives the WCSPH pass order, with and without coupled colliders, and its collision variants', () => {
    const order = gpuStepOrder('sph', plan({}));
    const expected = [...SORT, 'sphDensity', 'sphForces', 'collide', 'velocity', 'sphFinish', 'writeBack'];
    expect(order.substep).toEqual(expected);
    expect(order.lastSubstep).toEqual(expected);
    // With coupled colliders: the drift and wall impulses, then the coupled collision and contact response.
    const coupled = gpuStepOrder('sph', plan({ coupled: true }));
    expect(coupled.substep).toEqual([
      ...SORT,
      'sphDensity',
      'sphForces',
      'sphApply',
      'collideCoupled',
      'velocityCoupled',
      'sphFinish',
      'writeBack',
    ]);
    // The collision's variants as PBF's: without meshes, and while every collider is a box container.
    expect(gpuStepOrder('sph', plan({ meshes: false })).substep).toContain('collideAnalytic');
    expect(gpuStepOrder('sph', plan({ meshes: false, containerBoxes: true })).substep).toContain('collideBoxes');
  });

  it('gives the WCSPH pass order with several fluids: the rest volumes first, the shared terms after sphFinish', () => {
    const features: MultiFluidFeatures = {
      ...NO_FEATURES,
      numberDensity: true,
      interfaceTension: true,
      temperatureDiffusion: true,
      artificialBuoyancy: true,
      boiling: true,
    };
    const order = gpuStepOrder('sph', plan({ features, colliderHeat: true }));
    const substep = [
      ...SORT,
      'restVolume',
      'sphDensity',
      'sphForces',
      'collide',
      'velocity',
      'sphFinish',
      'tension',
      'diffusionRate',
      'diffusionPlan',
      'diffusionChange',
      'diffusionApply',
      'diffusionNext',
      'heat',
      'buoyancy',
    ];
    expect(order.substep).toEqual([...substep, 'writeBack']);
    expect(order.lastSubstep).toEqual([...substep, 'boil', 'airFields', 'airDecide', 'writeBack']);
  });

  it('gives the MPS pass order: the recorded conjugate gradient iterations, the analytic variants without meshes', () => {
    const order = gpuStepOrder('mps', plan({ mpsIterations: 2, meshes: false }));
    const iteration = ['mpsCgProduct', 'mpsCgAlpha', 'mpsCgUpdate', 'mpsCgBeta'];
    const expected = [
      'clear',
      'predict',
      ...SORT.slice(2),
      'mpsViscosity',
      'mpsCollision',
      'mpsAdvance',
      'collideAnalytic',
      'mpsStartDensityAnalytic',
      'mpsNumberDensityAnalytic',
      'mpsAssemble',
      'mpsCgStart',
      'mpsCgBegin',
      ...iteration,
      ...iteration,
      'mpsCgResidual',
      'mpsCgFinish',
      'mpsCorrection',
      'collideAnalytic',
      'mpsEndDensityAnalytic',
      'velocity',
      'sphFinish',
      'writeBack',
    ];
    expect(order.substep).toEqual(expected);
    expect(order.lastSubstep).toEqual(expected);
    // With coupled colliders: the apply pass before each coupled collide pass, the coupled velocity pass.
    const coupled = gpuStepOrder('mps', plan({ mpsIterations: 1, coupled: true, meshes: false })).substep;
    expect(coupled.filter((key) => key === 'mpsApply')).toHaveLength(2);
    expect(coupled.filter((key) => key === 'collideCoupledAnalytic')).toHaveLength(2);
    expect(coupled.indexOf('mpsApply')).toBe(coupled.indexOf('collideCoupledAnalytic') - 1);
    expect(coupled).toContain('velocityCoupled');
    const meshes = gpuStepOrder('mps', plan({ mpsIterations: 1 })).substep;
    expect(meshes).toContain('mpsStartDensity');
    expect(meshes.filter((key) => key === 'collide')).toHaveLength(2);
    expect(meshes.filter((key) => key === 'mpsCgProduct')).toHaveLength(1);
  });

  it('binds at most 8 storage buffers in every pass of every solver', () => {
    for (const solver of ['pbf', 'sph', 'mps'] as const) {
      for (const definition of gpuPassDefinitions(solver, true)) {
        expect(definition.bindings.length, `${solver}: ${definition.key}`).toBeLessThanOrEqual(8);
      }
    }
  });

  it('names only passes that are compiled, each defined once', () => {
    const everything: MultiFluidFeatures = Object.fromEntries(
      Object.keys(NO_FEATURES).map((key) => [key, true]),
    ) as unknown as MultiFluidFeatures;
    for (const [solver, schedule] of [
      ['pbf', pbfSchedule],
      ['sph', sphSchedule],
      ['mps', mpsSchedule],
    ] as const) {
      const keys = gpuPassDefinitions(solver, solver !== 'mps').map((definition) => definition.key);
      expect(new Set(keys).size).toBe(keys.length);
      const compiled = new Set([...keys, ...SCANS]);
      const whiteWater = solver !== 'mps';
      for (const variant of [
        plan({ mpsIterations: 3 }),
        plan({
          simpleMaterials: false,
          coupled: true,
          features: solver === 'mps' ? NO_FEATURES : everything,
          colliderHeat: solver !== 'mps',
          diffuse: whiteWater,
        }),
        plan({ meshes: false, diffuse: whiteWater, mpsIterations: 1 }),
      ]) {
        const order = gpuStepOrder(solver, variant);
        for (const key of [...order.substep, ...order.lastSubstep])
          expect(compiled.has(key), `${solver}: ${key}`).toBe(true);
      }
      // Every GPU entry of the schedule is also a CPU system, so the two backends run the same steps.
      for (const entry of schedule) if (entry.gpu) expect(entry.run, entry.name).toBeDefined();
    }
  });
});
