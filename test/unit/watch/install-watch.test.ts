import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { installWatch, removeWatch, watchStatus } from '../../../src/watch/install-watch.js';
import { createStandInCrontab } from '../../helpers/test-crontab.js';

// The shared file-backed stand-in for crontab(1) (test/helpers/test-crontab.ts), so these tests
// never touch the real user's table; test/e2e/watch-crontab.test.ts drives a real one.
let base: string;
let crontabBin: string;
let table: string;
let dir: string;

beforeEach(async () => {
  base = await mkdtemp(join(tmpdir(), 'watch-install-'));
  table = join(base, 'table');
  dir = join(base, 'inbox');
  crontabBin = (await createStandInCrontab(base)).bin;
});
afterEach(async () => {
  await rm(base, { recursive: true, force: true });
});

const target = () => ({
  credentialsDir: dir,
  env: { PATH: '/usr/bin:/bin' },
  nodePath: '/usr/bin/node',
  cliPath: '/opt/am/dist/bin.js',
  crontabBin,
});

describe('installWatch / removeWatch / watchStatus', () => {
  it('installs one entry, keeps the user lines, and a second install changes nothing', async () => {
    await writeFile(table, '# mine\n5 4 * * * /bin/true\n');
    const first = await installWatch(target());
    expect(first).toMatchObject({ installed: true, changed: true, mechanism: 'crontab', schedule: '0 9 * * *' });
    const second = await installWatch(target());
    expect(second.changed).toBe(false);
    const text = await readFile(table, 'utf8');
    expect(text.startsWith('# mine\n5 4 * * * /bin/true\n')).toBe(true);
    expect(text.split('\n').filter((l) => l.includes(first.marker))).toHaveLength(1);
    expect(first.command).toBe(
      `/usr/bin/node /opt/am/dist/bin.js wake --credentials-dir ${dir} >> ${join(dir, 'wake.log')} 2>&1 # ${first.marker}`,
    );
    expect(first.verify).toContain('crontab -l');
    expect(first.remove).toBe(`agent-mailbox watch remove --credentials-dir ${dir}`);
  });

  it('stores the wake command in watch.json (0600), not in the crontab line, and keeps it on a later install', async () => {
    const status = await installWatch({ ...target(), wakeCommand: 'agent -p {prompt}' });
    expect(status.wakeCommand).toBe('agent -p {prompt}');
    expect(status.line).not.toContain('agent -p');
    const settings = JSON.parse(await readFile(join(dir, 'watch.json'), 'utf8')) as Record<string, unknown>;
    expect(settings).toMatchObject({ wakeCommand: 'agent -p {prompt}', path: '/usr/bin:/bin' });
    expect((await stat(join(dir, 'watch.json'))).mode & 0o777).toBe(0o600);
    expect((await installWatch(target())).wakeCommand).toBe('agent -p {prompt}');
  });

  it('removes only its own entry and reports not installed afterwards', async () => {
    await writeFile(table, '5 4 * * * /bin/true\n');
    const other = { ...target(), credentialsDir: join(base, 'other') };
    await installWatch(target());
    await installWatch(other);
    const removed = await removeWatch(target());
    expect(removed).toMatchObject({ installed: false, changed: true });
    expect((await watchStatus(other)).installed).toBe(true);
    expect((await readFile(table, 'utf8')).startsWith('5 4 * * * /bin/true\n')).toBe(true);
    expect((await removeWatch(target())).changed).toBe(false);
  });

  it('reports the next run, the log and digest paths, and a proposal for the detected host', async () => {
    const status = await installWatch({ ...target(), env: { CLAUDECODE: '1' }, now: new Date(2026, 10, 22, 10, 0) });
    expect(status.nextRun).toBe(new Date(2026, 10, 23, 9, 0).toISOString());
    expect(status.logPath).toBe(join(dir, 'wake.log'));
    expect(status.digestPath).toBe(join(dir, 'inbox-digest.md'));
    expect(status.proposal?.host).toBe('claude-code');
    expect(status.next.join('\n')).toContain('--wake-command');
    expect(status.hasCredentials).toBe(false);
  });

  it('without a crontab program, install fails with watch_unsupported and status recommends watch run', async () => {
    const missing = { ...target(), crontabBin: join(base, 'no-such-crontab') };
    await expect(installWatch(missing)).rejects.toMatchObject({
      code: 'watch_unsupported',
      hint: 'Install cron (e.g. `apt-get install cron`), or keep `agent-mailbox watch run --credentials-dir <dir>` running in the foreground (a service manager can restart it).',
    });
    const status = await watchStatus(missing);
    expect(status).toMatchObject({ mechanism: 'unavailable', crontabAvailable: false, installed: false });
    expect(status.next[0]).toContain('agent-mailbox watch run');
  });

  it('refuses a relative node path, because cron has no PATH to find it with', async () => {
    await expect(installWatch({ ...target(), nodePath: 'node' })).rejects.toMatchObject({ code: 'watch_failed' });
  });
});
