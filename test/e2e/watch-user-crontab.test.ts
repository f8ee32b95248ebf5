import { spawnSync } from 'node:child_process';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { noCrontab, runCli } from '../helpers/run-cli.js';
import { systemCrontab } from '../helpers/test-crontab.js';

// The invoking user's crontab is never rewritten by the tests; they only read it. In CI,
// .ci/run plants a sentinel line first, so the table compared is never empty, and the run's
// globalSetup (test/helpers/user-crontab-guard.ts) compares it once more after every file ran.

const crontab = systemCrontab();
if (!crontab) console.log('[watch-user-crontab] skipped: no crontab program on PATH (apt-get install cron to run it)');
const sentinel = '# agent-mailbox test sentinel: this line must survive the test run';
const spoolCandidates = [`/var/spool/cron/crontabs/${userInfo().username}`, `/var/spool/cron/${userInfo().username}`];

function listUserTable(): string | undefined {
  const listed = spawnSync(crontab ?? 'crontab', ['-l'], { encoding: 'utf8' });
  return listed.status === 0 ? listed.stdout : undefined;
}

/** mtime of the user's crontab file where this user may see it (root, or cronie's layout). */
async function spoolMtime(): Promise<number | undefined> {
  for (const file of spoolCandidates) {
    try {
      return (await stat(file)).mtimeMs;
    } catch {
      // not this layout, or not readable by this user
    }
  }
  return undefined;
}

describe.skipIf(!crontab)("the invoking user's crontab", () => {
  let base: string;
  let before: { table: string | undefined; mtime: number | undefined };

  beforeAll(async () => {
    base = await mkdtemp(join(tmpdir(), 'watch-user-crontab-'));
    before = { table: listUserTable(), mtime: await spoolMtime() };
  });
  afterAll(async () => {
    await rm(base, { recursive: true, force: true });
  });

  it('is left alone by watch install/status/remove as the tests run them', async () => {
    const dir = join(base, 'inbox');
    const install = await runCli(['watch', 'install', '--credentials-dir', dir]);
    expect(install.code, install.stdout).toBe(1);
    expect(install.json).toMatchObject({ error: { code: 'watch_unsupported' } });
    expect(install.stderr).toContain(noCrontab);
    expect((await runCli(['watch', 'status', '--credentials-dir', dir])).json).toMatchObject({
      crontabAvailable: false,
    });
    expect((await runCli(['watch', 'remove', '--credentials-dir', dir])).code).toBe(0);

    expect(listUserTable()).toBe(before.table);
    // Only .ci/run plants the sentinel (and says so): a fork's CI or a developer's `CI=true npm test`
    // compares whatever table is there.
    if (process.env.AGENT_MAILBOX_CRONTAB_SENTINEL === '1') expect(before.table).toContain(sentinel);
    expect(await spoolMtime()).toBe(before.mtime);
  });

  it('is not reached by the default crontab setting when crontab is not on PATH either', async () => {
    const dir = join(base, 'no-path');
    // Unset the test default: the product falls back to `crontab` on a PATH that has none.
    const run = await runCli(['watch', 'install', '--credentials-dir', dir], {
      env: { AGENT_MAILBOX_CRONTAB: '', PATH: join(base, 'empty-bin') },
    });
    expect(run.code, run.stderr).toBe(1);
    expect(run.json).toMatchObject({ error: { code: 'watch_unsupported' } });
    expect(run.stderr).toContain('Install cron');
    expect(listUserTable()).toBe(before.table);
    expect(await spoolMtime()).toBe(before.mtime);
  });
});
