import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { cleanUpAfter } from '../helpers/clean-up-after.js';
import { startTestSandbox } from '../helpers/sandbox.js';
import { authorize, authorizeParams, exchange, listAgents, pkce, testRedirectUri } from './oauth-test-client.js';

/** A loopback server for client metadata documents; each path behaves as its name says. */
async function startDocumentServer(): Promise<{ base: string; hits: Map<string, number> }> {
  const hits = new Map<string, number>();
  let base = '';
  const sockets = new Set<import('node:net').Socket>();
  const server: Server = createServer((req, res) => {
    const path = new URL(req.url ?? '/', 'http://x').pathname;
    hits.set(path, (hits.get(path) ?? 0) + 1);
    const json = (body: unknown, type = 'application/json'): void => {
      res.writeHead(200, { 'content-type': type });
      res.end(JSON.stringify(body));
    };
    const document = (extra: Record<string, unknown> = {}): Record<string, unknown> => ({
      client_id: `${base}${path}`,
      client_name: 'Doc client',
      redirect_uris: [testRedirectUri],
      token_endpoint_auth_method: 'none',
      ...extra,
    });
    switch (path) {
      case '/good.json':
        return json(document());
      case '/other-id.json':
        return json(document({ client_id: `${base}/good.json` }));
      case '/with-secret.json':
        return json(document({ client_secret: 'shh' }));
      case '/confidential.json':
        return json(document({ token_endpoint_auth_method: 'client_secret_post' }));
      case '/text.json':
        return json(document(), 'text/plain');
      case '/missing.json':
        res.writeHead(404).end();
        return;
      case '/redirect.json':
        res.writeHead(302, { location: `${base}/good.json` }).end();
        return;
      case '/hung.json':
        return; // never answers
      case '/stalls-mid-body.json':
        res.writeHead(200, { 'content-type': 'application/json' });
        res.write('{"client_id":');
        return;
      case '/flood.json':
        return flood(res);
      case '/reset.json':
        req.socket.destroy();
        return;
      default:
        res.writeHead(404).end();
    }
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  cleanUpAfter(
    () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  );
  return { base, hits };
}

/** Writes JSON-looking bytes until the client goes away. */
function flood(res: ServerResponse): void {
  res.writeHead(200, { 'content-type': 'application/json' });
  res.write('{"client_name":"');
  const chunk = 'x'.repeat(64 * 1024);
  const pump = (): void => {
    while (!res.destroyed && res.write(chunk));
    if (!res.destroyed) res.once('drain', pump);
  };
  res.on('close', () => res.removeAllListeners('drain'));
  pump();
}

const docs = await startDocumentServer();
const sandbox = await startTestSandbox({
  oauth: {
    allowLoopbackClientIdUrls: true,
    clientDocumentTimeoutMs: 500,
    autoApprove: [{ person: 'Ada', inboxes: ['ada-inbox'] }],
  },
});

describe('client ID metadata documents (spec §2.7, §5.2)', () => {
  it('authorizes a client whose client_id is the URL of its metadata, and its code exchanges as a public client', async () => {
    const client = { clientId: `${docs.base}/good.json`, redirectUri: testRedirectUri };
    const pair = pkce();
    const { status, location } = await authorize(sandbox, authorizeParams(sandbox, client, pair.challenge));
    expect(status).toBe(302);
    const tokens = await exchange(sandbox, client, location?.searchParams.get('code') ?? '', pair.verifier);
    expect((await listAgents(sandbox.authUrl, tokens.access_token)).status).toBe(200);
    // Cached: the second authorization does not fetch again.
    const before = docs.hits.get('/good.json');
    expect((await authorize(sandbox, authorizeParams(sandbox, client, pair.challenge))).status).toBe(302);
    expect(docs.hits.get('/good.json')).toBe(before);
  });

  it.each([
    ['a document naming another client_id', '/other-id.json', /names a different client_id/],
    ['a document with a client_secret', '/with-secret.json', /carries a client_secret/],
    [
      'a confidential auth method',
      '/confidential.json',
      /token_endpoint_auth_method client_secret_post is not supported/,
    ],
    ['a document served as text/plain', '/text.json', /not served as application\/json/],
    ['a 404', '/missing.json', /answered HTTP 404/],
    ['a redirect (not followed)', '/redirect.json', /could not be fetched/],
    ['a server that never answers (deadline)', '/hung.json', /took longer than 500 ms/],
    ['a server that stalls mid-body (deadline)', '/stalls-mid-body.json', /took longer than 500 ms/],
    ['a body without end (size cap)', '/flood.json', /larger than 65536 bytes/],
    ['a connection reset', '/reset.json', /could not be fetched/],
  ])('shows an error page, never a redirect, for %s', async (_what, path, message) => {
    const started = Date.now();
    const { status, body, location } = await authorize(
      sandbox,
      authorizeParams(sandbox, { clientId: `${docs.base}${path}`, redirectUri: testRedirectUri }, pkce().challenge),
    );
    expect(status).toBe(400);
    expect(location).toBeUndefined();
    expect(body).toMatch(message);
    expect(Date.now() - started).toBeLessThan(5000);
  });

  it('refuses a redirect URI the document does not list', async () => {
    const { status, body } = await authorize(
      sandbox,
      authorizeParams(
        sandbox,
        { clientId: `${docs.base}/good.json`, redirectUri: 'http://127.0.0.1:49152/other' },
        pkce().challenge,
      ),
    );
    expect(status).toBe(400);
    expect(body).toMatch(/is not registered/);
  });

  it('refuses a loopback http client_id URL without the test-only switch, and fetches nothing', async () => {
    const strict = await startTestSandbox({ oauth: { autoApprove: [{ person: 'Ada', inboxes: ['ada-inbox'] }] } });
    const before = docs.hits.get('/good.json');
    const { status, body } = await authorize(
      strict,
      authorizeParams(strict, { clientId: `${docs.base}/good.json`, redirectUri: testRedirectUri }, pkce().challenge),
    );
    expect(status).toBe(400);
    expect(body).toMatch(/must use https/);
    expect(docs.hits.get('/good.json')).toBe(before);
  });

  it('refuses a client_id URL without a path', async () => {
    const { status, body } = await authorize(
      sandbox,
      authorizeParams(sandbox, { clientId: `${docs.base}/`, redirectUri: testRedirectUri }, pkce().challenge),
    );
    expect(status).toBe(400);
    expect(body).toMatch(/needs a path/);
  });
});
