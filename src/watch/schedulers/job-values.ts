import { MailboxError } from '../../errors.js';
import type { WakeJobSpec } from './scheduler.js';

/** The wake's command line, each value quoted for the scheduler's reader (sh and cmd.exe have their own quoting). */
export function wakeArguments(
  spec: Pick<WakeJobSpec, 'nodePath' | 'cliPath' | 'credentialsDir' | 'inbox'>,
  quote: (value: string) => string,
): string[] {
  return [
    quote(spec.nodePath),
    quote(spec.cliPath),
    'wake',
    '--credentials-dir',
    quote(spec.credentialsDir),
    ...(spec.inbox !== undefined ? ['--inbox', quote(spec.inbox)] : []),
  ];
}

/** The values a job carries, named for the operator. */
export function jobValues(
  spec: Pick<WakeJobSpec, 'nodePath' | 'cliPath' | 'credentialsDir' | 'logPath' | 'inbox'>,
): Array<[name: string, value: string]> {
  return [
    ['node binary path', spec.nodePath],
    ['CLI entry path', spec.cliPath],
    ['credentials directory path', spec.credentialsDir],
    ['log file path', spec.logPath],
    ...(spec.inbox !== undefined ? [['inbox address', spec.inbox] as [string, string]] : []),
  ];
}

/** Refuses a value the scheduler could not carry as it is; `why` gives a value's reason, undefined when it is fine. */
export function refuseValues(
  spec: WakeJobSpec,
  scheduler: string,
  why: (name: string, value: string) => string | undefined,
): void {
  for (const [name, value] of jobValues(spec)) {
    // Control characters: a plist (XML 1.0) cannot hold most of them, a batch file line none.
    const reason = /[\u0000-\u001f\u007f]/.test(value)
      ? 'contains a control character or line break'
      : why(name, value);
    if (reason === undefined) continue;
    throw new MailboxError({
      code: 'watch_failed',
      message: `The ${name} ${JSON.stringify(value)} ${reason}, so ${scheduler} could not run the daily job as it is.`,
      hint: 'Use a credentials directory (and node and CLI paths) without such characters, then run watch install again.',
      details: { path: value },
    });
  }
}

export function noSchedulerError(program: string, scheduler: string): MailboxError {
  return new MailboxError({
    code: 'watch_unsupported',
    message: `${program} could not be run here (not found on PATH), so no ${scheduler} job can be installed.`,
    hint: 'Check that PATH includes the system programs, or keep `agent-mailbox watch run --credentials-dir <dir>` running in the foreground.',
  });
}

/** The XML text of a value. */
export function xmlText(value: string): string {
  return value
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&apos;');
}

/** The value of XML text (the five predefined entities and numeric character references). */
export function xmlValue(text: string): string {
  return text.replace(/&(#x[0-9a-f]+|#[0-9]+|amp|lt|gt|quot|apos);/gi, (_, entity: string) => {
    const named: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };
    const lower = entity.toLowerCase();
    if (lower in named) return named[lower] ?? '';
    const code = lower.startsWith('#x') ? parseInt(lower.slice(2), 16) : parseInt(lower.slice(1), 10);
    return String.fromCodePoint(code);
  });
}
