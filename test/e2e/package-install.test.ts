import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdir, mkdtemp, readdir, readFile, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, describe, expect, it } from 'vitest';
import { withReadyLine } from '../../sandbox/test/helpers/sandbox-process.js';

// What `npm install -g agent-mailbox` gets: the tarball must carry everything it runs (dist/ is a
// self-contained bundle), declare no dependency, and install with npm offline from an empty cache.
// The sandbox is a package of its own (sandbox/, agent-mailbox-sandbox): the client finds its bin
// at run time and says how to get it when it is absent.
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
    // The bundle itself, past the front's pages, reads the topics and presets the package ships beside it.
    const full = await run(process.execPath, [join(installed, 'dist', 'bin.js'), 'help', 'presets'], { env });
    expect(full.stdout).toBe((await run(bin, ['help', 'presets'], { env })).stdout);
    // The confusables table ships as a file the bundle reads on the first non-ASCII code point: a name
    // in look-alike letters is read as the domain it spells, through the chunk that judges senders.
    const chunks = join(installed, 'dist', 'chunks');
    const trustChunks = [];
    for (const name of await readdir(chunks))
      if (/module\.exports=\{[^}]*\bsenderTrustOf\b/.test(await readFile(join(chunks, name), 'utf8')))
        trustChunks.push(name);
    expect(trustChunks).toHaveLength(1);
    const trust = (await import(join(chunks, trustChunks[0] ?? ''))) as {
      senderTrustOf(email: object, options: object): { nameClaim?: string };
    };
    const forged = { from: [{ name: 'P\u0430yp\u0430l.com Support', email: 'x@evil.test' }] };
    expect(trust.senderTrustOf(forged, { authservId: 'mx.test', view: 'listing' }).nameClaim).toBe('paypal.com');
    // The sandbox is not in the client's package: alone, `sandbox` and `drill` say how to get it.
    // PATH holds node and the system's tools only (npm puts the checkout's node_modules/.bin, with
    // the workspace's agent-mailbox-sandbox, on the test run's PATH).
    const bare = { PATH: [dirname(process.execPath), '/usr/bin', '/bin'].join(delimiter), HOME: work };
    for (const args of [
      ['sandbox', '--json'],
      ['drill', 'seed'],
    ]) {
      const absent = await run(process.execPath, [join(installed, 'bin', 'agent-mailbox.js'), ...args], {
        env: bare,
      }).then(
        () => ({ code: 0, stderr: '' }),
        (error: { code: number; stderr: string }) => error,
      );
      expect(absent.code, args.join(' ')).toBe(1);
      expect(absent.stderr).toContain('agent-mailbox-sandbox');
      expect(absent.stderr).toContain('npm install -g agent-mailbox-sandbox');
    }
    const shipped = [
      join(installed, 'dist', 'bin.js'),
      ...(await readdir(join(installed, 'dist', 'chunks'))).map((name) => join(installed, 'dist', 'chunks', name)),
    ];
    for (const file of shipped)
      expect(await readFile(file, 'utf8'), file).not.toMatch(/createMailAuthority|smtp-server|startSandbox/);
    // With the sandbox's bin on PATH (as `npm install -g agent-mailbox-sandbox` puts it), it starts.
    const binDir = join(work, 'sandbox-bin');
    await mkdir(binDir);
    await symlink(join(root, 'sandbox', 'bin', 'agent-mailbox-sandbox.js'), join(binDir, 'agent-mailbox-sandbox'));
    await withReadyLine<{ authUrl: string }>(
      [join(installed, 'bin', 'agent-mailbox.js'), 'sandbox', '--json', '--difficulty', '2'],
      async (ready) => {
        expect(ready.authUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      },
      { ...bare, PATH: `${binDir}${delimiter}${bare.PATH}` },
    );
  });

  it('the sandbox packs on its own: its bin, its build and the dependencies only it uses', async () => {
    const sandboxPkg = JSON.parse(await readFile(join(root, 'sandbox', 'package.json'), 'utf8')) as {
      name: string;
      bin: Record<string, string>;
      dependencies: Record<string, string>;
    };
    expect(sandboxPkg.name).toBe('agent-mailbox-sandbox');
    expect(Object.keys(sandboxPkg.dependencies)).toEqual(expect.arrayContaining(['smtp-server', 'mailauth']));
    const clientPkg = JSON.parse(await readFile(join(root, 'package.json'), 'utf8')) as {
      devDependencies: Record<string, string>;
    };
    for (const onlySandbox of ['smtp-server', 'mailauth', '@types/smtp-server'])
      expect(clientPkg.devDependencies, onlySandbox).not.toHaveProperty(onlySandbox);
    const packed = await run('npm', ['pack', '--dry-run', '--ignore-scripts', '--json'], {
      cwd: join(root, 'sandbox'),
      env: { ...process.env, npm_config_loglevel: 'error' },
    });
    const [{ files }] = JSON.parse(packed.stdout) as [{ files: { path: string }[] }];
    const paths = files.map((file) => file.path);
    expect(paths).toEqual(
      expect.arrayContaining([
        'package.json',
        sandboxPkg.bin['agent-mailbox-sandbox'],
        'dist/main.js',
        'dist/start-sandbox.js',
      ]),
    );
    expect(paths.filter((path) => path.endsWith('.ts'))).toEqual([]);
  });
});
