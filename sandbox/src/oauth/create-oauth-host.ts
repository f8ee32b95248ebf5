import type { IncomingMessage, ServerResponse } from 'node:http';
import type { JWK } from 'jose';
import type { AccountStore } from '../auth/account-store.js';
import { AuthFailure, sendFailure, sendJson } from '../auth/auth-http.js';
import type { RateLimit } from '../auth/rate-limiter.js';
import { loadOrCreateSigningKey } from '../auth/signing-key.js';
import { AccessTokens, type AccessClaims } from './grants/access-tokens.js';
import { AccountDirectory } from './accounts/account-directory.js';
import { AddressRateLimiter } from './clients/address-rate-limiter.js';
import { handleAgents } from './accounts/agents-endpoint.js';
import { AuthorizationCodes } from './grants/authorization-codes.js';
import { handleAuthorize } from './browser/authorize-endpoint.js';
import { provisionAutoApprove, type AutoApproveSpec } from './accounts/auto-approve.js';
import { BrowserSessions } from './browser/browser-sessions.js';
import { ClientMetadataDocuments, defaultClientDocumentTimeoutMs } from './clients/client-metadata-documents.js';
import { ClientRegistry } from './clients/client-registry.js';
import { handleConsent, handleSignIn, handleSignOut } from './browser/consent-endpoint.js';
import { pagePaths } from './browser/consent-pages.js';
import { GrantStore } from './grants/grant-store.js';
import { handleGrantsPage, handleRevokeGrant } from './browser/grants-page.js';
import { errorPage, sendHtml } from './browser/html-page.js';
import { OAuthFailure, sendOAuthFailure } from './oauth-failure.js';
import type { AutoApprovedPerson, OAuthHostContext } from './oauth-host-context.js';
import { oauthPaths, serverMetadata } from './oauth-paths.js';
import { handleRegister } from './clients/registration-endpoint.js';
import type { ResourceIdentifiers } from './resource-indicators.js';
import { handleRevoke } from './grants/revocation-endpoint.js';
import { handleToken } from './grants/token-endpoint.js';

/** Access tokens live 15 minutes unless told otherwise (spec §8). */
export const defaultAccessTokenSeconds = 900;

/** Registrations per address: a burst of 30, then one every two seconds. */
export const defaultRegistrationRateLimit: RateLimit = { capacity: 30, refillPerSecond: 0.5 };

export interface OAuthHostOptions {
  /** Keeps the OAuth key, clients, grants and the people directory; in memory when absent. */
  dataDir?: string;
  domain: string;
  issuer(): string;
  resources: ResourceIdentifiers;
  /** The proof-of-work account store: a person's inbox is entered there too, so no sign-up can take its name. */
  accounts: AccountStore;
  createInbox(address: string): Promise<void>;
  /** The proof-of-work key's public half, served in the same JWKS. */
  powPublicJwk: JWK;
  accessTokenSeconds: number;
  autoApprove?: readonly AutoApproveSpec[];
  registrationRateLimit: RateLimit | false;
  allowLoopbackClientIdUrls: boolean;
  clientDocumentTimeoutMs?: number;
  now(): number;
  log(line: string): void;
}

/** The authorization server as the rest of the sandbox sees it. */
export interface OAuthHost {
  /** Whether a path of the auth host is this server's. */
  handles(path: string): boolean;
  handle(req: IncomingMessage, res: ServerResponse): void;
  /** People, inboxes and their UUIDs. */
  directory: AccountDirectory;
  /** Verifies an access token for the resources `isAccepted` allows (the JMAP gate, later the hosted MCP server). */
  verifyAccessToken(token: string, isAccepted: (audience: string) => boolean): Promise<AccessClaims>;
  /** The people --oauth-auto-approve set up, with their default inboxes. */
  autoApproved: readonly AutoApprovedPerson[];
}

