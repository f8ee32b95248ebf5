import { spawnSync } from 'node:child_process';
import { chmod, mkdir, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { MailboxError } from '../../../src/errors.js';
import { installWatch, removeWatch, watchStatus } from '../../../src/watch/install-watch.js';
import { createStandIns, type StandIns } from './scheduler-stand-ins.js';

// The daily job on macOS, with the platform set to darwin, HOME in a temp dir and a stand-in
// launchctl on PATH that records its arguments and keeps the loaded jobs in a JSON file.
let base: string;
let standIns: StandIns;
let home: string;
const uid = 501;

beforeEach(async () => {
  base = await mkdtemp(join(tmpdir(), 'watch-macos-'));
  standIns = await createStandIns(join(base, 'bin'));
  home = join(base, 'home');
  await mkdir(home);
});
afterEach(() => rm(base, { recursive: true, force: true }));

function target(dir: string, path = `${standIns.bin}:/usr/bin:/bin`) {
  return {
    credentialsDir: dir,
    env: { PATH: path, HOME: home, STAND_IN_UID: String(uid) },
    nodePath: '/usr/local/bin/node',
    cliPath: '/opt/agent-mailbox/dist/bin.js',
    crontabBin: 'crontab',
    platform: 'darwin' as const,
    uid,
  };
}

/** The <string> values of the plist's ProgramArguments, decoded as a plist reader would. */
function programArguments(plist: string): string[] {
  const array = /<key>ProgramArguments<\/key>\s*<array>([\s\S]*?)<\/array>/.exec(plist)?.[1] ?? '';
  return [...array.matchAll(/<string>([^<]*)<\/string>/g)].map((m) =>
    (m[1] ?? '')
      .replace(/&lt;/g, '<')
      .replace(/&gt;/g, '>')
      .replace(/&quot;/g, '"')
      .replace(/&apos;/g, "'")
      .replace(/&amp;/g, '&'),
  );
}

const launchctlCalls = async () => (await standIns.calls()).filter((c) => c[0] === 'launchctl' && c[1] !== 'print');

describe('watch on macOS: a LaunchAgent per credentials directory', () => {
  it('writes the plist in ~/Library/LaunchAgents, bootstraps it into gui/<uid>, and a second install changes nothing', async () => {
    const dir = join(base, 'inbox');
    const first = await installWatch(target(dir));
    expect(first).toMatchObject({ mechanism: 'launchd', installed: true, changed: true, schedulerAvailable: true });
    const label = first.jobName ?? '';
    expect(label).toMatch(/^com\.agent-mailbox\.watch\.[0-9a-f]{16}$/);
    const plistPath = join(home, 'Library', 'LaunchAgents', `${label}.plist`);
    expect(first.jobFile).toBe(plistPath);
    expect(await launchctlCalls()).toEqual([['launchctl', 'bootstrap', `gui/${uid}`, plistPath]]);

    const plist = await readFile(plistPath, 'utf8');
    expect(plist).toMatch(
      /<key>StartCalendarInterval<\/key>\s*<dict>\s*<key>Hour<\/key>\s*<integer>9<\/integer>\s*<key>Minute<\/key>\s*<integer>0<\/integer>\s*<\/dict>/,
    );
    expect(plist).toContain(`<key>Label</key>\n  <string>${label}</string>`);
    expect(plist).toContain(`<key>StandardOutPath</key>\n  <string>${join(dir, 'wake.log')}</string>`);
    expect(programArguments(plist)).toEqual([
      '/usr/local/bin/node',
      '/opt/agent-mailbox/dist/bin.js',
      'wake',
      '--credentials-dir',
      dir,
    ]);
    expect((await stat(plistPath)).mode & 0o022).toBe(0);
    expect(Object.keys(await standIns.launchd())).toEqual([label]);
    expect(first.verify).toContain(`launchctl print gui/${uid}/${label}`);
    expect(first.summary).toContain('A LaunchAgent runs');

    const again = await installWatch(target(dir));
    expect(again).toMatchObject({ installed: true, changed: false });
    expect(await launchctlCalls()).toHaveLength(1);
    expect((await watchStatus(target(dir))).installed).toBe(true);
  });

  it('a changed job (the CLI moved) is booted out and bootstrapped again: still one', async () => {
    const dir = join(base, 'inbox');
    const { jobName, jobFile } = await installWatch(target(dir));
    const moved = await installWatch({ ...target(dir), cliPath: '/new/place/dist/bin.js' });
    expect(moved).toMatchObject({ installed: true, changed: true });
    expect(await launchctlCalls()).toEqual([
      ['launchctl', 'bootstrap', `gui/${uid}`, jobFile],
      ['launchctl', 'bootout', `gui/${uid}/${jobName}`],
      ['launchctl', 'bootstrap', `gui/${uid}`, jobFile],
    ]);
    const loaded = await standIns.launchd();
    expect(Object.keys(loaded)).toEqual([jobName]);
    expect(programArguments(loaded[jobName ?? '']?.content ?? '')[1]).toBe('/new/place/dist/bin.js');
  });

  it('a plist booted out by hand is loaded again by install', async () => {
    const dir = join(base, 'inbox');
    const { jobName } = await installWatch(target(dir));
    spawnSync(join(standIns.bin, 'launchctl'), ['bootout', `gui/${uid}/${jobName}`], { env: target(dir).env });
    expect((await watchStatus(target(dir))).installed).toBe(false);
    expect((await installWatch(target(dir))).changed).toBe(true);
    expect(Object.keys(await standIns.launchd())).toEqual([jobName]);
  });

  it('removes exactly its own job and plist; removing again changes nothing', async () => {
    const mine = await installWatch(target(join(base, 'mine')));
    const other = await installWatch(target(join(base, 'other')));
    const removed = await removeWatch(target(join(base, 'mine')));
    expect(removed).toMatchObject({ installed: false, changed: true, mechanism: 'launchd' });
    expect((await launchctlCalls()).filter((c) => c[1] === 'bootout')).toEqual([
      ['launchctl', 'bootout', `gui/${uid}/${mine.jobName}`],
    ]);
    expect(Object.keys(await standIns.launchd())).toEqual([other.jobName]);
    await expect(stat(mine.jobFile ?? '')).rejects.toThrow();
    await stat(other.jobFile ?? '');
    expect((await removeWatch(target(join(base, 'mine')))).changed).toBe(false);
    expect((await launchctlCalls()).filter((c) => c[1] === 'bootout')).toHaveLength(1);
  });

  it('passes paths with spaces, quotes and XML characters to the program exactly (run as launchd runs it)', async () => {
    const dir = join(base, `Ada "the" O'Neil & <co> 100% $HOME`);
    // A stand-in CLI that records the argv it gets, at a path as awkward as the directory's.
    const cliDir = join(base, `my "tools" & 'scripts'`);
    await mkdir(cliDir);
    const cliPath = join(cliDir, 'bin.js');
    await writeFile(
      cliPath,
      `require('node:fs').writeFileSync(${JSON.stringify(join(base, 'argv.json'))}, JSON.stringify(process.argv.slice(2)));\n`,
    );
    await chmod(cliPath, 0o644);
    const status = await installWatch({ ...target(dir), nodePath: process.execPath, cliPath });
    const plist = (await standIns.launchd())[status.jobName ?? '']?.content ?? '';
    const args = programArguments(plist);
    expect(args).toEqual([process.execPath, cliPath, 'wake', '--credentials-dir', dir]);
    // launchd execs the array as it is: no shell reads it.
    const run = spawnSync(args[0] ?? '', args.slice(1), { encoding: 'utf8' });
    expect(run.status).toBe(0);
    expect(JSON.parse(await readFile(join(base, 'argv.json'), 'utf8'))).toEqual(['wake', '--credentials-dir', dir]);
    // The command shown for a manual run is the same argv for a POSIX shell.
    const shown = spawnSync('/bin/sh', ['-c', (status.command ?? '').replace(/ >> .*$/, '')], { encoding: 'utf8' });
    expect(shown.status).toBe(0);
    expect(JSON.parse(await readFile(join(base, 'argv.json'), 'utf8'))).toEqual(['wake', '--credentials-dir', dir]);
  });

  it('keeps an inbox address from the service one argument, whatever XML it holds', async () => {
    const dir = join(base, 'account');
    const address = '</string><string>--evil</string>&amp;@x.test';
    const status = await installWatch({ ...target(dir), inbox: { address, stateDir: join(dir, 'inbox') } });
    const plist = (await standIns.launchd())[status.jobName ?? '']?.content ?? '';
    expect(programArguments(plist).slice(-2)).toEqual(['--inbox', address]);
  });

  it('refuses relative program paths and control characters before anything is loaded', async () => {
    const relative = await installWatch({ ...target(join(base, 'inbox')), nodePath: 'node' }).catch((e: unknown) => e);
    expect(relative).toBeInstanceOf(MailboxError);
    expect((relative as MailboxError).message).toMatch(/node binary path "node" is not absolute/);
    const control = await installWatch(target(join(base, 'tab\there'))).catch((e: unknown) => e);
    expect((control as MailboxError).message).toMatch(/control character/);
    expect(await launchctlCalls()).toEqual([]);
  });

  it('keeps a crontab program the operator named (macOS has cron too): no LaunchAgent then', async () => {
    const crontab = join(base, 'crontab');
    await writeFile(
      crontab,
      '#!/bin/sh\nif [ "$1" = "-l" ]; then cat "$0.table" 2>/dev/null; exit 0; fi\ncat > "$0.table"\n',
    );
    await chmod(crontab, 0o755);
    const status = await installWatch({ ...target(join(base, 'inbox')), crontabBin: crontab });
    expect(status).toMatchObject({ mechanism: 'crontab', installed: true });
    expect(await readFile(`${crontab}.table`, 'utf8')).toContain(status.marker);
    expect(await standIns.calls()).toEqual([]);
  });

  it('without launchctl on PATH: status says unavailable and install fails with watch_unsupported', async () => {
    const dir = join(base, 'inbox');
    const status = await watchStatus(target(dir, '/nonexistent'));
    expect(status).toMatchObject({ mechanism: 'unavailable', schedulerAvailable: false, installed: false });
    expect(status.summary).toContain('launchctl could not be run here');
    const error = await installWatch(target(dir, '/nonexistent')).catch((e: unknown) => e);
    expect((error as MailboxError).code).toBe('watch_unsupported');
  });
});
