import { resolve } from 'node:path';
import { resolveConfig, type Config, type ConfigInputs } from '../config.js';
import { checkCredentialsTarget, checkRegisteredOrigin } from '../credentials/check-endpoints.js';
import { CredentialStore, inboxLocalPart } from '../credentials/credential-store.js';
import { credentialsKindOf } from '../credentials/credentials-kind.js';
import type { LockOptions } from '../credentials/directory-lock.js';
import type { StoredCredentials } from '../credentials/stored-credentials.js';
import { MailboxError, inputRef } from '../errors.js';
import type { FetchFunction } from '../http/http-types.js';
import type { Logger } from '../log.js';
import type {
  AccountContext,
  AccountRegistry,
  AccountStats,
  Clock,
  InboxChoice,
  InboxIdentity,
  ObservableAccount,
} from './account-registry.js';
import { OAuthGrant } from './oauth/oauth-grant.js';
import { createOAuthInboxAccount } from './oauth/oauth-inbox-account.js';
import { PowAuthClient } from './pow-auth-client.js';
import { TokenChain } from './token-chain.js';

export interface AccountRegistryOptions {
  configInputs: ConfigInputs;
  log: Logger;
  /** Renew sessions in the background before they expire (the MCP server); off for one-shot CLI runs. */
  refreshAhead?: boolean;
  now?: Clock;
  fetch?: FetchFunction;
  /** Lock timing; defaults wait up to 5 min (a PoW may be running) and take over after 30 s without heartbeat. */
  lock?: LockOptions;
  powWorkers?: number;
}

export interface ObservableAccountRegistry extends AccountRegistry {
  open(credentialsDir?: string, choice?: InboxChoice): ObservableAccount;
}

/** One cached Account per credentials directory; a connected one (oauth.json) gives one per inbox choice. */
export function createAccountRegistry(options: AccountRegistryOptions): ObservableAccountRegistry {
  const accounts = new Map<string, ObservableAccount>();
  const grants = new Map<string, { grant: OAuthGrant; stats: AccountStats }>();
  const closing = new AbortController();
  // The registry's inputs never change, so the default directory is resolved once, not per call.
  let defaultDir: string | undefined;
  return {
    open(credentialsDir, choice = {}) {
      const dir = resolve(credentialsDir ?? (defaultDir ??= resolveConfig(options.configInputs).credentialsDir));
      // Asked on every open: a long-lived server may see a directory connected after its first use.
      if (credentialsKindOf(dir) === 'oauth') return openConnectedInbox(dir, choice);
      const account = cached(accounts, dir, () => createAccount(dir, options, closing.signal));
      return choice.inbox === undefined ? account : withPowInboxCheck(account, choice.inbox);
    },
    close() {
      closing.abort();
    },
  };

  function openConnectedInbox(dir: string, choice: InboxChoice): ObservableAccount {
    const key = JSON.stringify([dir, choice.inbox?.trim().toLowerCase() ?? '', choice.readOnly === true]);
    return cached(accounts, key, () => {
      const shared = cached(grants, dir, () => {
        const stats = newStats();
        const grant = new OAuthGrant({
          ...options,
          dir,
          lock: options.lock ?? {},
          now: options.now ?? Date.now,
          onRenewal: () => (stats.accessTokenRenewals += 1),
        });
        return { grant, stats };
      });
      return createOAuthInboxAccount(shared.grant, choice, shared.stats);
    });
  }
}

function cached<K, V>(map: Map<K, V>, key: K, make: () => V): V {
  let value = map.get(key);
  if (value === undefined) map.set(key, (value = make()));
  return value;
}

function newStats(): AccountStats {
  return { powSolves: 0, sessionRenewals: 0, capabilityMints: 0, backgroundRenewals: 0, accessTokenRenewals: 0 };
}

