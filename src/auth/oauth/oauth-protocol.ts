import * as oauth from 'oauth4webapi';
import * as z from 'zod';
import type { StoredGrant } from '../../credentials/oauth-grant-files.js';
import { MailboxError, settingRef } from '../../errors.js';
import type { HttpResponse } from '../../http/http-types.js';
import { isOriginAllowed } from '../../http/origin-rule.js';
import { jsonOrUndefined } from '../../http/parse-json-bytes.js';
import { unexpectedAnswer } from '../../http/service-error.js';
import { rememberSecret } from '../../redact.js';
import { gateFetch, oauthFailure, type OAuthHttp, type OAuthStep } from './oauth-http.js';

// A native app's OAuth 2.0 exchanges (RFC 8252) by oauth4webapi over the gate's sender: discovery (RFC 8414),
// registration (RFC 7591), PKCE (RFC 7636), resource (RFC 8707), rotation, revocation (RFC 7009), and our rules.
export type AuthorizationServer = oauth.AuthorizationServer;

/** The client as registered: public (none) or confidential (client_secret_post). */
interface RegisteredClient {
  clientId: string;
  clientSecret?: string;
}

export interface IssuedTokens {
  accessToken: string;
  /** Seconds (spec §2.2: its real lifetime). */
  expiresIn: number;
  /** Granted scopes (may be narrower than asked). */
  scope: string;
  refreshToken?: string;
}

/** Only loopback addresses may use plain http (the local sandbox); everything else must be https. */
export function insecureAllowed(url: string): boolean {
  const host = URL.canParse(url) ? new URL(url).hostname : undefined;
  return host === '127.0.0.1' || host === 'localhost' || host === '[::1]' || host === '::1';
}

function options(http: OAuthHttp, url: string, onAnswer?: (response: HttpResponse) => Promise<void>) {
  return {
    [oauth.customFetch]: gateFetch(http, onAnswer),
    ...(insecureAllowed(url) ? { [oauth.allowInsecureRequests]: true } : {}),
  };
}

// A stored grant is a RegisteredClient too: its clientId and clientSecret.
function clientOf(client: RegisteredClient): oauth.Client {
  return { client_id: client.clientId };
}

function authOf(client: RegisteredClient): oauth.ClientAuth {
  return client.clientSecret === undefined ? oauth.None() : oauth.ClientSecretPost(client.clientSecret);
}

async function step<T>(what: OAuthStep, where: string, run: () => Promise<T>): Promise<T> {
  try {
    return await run();
  } catch (error) {
    throw oauthFailure(error, what, where);
  }
}

/** Discovery; the issuer must be the auth URL, and every endpoint sent a secret must be on an allowed origin. */
export async function discoverServer(
  authUrl: string,
  http: OAuthHttp,
  allowedOrigins: readonly string[] = [],
): Promise<AuthorizationServer> {
  const issuer = new URL(authUrl);
  const server = await step('discovery', authUrl, async () =>
    oauth.processDiscoveryResponse(
      issuer,
      await oauth.discoveryRequest(issuer, { algorithm: 'oauth2', ...options(http, authUrl) }),
    ),
  );
  const credentialed = {
    token_endpoint: server.token_endpoint,
    registration_endpoint: server.registration_endpoint,
    revocation_endpoint: server.revocation_endpoint,
  };
  const foreign = Object.entries(credentialed).filter(
    ([, url]) => url !== undefined && !isOriginAllowed(url, issuer.origin, allowedOrigins),
  );
  if (foreign.length > 0)
    throw new MailboxError({
      code: 'bad_response',
      message: `The authorization server at ${issuer.origin} names another origin for ${foreign.map(([name, url]) => `${name} (${originOr(url)})`).join(', ')}; secrets go only to the configured origins, so nothing was sent there.`,
      hint: `Check ${settingRef('authUrl')}. If that origin really belongs to the service, the operator allows it with ${settingRef('allowedOrigins')}.`,
    });
  const lacks = [
    server.authorization_endpoint ? undefined : 'authorization_endpoint',
    server.registration_endpoint ? undefined : 'registration_endpoint',
    server.code_challenge_methods_supported && !server.code_challenge_methods_supported.includes('S256')
      ? 'PKCE S256'
      : undefined,
  ].filter((x): x is string => x !== undefined);
  if (lacks.length > 0)
    throw new MailboxError({
      code: 'bad_response',
      message: `The authorization server at ${authUrl} does not offer what connect needs: ${lacks.join(', ')}.`,
      hint: `Check that ${settingRef('authUrl')} points at the Agent Mailbox Service's auth host.`,
    });
  return server;
}

function originOr(url: string | undefined): string {
  return URL.canParse(url ?? '') ? new URL(url ?? '').origin : 'an unreadable URL';
}

