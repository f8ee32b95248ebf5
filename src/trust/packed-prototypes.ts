/**
 * The confusables table as three strings, so a process reads it without building 6,300 properties
 * (JSON.parse of the table as an object took 11 ms of a cold listing; three strings take under one):
 * - slots: each key in two UTF-16 units, a BMP code point padded with a space, an astral one as its pair;
 * - values: every prototype, one after another;
 * - ends: for entry i, the char codes at i and i + 1 are where its prototype starts and ends in values.
 */
export type PackedPrototypes = readonly [slots: string, values: string, ends: string];

const pad = ' ';

function slotOf(codePoint: string): string {
  return codePoint.length === 1 ? codePoint + pad : codePoint;
}

export function packPrototypes(table: Readonly<Record<string, string>>): PackedPrototypes {
  const entries = Object.entries(table);
  const ends = [0];
  for (const [codePoint, prototype] of entries) {
    if ([...codePoint].length !== 1 || codePoint === pad)
      throw new Error(`confusables key ${JSON.stringify(codePoint)} is not one code point other than a space`);
    ends.push((ends.at(-1) as number) + prototype.length);
  }
  if ((ends.at(-1) as number) > 0xffff) throw new Error('confusables prototypes exceed what one char code can index');
  return [
    entries.map(([codePoint]) => slotOf(codePoint)).join(''),
    entries.map(([, prototype]) => prototype).join(''),
    String.fromCharCode(...ends),
  ];
}

/** The prototype of one code point, or undefined when the table has none. */
export function lookUpPrototype([slots, values, ends]: PackedPrototypes, codePoint: string): string | undefined {
  const slot = slotOf(codePoint);
  // A match at an odd offset would straddle two slots: it is skipped, never read as an entry.
  for (let at = slots.indexOf(slot); at !== -1; at = slots.indexOf(slot, at + 1)) {
    if (at % 2 === 0) return values.slice(ends.charCodeAt(at / 2), ends.charCodeAt(at / 2 + 1));
  }
  return undefined;
}

export function isPackedPrototypes(value: unknown): value is PackedPrototypes {
  return Array.isArray(value) && value.length === 3 && value.every((part) => typeof part === 'string');
}
