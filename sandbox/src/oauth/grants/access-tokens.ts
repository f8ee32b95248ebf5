import { randomBytes } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { SignJWT, compactVerify, decodeProtectedHeader, errors as joseErrors, jwtVerify, type JWTPayload } from 'jose';
import { z } from 'zod';
import { signingAlgorithm, type SigningKey } from '../../auth/signing-key.js';
import type { GrantRecord, GrantStore } from './grant-store.js';
import { formatScope, parseScopeParameter, type OAuthScope } from '../oauth-scopes.js';

/** The media type of an access token's `typ` header (RFC 9068 §2.1). */
export const accessTokenType = 'at+jwt';

/** What a verified access token says, with the grant it belongs to. */
export interface AccessClaims {
  personId: string;
  clientId: string;
  grantId: string;
  scopes: OAuthScope[];
  /** The `aud` claim: the resource the token is bound to. */
  audience: string;
  grant: GrantRecord;
}

/** Why an access token was refused; the message becomes an invalid_token description. */
export class AccessTokenError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'AccessTokenError';
  }
}

const claimsSchema = z.object({
  iss: z.string(),
  sub: z.string().min(1),
  aud: z.string().min(1),
  client_id: z.string().min(1),
  scope: z.string(),
  grant_id: z.string().min(1),
  exp: z.number(),
  iat: z.number(),
  jti: z.string().min(1),
});

/** The bearer of an Authorization header (scheme case-insensitive, RFC 6750 §2.1). */
export function bearerTokenOf(req: IncomingMessage): string | undefined {
  return /^\s*bearer\s+(\S+)\s*$/i.exec(req.headers.authorization ?? '')?.[1];
}

/** Whether a bearer is an OAuth access token by its header (`typ` at+jwt or application/at+jwt), not yet verified. */
export function looksLikeAccessToken(token: string): boolean {
  try {
    const typ = decodeProtectedHeader(token).typ?.toLowerCase();
    return typ === accessTokenType || typ === `application/${accessTokenType}`;
  } catch {
    return false;
  }
}

/**
 * Mints and checks the access tokens of the OAuth path: JWTs per RFC 9068 (header typ at+jwt)
 * signed with the OAuth key, audience-bound to one resource, and tied to a grant that is looked up
 * on every check, so a revoked grant's tokens stop working at once (spec §3).
 */
export class AccessTokens {
  constructor(
    private readonly key: SigningKey,
    private readonly issuer: () => string,
    private readonly grants: GrantStore,
    private readonly ttlSeconds: number,
    private readonly now: () => number,
  ) {}

  /** The lifetime in seconds (the token response's expires_in). */
  get lifetimeSeconds(): number {
    return this.ttlSeconds;
  }

  /** An access token for a grant, limited to `scopes` (a refresh may narrow them, RFC 6749 §6). */
  issue(grant: GrantRecord, scopes: readonly OAuthScope[]): Promise<string> {
    const now = Math.floor(this.now() / 1000);
    return new SignJWT({ client_id: grant.clientId, scope: formatScope(scopes), grant_id: grant.id })
      .setProtectedHeader({ alg: signingAlgorithm, typ: accessTokenType, kid: this.key.kid })
      .setIssuer(this.issuer())
      .setSubject(grant.personId)
      .setAudience(grant.resource)
      .setIssuedAt(now)
      .setExpirationTime(now + this.ttlSeconds)
      .setJti(randomBytes(16).toString('base64url'))
      .sign(this.key.privateKey);
  }

  /** Checks type, signature, issuer, expiry, audience and the grant behind the token; throws AccessTokenError. */
  async verify(token: string, isAcceptedAudience: (audience: string) => boolean): Promise<AccessClaims> {
    let payload: JWTPayload;
    try {
      ({ payload } = await jwtVerify(token, this.key.publicKey, {
        algorithms: [signingAlgorithm],
        typ: accessTokenType,
        issuer: this.issuer(),
        currentDate: new Date(this.now()),
        requiredClaims: ['exp', 'iat', 'sub', 'aud', 'jti'],
      }));
    } catch (error) {
      if (error instanceof joseErrors.JWTExpired)
        throw new AccessTokenError('The access token has expired; refresh it with the refresh token.');
      throw new AccessTokenError(
        'The access token is not valid: it was not issued by this authorization server or is damaged.',
      );
    }
    const claims = this.parseClaims(payload);
    if (!isAcceptedAudience(claims.audience))
      throw new AccessTokenError(
        `The access token is for the resource ${claims.audience.slice(0, 200)}, not for this one; request a token with the right resource parameter.`,
      );
    return claims;
  }

  /** The grant an access token names, checking the signature only (a revocation may name an expired token). */
  async grantOf(token: string): Promise<GrantRecord | undefined> {
    try {
      const { payload, protectedHeader } = await compactVerify(token, this.key.publicKey, {
        algorithms: [signingAlgorithm],
      });
      if (protectedHeader.typ !== accessTokenType) return undefined;
      const parsed = z.object({ grant_id: z.string() }).safeParse(JSON.parse(new TextDecoder().decode(payload)));
      return parsed.success ? this.grants.get(parsed.data.grant_id) : undefined;
    } catch {
      return undefined;
    }
  }

  private parseClaims(payload: JWTPayload): AccessClaims {
    const parsed = claimsSchema.safeParse(payload);
    if (!parsed.success) throw new AccessTokenError('The access token lacks required claims.');
    const { sub, aud, client_id: clientId, grant_id: grantId } = parsed.data;
    const scope = parseScopeParameter(parsed.data.scope);
    const grant = this.grants.get(grantId);
    if (
      !grant ||
      grant.personId !== sub ||
      grant.clientId !== clientId ||
      grant.resource !== aud ||
      !('scopes' in scope)
    )
      throw new AccessTokenError('The access token names no grant of this authorization server.');
    if (grant.revokedAt !== undefined)
      throw new AccessTokenError('The grant of this access token was revoked; authorize again.');
    return { personId: sub, clientId, grantId, scopes: scope.scopes, audience: aud, grant };
  }
}
