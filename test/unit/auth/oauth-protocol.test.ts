import { describe, expect, it } from 'vitest';
import {
  discoverServer,
  insecureAllowed,
  refreshGrant,
  registerClient,
  revokeGrant,
} from '../../../src/auth/oauth/oauth-protocol.js';
import type { StoredGrant } from '../../../src/credentials/oauth-grant-files.js';
import { MailboxError } from '../../../src/errors.js';
import { Deadline } from '../../../src/gate/deadline.js';
import { silentLogger } from '../../../src/log.js';
import { scriptedServer } from '../../helpers/scripted-http-server.js';

/** The OAuth exchanges' own rules (what oauth4webapi does not check) against a scripted authorization server. */

const http = (): { deadline: Deadline; log: typeof silentLogger } => ({
  deadline: Deadline.start({ timeoutMs: 5_000 }),
  log: silentLogger,
});

function json(body: unknown, status = 200): (req: unknown, res: import('node:http').ServerResponse) => void {
  return (_req, res) => void res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
}

function grantAt(url: string, extra: Partial<StoredGrant> = {}): StoredGrant {
  return {
    kind: 'oauth',
    version: 1,
    server: { issuer: url, token_endpoint: `${url}/oauth/token`, revocation_endpoint: `${url}/oauth/revoke` },
    apiUrl: url,
    resource: `${url}/jmap`,
    clientId: 'client-7',
    scope: 'mail.read mail.send',
    refreshToken: 'rt-protocol-test-rrrrrrrrrrrrrrrr',
    generation: 1,
    rotatedAt: '2026-01-01T00:00:00.000Z',
    connectedAt: '2026-01-01T00:00:00.000Z',
    ...extra,
  };
}

describe('insecureAllowed', () => {
  it('allows plain http to loopback only', () => {
    for (const url of ['http://127.0.0.1:8080/x', 'http://localhost/', 'http://[::1]:9/'])
      expect(insecureAllowed(url), url).toBe(true);
    for (const url of ['http://127.0.0.2/', 'http://example.test/', 'http://localhost.example.test/', 'not a url', ''])
      expect(insecureAllowed(url), url).toBe(false);
  });
});

describe('discoverServer', () => {
  const metadata = (url: string, extra: Record<string, unknown> = {}): Record<string, unknown> => ({
    issuer: url,
    authorization_endpoint: `${url}/oauth/authorize`,
    token_endpoint: `${url}/oauth/token`,
    registration_endpoint: `${url}/oauth/register`,
    code_challenge_methods_supported: ['S256'],
    ...extra,
  });

  it('returns the metadata of a server that offers what connect needs', async () => {
    let url = '';
    const server = await scriptedServer((req, res) => json(metadata(url))(req, res));
    url = server.url;
    expect(await discoverServer(url, http())).toMatchObject({
      issuer: url,
      registration_endpoint: `${url}/oauth/register`,
    });
    expect(server.requests[0]?.url).toBe('/.well-known/oauth-authorization-server');
  });

  it('names everything a server lacks: the authorization and registration endpoints and PKCE S256', async () => {
    let url = '';
    const server = await scriptedServer((req, res) =>
      json(
        metadata(url, {
          authorization_endpoint: undefined,
          registration_endpoint: undefined,
          code_challenge_methods_supported: ['plain'],
        }),
      )(req, res),
    );
    url = server.url;
    const error = (await discoverServer(url, http()).catch((e: unknown) => e)) as MailboxError;
    expect(error).toBeInstanceOf(MailboxError);
    expect(error.code).toBe('bad_response');
    expect(error.message).toBe(
      `The authorization server at ${url} does not offer what connect needs: authorization_endpoint, registration_endpoint, PKCE S256.`,
    );
  });

  it('accepts a server that does not list its PKCE methods', async () => {
    let url = '';
    const server = await scriptedServer((req, res) =>
      json(metadata(url, { code_challenge_methods_supported: undefined }))(req, res),
    );
    url = server.url;
    await expect(discoverServer(url, http())).resolves.toMatchObject({ issuer: url });
  });
});

