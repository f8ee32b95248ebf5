import { isAbsolute } from 'node:path';
import { MailboxError } from '../errors.js';
import { shellQuote } from '../render/shell-quote.js';
import { jobValues, wakeArguments } from './schedulers/job-values.js';
import { runIfPresent } from './schedulers/run-program.js';
import type { JobView, ScheduledJob, WakeJobSpec } from './schedulers/scheduler.js';

type CronEntrySpec = Pick<WakeJobSpec, 'nodePath' | 'cliPath' | 'credentialsDir' | 'inbox' | 'logPath'> & {
  schedule: string;
  marker: string;
};

/** Every path absolute and quoted: cron starts the job with `/bin/sh` and next to no PATH (live-service bug 10). */
export function buildWakeShellCommand(spec: Omit<CronEntrySpec, 'schedule' | 'marker'>): string {
  return [...wakeArguments(spec, shellQuote), '>>', shellQuote(spec.logPath), '2>&1'].join(' ');
}

/**
 * The marker rides as a trailing shell comment, so the entry stays one line (removal never takes a
 * neighbour). cron (crontab(5)) cuts the command at the first unescaped `%` (the rest is stdin) and
 * turns `\%` into `%`; Vixie cron (Debian's) also `\\` into `\`. So every `%` is escaped, and a
 * backslash before a backslash or `%` (always inside single quotes here) gets `''` behind it, which
 * sh reads as nothing and no cron as an escape. A line break cannot be carried at all: refused.
 */
export function buildCronLine(spec: CronEntrySpec): string {
  // The inbox address comes from the service's inbox list: a line break there would start a line of its own.
  for (const [name, path] of jobValues(spec)) {
    if (!path.includes('\n')) continue;
    throw new MailboxError({
      code: 'watch_failed',
      message: `The ${name} ${JSON.stringify(path)} contains a line break; a crontab entry is a single line, so cron could not run it.`,
      hint: 'Use a credentials directory (and node and CLI paths) without line breaks, then run watch install again.',
      details: { path },
    });
  }
  const command = buildWakeShellCommand(spec)
    .replace(/\\(?=[\\%])/g, "\\''")
    .replace(/%/g, '\\%');
  return `${spec.schedule} ${command} # ${spec.marker}`;
}

/** The shell command of a crontab line as Vixie cron would run it (schedule dropped, `\%` and `\\` unescaped). */
export function commandOfCronLine(line: string): string {
  return line.replace(/^\s*(?:\S+\s+){5}/, '').replace(/\\([\\%])/g, '$1');
}

function isEntryOf(line: string, marker: string): boolean {
  return !line.trimStart().startsWith('#') && line.trimEnd().endsWith(`# ${marker}`);
}

export function findCronEntry(crontab: string, marker: string): string | undefined {
  return crontab.split('\n').find((line) => isEntryOf(line, marker));
}

/** The crontab with exactly the line of `marker` set to `line`; every other line untouched. */
export function upsertCronEntry(crontab: string, marker: string, line: string): string {
  const lines = splitLines(crontab);
  const index = lines.findIndex((l) => isEntryOf(l, marker));
  if (index >= 0) lines[index] = line;
  else lines.push(line);
  return joinLines(lines);
}

/** The crontab without the line of `marker`; every other line untouched. */
export function removeCronEntry(crontab: string, marker: string): string {
  return joinLines(splitLines(crontab).filter((l) => !isEntryOf(l, marker)));
}

function splitLines(text: string): string[] {
  if (text === '') return [];
  return text.replace(/\n$/, '').split('\n');
}

// crontab(1) rejects a last line without a newline on some implementations, so always end with one.
function joinLines(lines: readonly string[]): string {
  return lines.length === 0 ? '' : `${lines.join('\n')}\n`;
}

type Env = Readonly<Record<string, string | undefined>>;

/** The user's crontab ('' when they have none), or undefined without a crontab binary. */
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
  const result = await runIfPresent(bin, ['-'], env, text);
  if (result === undefined) throw noCrontabError(bin);
  if (result.code !== 0)
    throw new MailboxError({
      code: 'watch_failed',
      message: `crontab refused the new table (exit ${result.code}): ${result.stderr.trim() || 'no message'}`,
      hint: 'Your crontab was left as it was. Check `crontab -l`, or use `agent-mailbox watch run` instead.',
    });
}

function noCrontabError(bin: string): MailboxError {
  return new MailboxError({
    code: 'watch_unsupported',
    message: `There is no crontab program here (looked for "${bin}"), so no daily job can be installed.`,
    hint: 'Install cron (e.g. `apt-get install cron`), or keep `agent-mailbox watch run --credentials-dir <dir>` running in the foreground (a service manager can restart it).',
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
      const paths = [['node binary', entry.nodePath] as const, ['CLI entry', entry.cliPath] as const];
      for (const [name, value] of paths.filter(([, path]) => !isAbsolute(path)))
        throw new MailboxError({
          code: 'watch_failed',
          message: `The ${name} path "${value}" is not absolute; cron runs with no PATH and could not find it.`,
          hint: 'Run the command through its installed `agent-mailbox` binary or with an absolute path to node.',
        });
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
