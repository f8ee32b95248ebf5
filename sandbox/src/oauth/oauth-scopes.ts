/** The scopes of the service (spec §2.3); order is the order a consent page lists them in. */
export const oauthScopes = ['mail.read', 'mail.send'] as const;

export type OAuthScope = (typeof oauthScopes)[number];

/** What each scope lets a client do, in the words the consent and grants pages use. */
export const scopeDescriptions: Readonly<Record<OAuthScope, string>> = {
  'mail.read': 'Read mail: list, search and open messages, and file them in mailboxes',
  'mail.send': 'Send mail from the inbox, in your name',
};

/** Whether `value` names a scope of the service. */
export function isOAuthScope(value: string): value is OAuthScope {
  return (oauthScopes as readonly string[]).includes(value);
}

/**
 * Parses a space-separated scope parameter (RFC 6749 §3.3). Returns the scopes in canonical order
 * and without repeats, or the unknown tokens when any is not a scope of the service.
 */
export function parseScopeParameter(text: string): { scopes: OAuthScope[] } | { unknown: string[] } {
  const tokens = text.split(' ').filter((token) => token !== '');
  const unknown = tokens.filter((token) => !isOAuthScope(token));
  if (unknown.length > 0) return { unknown };
  return { scopes: oauthScopes.filter((scope) => tokens.includes(scope)) };
}

/** The scope parameter's text for a set of scopes. */
export function formatScope(scopes: readonly OAuthScope[]): string {
  return oauthScopes.filter((scope) => scopes.includes(scope)).join(' ');
}
