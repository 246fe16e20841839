// Prints what device-check.sh wrote into a folder: the parity scenarios' main figures, to compare with the
// bounds their tests assert (tests/webgpu.test.ts), and each 'bench' result (tests/browser/bench.ts,
// BenchResult) as a Markdown table: per particle count ms per frame, JavaScript ms of step(), dispatches per
// frame, the coarse projection's last iterations, and the GPU ms per pass from timestamp queries (summed over
// substeps and iterations; the passes under 2% of the total together as "other").
// Usage: node summary.mjs <folder>
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const folder = process.argv[2];
const read = (name) => {
  const path = join(folder, `${name}.json`);
  if (!existsSync(path)) return undefined;
  try {
    return JSON.parse(readFileSync(path, 'utf8'));
  } catch {
    console.log(`${name}: no result (see ${name}.log)`);
    return undefined;
  }
};

const kernels = read('kernelParity');
if (kernels) {
  const parts = Object.entries(kernels)
    .filter(([, value]) => value && typeof value === 'object' && 'relative' in value)
    .map(([name, value]) => `${name} ${value.relative.toExponential(1)}${value.nonFinite ? ` (${value.nonFinite} non-finite)` : ''}`);
  console.log(`kernelParity, ${kernels.particles} particles, relative differences GPU - CPU: ${parts.join(', ')}`);
}
const lists = read('neighbourLists');
if (lists) {
  console.log(
    `neighbourLists: ${lists.gpuPairs} GPU pairs against ${lists.cpuPairs} CPU pairs, ${lists.missing} missing and ${lists.extra} extra (borderline ${lists.borderline}), ${lists.overflowed} overflowed, one-sided ${lists.oneSided}`,
  );
}
const dam = read('damBreakParity');
if (dam) {
  const side = (s) =>
    `front ${s.frontTenthSecond.toFixed(4)} / ${s.frontFifthSecond.toFixed(4)} m at 0.1 / 0.2 s, density error ${(100 * s.densityErrorTwoSeconds).toFixed(2)}% at 2 s, mean height ${s.meanHeight.toFixed(4)} m, non-finite ${s.nonFinite}`;
  console.log(`damBreakParity: CPU ${side(dam.cpu)}; WebGPU ${side(dam.webgpu)}`);
}

for (const name of ['bench', 'benchMaximumLimits']) {
  const result = read(name);
  if (!result) continue;
  const rows = result.rows ?? [];
  console.log(
    `${name}: ${result.adapter}; timestamp queries: ${result.timestampQueries}${result.timestampNote ? ` (${result.timestampNote})` : ''}`,
  );
  const major = new Set();
  for (const row of rows) {
    const gpu = row.gpuPassMilliseconds ?? {};
    for (const [pass, ms] of Object.entries(gpu)) if (pass !== 'total' && ms >= 0.02 * (gpu.total ?? 0)) major.add(pass);
  }
  const passes = [...major];
  const header = ['particles', 'substeps x iterations', 'ms/frame', 'step() ms', 'dispatches', 'projection iterations', 'GPU ms', ...passes, 'other'];
  const lines = [header, header.map(() => '---')];
  const fixed = (value, digits = 3) => (value === undefined ? '-' : value.toFixed(digits));
  for (const row of rows) {
    const gpu = row.gpuPassMilliseconds ?? {};
    const shown = passes.reduce((sum, pass) => sum + (gpu[pass] ?? 0), 0);
    lines.push([
      String(row.particles),
      `${row.substeps} x ${row.iterations}`,
      fixed(row.frameMilliseconds, 2),
      fixed(row.stepMilliseconds, 2),
      String(row.dispatchesPerFrame),
      String(row.projectionIterations),
      fixed(gpu.total),
      ...passes.map((pass) => fixed(gpu[pass])),
      gpu.total === undefined ? '-' : (gpu.total - shown).toFixed(3),
    ]);
  }
  for (const line of lines) console.log(`| ${line.join(' | ')} |`);
}
