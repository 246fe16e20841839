import { configDefaults, defineConfig } from 'vitest/config';
import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * Two projects. "fast" (`npm test`): every test file but the long physics scenes. "long" (`npm run test:long`):
 * the long physics scenes, chosen by measured time. `npm run test:all` (plain `vitest run`) runs both, in one
 * pool; `npx vitest run tests/<file>` finds a file in either. Every file is in exactly one of the two.
 */
export const LONG_TESTS = [
  'tests/coupling-float.test.ts',
  'tests/soak.test.ts',
  'tests/still-water.test.ts',
  'tests/still-water-webgpu.test.ts',
  'tests/physics.test.ts',
  'tests/multifluid-air-webgpu.test.ts',
  'tests/coupling.test.ts',
  'tests/multifluid-webgpu.test.ts',
];

/**
 * The slowest files, slowest first, with their seconds alone on the 2-core machine (2026-11-26, partly loaded):
 * they start first, so no long file starts last and runs alone while the other worker idles. A clean clone has
 * no vitest cache to order them by.
 */
const SLOWEST_FIRST = [
  'tests/examples.test.ts', // 414
  'tests/coupling-float.test.ts', // 285
  'tests/soak.test.ts', // 230
  'tests/still-water.test.ts', // 125
  'tests/still-water-webgpu.test.ts', // 153 (237 beside the others in CI)
  'tests/fuzz.test.ts', // 65
  'tests/physics.test.ts', // 65
  'tests/multifluid-air-webgpu.test.ts', // 51
  'tests/coupling.test.ts', // 51
  'tests/multifluid-webgpu.test.ts', // 40
  'tests/mps.test.ts', // 34
  'tests/mesh-colliders.test.ts', // 33
  'tests/sph.test.ts', // 27
  'tests/webgpu.test.ts', // 26
  'tests/emitters.test.ts', // 25
];

/** Vitest's order (failed first, then longest by its cache or largest), with `SLOWEST_FIRST` ahead of it. */
class SlowestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const rank = (file: TestSpecification): number => {
      const index = SLOWEST_FIRST.findIndex((name) => file.moduleId.replaceAll('\\', '/').endsWith(`/${name}`));
      return index < 0 ? SLOWEST_FIRST.length : index;
    };
    const sorted = await super.sort(files);
    return sorted
      .map((file, order) => ({ file, order, rank: rank(file) }))
      .sort((a, b) => a.rank - b.rank || a.order - b.order)
      .map(({ file }) => file);
  }
}

export default defineConfig({
  // Vitest's own cache next to the browser tests' (tests/browser/driver.ts): `npm run dev`'s node_modules/.vite
  // stays the dev server's alone.
  cacheDir: 'node_modules/.vite-tests',
  test: {
    environment: 'node',
    testTimeout: 120_000,
    hookTimeout: 120_000,
    // The physics scenes keep a core busy and a browser test file about 1.5 (SwiftShader renders on the CPU),
    // so on a 2-core machine more than two files at a time would only contend.
    maxWorkers: 2,
    sequence: { sequencer: SlowestFirst },
    projects: [
      {
        extends: true,
        test: { name: 'fast', include: ['tests/**/*.test.ts'], exclude: [...configDefaults.exclude, ...LONG_TESTS] },
      },
      { extends: true, test: { name: 'long', include: LONG_TESTS } },
    ],
  },
});
