import { normalisePropertyName } from './property-name.js';

/** `style` attributes, in nearly every HTML mail, read by CSS Syntax's rules without loading the style-sheet parser. */

/** One `property: value [!important]`. Custom property names keep their case (CSS Variables §2). */
export interface CssDeclaration {
  property: string;
  value: string;
  isImportant: boolean;
}

const closers: Readonly<Record<string, string>> = { '(': ')', '[': ']', '{': '}' };

/** Calls `onPiece` with each top-level piece of `text` split where `isSeparator` says, comments read as a space. */
function splitTopLevel(
  text: string,
  isSeparator: (char: string) => boolean,
  onPiece: (piece: string, separator: string) => void,
): void {
  const open: string[] = [];
  let done = '';
  let start = 0;
  for (let i = 0; i < text.length; i++) {
    const char = text[i] as string;
    if (char === '\\') {
      i++;
    } else if (char === '"' || char === "'") {
      let end = i + 1;
      while (end < text.length && text[end] !== char && text[end] !== '\n') end += text[end] === '\\' ? 2 : 1;
      i = end;
    } else if (char === '/' && text[i + 1] === '*') {
      const end = text.indexOf('*/', i + 2);
      // A comment separates tokens: `0/**/px` is two tokens, not `0px`, and `font: 0/**/serif` two components.
      const piece = done + text.slice(start, i);
      done = '';
      if (open.length === 0 && isSeparator(' ')) onPiece(piece, ' ');
      else done = `${piece} `;
      i = end === -1 ? text.length : end + 1;
      start = i + 1;
    } else if (closers[char]) {
      open.push(closers[char] as string);
    } else if (char === open[open.length - 1]) {
      open.pop();
    } else if (open.length === 0 && isSeparator(char)) {
      onPiece(done + text.slice(start, i), char);
      done = '';
      start = i + 1;
    }
  }
  onPiece(done + text.slice(start), '');
}

const importantSuffix = /!\s*important\s*$/i;
// An escape is `\` and 1–6 hex digits with one optional whitespace after them (`dis\70 lay`), or `\` and any other character.
const escape = String.raw`\\(?:[0-9a-f]{1,6}[ \t\n\r\f]?|[^\n\r\f0-9a-f])`;
const propertyName = new RegExp(
  String.raw`^(?:--(?:[^\s:\\]|${escape})*|-?(?:[a-z_]|${escape})(?:[a-z0-9_-]|${escape})*)$`,
  'i',
);

/** The declarations of a `style` attribute (or a block body), in order; malformed ones are dropped as CSS drops them. */
export function parseDeclarations(text: string): CssDeclaration[] {
  const declarations: CssDeclaration[] = [];
  splitTopLevel(
    text,
    (char) => char === ';',
    (piece) => {
      const colon = piece.indexOf(':');
      if (colon === -1) return;
      const name = piece.slice(0, colon).trim();
      if (!propertyName.test(name)) return;
      let value = piece.slice(colon + 1);
      const isImportant = importantSuffix.test(value);
      value = value.replace(importantSuffix, '').trim();
      if (value === '' && !name.startsWith('--')) return;
      declarations.push({ property: normalisePropertyName(name), value, isImportant });
    },
  );
  return declarations;
}

/** The items of a comma-separated list (a selector list, a media query list), trimmed. */
export function splitTopLevelCommas(text: string): string[] {
  const items: string[] = [];
  splitTopLevel(
    text,
    (char) => char === ',',
    (piece) => items.push(piece.trim()),
  );
  return items;
}

/** A value's top-level components, split at whitespace; `,` and `/` are components of their own. */
export function splitComponents(value: string): string[] {
  const parts: string[] = [];
  splitTopLevel(
    value,
    (char) => char === ',' || char === '/' || /\s/.test(char),
    (piece, separator) => {
      if (piece !== '') parts.push(piece);
      if (separator === ',' || separator === '/') parts.push(separator);
    },
  );
  return parts;
}

/** Whether a component is a <number>, or a <percentage>, as CSS writes one: sign, fraction, exponent (`+5e1%`). */
export function isCssNumber(component: string): boolean {
  return /^[+-]?(?:\d*\.\d+|\d+)(?:e[+-]?\d+)?%?$/i.test(component);
}

/** `name(args)` → name (lowercase) and the text between the parentheses; undefined for anything else. */
export function functionCall(component: string): { name: string; args: string } | undefined {
  const open = component.indexOf('(');
  if (open === -1 || !component.endsWith(')')) return undefined;
  const name = component.slice(0, open);
  return /^-?[a-z][a-z0-9-]*$/i.test(name)
    ? { name: name.toLowerCase(), args: component.slice(open + 1, -1) }
    : undefined;
}
