import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type RunningSandbox } from '../../sandbox/src/start-sandbox.js';
import { cyrusSkipReason, signUp, type TestInbox } from './cyrus-test-kit.js';

// Issue 11 item 7: Cyrus 3.6.1 advertises eventSourceUrl but answers 204 with no stream on it
// (measured through this gateway), so the gateway keeps the URL out of the session (DIFFERENCES.md).
const skip = cyrusSkipReason('cyrus push');

describe.skipIf(skip)('EventSource with the Cyrus backend', () => {
  let sandbox: RunningSandbox;
  let inbox: TestInbox;
  beforeAll(async () => {
    sandbox = await startSandbox({ backend: 'cyrus', difficulty: 2, rateLimit: false });
    inbox = await signUp(sandbox.authUrl, 'pushed-cyrus', sandbox.salt);
  });
  afterAll(async () => {
    await sandbox?.close();
  });

  it('leaves eventSourceUrl out of the session and says so on the Cyrus path', async () => {
    const capability = await inbox.capability();
    const session = (await (
      await fetch(`${sandbox.apiUrl}/.well-known/jmap`, { headers: { authorization: `Bearer ${capability}` } })
    ).json()) as Record<string, unknown>;
    expect(session['apiUrl']).toMatch(/^http:\/\/127\.0\.0\.1:/);
    expect(session).not.toHaveProperty('eventSourceUrl');
    const guessed = await fetch(`${sandbox.apiUrl}/jmap/eventsource/?types=*&closeafter=no&ping=0`, {
      headers: { authorization: `Bearer ${capability}` },
    });
    expect(guessed.status).toBe(501);
    expect(((await guessed.json()) as { hint: string }).hint).toMatch(/Email\/changes/);
  });
});
