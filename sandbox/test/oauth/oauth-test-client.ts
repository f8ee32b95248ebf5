import { createHash, randomBytes } from 'node:crypto';
import type { RunningSandbox } from '../../src/start-sandbox.js';
import { jmapCapabilities } from '../../src/wire-constants.js';

/** A PKCE pair (RFC 7636 §4.1–4.2), S256. */
export interface Pkce {
  verifier: string;
  challenge: string;
}

/** A fresh verifier and its S256 challenge. */
export function pkce(): Pkce {
  const verifier = randomBytes(32).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

/** A registered client as the tests use it. */
export interface TestClient {
  clientId: string;
  clientSecret?: string;
  redirectUri: string;
}

/** The loopback redirect URI tests register (nothing listens there: the code is read from Location). */
export const testRedirectUri = 'http://127.0.0.1:49152/callback';

/** POST /oauth/register; returns status and body. */
export async function register(
  authUrl: string,
  metadata: unknown,
): Promise<{ status: number; body: Record<string, unknown>; headers: Headers }> {
  const response = await fetch(`${authUrl}/oauth/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(metadata),
  });
  return {
    status: response.status,
    body: (await response.json()) as Record<string, unknown>,
    headers: response.headers,
  };
}

/** Registers a public client (or a confidential one with `client_secret_post`). */
export async function registerClient(authUrl: string, overrides: Record<string, unknown> = {}): Promise<TestClient> {
  const metadata = {
    redirect_uris: [testRedirectUri],
    token_endpoint_auth_method: 'none',
    client_name: 'Test client',
    ...overrides,
  };
  const { status, body } = await register(authUrl, metadata);
  if (status !== 201) throw new Error(`registration answered ${status}: ${JSON.stringify(body)}`);
  const redirectUris = body['redirect_uris'] as string[];
  return {
    clientId: String(body['client_id']),
    redirectUri: redirectUris[0] ?? testRedirectUri,
    ...(typeof body['client_secret'] === 'string' ? { clientSecret: body['client_secret'] } : {}),
  };
}

/** The query of an authorization request, every parameter overridable (undefined leaves one out). */
export function authorizeParams(
  sandbox: RunningSandbox,
  client: TestClient,
  challenge: string,
  overrides: Record<string, string | undefined> = {},
): URLSearchParams {
  const params: Record<string, string | undefined> = {
    response_type: 'code',
    client_id: client.clientId,
    redirect_uri: client.redirectUri,
    scope: 'mail.read mail.send',
    resource: sandbox.oauth.jmapResource,
    state: randomBytes(8).toString('hex'),
    code_challenge: challenge,
    code_challenge_method: 'S256',
    ...overrides,
  };
  return new URLSearchParams(
    Object.entries(params).filter((entry): entry is [string, string] => entry[1] !== undefined),
  );
}

/** GET /oauth/authorize without following redirects. */
export async function authorize(
  sandbox: RunningSandbox,
  query: URLSearchParams | string,
): Promise<{ status: number; location: URL | undefined; body: string; headers: Headers }> {
  const response = await fetch(`${sandbox.authUrl}/oauth/authorize?${query.toString()}`, { redirect: 'manual' });
  const location = response.headers.get('location');
  return {
    status: response.status,
    location: location === null ? undefined : new URL(location),
    body: await response.text(),
    headers: response.headers,
  };
}

/** POST /oauth/token (or /oauth/revoke) with form fields; returns status and the parsed body. */
export async function postForm(
  url: string,
  fields: Record<string, string>,
): Promise<{ status: number; body: Record<string, unknown>; headers: Headers }> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(fields).toString(),
  });
  const text = await response.text();
  return {
    status: response.status,
    body: text === '' ? {} : (JSON.parse(text) as Record<string, unknown>),
    headers: response.headers,
  };
}

/** A token response. */
export interface Tokens {
  access_token: string;
  refresh_token: string;
  expires_in: number;
  scope: string;
  token_type: string;
}

/** Authorizes with --oauth-auto-approve (no page) and returns the code. */
export async function autoApprovedCode(
  sandbox: RunningSandbox,
  client: TestClient,
  pair: Pkce,
  overrides: Record<string, string | undefined> = {},
): Promise<string> {
  const params = authorizeParams(sandbox, client, pair.challenge, overrides);
  const { status, location } = await authorize(sandbox, params);
  const code = location?.searchParams.get('code');
  if (status !== 302 || !code) throw new Error(`authorization answered ${status} ${location?.toString() ?? ''}`);
  return code;
}

/** Exchanges a code; fails loudly unless 200. */
export async function exchange(
  sandbox: RunningSandbox,
  client: TestClient,
  code: string,
  verifier: string,
): Promise<Tokens> {
  const { status, body } = await postForm(`${sandbox.authUrl}/oauth/token`, {
    grant_type: 'authorization_code',
    code,
    redirect_uri: client.redirectUri,
    client_id: client.clientId,
    code_verifier: verifier,
    ...(client.clientSecret === undefined ? {} : { client_secret: client.clientSecret }),
  });
  if (status !== 200) throw new Error(`token answered ${status}: ${JSON.stringify(body)}`);
  return body as unknown as Tokens;
}

/** Register, auto-approve, exchange: tokens for a fresh client. */
export async function connect(
  sandbox: RunningSandbox,
  overrides: Record<string, string | undefined> = {},
  clientMetadata: Record<string, unknown> = {},
): Promise<{ client: TestClient; tokens: Tokens }> {
  const client = await registerClient(sandbox.authUrl, clientMetadata);
  const pair = pkce();
  const code = await autoApprovedCode(sandbox, client, pair, overrides);
  return { client, tokens: await exchange(sandbox, client, code, pair.verifier) };
}

/** Refreshes; returns status and body. */
export function refresh(
  sandbox: RunningSandbox,
  client: TestClient,
  refreshToken: string,
  extra: Record<string, string> = {},
): Promise<{ status: number; body: Record<string, unknown> }> {
  return postForm(`${sandbox.authUrl}/oauth/token`, {
    grant_type: 'refresh_token',
    refresh_token: refreshToken,
    client_id: client.clientId,
    ...(client.clientSecret === undefined ? {} : { client_secret: client.clientSecret }),
    ...extra,
  });
}

/** GET /api/v1/agents with a bearer. */
export async function listAgents(
  authUrl: string,
  accessToken: string | undefined,
): Promise<{ status: number; body: Record<string, unknown>; headers: Headers }> {
  const response = await fetch(
    `${authUrl}/api/v1/agents`,
    accessToken === undefined ? {} : { headers: { authorization: `Bearer ${accessToken}` } },
  );
  return {
    status: response.status,
    body: (await response.json()) as Record<string, unknown>,
    headers: response.headers,
  };
}

/** The using list of a read-and-send request. */
export const mailUsing = [jmapCapabilities.core, jmapCapabilities.mail, jmapCapabilities.submission];

export type MethodCall = [string, Record<string, unknown>, string];

/** A JMAP request on the OAuth path: the token and (unless undefined) X-Service-Account-Id. */
export async function jmapAs(
  apiUrl: string,
  accessToken: string,
  accountId: string | undefined,
  methodCalls: MethodCall[],
  using: string[] = mailUsing,
): Promise<{ status: number; body: Record<string, unknown>; headers: Headers }> {
  const response = await fetch(apiUrl, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${accessToken}`,
      'content-type': 'application/json',
      ...(accountId === undefined ? {} : { 'x-service-account-id': accountId }),
    },
    body: JSON.stringify({ using, methodCalls }),
  });
  const text = await response.text();
  return { status: response.status, body: JSON.parse(text) as Record<string, unknown>, headers: response.headers };
}

/** The arguments of the response to call `id`, failing on a method error. */
export function resultOf(body: Record<string, unknown>, id: string): Record<string, unknown> {
  const responses = body['methodResponses'] as MethodCall[] | undefined;
  const found = responses?.find((response) => response[2] === id);
  if (!found) throw new Error(`no response ${id}: ${JSON.stringify(body)}`);
  if (found[0] === 'error') throw new Error(`call ${id} failed: ${JSON.stringify(found[1])}`);
  return found[1];
}

/** The method calls of a plain-text send from `from` to `to`: draft in Drafts, then submission. */
export function sendCalls(from: string, to: string, drafts: string, subject: string): MethodCall[] {
  return [
    [
      'Email/set',
      {
        create: {
          d: {
            mailboxIds: { [drafts]: true },
            keywords: { $draft: true, $seen: true },
            from: [{ email: from }],
            to: [{ email: to }],
            subject,
            bodyValues: { b: { value: 'hello' } },
            textBody: [{ partId: 'b', type: 'text/plain' }],
          },
        },
      },
      'e',
    ],
    ['EmailSubmission/set', { create: { s: { emailId: '#d', identityId: from } } }, 's'],
  ];
}
