/**
 * `npm run bench`: CPU backend timings of a dam-break scene at several particle counts, then mesh
 * colliders: bake times of signed distance fields and the per-step cost of mesh colliders, and the cost of
 * coupling colliders with rigid bodies.
 * Prints median milliseconds per frame (one `step()` of 1/60 s) and per system, with the machine.
 * Options: `--counts 5000,10000`, `--frames 60`, `--substeps 2`, `--iterations 3`, `--mesh-count 10000`.
 * Then the WebGPU backend in headless Chromium (SwiftShader), through the harness of tests/browser and
 * its 'bench' scenario. Environment: `BENCH_CPU=0` skips the CPU tables, `BENCH_GPU=0` the browser
 * section; `BENCH_GPU_COUNTS=10000,30000` (empty: the dam break skipped) and `BENCH_GPU_FRAMES=20` set its
 * particle counts and most frames,
 * `BENCH_GPU_SECONDS=300` the time the page aims at (large counts get fewer frames, at least 3).
 * The multi-fluid dam break (every term of Müller et al. 2005 on, see tests/browser/bench.ts
 * `spawnDamBreakFluid`) runs on the CPU at `--multifluid-counts 5000,10000` (with PBF, then WCSPH) and on WebGPU at
 * `BENCH_GPU_MULTIFLUID_COUNTS=10000` (empty: skipped) within `BENCH_GPU_MULTIFLUID_SECONDS=120`; the other
 * solvers' dam break on WebGPU: `BENCH_GPU_SOLVERS=mps` (also `sph`; empty: skipped) at
 * `BENCH_GPU_SOLVER_COUNTS=10000` within `BENCH_GPU_SOLVER_SECONDS=120` each.
 * The resting pool (`BENCH_REST=0` skips it): a column `--rest-depth 50` particles deep (10 x 10 columns,
 * particle radius 1 cm) spawned at rest and stepped `--rest-seconds 4` s with each solver's defaults
 * (`--rest-solvers pbf,pbf-surface-layers,pbf-no-projection,sph,mps`): ms per frame and the residual motion at the end; on
 * WebGPU (`BENCH_GPU_REST=0` skips it) PBF's defaults, with the surface layers and without the projection.
 * `BENCH_BASELINE=../base` (a checkout of an earlier commit with its node_modules) adds the WebGPU dam break
 * of this checkout against that one, interleaved in the same Chromium build, at `BENCH_GPU_COUNTS`.
 * White water (`BENCH_DIFFUSE=0` skips it): the dam break with and without diffuse particles on the CPU at
 * `--diffuse-counts 10000,30000` for `--diffuse-frames 150` frames (see `whiteWaterTable`), and on WebGPU at
 * `BENCH_GPU_DIFFUSE_COUNTS=10000` (empty: skipped; see `gpuWhiteWaterTable`).
 * The water's anisotropic particles (`BENCH_ELLIPSOIDS=0` skips it): `writeEllipsoids` after each step of the dam
 * break on the CPU at `--ellipsoid-counts 10000,30000` (see `ellipsoidTable`).
 */

import { availableParallelism, cpus } from 'node:os';
import {
  bakeSignedDistanceField,
  createBoxMesh,
  createSphereMesh,
  createTorusMesh,
  ELLIPSOID_FLOATS,
  FluidSimulation,
  type FluidSolver,
  fitSurfaceToColliders,
  gatherSurfaceParticles,
  type SignedDistanceField,
  SurfaceExtractor,
  SurfaceParticleBuffer,
  SurfaceParticleDetector,
} from '../src';
import { type BenchResult, median, spawnDamBreakFluid } from '../tests/browser/bench';
import { openGpuPage } from '../tests/browser/driver';
import type { GpuRestFigures, RestingPoolOptions } from '../tests/browser/projection';
import { type RestFigures, restFigures, restingPool } from '../tests/restingPool';
import { WASM_COLUMNS, WASM_FRAME_COLUMNS, WASM_FRAMES, wasmFrameRow, wasmLambdaRow } from './wasm';

function argument(name: string, fallback: string): string {
  const index = process.argv.indexOf(`--${name}`);
  return index >= 0 && process.argv[index + 1] ? process.argv[index + 1] : fallback;
}

const counts = argument('counts', '5000,10000,20000,50000').split(',').map(Number);
/** Thread counts of the dam-break table: one thread and the machine's hardware threads (at most 8) by default. */
const threadCounts = [
  ...new Set(
    argument('threads', `1,${Math.min(8, availableParallelism())}`)
      .split(',')
      .map(Number),
  ),
];
const frames = Number(argument('frames', '60'));
const substeps = Number(argument('substeps', '2'));
const iterations = Number(argument('iterations', '2'));
const warmup = 20;

/** Block sizes (particles along x, y, z) giving exactly the standard counts; other counts get a near cube. */
const BLOCKS: Record<number, [number, number, number]> = {
  5000: [20, 25, 10],
  10000: [20, 25, 20],
  20000: [25, 40, 20],
  50000: [40, 50, 25],
};

/** How the mesh-collider rows build their tank and obstacle. */
interface ColliderVariant {
  /** Row label. */
  readonly name: string;
  /** Baked tank field, or undefined for the analytic box. */
  readonly tankField?: SignedDistanceField;
  /** Obstacle in the middle of the tank: none, an analytic sphere, or a baked sphere field. */
  readonly obstacle?: 'sphere' | SignedDistanceField;
}