describe('registerClient', () => {
  it('registers a public native client for the exact redirect URI and keeps no secret', async () => {
    const server = await scriptedServer(json({ client_id: 'public-1', redirect_uris: ['http://127.0.0.1:5/cb'] }, 201));
    const client = await registerClient(
      { issuer: server.url, registration_endpoint: `${server.url}/oauth/register` },
      'http://127.0.0.1:5/cb',
      http(),
    );
    expect(client).toEqual({ clientId: 'public-1' });
    expect(JSON.parse(server.requests[0]?.body ?? '{}')).toMatchObject({
      redirect_uris: ['http://127.0.0.1:5/cb'],
      token_endpoint_auth_method: 'none',
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      application_type: 'native',
    });
  });

  it('keeps the secret of a confidential client', async () => {
    const server = await scriptedServer(
      json({ client_id: 'conf-1', client_secret: 'cs-secret-value-000000', client_secret_expires_at: 0 }, 201),
    );
    expect(
      await registerClient(
        { issuer: server.url, registration_endpoint: `${server.url}/oauth/register` },
        'http://127.0.0.1:5/cb',
        http(),
      ),
    ).toEqual({ clientId: 'conf-1', clientSecret: 'cs-secret-value-000000' });
  });
});

describe('refreshGrant', () => {
  it('presents the refresh token, sends a confidential client its secret, and stores the successor before answering', async () => {
    const server = await scriptedServer(
      json({ access_token: 'at-1', token_type: 'Bearer', expires_in: 60, refresh_token: 'rt-next' }),
    );
    const persisted: string[] = [];
    const issued = await refreshGrant(
      grantAt(server.url, { clientSecret: 'cs-000000000000' }),
      undefined,
      http(),
      async (token) => void persisted.push(token),
    );
    expect(persisted).toEqual(['rt-next']);
    // No scope in the answer: the grant's whole scope, as asked.
    expect(issued).toEqual({
      accessToken: 'at-1',
      expiresIn: 60,
      scope: 'mail.read mail.send',
      refreshToken: 'rt-next',
    });
    const form = Object.fromEntries(new URLSearchParams(server.requests[0]?.body));
    expect(form).toEqual({
      grant_type: 'refresh_token',
      refresh_token: 'rt-protocol-test-rrrrrrrrrrrrrrrr',
      client_id: 'client-7',
      client_secret: 'cs-000000000000',
    });
  });

  it('takes the narrower scope asked for when the answer names none', async () => {
    const server = await scriptedServer(json({ access_token: 'at-2', token_type: 'Bearer', expires_in: 60 }));
    const issued = await refreshGrant(grantAt(server.url), 'mail.read', http(), async () => undefined);
    expect(issued).toEqual({ accessToken: 'at-2', expiresIn: 60, scope: 'mail.read' });
    expect(Object.fromEntries(new URLSearchParams(server.requests[0]?.body))).toMatchObject({ scope: 'mail.read' });
  });

  it('stores nothing from a refused refresh', async () => {
    const server = await scriptedServer(json({ error: 'invalid_grant', refresh_token: 'rt-should-not-be-kept' }, 400));
    const persisted: string[] = [];
    await expect(
      refreshGrant(grantAt(server.url), undefined, http(), async (token) => void persisted.push(token)),
    ).rejects.toMatchObject({ code: 'grant_revoked' });
    expect(persisted).toEqual([]);
  });
});

describe('revokeGrant', () => {
  it('revokes by the refresh token with its type hint', async () => {
    const server = await scriptedServer((_req, res) => void res.writeHead(200).end());
    await revokeGrant(grantAt(server.url), http());
    expect(server.requests[0]?.url).toBe('/oauth/revoke');
    expect(Object.fromEntries(new URLSearchParams(server.requests[0]?.body))).toMatchObject({
      token: 'rt-protocol-test-rrrrrrrrrrrrrrrr',
      token_type_hint: 'refresh_token',
      client_id: 'client-7',
    });
  });

  it('says what to do when the server offers no revocation endpoint', async () => {
    const grant = grantAt('http://127.0.0.1:1');
    const error = (await revokeGrant(
      { ...grant, server: { issuer: grant.server.issuer, token_endpoint: grant.server.token_endpoint } },
      http(),
    ).catch((e: unknown) => e)) as MailboxError;
    expect(error).toMatchObject({ code: 'oauth_failed' });
    expect(error.hint).toContain('disconnect --local-only');
  });
});
