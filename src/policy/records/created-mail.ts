import { constants } from 'node:fs';
import { open } from 'node:fs/promises';
import { join } from 'node:path';
import { ensurePrivateDir, readPrivateFile } from '../../credentials/secure-file.js';

/**
 * The ids of mail this tool wrote into the inbox itself (Email/set creates, imports, copies), one
 * per line in the inbox's state folder. JMAP does not say where a stored mail came from, and such
 * mail carries whatever header fields the writer chose, so the `known` mode never takes an
 * Authentication-Results field on one of these as the service's verdict.
 */

export const createdMailFile = 'created-mail.ids';

const noFollow = constants.O_NOFOLLOW ?? 0;

/** Appends ids in one write (lands whole among other processes' appends). */
export async function recordCreatedMail(dir: string, ids: readonly string[]): Promise<void> {
  const clean = ids.filter((id) => id.length > 0 && !/[\r\n]/.test(id));
  if (clean.length === 0) return;
  await ensurePrivateDir(dir);
  const handle = await open(
    join(dir, createdMailFile),
    constants.O_WRONLY | constants.O_CREAT | constants.O_APPEND | noFollow,
    0o600,
  );
  try {
    await handle.write(clean.map((id) => `${id}\n`).join(''));
  } finally {
    await handle.close();
  }
}

/** Every id recorded so far; none when nothing was recorded. */
export async function readCreatedMail(dir: string): Promise<ReadonlySet<string>> {
  const text = await readPrivateFile(join(dir, createdMailFile));
  return new Set((text ?? '').split('\n').filter((line) => line.length > 0));
}
