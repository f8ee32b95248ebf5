import { defineConfig } from 'vitest/config';

// Tests spawn real processes and solve real (small) proofs of work on a 2-core machine, so files
// run in forked workers with generous timeouts. Three at a time, not two: most test time is spent
// waiting on child processes, sockets and timers, not on a core (measured on 2 quiet cores:
// 106 s with two workers, 84 s with three, all green). Four were measured too, on a slower
// machine: 102 s → 95 s, but the contention pushed three tests past 5 s of wall clock.
export default defineConfig({
  test: {
    // Both packages' suites: the client's (test/) and the sandbox's (sandbox/test/).
    include: ['test/**/*.test.ts', 'sandbox/test/**/*.test.ts'],
    pool: 'forks',
    maxWorkers: 3,
    // Files share their worker's module cache instead of each importing src, zod and the SDK anew:
    // measured in one session, 150 s → 120 s wall and 298 → 223 CPU-seconds for the whole suite.
    // Files start their own servers and temp dirs and close them in their own hooks; shared helpers
    // register a hook per resource (sandbox/test/helpers/clean-up-after.ts), never at their module level,
    // which runs once per worker. In-process CLI runs first forget secrets remembered by earlier files.
    isolate: false,
    testTimeout: 60_000,
    hookTimeout: 120_000,
    // The invoking user's crontab and config directory must be the same after the run as before it;
    // the run gets a temp HOME of its own (user-home-guard.ts).
    globalSetup: ['./test/helpers/user-crontab-guard.ts', './test/helpers/user-home-guard.ts'],
    // Closes what helpers started in a file's beforeAll (sandboxes, fault servers) after that file.
    setupFiles: ['./test/helpers/per-file-clean-up.ts'],
    // With CI=true a skipped test fails the run (test/helpers/ci-skip-reporter.ts).
    reporters: ['default', './test/helpers/ci-skip-reporter.ts'],
  },
});