/** A dam break: a block of water against one wall of a closed tank four block-widths long. */
function scene(
  count: number,
  variant: ColliderVariant = { name: 'analytic box' },
  solver: FluidSolver = 'pbf',
  multiFluid = false,
  threads = 1,
  webAssembly = true,
): FluidSimulation {
  const particleRadius = 0.025;
  const spacing = 2 * particleRadius;
  const n = Math.round(Math.cbrt(count));
  const [nx, ny, nz] = BLOCKS[count] ?? [n, n, Math.max(1, Math.round(count / (n * n)))];
  const simulation = new FluidSimulation({
    particleRadius,
    capacity: nx * ny * nz,
    substeps,
    iterations,
    solver,
    threads,
    webAssembly,
  });
  const width = nx * spacing;
  const tankMax: [number, number, number] = [4 * width, 2 * ny * spacing, nz * spacing];
  const tank = variant.tankField
    ? simulation.addCollider({ shape: 'mesh', field: variant.tankField, container: true })
    : simulation.addCollider({ shape: 'box', min: [0, 0, 0], max: tankMax, container: true });
  const obstacleRadius = 0.25 * Math.min(tankMax[1], tankMax[2]);
  const center: [number, number, number] = [2 * width, obstacleRadius, 0.5 * tankMax[2]];
  if (variant.obstacle === 'sphere') simulation.addCollider({ shape: 'sphere', center, radius: obstacleRadius });
  else if (variant.obstacle) {
    const sphere = simulation.addCollider({ shape: 'mesh', field: variant.obstacle });
    simulation.setColliderTransform(sphere, { position: center, scaling: obstacleRadius, teleport: true });
  }
  spawnDamBreakFluid(simulation, tank, [width, ny * spacing, nz * spacing], multiFluid);
  return simulation;
}

const cpu = cpus();
console.log(
  `machine: ${cpu.length} cores (${cpu[0]?.model ?? 'unknown'}), Node ${process.version}, ${process.platform}/${process.arch}`,
);
const systemNames = [
  'neighbours',
  'projection',
  'density',
  'viscosityVorticity',
  'velocity',
  'predict',
  'gather',
  'publish',
];

/** Median ms per frame and per system of one simulation over the measured frames. */
interface Measured {
  step: number;
  systems: Record<string, number>;
  neighbours: number;
}

/**
 * Median ms per frame and per system of each of `simulations` over the measured frames, stepped in turn
 * (one frame of each, then the next frame of each) so that the machine's load falls on all alike; `afterStep`
 * runs after each measured step (to record more of its stats).
 */
function measureInterleaved(
  simulations: readonly FluidSimulation[],
  names: readonly string[] = systemNames,
  afterStep?: () => void,
): Measured[] {
  for (let frame = 0; frame < warmup; frame++) for (const simulation of simulations) simulation.step();
  const stepTimes = simulations.map((): number[] => []);
  const systemTimes = simulations.map((): Record<string, number[]> => ({}));
  const neighbourCounts = simulations.map((): number[] => []);
  for (let frame = 0; frame < frames; frame++) {
    simulations.forEach((simulation, k) => {
      simulation.step();
      afterStep?.();
      stepTimes[k].push(simulation.stats.stepMilliseconds);
      neighbourCounts[k].push(simulation.stats.meanNeighbourCount);
      for (const name of names) {
        systemTimes[k][name] = systemTimes[k][name] ?? [];
        systemTimes[k][name].push(simulation.stats.systemMilliseconds[name] ?? 0);
      }
    });
  }
  return simulations.map((_, k) => {
    const systems: Record<string, number> = {};
    for (const name of names) systems[name] = median(systemTimes[k][name]);
    return { step: median(stepTimes[k]), systems, neighbours: median(neighbourCounts[k]) };
  });
}

/** Median ms per frame and per system of `simulation` over the measured frames. */
function measure(simulation: FluidSimulation, names: readonly string[] = systemNames): Measured {
  return measureInterleaved([simulation], names)[0];
}

/** Prints rows as a Markdown table with right-aligned columns. */
function printTable(rows: string[][]): void {
  const widths = rows[0].map((_, column) => Math.max(...rows.map((row) => row[column].length)));
  const line = (row: string[]) => `| ${row.map((cell, column) => cell.padStart(widths[column])).join(' | ')} |`;
  console.log(line(rows[0]));
  console.log(`|${widths.map((width) => '-'.repeat(width + 2)).join('|')}|`);
  for (const row of rows.slice(1)) console.log(line(row));
}

