import { resolveConfig, type Config, type ConfigInputs } from '../../config.js';
import type { KnownInbox, StoredGrant, StoredInboxList } from '../../credentials/oauth-grant-files.js';
import { OAuthGrantStore } from '../../credentials/oauth-grant-store.js';
import { MailboxError } from '../../errors.js';
import { Deadline } from '../../gate/deadline.js';
import type { CallOptions } from '../account-registry.js';
import { AccessTokenSource, type AccessTokenSourceOptions, type TokenNeed } from './access-token-source.js';
import { chooseInbox, defaultInbox, fetchInboxList, findInbox, InboxListUnauthorized } from './inbox-list.js';

type OAuthGrantOptions = Omit<AccessTokenSourceOptions, 'store' | 'timeoutMs'> & { configInputs: ConfigInputs };

/** The settings a stored grant supplies, as the credentials layer of the configuration. */
export function grantSettings(grant: StoredGrant): Record<string, string> {
  const domain = typeof grant['inboxDomain'] === 'string' ? grant['inboxDomain'] : undefined;
  return { authUrl: grant.server.issuer, apiUrl: grant.apiUrl, ...(domain ? { inboxDomain: domain } : {}) };
}

/** What the inboxes of a connected account share (grant files, access tokens, inbox list); one per directory. */
export class OAuthGrant {
  readonly dir: string;
  readonly store: OAuthGrantStore;
  readonly tokens: AccessTokenSource;
  private resolved: { grant: StoredGrant; config: Config } | undefined;
  private listing: Promise<StoredInboxList> | undefined;

  constructor(readonly options: OAuthGrantOptions) {
    this.dir = options.dir;
    this.store = new OAuthGrantStore(options.dir, (message) => options.log.warn(message));
    this.tokens = new AccessTokenSource({
      ...options,
      store: this.store,
      timeoutMs: async () => (await this.config()).timeoutMs,
    });
  }

  /** oauth.json, or an error saying the directory lost its grant. */
  async grant(): Promise<StoredGrant> {
    const grant = await this.store.readGrant();
    if (grant) return grant;
    throw new MailboxError({
      code: 'credentials_missing',
      message: `${this.dir} holds no connected account (no oauth.json).`,
      hint: "The operator connects the person's account: agent-mailbox connect --credentials-dir <this directory>.",
      details: { credentialsDir: this.dir },
    });
  }

  /** Config resolved with the grant's hosts as the credentials layer (flag > env > grant > default). */
  async config(): Promise<Config> {
    const grant = await this.grant();
    if (this.resolved?.grant.connectedAt === grant.connectedAt && this.resolved.grant.apiUrl === grant.apiUrl)
      return this.resolved.config;
    const inputs = this.options.configInputs;
    const config = resolveConfig({
      ...inputs,
      flags: { ...inputs.flags, credentialsDir: this.dir },
      credentials: grantSettings(grant),
    });
    this.resolved = { grant, config };
    return config;
  }

  /** The person's inboxes: inboxes.json, or fetched (and stored) when absent or `refresh`. */
  async inboxList(need: TokenNeed, call: CallOptions, refresh = false): Promise<StoredInboxList> {
    if (!refresh) {
      const stored = await this.store.readInboxList();
      if (stored) return stored;
    }
    this.listing ??= this.fetchList(need, call).finally(() => {
      this.listing = undefined;
    });
    return this.listing;
  }

  /** The inbox a call names (or the default), fetching the list again once when it is not known yet. */
  async choose(wanted: string | undefined, need: TokenNeed, call: CallOptions): Promise<KnownInbox> {
    let list = await this.inboxList(need, call);
    const known = wanted !== undefined && wanted.trim() !== '' ? findInbox(list, wanted) : defaultInbox(list);
    if (!known) list = await this.inboxList(need, call, true);
    return chooseInbox(list, wanted, this.dir);
  }

  private async fetchList(need: TokenNeed, call: CallOptions): Promise<StoredInboxList> {
    const config = await this.config();
    const deadline = call.deadline ?? Deadline.start({ timeoutMs: config.timeoutMs });
    const http = { deadline, log: this.options.log, signal: call.signal, fetch: this.options.fetch };
    for (let renewed = false; ; renewed = true) {
      const token = await this.tokens.get(need, { ...call, deadline });
      try {
        const list = await fetchInboxList(config.authUrl, token, config.inboxDomain, http);
        const before = await this.store.readInboxList();
        // A list whose hints name no default keeps the default learned before (at connect).
        const kept =
          list.defaultAccountId ??
          (before?.defaultAccountId && list.inboxes.some((i) => i.accountId === before.defaultAccountId)
            ? before.defaultAccountId
            : undefined);
        const stored: StoredInboxList = { ...list, ...(kept ? { defaultAccountId: kept } : {}) };
        await this.store.writeInboxList(stored);
        return stored;
      } catch (error) {
        if (!(error instanceof InboxListUnauthorized)) throw error;
        if (renewed)
          throw new MailboxError({
            code: 'auth_rejected',
            status: 401,
            message: 'The inbox list refused a freshly renewed access token.',
            hint: 'The operator connects the account again: agent-mailbox connect --credentials-dir <this directory>.',
          });
        this.tokens.invalidate(token);
      }
    }
  }
}
