import { spawn } from 'node:child_process';
import { chmod, mkdir, readdir, stat, symlink, utimes, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { credentialsKindOf, kindConflictError, oauthInboxStateDir } from '../../../src/credentials/credentials-kind.js';
import { acquireLock, isLockHeld, tryAcquireLock } from '../../../src/credentials/directory-lock.js';
import { OAuthGrantStore } from '../../../src/credentials/oauth-grant-store.js';
import { recoverInterruptedGrantWrite } from '../../../src/credentials/recover-interrupted-writes.js';
import {
  ensurePrivateDir,
  parseTempName,
  readPrivateFile,
  tempPathFor,
  writeFileAtomic,
} from '../../../src/credentials/secure-file.js';
import { MailboxError } from '../../../src/errors.js';
import { tempCredentialsDir } from '../../helpers/temp-credentials-dir.js';

/**
 * What the credentials directory promises whoever shares the machine or the directory: files 0600
 * in a 0700 directory (tightened when found looser), no reading or writing through a link, temp files
 * a later run can attribute, a lock that a dead or silent holder cannot keep and a live one on
 * another host does, and a grant file whose newest refresh token survives an interrupted rotation.
 */

const mode = async (path: string): Promise<number> => (await stat(path)).mode & 0o777;

async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ['-e', '0']);
  await new Promise((resolve) => child.on('close', resolve));
  return child.pid ?? 999_999;
}

describe('private files', () => {
  it('tightens a credentials directory found looser than 0700, and leaves its files alone until read', async () => {
    const dir = await tempCredentialsDir();
    await mkdir(dir, { recursive: true, mode: 0o755 });
    await chmod(dir, 0o755);
    await ensurePrivateDir(dir);
    expect(await mode(dir)).toBe(0o700);
  });

  it('tightens a file found looser than 0600 when it is read, and its directory to 0700', async () => {
    const dir = await tempCredentialsDir();
    await mkdir(dir, { recursive: true });
    await chmod(dir, 0o750);
    const path = join(dir, 'state.json');
    await writeFile(path, '{"a":1}');
    await chmod(path, 0o644);
    expect(await readPrivateFile(path)).toBe('{"a":1}');
    expect(await mode(path)).toBe(0o600);
    expect(await mode(dir)).toBe(0o700);
  });

  it('reads a file again once it was replaced, and tightens a file loosened since the last read', async () => {
    const dir = await tempCredentialsDir();
    const path = join(dir, 'state.json');
    await writeFileAtomic(path, 'one');
    expect(await readPrivateFile(path)).toBe('one');
    await writeFileAtomic(path, 'two');
    expect(await readPrivateFile(path)).toBe('two');
    await chmod(path, 0o644);
    expect(await readPrivateFile(path)).toBe('two');
    expect(await mode(path)).toBe(0o600);
  });

  it('writes 0600 and leaves no temp file behind', async () => {
    const dir = await tempCredentialsDir();
    await writeFileAtomic(join(dir, 'a.json'), 'x');
    expect(await mode(join(dir, 'a.json'))).toBe(0o600);
    expect(await readdir(dir)).toEqual(['a.json']);
  });

  it('refuses to read or write through a symbolic link, naming the path', async () => {
    const dir = await tempCredentialsDir();
    await mkdir(dir, { recursive: true, mode: 0o700 });
    await writeFile(join(dir, 'target'), 'secret', { mode: 0o644 });
    await symlink(join(dir, 'target'), join(dir, 'link.json'));
    for (const run of [
      () => readPrivateFile(join(dir, 'link.json')),
      () => writeFileAtomic(join(dir, 'link.json'), 'x'),
    ]) {
      const error = (await run().catch((e: unknown) => e)) as MailboxError;
      expect(error).toBeInstanceOf(MailboxError);
      expect(error).toMatchObject({ code: 'credentials_symlink', details: { path: join(dir, 'link.json') } });
      expect(error.hint).toContain('Replace the link with the real file');
    }
    expect(await mode(join(dir, 'target'))).toBe(0o644);
  });

  it('refuses to read a directory where a file should be', async () => {
    const dir = await tempCredentialsDir();
    await mkdir(join(dir, 'state.json'), { recursive: true });
    await expect(readPrivateFile(join(dir, 'state.json'))).rejects.toBeInstanceOf(MailboxError);
  });

  it('names a write it cannot make, and says when a file stands where the directory should be', async () => {
    const dir = await tempCredentialsDir();
    await mkdir(join(dir, '..'), { recursive: true });
    await writeFile(dir, 'not a directory');
    const error = (await writeFileAtomic(join(dir, 'a.json'), 'x').catch((e: unknown) => e)) as MailboxError;
    expect(error).toBeInstanceOf(MailboxError);
    expect(error.code).toBe('credentials_unwritable');
    expect(error.message).toContain(dir);
    expect(error.hint).toMatch(/file, not a directory|is a file/);
  });

  it('names temp files by target and pid, and recognises only that exact shape', () => {
    const temp = tempPathFor('/d/credentials.json');
    const name = temp.slice('/d/'.length);
    expect(name).toMatch(new RegExp(`^\\.credentials\\.json\\.${process.pid}\\.[0-9a-f]{12}\\.tmp$`));
    expect(parseTempName(name)).toEqual({ target: 'credentials.json', pid: process.pid });
    for (const other of [
      `x${name}`,
      `${name}.bak`,
      '.credentials.json.12.0123456789a.tmp',
      '.credentials.json.pid.0123456789ab.tmp',
    ])
      expect(parseTempName(other), other).toBeUndefined();
  });
});

