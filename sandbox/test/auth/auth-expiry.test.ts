import { describe, expect, it } from 'vitest';
import {
  createFakeBackend,
  postCapability,
  postSession,
  requestChallenge,
  signUpInbox,
  solvePow,
  startTestSandbox,
} from '../helpers/sandbox.js';

// The sandbox's clock is moved instead of waited on, so the spec's own lifetimes (§8: challenge
// 5 min, session 1 h, capability 2 min) are tested in milliseconds and a slow machine cannot let a
// token expire before the test has proved it works. Tests run one after another: they share the clock.
let offsetMs = 0;
const sandbox = await startTestSandbox({
  createBackend: createFakeBackend().factory,
  now: () => Date.now() + offsetMs,
});
const advanceSeconds = (seconds: number): void => {
  offsetMs += seconds * 1000;
};

async function errorOf(response: Response): Promise<{ status: number; message: string; hint: string }> {
  const body = (await response.json()) as { error?: { message: string; hint: string } };
  return { status: response.status, message: body.error?.message ?? '', hint: body.error?.hint ?? '' };
}

describe('expired tokens', () => {
  it('refuses an expired challenge even with a correct proof, and says to request a fresh one', async () => {
    const challenge = await requestChallenge(sandbox.authUrl);
    // An empty body is a 400 while the challenge holds (and does not spend it), a 401 once expired.
    expect((await postSession(sandbox.authUrl, challenge.token, '')).status).toBe(400);
    const proof = await solvePow(challenge.jti, challenge.difficulty, sandbox.salt);
    advanceSeconds(295);
    expect((await postSession(sandbox.authUrl, challenge.token, '')).status).toBe(400);
    advanceSeconds(6);
    const refused = await errorOf(
      await postSession(sandbox.authUrl, challenge.token, { ...proof, username: 'late-user' }),
    );
    expect(refused).toEqual({
      status: 401,
      message: 'The challenge has expired.',
      hint: expect.stringMatching(
        /^Request a fresh challenge with POST \/api\/v1\/challenge, solve it, and retry within/,
      ),
    });
  });

  it('refuses an expired session at /api/v1/capability and says to log in again with the apiKey', async () => {
    const inbox = await signUpInbox(sandbox, 'session-ttl');
    advanceSeconds(3595);
    expect((await postCapability(sandbox.authUrl, inbox.session)).status).toBe(200);
    advanceSeconds(6);
    const refused = await errorOf(await postCapability(sandbox.authUrl, inbox.session));
    expect(refused).toEqual({
      status: 401,
      message: 'The session has expired.',
      hint: expect.stringMatching(/^Log in again: .*"apiKey"/),
    });
  });

  it('refuses an expired capability at the JMAP host', async () => {
    const inbox = await signUpInbox(sandbox, 'cap-ttl-user');
    const jmap = (): Promise<Response> =>
      fetch(`${sandbox.apiUrl}/.well-known/jmap`, { headers: { authorization: `Bearer ${inbox.capability}` } });
    advanceSeconds(115);
    expect((await jmap()).status).toBe(200);
    advanceSeconds(6);
    const refused = await jmap();
    expect(refused.status).toBe(401);
    expect(await refused.json()).toEqual({ error: 'The capability JWT has expired.' });
  });
});
