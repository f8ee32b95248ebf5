import { spawnSync } from 'node:child_process';
import { statSync } from 'node:fs';
import { userInfo } from 'node:os';

/**
 * vitest globalSetup (issue 9): the invoking user's crontab must come out of a whole test run as it
 * went in, text and file modification time alike. Tests reach crontabs only through a throwaway
 * user or a stand-in; this guard is what would notice one that did not, whichever file it was in
 * and whenever it happened. It only reads: `crontab -l` and a stat of the user's spool file.
 * .ci/run plants a sentinel line first, so in CI the table checked is never empty.
 */

interface CrontabSnapshot {
  table: string | undefined;
  mtimeMs: number | undefined;
}

function snapshot(): CrontabSnapshot {
  const listed = spawnSync('crontab', ['-l'], { encoding: 'utf8' });
  const table = listed.error === undefined && listed.status === 0 ? listed.stdout : undefined;
  const user = userInfo().username;
  let mtimeMs: number | undefined;
  for (const file of [`/var/spool/cron/crontabs/${user}`, `/var/spool/cron/${user}`]) {
    try {
      mtimeMs = statSync(file).mtimeMs;
      break;
    } catch {
      // another cron's layout, or not readable by this user
    }
  }
  return { table, mtimeMs };
}

export default function guardUserCrontab(): () => void {
  const before = snapshot();
  return () => {
    const after = snapshot();
    if (after.table === before.table && after.mtimeMs === before.mtimeMs) return;
    // A thrown teardown error is only logged by vitest; the run must fail.
    process.exitCode = 1;
    process.stderr.write(
      `\nThe test run changed the invoking user's crontab (it must never touch it).\n` +
        `before (mtime ${before.mtimeMs ?? 'none'}):\n${before.table ?? '(no crontab)'}\n` +
        `after (mtime ${after.mtimeMs ?? 'none'}):\n${after.table ?? '(no crontab)'}\n`,
    );
  };
}