describe('the directory lock', () => {
  async function lockHeldBy(owner: { pid: number; host: string }, ageMs = 0): Promise<{ dir: string; path: string }> {
    const dir = await tempCredentialsDir();
    const path = join(dir, '.auth.lock');
    await mkdir(path, { recursive: true, mode: 0o700 });
    await writeFile(
      join(path, 'owner.json'),
      JSON.stringify({ ...owner, token: 'their-token', createdAt: '2026-01-01T00:00:00.000Z' }),
    );
    if (ageMs > 0) {
      const then = new Date(Date.now() - ageMs);
      await utimes(path, then, then);
    }
    return { dir, path };
  }

  it('is not taken from a holder on another host whose pid means nothing here, while its heartbeat is fresh', async () => {
    const { dir } = await lockHeldBy({ pid: await deadPid(), host: `not-${hostname()}` });
    expect(await tryAcquireLock(dir, 'auth')).toBeUndefined();
    expect(await isLockHeld(dir, 'auth')).toBe(true);
  });

  it('is taken from a dead holder on this host at once, and from any holder whose heartbeat stopped', async () => {
    const dead = await lockHeldBy({ pid: await deadPid(), host: hostname() });
    expect(await isLockHeld(dead.dir, 'auth')).toBe(false);
    // One attempt removes the stale lock; the next takes it.
    expect(await tryAcquireLock(dead.dir, 'auth')).toBeUndefined();
    expect(await readdir(dead.dir)).toEqual([]);
    const silent = await lockHeldBy({ pid: process.pid, host: `not-${hostname()}` }, 60_000);
    expect(await isLockHeld(silent.dir, 'auth', 30_000)).toBe(false);
    expect(await isLockHeld(silent.dir, 'auth', 120_000)).toBe(true);
    expect(await tryAcquireLock(silent.dir, 'auth', 120_000)).toBeUndefined();
    expect(await readdir(silent.dir)).toEqual(['.auth.lock']);
    expect(await tryAcquireLock(silent.dir, 'auth', 30_000)).toBeUndefined();
    expect(await readdir(silent.dir)).toEqual([]);
  });

  it('is not held when there is no lock', async () => {
    const dir = await tempCredentialsDir();
    await mkdir(dir, { recursive: true });
    expect(await isLockHeld(dir, 'auth')).toBe(false);
  });

  it('is created 0700 with its owner 0600, and removed on release', async () => {
    const dir = await tempCredentialsDir();
    const release = await acquireLock(dir, 'auth');
    expect(await mode(join(dir, '.auth.lock'))).toBe(0o700);
    expect(await mode(join(dir, '.auth.lock', 'owner.json'))).toBe(0o600);
    await release();
    expect(await readdir(dir)).toEqual([]);
  });

  it('stops waiting when the call is cancelled, and says so', async () => {
    const { dir } = await lockHeldBy({ pid: process.pid, host: hostname() });
    const controller = new AbortController();
    controller.abort();
    await expect(acquireLock(dir, 'auth', { signal: controller.signal, waitMs: 10_000 })).rejects.toMatchObject({
      code: 'cancelled',
    });
  });

  it('names the lock and its holder when the wait runs out', async () => {
    const { dir, path } = await lockHeldBy({ pid: process.pid, host: hostname() });
    const error = (await acquireLock(dir, 'auth', { waitMs: 0 }).catch((e: unknown) => e)) as MailboxError;
    expect(error).toMatchObject({ code: 'lock_timeout', details: { lockPath: path } });
    expect(error.message).toContain(`(pid ${process.pid} on ${hostname()} since 2026-01-01T00:00:00.000Z)`);
  });

  it('clears a takeover guard left by a dead taker, then takes over the stale lock', async () => {
    const { dir, path } = await lockHeldBy({ pid: await deadPid(), host: hostname() });
    await mkdir(`${path}.takeover`, { mode: 0o700 });
    await writeFile(
      join(`${path}.takeover`, 'owner.json'),
      JSON.stringify({
        pid: await deadPid(),
        host: hostname(),
        token: 'takeover',
        createdAt: '2026-01-01T00:00:00.000Z',
      }),
    );
    const release = await acquireLock(dir, 'auth', { waitMs: 5_000 });
    expect((await readdir(dir)).sort()).toEqual(['.auth.lock']);
    await release();
  });

  it('leaves a takeover guard of a live taker alone and does not take the lock meanwhile', async () => {
    const { dir, path } = await lockHeldBy({ pid: await deadPid(), host: hostname() });
    await mkdir(`${path}.takeover`, { mode: 0o700 });
    await writeFile(
      join(`${path}.takeover`, 'owner.json'),
      JSON.stringify({ pid: process.pid, host: hostname(), token: 'takeover', createdAt: '2026-01-01T00:00:00.000Z' }),
    );
    expect(await tryAcquireLock(dir, 'auth')).toBeUndefined();
    expect((await readdir(dir)).sort()).toEqual(['.auth.lock', '.auth.lock.takeover']);
  });
});