/** The CPU tables: the dam break at each count, signed distance field bakes, mesh colliders. */
function cpuTables(): void {
  console.log(
    `backend: cpu at ${threadCounts.join(' and ')} threads (the stepping thread and threads - 1 workers, stepped in turn); ` +
      `${frames} measured frames after ${warmup} warm-up frames; dt = 1/60 s`,
  );
  const header = ['particles', 'threads', 'substeps', 'iterations', 'ms/frame', 'speedup', ...systemNames];
  const rows: string[][] = [[...header, 'neighbours/particle']];
  for (const count of counts) {
    const simulations = threadCounts.map((threads) => scene(count, { name: 'analytic box' }, 'pbf', false, threads));
    const results = measureInterleaved(simulations);
    results.forEach((result, k) => {
      rows.push([
        String(simulations[k].particleCount),
        String(simulations[k].stats.threads),
        String(substeps),
        String(iterations),
        result.step.toFixed(2),
        `${(results[0].step / result.step).toFixed(2)}x`,
        ...systemNames.map((name) => result.systems[name].toFixed(2)),
        result.neighbours.toFixed(1),
      ]);
    });
    for (const simulation of simulations) simulation.dispose();
  }
  printTable(rows);
  console.log(
    'ms per system are medians of the per-frame sums over substeps and iterations; speedup against the first thread count.',
  );
  console.log('The tables below run on one thread (threads: 1).');

  // The same dam break with every multi-fluid term on (see spawnDamBreakFluid).
  const multiFluidCounts = argument('multifluid-counts', '5000,10000').split(',').map(Number);
  console.log(
    '\nmulti-fluid dam break (oil under water, number-density constraint, interface and surface tension, diffusion, eq. 16, a 350 K tank):',
  );
  const multiFluidNames = [...systemNames, 'multiFluid'];
  const multiFluidRows: string[][] = [['particles', 'substeps', 'iterations', 'ms/frame', ...multiFluidNames]];
  for (const count of multiFluidCounts) {
    const simulation = scene(count, { name: 'analytic box' }, 'pbf', true);
    const result = measure(simulation, multiFluidNames);
    multiFluidRows.push([
      String(simulation.particleCount),
      String(substeps),
      String(iterations),
      result.step.toFixed(2),
      ...multiFluidNames.map((name) => result.systems[name].toFixed(2)),
    ]);
  }
  printTable(multiFluidRows);

  // The same scene with WCSPH (several fluids run with it too; adaptive substeps, see sph/cpu.ts).
  console.log('\nthe same multi-fluid dam break with WCSPH (solver: sph; substeps: the median count a frame):');
  const sphNames = ['sphForces', 'multiFluid'];
  const sphRows: string[][] = [['particles', 'substeps', 'ms/frame', 'ms/substep', ...sphNames]];
  for (const count of multiFluidCounts) {
    const simulation = scene(count, { name: 'analytic box' }, 'sph', true);
    const counts: number[] = [];
    const result = measureInterleaved([simulation], sphNames, () => counts.push(simulation.stats.solverSubsteps))[0];
    const substepCount = median(counts);
    sphRows.push([
      String(simulation.particleCount),
      String(substepCount),
      result.step.toFixed(2),
      (result.step / substepCount).toFixed(2),
      ...sphNames.map((name) => result.systems[name].toFixed(2)),
    ]);
  }
  printTable(sphRows);

  // Mesh colliders: bake times (median of 3) and the per-step cost against the analytic shapes.
  console.log('\nsigned distance field bake (bakeSignedDistanceField, resolution 128 along the longest side):');
  const bakeRows: string[][] = [['mesh', 'triangles', 'nodes', 'bake ms (median of 3)']];
  for (const [majorSegments, minorSegments] of [
    [100, 50],
    [500, 100],
  ]) {
    const mesh = createTorusMesh(1, 0.3, majorSegments, minorSegments);
    const times: number[] = [];
    let nodes = 0;
    for (let run = 0; run < 3; run++) {
      const start = performance.now();
      const field = bakeSignedDistanceField(mesh, { resolution: 128 });
      times.push(performance.now() - start);
      nodes = field.nodeCounts[0] * field.nodeCounts[1] * field.nodeCounts[2];
    }
    bakeRows.push(['torus', String(mesh.indices.length / 3), String(nodes), median(times).toFixed(0)]);
  }
  printTable(bakeRows);

  const meshCount = Number(argument('mesh-count', '10000'));
  const [bx, by, bz] = BLOCKS[meshCount] ?? [20, 25, 20];
  const spacing = 0.05;
  const tankMesh = createBoxMesh([0, 0, 0], [4 * bx * spacing, 2 * by * spacing, bz * spacing]);
  const tankField = bakeSignedDistanceField(tankMesh, { cellSize: 0.025 });
  const sphereField = bakeSignedDistanceField(createSphereMesh(1, 48), { resolution: 48 });
  console.log(
    `\nmesh colliders in the dam break (${bx * by * bz} particles, ${substeps} substeps x ${iterations} iterations; collisions and wall weights run inside "density"):`,
  );
  const colliderRows: string[][] = [['tank', 'obstacle', 'ms/frame', 'density']];
  for (const variant of [
    { name: 'analytic box' },
    { name: 'baked box', tankField },
    { name: 'analytic box', obstacle: 'sphere' as const },
    { name: 'analytic box', obstacle: sphereField },
  ] as ColliderVariant[]) {
    const result = measure(scene(meshCount, variant));
    const obstacle =
      variant.obstacle === undefined ? 'none' : variant.obstacle === 'sphere' ? 'analytic sphere' : 'baked sphere';
    colliderRows.push([variant.name, obstacle, result.step.toFixed(2), result.systems.density.toFixed(2)]);
  }
  printTable(colliderRows);

  // Rigid-body coupling: the same floating boxes as plain mesh colliders and as coupled ones (their impulse
  // accumulation: collisions, wall-weight pressure, contact response). Havok's own step is not included.
  const poolSpacing = 0.05;
  const boxField = bakeSignedDistanceField(createBoxMesh([-0.15, -0.1, -0.15], [0.15, 0.1, 0.15]), {
    resolution: 32,
  });
  console.log(
    `\nrigid-body coupling: floating 0.3 x 0.2 x 0.3 m box meshes in a pool (${meshCount} particles, ${substeps} substeps x ${iterations} iterations):`,
  );
  const couplingRows: string[][] = [['boxes', 'coupled', 'ms/frame', 'density', 'coupling ms per body per frame']];
  for (const boxes of [1, 4]) {
    const times: Record<string, number> = {};
    for (const coupled of [false, true]) {
      const simulation = new FluidSimulation({
        particleRadius: poolSpacing / 2,
        capacity: meshCount + 16,
        substeps,
        iterations,
        threads: 1,
      });
      const water = simulation.addMaterial({});
      const width = Math.sqrt(meshCount / 10) * poolSpacing;
      simulation.addCollider({ shape: 'box', min: [0, 0, 0], max: [width, 1, width], container: true });
      simulation.spawnBlock({ min: [0, 0, 0], max: [width, 10 * poolSpacing, width], material: water });
      for (let k = 0; k < boxes; k++) {
        const box = simulation.addCollider({ shape: 'mesh', field: boxField, rigidBody: coupled ? {} : undefined });
        const x = ((k % 2) + 0.5) * (width / 2);
        const z = (Math.floor(k / 2) + 0.5) * (width / 2);
        simulation.setColliderTransform(box, { position: [x, 10 * poolSpacing, z], teleport: true });
      }
      const result = measure(simulation);
      times[String(coupled)] = result.step;
      couplingRows.push([
        String(boxes),
        coupled ? 'yes' : 'no',
        result.step.toFixed(2),
        result.systems.density.toFixed(2),
        coupled ? ((times.true - times.false) / boxes).toFixed(3) : '',
      ]);
    }
  }
  printTable(couplingRows);
}

