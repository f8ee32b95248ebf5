/**
 * Reading an Authentication-Results field (RFC 8601 §2.2) as a receiving service wrote it:
 * `authserv-id [version] ; method=result [reason=…] ptype.property=value … ; …`, with comments and
 * folding anywhere CFWS may stand. A value that does not follow the grammar yields no result rather
 * than a guess: an unreadable verdict is never read as a pass.
 */

/** One result: method (`dmarc`) and result (`pass`) in lower case, `ptype.property` (lower case) → value as written. */
export interface AuthResult {
  method: string;
  result: string;
  reason?: string;
  properties: Record<string, string>;
}

/** The authserv-id as written without comments (compare with sameAuthservId); no results for `none`. */
interface AuthenticationResults {
  authservId: string;
  results: AuthResult[];
}

/** Unfolds a raw header value (RFC 5322 §2.2.3): CRLF before white space goes. */
export function unfoldHeaderValue(raw: string): string {
  return raw.replace(/\r?\n(?=[ \t])/g, '').replace(/\r?\n$/, '');
}

/** Whether two authserv-ids name the same service: case-insensitive, a trailing dot ignored. */
export function sameAuthservId(a: string, b: string): boolean {
  const norm = (id: string): string => id.trim().toLowerCase().replace(/\.$/, '');
  return norm(a) !== '' && norm(a) === norm(b);
}

/** The authserv-id a field claims, read even when the rest of it is broken; undefined when it names none. */
export function authservIdOf(value: string): string | undefined {
  const head = splitStatements(unfoldHeaderValue(value))?.[0];
  const word = head === undefined ? undefined : wordsOf(head)?.[0];
  return word === undefined ? undefined : unquote(word);
}

/** Parses one field's value (raw or unfolded); undefined when it does not follow RFC 8601. */
export function parseAuthenticationResults(value: string): AuthenticationResults | undefined {
  const segments = splitStatements(unfoldHeaderValue(value));
  if (!segments) return undefined;
  // Stryker disable next-line StringLiteral: splitStatements always gives at least one segment
  const [head = '', ...statements] = segments;
  const headWords = wordsOf(head);
  const authservId = headWords?.[0] === undefined ? undefined : unquote(headWords[0]);
  // §2.2: the optional version is digits; anything else after the id breaks the grammar.
  if (!headWords || !authservId || headWords.length > 2 || (headWords[1] !== undefined && !/^\d+$/.test(headWords[1])))
    return undefined;
  // Stryker disable next-line OptionalChaining: one statement is there when the length is 1
  if (statements.length === 1 && statements[0]?.trim().toLowerCase() === 'none') return { authservId, results: [] };
  const results: AuthResult[] = [];
  for (const statement of statements) {
    const result = parseStatement(statement);
    if (!result) return undefined;
    results.push(result);
  }
  return results.length > 0 ? { authservId, results } : undefined;
}

/** Splits at each `;` and drops comments (nested, with quoted-pairs), quoted strings whole; undefined when one never closes. */
function splitStatements(value: string): string[] | undefined {
  const segments: string[] = [];
  let current = '';
  let depth = 0;
  let quoted = false;
  // Stryker disable next-line EqualityOperator: one more round reads charAt past the end, an empty string that adds nothing
  for (let at = 0; at < value.length; at++) {
    const char = value.charAt(at);
    if (quoted) {
      current += char;
      if (char === '\\' && at + 1 < value.length) current += value.charAt(++at);
      else if (char === '"') quoted = false;
    } else if (depth > 0) {
      if (char === '\\') at++;
      else if (char === '(') depth++;
      else if (char === ')' && --depth === 0) current += ' ';
    } else if (char === '(') depth = 1;
    else if (char === '"') {
      quoted = true;
      current += char;
    } else if (char === ';') {
      segments.push(current);
      current = '';
    } else current += char;
  }
  if (quoted || depth > 0) return undefined;
  segments.push(current);
  return segments;
}

/**
 * The words of a comment-free segment (undefined when empty), white space around `=`, `.` and `/`
 * taken out (`dmarc = pass` is one word), quoted strings whole. One pass: a sender writes these
 * fields, and a pattern backtracking over a long run of white space would take quadratic time.
 */
function wordsOf(segment: string): string[] | undefined {
  const words: string[] = [];
  let current = '';
  let quoted = false;
  // White space seen since the last character of the word; it ends the word unless an operator is next to it.
  let spaced = false;
  let afterOperator = false;
  // Stryker disable next-line EqualityOperator: as above
  for (let at = 0; at < segment.length; at++) {
    const char = segment.charAt(at);
    if (quoted) {
      current += char;
      if (char === '\\' && at + 1 < segment.length) current += segment.charAt(++at);
      else if (char === '"') quoted = false;
    } else if (/\s/.test(char)) spaced = true;
    else if (char === '=' || char === '.' || char === '/') {
      current += char;
      spaced = false;
      afterOperator = true;
    } else {
      if (spaced && !afterOperator && current) {
        words.push(current);
        current = '';
      }
      spaced = false;
      afterOperator = false;
      if (char === '"') quoted = true;
      current += char;
    }
  }
  if (current) words.push(current);
  // Stryker disable next-line ConditionalExpression,EqualityOperator: every caller reads an empty list as it reads undefined (no first word, no method)
  return words.length > 0 ? words : undefined;
}

const keyword = /^[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?$/;

/** `method[/version]=result [reason=value] ptype.property=value…` */
function parseStatement(statement: string): AuthResult | undefined {
  const words = wordsOf(statement);
  if (!words) return undefined;
  // Stryker disable next-line StringLiteral: wordsOf never gives an empty list
  const [methodSpec = '', ...rest] = words;
  const eq = methodSpec.indexOf('=');
  // Stryker disable next-line EqualityOperator: an empty method fails the keyword test below
  if (eq <= 0) return undefined;
  const method = methodSpec.slice(0, eq).replace(/\/\d+$/, '');
  const result = methodSpec.slice(eq + 1);
  if (!keyword.test(method) || !keyword.test(result)) return undefined;
  const out: AuthResult = { method: method.toLowerCase(), result: result.toLowerCase(), properties: {} };
  for (const word of rest) {
    const at = word.indexOf('=');
    // Stryker disable next-line EqualityOperator: an empty key is neither a reason nor a ptype.property
    if (at <= 0) return undefined;
    const key = word.slice(0, at).toLowerCase();
    const value = unquote(word.slice(at + 1));
    if (value === undefined) return undefined;
    if (key === 'reason' && out.reason === undefined && Object.keys(out.properties).length === 0) out.reason = value;
    else if (/^[a-z0-9-]+\.[a-z0-9_-]+$/.test(key)) out.properties[key] = value;
    else return undefined;
  }
  return out;
}

/** A value: a quoted-string (unescaped) or a token-like run; undefined when empty. */
function unquote(value: string): string | undefined {
  if (value.startsWith('"'))
    return value.endsWith('"') && value.length >= 2 ? value.slice(1, -1).replace(/\\(.)/g, '$1') : undefined;
  return value === '' ? undefined : value;
}
