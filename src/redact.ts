/**
 * The one place secrets are masked before text leaves the process, by knowledge: the secrets in play,
 * registered as they are read or received. A server may echo a piece of a token, so a run of text
 * sharing a long enough stretch with a known secret is masked whole. Other text stays exact (a
 * "bearer" in a mail is never touched); token *shapes* are masked only by `redactCredentialEcho`.
 */

const jwtShape = /\beyJ[A-Za-z0-9_-]{8,}(?:\.[A-Za-z0-9_-]*){0,2}/g;
const apiKeyShape = /\bamk_[A-Za-z0-9_-]{6,}/g;
// The OAuth path's refresh tokens (amr_) and client secrets (amcs_).
const oauthSecretShape = /\bam(?:r|cs)_[A-Za-z0-9_-]{6,}/g;
// Only a credential-looking value after the scheme: "bearer of good news" is a sentence, not a header.
const bearerShape = /\b((?:bearer|basic)\s+)[A-Za-z0-9._~+/=-]{16,}/gi;
const apiKeyField = /("?api_?key"?\s*[:=]\s*"?)([A-Za-z0-9._~+/=-]{12,})/gi;
/** A shared stretch this long identifies a secret; shorter ones occur by chance in ids. */
const fragmentLength = 12;

/** Secret alphabets (base64url, hex, JWT dots) by code, not a regex: this runs once per scanned character. */
function isSecretChar(code: number): boolean {
  return (
    (code >= 65 && code <= 90) ||
    (code >= 97 && code <= 122) ||
    (code >= 48 && code <= 57) ||
    code === 95 ||
    code === 46 ||
    code === 43 ||
    code === 47 ||
    code === 45
  );
}

/**
 * Visits each [start, end) run of secret characters long enough to hold a fragment, until `visit` says stop. Not a
 * regular expression: V8 keeps a backtracking entry per character of a greedy match; a megabyte run overflowed it.
 */
function someSecretRun(text: string, visit: (start: number, end: number) => boolean): boolean {
  let start = -1;
  for (let i = 0; i <= text.length; i += 1) {
    const inRun = i < text.length && isSecretChar(text.charCodeAt(i));
    if (inRun && start < 0) start = i;
    else if (!inRun && start >= 0) {
      if (i - start >= fragmentLength && visit(start, i)) return true;
      start = -1;
    }
  }
  return false;
}

const knownSecrets = new Map<string, { isToken: boolean }>();
/** Fragment → how many known secrets contain it (secrets can share a JWT header). */
const knownFragments = new Map<string, number>();
/** The fragments' first three characters as one number: a scan slices out only windows that start alike. */
let fragmentStarts = new Set<number>();
const startKey = (text: string, at: number): number =>
  (text.charCodeAt(at) << 14) | (text.charCodeAt(at + 1) << 7) | text.charCodeAt(at + 2);
// Capability tokens rotate every 2 minutes: only the newest JWTs are kept; apiKeys for the process's life.
const maxKnownTokens = 32;

/** A JWT's header is the same for every token of an issuer: indexing it would mask any JWT a mail quotes. */
function secretBodyOf(secret: string): string {
  const jwt = /^eyJ[^.]*\.(.+)$/.exec(secret);
  return jwt?.[1] ?? secret;
}

function fragmentsOf(secret: string): string[] {
  const body = secretBodyOf(secret);
  // Stryker disable next-line ArrayDeclaration: equivalent, a stretch of another length never equals a 12-character slice
  const out: string[] = [];
  // Stryker disable next-line ArithmeticOperator: equivalent, as above
  for (let i = 0; i + fragmentLength <= body.length; i += 1) out.push(body.slice(i, i + fragmentLength));
  return out;
}

/** Makes a secret known to every later redaction in this process (apiKeys, session, capability, challenge tokens). */
export function rememberSecret(secret: string | undefined): void {
  if (!secret || secret.length < fragmentLength || secret.length > 16_384 || knownSecrets.has(secret)) return;
  const isToken = /^eyJ[^.]*\.[^.]*\./.test(secret);
  knownSecrets.set(secret, { isToken });
  for (const fragment of fragmentsOf(secret)) knownFragments.set(fragment, (knownFragments.get(fragment) ?? 0) + 1);
  const tokens = [...knownSecrets].filter(([, info]) => info.isToken);
  for (const [oldest] of tokens.slice(0, Math.max(0, tokens.length - maxKnownTokens))) forgetSecret(oldest);
  fragmentStarts = new Set([...knownFragments.keys()].map((fragment) => startKey(fragment, 0)));
}

function forgetSecret(secret: string): void {
  knownSecrets.delete(secret);
  for (const fragment of fragmentsOf(secret)) {
    const count = (knownFragments.get(fragment) ?? 1) - 1;
    if (count <= 0) knownFragments.delete(fragment);
    else knownFragments.set(fragment, count);
  }
}

/** Forgets every remembered secret, as a new process starts (the tests' in-process CLI runs). */
export function forgetAllSecrets(): void {
  knownSecrets.clear();
  knownFragments.clear();
  fragmentStarts.clear();
}

/** Masks an apiKey for display: enough to recognise it, never enough to use it. */
export function maskApiKey(apiKey: string): string {
  if (apiKey.length <= 8) return '****';
  return `${apiKey.slice(0, 4)}…${apiKey.slice(-4)}`;
}

/** Whether text's run [start, end) holds a known fragment. */
function containsKnownFragment(text: string, start: number, end: number): boolean {
  // Stryker disable next-line ArithmeticOperator: equivalent, a slice shorter than 12 characters is never a known fragment
  for (let i = start; i + fragmentLength <= end; i += 1)
    if (fragmentStarts.has(startKey(text, i)) && knownFragments.has(text.slice(i, i + fragmentLength))) return true;
  return false;
}

/** Whether text carries a secret this process holds, or a long enough piece of one. */
export function containsKnownSecret(text: string): boolean {
  // Stryker disable next-line ConditionalExpression: a shortcut; with no fragment known no run can match
  if (knownFragments.size === 0) return false;
  return someSecretRun(text, (start, end) => containsKnownFragment(text, start, end));
}

/** Masks the secrets this process holds (and pieces of them) wherever they appear; nothing else changes. */
// Stryker disable next-line ArrayDeclaration: equivalent, Stryker's sentinel is no secret any text holds
export function redactSecrets(text: string, extraSecrets: readonly string[] = []): string {
  for (const secret of extraSecrets) rememberSecret(secret);
  // Stryker disable next-line ConditionalExpression: a shortcut; with no fragment known nothing is masked
  if (knownFragments.size === 0 || text.length < fragmentLength) return text;
  let shown = '';
  let from = 0;
  someSecretRun(text, (start, end) => {
    if (containsKnownFragment(text, start, end)) {
      shown += `${text.slice(from, start)}<secret redacted>`;
      from = end;
    }
    return false;
  });
  return from === 0 ? text : shown + text.slice(from);
}

/** For text about credentials from elsewhere (a server's error body, a log line): known secrets and token shapes. */
export function redactCredentialEcho(text: string): string {
  return redactSecrets(text)
    .replace(bearerShape, '$1<redacted>')
    .replace(apiKeyField, (_m, prefix: string) => `${prefix}<redacted>`)
    .replace(jwtShape, '<jwt redacted>')
    .replace(apiKeyShape, '<apiKey redacted>')
    .replace(oauthSecretShape, '<token redacted>');
}

/** Every string inside a value, each on its own: the serialised JSON would hide secrets behind escapes. */
export function redactDeep<T>(value: T, redact: (text: string) => string = redactSecrets): T {
  const walk = (node: unknown): unknown => {
    if (typeof node === 'string') return redact(node);
    if (node === null || typeof node !== 'object') return node;
    const record = node as Record<string, unknown>;
    // Copied from the first changed string on, every other value walked anew: copying every node was most of a
    // listing's garbage, and a result rarely holds a secret. Only plain objects and arrays are kept as they are:
    // another (a URL, a Date) may say more through its toJSON.
    const copy = (changed?: string, after?: unknown): unknown => {
      const walked = Object.entries(record).map(([k, v]) => [k, k === changed ? after : walk(v)] as const);
      return Array.isArray(node) ? walked.map(([, v]) => v) : Object.fromEntries(walked);
    };
    if (!Array.isArray(node) && ![Object.prototype, null].includes(Object.getPrototypeOf(record))) return copy();
    for (const key in record) {
      const after = walk(record[key]);
      if (after !== record[key]) return copy(key, after);
    }
    return node;
  };
  return walk(value) as T;
}