/**
 * The solvers on the CPU: the same dam break with `solver` 'pbf', 'sph' (WCSPH, adaptive CFL substeps, default
 * WCSPH options) and 'mps' (default MPS settings) at `--solver-counts` (default 10000,50000) for `--solver-frames` frames (default 20) after
 * 10 warm-up frames (the first frames of the collapse, the fastest flow). `--solvers` picks the solvers
 * (default 'pbf,sph,mps'). Density errors as `stats.meanDensityError` / `maxDensityError` (full neighbourhoods).
 */
function solverTable(): void {
  const solverCounts = argument('solver-counts', '10000,50000').split(',').map(Number);
  const solverFrames = Number(argument('solver-frames', '20'));
  const solvers = argument('solvers', 'pbf,sph,mps').split(',') as FluidSolver[];
  console.log(
    `\nsolvers on the cpu (one thread): dam break, ${solverFrames} measured frames after 10 warm-up frames; dt = 1/60 s; medians`,
  );
  const rows: string[][] = [
    ['solver', 'particles', 'substeps', 'ms/frame', 'ms/substep', 'mean density error', 'max density error'],
  ];
  for (const count of solverCounts) {
    for (const solver of solvers) {
      const simulation = scene(count, { name: 'analytic box' }, solver);
      for (let frame = 0; frame < 10; frame++) simulation.step();
      const times: number[] = [];
      const substepCounts: number[] = [];
      const meanErrors: number[] = [];
      const maxErrors: number[] = [];
      for (let frame = 0; frame < solverFrames; frame++) {
        simulation.step();
        const stats = simulation.stats;
        times.push(stats.stepMilliseconds);
        substepCounts.push(stats.solverSubsteps);
        meanErrors.push(stats.meanDensityError);
        maxErrors.push(stats.maxDensityError);
      }
      const step = median(times);
      const used = median(substepCounts);
      rows.push([
        solver,
        String(simulation.particleCount),
        String(used),
        step.toFixed(1),
        (step / used).toFixed(2),
        `${(100 * median(meanErrors)).toFixed(2)}%`,
        `${(100 * median(maxErrors)).toFixed(2)}%`,
      ]);
    }
  }
  printTable(rows);
  console.log(
    `pbf: ${substeps} substeps x ${iterations} iterations; sph: substeps from the CFL condition (stats.solverSubsteps); mps: substeps from its CFL condition (mps.courantNumber), one conjugate gradient solve each.`,
  );
}

/**
 * White water on WebGPU (`BENCH_GPU_DIFFUSE_COUNTS=10000`, empty: skipped): the dam break with
 * `diffuse.capacity` 4 times the particles and without, twice each, interleaved: ms per frame and the GPU ms of
 * the four white-water passes per frame (timestamp queries, where the adapter has them). The bench's frames
 * are the first of the dam break, before its impact: the pool is nearly empty, and the advection runs over
 * every slot anyway.
 */
async function gpuWhiteWaterTable(
  gpu: Awaited<ReturnType<typeof openGpuPage>>,
  counts: readonly number[],
  gpuFrames: number,
): Promise<void> {
  console.log('\nwebgpu white water (diffuse.capacity 4 x particles, against none; two runs each, interleaved):');
  const rows: string[][] = [
    ['particles', 'ms/frame without', 'ms/frame with', 'white-water passes GPU ms', 'of the GPU frame', 'passes'],
  ];
  for (const count of counts) {
    const args = { counts: [count], substeps, iterations, frames: Math.max(3, Math.ceil(gpuFrames / 2)) };
    const plain: BenchResult['rows'][number][] = [];
    const white: BenchResult['rows'][number][] = [];
    for (let round = 0; round < 2; round++) {
      plain.push((await gpu.run<BenchResult>('bench', args)).rows[0]);
      white.push((await gpu.run<BenchResult>('bench', { ...args, diffuse: 4 })).rows[0]);
    }
    const mean = (values: number[]) => values.reduce((sum, value) => sum + value, 0) / values.length;
    const passes = ['diffuseBegin', 'diffuseFields', 'diffuseGenerate', 'diffuseAdvect'];
    const gpuMs = white.map((row) =>
      passes.reduce((sum, name) => sum + (row.gpuPassMilliseconds?.[name] ?? Number.NaN), 0),
    );
    const total = white.map((row) => row.gpuPassMilliseconds?.total ?? Number.NaN);
    rows.push([
      String(white[0].particles),
      mean(plain.map((row) => row.frameMilliseconds)).toFixed(1),
      mean(white.map((row) => row.frameMilliseconds)).toFixed(1),
      mean(gpuMs).toFixed(2),
      `${((100 * mean(gpuMs)) / mean(total)).toFixed(1)}%`,
      passes
        .map((name) => `${name} ${mean(white.map((row) => row.gpuPassMilliseconds?.[name] ?? Number.NaN)).toFixed(2)}`)
        .join(', '),
    ]);
  }
  printTable(rows);
}

