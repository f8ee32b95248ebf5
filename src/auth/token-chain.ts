import type * as z from 'zod';
import { decodeJwtClaims, tokenClaims } from '../http/bearer-token.js';
import { MailboxError } from '../errors.js';
import { tryAcquireLock, withDirectoryLock } from '../credentials/directory-lock.js';
import type { StoredCredentials } from '../credentials/stored-credentials.js';
import { Deadline } from '../gate/deadline.js';
import { lockFor, type AccountContext, type CallOptions, type Clock } from './account-registry.js';

// Spec §3/§8: capability 2 min, session 1 h, renewed 15 s and 30 s before `exp`; short test TTLs use a share (the
// session's below refresh-ahead's, which comes first). Refresh-ahead starts 5 min before, time for a live PoW.
const capabilityMargin = { seconds: 15, share: 0.25 };
const sessionMargin = { seconds: 30, share: 0.1 };
const refreshAheadSeconds = 300;
const refreshAheadShare = 0.2;
const backgroundRetryPauseMs = 10_000;

type TokenLife = z.infer<typeof tokenClaims>;

// Every call asks whether its capability is usable; claims never change, so each live token is decoded once.
const lives = new Map<string, TokenLife | undefined>();
const livesKept = 8;

function life(jwt: string | undefined): TokenLife | undefined {
  if (!jwt) return undefined;
  // Stryker disable next-line ConditionalExpression: a cache; decoding the token again gives the same claims
  if (lives.has(jwt)) return lives.get(jwt);
  let claims: TokenLife | undefined;
  try {
    claims = decodeJwtClaims(jwt, tokenClaims, 'token');
  } catch {
    claims = undefined;
  }
  // Stryker disable next-line ConditionalExpression,EqualityOperator: the cache's size, not its answers
  if (lives.size >= livesKept) lives.delete(lives.keys().next().value as string);
  lives.set(jwt, claims);
  return claims;
}

/** Seconds before `exp` at which a token counts as used up: `seconds`, or `share` of its lifetime when smaller. */
function marginSeconds(claims: TokenLife, seconds: number, share: number): number {
  return claims.iat === undefined ? seconds : Math.min(seconds, (claims.exp - claims.iat) * share);
}

function isUsable(jwt: string | undefined, margin: { seconds: number; share: number }, now: Clock): jwt is string {
  const claims = life(jwt);
  return claims !== undefined && claims.exp - now() / 1000 > marginSeconds(claims, margin.seconds, margin.share);
}

/**
 * The §4.3 token chain of one credentials directory: the capability, else one minted from the session, else a PoW
 * login. Renewal rereads the files under the directory lock, so processes sharing it never solve two PoWs at once.
 */
export class TokenChain {
  private capability: string | undefined;
  private session: string | undefined;
  private readonly rejected = new Set<string>();
  private renewing: Promise<string> | undefined;
  private background: Promise<void> | undefined;
  /** After a failed background renewal, wait before the next try so a dead host does not cost a PoW per call. */
  private backgroundPausedUntil = 0;

  private readonly now: Clock;

  constructor(
    private readonly ctx: AccountContext,
    private readonly options: { refreshAhead: boolean; closeSignal: AbortSignal; now?: Clock },
  ) {
    this.now = options.now ?? Date.now;
  }

  async get(credentials: StoredCredentials, call: CallOptions = {}): Promise<string> {
    if (!isUsable(this.capability, capabilityMargin, this.now)) {
      const onDisk = await this.ctx.store.readToken('capability');
      if (this.isFresh(onDisk)) this.capability = onDisk;
    }
    if (isUsable(this.capability, capabilityMargin, this.now)) {
      this.considerRefreshAhead(credentials);
      return this.capability;
    }
    for (;;) {
      // One renewal per account in this process; concurrent callers share it.
      const mine = !this.renewing;
      this.renewing ??= this.renew(credentials, call).finally(() => {
        this.renewing = undefined;
      });
      try {
        const capability = await this.renewing;
        this.considerRefreshAhead(credentials);
        return capability;
      } catch (error) {
        // Another caller's cancellation ended the shared renewal; this caller still wants a token.
        const cancelled =
          error instanceof MailboxError && (error.code === 'cancelled' || error.code === 'pow_cancelled');
        if (mine || !cancelled || call.signal?.aborted) throw error;
      }
    }
  }

  invalidate(jwt: string): void {
    this.rejected.add(jwt);
    // Stryker disable next-line ConditionalExpression: forgetting a capability still valid only rereads it from the file
    if (this.capability === jwt) this.capability = undefined;
  }

  adopt(session: string, capability: string): void {
    this.session = session;
    this.capability = capability;
  }

  async settled(): Promise<void> {
    await this.background?.catch(() => undefined);
  }

  /** A stored capability the JMAP host has not refused, not near its expiry. */
  private isFresh(capability: string | undefined): capability is string {
    return isUsable(capability, capabilityMargin, this.now) && !this.rejected.has(capability);
  }

