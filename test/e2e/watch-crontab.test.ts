import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir, userInfo } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  repoBin,
  runCli as runCliProcess,
  runCliInProcess,
  type CliRun,
  type RunCliOptions,
} from '../helpers/run-cli.js';
import { createTestCrontab, realCronSkipReason, type TestCrontab } from '../helpers/test-crontab.js';
import { startTestSandbox } from '../../sandbox/test/helpers/sandbox.js';
import { createRecorder, deliverMail, readStateFile, registerInbox } from './watch-fixtures.js';

// Issue 5 "Done when", without ever touching the invoking user's crontab (issue 9): the product is
// pointed at a throwaway user's real crontab (root with cron) or a stand-in, through its `crontab` setting.

const userTable =
  'MAILTO=""\n# the operator\'s own jobs\n17 3 * * * /usr/bin/true nightly\n*/5 * * * * /usr/bin/true every-five-minutes\n';
const realCronSkip = realCronSkipReason();
if (realCronSkip) console.log(`[watch-crontab] real cron part skipped: ${realCronSkip}`);
let base: string;
let table: TestCrontab;
const listCrontab = (): string => table.list();
// The watch commands run in this process (what is tested is the crontab they write); the entry's
// own command line still runs as a real process with an empty environment, as cron would run it.
const runCli = (args: string[], options: Pick<RunCliOptions, 'env'> = {}): Promise<CliRun> =>
  runCliInProcess(args, { env: { AGENT_MAILBOX_CRONTAB: table.bin, ...options.env } });

beforeAll(async () => {
  base = await mkdtemp(join(tmpdir(), 'watch-crontab-'));
  table = await createTestCrontab(base);
});
afterAll(async () => {
  table.dispose();
  await rm(base, { recursive: true, force: true });
});

interface StatusJson {
  installed: boolean;
  changed: boolean;
  marker: string;
  line: string;
  command: string;
  schedule: string;
  nextRun: string;
  verify: string[];
  remove: string;
  wakeCommand?: string;
}

describe("watch with a crontab that is not the invoking user's (issue 5, issue 9)", () => {
  it.skipIf(realCronSkip)('drives the real crontab(1) of a throwaway user when cron is installed', () => {
    expect(table.kind).toBe('throwaway-user');
  });

  it('installs one entry, installing again changes nothing, status shows it, and remove takes only that entry', async () => {
    table.write(userTable);
    const dir = join(base, 'first');

    // A real process: the entry line must name the file that entry runs from (dist/bin.js).
    const installed = await runCliProcess(['watch', 'install', '--credentials-dir', dir], {
      env: { AGENT_MAILBOX_CRONTAB: table.bin },
      cwd: base,
    });
    expect(installed.code, installed.stderr).toBe(0);
    const status = installed.json as StatusJson;
    expect(status).toMatchObject({ installed: true, changed: true, schedule: '0 9 * * *' });
    expect(status.verify).toContain('crontab -l');
    // Spelled as this process was run (a checkout, outside it): pasted into a shell it works.
    expect(status.remove).toBe(`node ${repoBin} watch remove --credentials-dir ${dir}`);
    expect(status.verify).toContain(`node ${repoBin} watch status --credentials-dir ${dir}`);
    const afterInstall = listCrontab();
    expect(afterInstall.startsWith(userTable)).toBe(true);
    expect(afterInstall.split('\n').filter((l) => l.includes(status.marker))).toEqual([status.line]);
    expect(status.line).toMatch(
      /^0 9 \* \* \* \/\S+\/node \/\S+\/dist\/bin\.js wake --credentials-dir \/\S+ >> \/\S+\/wake\.log 2>&1 # agent-mailbox-watch:[0-9a-f]{16}$/,
    );

    const again = await runCli(['watch', 'install', '--credentials-dir', dir]);
    expect(again.code).toBe(0);
    expect(again.json).toMatchObject({ installed: true, changed: false });
    expect(listCrontab()).toBe(afterInstall);

    const shown = await runCli(['watch', 'status', '--credentials-dir', dir]);
    expect(shown.json).toMatchObject({ installed: true, line: status.line });

    const removed = await runCli(['watch', 'remove', '--credentials-dir', dir]);
    expect(removed.json).toMatchObject({ installed: false, changed: true });
    expect(listCrontab()).toBe(userTable);
  });

  it('takes the wake command from AGENT_MAILBOX_WAKE_COMMAND (the config table) when no flag is given', async () => {
    const dir = join(base, 'env-command');
    const installed = await runCli(['watch', 'install', '--credentials-dir', dir], {
      env: { AGENT_MAILBOX_WAKE_COMMAND: 'from-env {prompt}' },
    });
    expect(installed.code, installed.stderr).toBe(0);
    expect(installed.json).toMatchObject({ installed: true, wakeCommand: 'from-env {prompt}' });
    await runCli(['watch', 'remove', '--credentials-dir', dir]);
  });

  it('keeps one entry per credentials directory', async () => {
    table.write(userTable);
    const one = (await runCli(['watch', 'install', '--credentials-dir', join(base, 'one')])).json as StatusJson;
    const two = (await runCli(['watch', 'install', '--credentials-dir', join(base, 'two')])).json as StatusJson;
    expect(one.marker).not.toBe(two.marker);
    await runCli(['watch', 'remove', '--credentials-dir', join(base, 'one')]);
    expect(listCrontab()).toBe(`${userTable}${two.line}\n`);
    await runCli(['watch', 'remove', '--credentials-dir', join(base, 'two')]);
    expect(listCrontab()).toBe(userTable);
  });

  it("the entry's command, run by hand with cron's environment and nothing else, wakes against the sandbox", async () => {
    const sandbox = await startTestSandbox();
    const dir = join(base, 'cron-inbox');
    const inbox = await registerInbox(sandbox, dir, 'cronbot');
    const recorder = await createRecorder(base);
    const installed = await runCli([
      'watch',
      'install',
      '--credentials-dir',
      dir,
      '--wake-command',
      recorder.command(0),
    ]);
    expect(installed.code, installed.stderr).toBe(0);
    const status = installed.json as StatusJson;
    expect(status.line).not.toContain('recorder.mjs');
    await deliverMail(sandbox, inbox, 'Hello from outside');

    // Asynchronous: the sandbox lives in this process and must keep answering meanwhile.
    const code = await new Promise<number | null>((resolve, reject) => {
      // What cron gives a job: HOME, LOGNAME, SHELL and PATH=/usr/bin:/bin. HOME is the run's own
      // (test/helpers/user-home-guard.ts), so the wake's marks stay out of the user's config directory.
      const cronEnv = [
        `HOME=${process.env.HOME ?? ''}`,
        `LOGNAME=${userInfo().username}`,
        'SHELL=/bin/sh',
        'PATH=/usr/bin:/bin',
      ];
      const child = spawn('env', ['-i', ...cronEnv, '/bin/sh', '-c', status.command], { stdio: 'ignore' });
      child.on('error', reject);
      child.on('close', resolve);
    });
    const log = await readFile(join(dir, 'wake.log'), 'utf8');
    expect(code, log).toBe(0);
    expect(log).toContain('"stateAdvanced": true');
    expect(await recorder.calls()).toHaveLength(1);
    expect(await readFile(join(dir, 'inbox-digest.md'), 'utf8')).toContain('Hello from outside');
    expect((await readStateFile(dir)).wakeState).toBeDefined();
    await runCli(['watch', 'remove', '--credentials-dir', dir]);
  });
});
