import { describe, expect, it } from 'vitest';
import { parseLegacyColour } from '../../../../src/present/hidden/colour/parse-legacy-colour.js';

/** The edges of HTML's legacy colour parsing (HTML §2.3.6.4) the table in colour-functions.test.ts leaves open. */
const rgb = (r: number, g: number, b: number) => ({ r, g, b, a: 1 });

describe('legacy colour attributes at their edges', () => {
  it.each<[string, ReturnType<typeof rgb>]>([
    // Only `#` and three hex digits take the short form; four characters without `#` do not.
    ['xabc', rgb(10, 188, 0)],
    ['#abcd', rgb(171, 205, 0)],
    // U+FFFF is one character; only code points past it become two zeros.
    ['f\uffffF', rgb(15, 0, 15)],
    // Each code point past U+FFFF counts as two characters towards the 128 kept.
    [`${'😀'.repeat(100)}fff`, rgb(0, 0, 0)],
  ])('%j', (attribute, expected) => {
    expect(parseLegacyColour(attribute)).toEqual(expected);
  });
});
