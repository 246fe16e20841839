import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['tests/**/*.test.ts'],
    environment: 'node',
    testTimeout: 120_000,
    hookTimeout: 120_000,
    // The physics scenes are CPU heavy; on a 2-core machine two files at a time is the sweet spot.
    maxWorkers: 2,
  },
});
