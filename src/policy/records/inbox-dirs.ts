import { readdir } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import * as z from 'zod';
import { withDirectoryLock } from '../../credentials/directory-lock.js';
import { ensurePrivateDir, readPrivateFile, writeFileAtomic } from '../../credentials/secure-file.js';
import { MailboxError } from '../../errors.js';

/**
 * The credentials directories this OS user registered inboxes in: an inbox's policy layer lives beside its
 * credentials, so the rules binding every inbox (newInboxes) are found even where no process was told of them.
 */

const fileName = 'inbox-dirs.json';
const listSchema = z.object({ dirs: z.array(z.string()) });

/** The directories recorded so far; a list that exists but cannot be read is an error (the rules it leads to may say off). */
export async function knownInboxDirs(userConfigDir: string): Promise<string[]> {
  const path = join(userConfigDir, fileName);
  try {
    const text = await readPrivateFile(path);
    return text === undefined ? [] : listSchema.parse(JSON.parse(text)).dirs;
  } catch (error) {
    throw new MailboxError({
      code: 'policy_unreadable',
      message: `The list of this user's inbox directories (${path}) cannot be read, so the operator's rules in them cannot be checked.`,
      hint: `The operator fixes or removes ${path}; it lists credentials directories, one per inbox, as {"dirs": [...]}.`,
      cause: error,
    });
  }
}

/** The folders inside `dir`; none when it cannot be read. */
export async function subdirectories(dir: string): Promise<string[]> {
  const entries = await readdir(dir, { withFileTypes: true }).catch(() => []);
  // Stryker disable next-line MethodExpression: a file taken for a folder holds no credentials file or layer to read
  return entries.filter((entry) => entry.isDirectory()).map((entry) => join(dir, entry.name));
}

/** Adds `dir` to the list (once), under a lock so two registrations at once both stay. */
export async function rememberInboxDir(userConfigDir: string, dir: string): Promise<void> {
  const path = resolve(dir);
  await ensurePrivateDir(userConfigDir);
  // Stryker disable next-line StringLiteral,ObjectLiteral: the lock's name and wait only matter when two registrations meet
  await withDirectoryLock(
    userConfigDir,
    'inbox-dirs',
    async () => {
      const dirs = await knownInboxDirs(userConfigDir);
      if (dirs.includes(path)) return;
      await writeFileAtomic(join(userConfigDir, fileName), `${JSON.stringify({ dirs: [...dirs, path] }, null, 2)}\n`);
    },
    // Another register holds it for a moment at most; a long wait means something is stuck.
    { waitMs: 10_000 },
  );
}
