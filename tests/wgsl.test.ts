/**
 * The WGSL every bundle of src/ ships (scripts/compactWgsl.mjs): whole-line comments and blank lines go, every
 * line of code and every template marker (`// @...`, src/systems/gpu/shaderSource.ts) stays, in order. The
 * browser tests run the compacted kernels (tests/browser/driver.ts), so a marker lost here would fail them too.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { compactWgslSource } from '../scripts/compactWgsl.mjs';
import { oneWorkgroupSize, runsOnCpu } from '../src/systems/gpu/buffers';

function wgslFiles(directory: string): string[] {
  return readdirSync(directory, { withFileTypes: true }).flatMap((entry) => {
    const path = join(directory, entry.name);
    if (entry.isDirectory()) return wgslFiles(path);
    return entry.name.endsWith('.wgsl') ? [path] : [];
  });
}

describe('compacted WGSL', () => {
  it('keeps every line of code and every template marker of every kernel, in order, and drops the comments', () => {
    const files = wgslFiles(join(__dirname, '..', 'src'));
    expect(files.length).toBeGreaterThan(30);
    let before = 0;
    let after = 0;
    for (const file of files) {
      const source = readFileSync(file, 'utf8');
      const compacted = compactWgslSource(source);
      const isComment = (line: string) => line.trim().startsWith('//') && !line.trim().startsWith('// @');
      const kept = source.split('\n').filter((line) => line.trim() !== '' && !isComment(line));
      expect(compacted.split('\n').slice(0, -1), file).toEqual(kept);
      expect(compacted.split('\n').some(isComment), file).toBe(false);
      before += source.length;
      after += compacted.length;
    }
    // The kernels' comments are about a third of their text.
    expect(after).toBeLessThan(0.8 * before);
  });

  it('keeps the markers the templating reads', () => {
    const source = [
      '// A comment.',
      'fn f() {}',
      '',
      '// @entry main',
      '  // @neighbours',
      '  let x = 1; // a trailing comment stays with its code',
      '  // @end neighbours',
    ].join('\n');
    expect(compactWgslSource(source)).toBe(
      'fn f() {}\n// @entry main\n  // @neighbours\n  let x = 1; // a trailing comment stays with its code\n  // @end neighbours\n',
    );
  });
});

describe("the one-workgroup passes' size (oneWorkgroupSize)", () => {
  it('is 256 on a GPU and 4 on an adapter that runs shaders on the CPU', () => {
    // What Chromium's SwiftShader adapter and an NVIDIA one report (GPUAdapterInfo's vendor and architecture).
    expect(oneWorkgroupSize({ vendor: 'google', architecture: 'swiftshader', description: '' })).toBe(4);
    expect(
      oneWorkgroupSize({ vendor: 'mesa', architecture: '', description: 'llvmpipe (LLVM 15.0.6, 256 bits)' }),
    ).toBe(4);
    expect(oneWorkgroupSize({ vendor: '', architecture: '', description: '' })).toBe(256);
    expect(oneWorkgroupSize({ vendor: 'nvidia', architecture: 'hopper', description: 'NVIDIA H100 80GB HBM3' })).toBe(
      256,
    );
    expect(oneWorkgroupSize(undefined)).toBe(256);
  });

  it('follows runsOnCpu, which also decides whether the projection dispatches its cell passes indirectly', () => {
    expect(runsOnCpu({ vendor: 'google', architecture: 'swiftshader', description: '' })).toBe(true);
    expect(runsOnCpu({ vendor: 'microsoft', architecture: '', description: 'Microsoft Basic Render Driver' })).toBe(
      true,
    );
    expect(runsOnCpu({ vendor: 'nvidia', architecture: 'hopper', description: 'NVIDIA H100 80GB HBM3' })).toBe(false);
    expect(runsOnCpu({ vendor: 'apple', architecture: 'metal-3', description: '' })).toBe(false);
    expect(runsOnCpu(undefined)).toBe(false);
  });
});
