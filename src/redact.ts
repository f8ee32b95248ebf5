/** The one place secrets are masked before text leaves the process (logs, results, errors). */

const jwtShape = /\beyJ[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]{5,}\.[A-Za-z0-9_-]*/g;
const bearerShape = /(bearer\s+)[^\s"']+/gi;
const apiKeyField = /("?api_?key"?\s*[:=]\s*"?)([^"\s,}]+)/gi;

/** Masks an apiKey for display: enough to recognise it, never enough to use it. */
export function maskApiKey(apiKey: string): string {
  if (apiKey.length <= 8) return '****';
  return `${apiKey.slice(0, 4)}…${apiKey.slice(-4)}`;
}

/** Replaces JWTs, bearer tokens and apiKey values found in free text. */
export function redactSecrets(text: string, knownSecrets: readonly string[] = []): string {
  let out = text;
  for (const secret of knownSecrets) {
    if (secret.length >= 8) out = out.split(secret).join(maskApiKey(secret));
  }
  return out
    .replace(jwtShape, '<jwt redacted>')
    .replace(bearerShape, '$1<redacted>')
    .replace(apiKeyField, (_m, prefix: string, value: string) => `${prefix}${maskApiKey(value)}`);
}

/**
 * Redacts every string inside a value (object keys stay). Each string on its own: redacting the
 * serialised JSON would miss secrets behind escaped quotes.
 */
export function redactDeep<T>(value: T, knownSecrets: readonly string[] = []): T {
  const walk = (node: unknown): unknown => {
    if (typeof node === 'string') return redactSecrets(node, knownSecrets);
    if (Array.isArray(node)) return node.map(walk);
    if (node !== null && typeof node === 'object') return Object.fromEntries(Object.entries(node).map(([k, v]) => [k, walk(v)]));
    return node;
  };
  return walk(value) as T;
}
