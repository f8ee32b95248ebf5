import { randomBytes } from 'node:crypto';
import { SignJWT, errors as joseErrors, jwtVerify, type JWTPayload } from 'jose';
import { z } from 'zod';
import { signingAlgorithm, type SigningKey } from './signing-key.js';

/** Lifetimes in seconds (spec §8: session 1 hour, capability 2 minutes; challenge "a few minutes"). */
export interface TokenLifetimes {
  challengeSeconds: number;
  sessionSeconds: number;
  capabilitySeconds: number;
}

export const defaultTokenLifetimes: TokenLifetimes = {
  challengeSeconds: 300,
  sessionSeconds: 3600,
  capabilitySeconds: 120,
};

/**
 * Every token carries `typ`, so one kind can never stand in for another: all three share one
 * key, and a session JWT presented as a capability must fail (brief H2, spec §4.3).
 */
export type TokenKind = 'challenge' | 'session' | 'capability';

/** Why a token was refused; the auth host maps each to a message and a recovery hint. */
export class TokenError extends Error {
  constructor(
    readonly reason: 'missing' | 'expired' | 'invalid' | 'wrong_kind' | 'reused',
    message: string,
  ) {
    super(message);
    this.name = 'TokenError';
  }
}

export const tokenIssuer = 'agent-mailbox-sandbox';

const challengeClaims = z.object({
  typ: z.literal('challenge'),
  jti: z.string().min(1),
  difficulty: z.number().int().min(0).max(512),
  exp: z.number(),
});
const inboxClaims = z.object({
  sub: z.string().min(3),
  address: z.string().min(3),
  inboxId: z.string().min(1),
  exp: z.number(),
});
const sessionClaims = inboxClaims.extend({ typ: z.literal('session') });
const capabilityClaims = inboxClaims.extend({ typ: z.literal('capability'), scope: z.literal('mail') });

export type ChallengeClaims = z.infer<typeof challengeClaims>;
export type SessionClaims = z.infer<typeof sessionClaims>;
export type CapabilityTokenClaims = z.infer<typeof capabilityClaims>;

/** Mints and checks the three JWTs of the proof-of-work chain, and remembers spent challenges. */
export class TokenService {
  /** jti → exp (seconds): a challenge is single-use until it would have expired anyway. */
  private readonly spent = new Map<string, number>();

  constructor(
    private readonly key: SigningKey,
    private readonly lifetimes: TokenLifetimes,
    /** Milliseconds since the epoch; tests move it to expire tokens without waiting. */
    private readonly now: () => number = Date.now,
  ) {}

  /** A fresh challenge JWT; the jti is 32 random bytes, so it cannot be guessed or precomputed. */
  issueChallenge(difficulty: number): Promise<string> {
    const jti = randomBytes(32).toString('base64url');
    return this.sign({ typ: 'challenge', difficulty }, jti, this.lifetimes.challengeSeconds);
  }

  /** Session JWT for one inbox. */
  issueSession(address: string): Promise<string> {
    return this.sign(inboxPayload('session', address), randomId(), this.lifetimes.sessionSeconds);
  }

  /** Capability JWT: `sub` and `address` are the full address, `inboxId` the local part (live-service.md). */
  issueCapability(address: string): Promise<string> {
    const payload = { ...inboxPayload('capability', address), scope: 'mail' };
    return this.sign(payload, randomId(), this.lifetimes.capabilitySeconds);
  }

  /** Checks signature, expiry and kind of a challenge JWT (not whether it was already spent). */
  verifyChallenge(token: string): Promise<ChallengeClaims> {
    return this.verify(token, 'challenge', challengeClaims);
  }

  /** Checks signature, expiry and kind of a session JWT. */
  verifySession(token: string): Promise<SessionClaims> {
    return this.verify(token, 'session', sessionClaims);
  }

  /** Checks signature, expiry and kind of a capability JWT. */
  verifyCapability(token: string): Promise<CapabilityTokenClaims> {
    return this.verify(token, 'capability', capabilityClaims);
  }

  /**
   * Marks a challenge spent; throws if it already was. Synchronous on purpose: two concurrent
   * requests with one challenge cannot both pass between the check and the mark.
   */
  spendChallenge(claims: ChallengeClaims): void {
    const now = this.nowSeconds();
    for (const [jti, exp] of this.spent) if (exp < now) this.spent.delete(jti);
    if (this.spent.has(claims.jti)) {
      throw new TokenError(
        'reused',
        'This challenge was already used; each challenge is good for one session request.',
      );
    }
    this.spent.set(claims.jti, claims.exp);
  }

  private nowSeconds(): number {
    return Math.floor(this.now() / 1000);
  }

  private async sign(payload: JWTPayload, jti: string, ttlSeconds: number): Promise<string> {
    const now = this.nowSeconds();
    return new SignJWT(payload)
      .setProtectedHeader({ alg: signingAlgorithm, typ: 'JWT', kid: this.key.kid })
      .setIssuer(tokenIssuer)
      .setJti(jti)
      .setIssuedAt(now)
      .setExpirationTime(now + ttlSeconds)
      .sign(this.key.privateKey);
  }

  private async verify<T>(token: string, kind: TokenKind, schema: z.ZodType<T>): Promise<T> {
    let payload: JWTPayload;
    try {
      ({ payload } = await jwtVerify(token, this.key.publicKey, {
        algorithms: [signingAlgorithm],
        issuer: tokenIssuer,
        requiredClaims: ['exp', 'jti'],
        currentDate: new Date(this.now()),
      }));
    } catch (error) {
      if (error instanceof joseErrors.JWTExpired) {
        throw new TokenError('expired', `The ${kind} token has expired.`);
      }
      throw new TokenError(
        'invalid',
        `The ${kind} token is not valid: it was not issued by this sandbox or is damaged.`,
      );
    }
    if (payload['typ'] !== kind) {
      const actual = typeof payload['typ'] === 'string' ? payload['typ'] : 'unknown';
      throw new TokenError('wrong_kind', `A ${actual} token was sent where a ${kind} token is required.`);
    }
    const parsed = schema.safeParse(payload);
    if (!parsed.success) throw new TokenError('invalid', `The ${kind} token lacks required claims.`);
    return parsed.data;
  }
}

function inboxPayload(typ: 'session' | 'capability', address: string): JWTPayload {
  const inboxId = address.slice(0, address.lastIndexOf('@'));
  return { typ, sub: address, address, inboxId };
}

function randomId(): string {
  return randomBytes(16).toString('base64url');
}

/** The token of an `Authorization: Bearer <jwt>` header; the scheme is case-insensitive (RFC 6750 §2.1). */
export function parseBearer(header: string | undefined): string {
  const match = /^\s*bearer\s+(\S+)\s*$/i.exec(header ?? '');
  if (!match?.[1]) throw new TokenError('missing', 'No bearer token was sent in the Authorization header.');
  return match[1];
}
