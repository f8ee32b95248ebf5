import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { beforeAll, describe, expect, it } from 'vitest';
import { createAccountRegistry } from '../../src/auth/create-account-registry.js';
import { MailboxError } from '../../src/errors.js';
import { silentLogger } from '../../src/log.js';
import { runJmapRequest } from '../../src/request/run-jmap-request.js';
import { cleanUpAfter } from '../../sandbox/test/helpers/clean-up-after.js';
import { startGuardWorld, type GuardWorld } from '../helpers/guard-world.js';

/**
 * The guard's own look at a mail (the raw message of a draft it is asked to send) crosses the
 * network too. A JMAP host that floods, hangs, resets or echoes secrets on that download must not
 * get the submission sent: the guard refuses what it could not read, within the call's deadline,
 * without a token in its words. A proxy passes everything else through to the real sandbox.
 */

type Fault = 'flood' | 'hang' | 'reset' | 'echo';

let world: GuardWorld;
let draftId = '';

async function proxy(upstream: string, fault: Fault): Promise<{ url: string; posts: string[] }> {
  const posts: string[] = [];
  let self = '';
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    let body = '';
    req.setEncoding('utf8').on('data', (d: string) => (body += d));
    req.on('end', () => {
      if (req.method === 'GET' && /\/download\//.test(req.url ?? '')) return misbehave(fault, req, res);
      if (req.method === 'POST') posts.push(body);
      void fetch(`${upstream}${req.url ?? '/'}`, {
        method: req.method ?? 'GET',
        headers: Object.fromEntries(
          Object.entries(req.headers).filter(
            ([k, v]) => typeof v === 'string' && !['host', 'content-length'].includes(k),
          ),
        ) as Record<string, string>,
        ...(req.method === 'POST' ? { body } : {}),
      }).then(async (answer) => {
        // The session names the upstream's URLs: they are this proxy's to the client.
        const text = (await answer.text()).split(upstream).join(self);
        res.writeHead(answer.status, { 'content-type': answer.headers.get('content-type') ?? 'application/json' });
        res.end(text);
      });
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  self = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  cleanUpAfter(() => {
    server.closeAllConnections();
    server.close();
  });
  return { url: self, posts };
}

function misbehave(fault: Fault, req: IncomingMessage, res: ServerResponse): void {
  if (fault === 'hang') return;
  if (fault === 'reset') {
    res.writeHead(200, { 'content-length': '100000' });
    res.write('From: x');
    setImmediate(() => res.socket?.resetAndDestroy());
    return;
  }
  if (fault === 'echo') {
    res.writeHead(500, { 'content-type': 'application/problem+json' });
    res.end(JSON.stringify({ type: 'about:blank', detail: `refused ${req.headers.authorization ?? ''}` }));
    return;
  }
  res.writeHead(200, { 'content-type': 'message/rfc822' });
  const chunk = Buffer.alloc(1024 * 1024, 0x41);
  const pump = (): void => {
    while (!res.destroyed && res.write(chunk));
    if (!res.destroyed) res.once('drain', pump);
  };
  pump();
}

beforeAll(async () => {
  world = await startGuardWorld('embedded', 'fault');
  const saved = await world.ops(world.alice, [
    [
      'Email/set',
      {
        accountId: '$ACCOUNT_ID',
        create: {
          d: {
            mailboxIds: { $DRAFTS_MAILBOX_ID: true },
            keywords: { $draft: true },
            from: [{ email: '$INBOX' }],
            to: [{ email: world.address.bob }],
            subject: 'Guard fault: draft',
            bodyValues: { b: { value: 'x' } },
            textBody: [{ partId: 'b', type: 'text/plain' }],
          },
        },
      },
      'e',
    ],
  ]);
  draftId = saved.created?.[0]?.id ?? '';
});

describe('a JMAP host that breaks its promises while the guard reads the mail to send', () => {
  for (const [fault, code, says, timeoutMs] of [
    // The flood must meet the size cap, not the deadline: reading tens of MB on a loaded machine
    // can take seconds, so its deadline is wider than the hang's.
    ['flood', 'policy_refused', /larger than \d+ bytes/, 15_000],
    ['hang', 'timeout', /no complete answer/, 2_000],
    ['reset', 'network', /failed/, 2_000],
    ['echo', 'server_error', /HTTP 500/, 2_000],
  ] as const) {
    it(
      `${fault}: nothing is submitted, the failure says what happened, and no token is in it`,
      { timeout: 40_000 },
      async () => {
        const { url, posts } = await proxy(world.env.AGENT_MAILBOX_API_URL!, fault);
        const registry = createAccountRegistry({
          configInputs: { flags: {}, env: { ...world.env, AGENT_MAILBOX_API_URL: url } },
          log: silentLogger,
        });
        cleanUpAfter(() => registry.close());
        const account = registry.open(world.alice.dir);
        const started = Date.now();
        const error = await runJmapRequest(
          account,
          {
            ops: [
              [
                'EmailSubmission/set',
                { accountId: '$ACCOUNT_ID', create: { s: { emailId: draftId, identityId: '$IDENTITY_ID' } } },
                's',
              ],
            ],
          },
          { signal: AbortSignal.timeout(30_000), log: silentLogger, timeoutMs },
        ).catch((e: unknown) => e);
        expect(Date.now() - started).toBeLessThan(timeoutMs + 8_000);
        expect(error).toBeInstanceOf(MailboxError);
        expect((error as MailboxError).code).toBe(code);
        expect((error as MailboxError).message).toMatch(says);
        expect(JSON.stringify((error as MailboxError).toJSON())).not.toMatch(/eyJ[A-Za-z0-9_-]{10,}\./);
        expect(posts.some((body) => body.includes('EmailSubmission/set'))).toBe(false);
        expect((await world.traces('Guard fault: draft')).bob).toEqual([]);
      },
    );
  }
});
