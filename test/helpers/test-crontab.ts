import { spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { chmod, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

/**
 * A crontab that is never the invoking user's. As root with cron installed: a throwaway user made
 * for this run, driven through the real crontab(1) with `-u`. Elsewhere: a file-backed stand-in with
 * the same interface (-l, - from stdin, "no crontab" on exit 1). The product reaches either one
 * through its `crontab` setting (AGENT_MAILBOX_CRONTAB), exactly as an operator would configure it.
 */
export interface TestCrontab {
  kind: 'throwaway-user' | 'stand-in';
  /** The program to hand the product as AGENT_MAILBOX_CRONTAB. */
  bin: string;
  /** The table as `crontab -l` shows it ('' for none). */
  list(): string;
  write(text: string): void;
  dispose(): void;
}

const standIn = `#!/bin/sh
table="$(dirname "$0")/table"
if [ "$1" = "-l" ]; then
  if [ -f "$table" ]; then cat "$table"; exit 0; fi
  echo "no crontab for tester" >&2; exit 1
fi
if [ "$1" = "-" ]; then cat > "$table"; exit 0; fi
if [ "$1" = "-r" ]; then rm -f "$table"; exit 0; fi
exit 2
`;

/** Absolute path of the system crontab program, or undefined when cron is not installed. */
export function systemCrontab(): string | undefined {
  const found = spawnSync('sh', ['-c', 'command -v crontab'], { encoding: 'utf8' });
  const path = found.stdout.trim();
  return found.status === 0 && path.startsWith('/') ? path : undefined;
}

/** One line saying why the real-cron tests cannot run here, or undefined when they can. */
export function realCronSkipReason(): string | undefined {
  if (systemCrontab() === undefined) return 'no crontab program on PATH (apt-get install cron to run it)';
  if (process.getuid?.() !== 0) return 'needs root to create a throwaway crontab user (CI runs it as root)';
  if (spawnSync('sh', ['-c', 'command -v useradd'], { encoding: 'utf8' }).status !== 0)
    return 'no useradd to create a throwaway user';
  return undefined;
}

function run(bin: string, args: string[], input?: string): { code: number; stdout: string; stderr: string } {
  const result = spawnSync(bin, args, { input: input ?? '', encoding: 'utf8' });
  if (result.error) throw result.error;
  return { code: result.status ?? -1, stdout: result.stdout, stderr: result.stderr };
}

function listWith(bin: string): string {
  const listed = run(bin, ['-l']);
  if (listed.code === 0) return listed.stdout;
  if (/no crontab/i.test(listed.stderr)) return '';
  throw new Error(`${bin} -l failed: ${listed.stderr}`);
}

function writeWith(bin: string, text: string): void {
  const written = run(bin, ['-'], text);
  if (written.code !== 0) throw new Error(`${bin} - refused the table: ${written.stderr}`);
}

/** A file-backed crontab program in `dir` (the table lives next to it). */
export async function createStandInCrontab(dir: string): Promise<TestCrontab> {
  const bin = join(dir, 'crontab');
  await writeFile(bin, standIn);
  await chmod(bin, 0o755);
  return { kind: 'stand-in', bin, list: () => listWith(bin), write: (text) => writeWith(bin, text), dispose() {} };
}

/** The real crontab(1) of a user created for this run, removed (with its table) by dispose. */
export async function createThrowawayUserCrontab(dir: string): Promise<TestCrontab> {
  const crontab = systemCrontab();
  if (crontab === undefined) throw new Error('no crontab program');
  const user = `amtest${randomBytes(4).toString('hex')}`;
  const made = run('useradd', ['--no-create-home', '--shell', '/usr/sbin/nologin', user]);
  if (made.code !== 0) throw new Error(`useradd ${user} failed: ${made.stderr}`);
  const bin = join(dir, 'crontab-as-test-user');
  await writeFile(bin, `#!/bin/sh\nexec ${crontab} -u ${user} "$@"\n`);
  await chmod(bin, 0o755);
  return {
    kind: 'throwaway-user',
    bin,
    list: () => listWith(bin),
    write: (text) => writeWith(bin, text),
    dispose() {
      run(crontab, ['-u', user, '-r']);
      run('userdel', [user]);
    },
  };
}

/** The best crontab this machine offers for tests: a throwaway user's real one, else the stand-in. */
export async function createTestCrontab(dir: string): Promise<TestCrontab> {
  return realCronSkipReason() === undefined ? createThrowawayUserCrontab(dir) : createStandInCrontab(dir);
}
