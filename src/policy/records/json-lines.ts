import { constants } from 'node:fs';
import { open } from 'node:fs/promises';
import type * as z from 'zod';

const noFollow = constants.O_NOFOLLOW ?? 0;

/** One write to a 0600 file opened for appending (never via a symlink): it lands whole among others', with no lock. */
export async function appendPrivate(path: string, text: string): Promise<void> {
  const handle = await open(path, constants.O_WRONLY | constants.O_CREAT | constants.O_APPEND | noFollow, 0o600);
  try {
    await handle.write(text);
  } finally {
    await handle.close();
  }
}

/** The lines that parse under `schema`: a line cut by a crash counts for nothing, the lines around it still do. */
export function parseJsonLines<T>(text: string, schema: z.ZodType<T>): T[] {
  return text.split('\n').flatMap((line) => {
    if (!line.trim()) return [];
    try {
      const parsed = schema.safeParse(JSON.parse(line));
      return parsed.success ? [parsed.data] : [];
    } catch {
      return [];
    }
  });
}
