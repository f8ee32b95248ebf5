import type { Config } from '../config.js';
import type { CredentialStore } from '../credentials/credential-store.js';
import type { LockOptions } from '../credentials/directory-lock.js';
import type { FetchFunction } from '../http/http-types.js';
import type { Logger } from '../log.js';
import type { CallOptions } from './account-registry.js';
import type { PowAuthClient } from './pow-auth-client.js';

/** Counters of what an account did, for tests and the MCP server's diagnostics. */
export interface AccountStats {
  /** Proofs of work solved (sign-up, login, renewal). */
  powSolves: number;
  /** Session JWTs obtained by a PoW login (sign-up included). */
  sessionRenewals: number;
  /** Capability JWTs minted from a session. */
  capabilityMints: number;
  /** Session renewals started ahead of expiry in the background (refresh-ahead). */
  backgroundRenewals: number;
  /** Refreshes of a connected account's access token (each rotates its refresh token). */
  accessTokenRenewals: number;
}

/** What the parts of one account share (one per credentials directory). */
export interface AccountContext {
  dir: string;
  store: CredentialStore;
  log: Logger;
  fetch?: FetchFunction;
  stats: AccountStats;
  lock: LockOptions;
  config(): Promise<Config>;
  authClient(config: Config): PowAuthClient;
}

/** The account's lock options for one call: its cancel signal, and the lock wait off the call's clock. */
export function lockFor(ctx: AccountContext, call: CallOptions): LockOptions {
  const { deadline, signal } = call;
  return {
    ...ctx.lock,
    ...(signal ? { signal } : {}),
    ...(deadline ? { whileWaiting: (wait) => deadline.offTheClock(wait) } : {}),
  };
}

/**
 * Seconds before `exp` at which a token counts as used up: `margin`, or `share` of the lifetime
 * when that is smaller (short sandbox TTLs in tests).
 */
export function renewalMarginSeconds(
  claims: { exp: number; iat?: number | undefined },
  margin: number,
  share: number,
): number {
  if (claims.iat === undefined) return margin;
  return Math.min(margin, (claims.exp - claims.iat) * share);
}
