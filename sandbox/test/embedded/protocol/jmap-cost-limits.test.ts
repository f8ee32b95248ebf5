import { describe, expect, it } from 'vitest';
import { jmapCapabilities } from '../../../src/wire-constants.js';
import { signUpInbox, startTestSandbox } from '../../helpers/sandbox.js';

const using = [jmapCapabilities.core, jmapCapabilities.mail];

async function postJmap(apiUrl: string, capability: string, body: unknown): Promise<{ status: number; body: any }> {
  const response = await fetch(`${apiUrl}/jmap`, {
    method: 'POST',
    headers: { authorization: `Bearer ${capability}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: response.status, body: await response.json() };
}

/** A few messages so a filter has something to walk. */
async function seed(apiUrl: string, capability: string, address: string): Promise<void> {
  const mailboxes = await postJmap(apiUrl, capability, {
    using,
    methodCalls: [['Mailbox/get', { accountId: address, ids: null }, 'm']],
  });
  const inbox = (mailboxes.body.methodResponses[0][1].list as { id: string; role: string }[]).find(
    (box) => box.role === 'inbox',
  )?.id as string;
  const create = Object.fromEntries(
    Array.from({ length: 400 }, (_, index) => [
      `e${index}`,
      {
        mailboxIds: { [inbox]: true },
        subject: `Message ${index}`,
        from: [{ email: 'x@example.org' }],
        bodyValues: { t: { value: 'hello' } },
        textBody: [{ partId: 't', type: 'text/plain' }],
      },
    ]),
  );
  const created = await postJmap(apiUrl, capability, {
    using,
    methodCalls: [['Email/set', { accountId: address, create }, 's']],
  });
  expect(Object.keys(created.body.methodResponses[0][1].created)).toHaveLength(400);
}

/** Runs `work` while timing GET jwks on the auth host back to back; returns the worst latency. */
async function jwksWhile<T>(
  authUrl: string,
  work: Promise<T>,
): Promise<{ result: T; ms: number; worstJwksMs: number; calls: number }> {
  const started = performance.now();
  let done = false;
  const timed = work.finally(() => (done = true));
  const times: number[] = [];
  while (!done) {
    const before = performance.now();
    const jwks = await fetch(`${authUrl}/.well-known/jwks.json`);
    expect(jwks.status).toBe(200);
    await jwks.arrayBuffer();
    times.push(performance.now() - before);
  }
  const result = await timed;
  return { result, ms: performance.now() - started, worstJwksMs: Math.max(...times), calls: times.length };
}

describe('request cost limits', () => {
  it('runs the largest allowed filter without freezing the auth host', async () => {
    const sandbox = await startTestSandbox();
    const inbox = await signUpInbox(sandbox, 'bounded');
    await seed(sandbox.apiUrl, inbox.capability, inbox.address);
    const conditions = Array.from({ length: 999 }, (_, index) => ({
      subject: index === 998 ? 'Message 123' : `needle ${index}`,
    }));
    const query = postJmap(sandbox.apiUrl, inbox.capability, {
      using,
      methodCalls: [
        [
          'Email/query',
          { accountId: inbox.address, filter: { operator: 'OR', conditions }, calculateTotal: true },
          'q',
        ],
      ],
    });
    const { result, ms, worstJwksMs, calls } = await jwksWhile(sandbox.authUrl, query);
    console.log(
      `999-condition OR over 400 emails: ${Math.round(ms)} ms; jwks worst ${Math.round(worstJwksMs)} ms over ${calls} calls`,
    );
    expect(result.body.methodResponses[0][0]).toBe('Email/query');
    expect(result.body.methodResponses[0][1].total).toBe(1);
    expect(worstJwksMs).toBeLessThan(500);
  }, 60_000);

  it('answers a 10,000-condition OR within 3 s while the auth host answers jwks within 500 ms', async () => {
    const sandbox = await startTestSandbox();
    const inbox = await signUpInbox(sandbox, 'costly');
    await seed(sandbox.apiUrl, inbox.capability, inbox.address);
    const conditions = Array.from({ length: 10_000 }, (_, index) => ({ subject: `needle ${index}` }));
    const started = performance.now();
    const query = postJmap(sandbox.apiUrl, inbox.capability, {
      using,
      methodCalls: [['Email/query', { accountId: inbox.address, filter: { operator: 'OR', conditions } }, 'q']],
    }).then((result) => ({ result, ms: performance.now() - started }));
    // Let the request reach the JMAP host before timing the auth host.
    const jwksTimes: number[] = [];
    let done = false;
    void query.finally(() => (done = true));
    while (!done) {
      const before = performance.now();
      const jwks = await fetch(`${sandbox.authUrl}/.well-known/jwks.json`);
      expect(jwks.status).toBe(200);
      await jwks.arrayBuffer();
      jwksTimes.push(performance.now() - before);
    }
    const { result, ms } = await query;
    console.log(
      `10,000-condition OR: ${Math.round(ms)} ms, status ${result.status}; jwks max ${Math.round(Math.max(...jwksTimes))} ms over ${jwksTimes.length} calls`,
    );
    expect(ms).toBeLessThan(3000);
    expect(Math.max(...jwksTimes)).toBeLessThan(500);
    const answer = result.body.methodResponses?.[0];
    expect(answer === undefined ? result.body.type : answer[0] === 'error' ? answer[1].type : answer[0]).toMatch(
      /Email\/query|requestTooLarge|unsupportedFilter|limit/,
    );
  }, 60_000);
});
