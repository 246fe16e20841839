/**
 * `npm run bench`: CPU backend timings of a dam-break scene at several particle counts.
 * Prints median milliseconds per frame (one `step()` of 1/60 s) and per system, with the machine.
 * Options: `--counts 5000,10000`, `--frames 60`, `--substeps 2`, `--iterations 3`.
 */
import { cpus } from 'node:os';
import { FluidSimulation } from '../src';

function argument(name: string, fallback: string): string {
  const index = process.argv.indexOf(`--${name}`);
  return index >= 0 && process.argv[index + 1] ? process.argv[index + 1] : fallback;
}

const counts = argument('counts', '5000,10000,20000,50000').split(',').map(Number);
const frames = Number(argument('frames', '60'));
const substeps = Number(argument('substeps', '2'));
const iterations = Number(argument('iterations', '3'));
const warmup = 20;

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 ? sorted[middle] : 0.5 * (sorted[middle - 1] + sorted[middle]);
}

/** Block sizes (particles along x, y, z) giving exactly the standard counts; other counts get a near cube. */
const BLOCKS: Record<number, [number, number, number]> = {
  5000: [20, 25, 10],
  10000: [20, 25, 20],
  20000: [25, 40, 20],
  50000: [40, 50, 25],
};

/** A dam break: a block of water against one wall of a closed tank four block-widths long. */
function scene(count: number): FluidSimulation {
  const particleRadius = 0.025;
  const spacing = 2 * particleRadius;
  const n = Math.round(Math.cbrt(count));
  const [nx, ny, nz] = BLOCKS[count] ?? [n, n, Math.max(1, Math.round(count / (n * n)))];
  const simulation = new FluidSimulation({ particleRadius, capacity: nx * ny * nz, substeps, iterations });
  const water = simulation.addMaterial({});
  const width = nx * spacing;
  simulation.addCollider({
    shape: 'box',
    min: [0, 0, 0],
    max: [4 * width, 2 * ny * spacing, nz * spacing],
    container: true,
  });
  simulation.spawnBlock({ min: [0, 0, 0], max: [width, ny * spacing, nz * spacing], material: water });
  return simulation;
}

const cpu = cpus();
console.log(
  `machine: ${cpu.length} cores (${cpu[0]?.model ?? 'unknown'}), Node ${process.version}, ${process.platform}/${process.arch}`,
);
console.log(`backend: cpu (one thread); ${frames} measured frames after ${warmup} warm-up frames; dt = 1/60 s`);
const systemNames = ['neighbours', 'density', 'viscosityVorticity', 'velocity', 'predict', 'gather', 'publish'];
const header = ['particles', 'substeps', 'iterations', 'ms/frame', ...systemNames, 'neighbours/particle'];
const rows: string[][] = [header];
for (const count of counts) {
  const simulation = scene(count);
  for (let frame = 0; frame < warmup; frame++) simulation.step();
  const stepTimes: number[] = [];
  const systemTimes: Record<string, number[]> = {};
  const neighbourCounts: number[] = [];
  for (let frame = 0; frame < frames; frame++) {
    simulation.step();
    stepTimes.push(simulation.stats.stepMilliseconds);
    neighbourCounts.push(simulation.stats.meanNeighbourCount);
    for (const name of systemNames) {
      systemTimes[name] = systemTimes[name] ?? [];
      systemTimes[name].push(simulation.stats.systemMilliseconds[name] ?? 0);
    }
  }
  rows.push([
    String(simulation.particleCount),
    String(substeps),
    String(iterations),
    median(stepTimes).toFixed(2),
    ...systemNames.map((name) => median(systemTimes[name]).toFixed(2)),
    median(neighbourCounts).toFixed(1),
  ]);
}
const widths = header.map((_, column) => Math.max(...rows.map((row) => row[column].length)));
const line = (row: string[]) => `| ${row.map((cell, column) => cell.padStart(widths[column])).join(' | ')} |`;
console.log(line(rows[0]));
console.log(`|${widths.map((width) => '-'.repeat(width + 2)).join('|')}|`);
for (const row of rows.slice(1)) console.log(line(row));
console.log('ms per system are medians of the per-frame sums over substeps and iterations.');
