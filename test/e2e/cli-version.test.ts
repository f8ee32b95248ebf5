import { execFile } from 'node:child_process';
import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { builtCli, repoBin } from '../helpers/run-cli.js';

const run = promisify(execFile);
const skillScript = fileURLToPath(new URL('../../skill/scripts/agent-mailbox.mjs', import.meta.url));
const { version } = JSON.parse(await readFile(new URL('../../package.json', import.meta.url), 'utf8')) as {
  version: string;
};

describe('agent-mailbox --version', () => {
  // The package entry answers from the pages the build rendered, the bundle from the real program,
  // and the skill's single file (also what the MCP Bundle runs) has no package.json beside it.
  for (const [entry, path] of [
    ['the package entry (bin/agent-mailbox.js)', repoBin],
    ['the bundle (dist/bin.js)', builtCli],
    ["the skill's single file", skillScript],
  ] as const) {
    it(`prints the package version and exits 0 from ${entry}, as --version and -V`, async () => {
      for (const flag of ['--version', '-V']) {
        const { stdout, stderr } = await run(process.execPath, [path, flag], { env: { PATH: process.env.PATH ?? '' } });
        expect(stdout).toBe(`${version}\n`);
        expect(stderr).toBe('');
      }
    });
  }

  it('is listed in --help', async () => {
    const { stdout } = await run(process.execPath, [repoBin, '--help'], { env: { PATH: process.env.PATH ?? '' } });
    expect(stdout).toMatch(/-V, --version +Print the version of agent-mailbox\./);
  });
});
