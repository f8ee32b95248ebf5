import { MailboxError } from '../errors.js';
import { ProgramMissing, runIfPresent, runProgram, type ProgramRun } from './schedulers/run-program.js';

/** Runs the system `crontab` binary; `undefined` from readCrontab means "no crontab binary". */
export interface CrontabProgram {
  bin: string;
  env: Readonly<Record<string, string | undefined>>;
}

/** The current user's crontab text ('' when they have none), or undefined without a crontab binary. */
export async function readCrontab(program: CrontabProgram): Promise<string | undefined> {
  const result = await runIfPresent(program.bin, ['-l'], program.env);
  if (result === undefined) return undefined;
  if (result.code === 0) return result.stdout;
  // Debian/cronie print "no crontab for <user>" and exit 1 for an empty table.
  if (/no crontab/i.test(result.stderr)) return '';
  throw new MailboxError({
    code: 'watch_failed',
    message: `crontab -l failed (exit ${result.code}): ${result.stderr.trim() || 'no message'}`,
    hint: 'Check that this user may use cron (see /etc/cron.allow and /etc/cron.deny), or use `agent-mailbox watch run` instead.',
  });
}

/** Replaces the current user's crontab with `text` (via `crontab -`, which validates it). */
export async function writeCrontab(program: CrontabProgram, text: string): Promise<void> {
  let result: ProgramRun;
  try {
    result = await runProgram(program.bin, ['-'], program.env, text);
  } catch (error) {
    if (error instanceof ProgramMissing) throw noCrontabError(program.bin, error);
    throw error;
  }
  if (result.code !== 0) {
    throw new MailboxError({
      code: 'watch_failed',
      message: `crontab refused the new table (exit ${result.code}): ${result.stderr.trim() || 'no message'}`,
      hint: 'Your crontab was left as it was. Check `crontab -l`, or use `agent-mailbox watch run` instead.',
    });
  }
}

/** The error for a machine without crontab (containers, Windows). */
export function noCrontabError(bin: string, cause?: unknown): MailboxError {
  return new MailboxError({
    code: 'watch_unsupported',
    message: `There is no crontab program here (looked for "${bin}"), so no daily job can be installed.`,
    hint: 'Install cron (e.g. `apt-get install cron`), or keep `agent-mailbox watch run --credentials-dir <dir>` running in the foreground (a service manager can restart it).',
    ...(cause === undefined ? {} : { cause }),
  });
}
