import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import * as z from 'zod';
import { MailboxError } from '../errors.js';
import { readOptional, writeAtomically } from './write-atomically.js';

/**
 * watch.json: the operator's wake command and the PATH it was configured under, in a file of its own written
 * only on the operator's command line, so neither a mail nor a model can choose what the daily job executes.
 */
const watchSettingsSchema = z.looseObject({
  wakeCommand: z.string().min(1).optional(),
  /** PATH at install time: cron runs the job with almost none, and the agent CLI must still resolve. */
  path: z.string().optional(),
  updatedAt: z.string().optional(),
});
export type WatchSettings = z.infer<typeof watchSettingsSchema>;

/** A setting given as blank counts as not given. */
export function nonEmpty(value: string | undefined): string | undefined {
  return value === undefined || value.trim() === '' ? undefined : value;
}

export function watchPaths(credentialsDir: string): { settings: string; log: string; digest: string } {
  return {
    settings: join(credentialsDir, 'watch.json'),
    log: join(credentialsDir, 'wake.log'),
    digest: join(credentialsDir, 'inbox-digest.md'),
  };
}

export async function readWatchSettings(credentialsDir: string): Promise<WatchSettings> {
  const file = watchPaths(credentialsDir).settings;
  const text = await readOptional(file);
  if (text === undefined) return {};
  try {
    return watchSettingsSchema.parse(JSON.parse(text));
  } catch (cause) {
    throw new MailboxError({
      code: 'credentials_corrupt',
      message: `${file} is not a valid watch settings file.`,
      hint: `Fix or delete ${file}, then run \`agent-mailbox watch install\` again with --wake-command.`,
      cause,
    });
  }
}

export async function writeWatchSettings(credentialsDir: string, settings: WatchSettings): Promise<void> {
  await mkdir(credentialsDir, { recursive: true, mode: 0o700 });
  const file = watchPaths(credentialsDir).settings;
  await writeAtomically(file, `${JSON.stringify(watchSettingsSchema.parse(settings), null, 2)}\n`, 0o600, {
    code: 'credentials_unwritable',
    hint: 'Check that the credentials directory exists and is writable by this user.',
  });
}
