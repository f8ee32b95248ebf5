import type { ClientRecord } from '../clients/client-registry.js';
import { parseScopeParameter, type OAuthScope } from '../oauth-scopes.js';
import { resourceTargetOf, type ResourceIdentifiers, type ResourceTarget } from '../resource-indicators.js';

/** A valid request to GET /oauth/authorize (spec §4.1). */
export interface AuthorizationRequest {
  client: ClientRecord;
  redirectUri: string;
  state: string;
  scopes: OAuthScope[];
  resource: string;
  target: ResourceTarget;
  codeChallenge: string;
  /** Which auto-approved person to sign in (OpenID Connect's login_hint, reused for the same purpose). */
  loginHint?: string;
  /** The request's query string, to come back to after sign-in. */
  query: string;
}

/**
 * The verdict on an authorization request. Until client and redirect URI are known good, an error
 * can only be shown on a page; after that it goes back to the client (RFC 6749 §4.1.2.1).
 */
export type AuthorizationCheck =
  | { ok: true; request: AuthorizationRequest }
  | { ok: false; display: 'page'; message: string; hint: string }
  | { ok: false; display: 'redirect'; redirectUri: string; error: string; description: string; state?: string };

/** How the endpoint finds a client: registered, or by its metadata document. */
export type ClientLookup = (clientId: string) => Promise<{ client: ClientRecord } | { problem: string }>;

const askTheApp =
  'Go back to the application and start the connection again; if this repeats, its developer must fix its OAuth settings.';
const knownParams = [
  'response_type',
  'client_id',
  'redirect_uri',
  'scope',
  'resource',
  'state',
  'code_challenge',
  'code_challenge_method',
  'login_hint',
];

/** Checks an authorization request in the order RFC 6749 §4.1.2.1 requires. */
export async function checkAuthorizationRequest(
  query: URLSearchParams,
  findClient: ClientLookup,
  resources: ResourceIdentifiers,
): Promise<AuthorizationCheck> {
  const clientIds = query.getAll('client_id');
  const clientId = clientIds[0];
  if (clientIds.length !== 1 || !clientId) {
    return {
      ok: false,
      display: 'page',
      message:
        clientIds.length > 1
          ? 'The request names client_id more than once.'
          : 'The request names no client (client_id is missing).',
      hint: askTheApp,
    };
  }
  const found = await findClient(clientId);
  if ('problem' in found) return { ok: false, display: 'page', message: found.problem, hint: askTheApp };
  const { client } = found;
  const redirectUris = query.getAll('redirect_uri');
  const redirectUri = redirectUris[0];
  if (redirectUris.length !== 1 || !redirectUri) {
    return {
      ok: false,
      display: 'page',
      message:
        redirectUris.length > 1 ? 'The request names redirect_uri more than once.' : 'The request has no redirect_uri.',
      hint: askTheApp,
    };
  }
  if (!client.redirectUris.includes(redirectUri)) {
    return {
      ok: false,
      display: 'page',
      message: `The redirect URI ${redirectUri.slice(0, 200)} is not registered for this application.`,
      hint: `${askTheApp} Redirect URIs are compared as exact strings, port and trailing slash included.`,
    };
  }

  const states = query.getAll('state');
  const state = states.length === 1 && states[0] !== '' ? states[0] : undefined;
  const refuse = (error: string, description: string): AuthorizationCheck => ({
    ok: false,
    display: 'redirect',
    redirectUri,
    error,
    description,
    ...(state === undefined ? {} : { state }),
  });
  const repeated = knownParams.find((name) => query.getAll(name).length > 1);
  if (repeated) return refuse('invalid_request', `The parameter ${repeated} is given more than once.`);
  const param = (name: string): string | undefined => query.get(name) || undefined;

  const responseType = param('response_type');
  if (responseType === undefined) return refuse('invalid_request', 'response_type is missing; it must be code.');
  if (responseType !== 'code') return refuse('unsupported_response_type', 'Only response_type=code is supported.');
  if (state === undefined)
    return refuse(
      'invalid_request',
      'state is missing; send an unguessable value and check it when the browser comes back.',
    );
  const codeChallenge = param('code_challenge');
  if (codeChallenge === undefined)
    return refuse('invalid_request', 'code_challenge is missing; PKCE with S256 is required.');
  const method = param('code_challenge_method');
  if (method !== 'S256')
    return refuse(
      'invalid_request',
      `code_challenge_method must be S256${method === undefined ? ' (it is missing)' : `, not ${method.slice(0, 20)}`}; plain is not accepted.`,
    );
  if (!/^[A-Za-z0-9_-]{43}$/.test(codeChallenge))
    return refuse('invalid_request', 'code_challenge must be BASE64URL(SHA256(code_verifier)): 43 characters.');

  const scopeText = param('scope');
  if (scopeText === undefined)
    return refuse('invalid_scope', 'scope is missing; ask for mail.read, mail.send or both.');
  const scope = parseScopeParameter(scopeText);
  if ('unknown' in scope)
    return refuse(
      'invalid_scope',
      `Unknown scope ${scope.unknown.join(' ').slice(0, 100)}; the scopes are mail.read and mail.send.`,
    );
  if (scope.scopes.length === 0)
    return refuse('invalid_scope', 'scope names no scope; ask for mail.read, mail.send or both.');
  const beyond = client.scopes === undefined ? [] : scope.scopes.filter((s) => !client.scopes?.includes(s));
  if (beyond.length > 0) return refuse('invalid_scope', `This client registered without ${beyond.join(' ')}.`);

  const resource = param('resource');
  if (resource === undefined) return refuse('invalid_request', `resource is missing; use ${resources.jmap()}.`);
  const target = resourceTargetOf(resource, resources);
  if (!target)
    return refuse(
      'invalid_request',
      `resource ${resource.slice(0, 200)} is not a resource of this service; use exactly ${resources.jmap()}${resources.mcp() === undefined ? '' : `, ${resources.mcp()}`} or urn:service:agent:<accountId>.`,
    );

  const loginHint = param('login_hint');
  return {
    ok: true,
    request: {
      client,
      redirectUri,
      state,
      scopes: scope.scopes,
      resource,
      target,
      codeChallenge,
      query: query.toString(),
      ...(loginHint === undefined ? {} : { loginHint }),
    },
  };
}

/** The redirect that ends an authorization: code or error, with state and iss (RFC 6749 §4.1.2, RFC 9207). */
export function authorizationRedirect(
  redirectUri: string,
  issuer: string,
  fields: Record<string, string | undefined>,
): string {
  const url = new URL(redirectUri);
  for (const [name, value] of Object.entries(fields)) if (value !== undefined) url.searchParams.set(name, value);
  url.searchParams.set('iss', issuer);
  return url.toString();
}