describe('the kind of a credentials directory', () => {
  it('refuses each kind over the other with what to do instead', () => {
    const pow = kindConflictError('/d', 'pow');
    expect(pow).toMatchObject({ code: 'credentials_exist', details: { credentialsDir: '/d', holds: 'pow' } });
    expect(pow.message).toContain('holds a proof-of-work inbox');
    const oauth = kindConflictError('/d', 'oauth');
    expect(oauth).toMatchObject({ code: 'credentials_exist', details: { credentialsDir: '/d', holds: 'oauth' } });
    expect(oauth.message).toContain('holds a connected account');
  });

  it('names an inbox folder by its trimmed, lowercased address and encodes every other byte', () => {
    expect(oauthInboxStateDir('/d', '  Ops+1@Acme.Test ')).toBe('/d/inboxes/ops+1@acme.test');
    expect(oauthInboxStateDir('/d', 'a/b c')).toBe('/d/inboxes/a%2Fb%20c');
    expect(oauthInboxStateDir('/d', 'x\n')).toBe('/d/inboxes/x');
    expect(oauthInboxStateDir('/d', 'é')).toBe('/d/inboxes/%C3%A9');
    expect(oauthInboxStateDir('/d', '..')).toBe('/d/inboxes/%2E%2E');
    expect(oauthInboxStateDir('/d', '')).toBe('/d/inboxes/%00');
    expect(credentialsKindOf('/nonexistent/dir')).toBe('none');
  });
});

