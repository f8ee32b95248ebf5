import { shellQuote } from '../render/shell-quote.js';

/** What the crontab line of one credentials directory runs. */
export interface CronEntrySpec {
  schedule: string;
  nodePath: string;
  cliPath: string;
  credentialsDir: string;
  /** A connected account's inbox (its address): the wake reads that inbox only. */
  inbox?: string;
  logPath: string;
  marker: string;
}

/**
 * The shell command of the job. Every path is absolute and quoted because cron starts it with
 * `/bin/sh`, a near-empty environment and no PATH worth the name (live-service bug 10).
 */
export function buildWakeShellCommand(spec: Omit<CronEntrySpec, 'schedule' | 'marker'>): string {
  return [
    shellQuote(spec.nodePath),
    shellQuote(spec.cliPath),
    'wake',
    '--credentials-dir',
    shellQuote(spec.credentialsDir),
    ...(spec.inbox !== undefined ? ['--inbox', shellQuote(spec.inbox)] : []),
    '>>',
    shellQuote(spec.logPath),
    '2>&1',
  ].join(' ');
}

/**
 * The full crontab line. The marker rides as a trailing shell comment so the entry stays one line
 * (removal can never take a neighbour). crontab(5) turns an unescaped `%` into a newline, so it
 * is escaped.
 */
export function buildCronLine(spec: CronEntrySpec): string {
  const command = buildWakeShellCommand(spec).replace(/%/g, '\\%');
  return `${spec.schedule} ${command} # ${spec.marker}`;
}

/** The shell command of a crontab line as cron would run it (schedule dropped, `\%` restored). */
export function commandOfCronLine(line: string): string {
  return line.replace(/^\s*(?:\S+\s+){5}/, '').replace(/\\%/g, '%');
}

function isEntryOf(line: string, marker: string): boolean {
  return !line.trimStart().startsWith('#') && line.trimEnd().endsWith(`# ${marker}`);
}

/** The line carrying `marker`, if any. */
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
