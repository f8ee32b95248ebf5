import type { ServerResponse } from 'node:http';
import { sendJson } from '../auth/auth-http.js';

/**
 * A refusal of an OAuth endpoint or of the OAuth-authenticated JMAP path, rendered as
 * `{error, error_description}` (spec §7.1, RFC 6749 §5.2). `error_description` is ASCII without
 * quotes or backslashes (RFC 6749 §5.2 allows no others), so it also fits a WWW-Authenticate header.
 */
export class OAuthFailure extends Error {
  readonly description: string;

  constructor(
    readonly status: number,
    readonly error: string,
    description: string,
    readonly headers: Record<string, string> = {},
  ) {
    const safe = asciiDescription(description);
    super(safe);
    this.name = 'OAuthFailure';
    this.description = safe;
  }
}

/** Writes an OAuthFailure as JSON with its status and headers (no-store, RFC 6749 §5.1). */
export function sendOAuthFailure(res: ServerResponse, failure: OAuthFailure): void {
  sendJson(
    res,
    failure.status,
    { error: failure.error, error_description: failure.description },
    { pragma: 'no-cache', ...failure.headers },
  );
}

/** Realm of every bearer challenge the sandbox sends. */
export const bearerRealm = 'agent-mailbox';

/**
 * A `WWW-Authenticate: Bearer` value (RFC 6750 §3). Without an error code it only names the scheme:
 * a request that carried no token gets no error attribute (RFC 6750 §3.1).
 */
export function bearerChallenge(error?: { code: string; description: string; scope?: string }): string {
  const parts = [`realm="${bearerRealm}"`];
  if (error) {
    parts.push(`error="${error.code}"`, `error_description="${asciiDescription(error.description)}"`);
    if (error.scope) parts.push(`scope="${error.scope}"`);
  }
  return `Bearer ${parts.join(', ')}`;
}

/** A 401 invalid_token with its challenge (RFC 6750 §3.1). */
export function invalidToken(description: string): OAuthFailure {
  return new OAuthFailure(401, 'invalid_token', description, {
    'www-authenticate': bearerChallenge({ code: 'invalid_token', description }),
  });
}

/** Keeps printable ASCII except `"` and `\` (RFC 6749 §5.2: %x20-21 / %x23-5B / %x5D-7E). */
function asciiDescription(text: string): string {
  return text.replace(/["\\]/g, "'").replace(/[^\x20-\x7e]/g, '?');
}
