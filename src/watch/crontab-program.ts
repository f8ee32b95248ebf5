import { isAbsolute } from 'node:path';
import { MailboxError } from '../errors.js';
import {
  buildCronLine,
  commandOfCronLine,
  findCronEntry,
  removeCronEntry,
  upsertCronEntry,
  type CronEntrySpec,
} from './crontab-entries.js';
import { ProgramMissing, runIfPresent, runProgram, type ProgramRun } from './schedulers/run-program.js';
import type { JobView, ScheduledJob } from './schedulers/scheduler.js';

type Env = Readonly<Record<string, string | undefined>>;

/** The current user's crontab text ('' when they have none), or undefined without a crontab binary. */
async function readCrontab(bin: string, env: Env): Promise<string | undefined> {
  const result = await runIfPresent(bin, ['-l'], env);
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
async function writeCrontab(bin: string, env: Env, text: string): Promise<void> {
  let result: ProgramRun;
  try {
    result = await runProgram(bin, ['-'], env, text);
  } catch (error) {
    if (error instanceof ProgramMissing) throw noCrontabError(bin, error);
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
function noCrontabError(bin: string, cause?: unknown): MailboxError {
  return new MailboxError({
    code: 'watch_unsupported',
    message: `There is no crontab program here (looked for "${bin}"), so no daily job can be installed.`,
    hint: 'Install cron (e.g. `apt-get install cron`), or keep `agent-mailbox watch run --credentials-dir <dir>` running in the foreground (a service manager can restart it).',
    ...(cause === undefined ? {} : { cause }),
  });
}

/** The daily job as one line of the user's crontab, read and written through the program `bin`. */
export function crontabJob(bin: string, env: Env, entry: CronEntrySpec): ScheduledJob {
  const { marker } = entry;
  return {
    async look(): Promise<JobView> {
      const crontab = await readCrontab(bin, env);
      if (crontab === undefined) return { mechanism: 'crontab', available: false, installed: false, verify: [] };
      const line = findCronEntry(crontab, marker);
      return {
        mechanism: 'crontab',
        available: true,
        installed: line !== undefined,
        ...(line !== undefined ? { line, command: commandOfCronLine(line) } : {}),
        verify: ['crontab -l'],
      };
    },
    async install() {
      const current = await readCrontab(bin, env);
      if (current === undefined) throw noCrontabError(bin);
      for (const [name, value] of [
        ['node binary', entry.nodePath],
        ['CLI entry', entry.cliPath],
      ] as const) {
        if (!isAbsolute(value)) {
          throw new MailboxError({
            code: 'watch_failed',
            message: `The ${name} path "${value}" is not absolute; cron runs with no PATH and could not find it.`,
            hint: 'Run the command through its installed `agent-mailbox` binary or with an absolute path to node.',
          });
        }
      }
      const line = buildCronLine(entry);
      if (findCronEntry(current, marker) === line) return false;
      await writeCrontab(bin, env, upsertCronEntry(current, marker, line));
      return true;
    },
    async remove() {
      const current = await readCrontab(bin, env);
      if (current === undefined || findCronEntry(current, marker) === undefined) return false;
      await writeCrontab(bin, env, removeCronEntry(current, marker));
      return true;
    },
  };
}
