import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 30000,
    hookTimeout: 30000,
    // Shell and fzf tests drive real processes; two cores here.
    pool: 'forks',
    maxWorkers: 2,
  },
});
