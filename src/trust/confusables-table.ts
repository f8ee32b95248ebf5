import { createRequire } from 'node:module';

/**
 * Unicode's confusables prototypes (UTS #39), one code point to what it looks like, as the
 * `unhomoglyph` package carries them (its data.json: every key is a single code point).
 *
 * Read on first use, not at load: most listings hold only ASCII, whose few entries are
 * `asciiPrototypes`, and building the 6,300-entry table (and unhomoglyph's own 6,300-way regular
 * expression, which is not used here) cost every start several milliseconds. The bundles replace
 * this module's body with the same table as JSON text parsed on the first call (scripts/build.mjs).
 */

let table: Readonly<Record<string, string>> | undefined;

export function prototypeTable(): Readonly<Record<string, string>> {
  return (table ??= createRequire(import.meta.url)('unhomoglyph/data.json') as Record<string, string>);
}

/** Whether this process has read the table (tests check that ASCII alone never does). */
export function prototypeTableRead(): boolean {
  return table !== undefined;
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