/** A proof-of-work directory holds one inbox: an `inbox` choice must name it. */
function withPowInboxCheck(account: ObservableAccount, wanted: string): ObservableAccount {
  return {
    ...account,
    inbox: async (call) => {
      const identity = await account.inbox(call);
      const key = wanted.trim().toLowerCase();
      const names = [identity.address, identity.inboxId, identity.jmapAccountId];
      if (names.some((n) => n?.toLowerCase() === key) || inboxLocalPart(key) === inboxLocalPart(identity.inboxId))
        return identity;
      throw new MailboxError({
        code: 'inbox_unknown',
        message: `${account.dir} holds one inbox, ${identity.address ?? identity.inboxId}, not ${JSON.stringify(wanted.slice(0, 200))}.`,
        hint: `Leave ${inputRef('inbox')} out here, or give the ${inputRef('credentials_dir')} of the inbox you mean.`,
        details: { credentialsDir: account.dir },
      });
    },
  };
}

function createAccount(dir: string, options: AccountRegistryOptions, closeSignal: AbortSignal): ObservableAccount {
  const store = new CredentialStore(dir, (message) => options.log.warn(message));
  const stats = newStats();
  let resolved: { stored: StoredCredentials | undefined; config: Config } | undefined;
  const config = async (): Promise<Config> => {
    const stored = await store.readCredentials();
    // Unchanged credentials come back as the same object (CredentialStore), so neither do their settings.
    if (resolved && resolved.stored === stored) return resolved.config;
    const config = resolveConfig({
      ...options.configInputs,
      flags: { ...options.configInputs.flags, credentialsDir: dir },
      ...(stored ? { credentials: stored } : {}),
    });
    checkCredentialsTarget(config, dir);
    checkRegisteredOrigin(config, dir, stored);
    resolved = { stored, config };
    return config;
  };
  const ctx: AccountContext = {
    dir,
    store,
    log: options.log,
    stats,
    lock: options.lock ?? {},
    config,
    authClient: (c) =>
      new PowAuthClient({
        authUrl: c.authUrl,
        salt: c.scryptSalt,
        timeoutMs: c.timeoutMs,
        log: options.log,
        fetch: options.fetch,
        ...((options.powWorkers ?? c.powWorkers) > 0 ? { powWorkers: options.powWorkers ?? c.powWorkers } : {}),
      }),
    fetch: options.fetch,
  };
  const chain = new TokenChain(ctx, { refreshAhead: options.refreshAhead ?? false, closeSignal, now: options.now });

  const credentials = async (): Promise<StoredCredentials> => {
    const stored = await store.readCredentials();
    if (stored) return stored;
    throw new MailboxError({
      code: 'credentials_missing',
      message: `No inbox is registered in ${dir} (no credentials.json).`,
      hint: `Call register with a ${inputRef('username')} and the operator's ${inputRef('watch')} choice first (or give the ${inputRef('credentials_dir')} of an existing inbox).`,
      next: { operation: 'register' },
      details: { credentialsDir: dir },
    });
  };

  return {
    dir,
    config,
    // The settings are checked before the directory lock creates anything in the directory.
    register: async (request, call) => {
      await config();
      return (await import('./register-account.js')).registerAccount(ctx, chain, request, call);
    },
    capability: async (call) => chain.get(await credentials(), call),
    invalidateCapability: (jwt) => chain.invalidate(jwt),
    credentials,
    readState: () => store.readState(),
    updateState: (mutate) => store.updateState(mutate, ctx.lock),
    revealApiKey: async () => (await credentials()).apiKey,
    inbox: async (): Promise<InboxIdentity> => {
      const stored = await credentials();
      return {
        kind: 'pow',
        inboxId: stored.inboxId,
        ...(stored.inbox ? { address: stored.inbox } : {}),
        ...(stored.accountId ? { jmapAccountId: stored.accountId } : {}),
        stateDir: dir,
        ...(stored.uploadUrl ? { uploadUrl: stored.uploadUrl } : {}),
        ...(stored.downloadUrl ? { downloadUrl: stored.downloadUrl } : {}),
      };
    },
    listInboxes: async () => {
      const stored = await credentials();
      return [{ address: stored.inbox ?? stored.inboxId, inboxId: stored.inboxId, isDefault: true }];
    },
    stats: () => ({ ...stats }),
    settled: () => chain.settled(),
  };
}
