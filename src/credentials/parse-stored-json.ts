import type { z } from 'zod';
import { MailboxError } from '../errors.js';

/** A JSON file read back: its checked value, or what is wrong with it in words a person can act on. */
export type StoredJson<T> = { value: T } | { problem: string };

/** A stored file parsed and checked against its schema; a leading byte-order mark (Windows editors) is no damage. */
export function parseStoredJson<T extends z.ZodType>(text: string, schema: T): StoredJson<z.infer<T>> {
  let raw: unknown;
  try {
    raw = JSON.parse(text.replace(/^\uFEFF/, ''));
  } catch (error) {
    return { problem: `it is not valid JSON (${(error as Error).message})` };
  }
  const parsed = schema.safeParse(raw);
  if (parsed.success) return { value: parsed.data };
  return {
    problem: `it does not have the expected fields (${parsed.error.issues.map((issue) => issue.path.join('.') || issue.message).join(', ')})`,
  };
}

/** The value, or undefined when there is no file or it is damaged: for caches (fetched again) and for recovery's candidates. */
export function storedJsonOrUndefined<T extends z.ZodType>(
  text: string | undefined,
  schema: T,
): z.infer<T> | undefined {
  if (text === undefined) return undefined;
  const read = parseStoredJson(text, schema);
  return 'value' in read ? read.value : undefined;
}

/** A damaged file that must not be guessed past: named with what is wrong, left as it is, and what to do. */
export function damagedFileError(path: string, problem: string, hint: string): MailboxError {
  return new MailboxError({
    code: 'credentials_corrupt',
    message: `${path} is damaged: ${problem}. It was left untouched.`,
    hint,
    details: { path },
  });
}
