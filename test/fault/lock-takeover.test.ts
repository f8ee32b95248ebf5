import { spawn } from 'node:child_process';
import { mkdir, readFile, stat, utimes, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { acquireLock, tryAcquireLock, withDirectoryLock } from '../../src/credentials/directory-lock.js';
import { tempCredentialsDir } from '../helpers/temp-credentials-dir.js';

/**
 * The credentials directory's lock when its holder stops: a holder whose heartbeat stopped (a
 * suspended laptop, a stopped process) is taken over as stale. When it wakes up and releases, the
 * new holder's lock must survive, or two processes would renew tokens or write credentials at once.
 */

async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ['-e', '']);
  const pid = child.pid!;
  await new Promise((resolve) => child.on('exit', resolve));
  return pid;
}

async function plant(path: string, owner: { pid: number; token: string }, ageMs: number): Promise<void> {
  await mkdir(path, { recursive: true });
  await writeFile(
    join(path, 'owner.json'),
    JSON.stringify({ ...owner, host: hostname(), createdAt: new Date().toISOString() }),
  );
  const then = new Date(Date.now() - ageMs);
  await utimes(path, then, then);
}

const ownerOf = async (lock: string): Promise<unknown> => JSON.parse(await readFile(join(lock, 'owner.json'), 'utf8'));

describe('a lock taken over as stale', () => {
  it('survives the release of the holder it was taken from', async () => {
    const dir = await tempCredentialsDir();
    const lock = join(dir, '.auth.lock');
    const releaseFirst = await acquireLock(dir, 'auth');
    // The first holder's heartbeat stops: its lock looks a minute old.
    const old = new Date(Date.now() - 60_000);
    await utimes(lock, old, old);
    const releaseSecond = await acquireLock(dir, 'auth', { staleMs: 30_000, waitMs: 5_000 });
    const second = await ownerOf(lock);

    await releaseFirst();

    expect(await ownerOf(lock), 'the second holder still owns the lock').toEqual(second);
    expect(await tryAcquireLock(dir, 'auth'), 'nobody else gets in while the second holder is inside').toBeUndefined();
    await releaseSecond();
    const third = await tryAcquireLock(dir, 'auth');
    expect(third, 'released by its own holder, the lock is free').toBeTypeOf('function');
    await third!();
  });

  it("lets exactly one of several waiters take over a dead holder's lock at a time", async () => {
    const dir = await tempCredentialsDir();
    await plant(join(dir, '.auth.lock'), { pid: await deadPid(), token: 'dead' }, 0);
    let inside = 0;
    let most = 0;
    const entered: number[] = [];
    await Promise.all(
      [1, 2, 3, 4].map((n) =>
        withDirectoryLock(
          dir,
          'auth',
          async () => {
            inside += 1;
            most = Math.max(most, inside);
            entered.push(n);
            await new Promise((resolve) => setTimeout(resolve, 30));
            inside -= 1;
          },
          { waitMs: 10_000 },
        ),
      ),
    );
    expect(most).toBe(1);
    expect(entered.sort()).toEqual([1, 2, 3, 4]);
  });

  it('is not blocked for ever by a takeover guard its taker left behind when it died', async () => {
    const dir = await tempCredentialsDir();
    const lock = join(dir, '.auth.lock');
    await plant(lock, { pid: await deadPid(), token: 'dead' }, 60_000);
    await plant(`${lock}.takeover`, { pid: await deadPid(), token: 'takeover' }, 60_000);
    expect(await withDirectoryLock(dir, 'auth', async () => 'in', { waitMs: 5_000 })).toBe('in');
    await expect(stat(`${lock}.takeover`)).rejects.toMatchObject({ code: 'ENOENT' });
  });

  it('is left alone while its holder is alive and its heartbeat fresh', async () => {
    const dir = await tempCredentialsDir();
    const lock = join(dir, '.auth.lock');
    await plant(lock, { pid: process.pid, token: 'alive' }, 0);
    await expect(
      withDirectoryLock(dir, 'auth', async () => 'in', { waitMs: 300, staleMs: 30_000 }),
    ).rejects.toMatchObject({ code: 'lock_timeout' });
    expect(await ownerOf(lock)).toMatchObject({ token: 'alive' });
  });
});
