import { mkdir, readdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CredentialStore, inboxLocalPart, isSameInbox } from '../../../src/credentials/credential-store.js';
import { isLoopbackUrl, registeredSandbox, sandboxOfDirectory } from '../../../src/credentials/loopback-endpoints.js';
import { tempCredentialsDir } from '../../helpers/temp-credentials-dir.js';

/** Which endpoints count as this machine (a sandbox, never the live service), and which stored tokens belong to the inbox. */

const jwt = (claims: Record<string, unknown>): string =>
  `${Buffer.from('{"alg":"ES256"}').toString('base64url')}.${Buffer.from(JSON.stringify(claims)).toString('base64url')}.c2ln`;
const alice = {
  apiKey: 'amk_alice_0123456789abcdef0123',
  inboxId: 'alice',
  inbox: 'alice@agent-mailbox.test',
  watch: 'on-demand' as const,
};

describe('isLoopbackUrl', () => {
  it('knows 127.0.0.0/8, ::1, its IPv4-mapped forms, localhost and names under .localhost', () => {
    for (const url of [
      'http://127.0.0.1:8080',
      'http://127.255.1.2/',
      'http://[::1]:9/',
      'http://[::ffff:127.0.0.1]/',
      'http://[::ffff:7f01:203]/',
      'http://LOCALHOST/',
      'http://auth.localhost:3/',
    ]) {
      expect(isLoopbackUrl(url), url).toBe(true);
    }
  });

  it('does not take names or addresses that only look alike', () => {
    for (const url of [
      'http://127.0.0.1.example.test/',
      'http://128.0.0.1/',
      'http://[::ffff:8.8.8.8]/',
      'http://[::2]/',
      'http://localhost.example.test/',
      'http://notlocalhost/',
      'https://api.atomicmail.ai/',
      'not a url',
      '',
    ]) {
      expect(isLoopbackUrl(url), url).toBe(false);
    }
  });
});

describe('registeredSandbox', () => {
  it('is the endpoints when either one is loopback, and nothing when neither is', () => {
    expect(registeredSandbox({ authUrl: 'http://127.0.0.1:1', apiUrl: undefined })).toEqual({
      authUrl: 'http://127.0.0.1:1',
      apiUrl: undefined,
    });
    expect(registeredSandbox({ authUrl: undefined, apiUrl: 'http://127.0.0.1:2' })).toEqual({
      authUrl: undefined,
      apiUrl: 'http://127.0.0.1:2',
    });
    expect(registeredSandbox({ authUrl: 'https://auth.example.test', apiUrl: 'http://127.0.0.1:2' })).toEqual({
      authUrl: 'https://auth.example.test',
      apiUrl: 'http://127.0.0.1:2',
    });
    expect(
      registeredSandbox({ authUrl: 'https://auth.example.test', apiUrl: 'https://api.example.test' }),
    ).toBeUndefined();
    expect(registeredSandbox({ authUrl: undefined, apiUrl: undefined })).toBeUndefined();
  });

  it("reads a directory's credentials.json (with a byte-order mark too), and answers nothing for none or a damaged one", async () => {
    const dir = await tempCredentialsDir();
    expect(await sandboxOfDirectory(dir)).toBeUndefined();
    await mkdir(dir, { recursive: true, mode: 0o700 });
    await writeFile(
      join(dir, 'credentials.json'),
      `\uFEFF${JSON.stringify({ ...alice, authUrl: 'http://127.0.0.1:7', apiUrl: 'http://127.0.0.1:8' })}`,
      { mode: 0o600 },
    );
    expect(await sandboxOfDirectory(dir)).toEqual({ authUrl: 'http://127.0.0.1:7', apiUrl: 'http://127.0.0.1:8' });
    await writeFile(join(dir, 'credentials.json'), '{ not json', { mode: 0o600 });
    expect(await sandboxOfDirectory(dir)).toBeUndefined();
    await writeFile(join(dir, 'credentials.json'), JSON.stringify({ inboxId: 'no-api-key' }), { mode: 0o600 });
    expect(await sandboxOfDirectory(dir)).toBeUndefined();
  });
});

describe('stored identities and tokens', () => {
  it('compares inboxes by local part, without case', () => {
    expect(inboxLocalPart('Alice@Custom.Example')).toBe('alice');
    expect(inboxLocalPart('BOB')).toBe('bob');
    expect(isSameInbox({ inboxId: 'Alice' }, { inboxId: 'alice@agent-mailbox.test' })).toBe(true);
    expect(isSameInbox({ inboxId: 'alice' }, { inboxId: 'alicia' })).toBe(false);
  });

  it('takes a token file with spaces around the token, keeps one of its own inbox in any case, and ignores text that is no JWT', async () => {
    const dir = await tempCredentialsDir();
    const store = new CredentialStore(dir);
    await store.writeCredentials(alice);
    const own = jwt({ inboxId: 'ALICE@agent-mailbox.test', exp: 4_000_000_000 });
    await writeFile(store.path('session'), `\n  ${own}  \n`, { mode: 0o600 });
    const reading = new CredentialStore(dir);
    await reading.readCredentials();
    expect(await reading.readToken('session')).toBe(own);
    const unclaimed = jwt({ exp: 4_000_000_000 });
    await writeFile(store.path('session'), unclaimed, { mode: 0o600 });
    expect(await reading.readToken('session')).toBe(unclaimed);
    for (const text of ['not-a-token', `prefix ${own}`, `${own} suffix`, 'a.b']) {
      await writeFile(store.path('session'), text, { mode: 0o600 });
      expect(await reading.readToken('session'), text).toBeUndefined();
    }
  });

  it('names each backup of credentials.json with a timestamp that has no colon or dot', async () => {
    const dir = await tempCredentialsDir();
    const store = new CredentialStore(dir);
    await store.writeCredentials(alice);
    await store.writeCredentials({ ...alice, watch: 'scheduled' });
    const backups = (await readdir(dir)).filter((f) => f.startsWith('credentials.json.bak-'));
    expect(backups).toHaveLength(1);
    expect(backups[0]).toMatch(/^credentials\.json\.bak-\d{4}-\d{2}-\d{2}T\d{2}-\d{2}-\d{2}-\d{3}Z$/);
  });
});
