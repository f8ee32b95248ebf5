import { defineConfig } from 'vitest/config';

// Tests spawn real processes and solve real (small) proofs of work on a 2-core machine,
// so files run in forked workers, two at a time, with generous timeouts.
export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    pool: 'forks',
    maxWorkers: 2,
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // With CI=true a skipped test fails the run (test/helpers/ci-skip-reporter.ts).
    reporters: ['default', './test/helpers/ci-skip-reporter.ts'],
  },
});
