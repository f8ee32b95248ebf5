import { defineConfig } from 'vitest/config';
import base from './vitest.config.js';

/**
 * The tests `npm run mutate` (stryker.config.mjs) runs against each mutant: the unit, fault and
 * integration tests of the modules it mutates, not the whole suite. Tests that drive dist/ through a
 * spawned process cannot see a mutant (Stryker changes the sources in its sandbox, not dist/), and
 * the end-to-end files spend their time in process start-up, so they would only slow each mutant.
 * Stryker's vitest runner runs these files in one worker thread per runner process.
 */
export const mutationTests = [
  'test/unit/credentials/**/*.test.ts',
  'test/unit/http/**/*.test.ts',
  'test/unit/gate/**/*.test.ts',
  'test/unit/auth/**/*.test.ts',
  'test/unit/pow/solve-pow*.test.ts',
  'test/unit/redact.test.ts',
  'test/unit/present/fence-untrusted.test.ts',
  'test/unit/present/fence-and-paths.test.ts',
  'test/unit/present/present-jmap-result.test.ts',
  'test/unit/jmap/resolve-inbox-address.test.ts',
  'test/unit/presets/**/*.test.ts',
  'test/unit/watch/crontab-entries.test.ts',
  'test/unit/watch/install-watch.test.ts',
  'test/unit/render/shell-command.test.ts',
  'test/integration/oauth-renewal.test.ts',
  'test/integration/oauth-connect.test.ts',
  'test/sandbox/auth-pow-vectors.test.ts',
  'test/fault/crontab-arguments.test.ts',
  'test/fault/stalled-body.test.ts',
  'test/fault/lock-takeover.test.ts',
  'test/fault/pow-smallest-nonce.test.ts',
];

// Spread, not mergeConfig: that would append these globs to the suite's own and run everything.
export default defineConfig({ ...base, test: { ...base.test, include: mutationTests } });
