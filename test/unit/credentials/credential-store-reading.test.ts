import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CredentialStore } from '../../../src/credentials/credential-store.js';
import { refusal } from '../../helpers/mailbox-refusal.js';
import { tempCredentialsDir } from '../../helpers/temp-credentials-dir.js';

/**
 * What a credentials directory reads back as: nothing yet, damaged files named with what is wrong
 * (never rewritten), caches kept exactly as stored, and the refusal that protects a stored apiKey
 * saying where a second inbox goes instead.
 */

const alice = { apiKey: 'ak_alice_0123456789abcdef', inboxId: 'alice', inbox: 'alice@agent-mailbox.test' };

async function withFile(name: string, text: string): Promise<{ dir: string; path: string }> {
  const dir = await tempCredentialsDir();
  await mkdir(dir, { recursive: true });
  await writeFile(join(dir, name), text, { mode: 0o600 });
  return { dir, path: join(dir, name) };
}

describe('a directory with nothing in it yet', () => {
  it('has no credentials, no tokens and an empty state', async () => {
    const dir = await tempCredentialsDir();
    const store = new CredentialStore(dir);
    expect(await store.readCredentials()).toBeUndefined();
    expect(await store.readToken('session')).toBeUndefined();
    expect(await store.readToken('capability')).toBeUndefined();
    expect(await store.readState()).toEqual({});
  });
});

describe('a damaged file', () => {
  it('that is not JSON is named as such, with its path in the details', async () => {
    const { dir, path } = await withFile('credentials.json', '{"apiKey": ');
    const error = await refusal(new CredentialStore(dir).readCredentials());
    expect(error.code).toBe('credentials_corrupt');
    expect(error.message).toMatch(/is damaged: it is not valid JSON \(.+\)\. It was left untouched\.$/);
    expect(error.details).toEqual({ path });
  });

  it('that lacks a field names the missing field, and the file is left as it was', async () => {
    const text = JSON.stringify({ inboxId: 'alice' });
    const { dir, path } = await withFile('credentials.json', text);
    const error = await refusal(new CredentialStore(dir).readCredentials());
    expect(error.code).toBe('credentials_corrupt');
    expect(error.message).toBe(
      `${path} is damaged: it does not have the expected fields (apiKey). It was left untouched.`,
    );
    expect(await readFile(path, 'utf8')).toBe(text);
  });

  it('whose whole value has the wrong shape says what zod found, not an empty list', async () => {
    const { dir, path } = await withFile('state.json', '"a string"');
    const error = await refusal(new CredentialStore(dir).readState());
    expect(error.message).toMatch(
      new RegExp(
        `^${path.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} is damaged: it does not have the expected fields \\(.+\\)\\.`,
      ),
    );
    expect(error.message).not.toContain('fields ()');
  });

  it('with a cached session missing its fields is refused rather than handed on half-filled', async () => {
    const { dir } = await withFile('state.json', JSON.stringify({ session: { apiUrl: 'http://127.0.0.1:1/jmap' } }));
    const error = await refusal(new CredentialStore(dir).readState());
    expect(error.code).toBe('credentials_corrupt');
    expect(error.message).toContain('session.sessionUrl');
  });
});

describe('a state file read back', () => {
  it('with a cursor of the wrong type is refused, naming the cursor', async () => {
    const { dir } = await withFile('state.json', JSON.stringify({ listNewState: 5 }));
    const error = await refusal(new CredentialStore(dir).readState());
    expect(error.message).toContain('(listNewState)');
  });

  it('keeps a byte-order mark inside a value; only a leading one is dropped', async () => {
    const { dir } = await withFile('state.json', `\uFEFF${JSON.stringify({ listNewState: 'a\uFEFFb' })}`);
    expect((await new CredentialStore(dir).readState()).listNewState).toBe('a\uFEFFb');
  });
});

describe('a token of this inbox', () => {
  it('is kept once the credentials name the inbox', async () => {
    const dir = await tempCredentialsDir();
    const store = new CredentialStore(dir);
    await store.writeCredentials(alice);
    const payload = Buffer.from(JSON.stringify({ inboxId: 'alice@agent-mailbox.test', exp: 9e9 })).toString(
      'base64url',
    );
    const own = `eyJhbGciOiJIUzI1NiJ9.${payload}.c2ln`;
    await store.writeToken('session', own);
    const reader = new CredentialStore(dir);
    await reader.readCredentials();
    expect(await reader.readToken('session')).toBe(own);
  });
});

describe("the refusal to replace another inbox's credentials", () => {
  it('suggests a sibling directory named after the new inbox, and says how to keep the old one', async () => {
    const dir = await tempCredentialsDir();
    const store = new CredentialStore(dir);
    await store.writeCredentials(alice);
    const error = await refusal(
      store.writeCredentials({
        apiKey: 'ak_bob_0123456789abcdef',
        inboxId: 'bobby',
        inbox: 'bobby@agent-mailbox.test',
      }),
    );
    expect(error.message).toContain('They belong to alice@agent-mailbox.test, not bobby@agent-mailbox.test.');
    expect(error.hint).toContain(`(e.g. ${join(dir, '..', 'bobby')})`);
    expect(error.hint).toContain('register again with username alice.');
    expect(error.details).toEqual({ credentialsDir: dir, storedInbox: 'alice@agent-mailbox.test' });
  });

  it('of a sandbox inbox names the sandbox and says to move its credentials aside', async () => {
    const dir = await tempCredentialsDir();
    const store = new CredentialStore(dir);
    const sandboxed = { ...alice, authUrl: 'http://127.0.0.1:4100', apiUrl: 'http://127.0.0.1:4101/jmap' };
    await store.writeCredentials(sandboxed);
    const error = await refusal(store.writeCredentials({ apiKey: 'ak_bob_0123456789abcdef', inboxId: 'bobby' }));
    expect(error.message).toContain(
      'alice@agent-mailbox.test is an inbox of a local sandbox (http://127.0.0.1:4101/jmap), not of the service.',
    );
    expect(error.hint).toContain(
      `move the sandbox's credentials aside (e.g. rename ${dir} to ${dir}-sandbox) and register again.`,
    );
    expect(error.details).toEqual({
      credentialsDir: dir,
      storedInbox: 'alice@agent-mailbox.test',
      sandbox: { authUrl: sandboxed.authUrl, apiUrl: sandboxed.apiUrl },
    });
  });
});