/** Builds the OAuth authorization server of the sandbox (spec §2.3, §3, §4.1, §5). */
export async function createOAuthHost(options: OAuthHostOptions): Promise<OAuthHost> {
  const { now } = options;
  const key = await loadOrCreateSigningKey(options.dataDir);
  const directory = await AccountDirectory.open(options.dataDir, now);
  const grants = await GrantStore.open(options.dataDir);
  const provisioner = {
    domain: options.domain,
    accounts: options.accounts,
    directory,
    createInbox: options.createInbox,
  };
  const autoApproved =
    options.autoApprove && options.autoApprove.length > 0
      ? await provisionAutoApprove(provisioner, options.autoApprove)
      : undefined;
  const ctx: OAuthHostContext = {
    issuer: options.issuer,
    resources: options.resources,
    domain: options.domain,
    now,
    directory,
    clients: await ClientRegistry.open(options.dataDir),
    documents: new ClientMetadataDocuments({
      allowLoopbackHttp: options.allowLoopbackClientIdUrls,
      timeoutMs: options.clientDocumentTimeoutMs ?? defaultClientDocumentTimeoutMs,
      now,
    }),
    grants,
    codes: new AuthorizationCodes(now),
    tokens: new AccessTokens(key, options.issuer, grants, options.accessTokenSeconds, now),
    browsers: new BrowserSessions(now),
    provisioner,
    autoApprove: autoApproved,
    registrationLimiter:
      options.registrationRateLimit === false ? undefined : new AddressRateLimiter(options.registrationRateLimit, now),
    log: options.log,
  };
  const jwks = { keys: [options.powPublicJwk, key.publicJwk] };

  const routes: Record<
    string,
    Partial<Record<'GET' | 'POST', (req: IncomingMessage, res: ServerResponse, url: URL) => Promise<void> | void>>
  > = {
    [oauthPaths.metadata]: { GET: (_req, res) => sendJson(res, 200, serverMetadata(ctx.issuer())) },
    [oauthPaths.jwks]: { GET: (_req, res) => sendJson(res, 200, jwks) },
    [oauthPaths.authorize]: { GET: (req, res, url) => handleAuthorize(ctx, req, res, url) },
    [oauthPaths.token]: { POST: (req, res) => handleToken(ctx, req, res) },
    [oauthPaths.revoke]: { POST: (req, res) => handleRevoke(ctx, req, res) },
    [oauthPaths.register]: { POST: (req, res) => handleRegister(ctx, req, res) },
    [oauthPaths.agents]: { GET: (req, res) => handleAgents(ctx, req, res) },
    [pagePaths.signIn]: { POST: (req, res) => handleSignIn(ctx, req, res) },
    [pagePaths.signOut]: { POST: (req, res) => handleSignOut(ctx, req, res) },
    [pagePaths.consent]: { POST: (req, res) => handleConsent(ctx, req, res) },
    [pagePaths.grants]: { GET: (req, res) => handleGrantsPage(ctx, req, res) },
    [pagePaths.revokeGrant]: { POST: (req, res) => handleRevokeGrant(ctx, req, res) },
  };

  const route = async (req: IncomingMessage, res: ServerResponse): Promise<void> => {
    const url = new URL(req.url ?? '/', 'http://sandbox.invalid');
    const method = req.method ?? 'GET';
    const endpoint = routes[url.pathname];
    const handler = endpoint?.[method as 'GET' | 'POST'];
    if (handler) return handler(req, res, url);
    req.resume();
    // Spec §4.1: the authorization endpoint is GET only, and anything else there is 404, not 405.
    if (!endpoint || url.pathname === oauthPaths.authorize) {
      throw new AuthFailure(
        404,
        `No endpoint ${method} ${url.pathname} on this auth host.`,
        `The OAuth endpoints are listed at GET ${oauthPaths.metadata}.`,
      );
    }
    const allowed = Object.keys(endpoint).join(', ');
    throw new OAuthFailure(
      405,
      'invalid_request',
      `Method ${method} is not allowed on ${url.pathname}; use ${allowed}.`,
      { allow: allowed },
    );
  };

  return {
    handles: (path) => path in routes || path.startsWith('/oauth/'),
    handle(req, res) {
      route(req, res).catch((error: unknown) => {
        if (res.headersSent) return void res.destroy();
        req.resume();
        if (error instanceof OAuthFailure) return sendOAuthFailure(res, error);
        if (error instanceof AuthFailure) return sendFailure(res, error);
        options.log(
          `sandbox oauth: internal error on ${req.method} ${new URL(req.url ?? '/', 'http://sandbox.invalid').pathname}: ${error instanceof Error ? error.stack : String(error)}`,
        );
        if ((req.headers.accept ?? '').includes('text/html'))
          return sendHtml(
            res,
            500,
            errorPage(
              'Something went wrong',
              'The sandbox authorization server failed unexpectedly.',
              'Try again; if it repeats, check the sandbox log on stderr.',
            ),
          );
        sendOAuthFailure(
          res,
          new OAuthFailure(
            500,
            'server_error',
            'The sandbox authorization server failed unexpectedly; the sandbox log on stderr has the details.',
          ),
        );
      });
    },
    directory,
    verifyAccessToken: (token, isAccepted) => ctx.tokens.verify(token, isAccepted),
    autoApproved: autoApproved ?? [],
  };
}