describe('an interrupted grant rotation', () => {
  const grant = (generation: number, connectedAt = '2026-01-01T00:00:00.000Z') => ({
    kind: 'oauth',
    version: 1,
    server: { issuer: 'http://127.0.0.1:1', token_endpoint: 'http://127.0.0.1:1/t' },
    apiUrl: 'http://127.0.0.1:2',
    resource: 'http://127.0.0.1:2/jmap',
    clientId: 'c',
    scope: 'mail.read',
    refreshToken: `rt-generation-${generation}-${connectedAt}`,
    generation,
    rotatedAt: connectedAt,
    connectedAt,
  });

  async function scene(current: object | undefined, left: object): Promise<{ dir: string; notices: string[] }> {
    const dir = await tempCredentialsDir();
    await mkdir(dir, { recursive: true, mode: 0o700 });
    if (current) await writeFile(join(dir, 'oauth.json'), JSON.stringify(current), { mode: 0o600 });
    await writeFile(join(dir, `.oauth.json.${await deadPid()}.0123456789ab.tmp`), JSON.stringify(left), {
      mode: 0o600,
    });
    const notices: string[] = [];
    await recoverInterruptedGrantWrite(dir, (message) => void notices.push(message));
    return { dir, notices };
  }

  it('puts a newer generation, or a later connection, in place and says so', async () => {
    for (const [current, left] of [
      [grant(3), grant(4)],
      [grant(9), grant(1, '2026-02-01T00:00:00.000Z')],
      [undefined, grant(2)],
    ] as const) {
      const { dir, notices } = await scene(current, left);
      expect((await new OAuthGrantStore(dir).readGrant())?.refreshToken).toBe(left.refreshToken);
      expect(notices).toHaveLength(1);
      expect(await readdir(dir)).toEqual(['oauth.json']);
    }
  });

  it('removes the same or an older generation, and a copy of an earlier connection', async () => {
    for (const [current, left] of [
      [grant(4), grant(4)],
      [grant(4), grant(3)],
      [grant(1, '2026-02-01T00:00:00.000Z'), grant(9)],
    ] as const) {
      const { dir, notices } = await scene(current, left);
      expect((await new OAuthGrantStore(dir).readGrant())?.refreshToken).toBe(current.refreshToken);
      expect(notices).toEqual([]);
      expect(await readdir(dir)).toEqual(['oauth.json']);
    }
  });

  it('removes temp files of the caches a dead writer left, and nothing of a file it does not own', async () => {
    const dir = await tempCredentialsDir();
    await mkdir(dir, { recursive: true, mode: 0o700 });
    const pid = await deadPid();
    for (const name of [
      `.access-tokens.json.${pid}.0123456789ab.tmp`,
      `.inboxes.json.${pid}.0123456789ab.tmp`,
      `.other.json.${pid}.0123456789ab.tmp`,
    ])
      await writeFile(join(dir, name), '{}');
    await recoverInterruptedGrantWrite(dir, () => undefined);
    expect(await readdir(dir)).toEqual([`.other.json.${pid}.0123456789ab.tmp`]);
  });

  it('refuses a grant without a refresh token or client id, or with an empty client secret, as damaged', async () => {
    for (const broken of [
      { ...grant(1), refreshToken: '' },
      { ...grant(1), clientId: '' },
      { ...grant(1), clientSecret: '' },
      { ...grant(1), generation: 0 },
    ]) {
      const dir = await tempCredentialsDir();
      await mkdir(dir, { recursive: true, mode: 0o700 });
      await writeFile(join(dir, 'oauth.json'), JSON.stringify(broken), { mode: 0o600 });
      const error = (await new OAuthGrantStore(dir).readGrant().catch((e: unknown) => e)) as MailboxError;
      expect(error).toMatchObject({ code: 'credentials_corrupt', details: { path: join(dir, 'oauth.json') } });
      expect(error.message).toContain('does not have the expected fields');
    }
  });

  it('removes every file of the grant and no other', async () => {
    const dir = await tempCredentialsDir();
    const store = new OAuthGrantStore(dir);
    await store.writeGrant(grant(1) as never);
    await store.writeAccessTokens({ connectedAt: 'x', tokens: [] });
    await store.writeInboxList({ fetchedAt: 'x', inboxes: [] });
    await store.writeRenewalJournal({ pid: 1, startedAt: 'x', refreshTokenDigest: 'd' });
    await writeFile(join(dir, 'keep.txt'), 'k');
    await store.removeGrantFiles();
    expect(await readdir(dir)).toEqual(['keep.txt']);
  });
});
