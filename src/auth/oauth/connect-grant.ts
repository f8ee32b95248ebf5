import * as oauth from 'oauth4webapi';
import * as z from 'zod';
import type { Config } from '../../config.js';
import { checkCredentialsTarget } from '../../credentials/check-endpoints.js';
import { credentialsKindOf, kindConflictError } from '../../credentials/credentials-kind.js';
import { ensurePrivateDir } from '../../credentials/secure-file.js';
import { withDirectoryLock, type LockOptions } from '../../credentials/directory-lock.js';
import { storedServerSchema, type StoredGrant, type StoredInboxList } from '../../credentials/oauth-grant-files.js';
import { OAuthGrantStore } from '../../credentials/oauth-grant-store.js';
import { toMailboxError } from '../../errors.js';
import { unexpectedAnswer } from '../../http/service-error.js';
import type { OAuthHttp } from './oauth-http.js';
import { fetchInboxList } from './inbox-list.js';
import { listenOnLoopback } from './loopback-receiver.js';
import {
  checkAuthorizationResponse,
  discoverServer,
  exchangeCode,
  insecureAllowed,
  registerClient,
  revokeGrant,
  type AuthorizationServer,
  type IssuedTokens,
} from './oauth-protocol.js';
import type { BrowserOpener } from './open-browser.js';

export interface ConnectRequest extends OAuthHttp {
  dir: string;
  config: Config;
  /** Space-separated scopes to ask for (mail.read, optionally mail.send). */
  scope: string;
  /** RFC 8707 resource; `{api_url}/jmap` unless the operator names another. */
  resource: string;
  loginHint?: string;
  /** Undefined: only print the link (--no-browser). */
  openBrowser?: BrowserOpener;
  /** A line for the operator on their terminal. */
  announce(line: string): void;
  /** How long the person has to sign in and approve. */
  waitMs: number;
  signal: AbortSignal;
  lock?: LockOptions;
  now?: () => number;
}

export interface ConnectOutcome {
  credentialsDir: string;
  /** Granted (the person can untick mail.send). */
  scope: string;
  requestedScope: string;
  resource: string;
  inboxes: Array<{ address: string; accountId: string; isDefault: boolean }>;
  defaultInbox?: string;
  /** The directory's earlier connection was replaced (and revoked). */
  reconnected: boolean;
  next: string[];
}

/** The authorization request's URL (spec §4.1 parameters); its endpoint must be https, or http on loopback. */
function authorizationUrl(server: AuthorizationServer, fields: Record<string, string>): URL {
  const endpoint = server.authorization_endpoint ?? '';
  const url = new URL(endpoint);
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && insecureAllowed(endpoint)))
    throw unexpectedAnswer(
      `The authorization endpoint ${endpoint.slice(0, 200)} is not an https address; it was not opened.`,
    );
  for (const [name, value] of Object.entries(fields)) url.searchParams.set(name, value);
  return url;
}

