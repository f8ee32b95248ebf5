import { fieldNameOf, fieldValueOf } from './header-fields.js';

// RFC 2045 §5.1: a token ends at white space, a control character or one of these.
const tspecials = new Set('()<>@,;:\\"/[]?='.split(''));

/**
 * The authserv-id of an Authentication-Results value (RFC 8601 §2.2: `[CFWS] authserv-id`, a
 * token or quoted-string), or undefined when the value starts with neither.
 */
export function authservIdOf(value: string): string | undefined {
  let at = 0;
  let depth = 0;
  // CFWS: white space, line breaks and (nested) comments with quoted-pairs (RFC 5322 §3.2.2).
  for (; at < value.length; at += 1) {
    const char = value.charAt(at);
    if (depth > 0 && char === '\\') at += 1;
    else if (char === '(') depth += 1;
    else if (depth > 0 && char === ')') depth -= 1;
    else if (depth === 0 && !/\s/.test(char)) break;
  }
  if (value.charAt(at) === '"') {
    let text = '';
    for (at += 1; at < value.length && value.charAt(at) !== '"'; at += 1) {
      if (value.charAt(at) === '\\') at += 1;
      if (value.charAt(at) !== '\r' && value.charAt(at) !== '\n') text += value.charAt(at);
    }
    return at < value.length ? text : undefined;
  }
  let token = '';
  for (; at < value.length; at += 1) {
    const char = value.charAt(at);
    if (tspecials.has(char) || char <= ' ' || char === '\x7f') break;
    token += char;
  }
  return token || undefined;
}

/** Lower case without a trailing dot: `Example.ORG.` names the same host as `example.org`. */
function sameId(a: string, b: string): boolean {
  const norm = (id: string): string => id.trim().toLowerCase().replace(/\.$/, '');
  return norm(a) === norm(b);
}

/**
 * Whether `field` is an Authentication-Results field that claims `authservId`. Such fields that
 * arrive from outside are the sender's own words about our verdict and must go (RFC 8601 §5);
 * fields of other authserv-ids are other hops' records and stay.
 */
export function claimsAuthservId(field: string, authservId: string): boolean {
  if (fieldNameOf(field) !== 'authentication-results') return false;
  const id = authservIdOf(fieldValueOf(field));
  return id !== undefined && sameId(id, authservId);
}

/**
 * The Authentication-Results field as mailauth-based MTAs write it: the authserv-id, then one
 * `method=result (comment) ptype.property=value` per line, folded under 78 columns where a
 * space allows (RFC 5322 §2.2.3), ending in CRLF.
 */
export function formatAuthenticationResults(authservId: string, results: string[]): string {
  const lines = results.map((result, index) => ` ${fold(result, 1)}${index < results.length - 1 ? ';' : ''}`);
  return `Authentication-Results: ${authservId};\r\n${lines.join('\r\n')}\r\n`;
}

function fold(text: string, indent: number): string {
  const words = text.split(' ');
  let out = words.shift() ?? '';
  let column = indent + out.length;
  for (const word of words) {
    if (column + 1 + word.length > 78) {
      // The space between the words becomes the fold's white space, so unfolding gives the text back.
      out += `\r\n ${word}`;
      column = 1 + word.length;
    } else {
      out += ` ${word}`;
      column += 1 + word.length;
    }
  }
  return out;
}
