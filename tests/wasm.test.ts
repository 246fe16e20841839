/**
 * The CPU backend's density passes in WebAssembly (src/systems/density/wasm.ts, density.wat): the committed
 * module is the assembly of its text, and a run gives the same results bit for bit as the TypeScript loops.
 */
import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { assembleBase64, kernelModule, moduleText, WASM_MODULE } from '../scripts/assembleWasm.mjs';
import { FluidError, FluidSimulation, type FluidSimulationOptions } from '../src';
import { openGpuPage } from './browser/driver';
import type { BrowserWasmResult } from './browser/wasm';

/** A dam break in a box tank with a sphere (walls, collisions), spawned with `materials` materials. */
function damBreak(options: FluidSimulationOptions, materials: number): FluidSimulation {
  const simulation = new FluidSimulation({ particleRadius: 0.025, capacity: 4000, ...options });
  simulation.addCollider({ shape: 'box', min: [0, 0, 0], max: [1.6, 1, 0.5], container: true });
  simulation.addCollider({ shape: 'sphere', center: [0.9, 0.1, 0.25], radius: 0.12 });
  const water = simulation.addMaterial({ vorticity: 0.05 });
  simulation.spawnBlock({ min: [0, 0, 0], max: [0.5, 0.6, 0.5], material: water });
  if (materials > 1) {
    const oil = simulation.addMaterial({ restDensity: 900 });
    simulation.spawnBlock({ min: [0, 0.62, 0], max: [0.5, 0.8, 0.5], material: oil });
  }
  return simulation;
}

/** Positions and velocities of every particle, by entity, after `frames` steps. */
function run(simulation: FluidSimulation, frames: number): { state: Map<number, number[]>; used: boolean[] } {
  const used: boolean[] = [];
  for (let frame = 0; frame < frames; frame++) {
    simulation.step();
    used.push(simulation.stats.webAssembly);
  }
  const state = new Map<number, number[]>();
  const { Position, Velocity } = simulation;
  for (const eid of simulation.particles()) {
    state.set(eid, [
      Position.x[eid],
      Position.y[eid],
      Position.z[eid],
      Velocity.x[eid],
      Velocity.y[eid],
      Velocity.z[eid],
    ]);
  }
  simulation.dispose();
  return { state, used };
}

describe('the density passes in WebAssembly', () => {
  it("the committed module is the assembly of the kernels' WebAssembly text (npm run wasm)", async () => {
    const committed = await readFile(new URL(`../${WASM_MODULE.path}`, import.meta.url), 'utf8');
    expect(committed).toBe(kernelModule(await assembleBase64(await moduleText())));
  });

  const cases: [string, number, FluidSimulationOptions][] = [
    ['one material: lambda and corrections (s_corr with the still-water offset)', 1, {}],
    ['one material without the projection: lambda and corrections (eq. 13 as written)', 1, { projection: false }],
    ['two materials: lambda (the corrections in TypeScript)', 2, {}],
  ];
  for (const [name, materials, options] of cases) {
    it(`${name}: 40 frames bit-identical to the TypeScript loops`, async () => {
      const wasm = damBreak(options, materials);
      await wasm.ready();
      const typescript = damBreak({ ...options, webAssembly: false }, materials);
      const a = run(wasm, 40);
      const b = run(typescript, 40);
      expect(b.used.every((used) => !used)).toBe(true);
      expect(a.used.every((used) => used)).toBe(true);
      expect(a.state.size).toBe(b.state.size);
      let differing = 0;
      for (const [entity, values] of a.state) {
        const other = b.state.get(entity);
        if (!other || values.some((value, k) => !Object.is(value, other[k]))) differing++;
      }
      expect(differing).toBe(0);
    });
  }

  it('where the runtime refuses to compile WebAssembly, runs the TypeScript loops without an error', async () => {
    const { Module, instantiate } = WebAssembly;
    const refuse = (): never => {
      throw new WebAssembly.CompileError('Wasm code generation disallowed by embedder');
    };
    WebAssembly.Module = refuse as unknown as typeof WebAssembly.Module;
    WebAssembly.instantiate = (async () => refuse()) as unknown as typeof WebAssembly.instantiate;
    let refused: FluidSimulation;
    try {
      refused = damBreak({}, 1);
    } finally {
      WebAssembly.Module = Module;
      WebAssembly.instantiate = instantiate;
    }
    await refused.ready();
    const typescript = damBreak({ webAssembly: false }, 1);
    const a = run(refused, 10);
    const b = run(typescript, 10);
    expect(a.used.some((used) => used)).toBe(false);
    expect(
      [...a.state].every(([entity, values]) => values.every((value, k) => Object.is(value, b.state.get(entity)?.[k]))),
    ).toBe(true);
  });

  it('in a browser page (headless Chromium): every step in WebAssembly, bit-identical to the TypeScript loops', async () => {
    const page = await openGpuPage();
    try {
      const result = await page.run<BrowserWasmResult>('webAssembly', { steps: 20 });
      console.log(`webAssembly in a page: ${JSON.stringify(result)}`);
      expect(result.particles).toBeGreaterThan(1000);
      expect(result.stepsOn).toBe(20);
      expect(result.stepsOff).toBe(0);
      expect(result.same).toBe(true);
      expect(page.consoleErrors).toEqual([]);
    } finally {
      await page.close();
    }
  });

  it('refuses a webAssembly option that is not a boolean', () => {
    expect(() => new FluidSimulation({ webAssembly: 1 as unknown as boolean })).toThrow(FluidError);
    expect(() => new FluidSimulation({ webAssembly: 1 as unknown as boolean })).toThrow(
      'webAssembly is 1; it must be true or false',
    );
  });
});
