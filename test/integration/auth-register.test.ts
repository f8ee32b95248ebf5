import { readdir, readFile, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createAccountRegistry } from '../../src/auth/create-account-registry.js';
import { MailboxError } from '../../src/errors.js';
import type { FetchFunction } from '../../src/http/http-types.js';
import { silentLogger } from '../../src/log.js';
import type { RunningSandbox } from '../../sandbox/src/start-sandbox.js';
import { createFakeBackend, signUpInbox, startTestSandbox } from '../../sandbox/test/helpers/sandbox.js';
import { tempCredentialsDir } from '../helpers/temp-credentials-dir.js';

async function sandbox(): Promise<RunningSandbox> {
  return startTestSandbox({ rateLimit: false, createBackend: createFakeBackend().factory });
}

function registryFor(s: RunningSandbox, fetch?: FetchFunction) {
  const registry = createAccountRegistry({
    configInputs: {
      flags: { authUrl: s.authUrl, apiUrl: s.apiUrl, scryptSalt: s.salt, inboxDomain: s.domain },
      env: {},
    },
    log: silentLogger,
    ...(fetch ? { fetch } : {}),
  });
  return registry;
}

describe('register', () => {
  it('signs up, stores the apiKey 0600 in a 0700 directory and returns only a masked key', async () => {
    const s = await sandbox();
    const dir = await tempCredentialsDir();
    const account = registryFor(s).open(dir);
    const outcome = await account.register({ username: 'alice', watch: 'on-demand' });
    const stored = await account.credentials();
    expect(outcome).toMatchObject({
      mode: 'signup',
      inbox: `alice@${s.domain}`,
      credentialsDir: dir,
      watch: 'on-demand',
    });
    expect(outcome.pow?.difficulty).toBe(s.difficulty);
    expect(outcome.apiKeyMasked).not.toContain(stored.apiKey);
    expect(JSON.stringify(outcome)).not.toContain(stored.apiKey);
    expect(stored).toMatchObject({
      inboxId: 'alice',
      inbox: `alice@${s.domain}`,
      authUrl: s.authUrl,
      apiUrl: s.apiUrl,
      scryptSalt: s.salt,
      watch: 'on-demand',
    });
    expect((await stat(dir)).mode & 0o777).toBe(0o700);
    for (const file of ['credentials.json', 'session.jwt', 'capability.jwt'])
      expect((await stat(join(dir, file))).mode & 0o777).toBe(0o600);
    expect(s.stats()).toMatchObject({ signups: 1, capabilitiesIssued: 1 });
  });

  it('replays the same username without any network call', async () => {
    const s = await sandbox();
    const dir = await tempCredentialsDir();
    await registryFor(s).open(dir).register({ username: 'alice', watch: 'on-demand' });
    const before = s.stats();
    const outcome = await registryFor(s).open(dir).register({ username: 'alice', watch: 'scheduled' });
    expect(outcome.mode).toBe('existing');
    expect(outcome.watch).toBe('scheduled');
    expect(outcome.pow).toBeUndefined();
    expect(s.stats()).toEqual(before);
  });

  it('refuses a different username over stored credentials, leading with the irreversible loss', async () => {
    const s = await sandbox();
    const dir = await tempCredentialsDir();
    await registryFor(s).open(dir).register({ username: 'alice', watch: 'on-demand' });
    const file = await readFile(join(dir, 'credentials.json'), 'utf8');
    const error = (await registryFor(s)
      .open(dir)
      .register({ username: 'bobby', watch: 'on-demand' })
      .catch((e: unknown) => e)) as MailboxError;
    expect(error.code).toBe('credentials_exist');
    expect(error.message).toMatch(/^Refused: replacing the credentials in .* would lose access to the inbox alice@/);
    expect(error.hint).toMatch(/^To use another inbox, give it its own directory with ⟦credentials_dir⟧/);
    expect(await readFile(join(dir, 'credentials.json'), 'utf8')).toBe(file);
    expect(s.stats().signups).toBe(1);
  });

  it('logs in with an apiKey into an empty directory and learns the inbox from the service', async () => {
    const s = await sandbox();
    const created = await signUpInbox(s, 'carol');
    const dir = await tempCredentialsDir();
    const outcome = await registryFor(s).open(dir).register({ apiKey: created.apiKey, watch: 'on-demand' });
    expect(outcome).toMatchObject({ mode: 'login', inbox: created.address });
    expect((await registryFor(s).open(dir).credentials()).inboxId).toBe('carol');
    const replay = await registryFor(s).open(dir).register({ apiKey: created.apiKey, watch: 'on-demand' });
    expect(replay.mode).toBe('existing');
  });

  it('refuses an apiKey of another inbox over stored credentials and writes nothing', async () => {
    const s = await sandbox();
    const other = await signUpInbox(s, 'dave1');
    const dir = await tempCredentialsDir();
    await registryFor(s).open(dir).register({ username: 'alice', watch: 'on-demand' });
    const file = await readFile(join(dir, 'credentials.json'), 'utf8');
    await expect(registryFor(s).open(dir).register({ apiKey: other.apiKey, watch: 'on-demand' })).rejects.toMatchObject(
      { code: 'credentials_exist' },
    );
    expect(await readFile(join(dir, 'credentials.json'), 'utf8')).toBe(file);
    expect((await readdir(dir)).some((f) => f.includes('.bak-'))).toBe(false);
  });

  it('reports a taken username with the service message and a hint naming our register call', async () => {
    const s = await sandbox();
    await signUpInbox(s, 'erin1');
    const error = (await registryFor(s)
      .open(await tempCredentialsDir())
      .register({ username: 'erin1', watch: 'on-demand' })
      .catch((e: unknown) => e)) as MailboxError;
    expect(error.code).toBe('username_taken');
    expect(error.status).toBe(409);
    expect(error.message).toMatch(/^The username "erin1" is already taken\. \(HTTP 409 from POST /);
    expect(error.hint).toMatch(/^Choose another username and call register again/);
    expect(error.hint).not.toMatch(/\/api\/v1|POST/);
  });

  it('keeps the apiKey when every step after sign-up fails', async () => {
    const s = await sandbox();
    const dir = await tempCredentialsDir();
    const failingAfterSignup: FetchFunction = async (input, init) => {
      if (String(input).endsWith('/api/v1/capability')) throw new TypeError('fetch failed');
      return fetch(input, init);
    };
    const outcome = await registryFor(s, failingAfterSignup)
      .open(dir)
      .register({ username: 'frank', watch: 'on-demand' });
    expect(outcome.mode).toBe('signup');
    // The next process recovers the inbox with the stored key and session.
    const account = registryFor(s).open(dir);
    expect((await account.credentials()).apiKey).toMatch(/\S{8,}/);
    expect(await account.capability()).toMatch(/^eyJ/);
    expect(account.stats().powSolves).toBe(0);
  });

  it('signs up against the embedded mail store and reports the address as the JMAP account id', async () => {
    const s = await startTestSandbox({ rateLimit: false });
    const outcome = await registryFor(s)
      .open(await tempCredentialsDir())
      .register({ username: 'grace', watch: 'on-demand' });
    expect(outcome.accountId).toBe(`grace@${s.domain}`);
    expect(outcome.inbox).toBe(`grace@${s.domain}`);
  });

  it('rejects an invalid username before any network call', async () => {
    const s = await sandbox();
    await expect(
      registryFor(s)
        .open(await tempCredentialsDir())
        .register({ username: 'Bad Name', watch: 'on-demand' }),
    ).rejects.toMatchObject({ code: 'username_invalid' });
    expect(s.stats().challenges).toBe(0);
  });
});
