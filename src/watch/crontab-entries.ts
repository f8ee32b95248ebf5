import { MailboxError } from '../errors.js';
import { shellQuote } from '../render/shell-quote.js';
import { jobValues, wakeArguments } from './schedulers/job-values.js';
import type { WakeJobSpec } from './schedulers/scheduler.js';

/** What the crontab line of one credentials directory runs, and the marker that names it. */
export type CronEntrySpec = Pick<WakeJobSpec, 'nodePath' | 'cliPath' | 'credentialsDir' | 'inbox' | 'logPath'> & {
  schedule: string;
  marker: string;
};

/**
 * The shell command of the job. Every path is absolute and quoted because cron starts it with
 * `/bin/sh`, a near-empty environment and no PATH worth the name (live-service bug 10).
 */
export function buildWakeShellCommand(spec: Omit<CronEntrySpec, 'schedule' | 'marker'>): string {
  return [...wakeArguments(spec, shellQuote), '>>', shellQuote(spec.logPath), '2>&1'].join(' ');
}

/**
 * The full crontab line. The marker rides as a trailing shell comment so the entry stays one line
 * (removal can never take a neighbour). Before /bin/sh sees the command, cron (crontab(5)) cuts it
 * at the first unescaped `%` (the rest becomes stdin) and turns `\%` into `%`; Vixie cron, Debian's,
 * also turns `\\` into `\`. So every `%` is escaped, and a backslash that a backslash or `%` follows
 * (always inside single quotes here) gets `''` behind it, which sh reads as nothing, so that no cron
 * takes it for an escape. A line break cannot be carried in a crontab line at all: refused.
 */
export function buildCronLine(spec: CronEntrySpec): string {
  refuseLineBreaks(spec);
  const command = buildWakeShellCommand(spec)
    .replace(/\\(?=[\\%])/g, "\\''")
    .replace(/%/g, '\\%');
  return `${spec.schedule} ${command} # ${spec.marker}`;
}

function refuseLineBreaks(spec: CronEntrySpec): void {
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
