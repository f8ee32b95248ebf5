import { randomBytes } from 'node:crypto';
import { hostname } from 'node:os';
import { existsSync } from 'node:fs';
import { mkdir, readFile, rm, stat, utimes, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import * as z from 'zod';
import { MailboxError } from '../errors.js';
import { ensurePrivateDir } from './secure-file.js';

export interface LockOptions {
  /** Before failing with lock_timeout. */
  waitMs?: number;
  /** A lock whose heartbeat is older than this is taken over even if its owner looks alive. */
  staleMs?: number;
  signal?: AbortSignal;
  /** Wraps the wait for another holder: a call's deadline runs it off its clock. */
  whileWaiting?: <T>(wait: () => Promise<T>) => Promise<T>;
}

const ownerSchema = z.object({ pid: z.number(), host: z.string(), token: z.string(), createdAt: z.string() });
type LockOwner = z.infer<typeof ownerSchema>;

function ownerRecord(token: string): LockOwner {
  return { pid: process.pid, host: hostname(), token, createdAt: new Date().toISOString() };
}

const heartbeatMs = 2_000;
const pollMs = 25;

/**
 * Runs `task` under a cross-process lock on `dir`: a lock directory (`mkdir` is atomic) holding owner.json, whose
 * mtime the holder refreshes as a heartbeat; it is stale when its owner's pid is gone (same host) or the heart stopped.
 */
export async function withDirectoryLock<T>(
  dir: string,
  name: string,
  task: () => Promise<T>,
  options: LockOptions = {},
): Promise<T> {
  const acquire = (): Promise<() => Promise<void>> => acquireLock(dir, name, options);
  const release = await (options.whileWaiting ? options.whileWaiting(acquire) : acquire());
  try {
    return await task();
  } finally {
    await release();
  }
}

export async function tryAcquireLock(
  dir: string,
  name: string,
  staleMs?: number,
): Promise<(() => Promise<void>) | undefined> {
  await ensurePrivateDir(dir);
  return (await attempt(join(dir, `.${name}.lock`), staleMs ?? 30_000)) ?? undefined;
}

/** Whether a live process holds the lock now: a crashed holder never keeps what the lock guards in force. */
export async function isLockHeld(dir: string, name: string, staleMs = 30_000): Promise<boolean> {
  const path = join(dir, `.${name}.lock`);
  // An owner yet to write owner.json counts as holding; staleLock is undefined for a fresh lock and for none at all.
  return (await staleLock(path, staleMs)) === undefined && existsSync(path);
}

export async function acquireLock(dir: string, name: string, options: LockOptions = {}): Promise<() => Promise<void>> {
  await ensurePrivateDir(dir);
  const path = join(dir, `.${name}.lock`);
  const deadline = Date.now() + (options.waitMs ?? 5 * 60_000);
  for (;;) {
    const release = await attempt(path, options.staleMs ?? 30_000);
    if (release) return release;
    if (options.signal?.aborted) {
      throw new MailboxError({
        code: 'cancelled',
        message: 'Cancelled while waiting for the credentials lock.',
        hint: 'Run it again when ready.',
      });
    }
    // Stryker disable next-line EqualityOperator: one millisecond either way of a wait of minutes
    if (Date.now() > deadline) {
      const owner = await readOwner(path);
      throw new MailboxError({
        code: 'lock_timeout',
        message: `Another process holds the lock ${path}${owner ? ` (pid ${owner.pid} on ${owner.host} since ${owner.createdAt})` : ''} and did not release it in time.`,
        hint: 'Wait for the other agent-mailbox process to finish and try again; if none is running, delete that lock directory.',
        details: { lockPath: path },
      });
    }
    // Stryker disable next-line ArithmeticOperator: the jitter's shape; any short pause polls the same lock
    await new Promise((resolve) => setTimeout(resolve, pollMs + Math.random() * pollMs));
  }
}

async function attempt(path: string, staleMs: number): Promise<(() => Promise<void>) | undefined> {
  const owner = ownerRecord(randomBytes(8).toString('hex'));
  try {
    await mkdir(path, { mode: 0o700 });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    await takeOverIfStale(path, staleMs);
    return undefined;
  }
  await writeFile(join(path, 'owner.json'), JSON.stringify(owner), { mode: 0o600 });
  const beat = setInterval(() => void utimes(path, new Date(), new Date()).catch(() => undefined), heartbeatMs);
  beat.unref();
  return async () => {
    clearInterval(beat);
    // Release only our own lock: if it was taken over as stale, the new holder's must survive.
    const current = await readOwner(path);
    // Stryker disable next-line BooleanLiteral: `force` only spares a race with someone deleting the lock by hand
    if (current?.token === owner.token) await rm(path, { recursive: true, force: true });
  };
}

/**
 * Removes a lock judged stale: one waiter at a time (a `.takeover` guard) judges again and removes it only if it is the
 * very lock judged (owner token, heartbeat); nothing is put back, which could land over a holder arrived meanwhile.
 */
async function takeOverIfStale(path: string, staleMs: number): Promise<void> {
  const judged = await staleLock(path, staleMs);
  // Stryker disable next-line ConditionalExpression: without it the judgement under the guard finds the same fresh lock and removes nothing
  if (!judged) return;
  const guard = `${path}.takeover`;
  try {
    // Stryker disable next-line ObjectLiteral: the guard is an empty directory for a moment; its mode guards nothing
    await mkdir(guard, { mode: 0o700 });
  } catch (error) {
    // Stryker disable next-line ConditionalExpression: mkdir of the guard beside a lock that exists fails otherwise only if the directory vanishes meanwhile
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    await clearAbandonedGuard(guard, staleMs);
    return;
  }
  try {
    // Stryker disable next-line StringLiteral: the guard's token is never compared
    await writeFile(join(guard, 'owner.json'), JSON.stringify(ownerRecord('takeover')), { mode: 0o600 });
    const again = await staleLock(path, staleMs);
    if (again && again.token === judged.token && again.mtimeMs === judged.mtimeMs)
      await rm(path, { recursive: true, force: true });
  } finally {
    // Stryker disable next-line BooleanLiteral: the guard was made above; `force` only spares a race with a waiter clearing it as abandoned
    await rm(guard, { recursive: true, force: true });
  }
}

/** The lock's identity when it is stale (owner gone on this host, or heartbeat stopped), else undefined. */
async function staleLock(
  path: string,
  staleMs: number,
): Promise<{ token: string | undefined; mtimeMs: number } | undefined> {
  let mtimeMs: number;
  try {
    mtimeMs = (await stat(path)).mtimeMs;
  } catch {
    return undefined; // released meanwhile
  }
  const owner = await readOwner(path);
  // Stryker disable next-line EqualityOperator: one millisecond either way of a threshold of seconds
  const heartbeatStopped = Date.now() - mtimeMs > staleMs;
  const ownerDead = owner !== undefined && owner.host === hostname() && !isAlive(owner.pid);
  return heartbeatStopped || ownerDead ? { token: owner?.token, mtimeMs } : undefined;
}

/** A guard whose holder died mid-takeover would block every later takeover: clear it. */
async function clearAbandonedGuard(guard: string, staleMs: number): Promise<void> {
  const stale = await staleLock(guard, Math.min(staleMs, 10_000));
  // Stryker disable next-line BooleanLiteral: errors are ignored here either way
  if (stale) await rm(guard, { recursive: true, force: true }).catch(() => undefined);
}

async function readOwner(path: string): Promise<LockOwner | undefined> {
  try {
    // Stryker disable next-line StringLiteral: without an encoding readFile gives a Buffer, which JSON.parse reads as UTF-8 all the same
    const parsed = ownerSchema.safeParse(JSON.parse(await readFile(join(path, 'owner.json'), 'utf8')));
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

// Stryker disable all: the catch matters for EPERM, a live process of another user, which a test running as root (as CI does) cannot meet
/** Whether a process of this host may still run (this process counts as alive; another user's too). */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
// Stryker restore all
