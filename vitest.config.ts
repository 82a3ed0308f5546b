import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts', 'test/**/*.test.tsx'],
    testTimeout: 20_000,
    hookTimeout: 30_000,
    // Integration tests start real servers and child processes; two cores only.
    maxWorkers: 2,
    disableConsoleIntercept: true,
    reporters: ['default', './test/support/summary-reporter.ts'],
  },
});
