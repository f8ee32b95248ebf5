import { mkdtemp, open, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import type { Account } from '../../../src/auth/account-registry.js';
import { resolveConfig } from '../../../src/config.js';
import type { AccountState } from '../../../src/credentials/stored-credentials.js';
import { MailboxError } from '../../../src/errors.js';
import { silentLogger } from '../../../src/log.js';
import { openServiceGate, type ServiceGate } from '../../../src/gate/service-gate.js';
import { checkOutgoing } from '../../../src/request/check-outgoing.js';
import { runJmapRequest } from '../../../src/request/run-jmap-request.js';
import { cleanUpAfter } from '../../../sandbox/test/helpers/clean-up-after.js';

/**
 * The client against a small real HTTP server on 127.0.0.1:0 that behaves like Cyrus where it
 * matters: 301 on /.well-known/jmap, relative session URLs, 401 for a rejected bearer.
 */

interface Served {
  url: string;
  requests: { method: string; path: string; auth: string; contentType: string; body: string }[];
  close(): Promise<void>;
}

let served: Served | undefined;
afterEach(async () => {
  await served?.close();
  served = undefined;
});

async function serve(rejectedTokens: Set<string>): Promise<Served> {
  const requests: Served['requests'] = [];
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    let body = '';
    req.on('data', (d: Buffer) => (body += d.toString('utf8')));
    req.on('end', () => {
      const auth = req.headers.authorization ?? '';
      requests.push({
        method: req.method ?? '',
        path: req.url ?? '',
        auth,
        contentType: req.headers['content-type'] ?? '',
        body,
      });
      if (rejectedTokens.has(auth.replace(/^Bearer /, ''))) {
        res.writeHead(401).end();
        return;
      }
      if (req.url === '/.well-known/jmap') {
        res.writeHead(301, { location: '/jmap' }).end();
        return;
      }
      const json = (status: number, value: unknown): void => {
        res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(value));
      };
      if (req.url === '/jmap' && req.method === 'GET') {
        json(200, {
          capabilities: {
            'urn:ietf:params:jmap:core': { maxSizeUpload: 1000, maxCallsInRequest: 16 },
            'urn:ietf:params:jmap:mail': {},
            'urn:ietf:params:jmap:submission': {},
          },
          accounts: {
            'bot@custom.test': {
              name: 'bot',
              accountCapabilities: {
                'urn:ietf:params:jmap:mail': { maxSizeAttachmentsPerEmail: 2000 },
                'urn:ietf:params:jmap:submission': {},
              },
            },
          },
          primaryAccounts: { 'urn:ietf:params:jmap:mail': 'bot@custom.test' },
          apiUrl: '/jmap/',
          uploadUrl: '/jmap/upload/{accountId}/',
          downloadUrl: '/jmap/download/{accountId}/{blobId}/{name}?accept={type}',
          state: 's1',
        });
        return;
      }
      if (req.url === '/jmap/' && req.method === 'POST') {
        const request = JSON.parse(body) as { methodCalls: [string, Record<string, unknown>, string][] };
        const methodResponses = request.methodCalls.map(([name, args, id]) => {
          if (name === 'Mailbox/get')
            return [
              name,
              {
                list: [
                  { id: 'mb-in', role: 'inbox' },
                  { id: 'mb-dr', role: 'drafts' },
                  { id: 'mb-se', role: 'sent' },
                  { id: 'mb-tr', role: 'trash' },
                ],
              },
              id,
            ];
          if (name === 'Email/changes' && args.sinceState === 'gone')
            return ['error', { type: 'cannotCalculateChanges' }, id];
          if (name === 'Identity/get')
            return [
              name,
              {
                list: [
                  { id: 'other', email: 'x@y.test' },
                  { id: 'id-bot', email: 'bot@custom.test' },
                ],
              },
              id,
            ];
          return [name, args, id];
        });
        json(200, { methodResponses, sessionState: 's1' });
        return;
      }
      if (req.url?.startsWith('/jmap/upload/') && req.method === 'POST') {
        json(201, {
          accountId: 'bot@custom.test',
          blobId: 'B-up',
          type: req.headers['content-type'],
          size: Buffer.byteLength(body),
        });
        return;
      }
      if (req.url?.startsWith('/jmap/download/')) {
        res.writeHead(200, { 'content-type': 'application/octet-stream' }).end(`downloaded ${req.url}`);
        return;
      }
      res.writeHead(404).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

function fakeAccount(apiUrl: string, tokens: string[]): Account & { invalidated: string[]; state: AccountState } {
  const config = resolveConfig({ flags: { apiUrl, credentialsDir: '/nonexistent' } });
  const account = {
    dir: '/nonexistent',
    invalidated: [] as string[],
    state: {} as AccountState,
    config: async () => config,
    register: async () => {
      throw new Error('not used');
    },
    capability: async () => tokens.find((t) => !account.invalidated.includes(t)) ?? 'none-left',
    invalidateCapability: (jwt: string) => void account.invalidated.push(jwt),
    credentials: async () => ({ apiKey: 'k'.repeat(20), inboxId: 'bot' }),
    readState: async () => account.state,
    updateState: async (mutate: (s: AccountState) => AccountState) => (account.state = mutate(account.state)),
    revealApiKey: async () => 'k',
    inbox: async () => ({ kind: 'pow' as const, inboxId: 'bot', stateDir: '/nonexistent' }),
    listInboxes: async () => [{ address: 'bot@custom.test', inboxId: 'bot', isDefault: true }],
  };
  return account;
}

/** The JMAP client as every caller reaches it: through the gate of one call. */
function gateOf(account: Account): ServiceGate {
  return openServiceGate(account, {
    signal: new AbortController().signal,
    log: silentLogger,
    timeoutMs: 5000,
    check: checkOutgoing,
  });
}

describe('JmapClient', () => {
  it('follows the session redirect, resolves relative URLs and caches mailbox roles and the identity in state', async () => {
    served = await serve(new Set());
    const account = fakeAccount(served.url, ['cap-1']);
    const session = await gateOf(account).session();
    expect(session).toMatchObject({
      apiUrl: `${served.url}/jmap/`,
      uploadUrl: `${served.url}/jmap/upload/{accountId}/`,
      downloadUrl: `${served.url}/jmap/download/{accountId}/{blobId}/{name}?accept={type}`,
      accountId: 'bot@custom.test',
      inboxMailboxId: 'mb-in',
      identityId: 'id-bot',
      mailboxIdsByRole: { inbox: 'mb-in', drafts: 'mb-dr', sent: 'mb-se', trash: 'mb-tr' },
      limits: { maxSizeUpload: 1000, maxCallsInRequest: 16, maxSizeAttachmentsPerEmail: 2000 },
    });
    expect(account.state.session?.identityId).toBe('id-bot');
  });

  it('reuses the cached session without a round trip', async () => {
    served = await serve(new Set());
    const account = fakeAccount(served.url, ['cap-1']);
    await gateOf(account).session();
    const before = served.requests.length;
    await gateOf(account).session();
    expect(served.requests.length).toBe(before);
  });

  it('POSTs to the session apiUrl as application/json', async () => {
    served = await serve(new Set());
    const account = fakeAccount(served.url, ['cap-1']);
    const client = gateOf(account);
    const response = await client.call({
      using: ['urn:ietf:params:jmap:core'],
      methodCalls: [['Core/echo', { hello: 1 }, 'e']],
    });
    expect(response.methodResponses).toEqual([['Core/echo', { hello: 1 }, 'e']]);
    const post = served.requests.at(-1)!;
    expect(post).toMatchObject({
      method: 'POST',
      path: '/jmap/',
      contentType: 'application/json',
      auth: 'Bearer cap-1',
    });
  });

  it('re-mints the capability after a 401 and retries exactly once', async () => {
    served = await serve(new Set(['cap-old']));
    const account = fakeAccount(served.url, ['cap-old', 'cap-new']);
    const client = gateOf(account);
    await client.call({ using: [], methodCalls: [['Core/echo', {}, 'e']] });
    expect(account.invalidated).toEqual(['cap-old']);
    expect(served.requests.filter((r) => r.auth === 'Bearer cap-old')).toHaveLength(1);
  });

  it('gives up with auth_rejected when the fresh capability is refused too', async () => {
    served = await serve(new Set(['cap-a', 'cap-b']));
    const account = fakeAccount(served.url, ['cap-a', 'cap-b']);
    const error = (await gateOf(account)
      .session()
      .catch((e: unknown) => e)) as MailboxError;
    expect(error.code).toBe('auth_rejected');
    expect(served.requests).toHaveLength(2);
  });

  it('uploads to the expanded uploadUrl and downloads through the template', async () => {
    served = await serve(new Set());
    const client = gateOf(fakeAccount(served.url, ['cap-1']));
    expect(
      await client.upload({
        bytes: new TextEncoder().encode('hello'),
        type: 'text/plain',
        source: { kind: 'file', path: '/tmp/hello.txt' },
      }),
    ).toEqual({ blobId: 'B-up', type: 'text/plain', size: 5 });
    expect(served.requests.at(-1)?.path).toBe('/jmap/upload/bot%40custom.test/');
    const dir = await mkdtemp(join(tmpdir(), 'dl-'));
    cleanUpAfter(() => rm(dir, { recursive: true, force: true }));
    const file = join(dir, 'out');
    const handle = await open(file, 'wx');
    await client.download('B-1', handle, { name: 'a b.txt', type: 'text/plain' });
    await handle.close();
    expect(await readFile(file, 'utf8')).toBe(
      'downloaded /jmap/download/bot%40custom.test/B-1/a%20b.txt?accept=text%2Fplain',
    );
  });

  it('reports an unreachable host as a network error naming it', async () => {
    served = await serve(new Set());
    const url = served.url;
    await served.close();
    served = undefined;
    const error = (await gateOf(fakeAccount(url, ['c']))
      .session()
      .catch((e: unknown) => e)) as MailboxError;
    expect(error.code).toBe('network');
    expect(error.message).toContain(url);
  });
});

describe('runJmapRequest with a cached session', () => {
  it('resolves $INBOX from the session account id (spec §1.4 b) and $IDENTITY_ID without extra round trips', async () => {
    served = await serve(new Set());
    const account = fakeAccount(served.url, ['cap-1']);
    await gateOf(account).session();
    const before = served.requests.length;
    const result = await runJmapRequest(
      account,
      {
        ops: '[["Core/echo", {"from": "$INBOX", "identity": "$IDENTITY_ID", "box": {"$INBOX_MAILBOX_ID": true}, "n": "$N"}, "e"]]',
        vars: { N: 3 },
      },
      { signal: new AbortController().signal, log: silentLogger },
    );
    expect(result.ok).toBe(true);
    expect(result.response?.methodResponses[0]?.[1]).toEqual({
      from: 'bot@custom.test',
      identity: 'id-bot',
      box: { 'mb-in': true },
      n: 3,
    });
    expect(served.requests.length).toBe(before + 1);
  });

  it('makes no network call at all in a dry run, leaving unknown placeholders visible', async () => {
    served = await serve(new Set());
    const account = fakeAccount(served.url, ['cap-1']);
    const result = await runJmapRequest(
      account,
      { ops_file: 'send_mail', vars: { TO: 'a@b.test', SUBJECT: 'S', BODY: 'B' }, dry_run: true },
      { signal: new AbortController().signal, log: silentLogger },
    );
    expect(served.requests).toHaveLength(0);
    expect(result.dryRun).toBe(true);
    expect(result.unresolved).toEqual(['ACCOUNT_ID', 'DRAFTS_MAILBOX_ID', 'IDENTITY_ID', 'SENT_MAILBOX_ID']);
    expect(result.summary).toContain('$IDENTITY_ID');
    expect(JSON.stringify(result.request)).toContain('"from":[{"email":"bot@atomicmail.ai"}]');
  });

  it('refuses attachments over maxSizeUpload before uploading anything', async () => {
    served = await serve(new Set());
    const account = fakeAccount(served.url, ['cap-1']);
    const { mkdtemp, writeFile, rm } = await import('node:fs/promises');
    const { join } = await import('node:path');
    const { tmpdir } = await import('node:os');
    const dir = await mkdtemp(join(tmpdir(), 'jmap-client-'));
    try {
      await writeFile(join(dir, 'big.bin'), Buffer.alloc(1500));
      const error = (await runJmapRequest(
        account,
        {
          ops_file: 'send_mail_blob_attachment',
          vars: { TO: 'a@b.test', SUBJECT: 'S', BODY: 'B' },
          attachments: [join(dir, 'big.bin')],
        },
        { signal: new AbortController().signal, log: silentLogger },
      ).catch((e: unknown) => e)) as MailboxError;
      expect(error.code).toBe('attachment_too_large');
      expect(served.requests.some((r) => r.path.startsWith('/jmap/upload/'))).toBe(false);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('resets the list_new cursor when the server can no longer compute changes from it', async () => {
    served = await serve(new Set());
    const account = fakeAccount(served.url, ['cap-1']);
    account.state = { listNewState: 'gone' };
    const result = await runJmapRequest(
      account,
      { ops_file: 'list_new' },
      { signal: new AbortController().signal, log: silentLogger },
    );
    expect(result.ok).toBe(false);
    expect(result.failures[0]?.type).toBe('cannotCalculateChanges');
    expect(account.state.listNewState).toBeUndefined();
    expect(result.next?.[0]).toContain('reset');
  });
});
