/**
 * A declaration's property name as a browser reads it: CSS escapes decoded (`dis\play` and
 * `dis\70 lay` are `display`, CSS Syntax §4.3.7), ASCII case folded, and a flow-relative
 * property (`margin-inline-start`, `block-size`) as the physical one it sets in horizontal,
 * left-to-right text, which is how the detector evaluates it. Custom properties keep their case.
 */
export function normalisePropertyName(raw: string): string {
  const name = decodeEscapes(raw);
  if (name.startsWith('--')) return name;
  const lower = name.toLowerCase();
  return logicalToPhysical.get(lower) ?? lower;
}

// A Map, not an object: a name such as `constructor` must not find Object.prototype's.
const logicalToPhysical: ReadonlyMap<string, string> = new Map([
  ['margin-inline-start', 'margin-left'],
  ['margin-block-start', 'margin-top'],
  ['margin-inline-end', 'margin-right'],
  ['margin-block-end', 'margin-bottom'],
  ['inset-inline-start', 'left'],
  ['inset-inline-end', 'right'],
  ['inset-block-start', 'top'],
  ['inset-block-end', 'bottom'],
  ['inline-size', 'width'],
  ['block-size', 'height'],
  ['max-inline-size', 'max-width'],
  ['max-block-size', 'max-height'],
  ['min-inline-size', 'min-width'],
  ['min-block-size', 'min-height'],
  ['overflow-inline', 'overflow-x'],
  ['overflow-block', 'overflow-y'],
  ['padding-inline-start', 'padding-left'],
  ['padding-inline-end', 'padding-right'],
  ['padding-block-start', 'padding-top'],
  ['padding-block-end', 'padding-bottom'],
]);

/** Decodes CSS escapes: `\` and 1–6 hex digits (and one whitespace after them), or `\` and any other character. */
export function decodeEscapes(text: string): string {
  return text.replace(
    /\\(?:([0-9a-fA-F]{1,6})[ \t\n\r\f]?|([^\n\r\f]))/g,
    (_, hex: string | undefined, char: string | undefined) => {
      if (hex === undefined) return char as string;
      const code = Number.parseInt(hex, 16);
      return code === 0 || code > 0x10ffff || (code >= 0xd800 && code <= 0xdfff)
        ? '\uFFFD'
        : String.fromCodePoint(code);
    },
  );
}
