/**
 * Trapped air and boiling (Müller et al. 2005, sections 3.4 and 4.4) on the WebGPU backend against the CPU
 * reference, in headless Chromium (SwiftShader WebGPU; see tests/browser/driver.ts): the scenes of
 * tests/browser/air.ts on both backends in lockstep. Tolerances are written below with what was measured.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type {
  AirBoilResult,
  AirBuoyancyKernelResult,
  AirBuoyancyResult,
  AirKernelParityResult,
  AirPassesResult,
  AirPourResult,
  AirReadbackOrderResult,
} from './browser/air';
import { type GpuPage, openGpuPage } from './browser/driver';

describe('trapped air and boiling on the WebGPU backend in headless Chromium', () => {
  let gpu: GpuPage;

  beforeAll(async () => {
    gpu = await openGpuPage();
  }, 300_000);

  afterAll(async () => {
    await gpu?.close();
  });

  it('computes the color fields and picks the same particles to generate and delete air at step 1', async () => {
    const result = await gpu.run<AirKernelParityResult>('airKernelParity');
    console.log(
      `slab: ${result.particles} particles; generated ${result.generatedCpu.length} CPU / ${result.generatedGpu.length} GPU, deleted ${result.deletedCpu.length} / ${result.deletedGpu.length}; margins of the differing ones [${result.generatedMargins.join(', ')}] [${result.deletedMargins.join(', ')}]; field differences: grad c^P ${result.maxParticleGradientDifference.toExponential(2)} / h, grad c^S ${result.maxSurfaceGradientDifference.toExponential(2)} / h, number density ${result.maxNumberDensityDifference.toExponential(2)} of the rest lattice's; positions ${result.maxPositionDifference.toExponential(2)} m; air created ${result.airGeneratedCpu} (CPU, step 1) / ${result.airGeneratedGpu} (GPU, step 2)`,
    );
    expect(result.backend).toBe('webgpu');
    expect(gpu.consoleErrors).toEqual([]);
    // The scene exercises every criterion: the slab's underside generates (72 of its 192 particles: the
    // bottom layer and the edges of the one above), the pool's bottom layer on the floor does not (the
    // walls' virtual particles in c^P), the air layer on top (free surface) and the lone air particle
    // (isolated) are deleted, the 4 air particles inside the slab are kept.
    expect(result.generatedCpu.length).toBeGreaterThanOrEqual(50);
    expect(result.deletedCpu.length).toBeGreaterThanOrEqual(10);
    // Measured: the same sets on both backends; grad c^S within 1.8e-6 / h and the number density within
    // 5.4e-6 of the rest lattice's (float32 sums of about 40 terms, positions 2.9e-8 m apart); grad c^P
    // within 1.6e-3 / h, from the pool's bottom layer: the CPU reuses the floor's wall gradient of its last
    // lambda evaluation (positions before the last correction and collision), the GPU evaluates it at the
    // final position, where the wall weight is steep. Tolerances: exact set equality (a particle within the
    // field tolerance of a threshold could differ; none in this scene is), grad c^P within 5e-3 / h (0.8%
    // of the generation threshold 0.6 / h), grad c^S and the number density within 1e-4.
    expect(result.generatedGpu).toEqual(result.generatedCpu);
    expect(result.deletedGpu).toEqual(result.deletedCpu);
    expect(result.maxParticleGradientDifference).toBeLessThan(5e-3);
    expect(result.maxSurfaceGradientDifference).toBeLessThan(1e-4);
    expect(result.maxNumberDensityDifference).toBeLessThan(1e-4);
    // The GPU creates its candidates one step later, all of them (room: 128 per step).
    expect(result.airGeneratedGpu).toBe(result.airGeneratedCpu);
  }, 600_000);

  it('applies the artificial buoyancy of eq. 17 as the CPU does', async () => {
    const kernel = await gpu.run<AirBuoyancyKernelResult>('airBuoyancyKernel');
    console.log(
      `eq. 17, first substep: dv_y CPU [${kernel.changeCpu.map((v) => v.toFixed(4)).join(', ')}], GPU [${kernel.changeGpu.map((v) => v.toFixed(4)).join(', ')}]; largest difference ${kernel.maxChangeDifference.toExponential(2)} m/s of ${kernel.maxChangeCpu.toFixed(4)}; water ${kernel.maxWaterChangeGpu.toExponential(2)} m/s`,
    );
    expect(kernel.backend).toBe('webgpu');
    expect(kernel.bubble).toBe(8);
    // Measured: dv 0.306-0.344 m/s per substep on both, largest difference 4.4e-3 m/s (1.3%). The cause is
    // the neighbour sets, not the kernel: the CPU sums rho = sum_j m_j W_ij over its neighbour list, built
    // on the substep's predicted positions, and misses pairs the solve brought within h (a bottom-layer air
    // particle: 399 kg/m^3 from the list, 431 by brute force over all particles); the GPU loops over the
    // 27 cells of the last sort and finds most of them (417). Tolerance 3% of the largest dv. Water
    // particles get no buoyancy: their delta differs between the two GPU runs only by the run-to-run order
    // of the sort (measured 1.7e-3 m/s); tolerance 1e-2 m/s, far below the air's 0.3 m/s.
    expect(kernel.maxChangeCpu).toBeGreaterThan(0.2);
    expect(kernel.maxChangeDifference).toBeLessThan(0.03 * kernel.maxChangeCpu);
    expect(kernel.maxWaterChangeGpu).toBeLessThan(1e-2);
    // A few steps: the bubble (8 air particles at the bottom of a 12 cm pool) rises on both backends,
    // faster with b = 5 than without.
    const steps = await gpu.run<AirBuoyancyResult>('airBuoyancy', { steps: 5, compareAt: [1, 3, 5] });
    console.log(`buoyancy over steps 1, 3, 5: ${JSON.stringify(steps)}`);
    for (let k = 0; k < 3; k++) {
      expect(steps.meanHeightCpu[k]).toBeGreaterThan(steps.meanHeightWithoutBuoyancy[k]);
      expect(steps.meanHeightGpu[k]).toBeGreaterThan(steps.meanHeightWithoutBuoyancyGpu[k]);
    }
    // Measured at step 5: rise by eq. 17 (mean height with b = 5 minus without) 0.050 m on the CPU and
    // 0.144 m on the GPU. Most of the gap is the two-fluid solve itself, not eq. 17: without buoyancy the
    // backends already differ by 3.5e-3 m after one step in this 100 / 1000 kg/m^3 scene (the GPU's light
    // particles rise about twice as far in 5 steps), and with it the faster bubble gains more. Band: the
    // GPU's rise between 0.5 and 4 times the CPU's.
    const riseCpu = steps.meanHeightCpu[2] - steps.meanHeightWithoutBuoyancy[2];
    const riseGpu = steps.meanHeightGpu[2] - steps.meanHeightWithoutBuoyancyGpu[2];
    expect(riseGpu).toBeGreaterThan(0.5 * riseCpu);
    expect(riseGpu).toBeLessThan(4 * riseCpu);
    expect(gpu.consoleErrors).toEqual([]);
  }, 600_000);

  it('generates air under a pouring jet on both backends, bounded, within a band of the CPU', async () => {
    const capacity = 900;
    const result = await gpu.run<AirPourResult>('airPour', { pourFrames: 45, settleFrames: 45, capacity });
    const every = (values: number[]) => values.filter((_, k) => (k + 1) % 10 === 0).join(' ');
    // The last frame with an air particle alive (0: none ever).
    const lastAir = (values: number[]) => values.reduce((last, value, k) => (value > 0 ? k + 1 : last), 0);
    console.log(
      `pour: air every 10 frames CPU [${every(result.cpu.airCounts)}], GPU [${every(result.gpu.airCounts)}]; generated ${result.cpu.generated} / ${result.gpu.generated}; most particles ${result.cpu.mostParticles} / ${result.gpu.mostParticles} (capacity ${capacity}); last air at frame ${lastAir(result.cpu.airCounts)} / ${lastAir(result.gpu.airCounts)}; GPU air frames 60-90 [${result.gpu.airCounts.slice(59).join(' ')}]`,
    );
    expect(result.backend).toBe('webgpu');
    expect(result.cpu.nonFinite + result.gpu.nonFinite).toBe(0);
    for (const run of [result.cpu, result.gpu]) {
      expect(run.mostParticles).toBeLessThanOrEqual(capacity);
      expect(Math.max(...run.airCounts)).toBeLessThanOrEqual(200);
    }
    const mostCpu = Math.max(...result.cpu.airCounts);
    const mostGpu = Math.max(...result.gpu.airCounts);
    // Both generate: the trajectories of a breaking jet diverge between float32 and float64 within a few
    // frames, so counts are compared as totals and peaks. Measured (45 frames of pouring, 45 of settling):
    // 263 generated on the CPU, 236 to 264 on the GPU in four runs (measured while the GPU's sort still ordered
    // particles by its atomics, so its runs differed; the sort is stable now); at most 63 and 53 to 57 air particles at once; at most
    // 622 and 618 to 631 particles (capacity 900). The CPU's last air particle goes at frame 66; the GPU's
    // between frames 58 and 69 in 7 of 8 runs, while in the 8th one air particle stayed to the end (frame
    // 90). Such stragglers rest at the water surface (about 1-2 cm above the top layer; 3 of 24 GPU-only
    // runs held 1 or 2 at frame 80): in the glass's corners, where the walls' virtual particles tilt
    // grad(c^P) more than 60 degrees from straight down, so the free-surface test fails, or with
    // |grad(c^P)| h about 0.6, below the deletion boundary threshold 1. The CPU applies the same criteria
    // to fields that agree within 1.6e-3 / h (first test); its one deterministic trajectory just does not
    // end there. So this is not a deletion difference between the backends, and no frame is asserted.
    // Band: the GPU's total and its peak within a factor 2 either way of the CPU's (a breaking jet's air
    // is chaotic: the per-step counts differ by up to 40% at the same frame).
    expect(result.cpu.generated).toBeGreaterThanOrEqual(10);
    expect(result.gpu.generated).toBeGreaterThanOrEqual(0.5 * result.cpu.generated);
    expect(result.gpu.generated).toBeLessThanOrEqual(2 * result.cpu.generated);
    expect(mostGpu).toBeGreaterThanOrEqual(0.5 * mostCpu);
    expect(mostGpu).toBeLessThanOrEqual(2 * mostCpu);
    // A capacity the pour reaches (400): the emitter blocks, air takes free places only, never beyond the
    // capacity on either backend (the GPU caps its candidates at the capacity left after the step, the CPU
    // creates at most the capacity left when they arrive), and nothing throws.
    const small = 400;
    const tight = await gpu.run<AirPourResult>('airPour', { pourFrames: 45, settleFrames: 15, capacity: small });
    console.log(
      `pour at capacity ${small}: air every 10 frames CPU [${every(tight.cpu.airCounts)}], GPU [${every(tight.gpu.airCounts)}]; generated ${tight.cpu.generated} / ${tight.gpu.generated}; most particles ${tight.cpu.mostParticles} / ${tight.gpu.mostParticles}`,
    );
    for (const run of [tight.cpu, tight.gpu]) {
      expect(run.mostParticles).toBeLessThanOrEqual(small);
      expect(run.nonFinite).toBe(0);
      expect(run.generated).toBeGreaterThan(0);
    }
    expect(gpu.consoleErrors).toEqual([]);
  }, 600_000);

  it('generates air under a pouring jet with WCSPH on both backends', async () => {
    const result = await gpu.run<AirPourResult>('airPour', {
      pourFrames: 30,
      settleFrames: 0,
      capacity: 900,
      solver: 'sph',
    });
    console.log(
      `WCSPH pour: air every 10 frames CPU [${result.cpu.airCounts.filter((_, k) => (k + 1) % 10 === 0).join(' ')}], GPU [${result.gpu.airCounts.filter((_, k) => (k + 1) % 10 === 0).join(' ')}]; generated ${result.cpu.generated} / ${result.gpu.generated}`,
    );
    expect(result.backend).toBe('webgpu');
    expect(result.cpu.nonFinite + result.gpu.nonFinite).toBe(0);
    // The same band as PBF's pour above: both generate, the GPU's total within a factor 2 of the CPU's.
    expect(result.cpu.generated).toBeGreaterThanOrEqual(10);
    expect(result.gpu.generated).toBeGreaterThanOrEqual(0.5 * result.cpu.generated);
    expect(result.gpu.generated).toBeLessThanOrEqual(2 * result.cpu.generated);
    expect(gpu.consoleErrors).toEqual([]);
  }, 600_000);

  it('boils a heated pot on both backends; the vapour leaves at the surface', async () => {
    const result = await gpu.run<AirBoilResult>('airBoil', { frames: 150, probability: 0.01 });
    console.log(`boil: CPU ${JSON.stringify(result.cpu)}; GPU ${JSON.stringify(result.gpu)}`);
    expect(result.backend).toBe('webgpu');
    for (const run of [result.cpu, result.gpu]) {
      expect(run.firstBoilFrame).toBeGreaterThan(0);
      // Only at the plate (cavitation sites lie within h of it).
      expect(run.boiledHighest).toBeLessThan(0.04);
      expect(run.left).toBeGreaterThanOrEqual(10);
      expect(run.leftAtSurface / run.left).toBeGreaterThanOrEqual(0.7);
      expect(run.liquidEnd).toBeLessThan(run.liquidStart);
    }
    // The draws differ (the GPU hashes (step, entity id), the CPU uses its seeded generator), so the
    // counts agree statistically. Measured over 150 frames with p = 0.01: CPU first boiling at frame 10,
    // 154 boiled, 153 vapour particles left (146 within h of the water level or above), water 320 -> 166;
    // GPU (two runs) first at frame 14, 147 and 153 boiled, 142 and 146 left (all at the surface), water
    // 320 -> 173 and 167. The boiled
    // count is about Poisson (sd about 12 for 150): band 1.3 either way (over 3 sd), first boiling within
    // 30 frames of the CPU's.
    expect(result.gpu.boiled).toBeGreaterThanOrEqual(result.cpu.boiled / 1.3);
    expect(result.gpu.boiled).toBeLessThanOrEqual(result.cpu.boiled * 1.3);
    expect(Math.abs(result.gpu.firstBoilFrame - result.cpu.firstBoilFrame)).toBeLessThanOrEqual(30);
    expect(gpu.consoleErrors).toEqual([]);
  }, 600_000);

  it('keeps the air bookkeeping right when readbacks fail, lag, are skipped or meet edits', async () => {
    const result = await gpu.run<AirReadbackOrderResult>('airReadbackOrder');
    console.log(`readback order: ${JSON.stringify(result)}`);
    expect(result.backend).toBe('webgpu');
    // A non-finite step's candidates (the slab proposes 72 at step 1) are dropped with its GPU state, and a
    // pending candidate with a NaN velocity is never created (before the fix: 72 created by the step that
    // then threw, and the NaN candidate created).
    expect(result.nonFiniteThrew).toBe(true);
    expect(result.createdAfterNonFinite).toBe(0);
    expect(result.createdFromNaNCandidate).toBe(0);
    // Steps whose readbacks lag propose no air while earlier candidates wait to be created, so the same
    // front particles do not propose twice. Measured over 5 steps of the slab (steps 1-3 unawaited, as the
    // plugin's several steps per frame): 96 air particles created with a readback awaited after every
    // step; 147 lagged before this was fixed (step 1's 72 front particles proposed again in steps 2 and
    // 3), 100 after (72 from step 1, then 28 from step 4: the lagged slab has less air under it by then).
    // Margin: 15% over the awaited run.
    expect(result.generatedAwaited).toBeGreaterThan(0);
    expect(result.generatedLagged).toBeLessThanOrEqual(1.15 * result.generatedAwaited);
    // A temperature edit of boiled particles before the boil's readback keeps their vapour material and
    // color on the GPU, as the CPU learns them from the readback (p = 1: 15 particles boil at step 1;
    // before the fix the edit wrote water back over all 15 on the GPU, vapour on the CPU).
    expect(result.boiledBeforeEdit).toBeGreaterThan(0);
    expect(result.materialMismatchAfterEdit).toBe(0);
    expect(result.colorMismatchAfterEdit).toBe(0);
    // The boil events of a step whose readback was skipped reach the CPU after boiling was switched off
    // (before the fix: none read, 15 particles vapour on the GPU and water on the CPU).
    expect(result.boiledSkipped).toBeGreaterThan(0);
    expect(result.materialMismatchAfterSkip).toBe(0);
    expect(gpu.consoleErrors).toEqual([]);
  }, 600_000);

  it('records the air passes only for the features in use, with PBF and with WCSPH', async () => {
    const result = await gpu.run<AirPassesResult>('airPasses');
    console.log(`passes: ${JSON.stringify(result)}`);
    const air = ['boil', 'airFields', 'airDecide', 'buoyancy'];
    expect(result.backend).toBe('webgpu');
    expect(result.off.filter((name) => air.includes(name))).toEqual([]);
    expect(result.generation.filter((name) => air.includes(name))).toEqual(['airFields', 'airDecide']);
    expect(result.boiling.filter((name) => air.includes(name))).toEqual(['boil', 'airFields', 'airDecide']);
    expect(result.buoyancy.filter((name) => air.includes(name))).toEqual(['buoyancy']);
    // WCSPH: the same passes after its own (sph/cpu.ts's schedule): buoyancy every substep, the rest at the end.
    expect(result.sphAir.filter((name) => air.includes(name))).toEqual(['buoyancy', 'boil', 'airFields', 'airDecide']);
    expect(result.sphAir).toContain('sphForces');
    expect(gpu.consoleErrors).toEqual([]);
  }, 300_000);
});
