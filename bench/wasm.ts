/**
 * `npm run bench`'s WebAssembly tables (`BENCH_WASM=0` skips them). First the CPU backend's lambda pass on one
 * thread in TypeScript (`computeLambda` with `webAssembly: false`, src/systems/density/cpu.ts) against the
 * WebAssembly pass the product runs (src/systems/density/density.wat, in the CPU module of scripts/assembleWasm.mjs)
 * and a variant with two pairs at a time in
 * float64x2 lanes (SIMD, bench/wasm/lambdaSimd.wat), assembled by the `wabt` package when the bench starts, on the
 * dam break of the CPU table after `--wasm-frames` frames. Both read the same inputs (the simulation's
 * arrays, copied once into the module's memory) and their outputs are compared bit for bit. Timings are medians
 * of `WASM_RUNS` runs, in blocks of `BLOCK` runs of each form in turn; the copy column is what moving the pass's inputs in and its outputs out
 * costs per run where the arrays are not already in the module's memory.
 */
import { readFileSync } from 'node:fs';
import initWabt from 'wabt';
import { moduleText } from '../scripts/assembleWasm.mjs';
import type { FluidSimulation } from '../src';
import { COINCIDENT_OFFSET, poly6Coefficient, spikyGradientCoefficient } from '../src/core/kernels';
import { selfWeight } from '../src/systems/context';
import { computeLambda } from '../src/systems/density/cpu';
import { layOutMemory } from '../src/systems/wasm/state';
import { median } from '../tests/browser/bench';

/** Runs per timing, in blocks of BLOCK runs of one form, the forms in turn. */
const WASM_RUNS = 40;
const BLOCK = 10;

/** The assembled module's exports: the pass, scalar and with float64x2 lanes, and its memory. */
interface LambdaModule {
  memory: WebAssembly.Memory;
  lambda: (...values: number[]) => void;
  lambdaSimd: (...values: number[]) => void;
}

/** The product's CPU module (scripts/assembleWasm.mjs's text) with the SIMD lambda pass added to it. */
async function assemble(): Promise<LambdaModule> {
  const wabt = await initWabt();
  const simd = readFileSync(new URL('../wasm/lambdaSimd.wat', import.meta.url), 'utf8');
  // The bundle runs from bench/.build: the parts are read from the checkout two levels up.
  const read = async (path: string): Promise<string> => readFileSync(new URL(`../../${path}`, import.meta.url), 'utf8');
  const parsed = wabt.parseWat('cpuKernels.wat', await moduleText(simd, read), { simd: true });
  const { buffer } = parsed.toBinary({});
  parsed.destroy();
  const instance = await WebAssembly.instantiate(await WebAssembly.compile(new Uint8Array(buffer)));
  return instance.exports as unknown as LambdaModule;
}

/** A float64, int32 or uint16 array of the solver, by name, as the module's layout lists them. */
type Layout = [name: string, source: Float64Array | Int32Array | Uint16Array, length: number][];

/** One row of the table: the lambda pass of `simulation` (CPU backend, one thread) in both forms. */
export async function wasmLambdaRow(simulation: FluidSimulation): Promise<string[]> {
  const module = await assemble();
  const ctx = simulation.internalContext;
  const s = ctx.solver;
  const n = s.count;
  const pairs = s.neighbourStart[n];
  const m = ctx.materials;
  const outputs = ['density', 'gradientX', 'gradientY', 'gradientZ', 'gradientSquares', 'constraint', 'lambda'];
  const layout: Layout = [
    ['predictedX', s.predictedX, n],
    ['predictedY', s.predictedY, n],
    ['predictedZ', s.predictedZ, n],
    ['mass', s.mass, n],
    ['material', s.material, n],
    ['wallWeight', s.wallWeight, n],
    ['wallGradientX', s.wallGradientX, n],
    ['wallGradientY', s.wallGradientY, n],
    ['wallGradientZ', s.wallGradientZ, n],
    ...outputs.map((name): Layout[number] => [name, s[name as 'density'], n]),
    ['neighbourStart', s.neighbourStart, n + 1],
    ['neighbours', s.neighbours, pairs],
    ['pairGradient', s.pairGradient, pairs],
    ['pairWeight', s.pairWeight, pairs],
    ['inverseRestDensity', m.inverseRestDensity, m.inverseRestDensity.length],
    ['relaxation', m.relaxation, m.relaxation.length],
  ];
  // The product's layout of the module's memory (src/systems/wasm/state.ts).
  const offsets = new Map<string, number>();
  if (!layOutMemory({ offsets }, module.memory, { n, pairs, materials: m.inverseRestDensity.length })) {
    throw new Error('the module memory cannot grow that far');
  }
  const view = (name: string): Float64Array | Int32Array | Uint16Array => {
    const [, source, length] = layout.find(([entry]) => entry === name) ?? [];
    if (!source || length === undefined) throw new Error(`no array ${name}`);
    const kind = source.constructor as Float64ArrayConstructor | Int32ArrayConstructor | Uint16ArrayConstructor;
    return new kind(module.memory.buffer, offsets.get(name), length);
  };
  const written = [...outputs, 'pairGradient', 'pairWeight'];
  const copyIn = (): void => {
    for (const [name, source, length] of layout) {
      if (!written.includes(name)) view(name).set(source.subarray(0, length));
    }
  };
  const copyOut = (): void => {
    for (const [name, source, length] of layout) {
      if (written.includes(name)) source.set(view(name).subarray(0, length) as Float64Array);
    }
  };
  const h = ctx.settings.kernelRadius;
  const run = (pass: LambdaModule['lambda']): void =>
    pass(
      n,
      ...layout.map(([name]) => offsets.get(name) ?? 0),
      h,
      h * h,
      poly6Coefficient(h),
      spikyGradientCoefficient(h),
      selfWeight(h),
      COINCIDENT_OFFSET * h,
    );
  // Reference outputs of the TypeScript pass, then the module's on the same inputs.
  computeLambda(ctx);
  const compare = (pass: LambdaModule['lambda']): string => {
    copyIn();
    // The outputs start as NaN, so one the pass does not write differs from the reference.
    for (const name of written) view(name).fill(Number.NaN);
    run(pass);
    let identical = 0;
    let compared = 0;
    for (const name of written) {
      const [, source, length] = layout.find(([entry]) => entry === name) ?? [];
      if (!source || length === undefined) continue;
      const mine = view(name);
      for (let k = 0; k < length; k++) {
        compared++;
        if (Object.is(mine[k], source[k])) identical++;
      }
    }
    return identical === compared ? `yes (${compared} values)` : `no: ${compared - identical} of ${compared} differ`;
  };
  const scalarIdentical = compare(module.lambda);
  const simdIdentical = compare(module.lambdaSimd);
  // Blocks of BLOCK runs of each form in turn (each block keeps its own data in cache, as a step would).
  const typescript: number[] = [];
  const assembly: number[] = [];
  const lanes: number[] = [];
  const copies: number[] = [];
  const time = (into: number[], work: () => void): void => {
    for (let k = 0; k < BLOCK; k++) {
      const start = performance.now();
      work();
      into.push(performance.now() - start);
    }
  };
  for (let block = 0; block < WASM_RUNS / BLOCK; block++) {
    time(typescript, () => computeLambda(ctx));
    time(assembly, () => run(module.lambda));
    time(lanes, () => run(module.lambdaSimd));
    time(copies, () => {
      copyIn();
      copyOut();
    });
  }
  const js = median(typescript);
  const wasm = median(assembly);
  const simd = median(lanes);
  return [
    String(n),
    String(pairs),
    js.toFixed(3),
    wasm.toFixed(3),
    `${(js / wasm).toFixed(2)}x`,
    simd.toFixed(3),
    `${(js / simd).toFixed(2)}x`,
    median(copies).toFixed(3),
    `${((1e6 * js) / pairs).toFixed(2)}`,
    `${((1e6 * wasm) / pairs).toFixed(2)}`,
    scalarIdentical,
    simdIdentical,
  ];
}

