import { spawn, spawnSync } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../helpers/run-cli.js';
import { startTestSandbox } from '../helpers/sandbox.js';
import { createRecorder, deliverMail, readStateFile, registerInbox } from './watch-fixtures.js';

// Issue 5 "Done when": the real crontab(1) of the user running the tests. The user's table is
// saved first and restored afterwards, whatever happens in between.

function crontab(args: string[], input?: string): { code: number; stdout: string; stderr: string } {
  const result = spawnSync('crontab', args, { input: input ?? '', encoding: 'utf8' });
  if (result.error) throw result.error;
  return { code: result.status ?? -1, stdout: result.stdout, stderr: result.stderr };
}
const listCrontab = (): string => {
  const listed = crontab(['-l']);
  if (listed.code === 0) return listed.stdout;
  if (/no crontab/i.test(listed.stderr)) return '';
  throw new Error(`crontab -l failed: ${listed.stderr}`);
};

const userTable = 'MAILTO=""\n# the operator\'s own jobs\n17 3 * * * /usr/bin/true nightly\n*/5 * * * * /usr/bin/true every-five-minutes\n';
let saved: string | undefined;
let base: string;

beforeAll(async () => {
  const listed = crontab(['-l']);
  saved = listed.code === 0 ? listed.stdout : undefined;
  base = await mkdtemp(join(tmpdir(), 'watch-crontab-'));
});
afterAll(async () => {
  if (saved === undefined) crontab(['-r']);
  else crontab(['-'], saved);
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

describe('watch with the real crontab (issue 5)', () => {
  it('installs one entry, installing again changes nothing, status shows it, and remove takes only that entry', async () => {
    expect(crontab(['-'], userTable).code).toBe(0);
    const dir = join(base, 'first');

    const installed = await runCli(['watch', 'install', '--credentials-dir', dir]);
    expect(installed.code, installed.stderr).toBe(0);
    const status = installed.json as StatusJson;
    expect(status).toMatchObject({ installed: true, changed: true, schedule: '0 9 * * *' });
    expect(status.verify).toContain('crontab -l');
    expect(status.remove).toContain('agent-mailbox watch remove --credentials-dir');
    const afterInstall = listCrontab();
    expect(afterInstall.startsWith(userTable)).toBe(true);
    expect(afterInstall.split('\n').filter((l) => l.includes(status.marker))).toEqual([status.line]);
    expect(status.line).toMatch(/^0 9 \* \* \* \/\S+\/node \/\S+\/dist\/bin\.js wake --credentials-dir \/\S+ >> \/\S+\/wake\.log 2>&1 # agent-mailbox-watch:[0-9a-f]{16}$/);

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

  it('keeps one entry per credentials directory', async () => {
    expect(crontab(['-'], userTable).code).toBe(0);
    const one = (await runCli(['watch', 'install', '--credentials-dir', join(base, 'one')])).json as StatusJson;
    const two = (await runCli(['watch', 'install', '--credentials-dir', join(base, 'two')])).json as StatusJson;
    expect(one.marker).not.toBe(two.marker);
    await runCli(['watch', 'remove', '--credentials-dir', join(base, 'one')]);
    expect(listCrontab()).toBe(`${userTable}${two.line}\n`);
    await runCli(['watch', 'remove', '--credentials-dir', join(base, 'two')]);
    expect(listCrontab()).toBe(userTable);
  });

  it("the entry's command, run by hand with an empty environment, wakes against the sandbox", async () => {
    const sandbox = await startTestSandbox();
    const dir = join(base, 'cron-inbox');
    const inbox = await registerInbox(sandbox, dir, 'cronbot');
    const recorder = await createRecorder(base);
    const installed = await runCli(['watch', 'install', '--credentials-dir', dir, '--wake-command', recorder.command(0)]);
    expect(installed.code, installed.stderr).toBe(0);
    const status = installed.json as StatusJson;
    expect(status.line).not.toContain('recorder.mjs');
    await deliverMail(sandbox, inbox, 'Hello from outside');

    // Asynchronous: the sandbox lives in this process and must keep answering meanwhile.
    const code = await new Promise<number | null>((resolve, reject) => {
      const child = spawn('env', ['-i', '/bin/sh', '-c', status.command], { stdio: 'ignore' });
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