/** The WebGPU tables: the page's 'bench' scenario in headless Chromium. */
async function gpuTables(): Promise<void> {
  const gpuCounts = (process.env.BENCH_GPU_COUNTS ?? '10000,30000,100000')
    .split(',')
    .filter((count) => count !== '')
    .map(Number);
  const gpuFrames = Number(process.env.BENCH_GPU_FRAMES ?? '20');
  const budgetSeconds = Number(process.env.BENCH_GPU_SECONDS ?? '300');
  const multiFluidCounts = (process.env.BENCH_GPU_MULTIFLUID_COUNTS ?? '10000')
    .split(',')
    .filter((count) => count !== '')
    .map(Number);
  const multiFluidSeconds = Number(process.env.BENCH_GPU_MULTIFLUID_SECONDS ?? '120');
  console.log('\nwebgpu backend in headless Chromium (SwiftShader):');
  let gpu: Awaited<ReturnType<typeof openGpuPage>>;
  try {
    gpu = await openGpuPage();
  } catch (error) {
    console.log(`webgpu bench: browser not available: ${error instanceof Error ? error.message : String(error)}`);
    return;
  }
  try {
    if (!gpu.scenarioNames.includes('bench')) {
      console.log("webgpu bench: scenario 'bench' not available");
      return;
    }
    const started = performance.now();
    if (gpuCounts.length > 0) {
      const result = await gpu.run<BenchResult>('bench', {
        counts: gpuCounts,
        substeps,
        iterations,
        frames: gpuFrames,
        budgetSeconds,
      });
      printGpuResult(result, gpuFrames);
    }
    if (multiFluidCounts.length > 0) {
      console.log(
        '\nwebgpu multi-fluid dam break (oil under water, number-density constraint, tension, diffusion, eq. 16, a 350 K tank):',
      );
      printGpuResult(
        await gpu.run<BenchResult>('bench', {
          counts: multiFluidCounts,
          substeps,
          iterations,
          frames: gpuFrames,
          budgetSeconds: multiFluidSeconds,
          multiFluid: true,
        }),
        gpuFrames,
      );
    }
    const solverCounts = (process.env.BENCH_GPU_SOLVER_COUNTS ?? '10000')
      .split(',')
      .filter((count) => count !== '')
      .map(Number);
    const gpuSolvers = (process.env.BENCH_GPU_SOLVERS ?? 'mps').split(',').filter((solver) => solver !== '');
    for (const solver of gpuSolvers) {
      if (solverCounts.length === 0) break;
      console.log(
        `\nwebgpu dam break with solver '${solver}' (default settings; substeps from the CFL condition, each frame followed by an awaited readback outside the timed part):`,
      );
      const result = await gpu.run<BenchResult>('bench', {
        counts: solverCounts,
        substeps,
        iterations,
        frames: Math.min(gpuFrames, 5),
        budgetSeconds: Number(process.env.BENCH_GPU_SOLVER_SECONDS ?? '120'),
        solver,
      });
      printGpuResult(result, gpuFrames);
      for (const row of result.rows) {
        console.log(
          `${solver} ${row.particles} particles: median ${row.solverSubsteps} substeps${row.pressureSolveIterations === undefined ? '' : `, ${row.pressureSolveIterations} conjugate gradient iterations`}, ${row.dispatchesPerFrame} dispatches in the first frame`,
        );
      }
    }
    const whiteWaterCounts = (process.env.BENCH_GPU_DIFFUSE_COUNTS ?? '10000')
      .split(',')
      .filter((count) => count !== '')
      .map(Number);
    if (whiteWaterCounts.length > 0) await gpuWhiteWaterTable(gpu, whiteWaterCounts, gpuFrames);
    if (process.env.BENCH_GPU_REST !== '0' && process.env.BENCH_REST !== '0') await gpuRestTable(gpu);
    const baseline = process.env.BENCH_BASELINE;
    if (baseline && gpuCounts.length > 0) await gpuComparisonTable(gpu, baseline, gpuCounts, gpuFrames);
    console.log(`webgpu bench: ${((performance.now() - started) / 1000).toFixed(0)} s in the page`);
    if (gpu.consoleErrors.length > 0) {
      console.log(`webgpu bench: console errors in the page:\n${gpu.consoleErrors.join('\n')}`);
      process.exitCode = 1;
    }
  } finally {
    await gpu.close();
  }
}

/**
 * This checkout against the one at `baselineRoot` (`BENCH_BASELINE`: a checkout of an earlier commit with
 * its dependencies installed, e.g. `git worktree add ../base HEAD~1 && cp -al node_modules ../base/`), in a
 * second page of the same Chromium build: per count, two rounds of the dam break on each, interleaved
 * (this, baseline, this, baseline), each `frames / 2` frames; the medians of each side's two rounds are
 * averaged. Columns: ms per frame, the speedup, microseconds per particle-iteration (frame / (particles x
 * substeps x iterations), compute dispatches per frame ('-' where the baseline's page does not count
 * them) and the JavaScript ms of `step()` (recording the frame's dispatches; the mean of the rounds' medians,
 * '-' where the baseline's page does not time it).
 */
