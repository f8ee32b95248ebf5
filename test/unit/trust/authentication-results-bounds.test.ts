import { describe, expect, it } from 'vitest';
import { authservIdOf, parseAuthenticationResults } from '../../../src/trust/authentication-results.js';

// Apart from the parser's other tests so that a mutation run can leave these 256 KiB fields out:
// they reach every line of the parser, so every mutant would run them.

/** White space, folds, comments, operators and quoted-pairs, each about `n` characters long. */
const hostile = (n: number): string[] => [
  `x${' '.repeat(n)}y; dmarc=pass`,
  `a; dmarc=pass${' \t'.repeat(n / 2)}`,
  `a;${'\r\n '.repeat(n / 3)}`,
  `a; dmarc=pass ${'a . b = c '.repeat(n / 10)}`,
  `"${'\\"'.repeat(n / 2)}"; x=y`,
  `${'('.repeat(n)}x`,
];

function millisecondsToParse(values: readonly string[]): number {
  const started = performance.now();
  for (const value of values) {
    authservIdOf(value);
    parseAuthenticationResults(value);
  }
  return performance.now() - started;
}

describe("the parser's cost on a sender's field", () => {
  it('reads 256 KiB of white space, folds, comments, operators and quoted-pairs in linear time, not their square', () => {
    const n = 256 * 1024;
    // Measured ~0.3 s for all six at this size, ~25 s under a mutation run's instrumented code on a
    // loaded machine; the backtracking pattern before took minutes for one field. A ratio of two
    // timings would flake when a pause lands on one of them, so the bound is absolute and wide.
    expect(millisecondsToParse(hostile(n))).toBeLessThan(45_000);
    expect(parseAuthenticationResults(`a; dmarc${' '.repeat(n)}=${' '.repeat(n)}pass`)?.results).toEqual([
      { method: 'dmarc', result: 'pass', properties: {} },
    ]);
  });
});
