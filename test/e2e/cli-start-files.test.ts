import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { afterEach, describe, expect, it } from 'vitest';
import { builtCli, noCrontab } from '../helpers/run-cli.js';

// Node's ES module loader pays for every file a start opens, besides every byte; esbuild cuts chunks by
// the entries that reach each module, and a lazily loaded module that reaches part of what every
// command loads cuts it into more files (handlersFirst in scripts/build.mjs, docs/benchmarks.md). The
// built CLI runs a command under a loader hook that writes down every module node loads.

const run = promisify(execFile);
const distDir = dirname(builtCli);
const hooks = `
import { appendFileSync } from 'node:fs';
let log;
export function initialize(data) { log = data.log; }
export async function load(url, context, next) { appendFileSync(log, url + '\\n'); return next(url, context); }
`;

let root = '';
afterEach(async () => {
  if (root) await rm(root, { recursive: true, force: true });
  root = '';
});

describe('the files a CLI command opens', () => {
  it('are at most 12 of the bundle for a listing, which runs the handlers and the check stage', async () => {
    root = await mkdtemp(join(tmpdir(), 'agent-mailbox-files-'));
    const log = join(root, 'loaded.txt');
    await writeFile(log, '');
    await writeFile(join(root, 'hooks.mjs'), hooks);
    const register = join(root, 'register.mjs');
    await writeFile(
      register,
      `import { register } from 'node:module';\nregister(${JSON.stringify(pathToFileURL(join(root, 'hooks.mjs')).href)}, { data: { log: ${JSON.stringify(log)} } });\n`,
    );
    // Offline: no inbox in the directory, so the command ends at the account, its code all loaded.
    const env = {
      PATH: process.env.PATH ?? '',
      AGENT_MAILBOX_AUTH_URL: 'http://127.0.0.1:9',
      AGENT_MAILBOX_API_URL: 'http://127.0.0.1:9',
      AGENT_MAILBOX_CREDENTIALS_DIR: join(root, 'credentials'),
      AGENT_MAILBOX_CRONTAB: noCrontab,
    };
    const stderr = await run(
      process.execPath,
      ['--import', pathToFileURL(register).href, builtCli, 'jmap_request', '--ops-file', 'list_inbox'],
      { env },
    ).then(
      () => '',
      (error: { stderr: string }) => error.stderr,
    );
    expect(stderr).toMatch(/register/);
    const files = [
      ...new Set(
        (await readFile(log, 'utf8'))
          .split('\n')
          .filter((url) => url.startsWith('file:'))
          .map((url) => fileURLToPath(url))
          .filter((file) => file.startsWith(distDir) && file.endsWith('.js')),
      ),
    ];
    expect(
      files.some((file) => /[\\/]handlers-[^\\/]+\.js$/.test(file)),
      'the handlers were loaded',
    ).toBe(true);
    expect(files.length, files.join('\n')).toBeLessThanOrEqual(12);
  });
});