async function gpuComparisonTable(
  gpu: Awaited<ReturnType<typeof openGpuPage>>,
  baselineRoot: string,
  counts: number[],
  gpuFrames: number,
): Promise<void> {
  console.log(`
webgpu dam break against the checkout at ${baselineRoot} (same Chromium, interleaved):`);
  let baseline: Awaited<ReturnType<typeof openGpuPage>>;
  try {
    baseline = await openGpuPage({ root: baselineRoot });
  } catch (error) {
    console.log(
      `webgpu comparison: the baseline's page did not open: ${error instanceof Error ? error.message : String(error)}`,
    );
    process.exitCode = 1;
    return;
  }
  const rows: string[][] = [
    [
      'particles',
      'substeps',
      'iterations',
      'ms/frame',
      'baseline ms/frame',
      'speedup',
      'us/particle-iteration',
      'baseline us/particle-iteration',
      'dispatches/frame',
      'baseline dispatches/frame',
      'step() ms',
      'baseline step() ms',
    ],
  ];
  try {
    for (const count of counts) {
      const mine: BenchResult['rows'][number][] = [];
      const theirs: BenchResult['rows'][number][] = [];
      const args = { counts: [count], substeps, iterations, frames: Math.max(3, Math.ceil(gpuFrames / 2)) };
      for (let round = 0; round < 2; round++) {
        mine.push((await gpu.run<BenchResult>('bench', args)).rows[0]);
        theirs.push((await baseline.run<BenchResult>('bench', args)).rows[0]);
      }
      const frame = (runs: BenchResult['rows'][number][]) =>
        runs.reduce((sum, row) => sum + row.frameMilliseconds, 0) / runs.length;
      const particles = mine[0].particles;
      const perIteration = (milliseconds: number) => (1000 * milliseconds) / (particles * substeps * iterations);
      const dispatches = (row: BenchResult['rows'][number]) =>
        row.dispatchesPerFrame === undefined ? '-' : String(row.dispatchesPerFrame);
      const stepTime = (runs: BenchResult['rows'][number][]) =>
        runs.some((row) => row.stepMilliseconds === undefined)
          ? '-'
          : (runs.reduce((sum, row) => sum + row.stepMilliseconds, 0) / runs.length).toFixed(2);
      rows.push([
        String(particles),
        String(substeps),
        String(iterations),
        frame(mine).toFixed(1),
        frame(theirs).toFixed(1),
        `${(frame(theirs) / frame(mine)).toFixed(2)}x`,
        perIteration(frame(mine)).toFixed(3),
        perIteration(frame(theirs)).toFixed(3),
        dispatches(mine[0]),
        dispatches(theirs[0]),
        stepTime(mine),
        stepTime(theirs),
      ]);
    }
    printTable(rows);
    if (baseline.consoleErrors.length > 0) {
      console.log(`webgpu comparison: console errors in the baseline's page:\n${baseline.consoleErrors.join('\n')}`);
    }
  } finally {
    await baseline.close();
  }
}

/** The columns of the resting-pool tables. */
const REST_COLUMNS = [
  'solver',
  'particles',
  'ms/frame',
  'mean speed m/s',
  'fastest m/s',
  'p99 surface vs rest height',
  'highest above rest (spacings)',
];

/** One row of a resting-pool table: the variant, its figures and its median ms per frame. */
function restRow(variant: string, figures: RestFigures, milliseconds: number): string[] {
  return [
    variant,
    String(figures.count),
    milliseconds.toFixed(1),
    figures.meanSpeed.toFixed(4),
    figures.fastest.toFixed(3),
    `${(100 * figures.surfaceError).toFixed(1)}%`,
    figures.highestAbove.toFixed(1),
  ];
}

/**
 * The resting pool of {@link restTable} on WebGPU: PBF's defaults, with the surface layers left to the density
 * constraints (`projection.freeSurface` false), and without the projection.
 */
async function gpuRestTable(gpu: Awaited<ReturnType<typeof openGpuPage>>): Promise<void> {
  const depth = Number(argument('rest-depth', '50'));
  const seconds = Number(argument('rest-seconds', '4'));
  const radius = 0.01;
  console.log(
    `\nwebgpu resting pool: ${depth} particles deep, 10 x 10 columns, r = ${radius} m, spawned at rest, ${seconds} s of default steps (ms/frame: step, submit and wait, median)`,
  );
  const rows: string[][] = [REST_COLUMNS];
  for (const variant of ['pbf', 'pbf-surface-layers', 'pbf-no-projection']) {
    const options: RestingPoolOptions = {
      depth,
      radius,
      seconds,
      timed: true,
      projection: variant !== 'pbf-no-projection',
      freeSurface: variant !== 'pbf-surface-layers',
    };
    const figures = await gpu.run<GpuRestFigures>('restingPool', options);
    rows.push(restRow(variant, figures, figures.frameMilliseconds ?? 0));
  }
  printTable(rows);
}

/** Prints one 'bench' scenario result: the adapter, the method and the per-pass tables. */
function printGpuResult(result: BenchResult, gpuFrames: number): void {
  console.log(`adapter: ${result.adapter}; timestamp queries: ${result.timestampQueries ? 'yes' : 'no'}`);
  console.log(`method: ${result.method}; at most ${gpuFrames} frames (columns: warm-up steps, frames, profiled steps)`);
  const passTable = (passes: (row: BenchResult['rows'][number]) => Record<string, number> | undefined): void => {
    const passNames: string[] = [];
    for (const row of result.rows) {
      for (const name of Object.keys(passes(row) ?? {})) if (!passNames.includes(name)) passNames.push(name);
    }
    const table: string[][] = [
      [
        'particles',
        'substeps',
        'iterations',
        'warm-up',
        'frames',
        'steps',
        'ms/frame',
        'step() ms',
        'dispatches/frame',
        'projection iterations',
        ...passNames,
      ],
    ];
    for (const row of result.rows) {
      table.push([
        String(row.particles),
        String(row.substeps),
        String(row.iterations),
        String(row.warmupSteps),
        String(row.frames),
        String(row.profiledSteps),
        row.frameMilliseconds.toFixed(2),
        row.stepMilliseconds === undefined ? '-' : row.stepMilliseconds.toFixed(2),
        String(row.dispatchesPerFrame),
        row.projectionIterations === undefined ? '-' : String(row.projectionIterations),
        ...passNames.map((name) => passes(row)?.[name]?.toFixed(2) ?? '-'),
      ]);
    }
    printTable(table);
  };
  console.log('ms per pass: submit and wait around each pass (summed over substeps and iterations):');
  passTable((row) => row.passMilliseconds);
  if (result.rows.some((row) => row.gpuPassMilliseconds)) {
    console.log('GPU ms per pass from timestamp queries (summed over substeps and iterations; total = their sum):');
    passTable((row) => row.gpuPassMilliseconds);
  } else if (result.timestampNote) console.log(`no timestamp-query timings: ${result.timestampNote}`);
}

/**
 * Surface reconstruction on the CPU (the 'surface' and 'splats' render modes): the dam-break block after a
 * few steps; median ms of 5 runs per part. `BENCH_SURFACE=0` skips it; `--surface-counts 10000,50000`.
 */
