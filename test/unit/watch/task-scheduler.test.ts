import { access, mkdir, mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MailboxError } from '../../../src/errors.js';
import { installWatch, removeWatch, watchStatus } from '../../../src/watch/install-watch.js';
import { batchCommandLine, taskEssentials } from '../../../src/watch/schedulers/task-scheduler.js';
import { taskArguments } from '../../../src/watch/schedulers/windows-quoting.js';
import { createStandIns, type StandIns } from './scheduler-stand-ins.js';
import { readBatchLine } from './windows-batch-line.js';

// The daily job on Windows, with the platform set to win32 and a stand-in schtasks on PATH that
// records its arguments and keeps the tasks in a JSON file; the real Task Scheduler is never asked.
let base: string;
let standIns: StandIns;
let home: string;

const nodePath = 'C:\\Program Files\\nodejs\\node.exe';
const cliPath = "C:\\Users\\Ada O'Neil\\AppData\\Roaming\\npm\\node_modules\\agent-mailbox\\dist\\bin.js";

beforeEach(async () => {
  base = await mkdtemp(join(tmpdir(), 'watch-windows-'));
  standIns = await createStandIns(join(base, 'bin'));
  home = join(base, 'home');
  await mkdir(home);
});
afterEach(() => rm(base, { recursive: true, force: true }));

function target(dir: string, path = `${standIns.bin}:/usr/bin:/bin`) {
  return {
    credentialsDir: dir,
    env: { PATH: path, HOME: home },
    nodePath,
    cliPath,
    crontabBin: 'crontab',
    platform: 'win32' as const,
  };
}

const exists = (file: string) =>
  access(file).then(
    () => true,
    () => false,
  );

