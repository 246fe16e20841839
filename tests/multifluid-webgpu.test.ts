/**
 * Fluid-fluid interaction (Müller et al. 2005) on the WebGPU backend against the CPU reference, in headless
 * Chromium (SwiftShader WebGPU; see tests/browser/driver.ts): the scenes of tests/browser/multifluid.ts on
 * both backends in lockstep, compared per particle. Tolerances are written below with what was measured.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type GpuPage, openGpuPage } from './browser/driver';
import type {
  MultiFluidParityOptions,
  MultiFluidParityResult,
  MultiFluidParityStep,
  MultiFluidSnapshotResult,
  MultiFluidSolversResult,
} from './browser/multifluid';

describe('fluid-fluid interaction on the WebGPU backend in headless Chromium', () => {
  let gpu: GpuPage;

  beforeAll(async () => {
    gpu = await openGpuPage();
  }, 300_000);

  afterAll(async () => {
    await gpu?.close();
  });

  /**
   * Runs a parity scene, logs each compared step and checks what every scene shares (including that the
   * GPU's diffusion never ran fewer parts than the CPU's: `diffusionLimitedSubsteps` 0).
   */
  async function parity(options: MultiFluidParityOptions): Promise<MultiFluidParityStep[]> {
    const result = await gpu.run<MultiFluidParityResult>('multiFluidParity', options);
    for (const step of result.steps) {
      console.log(
        `${options.scene} step ${step.step}: dx ${step.maxPositionDifference.toExponential(2)} m, dT ${step.maxTemperatureDifference.toExponential(2)} K (CPU moved T by ${step.maxTemperatureChangeCpu.toExponential(2)} K), dColor ${step.maxColorDifference.toExponential(2)}, moved ${step.maxDisplacementCpu.toExponential(2)} m, control dx ${step.maxControlDifference.toExponential(2)} m, T spread ${step.temperatureSpreadCpu.toFixed(3)} K, mean T ${step.meanTemperatureCpu.toFixed(4)}/${step.meanTemperatureGpu.toFixed(4)}, red ${step.meanRedCpu.toFixed(4)}/${step.meanRedGpu.toFixed(4)}, separation ${step.separationCpu.toFixed(3)}/${step.separationGpu.toFixed(3)} (mixed ${result.separationMixed.toFixed(3)}), impulse ${step.impulseCpu.map((v) => v.toExponential(3)).join(' ')} / ${step.impulseGpu.map((v) => v.toExponential(3)).join(' ')} (linear relative ${step.linearImpulseRelative.toExponential(2)}), density error ${step.meanDensityErrorCpu.toExponential(3)}/${step.meanDensityErrorGpu.toExponential(3)} over ${step.fullNeighbourhoodCpu}/${step.fullNeighbourhoodGpu}; worst T [${step.worstTemperature.map((v) => v.toFixed(6)).join(', ')}]`,
      );
    }
    expect(result.backend).toBe('webgpu');
    expect(result.nonFinite).toBe(0);
    expect(result.diffusionLimitedSubsteps).toBe(0);
    expect(gpu.consoleErrors).toEqual([]);
    return result.steps;
  }

  it('separates a 500 / 1000 mixture (number-density constraint) as the CPU does', async () => {
    // The buoyancy test's mixture (tests/multifluid.test.ts, seed 7): 432 particles, 4 s.
    const steps = await parity({ scene: 'separation', steps: 240, compareAt: [1, 3, 240] });
    const [first, third, last] = steps;
    // Short horizon, per particle: float32 against float64 through 2 substeps x 3 iterations of the
    // number-density solve in a jittered mixture. Measured 2.2e-4 m after step 1 and 4.7e-4 m after step 3
    // (of 2.0e-2 and 6.1e-2 m moved; 0.9% and 1.9% of the particle radius); tolerance 1e-3 m (4% of r).
    expect(first.maxPositionDifference).toBeLessThan(1e-3);
    expect(third.maxPositionDifference).toBeLessThan(1e-3);
    // After 4 s the trajectories have diverged (a mixture's paths are chaotic), so the statistic is
    // compared: the fraction of light particles above the heavy median, 0.50 mixed. Measured 0.977 on the
    // CPU and 0.959 on the GPU; tolerance 0.05 (a few particles of the 216 light ones either way), and the
    // GPU's must show the separation (above 0.9).
    expect(last.separationGpu).toBeGreaterThan(0.9);
    expect(Math.abs(last.separationGpu - last.separationCpu)).toBeLessThan(0.05);
  }, 600_000);

  it('diffuses temperature and takes heat from colliders as the CPU does', async () => {
    // Diffusion alone (colliders' heat transfer off): measured 4.4e-3 K after step 1 and 1.5e-2 K after
    // step 2 (of a 60 K jump), from the float32 positions (2e-4 m apart) in a 2400 K/m gradient; tolerance
    // 0.1 K. The mean is conserved by both (measured equal to 1e-4 K).
    const plain = await parity({ scene: 'temperature', steps: 2, compareAt: [1, 2], heat: false });
    for (const step of plain) {
      expect(step.maxTemperatureDifference).toBeLessThan(0.1);
      expect(Math.abs(step.meanTemperatureGpu - step.meanTemperatureCpu)).toBeLessThan(0.01);
    }
    // With a heated floor (400 K) and a cold sphere (250 K): the mean rises from 324.3 K to 349.4 K in 10
    // steps. Measured per particle 2.7e-2 K after step 1 and 0.63 K after step 10 (positions 1.2e-3 m
    // apart by then, near the hot-cold front), means within 5e-3 K. Tolerances: 0.1 K (step 1), 2 K (step
    // 10, 1.8% of the 111 K spread), means 0.05 K.
    // After step 5 game code sets 20 particles to 380 K (and grey): the WebGPU backend must upload them
    // (markParticlesChanged), or the GPU's mean would stay about 20 x 30 K / 320 = 1.9 K lower.
    const heated = await parity({ scene: 'temperature', steps: 10, compareAt: [1, 5, 10], editAfter: 5 });
    expect(heated[0].maxTemperatureDifference).toBeLessThan(0.1);
    expect(heated[2].maxTemperatureDifference).toBeLessThan(2);
    expect(heated[2].maxColorDifference).toBeLessThan(1e-2);
    for (const step of heated) expect(Math.abs(step.meanTemperatureGpu - step.meanTemperatureCpu)).toBeLessThan(0.05);
    expect(heated[2].meanTemperatureGpu).toBeGreaterThan(345);
  }, 300_000);

  it('expands heated water (rest density alpha / T, eq. 16) as the CPU does', async () => {
    const steps = await parity({ scene: 'temperature', steps: 5, compareAt: [1, 5], expands: true });
    // The heated floor and the hot half expand and rise (3.4e-2 m moved in 5 steps). Measured 1.9e-4 m
    // after step 1 and 1.0e-3 m after step 5 (temperatures within 2.3e-2 and 0.21 K): the float32 rest
    // volumes m T / alpha feed back into the positions. Tolerances 3x: 6e-4 m and 3e-3 m, 0.1 and 1 K.
    expect(steps[0].maxPositionDifference).toBeLessThan(6e-4);
    expect(steps[1].maxPositionDifference).toBeLessThan(3e-3);
    expect(steps[0].maxTemperatureDifference).toBeLessThan(0.1);
    expect(steps[1].maxTemperatureDifference).toBeLessThan(1);
  }, 300_000);

  it('measures the density error against the rest density alpha / T on the WebGPU backend', async () => {
    // Water at 400 K with alpha = 320000 kg K/m^3 (eq. 16): rest density 800 kg/m^3, not the material's
    // 1000. The number-density solve expands the block to it; the density error must be taken against
    // alpha / T (as the CPU's publish.ts does), else it reads about |800 / 1000 - 1| = 0.2. (The GPU
    // counts a full neighbourhood from the particle's own count only, the CPU also from its neighbours',
    // so the two backends' statistics cover different particles and are not compared with each other.)
    // Measured after step 20: 1.0e-2 over the 3 particles the GPU counts; 0.19 with the material's rest
    // density. Tolerance 0.05, checked at every compared step from 12 to 20 that has such particles.
    const steps = await parity({
      scene: 'temperature',
      steps: 20,
      compareAt: [12, 14, 16, 18, 20],
      heat: false,
      expands: true,
      temperatures: [400, 400],
    });
    const counted = steps.filter((step) => step.fullNeighbourhoodGpu > 0);
    expect(counted.length).toBeGreaterThan(0);
    for (const step of counted) expect(step.meanDensityErrorGpu).toBeLessThan(0.05);
  }, 300_000);

  it('applies interface and surface tension to a square drop as the CPU does', async () => {
    // No gravity: only the pressure of the cut surface, the interface tension and the surface tension move
    // the particles (1.7e-2 m in 5 steps). Measured 7.6e-6 m after step 1 and 1.7e-5 m after steps 3 and 5;
    // tolerance 1e-4 m (0.8% of the 0.0125 m particle radius).
    const steps = await parity({ scene: 'tension', steps: 5, compareAt: [1, 3, 5], control: true });
    for (const step of steps) expect(step.maxPositionDifference).toBeLessThan(1e-4);
    // Control: the same scene on the CPU with both tensions 0. The tension must move the particles by far
    // more than the tolerance, or a GPU that dropped the tension could pass: measured 7.4e-4, 8.4e-3 and
    // 1.9e-2 m after steps 1, 3 and 5; required above 2e-3 m (20x the 1e-4 m tolerance) from step 3 on.
    expect(steps[1].maxControlDifference).toBeGreaterThan(2e-3);
    expect(steps[2].maxControlDifference).toBeGreaterThan(2e-3);
  }, 300_000);

  it('keeps diffusing a water-like diffusivity near 300 K (temperatures relative to a reference)', async () => {
    // c = 1e-6 m^2/s (water's thermal diffusivity is 1.4e-7), halves at 300.25 and 299.75 K, heat transfer
    // off: the CPU changes a particle's temperature by about 1e-5 K per substep, below half the float32
    // spacing at 300 K (3.05e-5 K), so absolute float32 temperatures would not diffuse at all (or by whole
    // ulps). Stored relative to TEMPERATURE_REFERENCE (293.15 K) the spacing is 4.8e-7 K. Measured: the CPU
    // moved T by up to 1.2e-5 K after step 1 and 1.7e-4 K after step 10; the GPU differs by 4.9e-7 K (4%)
    // and 3.4e-6 K (2%); with absolute float32 storage (TEMPERATURE_REFERENCE 0) by 1.2e-5 and 1.7e-4 K
    // (100%: nothing diffused). Tolerance: 10% of the CPU's largest change.
    const steps = await parity({
      scene: 'temperature',
      steps: 10,
      compareAt: [1, 10],
      heat: false,
      diffusivity: 1e-6,
      temperatures: [300.25, 299.75],
    });
    for (const step of steps) {
      expect(step.maxTemperatureChangeCpu).toBeGreaterThan(0);
      expect(step.maxTemperatureDifference).toBeLessThan(0.1 * step.maxTemperatureChangeCpu);
    }
  }, 300_000);

  it('diffuses in tens of parts per substep (c = 0.5 m^2/s) as the CPU does', async () => {
    // diffusionSlots records 64 parts per substep (its estimate, 100, capped); the plan wants about 50 of
    // them, so the last parts are dispatched with 0 workgroups. The halves (350 and 290 K) mix to an 11.9 K
    // spread in one step. Measured per particle 1.4e-2 K after step 1 and 5.3e-3 K after step 2 (of 31 and
    // 33 K moved); tolerance 0.1 K, as the other diffusion tests.
    const steps = await parity({ scene: 'temperature', steps: 2, compareAt: [1, 2], heat: false, diffusivity: 0.5 });
    for (const step of steps) {
      expect(step.maxTemperatureChangeCpu).toBeGreaterThan(5);
      expect(step.maxTemperatureDifference).toBeLessThan(0.1);
    }
  }, 300_000);

  it('uses the pair means of tension and of thermal and color diffusivity between two materials', async () => {
    // sigma^i 2 and 0 N/m, thermal diffusivity 2e-3 and 5e-4, color diffusivity 1e-3 and 3e-3 m^2/s;
    // temperature and color both vary across the material interface. Measured after steps 1 and 5:
    // positions 3.1e-6 and 9.0e-6 m apart (2.3e-2 m moved), temperatures 1.5e-3 and 1.2e-3 K (11 K moved),
    // colors 1.5e-4 and 8.1e-5. Tolerances: 1e-4 m (as the tension test), 2e-2 K, 1e-3 (about 10x).
    const steps = await parity({ scene: 'pairs', steps: 5, compareAt: [1, 5] });
    for (const step of steps) {
      expect(step.maxPositionDifference).toBeLessThan(1e-4);
      expect(step.maxTemperatureDifference).toBeLessThan(2e-2);
      expect(step.maxColorDifference).toBeLessThan(1e-3);
    }
  }, 300_000);

  it('gives a coupled body the number-density wall pressure as the CPU does', async () => {
    // The 500 / 1000 mixture (number-density constraint) pressing on a box coupled with a rigid body held
    // just above it. Measured: positions 5.6e-4 m apart after step 1 and 2.0e-3 m after step 3 (2.5e-2 and
    // 5.6e-2 m moved; the body's contact amplifies the float32 differences of the mixture), linear
    // impulses (0.68 N s in step 1, 0.028 N s in steps 2-3) within 8.1e-4 and 3.3e-5 relative. Tolerances:
    // 2e-3 m and 6e-3 m (about 3x), impulses 1e-2 relative.
    const steps = await parity({ scene: 'coupled', steps: 3, compareAt: [1, 3] });
    expect(steps[0].maxPositionDifference).toBeLessThan(2e-3);
    expect(steps[1].maxPositionDifference).toBeLessThan(6e-3);
    for (const step of steps) {
      expect(Math.hypot(step.impulseCpu[0], step.impulseCpu[1], step.impulseCpu[2])).toBeGreaterThan(1e-3);
      expect(step.linearImpulseRelative).toBeLessThan(1e-2);
    }
  }, 600_000);

  it('keeps the diffused temperatures in a WebGPU snapshot restored on the CPU', async () => {
    const result = await gpu.run<MultiFluidSnapshotResult>('multiFluidSnapshot');
    console.log(`snapshot: ${JSON.stringify(result)}`);
    expect(result.backend).toBe('webgpu');
    // Measured: the CPU diffused by up to 10.4 K, the GPU's read-back and restored temperatures are 4.5e-2 K
    // from it. With the attributes read back only while a feature diffuses (the defect this guards), the
    // last step (diffusivity 0) left the components at the spawn temperatures. The WebGPU components after the readback, and the snapshot restored from
    // them, hold the GPU's diffused temperatures: within the diffusion test's 0.1 K of the CPU (which moved
    // them by far more), and the restored ones equal to the components (float64 in the snapshot).
    expect(result.diffusedCpu).toBeGreaterThan(1);
    expect(result.maxReadbackDifference).toBeLessThan(0.1);
    expect(result.maxRestoredDifference).toBeLessThan(0.1);
    expect(result.maxRestoredToGpuDifference).toBe(0);
    expect(gpu.consoleErrors).toEqual([]);
  }, 300_000);

  it('diffuses render color as the CPU does', async () => {
    // Red and blue halves: measured 4.9e-5 after step 1, 1.9e-3 after step 10 (per channel, from the
    // float32 positions); the red half's mean red falls from 1 to 0.927 on both, equal to 1e-4.
    // Tolerances: 5e-4 (step 1), 1e-2 (step 10), means 1e-3.
    const steps = await parity({ scene: 'color', steps: 10, compareAt: [1, 10] });
    expect(steps[0].maxColorDifference).toBeLessThan(5e-4);
    expect(steps[1].maxColorDifference).toBeLessThan(1e-2);
    for (const step of steps) expect(Math.abs(step.meanRedGpu - step.meanRedCpu)).toBeLessThan(1e-3);
    expect(steps[1].meanRedGpu).toBeLessThan(0.95);
  }, 300_000);

  it('runs every feature with the PBF solver; WCSPH on WebGPU takes them and records their passes', async () => {
    const result = await gpu.run<MultiFluidSolversResult>('multiFluidSolvers');
    console.log(`solvers: ${JSON.stringify(result)}`);
    expect(result.pbfBackend).toBe('webgpu');
    expect(result.pbfSteps).toBe(3);
    // No NaN: every position and temperature read back is finite, the GPU reported no non-finite state
    // (the next step would throw), the readback was applied (particles moved) and the heated container
    // warmed the fluid (measured 1.8e-2 m and 2.1 K).
    expect(result.pbfParticles).toBeGreaterThan(0);
    expect(result.pbfNonFinite).toBe(0);
    expect(result.pbfNextStepError).toBe('');
    expect(result.pbfMoved).toBeGreaterThan(1e-3);
    expect(result.pbfWarmed).toBeGreaterThan(1e-3);
    // Bad Temperature, Color and rest density alpha / T of an uploaded particle: refused before the step
    // changed anything (multifluid/validate.ts, the CPU's step-start check), and the step runs once fixed.
    const [temperature, color, restDensity] = result.pbfBadValueErrors;
    expect(temperature).toMatch(/^FluidError: Temperature\[\d+\] is NaN/);
    expect(color).toMatch(/^FluidError: Color\.red\[\d+\] is 2/);
    expect(restDensity).toMatch(/^FluidError: particle \d+: rest density FluidMaterial\.temperatureDensity/);
    expect(result.pbfBadValueSteps).toBe(0);
    expect(result.pbfCorrectedError).toBe('');
    // WCSPH on WebGPU takes the same features and records their passes (restVolume for the number density).
    expect(result.sphErrors).toEqual(['', '', '', '']);
    for (const pass of ['restVolume', 'sphDensity', 'sphForces', 'tension', 'heat']) {
      expect(result.sphPasses).toContain(pass);
    }
    expect(gpu.consoleErrors).toEqual([]);
  }, 300_000);
});