function surfaceTable(): void {
  const surfaceCounts = argument('surface-counts', '10000,50000').split(',').map(Number);
  console.log(
    '\nsurface extraction (CPU, default settings: cell 1.5 r, iso-level 0.5, h = 4 r; after 3 steps; smoothed: level set, 4 iterations):',
  );
  const rows: string[][] = [
    [
      'particles',
      'bricks',
      'vertices',
      'triangles',
      'gather ms',
      'extract ms',
      'smoothed ms',
      'fit ms',
      'surface particles',
      'detect ms',
    ],
  ];
  for (const count of surfaceCounts) {
    const simulation = scene(count);
    for (let step = 0; step < 3; step++) simulation.step();
    const particles = new SurfaceParticleBuffer();
    const extractor = new SurfaceExtractor({ particleRadius: simulation.settings.particleRadius });
    const detector = new SurfaceParticleDetector({ kernelRadius: simulation.settings.kernelRadius });
    const smoothed = new SurfaceExtractor({ particleRadius: simulation.settings.particleRadius, smoothing: {} });
    const times: Record<string, number[]> = { gather: [], extract: [], smoothed: [], fit: [], detect: [] };
    for (let run = 0; run < 5; run++) {
      let start = performance.now();
      gatherSurfaceParticles(simulation, particles);
      times.gather.push(performance.now() - start);
      start = performance.now();
      extractor.extract(particles);
      times.extract.push(performance.now() - start);
      start = performance.now();
      smoothed.extract(particles);
      times.smoothed.push(performance.now() - start);
      start = performance.now();
      fitSurfaceToColliders(simulation, extractor.positions, extractor.normals, extractor.vertexCount, 0.025);
      times.fit.push(performance.now() - start);
      start = performance.now();
      detector.detect(particles);
      times.detect.push(performance.now() - start);
    }
    rows.push([
      String(particles.count),
      String(extractor.activeBricks),
      String(extractor.vertexCount),
      String(extractor.triangleCount),
      median(times.gather).toFixed(1),
      median(times.extract).toFixed(1),
      median(times.smoothed).toFixed(1),
      median(times.fit).toFixed(1),
      String(detector.count),
      median(times.detect).toFixed(1),
    ]);
  }
  printTable(rows);
}

/**
 * The resting pool: the cost and the quality of each solver's defaults on water that should stay still
 * (docs/method.md, "Still water"). `pbf-no-projection` is PBF without the coarse pressure projection,
 * `pbf-surface-layers` PBF with the two cell layers under a free surface left to the density constraints
 * (`projection: { freeSurface: false }`, the default until 2026-11-27).
 */
function restTable(): void {
  const depth = Number(argument('rest-depth', '50'));
  const seconds = Number(argument('rest-seconds', '4'));
  const variants = argument('rest-solvers', 'pbf,pbf-surface-layers,pbf-no-projection,sph,mps').split(',');
  const radius = 0.01;
  console.log(
    `\nresting pool on the cpu (one thread): ${depth} particles deep, 10 x 10 columns, r = ${radius} m, spawned at rest, ${seconds} s of default steps`,
  );
  const rows: string[][] = [REST_COLUMNS];
  for (const variant of variants) {
    const solver = (variant.startsWith('pbf-') ? 'pbf' : variant) as FluidSolver;
    const simulation = restingPool(depth, radius, 0, {
      solver,
      threads: 1,
      ...(variant === 'pbf-no-projection' ? { projection: false as const } : {}),
      ...(variant === 'pbf-surface-layers' ? { projection: { freeSurface: false } } : {}),
    });
    const times: number[] = [];
    for (let frame = 0; frame < seconds * 60; frame++) {
      simulation.step();
      times.push(simulation.stats.stepMilliseconds);
    }
    const figures = restFigures(simulation, depth);
    rows.push(restRow(variant, figures, median(times)));
  }
  printTable(rows);
}

/**
 * White water on the CPU (one thread; `BENCH_DIFFUSE=0` skips it): the dam break of the CPU table at
 * `--diffuse-counts 10000,30000` particles with `diffuse.capacity` 4 times the count and without white water,
 * stepped in turn for `--diffuse-frames 150` frames from the release (through the first impact): median and
 * mean ms per frame of each, the white-water system's median and mean ms, the most diffuse particles and the
 * diffuse particles generated, and the share the white water added to the mean frame.
 */
function whiteWaterTable(): void {
  const whiteWaterCounts = argument('diffuse-counts', '10000,30000').split(',').map(Number);
  const whiteWaterFrames = Number(argument('diffuse-frames', '150'));
  console.log(
    `\nwhite water on the cpu (one thread): dam break, ${substeps} substeps x ${iterations} iterations, ${whiteWaterFrames} frames from the release, capacity 4 x particles`,
  );
  const rows: string[][] = [
    [
      'particles',
      'ms/frame without',
      'ms/frame with',
      'mean without',
      'mean with',
      'diffuse system',
      'diffuse mean',
      'most diffuse',
      'generated',
      'added',
    ],
  ];
  const mean = (values: readonly number[]) => values.reduce((sum, value) => sum + value, 0) / values.length;
  for (const count of whiteWaterCounts) {
    const plain = scene(count);
    const particleRadius = plain.settings.particleRadius;
    const withWhiteWater = new FluidSimulation({
      particleRadius,
      capacity: plain.settings.capacity,
      substeps,
      iterations,
      threads: 1,
      diffuse: { capacity: 4 * plain.settings.capacity },
    });
    const spacing = 2 * particleRadius;
    const n = Math.round(Math.cbrt(count));
    const [nx, ny, nz] = BLOCKS[count] ?? [n, n, Math.max(1, Math.round(count / (n * n)))];
    const tankMax: [number, number, number] = [4 * nx * spacing, 2 * ny * spacing, nz * spacing];
    const tank = withWhiteWater.addCollider({ shape: 'box', min: [0, 0, 0], max: tankMax, container: true });
    spawnDamBreakFluid(withWhiteWater, tank, [nx * spacing, ny * spacing, nz * spacing], false);
    const without: number[] = [];
    const withTimes: number[] = [];
    const system: number[] = [];
    let most = 0;
    let generated = 0;
    for (let frame = 0; frame < whiteWaterFrames; frame++) {
      plain.step();
      without.push(plain.stats.stepMilliseconds);
      withWhiteWater.step();
      withTimes.push(withWhiteWater.stats.stepMilliseconds);
      system.push(withWhiteWater.stats.systemMilliseconds.diffuse ?? 0);
      most = Math.max(most, withWhiteWater.stats.diffuseCount);
      generated += withWhiteWater.stats.diffuseGeneratedCount;
    }
    rows.push([
      String(withWhiteWater.stats.particleCount),
      median(without).toFixed(2),
      median(withTimes).toFixed(2),
      mean(without).toFixed(2),
      mean(withTimes).toFixed(2),
      median(system).toFixed(2),
      mean(system).toFixed(2),
      String(most),
      String(generated),
      `${((100 * mean(system)) / mean(without)).toFixed(1)}%`,
    ]);
  }
  printTable(rows);
}

