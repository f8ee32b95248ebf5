import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { withReadyLine } from '../helpers/sandbox-process.js';

// What `npm install -g agent-mailbox` gets: the tarball must carry everything it runs (dist/ is a
// self-contained bundle), declare no dependency, and install with npm offline from an empty cache.
const run = promisify(execFile);
const root = fileURLToPath(new URL('../../', import.meta.url));
const pkg = JSON.parse(await readFile(join(root, 'package.json'), 'utf8')) as {
  version: string;
  scripts: Record<string, string>;
  dependencies?: object;
  bundleDependencies?: unknown;
};
const work = await mkdtemp(join(tmpdir(), 'agent-mailbox-pack-'));
afterAll(() => rm(work, { recursive: true, force: true }));

describe('the npm package', () => {
  it('builds before it is packed, so a fresh clone packs a working tarball', () => {
    expect(pkg.scripts.prepack).toMatch(/npm run build$/);
  });

  it('installs offline from its tarball with an empty cache, installs nothing else, and answers --version, help and sandbox', async () => {
    expect(pkg.dependencies ?? {}).toEqual({});
    // dist/ is built already (npm test builds first): packing must not rebuild it under running tests.
    const packed = await run('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', work], {
      cwd: root,
      env: { ...process.env, npm_config_loglevel: 'error' },
    });
    const [{ filename }] = JSON.parse(packed.stdout) as [{ filename: string }];
    const prefix = join(work, 'prefix');
    const cache = join(work, 'empty-cache');
    await mkdir(cache);
    // --offline with an empty cache: any dependency to fetch fails the install.
    await run(
      'npm',
      [
        'install',
        '-g',
        '--offline',
        '--no-audit',
        '--no-fund',
        '--prefix',
        prefix,
        '--cache',
        cache,
        join(work, filename),
      ],
      { env: { PATH: process.env.PATH ?? '', HOME: work } },
    );

    const installed = join(prefix, 'lib', 'node_modules', 'agent-mailbox');
    expect(existsSync(join(installed, 'node_modules'))).toBe(false);

    const bin = join(prefix, 'bin', 'agent-mailbox');
    const env = { PATH: `${join(prefix, 'bin')}:${process.env.PATH ?? ''}`, HOME: work };
    expect((await run(bin, ['--version'], { env })).stdout).toBe(`${pkg.version}\n`);
    expect((await run(bin, ['help', 'presets'], { env })).stdout).toContain('send_mail');
    // The sandbox ships in the same bundle: it starts from the installed package alone.
    await withReadyLine<{ authUrl: string }>(
      [join(installed, 'bin', 'agent-mailbox.js'), 'sandbox', '--json', '--difficulty', '2'],
      async (ready) => {
        expect(ready.authUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      },
    );
  });
});
