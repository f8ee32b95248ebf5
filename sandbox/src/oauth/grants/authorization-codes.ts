import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { OAuthScope } from '../oauth-scopes.js';

/** Codes live a minute: long enough for a redirect and an exchange, short enough to be worth little (spec §8). */
export const codeLifetimeMs = 60_000;

/** How long a spent code is remembered after it expired, so a replay is still recognised (RFC 6749 §4.1.2). */
const rememberSpentMs = 10 * 60_000;

/** Everything a code is bound to (RFC 6749 §4.1.3, RFC 7636 §4.4, RFC 8707 §2.2). */
export interface CodeBinding {
  clientId: string;
  redirectUri: string;
  codeChallenge: string;
  resource: string;
  scopes: OAuthScope[];
  personId: string;
  defaultAccountId?: string;
}

interface CodeEntry extends CodeBinding {
  expiresAt: number;
  isSpent: boolean;
  /** The grant the first exchange started: a replay of the code revokes it. */
  grantId?: string;
}

/** What presenting a code found. */
export type CodeRedemption =
  | { kind: 'ok'; binding: CodeBinding; settle(grantId: string): void }
  | { kind: 'unknown' | 'expired' }
  | { kind: 'replayed'; grantId?: string };

/** Single-use authorization codes, in memory (a restart ends every pending authorization). */
export class AuthorizationCodes {
  private readonly codes = new Map<string, CodeEntry>();

  constructor(private readonly now: () => number) {}

  /** A fresh code for a binding. */
  issue(binding: CodeBinding): string {
    this.prune();
    const code = randomBytes(32).toString('base64url');
    this.codes.set(code, { ...binding, expiresAt: this.now() + codeLifetimeMs, isSpent: false });
    return code;
  }

  /**
   * Spends a code. Synchronous, so two exchanges of one code cannot both get `ok`; a spent code is
   * spent even when the exchange then fails on another check.
   */
  redeem(code: string): CodeRedemption {
    const entry = this.codes.get(code);
    if (!entry) return { kind: 'unknown' };
    if (entry.isSpent)
      return entry.grantId === undefined ? { kind: 'replayed' } : { kind: 'replayed', grantId: entry.grantId };
    entry.isSpent = true;
    if (entry.expiresAt <= this.now()) return { kind: 'expired' };
    const { expiresAt: _expiresAt, isSpent: _isSpent, grantId: _grantId, ...binding } = entry;
    return { kind: 'ok', binding, settle: (grantId) => void (entry.grantId = grantId) };
  }

  private prune(): void {
    const now = this.now();
    for (const [code, entry] of this.codes) if (entry.expiresAt + rememberSpentMs < now) this.codes.delete(code);
  }
}

/** RFC 7636 §4.6: BASE64URL(SHA256(ASCII(verifier))) equals the challenge; the verifier is 43–128 unreserved characters. */
export function isPkceMatch(verifier: string, challenge: string): boolean {
  if (!/^[A-Za-z0-9._~-]{43,128}$/.test(verifier)) return false;
  const computed = Buffer.from(createHash('sha256').update(verifier, 'ascii').digest('base64url'));
  const expected = Buffer.from(challenge);
  return computed.length === expected.length && timingSafeEqual(computed, expected);
}