describe('watch on Windows: a Task Scheduler task per credentials directory', () => {
  it('creates one daily 09:00 task from an XML definition, finds it, and a second install changes nothing', async () => {
    const dir = join(base, 'inbox');
    const first = await installWatch(target(dir));
    expect(first).toMatchObject({
      mechanism: 'task-scheduler',
      installed: true,
      changed: true,
      schedulerAvailable: true,
    });
    expect(first.crontabAvailable).toBe(false);
    const name = first.jobName ?? '';
    expect(name).toMatch(/^agent-mailbox-watch-[0-9a-f]{16}$/);
    expect(first.marker.endsWith(name.slice(-16))).toBe(true);

    const create = (await standIns.calls()).filter((c) => c[1] === '/Create');
    expect(create).toHaveLength(1);
    expect(create[0]?.slice(0, 6)).toEqual(['schtasks', '/Create', '/TN', name, '/XML', create[0]?.[5]]);
    expect(create[0]?.[6]).toBe('/F');
    // The definition file is gone once the task exists.
    expect((await readdir(dir)).filter((f) => f.endsWith('.xml'))).toEqual([]);

    const tasks = await standIns.tasks();
    expect(Object.keys(tasks)).toEqual([name]);
    const xml = tasks[name] ?? '';
    expect(xml).toContain('<StartBoundary>2000-01-01T09:00:00</StartBoundary>');
    expect(xml).toMatch(/<ScheduleByDay>\s*<DaysInterval>1<\/DaysInterval>\s*<\/ScheduleByDay>/);
    expect(xml).toContain('<DisallowStartIfOnBatteries>false</DisallowStartIfOnBatteries>');
    expect(xml).toContain('<LogonType>InteractiveToken</LogonType>');
    const batchPath = join(dir, 'wake-task.cmd');
    expect(taskEssentials(xml)).toEqual({
      command: '%SystemRoot%\\System32\\cmd.exe',
      arguments: `/d /v:off /s /c ""${batchPath}""`,
      startTime: 'T09:00:00',
    });
    expect(first.jobFile).toBe(batchPath);
    const batch = await readFile(batchPath, 'utf8');
    expect(batch.split('\r\n')).toEqual([
      '@echo off',
      expect.stringMatching(/^rem /),
      'chcp 65001 >nul',
      'setlocal DisableDelayedExpansion',
      first.command,
      '',
    ]);
    expect(first.verify).toContain(`schtasks /Query /TN ${name} /V /FO LIST`);
    expect(first.summary).toContain('A Task Scheduler task runs');

    const again = await installWatch(target(dir));
    expect(again).toMatchObject({ installed: true, changed: false });
    expect((await standIns.calls()).filter((c) => c[1] === '/Create')).toHaveLength(1);
    expect(Object.keys(await standIns.tasks())).toEqual([name]);

    const status = await watchStatus(target(dir));
    expect(status).toMatchObject({ installed: true, changed: false, jobName: name });
    expect(status.line).toBe(`%SystemRoot%\\System32\\cmd.exe /d /v:off /s /c ""${batchPath}""`);
  });

  it('says that a configured agent command cannot start from the Windows task yet, and what to do instead', async () => {
    const status = await installWatch({ ...target(join(base, 'inbox')), wakeCommand: 'claude -p {prompt}' });
    expect(status.summary).toContain('on Windows the wake cannot start it yet');
    expect(status.next.join('\n')).toContain('hostPrompt');
    expect(status.hostPrompt).toContain('read-only');
  });

  it('replaces a task that drifted (another action) with the /F switch, still one task', async () => {
    const dir = join(base, 'inbox');
    const { jobName } = await installWatch(target(dir));
    const name = jobName ?? '';
    const tasks = await standIns.tasks();
    await standIns.setTasks({ [name]: (tasks[name] ?? '').replace('/d /v:off', '/d') });
    const repaired = await installWatch(target(dir));
    expect(repaired).toMatchObject({ installed: true, changed: true });
    expect(taskEssentials((await standIns.tasks())[name] ?? '').arguments).toMatch(/^\/d \/v:off /);
    expect(Object.keys(await standIns.tasks())).toEqual([name]);
  });

  it('reads a task printed in UTF-16, as Windows programs may print it', async () => {
    const dir = join(base, 'inbox');
    const utf16 = { ...target(dir), env: { ...target(dir).env, STAND_IN_UTF16: '1' } };
    expect((await installWatch(utf16)).changed).toBe(true);
    const again = await installWatch(utf16);
    expect(again).toMatchObject({ installed: true, changed: false });
    expect(again.line).toBe(`%SystemRoot%\\System32\\cmd.exe /d /v:off /s /c ""${join(dir, 'wake-task.cmd')}""`);
  });

  it('removes exactly its own task and batch file; removing again changes nothing', async () => {
    const mine = join(base, 'mine');
    const other = join(base, 'other');
    const a = await installWatch(target(mine));
    const b = await installWatch(target(other));
    expect(a.jobName).not.toBe(b.jobName);
    expect(Object.keys(await standIns.tasks()).sort()).toEqual([a.jobName, b.jobName].sort());

    const removed = await removeWatch(target(mine));
    expect(removed).toMatchObject({ installed: false, changed: true, mechanism: 'task-scheduler' });
    expect((await standIns.calls()).filter((c) => c[1] === '/Delete')).toEqual([
      ['schtasks', '/Delete', '/TN', a.jobName, '/F'],
    ]);
    expect(Object.keys(await standIns.tasks())).toEqual([b.jobName]);
    expect(await exists(join(mine, 'wake-task.cmd'))).toBe(false);
    expect(await exists(join(other, 'wake-task.cmd'))).toBe(true);
    expect((await watchStatus(target(other))).installed).toBe(true);

    expect((await removeWatch(target(mine))).changed).toBe(false);
    expect((await standIns.calls()).filter((c) => c[1] === '/Delete')).toHaveLength(1);
  });

  it('gives each inbox of a connected account its own task', async () => {
    const dir = join(base, 'account');
    const one = await installWatch({ ...target(dir), inbox: { address: 'a@x.test', stateDir: join(dir, 'a') } });
    const two = await installWatch({ ...target(dir), inbox: { address: 'b&c@x.test', stateDir: join(dir, 'b') } });
    expect(Object.keys(await standIns.tasks())).toHaveLength(2);
    expect(readBatchLine(two.command ?? '').argv.slice(-2)).toEqual(['--inbox', 'b&c@x.test']);
    expect(one.jobFile).toBe(join(dir, 'a', 'wake-task.cmd'));
  });

  it('quotes paths with spaces, quotes, %, ^, &, ! and parentheses so cmd.exe and node read them back exactly', async () => {
    const dir = join(base, "Ada O'Neil 100% a^b & c! (x)");
    const status = await installWatch(target(dir));
    const line = status.command ?? '';
    expect(line).toBe(
      `"${nodePath}" "${cliPath}" wake --credentials-dir "${dir.replace('%', '%%')}" >> "${join(dir, 'wake.log').replace('%', '%%')}" 2>&1`,
    );
    expect(readBatchLine(line)).toEqual({
      argv: [nodePath, cliPath, 'wake', '--credentials-dir', dir],
      log: join(dir, 'wake.log'),
    });
    // The task's own arguments hold the batch file's path with its one % as it is.
    const xml = (await standIns.tasks())[status.jobName ?? ''] ?? '';
    expect(taskEssentials(xml).arguments).toBe(taskArguments(join(dir, 'wake-task.cmd')));
    expect(xml).toContain(`a^b &amp; c! (x)`);
  });

  it('keeps an inbox address from the service one argument: no command of its own, no variable expanded', async () => {
    const dir = join(base, 'account');
    for (const address of ['%COMSPEC%&calc@x.test', 'a^&calc|b>c<d(e)@x.test', '!PATH!@x.test', 'tail\\\\@x.test\\']) {
      const status = await installWatch({ ...target(dir), inbox: { address, stateDir: join(dir, 'inbox') } });
      expect(readBatchLine(status.command ?? '').argv.slice(-2)).toEqual(['--inbox', address]);
    }
    for (const address of ['x" & calc & "@x.test', 'x\\" & calc & \\"@x.test', 'a@x.test\r\ncalc']) {
      const error = await installWatch({ ...target(dir), inbox: { address, stateDir: join(dir, 'inbox') } }).catch(
        (e: unknown) => e,
      );
      expect((error as MailboxError).code).toBe('watch_failed');
    }
    const batch = await readFile(join(dir, 'inbox', 'wake-task.cmd'), 'utf8');
    expect(batch).not.toContain('calc &');
  });

  it('doubles backslashes before a closing quote and every % of a value (the batch line alone)', () => {
    const spec = {
      nodePath: 'C:\\node\\',
      cliPath: 'C:\\cli %PATH% x\\',
      credentialsDir: 'D:\\',
      inbox: '50%%off\\@x.test',
      jobDir: 'D:\\',
      logPath: 'D:\\wake.log',
      id: '0123456789abcdef',
      env: {},
    };
    const line = batchCommandLine(spec);
    expect(line).toBe(
      '"C:\\node\\\\" "C:\\cli %%PATH%% x\\\\" wake --credentials-dir "D:\\\\" --inbox "50%%%%off\\@x.test" >> "D:\\wake.log" 2>&1',
    );
    expect(readBatchLine(line).argv).toEqual([
      'C:\\node\\',
      'C:\\cli %PATH% x\\',
      'wake',
      '--credentials-dir',
      'D:\\',
      '--inbox',
      '50%%off\\@x.test',
    ]);
  });

  it('refuses a path Windows cannot hold or the task could not carry, before anything is registered', async () => {
    for (const [dir, why] of [
      [join(base, 'say "hi"'), /double quote/],
      [join(base, '100%USERNAME%'), /more than one %/],
      [join(base, 'line\nbreak'), /control character or line break/],
    ] as const) {
      const error = await installWatch(target(dir)).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(MailboxError);
      expect((error as MailboxError).code).toBe('watch_failed');
      expect((error as MailboxError).message).toMatch(why);
    }
    const relative = await installWatch({ ...target(join(base, 'inbox')), nodePath: 'node.exe' }).catch(
      (e: unknown) => e,
    );
    expect((relative as MailboxError).message).toMatch(/node binary path "node.exe" is not absolute/);
    expect((await standIns.calls()).filter((c) => c[1] === '/Create')).toEqual([]);
    expect(await standIns.tasks()).toEqual({});
  });

  it('without schtasks on PATH: status says unavailable and install fails with watch_unsupported', async () => {
    const dir = join(base, 'inbox');
    const status = await watchStatus(target(dir, '/nonexistent'));
    expect(status).toMatchObject({ mechanism: 'unavailable', schedulerAvailable: false, installed: false });
    expect(status.summary).toContain('schtasks could not be run here');
    expect(status.next.join('\n')).toContain('watch run');
    const error = await installWatch(target(dir, '/nonexistent')).catch((e: unknown) => e);
    expect((error as MailboxError).code).toBe('watch_unsupported');
    expect((await removeWatch(target(dir, '/nonexistent'))).changed).toBe(false);
  });
});
