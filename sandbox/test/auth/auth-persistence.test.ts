import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startSandbox } from '../../src/start-sandbox.js';
import { bearerOf, createFakeBackend, decodeJwt, signUpInbox, solveAndPostSession } from '../helpers/sandbox.js';

const dataDir = await mkdtemp(join(tmpdir(), 'sandbox-auth-persist-'));
afterAll(() => rm(dataDir, { recursive: true, force: true }));

describe('sandbox with --data-dir', () => {
  it('keeps the signing key and accounts across a restart, so the same apiKey still logs in', async () => {
    const first = await startSandbox({ difficulty: 2, dataDir, createBackend: createFakeBackend().factory });
    const inbox = await signUpInbox(first, 'persist-me').finally(() => first.close());

    const accountsText = await readFile(join(dataDir, 'auth', 'accounts.json'), 'utf8');
    expect(accountsText).not.toContain(inbox.apiKey);
    expect(accountsText).toContain('persist-me@agent-mailbox.test');
    expect((await stat(join(dataDir, 'auth', 'accounts.json'))).mode & 0o777).toBe(0o600);
    expect((await stat(join(dataDir, 'auth', 'signing-key.json'))).mode & 0o777).toBe(0o600);
    expect((await stat(join(dataDir, 'auth'))).mode & 0o777).toBe(0o700);

    const second = await startSandbox({ difficulty: 2, dataDir, createBackend: createFakeBackend().factory });
    try {
      const login = await solveAndPostSession(second, { apiKey: inbox.apiKey });
      expect(login.status).toBe(200);
      expect(decodeJwt(bearerOf(login))).toMatchObject({ sub: 'persist-me@agent-mailbox.test' });
      // Same key: a session minted before the restart still buys a capability.
      expect(
        (
          await fetch(`${second.authUrl}/api/v1/capability`, {
            method: 'POST',
            headers: { authorization: `Bearer ${inbox.session}` },
          })
        ).status,
      ).toBe(200);
      expect((await solveAndPostSession(second, { username: 'persist-me' })).status).toBe(409);
    } finally {
      await second.close();
    }
  });

  it('forgets everything without a data dir', async () => {
    const first = await startSandbox({ difficulty: 2, createBackend: createFakeBackend().factory });
    const inbox = await signUpInbox(first, 'forget-me').finally(() => first.close());
    const second = await startSandbox({ difficulty: 2, createBackend: createFakeBackend().factory });
    try {
      expect((await solveAndPostSession(second, { apiKey: inbox.apiKey })).status).toBe(401);
    } finally {
      await second.close();
    }
  });
});
