import { describe, expect, it } from 'vitest';
import {
  bearerOf,
  createFakeBackend,
  decodeJwt,
  postCapability,
  requestChallenge,
  signUpInbox,
  startTestSandbox,
} from '../helpers/sandbox.js';

const fake = createFakeBackend();
const sandbox = await startTestSandbox({ createBackend: fake.factory });
const inbox = await signUpInbox(sandbox, 'cap-user');

function jmapSession(bearer: string): Promise<Response> {
  return fetch(`${sandbox.apiUrl}/.well-known/jmap`, { headers: { authorization: `Bearer ${bearer}` } });
}

describe('POST /api/v1/capability', () => {
  it('mints a 2-minute capability JWT whose sub and address are the inbox address and whose inboxId is the local part', async () => {
    const before = sandbox.stats().capabilitiesIssued;
    const response = await postCapability(sandbox.authUrl, inbox.session);
    expect(response.status).toBe(200);
    const claims = decodeJwt(bearerOf(response));
    expect(claims).toMatchObject({
      typ: 'capability',
      sub: 'cap-user@agent-mailbox.test',
      address: 'cap-user@agent-mailbox.test',
      inboxId: 'cap-user',
    });
    expect(Number(claims['exp']) - Number(claims['iat'])).toBe(120);
    expect(sandbox.stats().capabilitiesIssued).toBe(before + 1);
  });

  it('lets the JMAP host accept the capability JWT for exactly its inbox', async () => {
    const response = await jmapSession(inbox.capability);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ accountId: 'cap-user@agent-mailbox.test', inboxId: 'cap-user' });
  });

  it('refuses a session JWT or a challenge JWT used as a capability at the JMAP host', async () => {
    expect((await jmapSession(inbox.session)).status).toBe(401);
    expect(await (await jmapSession(inbox.session)).json()).toMatchObject({
      error: expect.stringMatching(/session token was sent where a capability token is required/),
    });
    expect((await jmapSession((await requestChallenge(sandbox.authUrl)).token)).status).toBe(401);
    expect((await jmapSession('not-a-jwt')).status).toBe(401);
  });

  it('refuses a capability or challenge JWT presented as the session, and a missing bearer, with 401', async () => {
    for (const bearer of [inbox.capability, (await requestChallenge(sandbox.authUrl)).token]) {
      const response = await postCapability(sandbox.authUrl, bearer);
      expect(response.status).toBe(401);
      expect(await response.json()).toMatchObject({
        error: {
          message: expect.stringMatching(/where a session token is required/),
          hint: expect.stringMatching(/session JWT/),
        },
      });
    }
    const none = await fetch(`${sandbox.authUrl}/api/v1/capability`, { method: 'POST' });
    expect(none.status).toBe(401);
  });

  it.each(['/api/v1/capability/xyz', '/api/v1/capability/delegate/inbox'])(
    'answers 404 on the internal path %s, like the live service',
    async (path) => {
      const response = await fetch(`${sandbox.authUrl}${path}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${inbox.session}` },
      });
      expect(response.status).toBe(404);
      expect(await response.json()).toMatchObject({
        error: { message: expect.any(String), hint: expect.any(String), docs_url: expect.any(String) },
      });
    },
  );

  it('answers 405 to the wrong method on a known endpoint', async () => {
    const response = await fetch(`${sandbox.authUrl}/api/v1/challenge`);
    expect(response.status).toBe(405);
    expect(response.headers.get('allow')).toBe('POST');
  });

  it('serves its counters at GET /sandbox/stats', async () => {
    const stats = await (await fetch(`${sandbox.authUrl}/sandbox/stats`)).json();
    expect(stats).toEqual(sandbox.stats());
    expect(Object.keys(stats as object).sort()).toEqual([
      'capabilitiesIssued',
      'challenges',
      'logins',
      'powFailures',
      'sessionsIssued',
      'signups',
    ]);
  });
});

describe('rate limit on POST /api/v1/challenge', () => {
  it('answers 429 with Retry-After once the bucket is empty', async () => {
    const limited = await startTestSandbox({
      createBackend: createFakeBackend().factory,
      rateLimit: { capacity: 2, refillPerSecond: 0.1 },
    });
    const statuses: number[] = [];
    let last: Response | undefined;
    for (let i = 0; i < 3; i += 1) {
      last = await fetch(`${limited.authUrl}/api/v1/challenge`, { method: 'POST' });
      statuses.push(last.status);
    }
    expect(statuses).toEqual([200, 200, 429]);
    expect(Number(last!.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(await last!.json()).toMatchObject({
      error: { message: 'Too many challenge requests.', hint: expect.stringMatching(/^Wait \d+ seconds/) },
    });
  });
});
