import { CredentialStore } from '../../credentials/credential-store.js';
import { kindConflictError, oauthInboxStateDir } from '../../credentials/credentials-kind.js';
import { isLockHeld } from '../../credentials/directory-lock.js';
import type { KnownInbox } from '../../credentials/oauth-grant-files.js';
import type {
  AccountStats,
  CallOptions,
  InboxChoice,
  InboxIdentity,
  ListedInbox,
  ObservableAccount,
} from '../account-registry.js';
import type { TokenNeed } from './access-token-source.js';
import type { OAuthGrant } from './oauth-grant.js';

/** One inbox of a connected account; while its wake runs, or opened read-only, only mail.read tokens (no send). */
export function createOAuthInboxAccount(
  grant: OAuthGrant,
  choice: InboxChoice,
  stats: AccountStats,
): ObservableAccount {
  const dir = grant.dir;
  let chosen: Promise<KnownInbox> | undefined;
  const resolve = (call: CallOptions = {}): Promise<KnownInbox> => {
    chosen ??= grant.choose(choice.inbox, choice.readOnly ? 'read' : 'full', call).catch((error: unknown) => {
      chosen = undefined;
      throw error;
    });
    return chosen;
  };
  const stateDir = async (call?: CallOptions): Promise<string> =>
    oauthInboxStateDir(dir, (await resolve(call)).address);
  const need = async (call?: CallOptions): Promise<TokenNeed> =>
    choice.readOnly || (await isLockHeld(await stateDir(call), 'wake')) ? 'read' : 'full';
  const stateStore = async (): Promise<CredentialStore> => new CredentialStore(await stateDir());
  // What only a proof-of-work directory has: its apiKey, its credentials.json, a sign-up.
  const powOnly = async (): Promise<never> => {
    throw kindConflictError(dir, 'oauth');
  };

  return {
    dir,
    config: () => grant.config(),
    register: powOnly,
    capability: async (call) => grant.tokens.get(await need(call), call),
    invalidateCapability: (token) => grant.tokens.invalidate(token),
    credentials: powOnly,
    readState: async () => (await stateStore()).readState(),
    updateState: async (mutate) => (await stateStore()).updateState(mutate, grant.options.lock),
    revealApiKey: powOnly,
    inbox: async (call): Promise<InboxIdentity> => {
      const known = await resolve(call);
      return {
        kind: 'oauth',
        inboxId: known.inboxId,
        address: known.address,
        serviceAccountId: known.accountId,
        stateDir: oauthInboxStateDir(dir, known.address),
      };
    },
    listInboxes: async (call = {}): Promise<ListedInbox[]> => {
      const list = await grant.inboxList(choice.readOnly ? 'read' : 'full', call, call.refresh === true);
      return list.inboxes.map((inbox) => ({
        address: inbox.address,
        inboxId: inbox.inboxId,
        serviceAccountId: inbox.accountId,
        isDefault: inbox.accountId === list.defaultAccountId || list.inboxes.length === 1,
        ...(inbox.status !== undefined ? { status: inbox.status } : {}),
      }));
    },
    stats: () => ({ ...stats }),
    settled: async () => undefined,
  };
}
