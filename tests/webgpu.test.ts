/**
 * The WebGPU harness (tests/browser/): headless Chromium on SwiftShader gives a real WebGPU device, and a
 * Babylon ComputeShader runs on it and reads back. A missing browser fails (it is never skipped).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type GpuPage, openGpuPage } from './browser/driver';
import type { SmokeResult } from './browser/scenarios';

describe('WebGPU harness', () => {
  let gpu: GpuPage;

  beforeAll(async () => {
    gpu = await openGpuPage();
  }, 120_000);

  afterAll(async () => {
    await gpu?.close();
  });

  it('WebGPU device and compute work in headless Chromium', async () => {
    const result = await gpu.run<SmokeResult>('smoke');
    console.log(`webgpu smoke: ${JSON.stringify(result)}`);
    expect(result.computeMatched).toBe(true);
    expect(result.limits.maxComputeWorkgroupSizeX).toBeGreaterThanOrEqual(64);
    expect(gpu.consoleErrors).toEqual([]);
  });
});
