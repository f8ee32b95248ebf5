import { spawn } from 'node:child_process';
import { mkdir, readdir, readFile, rm, stat, utimes, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { tempCredentialsDir } from '../../helpers/temp-credentials-dir.js';

/**
 * The lock's takeover at its edges: a holder caught between mkdir and owner.json, a lock that
 * changes while a waiter judges it stale, a guard left by a taker who stopped, the defaults a caller
 * relies on without passing options, and the heartbeat that keeps a long holder's lock its own.
 * A seam on node:fs/promises runs a step of the test at the moment the taker has taken the guard,
 * which is when another process's change would otherwise slip in.
 */

const seam = vi.hoisted(() => ({ onGuardTaken: undefined as (() => Promise<void>) | undefined }));
vi.mock('node:fs/promises', async (importOriginal) => {
  const real = await importOriginal<typeof import('node:fs/promises')>();
  return {
    ...real,
    writeFile: async (...args: Parameters<typeof real.writeFile>) => {
      const step = seam.onGuardTaken;
      if (typeof args[0] === 'string' && args[0].endsWith('.takeover/owner.json') && step) {
        seam.onGuardTaken = undefined;
        await step();
      }
      return real.writeFile(...args);
    },
  };
});

// A fresh copy of the module: another test file in this worker may have loaded it before the seam existed.
vi.resetModules();
const { acquireLock, isLockHeld, tryAcquireLock } = await import('../../../src/credentials/directory-lock.js');

afterEach(() => {
  seam.onGuardTaken = undefined;
  vi.useRealTimers();
});

async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ['-e', '']);
  const pid = child.pid!;
  await new Promise((resolve) => child.on('exit', resolve));
  return pid;
}

async function plant(path: string, owner: { pid: number; token: string } | undefined, ageMs: number): Promise<Date> {
  await mkdir(path, { recursive: true });
  if (owner)
    await writeFile(
      join(path, 'owner.json'),
      JSON.stringify({ ...owner, host: hostname(), createdAt: '2026-01-01T00:00:00.000Z' }),
    );
  const then = new Date(Math.floor((Date.now() - ageMs) / 1000) * 1000);
  await utimes(path, then, then);
  return then;
}

const tokenOf = async (lock: string): Promise<unknown> =>
  (JSON.parse(await readFile(join(lock, 'owner.json'), 'utf8')) as { token: unknown }).token;

describe('a lock whose holder has not written owner.json yet', () => {
  it('counts as held while its heartbeat is fresh, and a waiter that gives up says so without naming a holder', async () => {
    const dir = await tempCredentialsDir();
    const lock = join(dir, '.auth.lock');
    await plant(lock, undefined, 0);
    expect(await isLockHeld(dir, 'auth')).toBe(true);
    expect(await tryAcquireLock(dir, 'auth')).toBeUndefined();
    const error = await acquireLock(dir, 'auth', { waitMs: 0 }).catch((e: unknown) => e);
    expect(error).toMatchObject({
      code: 'lock_timeout',
      message: `Another process holds the lock ${lock} and did not release it in time.`,
    });
  });

  it('is taken over once its heartbeat has stopped', async () => {
    const dir = await tempCredentialsDir();
    await plant(join(dir, '.auth.lock'), undefined, 60_000);
    expect(await isLockHeld(dir, 'auth')).toBe(false);
    const release = await acquireLock(dir, 'auth', { waitMs: 5_000 });
    await release();
  });
});

