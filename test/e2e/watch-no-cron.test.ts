import { spawn } from 'node:child_process';
import { mkdtemp, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

// Issue 9: on a machine without cron the crontab tests skip with a one-line reason and the run
// passes; with CI=true the same skips fail the run. "Without cron" is a PATH that hides crontab,
// given to a nested vitest run of the test that needs it.
const root = fileURLToPath(new URL('../..', import.meta.url));
const vitestBin = join(root, 'node_modules/vitest/vitest.mjs');

// Only what the nested runs need; crontab is not among them. The runs start as the file loads (each
// is mostly vitest starting up), as cli-account registers its expiring inbox early.
const bin = await mkdtemp(join(tmpdir(), 'no-cron-bin-'));
for (const tool of ['sh', 'env', 'cat', 'dirname', 'rm', 'chmod']) await symlink(`/bin/${tool}`, join(bin, tool));
await symlink(process.execPath, join(bin, 'node'));
// A home of the nested runs' own: its guard compares the config directory before and after, and
// the outer run's other files register inboxes under the outer home meanwhile.
const home = await mkdtemp(join(tmpdir(), 'no-cron-home-'));
afterAll(async () => {
  await Promise.allSettled([withoutCi, underCi]);
  await rm(bin, { recursive: true, force: true });
  await rm(home, { recursive: true, force: true });
});

function runNested(env: Record<string, string>): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve, reject) => {
    // One file in one worker thread: no forked worker to start, the nested run's largest cost.
    const child = spawn(
      process.execPath,
      [vitestBin, 'run', 'test/e2e/watch-user-crontab.test.ts', '--pool=threads', '--maxWorkers=1'],
      {
        cwd: root,
        env: { PATH: bin, HOME: home, XDG_CONFIG_HOME: join(home, '.config'), ...env },
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let output = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (output += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (output += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, output }));
  });
}

// One after the other: run together under the suite's load, each took over 5 s.
const withoutCi = runNested({});
const underCi = withoutCi.catch(() => undefined).then(() => runNested({ CI: 'true' }));

describe('without cron installed', () => {
  it('skips the crontab tests with a one-line reason and passes', async () => {
    const run = await withoutCi;
    expect(run.output).toContain('skipped: no crontab program on PATH (apt-get install cron to run it)');
    expect(run.code, run.output).toBe(0);
  });

  it('fails the run under CI=true, naming the skipped tests', async () => {
    const run = await underCi;
    expect(run.output).toContain('CI=true but 2 test(s) were skipped');
    expect(run.code, run.output).toBe(1);
  });
});
