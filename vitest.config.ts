import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    projects: ['packages/contracts', 'packages/engine', 'packages/lab', 'apps/server', 'apps/web', 'scripts'],
  },
});
