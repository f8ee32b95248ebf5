import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, readFile, utimes, writeFile } from 'node:fs/promises';
import { hostname } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { acquireLock, tryAcquireLock, withDirectoryLock } from '../../../src/credentials/directory-lock.js';
import { MailboxError } from '../../../src/errors.js';
import { tempCredentialsDir } from '../../helpers/temp-credentials-dir.js';

const builtLock = fileURLToPath(new URL('../../../dist/credentials/directory-lock.js', import.meta.url));

function run(script: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['--input-type=module', '-e', script], {
      stdio: ['ignore', 'inherit', 'inherit'],
    });
    child.on('error', reject);
    child.on('exit', (code) => resolve(code ?? -1));
  });
}

async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ['-e', '']);
  const pid = child.pid!;
  await new Promise((resolve) => child.on('exit', resolve));
  return pid;
}

async function plantLock(dir: string, pid: number): Promise<string> {
  const path = join(dir, '.auth.lock');
  await mkdir(path, { recursive: true });
  await writeFile(
    join(path, 'owner.json'),
    JSON.stringify({ pid, host: hostname(), token: 'planted', createdAt: new Date().toISOString() }),
  );
  return path;
}

describe('withDirectoryLock', () => {
  it('lets only one of several processes into the critical section at a time', async () => {
    expect(existsSync(builtLock), 'run `npx tsc -p tsconfig.json` first').toBe(true);
    const dir = await tempCredentialsDir();
    await mkdir(dir, { recursive: true });
    const counter = join(dir, 'counter');
    await writeFile(counter, '0');
    // A read-modify-write with a pause in the middle loses updates unless the lock excludes.
    const script = `
      const { withDirectoryLock } = await import(${JSON.stringify(builtLock)});
      const { readFile, writeFile } = await import('node:fs/promises');
      for (let i = 0; i < 10; i += 1) {
        await withDirectoryLock(${JSON.stringify(dir)}, 'auth', async () => {
          const n = Number(await readFile(${JSON.stringify(counter)}, 'utf8'));
          await new Promise((r) => setTimeout(r, 5));
          await writeFile(${JSON.stringify(counter)}, String(n + 1));
        });
      }`;
    const codes = await Promise.all([run(script), run(script), run(script), run(script)]);
    expect(codes).toEqual([0, 0, 0, 0]);
    expect(await readFile(counter, 'utf8')).toBe('40');
  });

  it('takes over a lock whose owner process is dead', async () => {
    const dir = await tempCredentialsDir();
    await plantLock(dir, await deadPid());
    const started = Date.now();
    expect(await withDirectoryLock(dir, 'auth', async () => 'in', { waitMs: 5_000 })).toBe('in');
    expect(Date.now() - started).toBeLessThan(2_000);
  });

  it('takes over a lock whose heartbeat stopped even if the pid looks alive', async () => {
    const dir = await tempCredentialsDir();
    const path = await plantLock(dir, process.pid);
    const old = new Date(Date.now() - 60_000);
    await utimes(path, old, old);
    expect(await withDirectoryLock(dir, 'auth', async () => 'in', { waitMs: 5_000, staleMs: 30_000 })).toBe('in');
  });

  it('fails with lock_timeout naming the holder when the lock is not released in time', async () => {
    const dir = await tempCredentialsDir();
    const release = await acquireLock(dir, 'auth');
    try {
      const error = (await withDirectoryLock(dir, 'auth', async () => 'never', { waitMs: 200 }).catch(
        (e: unknown) => e,
      )) as MailboxError;
      expect(error.code).toBe('lock_timeout');
      expect(error.message).toContain(`pid ${process.pid}`);
      expect(error.hint).toBe(
        'Wait for the other agent-mailbox process to finish and try again; if none is running, delete that lock directory.',
      );
    } finally {
      await release();
    }
    expect(await withDirectoryLock(dir, 'auth', async () => 'free again', { waitMs: 200 })).toBe('free again');
  });

  it('tryAcquireLock returns nothing while another holder has the lock', async () => {
    const dir = await tempCredentialsDir();
    const release = await acquireLock(dir, 'refresh');
    expect(await tryAcquireLock(dir, 'refresh')).toBeUndefined();
    await release();
    const again = await tryAcquireLock(dir, 'refresh');
    expect(again).toBeTypeOf('function');
    await again!();
  });
});