/** `connect` (RFC 8252): PKCE, state, resource, loopback answer (iss checked), the grant stored first; old revoked. */
export async function connectGrant(request: ConnectRequest): Promise<ConnectOutcome> {
  const { dir, config } = request;
  // A grant from a local sandbox never lands where the operator's real inboxes live.
  checkCredentialsTarget(config, dir);
  const kind = credentialsKindOf(dir);
  if (kind === 'pow') throw kindConflictError(dir, 'pow');
  const store = new OAuthGrantStore(dir, (message) => request.log.warn(message));
  const previous = kind === 'oauth' ? await store.readGrant().catch(() => undefined) : undefined;
  const http: OAuthHttp = {
    deadline: request.deadline,
    log: request.log,
    signal: request.signal,
    fetch: request.fetch,
  };
  const server = await discoverServer(config.authUrl, http, config.allowedOrigins);
  const receiver = await listenOnLoopback();
  try {
    const client = await registerClient(server, receiver.redirectUri, http);
    const verifier = oauth.generateRandomCodeVerifier();
    const state = oauth.generateRandomState();
    const url = authorizationUrl(server, {
      response_type: 'code',
      client_id: client.clientId,
      redirect_uri: receiver.redirectUri,
      scope: request.scope,
      resource: request.resource,
      state,
      code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
      ...(request.loginHint ? { login_hint: request.loginHint } : {}),
    });
    // Listening for this state before the browser opens: an approval that answers at once must find it.
    const waiting = receiver.next(state, request.waitMs, request.signal);
    waiting.catch(() => undefined);
    await showTheWay(request, url.href);
    const answer = await request.deadline.offTheClock(() => waiting);
    try {
      const callback = checkAuthorizationResponse(server, client, answer.params, state);
      const now = request.now ?? Date.now;
      const connectedAt = new Date(now()).toISOString();
      const grantOf = (refreshToken: string): StoredGrant => ({
        kind: 'oauth',
        version: 1,
        // Only the metadata fields the client uses are kept.
        server: z.object(storedServerSchema.shape).parse(server),
        apiUrl: config.apiUrl,
        resource: request.resource,
        clientId: client.clientId,
        ...(client.clientSecret !== undefined ? { clientSecret: client.clientSecret } : {}),
        scope: request.scope,
        refreshToken,
        generation: 1,
        rotatedAt: connectedAt,
        connectedAt,
        inboxDomain: config.inboxDomain,
      });
      await ensurePrivateDir(dir);
      // Under the renewal lock: no process of this directory renews with the old grant meanwhile.
      const tokens = await withDirectoryLock(
        dir,
        'oauth',
        async () => {
          let stored: StoredGrant | undefined;
          const issued = await exchangeCode(
            server,
            client,
            { callback, redirectUri: receiver.redirectUri, verifier, resource: request.resource, scope: request.scope },
            http,
            async (refreshToken) => {
              stored = grantOf(refreshToken);
              await store.writeGrant(stored);
            },
          );
          if (!stored)
            throw unexpectedAnswer('The token answer held no refresh token, so the connection could not be kept.');
          // The granted scope, which the person may have narrowed, is what the grant is.
          await store.writeGrant({ ...stored, scope: issued.scope });
          await store.writeAccessTokens({
            connectedAt,
            tokens: [
              {
                token: issued.accessToken,
                scope: issued.scope,
                expiresAt: now() + issued.expiresIn * 1000,
                lifetimeSeconds: issued.expiresIn,
              },
            ],
          });
          await store.clearRenewalJournal();
          return issued;
        },
        request.lock ?? {},
      );
      const list = await fetchInboxList(config.authUrl, tokens.accessToken, config.inboxDomain, http).catch(
        (error: unknown) => {
          request.log.warn(
            `The grant is stored, but the inbox list could not be read yet: ${toMailboxError(error).message}`,
          );
          return undefined;
        },
      );
      if (list) await store.writeInboxList(list);
      if (previous)
        await revokeGrant(previous, http).catch((error: unknown) =>
          request.log.warn(`The previous connection of ${dir} could not be revoked: ${toMailboxError(error).message}`),
        );
      answer.finish({ ok: true, message: 'agent-mailbox is connected to your account. You can close this window.' });
      return outcome(request, tokens, list, previous !== undefined);
    } catch (error) {
      answer.finish({ ok: false, message: `agent-mailbox could not connect: ${toMailboxError(error).message}` });
      throw error;
    }
  } finally {
    await receiver.close();
  }
}

/** The link on the operator's terminal, and the browser opened when one may be. */
async function showTheWay(request: ConnectRequest, link: string): Promise<void> {
  if (!request.openBrowser) {
    request.announce(`Open this link in a browser on this machine, sign in and approve:\n${link}`);
    return;
  }
  request.announce(`Opening your browser to sign in and approve. If it does not open, visit:\n${link}`);
  await request.openBrowser(link).catch((error: unknown) => {
    request.announce(`The browser could not be started (${(error as Error).message}); open the link above by hand.`);
  });
}

function outcome(
  request: ConnectRequest,
  tokens: IssuedTokens,
  list: StoredInboxList | undefined,
  reconnected: boolean,
): ConnectOutcome {
  const inboxes = (list?.inboxes ?? []).map((inbox) => ({
    address: inbox.address,
    accountId: inbox.accountId,
    isDefault: inbox.accountId === list?.defaultAccountId || list?.inboxes.length === 1,
  }));
  const chosen = inboxes.find((inbox) => inbox.isDefault);
  const canSend = tokens.scope.split(/\s+/).includes('mail.send');
  const next = [
    list
      ? `${inboxes.length} inbox${inboxes.length === 1 ? '' : 'es'} reachable${chosen ? `; calls without an inbox choice use ${chosen.address}` : '; none is the default, so every call names its inbox (list_inboxes shows them)'}.`
      : 'Run list_inboxes once the service answers, to see the inboxes.',
    canSend
      ? 'This grant can send mail. For an agent that only reads, connect with --scope read: the service itself then refuses every send.'
      : 'Read-only: the service refuses every send with this grant. To allow sending, run connect again with --scope read,send.',
    `The refresh token is stored in ${request.dir}/oauth.json (mode 0600) and rotates on every renewal; never copy it elsewhere (an old copy presented again ends the grant).`,
  ];
  if (!canSend && request.scope.includes('mail.send'))
    next.unshift('The person unticked mail.send on the consent page: this connection can only read.');
  return {
    credentialsDir: request.dir,
    scope: tokens.scope,
    requestedScope: request.scope,
    resource: request.resource,
    inboxes,
    ...(chosen ? { defaultInbox: chosen.address } : {}),
    reconnected,
    next,
  };
}
