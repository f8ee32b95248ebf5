import { describe, expect, it } from 'vitest';
import { isPackedPrototypes, lookUpPrototype, packPrototypes } from '../../../src/trust/packed-prototypes.js';

describe('packed prototypes', () => {
  const table = { а: 'a', ℓ: 'l', '\u{1D5BA}': 'a', ﬀ: 'ff', '\u{1F100}': '0.', '\u2024': '.' };
  const packed = packPrototypes(table);

  it('finds every entry and nothing else', () => {
    for (const [codePoint, prototype] of Object.entries(table))
      expect(lookUpPrototype(packed, codePoint)).toBe(prototype);
    for (const absent of ['b', 'a', ' ', '\uD835', '\uDDBA', '\u{1D5BB}', '\u{1F101}', 'й'])
      expect(lookUpPrototype(packed, absent)).toBeUndefined();
  });

  it('reads a match that straddles two slots as no match, and goes on to the real one', () => {
    // Slots "xa", " _", "a ": the key `a` (slot "a ") first appears across the first two slots.
    const straddling = ['xa _a ', 'PQR', String.fromCharCode(0, 1, 2, 3)] as const;
    expect(lookUpPrototype(straddling, 'a')).toBe('R');
    expect(lookUpPrototype(['xa _', 'PQ', String.fromCharCode(0, 1, 2)], 'a')).toBeUndefined();
  });

  it('refuses keys it could not look up', () => {
    expect(() => packPrototypes({ ab: 'x' })).toThrow(/not one code point/);
    expect(() => packPrototypes({ ' ': 'x' })).toThrow(/not one code point/);
    expect(() => packPrototypes({ а: 'x'.repeat(0x10000) })).toThrow(/exceed/);
  });

  it('tells a packed table from anything else, as the bundles read it from a file', () => {
    expect(isPackedPrototypes(JSON.parse(JSON.stringify(packed)))).toBe(true);
    for (const damaged of [null, {}, ['a', 'b'], ['a', 'b', 3], ['a', 'b', 'c', 'd'], 'abc'])
      expect(isPackedPrototypes(damaged)).toBe(false);
  });
});