  private async renew(credentials: StoredCredentials, call: CallOptions): Promise<string> {
    // A PoW already running in the background of this process is cheaper to wait for than a second one.
    if (this.background && !isUsable(await this.ctx.store.readToken('session'), sessionMargin, this.now)) {
      const background = this.background;
      const wait = (): Promise<void> => background.catch(() => undefined);
      await (call.deadline ? call.deadline.offTheClock(wait) : wait());
    }
    return withDirectoryLock(
      this.ctx.dir,
      'auth',
      async () => {
        const capability = await this.ctx.store.readToken('capability');
        if (this.isFresh(capability)) return (this.capability = capability);
        const session = await this.ctx.store.readToken('session');
        if (isUsable(session, sessionMargin, this.now)) {
          try {
            return await this.mint(session, call);
          } catch (error) {
            // Spec §4.3: a session the auth host no longer accepts falls back to a PoW login.
            if (!(error instanceof MailboxError && error.code === 'auth_rejected')) throw error;
            this.ctx.log.info('The auth host refused the stored session; logging in again with a fresh proof of work.');
          }
        }
        const client = this.ctx.authClient(await this.ctx.config());
        const solved = await client.solveChallenge(call);
        this.ctx.stats.powSolves += 1;
        // Re-read under the lock: another process may have logged in with a rotated apiKey.
        const apiKey = (await this.ctx.store.readCredentials())?.apiKey ?? credentials.apiKey;
        const opened = await client.openSession(solved, { apiKey }, call);
        await this.storeSession(opened.sessionJwt);
        return this.mint(opened.sessionJwt, call);
      },
      lockFor(this.ctx.lock, call),
    );
  }

  private async mint(session: string, call: CallOptions): Promise<string> {
    const client = this.ctx.authClient(await this.ctx.config());
    const capability = await client.mintCapability(session, call);
    decodeJwtClaims(capability, tokenClaims, 'capability JWT');
    this.ctx.stats.capabilityMints += 1;
    await this.ctx.store.writeToken('capability', capability);
    this.session = session;
    this.capability = capability;
    return capability;
  }

  private async storeSession(session: string): Promise<void> {
    decodeJwtClaims(session, tokenClaims, 'session JWT');
    this.ctx.stats.sessionRenewals += 1;
    await this.ctx.store.writeToken('session', session);
    this.session = session;
  }

  /** Starts one background PoW login when the session nears expiry; only ever triggered by calls. */
  private considerRefreshAhead(credentials: StoredCredentials): void {
    if (!this.options.refreshAhead || this.background || this.options.closeSignal.aborted) return;
    if (this.now() < this.backgroundPausedUntil) return;
    const claims = life(this.session);
    // Stryker disable next-line ConditionalExpression: without it the background task rereads the same fresh session and stops
    if (claims && !isNearExpiry(claims, this.now)) return;
    this.background = this.refreshInBackground(credentials)
      .catch((error: unknown) => {
        if (this.options.closeSignal.aborted) return;
        this.backgroundPausedUntil = this.now() + backgroundRetryPauseMs;
        this.ctx.log.warn(
          `Background session renewal failed (the next request will retry): ${(error as Error).message}`,
        );
      })
      .finally(() => {
        this.background = undefined;
      });
  }

  private async refreshInBackground(credentials: StoredCredentials): Promise<void> {
    const current = await this.ctx.store.readToken('session');
    const claims = life(current);
    if (claims && !isNearExpiry(claims, this.now)) {
      this.session = current;
      return;
    }
    // Another process (or server) of this directory already renewing ahead: leave it to that one.
    const release = await tryAcquireLock(this.ctx.dir, 'refresh-ahead', this.ctx.lock.staleMs);
    if (!release) return;
    try {
      const signal = this.options.closeSignal;
      const config = await this.ctx.config();
      const client = this.ctx.authClient(config);
      // No call waits for this renewal: it gets the configured timeout of its own.
      const deadline = Deadline.start({ timeoutMs: config.timeoutMs });
      this.ctx.stats.backgroundRenewals += 1;
      // Solve WITHOUT the auth lock, so foreground calls keep minting capabilities meanwhile.
      const solved = await client.solveChallenge({ signal, deadline });
      this.ctx.stats.powSolves += 1;
      await withDirectoryLock(
        this.ctx.dir,
        'auth',
        async () => {
          const latest = life(await this.ctx.store.readToken('session'));
          if (latest && !isNearExpiry(latest, this.now)) return; // renewed by someone else meanwhile
          const opened = await client.openSession(solved, { apiKey: credentials.apiKey }, { signal, deadline });
          await this.storeSession(opened.sessionJwt);
          this.ctx.log.debug('Session renewed ahead of expiry.');
        },
        { ...this.ctx.lock, signal },
      );
    } finally {
      await release();
    }
  }
}

function isNearExpiry(claims: TokenLife, now: Clock): boolean {
  return claims.exp - now() / 1000 <= marginSeconds(claims, refreshAheadSeconds, refreshAheadShare);
}
