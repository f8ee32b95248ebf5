// @ts-check
/**
 * Mutation testing of the code that guards data, secrets and time (docs/mutation-testing.md).
 * `npm run mutate` runs it; the HTML report lands in reports/mutation/mutation.html.
 * @type {import('@stryker-mutator/api/core').PartialStrykerOptions}
 */
export default {
  testRunner: 'vitest',
  vitest: { configFile: 'vitest.stryker.config.ts', related: true },
  mutate: [
    'src/credentials/**/*.ts',
    'src/redact.ts',
    'src/present/fence-untrusted.ts',
    'src/present/untrusted-paths.ts',
    'src/http/**/*.ts',
    'src/gate/deadline.ts',
    'src/auth/token-chain.ts',
    'src/auth/oauth/access-token-source.ts',
    'src/auth/oauth/oauth-grant.ts',
    'src/auth/oauth/oauth-protocol.ts',
    'src/pow/solve-pow.ts',
    'src/pow/pow-worker-source.ts',
    'src/pow/pow-digest.ts',
    'src/pow/default-worker-count.ts',
    'src/sandbox/auth/verify-pow.ts',
    'src/presets/substitute-variables.ts',
    'src/presets/builtin-variables.ts',
    'src/jmap/resolve-inbox-address.ts',
    'src/watch/crontab-entries.ts',
    'src/render/shell-quote.ts',
  ],
  coverageAnalysis: 'perTest',
  concurrency: 2,
  timeoutMS: 10_000,
  timeoutFactor: 2,
  incremental: true,
  incrementalFile: 'reports/stryker-incremental.json',
  reporters: ['html', 'clear-text', 'progress', 'json'],
  htmlReporter: { fileName: 'reports/mutation/mutation.html' },
  jsonReporter: { fileName: 'reports/mutation/mutation.json' },
  thresholds: { high: 90, low: 80, break: null },
  tempDirName: '.stryker-tmp',
  cleanTempDir: 'always',
};
