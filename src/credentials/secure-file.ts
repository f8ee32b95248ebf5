import { randomBytes } from 'node:crypto';
import { chmod, mkdir, open, readFile, rename, rm, stat } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { MailboxError } from '../errors.js';

/** Creates the directory 0700, or tightens an existing one (the reference client only did it at creation). */
export async function ensurePrivateDir(dir: string): Promise<void> {
  try {
    await mkdir(dir, { recursive: true, mode: 0o700 });
    if (process.platform !== 'win32' && ((await stat(dir)).mode & 0o777) !== 0o700) await chmod(dir, 0o700);
  } catch (error) {
    throw unwritable(dir, error);
  }
}

/**
 * Writes a file so readers see either the old or the new content, never a mix: a temporary file
 * in the same directory (same filesystem, so rename is atomic), fsync, then rename over the target.
 */
export async function writeFileAtomic(path: string, content: string): Promise<void> {
  const dir = dirname(path);
  await ensurePrivateDir(dir);
  const temp = join(dir, `.${randomBytes(6).toString('hex')}.tmp`);
  try {
    const handle = await open(temp, 'wx', 0o600);
    try {
      await handle.writeFile(content, 'utf8');
      await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(temp, path);
    await syncDir(dir);
  } catch (error) {
    await rm(temp, { force: true }).catch(() => undefined);
    throw unwritable(path, error);
  }
}

/** Reads a file's text, or undefined when it does not exist; tightens its mode to 0600 on the way. */
export async function readPrivateFile(path: string): Promise<string | undefined> {
  try {
    const text = await readFile(path, 'utf8');
    if (process.platform !== 'win32') {
      // Directories and files made by older clients may be group/world readable: tighten on sight.
      if (((await stat(path)).mode & 0o777) !== 0o600) await chmod(path, 0o600).catch(() => undefined);
      const dir = dirname(path);
      if (((await stat(dir)).mode & 0o777) !== 0o700) await chmod(dir, 0o700).catch(() => undefined);
    }
    return text;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw new MailboxError({
      code: 'credentials_unwritable',
      message: `Cannot read ${path}: ${(error as Error).message}.`,
      hint: 'Check the permissions of the credentials directory (it should belong to this user, mode 0700).',
      cause: error,
    });
  }
}

// The rename must itself survive a crash: fsync the directory entry (a no-op error on some platforms).
async function syncDir(dir: string): Promise<void> {
  try {
    const handle = await open(dir, 'r');
    try {
      await handle.sync();
    } finally {
      await handle.close();
    }
  } catch {
    // Windows cannot open directories; rename there is already durable enough.
  }
}

function unwritable(path: string, cause: unknown): MailboxError {
  return new MailboxError({
    code: 'credentials_unwritable',
    message: `Cannot write ${path}: ${(cause as Error).message}.`,
    hint: 'Choose a credentials directory this user can write (--credentials-dir or AGENT_MAILBOX_CREDENTIALS_DIR).',
    cause,
  });
}