/** The table's header. */
export const WASM_COLUMNS = [
  'particles',
  'pairs',
  'TypeScript ms',
  'WebAssembly ms',
  'speedup',
  'SIMD ms',
  'SIMD speedup',
  'copy in and out ms',
  'TypeScript ns/pair',
  'WebAssembly ns/pair',
  'bit-identical',
  'SIMD bit-identical',
];

/** Measured frames per simulation in {@link wasmFrameRow}. */
export const WASM_FRAMES = 30;

/**
 * Whole frames of the same scene with `webAssembly` on and off (`create(webAssembly)` makes it), after
 * `warmup` frames each, stepped in turn one frame at a time: medians, and whether the two ended bit-identical.
 */
export function wasmFrameRow(
  count: number,
  create: (webAssembly: boolean) => FluidSimulation,
  warmup: number,
): string[] {
  const on = create(true);
  const off = create(false);
  const times: [number[], number[]] = [[], []];
  // Per system (stats.systemMilliseconds) of each simulation, per frame.
  const systems: [Record<string, number[]>, Record<string, number[]>] = [{}, {}];
  let used = true;
  for (let frame = 0; frame < warmup + WASM_FRAMES; frame++) {
    [on, off].forEach((simulation, k) => {
      const start = performance.now();
      simulation.step(1 / 60);
      if (frame < warmup) return;
      times[k].push(performance.now() - start);
      for (const name of WASM_SYSTEMS) {
        systems[k][name] ??= [];
        systems[k][name].push(simulation.stats.systemMilliseconds[name] ?? 0);
      }
    });
    used &&= on.stats.webAssembly && !off.stats.webAssembly;
  }
  let differing = 0;
  const a = on.internalContext.solver;
  const b = off.internalContext.solver;
  const arrays = ['positionX', 'positionY', 'positionZ', 'velocityX', 'velocityY', 'velocityZ'] as const;
  for (let k = 0; k < a.count; k++) {
    if (arrays.some((name) => !Object.is(a[name][k], b[name][k]))) differing++;
  }
  on.dispose();
  off.dispose();
  const withWasm = median(times[0]);
  const without = median(times[1]);
  return [
    String(count),
    without.toFixed(2),
    withWasm.toFixed(2),
    `${(without / withWasm).toFixed(2)}x`,
    ...WASM_SYSTEMS.map((name) => `${median(systems[1][name]).toFixed(2)} / ${median(systems[0][name]).toFixed(2)}`),
    used ? 'yes' : 'no',
    differing === 0 ? 'yes' : `no: ${differing} particles differ`,
  ];
}

/** The systems whose loops run in WebAssembly, timed per frame in {@link wasmFrameRow}. */
const WASM_SYSTEMS = ['neighbours', 'projection', 'density', 'viscosityVorticity'];

/** The header of {@link wasmFrameRow}'s table. */
export const WASM_FRAME_COLUMNS = [
  'particles',
  'ms/frame TypeScript',
  'ms/frame WebAssembly',
  'speedup',
  ...WASM_SYSTEMS.map((name) => `${name} ms TypeScript / WebAssembly`),
  'stats.webAssembly',
  'bit-identical',
];
