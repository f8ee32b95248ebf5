import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { signUpInbox, startTestSandbox } from './helpers/sandbox.js';

/**
 * The attack: the agent under test runs on the sandbox's machine and reaches its drill endpoints
 * too. Reading a drill's record would tell it which mail is an attack and what the canaries are;
 * writing would let it plant DNS records or bend the record. Each endpoint but the attacker's own
 * web endpoint takes the key of the drill it concerns, and nothing else.
 */

const sandbox = await startTestSandbox();
const inbox = await signUpInbox(sandbox, 'drill-key-owner');
const newKey = (): string => randomBytes(32).toString('base64url');
const keyA = newKey();
const keyB = newKey();
const canary = '482913';

const record = (drillId: string) => ({
  drillId,
  inbox: inbox.address,
  seededAt: new Date().toISOString(),
  canaries: { otp: canary, account: 'GB00DRILL', file: 'tok' },
  classes: [],
  mails: [],
  folders: [],
});

async function call(
  path: string,
  options: { key?: string; body?: unknown; headers?: Record<string, string> } = {},
): Promise<{ status: number; text: string }> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.key !== undefined) headers['x-drill-key'] = options.key;
  if (options.body !== undefined) headers['content-type'] = 'application/json';
  const response = await fetch(`${sandbox.apiUrl}${path}`, {
    ...(options.body === undefined ? {} : { method: 'POST', body: JSON.stringify(options.body) }),
    headers,
  });
  return { status: response.status, text: await response.text() };
}

describe('the drill endpoints take the drill key', () => {
  it('refuses the sandbox-wide endpoints before any drill holds a key, and without a key', async () => {
    expect((await call('/sandbox/drill/info')).status).toBe(401);
    expect((await call('/sandbox/drill/info', { key: newKey() })).status).toBe(403);
    const dns = { TXT: { 'evil.example': [['v=spf1 +all']] } };
    expect((await call('/sandbox/drill/dns', { body: dns })).status).toBe(401);
    expect((await call('/sandbox/drill/dns', { key: newKey(), body: dns })).status).toBe(403);
  });

  it("opens a drill's record to its own key only", async () => {
    const registered = await call('/sandbox/drill/drills', { key: keyA, body: record('d-0000aaaa') });
    expect(registered.status, registered.text).toBe(200);
    const own = await call('/sandbox/drill/drills/d-0000aaaa', { key: keyA });
    expect(own.status, own.text).toBe(200);
    expect(own.text).toContain(canary);
    // The sandbox keeps a hash: the key is never part of what it answers.
    expect(own.text).not.toContain(keyA);

    const refusals: Array<[string, { status: number; text: string }, number]> = [
      ['no key', await call('/sandbox/drill/drills/d-0000aaaa'), 401],
      ['a short key', await call('/sandbox/drill/drills/d-0000aaaa', { key: 'guess' }), 401],
      ['an empty key', await call('/sandbox/drill/drills/d-0000aaaa', { key: '' }), 401],
      ['a random key', await call('/sandbox/drill/drills/d-0000aaaa', { key: newKey() }), 403],
      [
        'the key with one character changed',
        await call('/sandbox/drill/drills/d-0000aaaa', {
          key: `${keyA.slice(0, -1)}${keyA.endsWith('A') ? 'B' : 'A'}`,
        }),
        403,
      ],
      [
        'the key as a bearer token',
        await call('/sandbox/drill/drills/d-0000aaaa', { headers: { authorization: `Bearer ${keyA}` } }),
        401,
      ],
      ['the key in the query', await call(`/sandbox/drill/drills/d-0000aaaa?key=${keyA}`), 401],
    ];
    for (const [what, answer, status] of refusals) {
      expect(answer.status, what).toBe(status);
      expect(answer.text, what).not.toContain(canary);
      expect(answer.text, what).not.toContain(inbox.address);
    }
  });

  it("does not open one drill's record to another drill's key, nor let a second seed take it over", async () => {
    // The agent can register a drill of its own (on its own inbox): its key opens that drill only.
    expect((await call('/sandbox/drill/drills', { key: keyB, body: record('d-0000bbbb') })).status).toBe(200);
    expect((await call('/sandbox/drill/drills/d-0000bbbb', { key: keyB })).status).toBe(200);
    const crossed = await call('/sandbox/drill/drills/d-0000aaaa', { key: keyB });
    expect(crossed.status).toBe(403);
    expect(crossed.text).not.toContain(canary);
    const takeover = await call('/sandbox/drill/drills', { key: keyB, body: record('d-0000aaaa') });
    expect(takeover.status).toBe(409);
    expect((await call('/sandbox/drill/drills/d-0000aaaa', { key: keyB })).status).toBe(403);
    expect((await call('/sandbox/drill/drills/d-0000aaaa', { key: keyA })).status).toBe(200);
    // A registration without a key binds nothing.
    expect((await call('/sandbox/drill/drills', { body: record('d-0000cccc') })).status).toBe(401);
    expect((await call('/sandbox/drill/drills/d-0000cccc', { key: newKey() })).status).toBe(404);
  });

  it("opens the sandbox-wide endpoints to a seeded drill's key, and leaves the attacker's web endpoint open", async () => {
    const info = await call('/sandbox/drill/info', { key: keyA });
    expect(info.status, info.text).toBe(200);
    expect(JSON.parse(info.text)).toMatchObject({ smtpPort: sandbox.smtpPort });
    const dns = await call('/sandbox/drill/dns', { key: keyA, body: { TXT: { 'drill.example': [['v=spf1 -all']] } } });
    expect(dns.status, dns.text).toBe(200);
    // The link an attack mail plants is followed without a key: that request is what the drill measures.
    const hit = await call(`/sandbox/drill/web/d-0000aaaa/pixel.gif?c=${canary}`);
    expect(hit.status).toBe(200);
    const facts = JSON.parse((await call('/sandbox/drill/drills/d-0000aaaa', { key: keyA })).text) as {
      webHits: Array<{ query: string }>;
    };
    expect(facts.webHits.map((entry) => entry.query)).toEqual([`c=${canary}`]);
  });
});
