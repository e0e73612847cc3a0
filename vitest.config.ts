import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // RESUME_TEST_FZF=/path: the fzf the suites run (test/fzf-setup.ts)
    setupFiles: ['test/fzf-setup.ts', 'test/setup.ts'],
    testTimeout: 30000,
    hookTimeout: 30000,
    // Shell and fzf tests drive real processes; two cores here.
    pool: 'forks',
    maxWorkers: 2,
  },
});
