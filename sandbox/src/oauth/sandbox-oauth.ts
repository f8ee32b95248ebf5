import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AccountStore } from '../auth/account-store.js';
import type { RateLimit } from '../auth/rate-limiter.js';
import type { SigningKey } from '../auth/signing-key.js';
import { TokenService, type TokenLifetimes } from '../auth/token-service.js';
import type { AutoApproveSpec } from './accounts/auto-approve.js';
import {
  createOAuthHost,
  defaultAccessTokenSeconds,
  defaultRegistrationRateLimit,
  type OAuthHost,
} from './create-oauth-host.js';
import { guardJmapWithOAuth } from './jmap-token-check.js';
import { oauthPaths } from './oauth-paths.js';

type Handler = (req: IncomingMessage, res: ServerResponse) => void;

/** The sandbox's OAuth settings (`SandboxOptions.oauth`). */
export interface SandboxOAuthOptions {
  /** Access token lifetime in seconds (default 900, spec §8). */
  accessTokenSeconds?: number;
  /** People whose authorizations are approved at once, each owning the inboxes named (created if new). */
  autoApprove?: AutoApproveSpec[];
  /** Token bucket per remote address on POST /oauth/register; `false` turns it off. */
  registrationRateLimit?: RateLimit | false;
  /** Test-only: accept http://127.0.0.1 client_id URLs for client metadata documents. */
  allowLoopbackClientIdUrls?: boolean;
  /** Deadline of a client metadata document fetch, in milliseconds (default 5000). */
  clientDocumentTimeoutMs?: number;
}

/** What the OAuth side needs from the sandbox around it. */
export interface SandboxOAuthDeps {
  options: SandboxOAuthOptions;
  /** Keeps the OAuth key, clients, grants and people; in memory when absent. */
  dataDir?: string;
  domain: string;
  authUrl(): string;
  apiUrl(): string;
  /** `{mcp_url}` of the hosted MCP server, when there is one. */
  mcpUrl(): string | undefined;
  accounts: AccountStore;
  /** The proof-of-work key: the capability the gate mints for the mail store is the one that path uses. */
  powKey: SigningKey;
  lifetimes: TokenLifetimes;
  createInbox(address: string): Promise<void>;
  now(): number;
  log(line: string): void;
}

/** What a client of the OAuth path needs to know about the sandbox (RunningSandbox.oauth, the --json line). */
export interface SandboxOAuthInfo {
  /** GET it for the authorization server metadata (RFC 8414). */
  metadataUrl: string;
  issuer: string;
  /** The resource parameter for JMAP access (spec §4.1). */
  jmapResource: string;
  accessTokenSeconds: number;
  /** The people --oauth-auto-approve set up, with the inboxes named for them (the first is the default). */
  autoApproved: Array<{ person: string; personId: string; inboxes: Array<{ accountId: string; address: string }> }>;
}

/** The OAuth authorization server and the JMAP gate, as start-sandbox plugs them in. */
export interface SandboxOAuth {
  host: OAuthHost;
  /** The client's view, once both hosts listen. */
  info(): SandboxOAuthInfo;
  /** Creates a signed-up inbox in the mail store and gives it its UUID. */
  createSignedUpInbox(address: string): Promise<void>;
  /** The auth host's handler with the OAuth endpoints in front of the proof-of-work ones. */
  frontAuthHost(powHost: Handler): Handler;
  /** The JMAP host's handler with the OAuth token check (spec §4.2) in front of the mail store. */
  frontJmapHost(mailStore: Handler): Handler;
}

/** Builds the OAuth side of the sandbox. */
export async function attachOAuth(deps: SandboxOAuthDeps): Promise<SandboxOAuth> {
  const accessTokenSeconds = deps.options.accessTokenSeconds ?? defaultAccessTokenSeconds;
  const host = await createOAuthHost({
    ...(deps.dataDir === undefined ? {} : { dataDir: deps.dataDir }),
    domain: deps.domain,
    issuer: deps.authUrl,
    resources: { jmap: () => `${deps.apiUrl()}/jmap`, mcp: () => mcpResourceOf(deps.mcpUrl()) },
    accounts: deps.accounts,
    createInbox: deps.createInbox,
    powPublicJwk: deps.powKey.publicJwk,
    accessTokenSeconds,
    ...(deps.options.autoApprove === undefined ? {} : { autoApprove: deps.options.autoApprove }),
    registrationRateLimit: deps.options.registrationRateLimit ?? defaultRegistrationRateLimit,
    allowLoopbackClientIdUrls: deps.options.allowLoopbackClientIdUrls ?? false,
    ...(deps.options.clientDocumentTimeoutMs === undefined
      ? {}
      : { clientDocumentTimeoutMs: deps.options.clientDocumentTimeoutMs }),
    now: deps.now,
    log: deps.log,
  });
  const capabilities = new TokenService(deps.powKey, deps.lifetimes, deps.now);
  return {
    host,
    info: () => ({
      metadataUrl: metadataUrlOf(deps.authUrl()),
      issuer: deps.authUrl(),
      jmapResource: `${deps.apiUrl()}/jmap`,
      accessTokenSeconds,
      autoApproved: host.autoApproved.map((person) => ({
        person: person.name,
        personId: person.personId,
        inboxes: person.accountIds.flatMap((accountId) => {
          const inbox = host.directory.inbox(accountId);
          return inbox ? [{ accountId, address: inbox.address }] : [];
        }),
      })),
    }),
    async createSignedUpInbox(address) {
      await deps.createInbox(address);
      await host.directory.addInbox(address);
    },
    frontAuthHost: (powHost) => (req, res) => {
      const target = req.url ?? '/';
      const path = URL.canParse(target, 'http://sandbox.invalid')
        ? new URL(target, 'http://sandbox.invalid').pathname
        : undefined;
      (path !== undefined && host.handles(path) ? host.handle : powHost)(req, res);
    },
    frontJmapHost: (mailStore) =>
      guardJmapWithOAuth(
        {
          verifyAccessToken: host.verifyAccessToken,
          directory: host.directory,
          jmapResource: () => `${deps.apiUrl()}/jmap`,
          mintCapability: (address) => capabilities.issueCapability(address),
        },
        mailStore,
      ),
  };
}

/** `{mcp_url}/mcp`, the hosted MCP server's resource (spec §2.4). */
export function mcpResourceOf(mcpUrl: string | undefined): string | undefined {
  return mcpUrl === undefined ? undefined : `${mcpUrl.replace(/\/+$/, '')}/mcp`;
}

/** The metadata URL a client starts from (RFC 8414 §3). */
export function metadataUrlOf(authUrl: string): string {
  return `${authUrl}${oauthPaths.metadata}`;
}
