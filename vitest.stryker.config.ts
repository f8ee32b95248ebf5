import { readFileSync } from 'node:fs';
import { defineConfig } from 'vitest/config';
import base from './vitest.config.js';

/**
 * The tests `npm run mutate` (stryker.config.mjs) runs against each mutant: those of the area
 * MUTATE_AREA names in mutation-areas.json (every area's when it is unset), not the whole suite.
 * Tests that drive dist/ through a spawned process cannot see a mutant (Stryker changes the sources
 * in its sandbox, not dist/), and the end-to-end files spend their time in process start-up, so
 * they are left out. Stryker's vitest runner runs these files in one worker thread per runner.
 */
const { areas } = JSON.parse(readFileSync(new URL('./mutation-areas.json', import.meta.url), 'utf8')) as {
  areas: Record<string, { tests: string[] }>;
};
const chosen = process.env['MUTATE_AREA'];
// While one module is worked on, MUTATE_TESTS may narrow the area's tests to a comma-separated list
// (say, without slow bounds tests that reach every line and so run for every mutant); a score measured
// so is a lower bound of the area's, since the tests left out could only kill more.
const narrowed = (process.env['MUTATE_TESTS'] ?? '')
  .split(',')
  .map((glob) => glob.trim())
  .filter((glob) => glob !== '');
export const mutationTests =
  narrowed.length > 0
    ? narrowed
    : chosen
      ? (areas[chosen]?.tests ?? [])
      : [...new Set(Object.values(areas).flatMap((area) => area.tests))];

// Spread, not mergeConfig: that would append these globs to the suite's own and run everything.
export default defineConfig({ ...base, test: { ...base.test, include: mutationTests } });
