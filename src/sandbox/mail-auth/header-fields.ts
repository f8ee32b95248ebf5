/**
 * A message's header section as its fields, each with its folded lines and line breaks exactly as
 * they arrived (latin1, so every byte maps to one character and back). Joining the fields gives
 * the section back byte for byte.
 */
export function splitHeaderFields(section: string): string[] {
  const fields: string[] = [];
  for (const line of section.match(/[^\n]*\n|[^\n]+$/g) ?? []) {
    // A line starting with white space continues the field above (RFC 5322 §2.2.3).
    const last = fields.length - 1;
    if ((line.startsWith(' ') || line.startsWith('\t')) && last >= 0) fields[last] += line;
    else fields.push(line);
  }
  return fields;
}

/** The field's name in lower case; RFC 5322 §4.5 allows white space before the colon. */
export function fieldNameOf(field: string): string {
  const colon = field.indexOf(':');
  return colon < 0 ? '' : field.slice(0, colon).trim().toLowerCase();
}

/** The field's value: everything after the first colon, line breaks included. */
export function fieldValueOf(field: string): string {
  const colon = field.indexOf(':');
  return colon < 0 ? '' : field.slice(colon + 1);
}

/**
 * Where the header section ends in `text`: `fieldsEnd` just past the last field's line break,
 * `bodyStart` just past the empty line after it; undefined while no empty line has been seen.
 * `from` lets a caller that appends text search only what is new.
 */
export function findHeaderEnd(text: string, from = 0): { fieldsEnd: number; bodyStart: number } | undefined {
  if (from === 0 && (text.startsWith('\r\n') || text.startsWith('\n'))) return { fieldsEnd: 0, bodyStart: text.startsWith('\r') ? 2 : 1 };
  const pattern = /\r?\n\r?\n/g;
  pattern.lastIndex = Math.max(0, from);
  const match = pattern.exec(text);
  if (!match) return undefined;
  return { fieldsEnd: match.index + (text[match.index] === '\r' ? 2 : 1), bodyStart: match.index + match[0].length };
}
