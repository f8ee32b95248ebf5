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
    // Eight times the text costs about eight times the time when linear and sixty-four times when
    // square. The ratio, not a wall-clock bound, is what is judged: a loaded machine or a mutation
    // run's instrumented code slows both sizes alike (measured ~0.3 s for the large one alone; the
    // backtracking pattern before took minutes for one field). The small size runs first, so the
    // compiler's warm-up falls on it, which only lowers the ratio.
    const small = Math.max(millisecondsToParse(hostile(n / 8)), 20);
    const large = millisecondsToParse(hostile(n));
    expect(large / small).toBeLessThan(24);
    expect(parseAuthenticationResults(`a; dmarc${' '.repeat(n)}=${' '.repeat(n)}pass`)?.results).toEqual([
      { method: 'dmarc', result: 'pass', properties: {} },
    ]);
  });
});
