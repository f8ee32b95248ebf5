// @ts-check
import { readFileSync } from 'node:fs';
import process from 'node:process';
import { URL } from 'node:url';

/**
 * Mutation testing of the code that guards data, secrets and time (docs/mutation-testing.md), one
 * area of mutation-areas.json per run: MUTATE_AREA names it (scripts/mutate.mjs sets it; `npm run
 * mutate` runs every area). Each area keeps its own incremental file and HTML report under
 * reports/mutation/<area>/. On a shared machine, MUTATE_CONCURRENCY sets how many test runners run
 * at once (`npm run mutate -- --concurrency 1` says the same) and MUTATE_ONLY narrows the area to a
 * comma-separated list of its modules while one is being worked on (MUTATE_TESTS, read by
 * vitest.stryker.config.ts, narrows its tests); the area's own lists stay whole.
 */
const { areas } = JSON.parse(readFileSync(new URL('./mutation-areas.json', import.meta.url), 'utf8'));
const name = process.env.MUTATE_AREA ?? '';
const area = areas[name];
if (!area)
  throw new Error(`MUTATE_AREA must name one of: ${Object.keys(areas).join(', ')} (npm run mutate runs them all)`);
const out = `reports/mutation/${name}`;
const only = (process.env.MUTATE_ONLY ?? '')
  .split(',')
  .map((file) => file.trim())
  .filter((file) => file !== '');
const concurrency = Number(process.env.MUTATE_CONCURRENCY ?? 2);
if (!Number.isInteger(concurrency) || concurrency < 1)
  throw new Error(
    `MUTATE_CONCURRENCY must be a whole number of runners, 1 or more (not ${process.env.MUTATE_CONCURRENCY})`,
  );

/** @type {import('@stryker-mutator/api/core').PartialStrykerOptions} */
export default {
  testRunner: 'vitest',
  // vitest.stryker.config.ts reads MUTATE_AREA too: the area's tests only.
  vitest: { configFile: 'vitest.stryker.config.ts', related: true },
  mutate: only.length > 0 ? only : area.mutate,
  coverageAnalysis: 'perTest',
  concurrency,
  // A mutant that hangs a call (a deadline never set) is judged after its tests' time twice over plus 5 s.
  timeoutMS: 5_000,
  timeoutFactor: 2,
  incremental: true,
  incrementalFile: `${out}/incremental.json`,
  reporters: ['html', 'json', 'clear-text', 'progress'],
  htmlReporter: { fileName: `${out}/mutation.html` },
  jsonReporter: { fileName: `${out}/mutation.json` },
  clearTextReporter: { reportTests: false, reportMutants: false },
  thresholds: { high: 90, low: 80, break: null },
  // Reports and test output are not copied into Stryker's sandbox.
  ignorePatterns: ['/reports', '/test-output'],
  tempDirName: `.stryker-tmp/${name}`,
  cleanTempDir: 'always',
};
