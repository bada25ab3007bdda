import { defineConfig } from 'vitest/config';

/** The browser journey against the real server: run with `npm run e2e -w apps/web`. */
export default defineConfig({
  test: {
    name: 'web-e2e',
    root: import.meta.dirname,
    environment: 'node',
    include: ['**/*.e2e.ts'],
    globalSetup: ['global-setup.ts'],
    testTimeout: 1_200_000,
    hookTimeout: 300_000,
    fileParallelism: false,
  },
});
