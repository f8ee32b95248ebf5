import { request } from 'node:http';
import { describe, expect, it } from 'vitest';
import { startTestSandbox } from '../helpers/sandbox.js';
import { authorize, authorizeParams, pkce, register } from './oauth-test-client.js';

const sandbox = await startTestSandbox({
  oauth: { registrationRateLimit: false, autoApprove: [{ person: 'Ada', inboxes: ['ada-inbox'] }] },
});

describe('POST /oauth/register (RFC 7591)', () => {
  it('registers a public native client with a loopback redirect and echoes its metadata', async () => {
    const { status, body, headers } = await register(sandbox.authUrl, {
      redirect_uris: ['http://127.0.0.1:53117/cb'],
      token_endpoint_auth_method: 'none',
      client_name: 'CLI',
      grant_types: ['authorization_code', 'refresh_token'],
      scope: 'mail.read',
      unknown_field: 1,
    });
    expect(status).toBe(201);
    expect(headers.get('cache-control')).toBe('no-store');
    expect(body).toEqual({
      client_id: expect.stringMatching(/^amc_/),
      client_id_issued_at: expect.any(Number),
      redirect_uris: ['http://127.0.0.1:53117/cb'],
      token_endpoint_auth_method: 'none',
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      client_name: 'CLI',
      scope: 'mail.read',
    });
  });

  it('gives a confidential client a secret once, and defaults to client_secret_post', async () => {
    const { status, body } = await register(sandbox.authUrl, { redirect_uris: ['https://app.example.test/cb'] });
    expect(status).toBe(201);
    expect(body).toMatchObject({
      token_endpoint_auth_method: 'client_secret_post',
      client_secret: expect.stringMatching(/^amcs_/),
      client_secret_expires_at: 0,
    });
  });

  it.each([
    ['no redirect_uris', {}, 'invalid_redirect_uri'],
    ['http on a public host', { redirect_uris: ['http://app.example.test/cb'] }, 'invalid_redirect_uri'],
    ['a fragment', { redirect_uris: ['https://app.example.test/cb#x'] }, 'invalid_redirect_uri'],
    ['a relative URI', { redirect_uris: ['/cb'] }, 'invalid_redirect_uri'],
    ['a javascript: URI', { redirect_uris: ['javascript:alert(1)'] }, 'invalid_redirect_uri'],
    [
      'client_secret_basic',
      { redirect_uris: ['https://a.example.test/cb'], token_endpoint_auth_method: 'client_secret_basic' },
      'invalid_client_metadata',
    ],
    [
      'the implicit grant',
      { redirect_uris: ['https://a.example.test/cb'], grant_types: ['implicit'] },
      'invalid_client_metadata',
    ],
    [
      'response type token',
      { redirect_uris: ['https://a.example.test/cb'], response_types: ['token'] },
      'invalid_client_metadata',
    ],
    [
      'an unknown scope',
      { redirect_uris: ['https://a.example.test/cb'], scope: 'mail.read admin' },
      'invalid_client_metadata',
    ],
    [
      'a client_uri that is no URL',
      { redirect_uris: ['https://a.example.test/cb'], client_uri: 'javascript:x' },
      'invalid_client_metadata',
    ],
  ])('refuses %s with 400 %s', async (_what, metadata, error) => {
    const { status, body } = await register(sandbox.authUrl, metadata);
    expect(status).toBe(400);
    expect(body).toEqual({ error, error_description: expect.any(String) });
  });

  it('accepts a reverse-domain private-use scheme (RFC 8252 §7.1) and IPv6 loopback', async () => {
    expect(
      (
        await register(sandbox.authUrl, {
          redirect_uris: ['com.example.app:/oauth2redirect', 'http://[::1]:8080/cb'],
          token_endpoint_auth_method: 'none',
        })
      ).status,
    ).toBe(201);
  });

  it('refuses a body that is not JSON', async () => {
    const response = await fetch(`${sandbox.authUrl}/oauth/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'redirect_uris=x',
    });
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ error: 'invalid_client_metadata' });
  });

  it('matches a loopback redirect URI exactly: the registered port works, another port gets the error page', async () => {
    const { body } = await register(sandbox.authUrl, {
      redirect_uris: ['http://127.0.0.1:53117/cb'],
      token_endpoint_auth_method: 'none',
    });
    const client = { clientId: String(body['client_id']), redirectUri: 'http://127.0.0.1:53117/cb' };
    const { challenge } = pkce();
    expect((await authorize(sandbox, authorizeParams(sandbox, client, challenge))).status).toBe(302);
    const otherPort = await authorize(
      sandbox,
      authorizeParams(sandbox, client, challenge, { redirect_uri: 'http://127.0.0.1:53118/cb' }),
    );
    expect(otherPort.status).toBe(400);
    expect(otherPort.location).toBeUndefined();
  });
});

/** POST /oauth/register from a given local source address; resolves to the status. */
function registerFrom(localAddress: string, authUrl: string, metadata: unknown): Promise<number> {
  const body = JSON.stringify(metadata);
  return new Promise((resolve, reject) => {
    const req = request(
      `${authUrl}/oauth/register`,
      {
        method: 'POST',
        localAddress,
        headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
      },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

describe('registration rate limit per address (spec §5.2)', () => {
  it('answers 429 with Retry-After once the address spent its burst, and registers again when the bucket refills', async () => {
    let clock = 0;
    const limited = await startTestSandbox({
      now: () => Date.now() + clock,
      oauth: { registrationRateLimit: { capacity: 3, refillPerSecond: 0.1 } },
    });
    const metadata = { redirect_uris: ['http://127.0.0.1:53117/cb'], token_endpoint_auth_method: 'none' };
    for (let i = 0; i < 3; i += 1) expect((await register(limited.authUrl, metadata)).status).toBe(201);
    const refused = await register(limited.authUrl, metadata);
    expect(refused.status).toBe(429);
    // Another address has its own bucket (127.0.0.2 is loopback too, bound as the source).
    expect(await registerFrom('127.0.0.2', limited.authUrl, metadata)).toBe(201);
    expect(refused.body).toMatchObject({
      error: 'rate_limited',
      error_description: expect.stringMatching(/wait 10 seconds/),
    });
    expect(refused.headers.get('retry-after')).toBe('10');
    clock += 10_000;
    expect((await register(limited.authUrl, metadata)).status).toBe(201);
    expect((await register(limited.authUrl, metadata)).status).toBe(429);
  });
});
