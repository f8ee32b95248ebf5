import { describe, expect, it } from 'vitest';
import {
  createFakeBackend, pollUntil, postCapability, postSession, requestChallenge, signUpInbox, solvePow, startTestSandbox,
} from '../helpers/sandbox.js';

// Lifetimes of 2 s stand in for the spec's 5 min / 1 h / 2 min (§8); each test first proves the
// token works, then polls (with a deadline) until the host refuses it as expired.
const sandbox = await startTestSandbox({
  createBackend: createFakeBackend().factory,
  challengeTtlSeconds: 2,
  sessionTtlSeconds: 2,
  capabilityTtlSeconds: 2,
});

async function errorOf(response: Response): Promise<{ status: number; message: string; hint: string }> {
  const body = (await response.json()) as { error?: { message: string; hint: string } };
  return { status: response.status, message: body.error?.message ?? '', hint: body.error?.hint ?? '' };
}

// Each test has its own challenge or inbox, so the three 2 s expiries are waited out side by side.
describe.concurrent('expired tokens', () => {
  it('refuses an expired challenge even with a correct proof, and says to request a fresh one', async () => {
    const challenge = await requestChallenge(sandbox.authUrl);
    // An empty body is a 400 while the challenge holds (and does not spend it), a 401 once expired.
    // Checked before solving: under load the solve alone can outlast the 2 s lifetime.
    expect((await postSession(sandbox.authUrl, challenge.token, '')).status).toBe(400);
    const proof = await solvePow(challenge.jti, challenge.difficulty, sandbox.salt);
    await pollUntil(async () => ((await postSession(sandbox.authUrl, challenge.token, '')).status === 401 ? true : undefined), 6000, 'challenge expiry');
    const refused = await errorOf(await postSession(sandbox.authUrl, challenge.token, { ...proof, username: 'late-user' }));
    expect(refused).toEqual({ status: 401, message: 'The challenge has expired.', hint: expect.stringMatching(/^Request a fresh challenge with POST \/api\/v1\/challenge, solve it, and retry within 2 seconds/) });
  });

  it('refuses an expired session at /api/v1/capability and says to log in again with the apiKey', async () => {
    const inbox = await signUpInbox(sandbox, 'session-ttl');
    const refused = await pollUntil(async () => {
      const response = await postCapability(sandbox.authUrl, inbox.session);
      return response.status === 200 ? undefined : errorOf(response);
    }, 6000, 'session expiry');
    expect(refused).toEqual({ status: 401, message: 'The session has expired.', hint: expect.stringMatching(/^Log in again: .*"apiKey"/) });
  });

  it('refuses an expired capability at the JMAP host', async () => {
    const inbox = await signUpInbox(sandbox, 'cap-ttl-user');
    const jmap = (): Promise<Response> => fetch(`${sandbox.apiUrl}/.well-known/jmap`, { headers: { authorization: `Bearer ${inbox.capability}` } });
    const refused = await pollUntil(async () => {
      const response = await jmap();
      return response.status === 200 ? undefined : response;
    }, 6000, 'capability expiry');
    expect(refused.status).toBe(401);
    expect(await refused.json()).toEqual({ error: 'The capability JWT has expired.' });
  });
});
