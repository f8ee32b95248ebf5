import { randomBytes } from 'node:crypto';
import { mkdir, open, readFile, rename, rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { z } from 'zod';
import { SandboxError } from './sandbox-error.js';

/** Creates `dir` (and parents) owner-only: it holds the signing key and apiKey hashes. */
export async function ensurePrivateDir(dir: string): Promise<void> {
  await mkdir(dir, { recursive: true, mode: 0o700 });
}

/**
 * Writes JSON so a crash never leaves a half-written file: a 0600 temp file in the same
 * directory, fsynced, then renamed over the target (rename is atomic on one filesystem).
 */
export async function writeJsonAtomic(path: string, value: unknown): Promise<void> {
  await ensurePrivateDir(dirname(path));
  const temp = join(dirname(path), `.${randomBytes(6).toString('hex')}.tmp`);
  const handle = await open(temp, 'wx', 0o600);
  try {
    await handle.writeFile(`${JSON.stringify(value, null, 2)}\n`, 'utf8');
    await handle.sync();
  } finally {
    await handle.close();
  }
  try {
    await rename(temp, path);
  } catch (error) {
    await rm(temp, { force: true });
    throw error;
  }
}

/** Reads and validates a JSON file; `undefined` when it does not exist. */
export async function readJsonFile<T>(path: string, schema: z.ZodType<T>): Promise<T | undefined> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw corrupt(path, error);
  }
  const result = schema.safeParse(parsed);
  if (!result.success) throw corrupt(path, result.error);
  return result.data;
}

function corrupt(path: string, cause: unknown): SandboxError {
  return new SandboxError(
    `The sandbox data file ${path} is not valid.`,
    'Restore it from a backup, or start the sandbox with a fresh --data-dir (the inboxes in the old one are then lost).',
    undefined,
    { cause },
  );
}
