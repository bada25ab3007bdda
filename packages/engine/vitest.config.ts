import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    name: 'engine',
    // 2 cores shared with other suites (and in CI): generous limits, no timeouts from load alone.
    testTimeout: 30_000,
    hookTimeout: 60_000,
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
  },
});