describe('a lock that changes while a waiter judges it stale', () => {
  it("is left alone when its holder's heartbeat comes back", async () => {
    const dir = await tempCredentialsDir();
    const lock = join(dir, '.auth.lock');
    await plant(lock, { pid: process.pid, token: 'sleeper' }, 60_000);
    seam.onGuardTaken = async () => {
      await utimes(lock, new Date(), new Date());
    };
    expect(await tryAcquireLock(dir, 'auth', 30_000)).toBeUndefined();
    expect(await tokenOf(lock)).toBe('sleeper');
    expect(await readdir(dir)).toEqual(['.auth.lock']);
  });

  it('is left alone when it was touched meanwhile, even though its owner is dead', async () => {
    const dir = await tempCredentialsDir();
    const lock = join(dir, '.auth.lock');
    const dead = await deadPid();
    const judged = await plant(lock, { pid: dead, token: 'dead' }, 5_000);
    seam.onGuardTaken = async () => {
      const later = new Date(judged.getTime() + 2_000);
      await utimes(lock, later, later);
    };
    expect(await tryAcquireLock(dir, 'auth')).toBeUndefined();
    expect(await tokenOf(lock)).toBe('dead');
  });

  it("is left alone when another dead holder's lock took its place", async () => {
    const dir = await tempCredentialsDir();
    const lock = join(dir, '.auth.lock');
    const dead = await deadPid();
    const judged = await plant(lock, { pid: dead, token: 'first' }, 5_000);
    seam.onGuardTaken = async () => {
      await rm(lock, { recursive: true });
      await plant(lock, { pid: dead, token: 'second' }, 0);
      await utimes(lock, judged, judged);
    };
    expect(await tryAcquireLock(dir, 'auth')).toBeUndefined();
    expect(await tokenOf(lock)).toBe('second');
  });

  it('is removed when it is still the very lock that was judged', async () => {
    const dir = await tempCredentialsDir();
    const lock = join(dir, '.auth.lock');
    await plant(lock, { pid: await deadPid(), token: 'dead' }, 5_000);
    expect(await tryAcquireLock(dir, 'auth')).toBeUndefined();
    expect(await readdir(dir)).toEqual([]);
  });
});

describe('a takeover guard', () => {
  it('of a live taker that stopped beating for longer than ten seconds is cleared, even under a longer stale limit', async () => {
    const dir = await tempCredentialsDir();
    const lock = join(dir, '.auth.lock');
    await plant(lock, { pid: await deadPid(), token: 'dead' }, 0);
    await plant(`${lock}.takeover`, { pid: process.pid, token: 'takeover' }, 15_000);
    const release = await acquireLock(dir, 'auth', { waitMs: 5_000, staleMs: 30_000 });
    expect((await readdir(dir)).sort()).toEqual(['.auth.lock']);
    await release();
  });
});

describe('a lock taken without options', () => {
  it('takes over a live-looking holder whose heartbeat stopped thirty seconds ago', async () => {
    const dir = await tempCredentialsDir();
    await plant(join(dir, '.auth.lock'), { pid: process.pid, token: 'silent' }, 45_000);
    const release = await acquireLock(dir, 'auth');
    await release();
  });

  it('waits for a holder that is releasing rather than giving up at once', async () => {
    const dir = await tempCredentialsDir();
    const first = await acquireLock(dir, 'auth');
    const waiting = acquireLock(dir, 'auth');
    setTimeout(() => void first(), 100);
    const second = await waiting;
    await second();
  });

  it('reports an error other than the lock being held at once, without waiting', async () => {
    const dir = await tempCredentialsDir();
    const error = await acquireLock(dir, 'no-such-folder/auth', { waitMs: 60_000 }).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'ENOENT' });
  });
});

describe('a holder', () => {
  it('releases cleanly when its lock was deleted by hand meanwhile', async () => {
    const dir = await tempCredentialsDir();
    const release = await acquireLock(dir, 'auth');
    await rm(join(dir, '.auth.lock'), { recursive: true });
    await expect(release()).resolves.toBeUndefined();
  });

  it('keeps its lock fresh with a heartbeat, so a long task is not taken over', async () => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval'] });
    const dir = await tempCredentialsDir();
    const lock = join(dir, '.auth.lock');
    const release = await acquireLock(dir, 'auth');
    const old = new Date(Date.now() - 60_000);
    await utimes(lock, old, old);
    await vi.advanceTimersByTimeAsync(2_000);
    for (let i = 0; i < 200 && (await stat(lock)).mtimeMs < Date.now() - 30_000; i++)
      await new Promise((resolve) => setImmediate(resolve));
    expect(Date.now() - (await stat(lock)).mtimeMs).toBeLessThan(30_000);
    expect(await tryAcquireLock(dir, 'auth', 30_000)).toBeUndefined();
    await release();
  });

  it('is told it was cancelled, and to run again', async () => {
    const dir = await tempCredentialsDir();
    await plant(join(dir, '.auth.lock'), { pid: process.pid, token: 'holder' }, 0);
    const controller = new AbortController();
    controller.abort();
    await expect(acquireLock(dir, 'auth', { signal: controller.signal, waitMs: 10_000 })).rejects.toMatchObject({
      code: 'cancelled',
      message: 'Cancelled while waiting for the credentials lock.',
      hint: 'Run it again when ready.',
    });
  });
});
