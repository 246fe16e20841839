/**
 * The option schema (src/core/schema.ts) is the one place of every numeric option's range: the public calls
 * (`new FluidSimulation`, `addMaterial`), the checks before each step (edited settings and material
 * components), snapshot restores and the README's option tables all agree with it. A range changed in one
 * place only fails here.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  FluidError,
  FluidSimulation,
  type FluidSimulationOptions,
  LevelSetSmoother,
  MATERIAL_DEFAULTS,
  SurfaceExtractor,
} from '../src';
import {
  DIFFUSE_OPTIONS,
  EMITTER_OPTIONS,
  MATERIAL_OPTIONS,
  MPS_OPTIONS,
  type OptionRule,
  PROJECTION_OPTIONS,
  rangeText,
  SIMULATION_OPTIONS,
  SPH_OPTIONS,
  SURFACE_OPTIONS,
} from '../src/core/schema';

const RULES: Record<string, OptionRule> = { ...SIMULATION_OPTIONS, ...MATERIAL_OPTIONS };

/** The README's option tables: the text just before each table, and the rules its rows are checked against. */
const TABLES: readonly { readonly before: RegExp; readonly rules: Record<string, OptionRule> }[] = [
  { before: /new FluidSimulation\(options\)|addMaterial\(options\)|Several fluids at once/, rules: RULES },
  { before: /Settings \(`sph: \{ \.\.\. \}`\)/, rules: SPH_OPTIONS },
  { before: /Settings \(`mps: \{ \.\.\. \}`/, rules: MPS_OPTIONS },
  { before: /Emitter options \(`addEmitter`/, rules: EMITTER_OPTIONS },
  { before: /White water \(`diffuse: \{ \.\.\. \}`/, rules: DIFFUSE_OPTIONS },
];

interface OptionRow {
  /** The rules of the row's table. */
  rules: Record<string, OptionRule>;
  /** The option names of the first cell, in order. */
  names: string[];
  defaults: string;
  range: string;
  meaning: string;
}

/** The rows of the README's option tables that have a range column (`| option | default | range | ...`). */
function readmeOptionRows(): OptionRow[] {
  const lines = readFileSync(join(__dirname, '..', 'README.md'), 'utf8').split('\n');
  const rows: OptionRow[] = [];
  for (let k = 0; k < lines.length; k++) {
    if (!/^\| option \| default \| range \|/.test(lines[k])) continue;
    const before = lines.slice(Math.max(0, k - 6), k).join(' ');
    const table = TABLES.find((candidate) => candidate.before.test(before));
    if (table === undefined) continue;
    for (let j = k + 2; j < lines.length && lines[j].startsWith('|'); j++) {
      const cells = lines[j]
        .slice(1, -1)
        .split(/(?<!\\)\|/)
        .map((cell) => cell.trim());
      const names = [...cells[0].matchAll(/`([A-Za-z]+)`/g)].map((match) => match[1]);
      rows.push({
        rules: table.rules,
        names,
        defaults: cells[1],
        range: cells[2],
        meaning: cells.slice(3).join(' | '),
      });
    }
  }
  return rows;
}

/** The leading number of a README default ("0.025 m", "1/60 s", "0 (off)"), or undefined. */
function leadingNumber(text: string): number | undefined {
  const match = /^(-?\d+(?:\.\d+)?(?:e-?\d+)?)(?:\/(\d+))?(?![\w.])/.exec(text.trim());
  if (!match) return undefined;
  return match[2] === undefined ? Number(match[1]) : Number(match[1]) / Number(match[2]);
}

/** The default the code uses for `name` of `rules`, where it is a constant. */
function codeDefault(rules: Record<string, OptionRule>, name: string): number | undefined {
  const rule = rules[name];
  if (rule?.default !== undefined) return rule.default;
  if (rules !== RULES) return undefined;
  const material = (MATERIAL_DEFAULTS as Record<string, unknown>)[name];
  return typeof material === 'number' ? material : undefined;
}

describe('the option schema', () => {
  const rows = readmeOptionRows();

  it("matches the README's option tables: every range, and every constant default", () => {
    expect(rows.length).toBeGreaterThan(30);
    const documented = new Set<string>();
    let checkedDefaults = 0;
    for (const row of rows) {
      const defaults = row.names.length > 1 ? row.defaults.split(', ') : [row.defaults];
      let from = 0;
      row.names.forEach((name, index) => {
        if (row.rules === RULES) documented.add(name);
        const rule = row.rules[name];
        if (rule === undefined) return;
        // Several names in a row: their ranges in the same order.
        const at = row.range.indexOf(rangeText(rule), from);
        expect(at, `README range of ${name}: '${row.range}' lacks ${rangeText(rule)}`).toBeGreaterThanOrEqual(0);
        from = at + 1;
        const value = codeDefault(row.rules, name);
        const written = leadingNumber(defaults[index] ?? '');
        if (value !== undefined && written !== undefined) {
          expect(written, `README default of ${name}`).toBeCloseTo(value, 12);
          expect(Math.abs(written - value), `README default of ${name}`).toBeLessThanOrEqual(1e-9 * Math.abs(value));
          checkedDefaults++;
        }
      });
    }
    for (const name of Object.keys(RULES)) expect(documented.has(name), `README documents ${name}`).toBe(true);
    for (const rules of [SPH_OPTIONS, MPS_OPTIONS, EMITTER_OPTIONS, DIFFUSE_OPTIONS]) {
      for (const name of Object.keys(rules)) {
        expect(
          rows.some((row) => row.rules === rules && row.names.includes(name)),
          `README documents ${name}`,
        ).toBe(true);
      }
    }
    expect(checkedDefaults).toBeGreaterThan(20);
    const projection = rows.find((row) => row.names[0] === 'projection');
    expect(projection).toBeDefined();
    for (const [key, rule] of Object.entries(PROJECTION_OPTIONS)) {
      expect(projection?.meaning).toContain(`\`${key}\` ${rule.default} in ${rangeText(rule)}`);
    }
  });

  it('is what new FluidSimulation checks: just outside each range throws, naming the range', () => {
    for (const [name, rule] of Object.entries(SIMULATION_OPTIONS)) {
      const outside = rule.max + Math.max(1, Math.abs(rule.max));
      const options: FluidSimulationOptions = name === 'gravity' ? { gravity: [0, -outside, 0] } : { [name]: outside };
      expect(() => new FluidSimulation(options), name).toThrowError(FluidError);
      expect(() => new FluidSimulation(options), name).toThrowError(rangeText(rule));
    }
    for (const [name, rule] of Object.entries(PROJECTION_OPTIONS)) {
      const projection = { [name]: rule.max + 1 };
      expect(() => new FluidSimulation({ projection }), name).toThrowError(`projection.${name}`);
      expect(() => new FluidSimulation({ projection }), name).toThrowError(rangeText(rule));
    }
    for (const [name, rule] of Object.entries(SPH_OPTIONS)) {
      const sph = { [name]: rule.max + Math.max(1, rule.max) };
      expect(() => new FluidSimulation({ solver: 'sph', sph }), name).toThrowError(`sph.${name}`);
      expect(() => new FluidSimulation({ solver: 'sph', sph }), name).toThrowError(rangeText(rule));
    }
    for (const [name, rule] of Object.entries(MPS_OPTIONS)) {
      const mps = { [name]: rule.max + Math.max(1, rule.max) };
      expect(() => new FluidSimulation({ solver: 'mps', mps }), name).toThrowError(`mps.${name}`);
      expect(() => new FluidSimulation({ solver: 'mps', mps }), name).toThrowError(rangeText(rule));
    }
    // At the ends of each range (the ranges include both ends, or exclude the lower one where they say so).
    expect(() => new FluidSimulation({ solver: 'mps', mps: { surfaceThreshold: 0 }, capacity: 1 })).toThrowError(
      '(0, 1]',
    );
    expect(() => new FluidSimulation({ solver: 'mps', mps: { surfaceThreshold: 1 }, capacity: 1 })).not.toThrow();
    expect(() => new FluidSimulation({ timeStep: SIMULATION_OPTIONS.timeStep.min, capacity: 1 })).not.toThrow();
    expect(() => new FluidSimulation({ substeps: SIMULATION_OPTIONS.substeps.max, capacity: 1 })).not.toThrow();
  });

  it('is what addMaterial and the step check: a material value outside its range throws, naming the range', () => {
    const simulation = new FluidSimulation({ particleRadius: 0.05, capacity: 64 });
    for (const [name, rule] of Object.entries(MATERIAL_OPTIONS)) {
      const outside = rule.max + Math.max(1, Math.abs(rule.max));
      expect(() => simulation.addMaterial({ [name]: outside }), name).toThrowError(rangeText(rule));
    }
    // The same ranges before each step, for values game code wrote into the component.
    const water = simulation.addMaterial({});
    simulation.spawnBlock({ min: [0, 0, 0], max: [0.2, 0.2, 0.2], material: water });
    const store = simulation.components.FluidMaterial as unknown as Record<string, Float64Array>;
    for (const [name, rule] of Object.entries(MATERIAL_OPTIONS)) {
      const saved = store[name][water];
      store[name][water] = rule.max + Math.max(1, Math.abs(rule.max));
      expect(() => simulation.step(), name).toThrowError(rangeText(rule));
      store[name][water] = saved;
    }
    expect(() => simulation.step()).not.toThrow();
  });

  it('is what addEmitter and the step check: an emitter value outside its range throws, naming the range', () => {
    const simulation = new FluidSimulation({ particleRadius: 0.05, capacity: 64 });
    const water = simulation.addMaterial({});
    const position: [number, number, number] = [0.5, 0.5, 0.5];
    const emitterRules: [string, OptionRule][] = Object.entries(EMITTER_OPTIONS);
    for (const [name, rule] of emitterRules) {
      // Above the range (the radius is also limited by the capacity, so it is tried below its range).
      const outside = name === 'radius' ? rule.min / 2 : rule.max + Math.max(1, Math.abs(rule.max));
      const call = () => simulation.addEmitter({ material: water, position, [name]: outside });
      expect(call, name).toThrowError(FluidError);
      expect(call, name).toThrowError(name === 'radius' ? `[${rule.min}, ` : rangeText(rule));
      if (rule.default !== undefined) {
        const tap = simulation.addEmitter({ material: water, position, enabled: false });
        const field = name as 'speed' | 'spread' | 'lifetime';
        expect(simulation.components.Emitter[field][tap], `default of ${name}`).toBe(rule.default);
        simulation.removeEmitter(tap);
      }
    }
    // The same ranges before each step, for values game code wrote into the component.
    const tap = simulation.addEmitter({ material: water, position, enabled: false });
    const store = simulation.components.Emitter as unknown as Record<string, Float64Array>;
    for (const [name, rule] of emitterRules) {
      if (name === 'litresPerSecond') continue;
      const saved = store[name][tap];
      store[name][tap] = name === 'radius' ? rule.min / 2 : rule.max + Math.max(1, Math.abs(rule.max));
      expect(() => simulation.step(), name).toThrowError(`Emitter.${name}[${tap}]`);
      expect(() => simulation.step(), name).toThrowError(rangeText(rule));
      store[name][tap] = saved;
    }
    expect(() => simulation.step()).not.toThrow();
  });

  it('is what the surface extraction and its level-set smoothing check', () => {
    const r = 0.01;
    const rules = SURFACE_OPTIONS;
    for (const name of ['iterations', 'curvatureWeight', 'temporalWeight'] as const) {
      const rule = rules[name];
      expect(() => new LevelSetSmoother({ [name]: rule.max + 1 }), name).toThrowError(rangeText(rule));
      expect(() => new LevelSetSmoother({ [name]: rule.min - 1 }), name).toThrowError(`${name} is ${rule.min - 1}`);
      expect(new LevelSetSmoother({})[name], `default of ${name}`).toBe(rule.default);
      expect(() => new SurfaceExtractor({ particleRadius: r, smoothing: { [name]: rule.max } })).not.toThrow();
    }
    // Open at both ends: 0 and 1 are refused, the default is 0.5.
    for (const isoLevel of [0, 1, Number.NaN]) {
      expect(() => new SurfaceExtractor({ particleRadius: r, isoLevel }), String(isoLevel)).toThrowError('(0, 1)');
    }
    expect(new SurfaceExtractor({ particleRadius: r }).isoLevel).toBe(rules.isoLevel.default);
    // Relative ranges: the kernel radius in particle radii, the cell size in kernel radii.
    const h = rules.kernelRadius.default * r;
    expect(new SurfaceExtractor({ particleRadius: r }).kernelRadius).toBeCloseTo(h, 15);
    expect(
      () => new SurfaceExtractor({ particleRadius: r, kernelRadius: rules.kernelRadius.max * r * 1.01 }),
    ).toThrowError('kernelRadius');
    expect(() => new SurfaceExtractor({ particleRadius: r, cellSize: rules.cellSize.max * h * 1.01 })).toThrowError(
      'cellSize',
    );
    expect(() => new SurfaceExtractor({ particleRadius: r, cellSize: rules.cellSize.min * h * 0.99 })).toThrowError(
      'cellSize',
    );
    expect(() => new SurfaceExtractor({ particleRadius: r, cellSize: rules.cellSize.min * h })).not.toThrow();
  });

  it('refuses an unknown option key, naming it and the closest known one, before anything changes', () => {
    const cases: Array<[() => unknown, RegExp]> = [
      [
        () => new FluidSimulation({ particleRadus: 0.01 } as FluidSimulationOptions),
        /^new FluidSimulation\(options\) has no option 'particleRadus'; did you mean 'particleRadius'\?/,
      ],
      [
        () => new FluidSimulation({ substep: 4 } as FluidSimulationOptions),
        /has no option 'substep'; did you mean 'substeps'\?/,
      ],
      [
        () => new FluidSimulation({ projection: { tolerence: 0.01 } } as unknown as FluidSimulationOptions),
        /^projection has no option 'tolerence'; did you mean 'tolerance'\?/,
      ],
      [
        () => new FluidSimulation({ solver: 'sph', sph: { speedofsound: 20 } } as unknown as FluidSimulationOptions),
        /^sph has no option 'speedofsound'; did you mean 'speedOfSound'\?/,
      ],
      [
        () => new FluidSimulation({ solver: 'mps', mps: { tolerances: 1e-3 } } as unknown as FluidSimulationOptions),
        /^mps has no option 'tolerances'; did you mean 'tolerance'\?/,
      ],
      // Far from every name: no guess, the list of options.
      [
        () => new FluidSimulation({ xyzzy: 1 } as unknown as FluidSimulationOptions),
        /^new FluidSimulation\(options\) has no option 'xyzzy' \(its options: particleRadius, /,
      ],
    ];
    for (const [call, message] of cases) expect(call).toThrowError(message);
    // An undefined value is no option at all (spreads of optional fields).
    expect(() => new FluidSimulation({ capacity: 8, unused: undefined } as FluidSimulationOptions)).not.toThrow();

    const simulation = new FluidSimulation({ particleRadius: 0.05, capacity: 64 });
    const water = simulation.addMaterial({});
    const box = simulation.addCollider({ shape: 'box', min: [0, 0, 0], max: [1, 1, 1], container: true });
    const tap = simulation.addEmitter({ material: water, position: [0.5, 0.5, 0.5], enabled: false });
    simulation.spawnBlock({ min: [0, 0, 0], max: [0.2, 0.2, 0.2], material: water });
    const before = simulation.snapshot();
    const calls: Array<[() => unknown, RegExp]> = [
      [
        () => simulation.addMaterial({ viscosty: 0.5 } as object),
        /^addMaterial has no option 'viscosty'; did you mean 'viscosity'\?/,
      ],
      [
        () => simulation.addCollider({ shape: 'sphere', center: [0, 0, 0], radius: 0.1, fricton: 1 } as never),
        /^addCollider\(\{ shape: 'sphere' \}\) has no option 'fricton'; did you mean 'friction'\?/,
      ],
      [
        () => simulation.addCollider({ shape: 'box', min: [0, 0, 0], max: [1, 1, 1], center: [0, 0, 0] } as never),
        /^addCollider\(\{ shape: 'box' \}\) has no option 'center'/,
      ],
      [
        () =>
          simulation.addCollider({
            shape: 'plane',
            point: [0, 0, 0],
            normal: [0, 1, 0],
            rigidBody: { mas: 1 },
          } as never),
        /^rigidBody has no option 'mas'; did you mean 'mass'\?/,
      ],
      [
        () => simulation.addEmitter({ material: water, position: [0, 0, 0], sped: 1 } as never),
        /^addEmitter has no option 'sped'; did you mean 'speed'\?/,
      ],
      [
        () => simulation.addDrain({ min: [0, 0, 0], max: [1, 1, 1], enable: true } as never),
        /^addDrain has no option 'enable'/,
      ],
      [
        () =>
          simulation.spawnBlock({ min: [0, 0, 0], max: [0.1, 0.1, 0.1], material: water, colour: [1, 0, 0] } as never),
        /^spawnBlock has no option 'colour'; did you mean 'color'\?/,
      ],
      [
        () =>
          simulation.spawn({
            shape: 'sphere',
            center: [0.5, 0.5, 0.5],
            radius: 0.1,
            material: water,
            min: [0, 0, 0],
          } as never),
        /^spawn\(\{ shape: 'sphere' \}\) has no option 'min'/,
      ],
      [
        () => simulation.setColliderTransform(box, { positon: [0, 0, 0] } as never),
        /^setColliderTransform has no option 'positon'; did you mean 'position'\?/,
      ],
      [
        () => simulation.setEmitterTransform(tap, { directon: [0, 1, 0] } as never),
        /^setEmitterTransform has no option 'directon'; did you mean 'direction'\?/,
      ],
      [
        () => FluidSimulation.fromSnapshot(before, { capacty: 100 } as never),
        /^fromSnapshot has no option 'capacty'; did you mean 'capacity'\?/,
      ],
    ];
    for (const [call, message] of calls) expect(call).toThrowError(message);
    // None of the refused calls changed anything.
    expect(Buffer.from(simulation.snapshot()).equals(Buffer.from(before))).toBe(true);
  });

  it('is what the step and a snapshot restore check for the live settings', () => {
    const simulation = new FluidSimulation({ particleRadius: 0.05, capacity: 64 });
    const water = simulation.addMaterial({});
    simulation.spawnBlock({ min: [0, 0, 0], max: [0.2, 0.2, 0.2], material: water });
    simulation.step();
    const good = simulation.snapshot();
    simulation.settings.substeps = 40;
    expect(() => simulation.step()).toThrowError(
      `settings.substeps is 40; allowed range is ${rangeText(SIMULATION_OPTIONS.substeps)}`,
    );
    const bad = simulation.snapshot();
    simulation.settings.substeps = 2;
    // A restore of the bad settings throws before it changes anything.
    const other = new FluidSimulation({ particleRadius: 0.05, capacity: 64 });
    other.restore(good);
    const before = other.snapshot();
    expect(() => other.restore(bad)).toThrowError(
      `the snapshot's settings.substeps is 40; allowed range is ${rangeText(SIMULATION_OPTIONS.substeps)}`,
    );
    expect(Buffer.from(other.snapshot()).equals(Buffer.from(before))).toBe(true);
    expect(() => FluidSimulation.fromSnapshot(bad)).toThrowError(FluidError);
  });
});
