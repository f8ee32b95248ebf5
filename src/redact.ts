/**
 * The one place secrets are masked before text leaves the process (logs, results, errors). It
 * knows two things: the shapes of secrets (JWTs and their parts, `amk_` keys, Authorization
 * echoes) and the secrets actually in play, which the credential store, the auth client and the
 * token chain register here as they read or receive them. A server may echo only a piece of a
 * token, so any run of text sharing a long enough stretch with a known secret is masked whole.
 */

// A JWT header or payload is base64url JSON and so starts with "eyJ"; either part alone is masked too.
const jwtShape = /\beyJ[A-Za-z0-9_-]{8,}(?:\.[A-Za-z0-9_-]*){0,2}/g;
const apiKeyShape = /\bamk_[A-Za-z0-9_-]{6,}/g;
const bearerShape = /((?:bearer|basic)\s+)[^\s"'\\]+/gi;
const apiKeyField = /("?api_?key"?\s*[:=]\s*"?)([^"\s,}\\]+)/gi;
// Secret alphabets (base64url, hex, JWT dots): runs of these are what a fragment can hide in.
const secretRun = /[A-Za-z0-9_.+/-]{12,}/g;
/** A shared stretch this long identifies a secret; shorter ones occur by chance in ids. */
const fragmentLength = 12;

const knownSecrets = new Map<string, { isToken: boolean }>();
/** Fragment → how many known secrets contain it (secrets can share a JWT header). */
const knownFragments = new Map<string, number>();
// Capability tokens rotate every 2 minutes: a long-running MCP server would otherwise index ever
// more of them. Tokens (JWTs) beyond the newest few are forgotten (an expired token is worth
// little, and its JWT shape is still masked); apiKeys are kept for the life of the process.
const maxKnownTokens = 32;

function fragmentsOf(secret: string): string[] {
  const out: string[] = [];
  for (let i = 0; i + fragmentLength <= secret.length; i += 1) out.push(secret.slice(i, i + fragmentLength));
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
}

function forgetSecret(secret: string): void {
  knownSecrets.delete(secret);
  for (const fragment of fragmentsOf(secret)) {
    const count = (knownFragments.get(fragment) ?? 1) - 1;
    if (count <= 0) knownFragments.delete(fragment);
    else knownFragments.set(fragment, count);
  }
}

/**
 * Forgets every remembered secret, as a new process starts: for an entry that runs commands one
 * after another inside a long-lived process as if each had its own (the tests' in-process CLI runs),
 * so that fixture keys of earlier tests do not mask text of later ones.
 */
export function forgetAllSecrets(): void {
  knownSecrets.clear();
  knownFragments.clear();
}

/** Masks an apiKey for display: enough to recognise it, never enough to use it. */
export function maskApiKey(apiKey: string): string {
  if (apiKey.length <= 8) return '****';
  return `${apiKey.slice(0, 4)}…${apiKey.slice(-4)}`;
}

function containsKnownFragment(run: string): boolean {
  for (let i = 0; i + fragmentLength <= run.length; i += 1) if (knownFragments.has(run.slice(i, i + fragmentLength))) return true;
  return false;
}

/** Replaces secrets found in free text: the known ones (and pieces of them) and anything shaped like one. */
export function redactSecrets(text: string, extraSecrets: readonly string[] = []): string {
  for (const secret of extraSecrets) rememberSecret(secret);
  let out = text;
  if (knownFragments.size > 0) out = out.replace(secretRun, (run) => (containsKnownFragment(run) ? '<secret redacted>' : run));
  return out
    .replace(jwtShape, '<jwt redacted>')
    .replace(apiKeyShape, '<apiKey redacted>')
    .replace(bearerShape, '$1<redacted>')
    .replace(apiKeyField, (_m, prefix: string) => `${prefix}<redacted>`);
}

/**
 * Redacts every string inside a value (object keys stay). Each string on its own: redacting the
 * serialised JSON would miss secrets behind escaped quotes.
 */
export function redactDeep<T>(value: T, extraSecrets: readonly string[] = []): T {
  for (const secret of extraSecrets) rememberSecret(secret);
  const walk = (node: unknown): unknown => {
    if (typeof node === 'string') return redactSecrets(node);
    if (Array.isArray(node)) return node.map(walk);
    if (node !== null && typeof node === 'object') return Object.fromEntries(Object.entries(node).map(([k, v]) => [k, walk(v)]));
    return node;
  };
  return walk(value) as T;
}
