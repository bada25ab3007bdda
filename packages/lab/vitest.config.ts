import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    name: 'lab',
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
  },
});
