import { spawn } from 'node:child_process';
import { watch } from 'node:fs';
import { mkdir, readdir, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { builtCli, runCliInProcess } from '../helpers/run-cli.js';
import { startTestSandbox } from '../../sandbox/test/helpers/sandbox.js';
import { baseEnv, freshDir } from './fault-case.js';

// Killing register at any point never leaves the apiKey unrecoverable by the
// next command. Each case SIGKILLs a real `register` the moment a given file shows up in its
// directory, then runs an ordinary command and checks the inbox is usable and no JWT temp is left.
const sandbox = await startTestSandbox();
// What is tested is recovery, not deadlines: the fault cases' 1 s limit for a whole call (capability,
// session, JMAP) is too tight for a loaded 2-core machine against the real sandbox.
const env = { ...baseEnv(sandbox), AGENT_MAILBOX_TIMEOUT_MS: '15000' };

const killPoints: Array<[string, RegExp]> = [
  ['the credentials temp file appears', /^\.credentials\.json\..*\.tmp$/],
  ['credentials.json appears', /^credentials\.json$/],
  ['the session token temp file appears', /^\.session\.jwt\..*\.tmp$/],
  ['the capability token appears', /^capability\.jwt$/],
];

async function registerKilledWhen(dir: string, username: string, pattern: RegExp): Promise<{ killed: boolean }> {
  await mkdir(dir, { recursive: true, mode: 0o700 });
  const child = spawn(
    process.execPath,
    [builtCli, 'register', '--username', username, '--watch', 'on-demand', '--credentials-dir', dir],
    {
      env: { PATH: process.env.PATH, HOME: process.env.HOME, ...env },
      stdio: 'ignore',
    },
  );
  let killed = false;
  const watcher = watch(dir, (_event, name) => {
    if (!killed && name && pattern.test(name)) {
      killed = child.kill('SIGKILL');
    }
  });
  await new Promise((resolve) => child.on('close', resolve));
  watcher.close();
  return { killed };
}

describe('register killed at any point', () => {
  killPoints.forEach(([point, pattern], i) => {
    it(`leaves a usable inbox when killed as ${point}`, async () => {
      const dir = await freshDir();
      const { killed } = await registerKilledWhen(dir, `killed-at-${i}`, pattern);
      const leftBehind = await readdir(dir);
      if (process.env.FAULT_DEBUG) console.log(point, { killed, leftBehind });
      // The next commands run in this process: a new PID all the same, and what matters is the directory.
      const next = await runCliInProcess(['jmap_request', '--ops-file', 'list_inbox', '--credentials-dir', dir], {
        env,
      });
      const credentials = await readFile(join(dir, 'credentials.json'), 'utf8').catch(() => undefined);
      if (next.code !== 0) {
        // The only acceptable failure: the kill landed before the key was on disk, and the error names the file to open.
        expect(next.stdout, `killed=${killed}\n${next.stderr}`).toMatch(/\.credentials\.json\..*\.tmp/);
        return;
      }
      expect(credentials, `killed=${killed}`).toMatch(/"apiKey": "amk_/);
      expect(
        (await readdir(dir)).filter((n) => /\.jwt\..*\.tmp$/.test(n)),
        'token temp files left',
      ).toEqual([]);
      const again = await runCliInProcess(
        ['register', '--username', `killed-at-${i}`, '--watch', 'on-demand', '--credentials-dir', dir],
        { env },
      );
      expect(again.code, again.stderr).toBe(0);
      expect((again.json as { mode: string }).mode).toBe('existing');
    });
  });
});
