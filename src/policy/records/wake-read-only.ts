import { createHash, randomBytes } from 'node:crypto';
import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { isLockHeld, tryAcquireLock } from '../../credentials/directory-lock.js';
import { inboxKey } from './inbox-state-dir.js';

/**
 * While a wake runs an agent, its inbox is read-only for every process of this OS user, whatever the door or
 * directory: the wake holds a directory lock named after the inbox (owner pid, heartbeat), void once it dies.
 */

const markerFolder = 'wakes-running';

function markerPrefix(inbox: string): string {
  return `wake-${createHash('sha256').update(inboxKey(inbox)).digest('hex').slice(0, 24)}-`;
}

/** Marks `inbox` as being woken until the returned function is called. */
export async function markInboxWaking(userConfigDir: string, inbox: string): Promise<() => Promise<void>> {
  const name = `${markerPrefix(inbox)}${randomBytes(6).toString('hex')}`;
  const release = await tryAcquireLock(join(userConfigDir, markerFolder), name);
  // A fresh random name is never held by anyone else.
  return release ?? (async () => undefined);
}

/** Whether a live wake holds a mark whose name starts with `prefix`. */
async function wakeMarkHeld(userConfigDir: string, prefix: string): Promise<boolean> {
  const dir = join(userConfigDir, markerFolder);
  const names = await readdir(dir).catch(() => [] as string[]);
  for (const entry of names) {
    // Stryker disable next-line Regex: isLockHeld looks the lock up again by the captured name, so a name an anchor would refuse is never held
    const match = /^\.(.+)\.lock$/.exec(entry);
    // Stryker disable next-line OptionalChaining: a match always has its group
    if (match?.[1]?.startsWith(prefix) && (await isLockHeld(dir, match[1]))) return true;
  }
  return false;
}

export async function isInboxWaking(userConfigDir: string, inbox: string): Promise<boolean> {
  return wakeMarkHeld(userConfigDir, markerPrefix(inbox));
}

export async function anyWakeRunning(userConfigDir: string): Promise<boolean> {
  return wakeMarkHeld(userConfigDir, 'wake-');
}
