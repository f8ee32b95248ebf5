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

// RFC 5322 §2.2: a name of printable ASCII but the colon; §4.5 (obsolete syntax) allows white space before the colon.
const fieldStart = /^[\x21-\x39\x3b-\x7e]+[ \t]*:/;

/**
 * Why a header section cannot be taken as RFC 5322 fields, or undefined when it can. A section
 * whose first line is folded has no field to continue: written under the service's own field it
 * would become part of it, so the sender could add statements to the service's verdict. A line
 * that is neither a field nor a fold cannot be told apart from a body line or a broken field.
 */
export function headerSectionProblem(fields: readonly string[]): string | undefined {
  const first = fields[0];
  if (first !== undefined && (first.startsWith(' ') || first.startsWith('\t')))
    return 'the header section begins with a folded line (white space before the first field)';
  const broken = fields.findIndex((field) => !fieldStart.test(field));
  // The line itself is not echoed: an SMTP reply is ASCII, and the sender knows what it wrote.
  return broken < 0 ? undefined : `header field ${broken + 1} is not a field name followed by a colon`;
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
  if (from === 0 && (text.startsWith('\r\n') || text.startsWith('\n')))
    return { fieldsEnd: 0, bodyStart: text.startsWith('\r') ? 2 : 1 };
  const pattern = /\r?\n\r?\n/g;
  pattern.lastIndex = Math.max(0, from);
  const match = pattern.exec(text);
  if (!match) return undefined;
  return { fieldsEnd: match.index + (text[match.index] === '\r' ? 2 : 1), bodyStart: match.index + match[0].length };
}
