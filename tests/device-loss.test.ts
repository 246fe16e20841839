/**
 * A lost WebGPU device under a running FluidPlugin (headless Chromium, SwiftShader; the `deviceLoss`
 * scenario of tests/browser/deviceLoss.ts): nothing throws into the render loop, the plugin reports the
 * fall back to the CPU, which continues from the last mirrored particles. A missing browser fails.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { DeviceLossResult } from './browser/deviceLoss';
import { type GpuPage, openGpuPage } from './browser/driver';

describe('FluidPlugin on a lost WebGPU device', () => {
  let gpu: GpuPage;

  beforeAll(async () => {
    gpu = await openGpuPage();
  }, 300_000);

  afterAll(async () => {
    await gpu?.close();
  });

  it('falls back to the CPU without throwing, keeps the particles moving, and reports it', async () => {
    const result = await gpu.run<DeviceLossResult>('deviceLoss');
    console.log(`device loss: ${JSON.stringify(result)}`);
    // Before: the WebGPU backend, drawn from its storage buffer.
    expect(result.backendBefore).toBe('webgpu');
    expect(result.zeroCopyBefore).toBe(true);
    expect(result.countBefore).toBeGreaterThan(100);
    expect(result.drawnBefore).toBe(result.countBefore);
    expect(result.stepsBefore).toBeGreaterThan(3);
    // The loss: nothing thrown, reported once as a fall back to the CPU.
    expect(result.thrown).toEqual([]);
    expect(result.reportedErrors).toEqual([]);
    expect(result.changes[0]).toEqual({ backend: 'cpu', reason: 'device-lost' });
    expect(result.backendAfter).toBe('cpu');
    // The CPU goes on from the mirrored particles: same count, moving, finite, inside the box.
    expect(result.countAfter).toBe(result.countBefore);
    expect(result.stepsAfter).toBeGreaterThan(3);
    expect(result.maximumDisplacement).toBeGreaterThan(1e-3);
    expect(result.nonFinite).toBe(0);
    expect(result.minimumY).toBeGreaterThan(-0.01);
    expect(result.maximumY).toBeLessThan(1.01);
    // Babylon may restore the device; then the WebGPU backend takes over again, from the CPU's particles.
    if (result.restored) {
      expect(result.changes[1]).toEqual({ backend: 'webgpu', reason: 'device-restored' });
      expect(result.stepsAfterRestore).toBeGreaterThan(0);
      expect(result.countAfterRestore).toBe(result.countBefore);
      expect(result.nonFiniteAfterRestore).toBe(0);
      expect(result.zeroCopyAfterRestore).toBe(true);
      expect(result.drawnAfterRestore).toBe(result.countBefore);
    }
    // No uncaught error, and no WebGPU validation error (e.g. a texture of the lost device still bound).
    expect(result.uncaught).toEqual([]);
    expect(gpu.consoleErrors).toEqual([]);
  }, 180_000);
});
