import { spawn } from 'node:child_process';
import { mkdir, readdir, readFile, stat, symlink, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CredentialStore } from '../../../src/credentials/credential-store.js';
import { MailboxError } from '../../../src/errors.js';
import { tempCredentialsDir } from '../../helpers/temp-credentials-dir.js';

// Issue 10 items 4 and 6: what a killed writer, a symlink, a BOM or another inbox's token leaves behind.
const alice = {
  apiKey: 'amk_alice_0123456789abcdef0123',
  inboxId: 'alice',
  inbox: 'alice@agent-mailbox.test',
  watch: 'on-demand' as const,
};
const jwt = (claims: Record<string, unknown>): string =>
  `${Buffer.from('{"alg":"ES256"}').toString('base64url')}.${Buffer.from(JSON.stringify(claims)).toString('base64url')}.c2lnbmF0dXJl`;

/** The pid of a process that has certainly exited. */
async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ['-e', '0']);
  await new Promise((resolve) => child.on('close', resolve));
  return child.pid ?? 999_999;
}

async function dirWith(files: Record<string, string>): Promise<string> {
  const dir = await tempCredentialsDir();
  await mkdir(dir, { recursive: true, mode: 0o700 });
  for (const [name, text] of Object.entries(files)) await writeFile(join(dir, name), text, { mode: 0o600 });
  return dir;
}

describe('credential files under faults', () => {
  it('recovers the apiKey from a credentials temp file left by a writer killed before the rename', async () => {
    const dir = await dirWith({ [`.credentials.json.${await deadPid()}.0123456789ab.tmp`]: JSON.stringify(alice) });
    const notices: string[] = [];
    const store = new CredentialStore(dir, (m) => notices.push(m));
    expect((await store.readCredentials())?.apiKey).toBe(alice.apiKey);
    expect(await readdir(dir)).toEqual(['credentials.json']);
    expect(notices.join('\n')).toMatch(/Recovered the credentials of alice@agent-mailbox.test/);
  });

  it('names a credentials temp file it cannot read instead of calling the directory empty', async () => {
    const temp = `.credentials.json.${await deadPid()}.0123456789ab.tmp`;
    const dir = await dirWith({ [temp]: '{"apiKey": "amk_alice_01234' });
    const error = (await new CredentialStore(dir).readCredentials().catch((e: unknown) => e)) as MailboxError;
    expect(error.code).toBe('credentials_corrupt');
    expect(error.message).toContain(join(dir, temp));
    expect(error.hint).toMatch(/⟦api_key⟧/);
    expect(await readdir(dir)).toContain(temp);
  });

  it('keeps a temp file holding another apiKey under a visible name, never deleting either key', async () => {
    const other = { ...alice, apiKey: 'amk_other_0123456789abcdef0123' };
    const dir = await dirWith({
      'credentials.json': JSON.stringify(alice),
      [`.credentials.json.${await deadPid()}.0123456789ab.tmp`]: JSON.stringify(other),
    });
    expect((await new CredentialStore(dir).readCredentials())?.apiKey).toBe(alice.apiKey);
    const kept = (await readdir(dir)).find((n) => n.startsWith('credentials.json.recovered-'));
    expect(kept).toBeDefined();
    expect(await readFile(join(dir, kept ?? ''), 'utf8')).toContain(other.apiKey);
  });

  it('removes token temp files of a dead process (they hold JWTs) and leaves a live writer alone', async () => {
    const dead = `.session.jwt.${await deadPid()}.0123456789ab.tmp`;
    const live = `.capability.jwt.${process.pid}.0123456789ab.tmp`;
    const dir = await dirWith({
      'credentials.json': JSON.stringify(alice),
      [dead]: jwt({ exp: 1 }),
      [live]: jwt({ exp: 1 }),
    });
    await new CredentialStore(dir).readCredentials();
    expect((await readdir(dir)).sort()).toEqual([live, 'credentials.json'].sort());
  });

  it('says a credentials directory that is a file is the wrong path, not a permission problem', async () => {
    const base = await dirWith({ 'not-a-dir': 'x' });
    const error = await new CredentialStore(join(base, 'not-a-dir')).readCredentials().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(MailboxError);
    expect((error as MailboxError).hint).toMatch(
      /not-a-dir is a file, not a directory: give ⟦credentials_dir⟧ the directory/,
    );
    // Registering there (the directory is created first) says the same.
    const writing = await new CredentialStore(join(base, 'not-a-dir')).writeCredentials(alice).catch((e: unknown) => e);
    expect((writing as MailboxError).hint).toMatch(/not-a-dir is a file, not a directory/);
  });

  it('tolerates a UTF-8 byte-order mark in credentials.json', async () => {
    const dir = await dirWith({ 'credentials.json': `\uFEFF${JSON.stringify(alice)}` });
    expect((await new CredentialStore(dir).readCredentials())?.apiKey).toBe(alice.apiKey);
  });

  it('refuses a symlinked token file without reading it or chmod-ing its target', async () => {
    const outside = join(await tempCredentialsDir(), 'elsewhere');
    await mkdir(join(outside, '..'), { recursive: true });
    await writeFile(outside, jwt({ exp: 9e9, inboxId: 'alice' }), { mode: 0o644 });
    const dir = await dirWith({ 'credentials.json': JSON.stringify(alice) });
    await symlink(outside, join(dir, 'capability.jwt'));
    const store = new CredentialStore(dir);
    await store.readCredentials();
    const error = (await store.readToken('capability').catch((e: unknown) => e)) as MailboxError;
    expect(error.code).toBe('credentials_symlink');
    expect(error.message).toContain('symbolic link');
    expect((await stat(outside)).mode & 0o777).toBe(0o644);
    const write = (await store.writeToken('capability', jwt({ exp: 9e9 })).catch((e: unknown) => e)) as MailboxError;
    expect(write.code).toBe('credentials_symlink');
  });

  it('discards a token of another inbox so a fresh one is minted', async () => {
    const dir = await dirWith({
      'credentials.json': JSON.stringify(alice),
      'capability.jwt': jwt({ exp: 9e9, inboxId: 'mallory' }),
      'session.jwt': jwt({ exp: 9e9, inboxId: 'alice' }),
    });
    const notices: string[] = [];
    const store = new CredentialStore(dir, (m) => notices.push(m));
    await store.readCredentials();
    expect(await store.readToken('capability')).toBeUndefined();
    expect(await store.readToken('session')).toBe(jwt({ exp: 9e9, inboxId: 'alice' }));
    expect(await readdir(dir)).not.toContain('capability.jwt');
    expect(notices.join('\n')).toMatch(/another inbox/);
  });
});
