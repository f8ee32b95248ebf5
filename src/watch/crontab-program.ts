import { spawn } from 'node:child_process';
import { MailboxError } from '../errors.js';

/** Runs the system `crontab` binary; `undefined` from readCrontab means "no crontab binary". */
export interface CrontabProgram {
  bin: string;
  env: Readonly<Record<string, string | undefined>>;
}

interface Completed {
  code: number;
  stdout: string;
  stderr: string;
}

class MissingBinary extends Error {}

function runCrontab(program: CrontabProgram, args: string[], input?: string): Promise<Completed> {
  return new Promise((resolve, reject) => {
    const env: Record<string, string> = {};
    for (const [k, v] of Object.entries(program.env)) if (v !== undefined) env[k] = v;
    const child = spawn(program.bin, args, { env, stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
    child.on('error', (error: NodeJS.ErrnoException) => {
      reject(error.code === 'ENOENT' || error.code === 'EACCES' ? new MissingBinary(error.message) : error);
    });
    child.on('close', (code) => resolve({ code: code ?? -1, stdout, stderr }));
    child.stdin.on('error', () => undefined);
    child.stdin.end(input ?? '');
  });
}

/** The current user's crontab text ('' when they have none), or undefined without a crontab binary. */
export async function readCrontab(program: CrontabProgram): Promise<string | undefined> {
  let result: Completed;
  try {
    result = await runCrontab(program, ['-l']);
  } catch (error) {
    if (error instanceof MissingBinary) return undefined;
    throw error;
  }
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
  let result: Completed;
  try {
    result = await runCrontab(program, ['-'], text);
  } catch (error) {
    if (error instanceof MissingBinary) throw noCrontabError(program.bin, error);
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
