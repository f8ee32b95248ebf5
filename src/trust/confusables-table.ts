import { createRequire } from 'node:module';
import { lookUpPrototype, packPrototypes, type PackedPrototypes } from './packed-prototypes.js';

/**
 * Unicode's confusables prototypes (UTS #39), one code point to what it looks like, as the
 * `unhomoglyph` package carries them (its data.json: every key is a single code point).
 *
 * Read on first use, not at load: most listings hold only ASCII, whose few entries are
 * `asciiPrototypes`. The bundles replace this module with one that reads the same table already
 * packed (scripts/build.mjs), so every build looks code points up with the same code.
 */

let packed: PackedPrototypes | undefined;

export function prototypeFor(codePoint: string): string | undefined {
  packed ??= packPrototypes(createRequire(import.meta.url)('unhomoglyph/data.json') as Record<string, string>);
  return lookUpPrototype(packed, codePoint);
}

/** Whether this process has read the table (tests check that ASCII alone never does). */
export function prototypeTableRead(): boolean {
  return packed !== undefined;
}

/** The table's ASCII entries, so text in ASCII is folded without reading the table (a test keeps them equal). */
export const asciiPrototypes: Readonly<Record<string, string>> = {
  '"': "''",
  '%': 'º/₀',
  '0': 'O',
  '1': 'l',
  I: 'l',
  '`': "'",
  m: 'rn',
  '|': 'l',
};
