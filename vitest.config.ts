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
  'tests/mps-still-webgpu.test.ts',
];

/**
 * The slowest files, slowest first (as measured alone on the 2-core machine, 2026-11-26, partly loaded): they
 * start first, so no long file starts last and runs alone while the other worker idles. A clean clone has no
 * vitest cache to order them by. The seconds are each file's beside the others in the clean-clone CI run of
 * 2026-11-26 at commit 3210123 (tests 1024 s in all).
 */
const SLOWEST_FIRST = [
  'tests/examples.test.ts', // 548
  'tests/coupling-float.test.ts', // 328
  'tests/soak.test.ts', // 362
  'tests/still-water.test.ts', // 122
  'tests/still-water-webgpu.test.ts', // 109
  'tests/mps-still-webgpu.test.ts', // 136 alone, 2026-11-27
  'tests/fuzz.test.ts', // 76
  'tests/physics.test.ts', // 65
  'tests/multifluid-air-webgpu.test.ts', // 28
  'tests/coupling.test.ts', // 53
  'tests/multifluid-webgpu.test.ts', // 23
  'tests/mps.test.ts', // 27
  'tests/mesh-colliders.test.ts', // 30
  'tests/sph.test.ts', // 25
  'tests/ellipsoids-webgpu.test.ts', // 35
  'tests/webgpu.test.ts', // 35
  'tests/threads.test.ts', // 33
  'tests/emitters.test.ts', // 9
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
