import { describe, expect, it } from 'vitest';
import { startTestSandbox } from '../helpers/sandbox.js';
import {
  authorize,
  authorizeParams,
  pkce,
  registerClient,
  testRedirectUri,
  type TestClient,
} from './oauth-test-client.js';

const mcpUrl = 'http://127.0.0.1:9/hosted';
const sandbox = await startTestSandbox({
  mcpUrl,
  oauth: {
    autoApprove: [
      { person: 'Ada', inboxes: ['ada-inbox', 'ada-second'] },
      { person: 'Bob', inboxes: ['bob-inbox'] },
    ],
  },
});
const client: TestClient = await registerClient(sandbox.authUrl);
const { challenge } = pkce();

/** Authorizes with one parameter changed; the redirect's query as a plain object. */
async function redirectedWith(overrides: Record<string, string | undefined>): Promise<Record<string, string>> {
  const { status, location } = await authorize(
    sandbox,
    authorizeParams(sandbox, client, challenge, { state: 'st-1', ...overrides }),
  );
  expect(status).toBe(302);
  expect(location?.origin + (location?.pathname ?? '')).toBe(testRedirectUri);
  return Object.fromEntries(location?.searchParams ?? []);
}

describe('GET /oauth/authorize: what goes back to the client (RFC 6749 §4.1.2, RFC 9207)', () => {
  it('answers a valid request with code, the unchanged state and iss', async () => {
    const query = await redirectedWith({ state: 'a b/c?d=é' });
    expect(query).toEqual({
      code: expect.stringMatching(/^[A-Za-z0-9_-]{43}$/),
      state: 'a b/c?d=é',
      iss: sandbox.authUrl,
    });
  });

  it('refuses a POST with 404, not 405 (spec §4.1)', async () => {
    const response = await fetch(
      `${sandbox.authUrl}/oauth/authorize?${authorizeParams(sandbox, client, challenge).toString()}`,
      { method: 'POST' },
    );
    expect(response.status).toBe(404);
    expect(response.headers.get('location')).toBeNull();
  });

  it.each([
    ['code_challenge_method plain', { code_challenge_method: 'plain' }, 'invalid_request'],
    ['no code_challenge_method', { code_challenge_method: undefined }, 'invalid_request'],
    ['no code_challenge', { code_challenge: undefined }, 'invalid_request'],
    ['a code_challenge that is no S256 digest', { code_challenge: 'short' }, 'invalid_request'],
    ['no resource', { resource: undefined }, 'invalid_request'],
    ['a resource with a trailing slash', { resource: `${sandbox.oauth.jmapResource}/` }, 'invalid_request'],
    ['a resource over https', { resource: sandbox.oauth.jmapResource.replace('http:', 'https:') }, 'invalid_request'],
    [
      'a resource on localhost instead of 127.0.0.1',
      { resource: sandbox.oauth.jmapResource.replace('127.0.0.1', 'localhost') },
      'invalid_request',
    ],
    ['a resource on another host', { resource: 'http://example.test/jmap' }, 'invalid_request'],
    [
      'a resource in another case',
      { resource: sandbox.oauth.jmapResource.replace('/jmap', '/JMAP') },
      'invalid_request',
    ],
    ['an inbox resource that is no UUID', { resource: 'urn:service:agent:ada-inbox' }, 'invalid_request'],
    ['no response_type', { response_type: undefined }, 'invalid_request'],
    ['response_type token', { response_type: 'token' }, 'unsupported_response_type'],
    ['an unknown scope', { scope: 'mail.read mail.delete' }, 'invalid_scope'],
    ['no scope', { scope: undefined }, 'invalid_scope'],
  ])('redirects %s back with its error, state and iss', async (_what, overrides, error) => {
    const query = await redirectedWith(overrides);
    expect(query).toMatchObject({ error, state: 'st-1', iss: sandbox.authUrl });
    expect(query['error_description']).toEqual(expect.any(String));
    expect(query['code']).toBeUndefined();
  });

  it('redirects a request without state with invalid_request and no state', async () => {
    const query = await redirectedWith({ state: undefined });
    expect(query).toEqual({
      error: 'invalid_request',
      error_description: expect.stringMatching(/state is missing/),
      iss: sandbox.authUrl,
    });
  });

  it('refuses a parameter given twice with invalid_request', async () => {
    const params = authorizeParams(sandbox, client, challenge, { state: 'st-1' });
    params.append('scope', 'mail.read');
    const { location } = await authorize(sandbox, params);
    expect(Object.fromEntries(location?.searchParams ?? [])).toMatchObject({ error: 'invalid_request', state: 'st-1' });
  });

  it('refuses a scope the client did not register with invalid_scope', async () => {
    const readOnly = await registerClient(sandbox.authUrl, { scope: 'mail.read' });
    const { location } = await authorize(
      sandbox,
      authorizeParams(sandbox, readOnly, challenge, { state: 's', scope: 'mail.read mail.send' }),
    );
    expect(location?.searchParams.get('error')).toBe('invalid_scope');
  });

  it('accepts the MCP resource and one inbox of the person, and refuses an inbox of another person with access_denied', async () => {
    expect((await redirectedWith({ resource: `${mcpUrl}/mcp` }))['code']).toBeDefined();
    const [ada, bob] = sandbox.oauth.autoApproved;
    expect(
      (await redirectedWith({ resource: `urn:service:agent:${ada?.inboxes[1]?.accountId}` }))['code'],
    ).toBeDefined();
    expect(await redirectedWith({ resource: `urn:service:agent:${bob?.inboxes[0]?.accountId}` })).toMatchObject({
      error: 'access_denied',
      state: 'st-1',
    });
    expect(
      (await redirectedWith({ resource: `urn:service:agent:${bob?.inboxes[0]?.accountId}`, login_hint: 'bob' }))[
        'code'
      ],
    ).toBeDefined();
  });

  it('refuses a login_hint that names nobody it approves for with access_denied', async () => {
    expect(await redirectedWith({ login_hint: 'mallory' })).toMatchObject({ error: 'access_denied', state: 'st-1' });
  });
});

