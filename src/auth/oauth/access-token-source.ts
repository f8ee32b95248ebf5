import { createHash } from 'node:crypto';
import { withDirectoryLock, type LockOptions } from '../../credentials/directory-lock.js';
import type { StoredAccessTokens, StoredGrant } from '../../credentials/oauth-grant-files.js';
import type { OAuthGrantStore } from '../../credentials/oauth-grant-store.js';
import { MailboxError } from '../../errors.js';
import type { FetchFunction } from '../../http/http-types.js';
import type { Logger } from '../../log.js';
import { oauthScopes } from '../../wire-constants.js';
import { lockFor, type CallOptions, type Clock } from '../account-registry.js';
import { Deadline } from '../../gate/deadline.js';
import { shellQuote } from '../../render/shell-quote.js';
import type { IssuedTokens } from './oauth-protocol.js';

/** Which access token a call needs: the grant's whole scope, or one that can only read (wake runs). */
export type TokenNeed = 'full' | 'read';

export interface AccessTokenSourceOptions {
  dir: string;
  store: OAuthGrantStore;
  log: Logger;
  lock: LockOptions;
  now: Clock;
  /** The configured timeout, for a call that brings no deadline of its own. */
  timeoutMs: () => Promise<number>;
  fetch?: FetchFunction;
  onRenewal?: () => void;
}

type CachedToken = StoredAccessTokens['tokens'][number];

// Renewed this long before expiry (spec §8: 900 s), so none expires in flight; short sandbox lifetimes use a share.
const marginSeconds = 60;
const marginShare = 0.25;

function scopeSet(scope: string): string {
  return [...new Set(scope.split(/\s+/).filter(Boolean))].sort().join(' ');
}

function fits(entry: CachedToken, need: TokenNeed, grant: StoredGrant): boolean {
  return need === 'read' ? scopeSet(entry.scope) === oauthScopes.read : scopeSet(entry.scope) === scopeSet(grant.scope);
}

/** A digest that recognises a refresh token in the renewal journal without storing it twice. */
export function refreshTokenDigest(token: string): string {
  return createHash('sha256').update(token).digest('hex').slice(0, 16);
}

/**
 * The access tokens of one OAuth grant, shared by its inboxes. Renewal rotates the refresh token (spec §3), so it runs
 * under the directory lock: the holder rereads it, takes another process's fresh access token if any, else presents it
 * and stores the successor first. Two processes presenting one refresh token would make the service revoke the grant.
 */
export class AccessTokenSource {
  private readonly held = new Map<TokenNeed, CachedToken>();
  private readonly rejected = new Set<string>();
  private readonly renewing = new Map<TokenNeed, Promise<string>>();

  constructor(private readonly options: AccessTokenSourceOptions) {}

  async get(need: TokenNeed, call: CallOptions = {}): Promise<string> {
    const inHand = this.held.get(need);
    if (inHand && this.isUsable(inHand)) return inHand.token;
    // Another process's token on disk needs no lock to be read; only a renewal takes it.
    const { found } = await this.onDisk(need);
    if (found) return this.hold(need, found);
    let pending = this.renewing.get(need);
    if (!pending) {
      const lock = lockFor(this.options.lock, call);
      pending = withDirectoryLock(this.options.dir, 'oauth', () => this.renewHoldingLock(need, call), lock).finally(
        () => this.renewing.delete(need),
      );
      this.renewing.set(need, pending);
    }
    return pending;
  }

  /** Forgets a token the service refused (401), so the next call renews. */
  invalidate(token: string): void {
    this.rejected.add(token);
    for (const [need, entry] of this.held) if (entry.token === token) this.held.delete(need);
  }

  /** The stored grant, the access tokens cached for it, and one of those that serves `need`, if any. */
  private async onDisk(need: TokenNeed) {
    const grant = await this.options.store.readGrant();
    const cached = await this.options.store.readAccessTokens();
    if (!grant || cached?.connectedAt !== grant.connectedAt) return { grant, current: [] };
    const found = cached.tokens.find((entry) => fits(entry, need, grant) && this.isUsable(entry));
    return { grant, current: cached.tokens, found };
  }

  private hold(need: TokenNeed, entry: CachedToken): string {
    this.held.set(need, entry);
    return entry.token;
  }

  private isUsable(entry: CachedToken): boolean {
    if (this.rejected.has(entry.token)) return false;
    const margin = Math.min(marginSeconds, entry.lifetimeSeconds * marginShare) * 1000;
    return entry.expiresAt - this.options.now() > margin;
  }

