import { randomBytes } from 'node:crypto';
import { readFile, rename, rm, writeFile } from 'node:fs/promises';
import { MailboxError, type ErrorCode } from '../errors.js';

export async function readOptional(file: string): Promise<string | undefined> {
  try {
    return await readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}

/** Through a temp file and a rename, so a reader sees the old file or the new one, never a part. */
export async function writeAtomically(
  file: string,
  content: string | Buffer,
  mode: number,
  failure?: { code: ErrorCode; hint: string },
): Promise<void> {
  const temp = `${file}.${randomBytes(6).toString('hex')}.tmp`;
  try {
    await writeFile(temp, content, { mode });
    await rename(temp, file);
  } catch (error) {
    await rm(temp, { force: true });
    if (!failure) throw error;
    throw new MailboxError({
      code: failure.code,
      message: `Could not write ${file}: ${(error as Error).message}`,
      hint: failure.hint,
      cause: error,
    });
  }
}