describe('GET /oauth/authorize: errors that never redirect (RFC 6749 §4.1.2.1)', () => {
  const pageFor = async (
    query: URLSearchParams,
  ): Promise<{ status: number; body: string; location: URL | undefined; headers: Headers }> =>
    authorize(sandbox, query);

  it.each([
    ['an unknown client', { client_id: 'amc_unknown' }, /not known to the authorization server/],
    ['no client_id', { client_id: undefined }, /names no client/],
    ['an unregistered redirect URI', { redirect_uri: 'http://127.0.0.1:49152/other' }, /is not registered/],
    ['the registered URI with a trailing slash', { redirect_uri: `${testRedirectUri}/` }, /is not registered/],
    [
      'the registered URI on another port',
      { redirect_uri: testRedirectUri.replace('49152', '49153') },
      /is not registered/,
    ],
    ['no redirect URI', { redirect_uri: undefined }, /has no redirect_uri/],
  ])('shows %s an error page with status 400 and no Location', async (_what, overrides, message) => {
    const { status, body, location, headers } = await pageFor(authorizeParams(sandbox, client, challenge, overrides));
    expect(status).toBe(400);
    expect(location).toBeUndefined();
    expect(headers.get('content-type')).toMatch(/^text\/html/);
    expect(headers.get('x-frame-options')).toBe('DENY');
    expect(headers.get('content-security-policy')).toMatch(/frame-ancestors 'none'/);
    expect(body).toMatch(message);
    expect(body).toMatch(/start the connection again/);
  });

  it('shows a page, not a redirect, when redirect_uri is given twice', async () => {
    const params = authorizeParams(sandbox, client, challenge);
    params.append('redirect_uri', 'http://127.0.0.1:1/evil');
    const { status, location } = await pageFor(params);
    expect(status).toBe(400);
    expect(location).toBeUndefined();
  });

  it('escapes what the request carries on the error page', async () => {
    const { body } = await pageFor(
      authorizeParams(sandbox, client, challenge, { redirect_uri: 'http://127.0.0.1:1/<script>alert(1)</script>' }),
    );
    expect(body).not.toContain('<script>');
    expect(body).toContain('&lt;script&gt;');
  });
});