/** Registers this run's client with its exact loopback redirect URI (RFC 7591; RFC 8252 §7.3, §8.4: a public client). */
export async function registerClient(
  server: AuthorizationServer,
  redirectUri: string,
  http: OAuthHttp,
): Promise<RegisteredClient> {
  const endpoint = server.registration_endpoint ?? '';
  const metadata = {
    client_name: 'agent-mailbox',
    redirect_uris: [redirectUri],
    token_endpoint_auth_method: 'none',
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code'],
    application_type: 'native',
  };
  const registered = await step('registration', endpoint, async () =>
    oauth.processDynamicClientRegistrationResponse(
      await oauth.dynamicClientRegistrationRequest(server, metadata, options(http, endpoint)),
    ),
  );
  const secret =
    typeof registered.client_secret === 'string' && registered.client_secret !== ''
      ? registered.client_secret
      : undefined;
  rememberSecret(secret);
  return { clientId: registered.client_id, ...(secret !== undefined ? { clientSecret: secret } : {}) };
}

/** The authorization response as the loopback listener received it, checked: state, then iss (RFC 9207), then error. */
export function checkAuthorizationResponse(
  server: AuthorizationServer,
  client: RegisteredClient,
  parameters: URLSearchParams,
  state: string,
): URLSearchParams {
  try {
    return oauth.validateAuthResponse(server, clientOf(client), parameters, state);
  } catch (error) {
    throw oauthFailure(error, 'authorization', server.issuer);
  }
}

const tokenFields = z.looseObject({ refresh_token: z.string().min(1).optional() });

/** Stores a 200 token answer's refresh token before any library check can fail: the only copy of the successor. */
function persistRefreshToken(persist: (refreshToken: string) => Promise<void>) {
  return async (response: HttpResponse): Promise<void> => {
    if (response.status !== 200) return;
    const token = tokenFields.safeParse(jsonOrUndefined(response)).data?.refresh_token;
    rememberSecret(token);
    if (token !== undefined) await persist(token);
  };
}

function issued(result: oauth.TokenEndpointResponse, askedScope: string): IssuedTokens {
  rememberSecret(result.access_token);
  if (typeof result.expires_in !== 'number' || result.expires_in <= 0)
    throw unexpectedAnswer('The token answer did not say how long the access token lives (expires_in).');
  return {
    accessToken: result.access_token,
    expiresIn: result.expires_in,
    scope: result.scope ?? askedScope,
    ...(result.refresh_token ? { refreshToken: result.refresh_token } : {}),
  };
}

/** Exchanges the code (PKCE verifier, same redirect URI, the resource); `persist` stores the refresh token first. */
export async function exchangeCode(
  server: AuthorizationServer,
  client: RegisteredClient,
  request: { callback: URLSearchParams; redirectUri: string; verifier: string; resource: string; scope: string },
  http: OAuthHttp,
  persist: (refreshToken: string) => Promise<void>,
): Promise<IssuedTokens> {
  return step('code exchange', server.token_endpoint ?? server.issuer, async () => {
    const response = await oauth.authorizationCodeGrantRequest(
      server,
      clientOf(client),
      authOf(client),
      request.callback,
      request.redirectUri,
      request.verifier,
      {
        additionalParameters: { resource: request.resource },
        ...options(http, server.token_endpoint ?? server.issuer, persistRefreshToken(persist)),
      },
    );
    return issued(await oauth.processAuthorizationCodeResponse(server, clientOf(client), response), request.scope);
  });
}

/** One refresh (rotation); `scope` narrows the access token (RFC 6749 §6); `persist` stores the new refresh token first. */
export async function refreshGrant(
  grant: StoredGrant,
  scope: string | undefined,
  http: OAuthHttp,
  persist: (refreshToken: string) => Promise<void>,
): Promise<IssuedTokens> {
  const server = grant.server as AuthorizationServer;
  return step('renewal', grant.server.token_endpoint, async () => {
    const response = await oauth.refreshTokenGrantRequest(server, clientOf(grant), authOf(grant), grant.refreshToken, {
      ...(scope !== undefined ? { additionalParameters: { scope } } : {}),
      ...options(http, grant.server.token_endpoint, persistRefreshToken(persist)),
    });
    return issued(await oauth.processRefreshTokenResponse(server, clientOf(grant), response), scope ?? grant.scope);
  });
}

/** Revokes the grant by its refresh token (RFC 7009: 200 even for a token the server does not know). */
export async function revokeGrant(grant: StoredGrant, http: OAuthHttp): Promise<void> {
  const endpoint = grant.server.revocation_endpoint;
  if (!endpoint)
    throw new MailboxError({
      code: 'oauth_failed',
      message: 'The authorization server offers no revocation endpoint, so the grant cannot be ended from here.',
      hint: "The person revokes the connection in the service's dashboard; then disconnect --local-only removes the files.",
    });
  await step('revocation', endpoint, async () =>
    oauth.processRevocationResponse(
      await oauth.revocationRequest(
        grant.server as AuthorizationServer,
        clientOf(grant),
        authOf(grant),
        grant.refreshToken,
        {
          additionalParameters: { token_type_hint: 'refresh_token' },
          ...options(http, endpoint),
        },
      ),
    ),
  );
}
