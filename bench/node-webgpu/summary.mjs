// Prints what device-check.sh wrote into a folder: the parity scenarios' main figures, to compare with the
// bounds their tests assert (tests/webgpu.test.ts), and each 'bench' result (tests/browser/bench.ts,
// BenchResult) as a Markdown table: per particle count ms per frame, JavaScript ms of step(), dispatches per
// frame, the coarse projection's last iterations, and the GPU ms per pass from timestamp queries (summed over
// substeps and iterations; the passes under 2% of the total together as "other"). A value that is not a
// finite number (JSON has no NaN: it arrives as null) prints as "not a number".
// Usage: node summary.mjs <folder>
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const folder = process.argv[2];
const finite = (value) => typeof value === 'number' && Number.isFinite(value);
const fixed = (value, digits = 3) => (value === undefined ? '-' : finite(value) ? value.toFixed(digits) : 'not a number');
const exponent = (value) => (finite(value) ? value.toExponential(1) : 'not a number');
const percent = (value) => (finite(value) ? `${(100 * value).toFixed(2)}%` : 'not a number');

function read(name) {
  const path = join(folder, `${name}.json`);
  if (!existsSync(path)) return undefined;
  try {
    return JSON.parse(readFileSync(path, 'utf8'));
  } catch {
    console.log(`${name}: no result (see ${name}.log)`);
    return undefined;
  }
}

const kernels = read('kernelParity');
if (kernels) {
  const parts = [];
  for (const [name, value] of Object.entries(kernels)) {
    if (value && typeof value === 'object' && 'relative' in value) {
      parts.push(`${name} ${exponent(value.relative)}${value.nonFinite ? ` (${value.nonFinite} non-finite)` : ''}`);
    }
  }
  const step = kernels.step ?? {};
  const contacts = kernels.contacts ?? {};
  console.log(
    `kernelParity, ${kernels.particles} particles, relative differences GPU - CPU: ${parts.join(', ')}; contacts ${contacts.gpu} on the GPU, ${contacts.cpu} on the CPU, ${contacts.agree} agree; one step of the kernel scene: positions within ${fixed(step.position?.maxAbsolute, 4)} m, velocities within ${fixed(step.velocity?.maxAbsolute, 3)} m/s`,
  );
}
const lists = read('neighbourLists');
if (lists) {
  console.log(
    `neighbourLists: ${lists.gpuPairs} GPU pairs against ${lists.cpuPairs} CPU pairs, ${lists.missing} missing and ${lists.extra} extra (${lists.borderline} within rounding of h), ${lists.overflowed} overflowed, ${lists.oneSided} one-sided`,
  );
}
const dam = read('damBreakParity');
if (dam) {
  const side = (s = {}) =>
    `front ${fixed(s.frontTenthSecond, 4)} / ${fixed(s.frontFifthSecond, 4)} m at 0.1 / 0.2 s, density error ${percent(s.densityErrorTwoSeconds)} at 2 s, mean height ${fixed(s.meanHeight, 4)} m, non-finite ${s.nonFinite}`;
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
    for (const [pass, ms] of Object.entries(gpu)) {
      if (pass !== 'total' && finite(ms) && finite(gpu.total) && ms >= 0.02 * gpu.total) major.add(pass);
    }
  }
  const passes = [...major];
  const header = ['particles', 'substeps x iterations', 'ms/frame', 'step() ms', 'dispatches', 'projection iterations', 'GPU ms', ...passes, 'other'];
  const lines = [header, header.map(() => '---')];
  for (const row of rows) {
    const gpu = row.gpuPassMilliseconds ?? {};
    const shown = passes.reduce((sum, pass) => sum + (finite(gpu[pass]) ? gpu[pass] : 0), 0);
    lines.push([
      String(row.particles),
      `${row.substeps} x ${row.iterations}`,
      fixed(row.frameMilliseconds, 2),
      fixed(row.stepMilliseconds, 2),
      String(row.dispatchesPerFrame),
      String(row.projectionIterations),
      fixed(gpu.total),
      ...passes.map((pass) => fixed(gpu[pass])),
      gpu.total === undefined ? '-' : fixed(gpu.total - shown),
    ]);
  }
  for (const line of lines) console.log(`| ${line.join(' | ')} |`);
}