  private async renewHoldingLock(need: TokenNeed, call: CallOptions): Promise<string> {
    const { store } = this.options;
    const { grant, current, found } = await this.onDisk(need);
    if (!grant)
      throw new MailboxError({
        code: 'credentials_missing',
        message: `${this.options.dir} holds no connected account any more (oauth.json is gone).`,
        hint: 'The operator connects the account again: agent-mailbox connect --credentials-dir <this directory>.',
      });
    // Another process may have renewed while this one waited for the lock.
    if (found) return this.hold(need, found);
    const issued = await this.refresh(grant, need, call);
    const entry: CachedToken = {
      token: issued.accessToken,
      scope: issued.scope,
      expiresAt: this.options.now() + issued.expiresIn * 1000,
      lifetimeSeconds: issued.expiresIn,
    };
    if (need === 'read' && scopeSet(issued.scope) !== oauthScopes.read) {
      // The service must narrow on request (RFC 6749 §6); a wake run never works with a token that can send.
      throw new MailboxError({
        code: 'oauth_failed',
        message: `Asked for a read-only access token (scope ${oauthScopes.read}), the service answered with scope "${issued.scope}".`,
        hint: 'A wake run refuses to work with a token that can send; report this to the service.',
      });
    }
    const kept = current.filter((other) => !fits(other, need, grant) && this.isUsable(other));
    await store
      .writeAccessTokens({ connectedAt: grant.connectedAt, tokens: [...kept, entry] })
      .catch((error: unknown) => {
        // The refresh token is already stored; a lost cache only costs the next call a renewal.
        this.options.log.warn(`Could not cache the new access token: ${(error as Error).message}`);
      });
    return this.hold(need, entry);
  }

  /** One refresh; a journal of the token in flight explains a later revocation when its answer was never stored. */
  private async refresh(grant: StoredGrant, need: TokenNeed, call: CallOptions): Promise<IssuedTokens> {
    const { store, now } = this.options;
    const digest = refreshTokenDigest(grant.refreshToken);
    const earlier = await store.readRenewalJournal();
    const interrupted = earlier?.refreshTokenDigest === digest ? earlier : undefined;
    await store.writeRenewalJournal({
      pid: process.pid,
      startedAt: new Date(now()).toISOString(),
      refreshTokenDigest: digest,
    });
    const deadline = call.deadline ?? Deadline.start({ timeoutMs: await this.options.timeoutMs() });
    // The OAuth library loads on the first renewal, not on every start of the CLI or the server.
    const { refreshGrant } = await import('./grant-flows.js');
    this.options.onRenewal?.();
    let answered = false;
    try {
      // No scope asks for the grant's whole scope back (RFC 6749 §6); a read need asks for mail.read only.
      const issued = await refreshGrant(
        grant,
        need === 'read' ? oauthScopes.read : undefined,
        { deadline, log: this.options.log, signal: call.signal, fetch: this.options.fetch },
        async (refreshToken) => {
          await store.writeGrant({
            ...grant,
            refreshToken,
            generation: grant.generation + 1,
            rotatedAt: new Date(now()).toISOString(),
          });
          answered = true;
        },
      );
      answered = true;
      return issued;
    } catch (error) {
      // The server answered with a refusal: it rotated nothing (or, on reuse, revoked everything).
      if (error instanceof MailboxError && (error.code === 'oauth_failed' || error.code === 'grant_revoked'))
        answered = true;
      if (error instanceof MailboxError && error.code === 'grant_revoked') {
        const why = interrupted
          ? ` An earlier renewal (pid ${interrupted.pid}, ${interrupted.startedAt}) was interrupted after sending this refresh token and before its successor was stored, so the service saw the token twice and ended the grant.`
          : '';
        throw new MailboxError({
          code: 'grant_revoked',
          ...(error.status !== undefined ? { status: error.status } : {}),
          message: `The connected account in ${this.options.dir} can no longer be used: ${error.message}${why}`,
          hint: `The grant was revoked (by the person or the operator), went unused for 90 days, or was ended by the service. Only the operator can restore access: agent-mailbox connect --credentials-dir ${shellQuote(this.options.dir)} (the inboxes' state in this directory is kept).`,
          details: { credentialsDir: this.options.dir },
        });
      }
      throw error;
    } finally {
      if (answered) await store.clearRenewalJournal().catch(() => undefined);
    }
  }
}