/**
 * The water's anisotropic particles on the CPU (one thread; `BENCH_ELLIPSOIDS=0` skips it): the dam break of the
 * CPU table at `--ellipsoid-counts 10000,30000` particles stepped `--ellipsoid-frames 60` frames from the release,
 * `writeEllipsoids` (the plugin's default options, the drawn radius 1.6 r) after each step: median ms of the
 * step and of the ellipsoids, and their ratio.
 */
function ellipsoidTable(): void {
  const counts = argument('ellipsoid-counts', '10000,30000').split(',').map(Number);
  const frames = Number(argument('ellipsoid-frames', '60'));
  console.log(
    `\nanisotropic particles on the cpu (one thread): dam break, ${substeps} substeps x ${iterations} iterations, ${frames} frames from the release`,
  );
  const rows: string[][] = [['particles', 'ms/step', 'ellipsoids ms', 'ellipsoids / step']];
  for (const count of counts) {
    const simulation = scene(count);
    const capacity = simulation.settings.capacity;
    const ids = new Uint32Array(capacity);
    const out = new Float32Array(capacity * ELLIPSOID_FLOATS);
    const radius = 1.6 * simulation.settings.particleRadius;
    const steps: number[] = [];
    const ellipsoids: number[] = [];
    for (let frame = 0; frame < frames; frame++) {
      simulation.step();
      steps.push(simulation.stats.stepMilliseconds);
      const live = simulation.particles(ids);
      const start = performance.now();
      simulation.writeEllipsoids(out, live, live.length, radius);
      ellipsoids.push(performance.now() - start);
    }
    rows.push([
      String(simulation.particleCount),
      median(steps).toFixed(2),
      median(ellipsoids).toFixed(2),
      `${((100 * median(ellipsoids)) / median(steps)).toFixed(1)}%`,
    ]);
  }
  printTable(rows);
}

/**
 * The CPU's pair loops in TypeScript and in WebAssembly (bench/wasm.ts; `BENCH_WASM=0` skips it), on the dam
 * break of the CPU table at `--wasm-counts 10000,50000` particles, one thread: the lambda pass alone after
 * `--wasm-frames 20` frames (scalar and SIMD), then whole frames with `webAssembly` on and off, stepped in turn.
 */
async function wasmTable(): Promise<void> {
  const wasmCounts = argument('wasm-counts', '10000,50000').split(',').map(Number);
  const frames = Number(argument('wasm-frames', '20'));
  console.log(
    `\nthe lambda pass on one thread, TypeScript (computeLambda) against WebAssembly (src/systems/density/density.wat; SIMD: bench/wasm/lambdaSimd.wat), dam break after ${frames} frames, medians of runs in blocks:`,
  );
  const rows: string[][] = [WASM_COLUMNS];
  for (const count of wasmCounts) {
    const simulation = scene(count, undefined, 'pbf', false, 1, false);
    for (let frame = 0; frame < frames; frame++) simulation.step(1 / 60);
    rows.push(await wasmLambdaRow(simulation));
    simulation.dispose();
  }
  printTable(rows);
  console.log(
    `\nwhole frames with webAssembly on and off (the defaults, ${substeps} substeps x ${iterations} iterations, one thread; ${frames} warm-up frames, then ${WASM_FRAMES} frames each, stepped in turn):`,
  );
  const frameRows: string[][] = [WASM_FRAME_COLUMNS];
  for (const count of wasmCounts) {
    frameRows.push(wasmFrameRow(count, (webAssembly) => scene(count, undefined, 'pbf', false, 1, webAssembly), frames));
  }
  printTable(frameRows);
}

if (process.env.BENCH_SURFACE === '0') console.log('surface table skipped (BENCH_SURFACE=0)');
else surfaceTable();
if (process.env.BENCH_CPU === '0') console.log('cpu tables skipped (BENCH_CPU=0)');
else cpuTables();
if (process.env.BENCH_SOLVERS === '0') console.log('solver tables skipped (BENCH_SOLVERS=0)');
else solverTable();
if (process.env.BENCH_REST === '0') console.log('resting pool skipped (BENCH_REST=0)');
else restTable();
if (process.env.BENCH_DIFFUSE === '0') console.log('white water skipped (BENCH_DIFFUSE=0)');
else whiteWaterTable();
if (process.env.BENCH_ELLIPSOIDS === '0') console.log('anisotropic particles skipped (BENCH_ELLIPSOIDS=0)');
else ellipsoidTable();
if (process.env.BENCH_WASM === '0') console.log('webassembly table skipped (BENCH_WASM=0)');
else await wasmTable();
if (process.env.BENCH_GPU === '0') console.log('webgpu tables skipped (BENCH_GPU=0)');
else await gpuTables();
