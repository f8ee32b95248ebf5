import type * as z from 'zod';
import { MailboxError } from '../errors.js';

/** A stored file parsed against its schema (a BOM is no damage); damage is never guessed past, `hint` says the way. */
export function parseStoredJson<T extends z.ZodType>(text: string, schema: T, path: string, hint: string): z.infer<T> {
  let problem: string;
  try {
    const parsed = schema.safeParse(JSON.parse(text.replace(/^\uFEFF/, '')));
    if (parsed.success) return parsed.data;
    problem = `it does not have the expected fields (${parsed.error.issues.map((issue) => issue.path.join('.') || issue.message).join(', ')})`;
  } catch (error) {
    problem = `it is not valid JSON (${(error as Error).message})`;
  }
  throw new MailboxError({
    code: 'credentials_corrupt',
    message: `${path} is damaged: ${problem}. It was left untouched.`,
    hint,
    details: { path },
  });
}

/** The value, or undefined when there is no file or it is damaged: for caches (fetched again) and recovery's candidates. */
export function storedJsonOrUndefined<T extends z.ZodType>(
  text: string | undefined,
  schema: T,
): z.infer<T> | undefined {
  try {
    return text === undefined ? undefined : schema.safeParse(JSON.parse(text.replace(/^\uFEFF/, ''))).data;
  } catch {
    return undefined;
  }
}
