import { execFile } from 'node:child_process';
import {
  chmod,
  copyFile,
  lstat,
  mkdir,
  mkdtemp,
  readdir,
  rm,
  stat,
  symlink,
  utimes,
  writeFile,
} from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { pollUntil } from '../../sandbox/test/helpers/sandbox.js';
import { connectMcp } from '../helpers/connect-mcp.js';
import { offlineCliEnv, repoBin } from '../helpers/run-cli.js';

// The package's front loads the bundle with V8's code cache (src/start/load-bundle.ts): what one run compiled
// is written to the user's cache directory and spares later runs compiling it. The cache is code, so
// it is read only from a directory and files of the user's own that nobody else may write, never
// through a link; a refused, broken or missing cache is made anew, and nothing about it may change
// what a command does. Each case runs the package's bin as a user would, offline: with no inbox in
// its directory a listing loads its code and stops at the account.

const run = promisify(execFile);
const isRunning = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};
const onPosix = process.platform !== 'win32';

let root = '';
beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'agent-mailbox-code-cache-'));
});
afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

const cacheDir = (): string => join(root, 'cache', 'agent-mailbox', 'code');

interface Listing {
  code: number;
  stdout: string;
  stderr: string;
}

async function listing(env: Record<string, string> = {}): Promise<Listing> {
  return run(process.execPath, [repoBin, 'jmap_request', '--ops-file', 'list_inbox'], {
    env: { ...offlineCliEnv(root), XDG_CACHE_HOME: join(root, 'cache'), ...env },
  }).then(
    ({ stdout, stderr }) => ({ code: 0, stdout, stderr }),
    (error: { code: number; stdout: string; stderr: string }) => ({
      code: error.code,
      stdout: error.stdout,
      stderr: error.stderr,
    }),
  );
}

/** Each cache file by name, with its inode: a file made anew is a new inode (written beside, then renamed). */
async function caches(dir = cacheDir()): Promise<Map<string, number>> {
  const names = await readdir(dir).catch(() => []);
  return new Map(await Promise.all(names.map(async (name) => [name, (await lstat(join(dir, name))).ino] as const)));
}

const expectSameListing = (a: Listing, b: Listing): void => {
  expect({ code: b.code, stdout: b.stdout, stderr: b.stderr }).toEqual({
    code: a.code,
    stdout: a.stdout,
    stderr: a.stderr,
  });
};

describe('the code cache of the package bin', () => {
  it('is written by a first run, private, and used unchanged by the next, which answers the same', async () => {
    const first = await listing();
    expect(first.code).toBe(1);
    expect(first.stderr).toMatch(/register/);
    const made = await caches();
    expect(made.size, 'one cache per chunk the listing loaded').toBeGreaterThanOrEqual(5);
    expect([...made.keys()].every((name) => name.endsWith('.v8-cache'))).toBe(true);
    if (onPosix) {
      expect((await stat(cacheDir())).mode & 0o777).toBe(0o700);
      for (const name of made.keys()) expect((await stat(join(cacheDir(), name))).mode & 0o777).toBe(0o600);
    }
    const second = await listing();
    expectSameListing(first, second);
    expect(await caches(), 'V8 took every cache: none was made again').toEqual(made);
  });

  it("keeps the MCP server's caches and a listing's apart: a second run of either, in any order, makes none again", async () => {
    const serve = async (): Promise<void> => {
      const server = await connectMcp({
        env: { ...offlineCliEnv(root), XDG_CACHE_HOME: join(root, 'cache') },
        nodeArgs: [repoBin, 'mcp'],
      });
      // A call loads the handlers (and fails at the account, offline); the server sets V8's flags as it runs.
      await server.client.callTool({ name: 'jmap_request', arguments: { ops_file: 'list_inbox' } });
      await server.close();
      // The caches are written as the process exits.
      await pollUntil(async () => (isRunning(server.pid) ? undefined : true), 10_000);
    };
    await serve();
    const served = await caches();
    expect(served.size, 'the server wrote its caches').toBeGreaterThanOrEqual(5);
    await listing();
    const both = await caches();
    for (const [name, ino] of served) expect(both.get(name), `${name}: the listing left it`).toBe(ino);
    expect(both.size, 'the listing wrote caches of its own').toBeGreaterThan(served.size);
    await serve();
    await listing();
    expect(await caches(), "neither remade its own caches or the other's").toEqual(both);
  });

  it('makes a broken cache anew and answers as without it', async () => {
    const first = await listing();
    const made = await caches();
    for (const name of made.keys()) {
      const file = join(cacheDir(), name);
      const size = (await stat(file)).size;
      await writeFile(file, Buffer.alloc(size, 0x5a), { mode: 0o600 });
    }
    const truncated = [...made.keys()][0] ?? '';
    await writeFile(join(cacheDir(), truncated), Buffer.alloc(3));
    const broken = await caches();
    expectSameListing(first, await listing());
    const after = await caches();
    for (const [name, ino] of broken) expect(after.get(name), name).not.toBe(ino);
    expectSameListing(first, await listing());
    expect(await caches(), 'the new caches are taken').toEqual(after);
  });

  it('is off with AGENT_MAILBOX_NO_CODE_CACHE, and the answer is the same', async () => {
    const cached = await listing();
    await rm(join(root, 'cache'), { recursive: true });
    expectSameListing(cached, await listing({ AGENT_MAILBOX_NO_CODE_CACHE: '1' }));
    await expect(stat(join(root, 'cache')), 'nothing written').rejects.toThrow(/ENOENT/);
    expectSameListing(cached, await listing({ AGENT_MAILBOX_NO_CODE_CACHE: 'false' }));
    expect((await caches()).size).toBeGreaterThan(0);
  });

  it('answers the same where the cache directory cannot be made (a file stands in its way)', async () => {
    const cached = await listing();
    const blocked = join(root, 'blocked-cache');
    await writeFile(blocked, 'not a directory');
    expectSameListing(cached, await listing({ XDG_CACHE_HOME: blocked }));
    expect((await stat(blocked)).isFile()).toBe(true);
  });

  it('survives runs that make it at the same time: whole files only, none left half-written', async () => {
    const runs = await Promise.all([1, 2, 3, 4].map(() => listing()));
    for (const each of runs) expectSameListing(runs[0] as Listing, each);
    const made = await caches();
    expect([...made.keys()].filter((name) => !name.endsWith('.v8-cache'))).toEqual([]);
    expectSameListing(runs[0] as Listing, await listing());
    expect(await caches(), 'every file whole: V8 took them all').toEqual(made);
  });

  it('removes caches of other builds not made for 30 days when it writes, and nothing else', async () => {
    await mkdir(cacheDir(), { recursive: true, mode: 0o700 });
    const old = join(cacheDir(), 'chunk-OLDBUILD.1000.11.3.x64.v8-cache');
    const recent = join(cacheDir(), 'chunk-OTHERBUILD.1000.11.3.x64.v8-cache');
    const leftByAKilledRun = join(cacheDir(), 'chunk-OLDBUILD.1000.11.3.x64.v8-cache.4242.k3j.tmp');
    const notOurs = join(cacheDir(), 'notes.txt');
    for (const file of [old, recent, leftByAKilledRun, notOurs]) await writeFile(file, 'x', { mode: 0o600 });
    const longAgo = new Date(Date.now() - 40 * 24 * 3600 * 1000);
    for (const file of [old, leftByAKilledRun, notOurs]) await utimes(file, longAgo, longAgo);
    await listing();
    const names = [...(await caches()).keys()];
    expect(names).not.toContain('chunk-OLDBUILD.1000.11.3.x64.v8-cache');
    expect(names).not.toContain('chunk-OLDBUILD.1000.11.3.x64.v8-cache.4242.k3j.tmp');
    expect(names).toContain('chunk-OTHERBUILD.1000.11.3.x64.v8-cache');
    expect(names).toContain('notes.txt');
  });
});

describe.runIf(onPosix)('a code cache someone else could have written', () => {
  it('is not read from a file others may write: it is made anew as the user own', async () => {
    const first = await listing();
    const made = await caches();
    for (const name of made.keys()) await chmod(join(cacheDir(), name), 0o666);
    expectSameListing(first, await listing());
    const after = await caches();
    for (const [name, ino] of made) {
      expect(after.get(name), name).not.toBe(ino);
      expect((await stat(join(cacheDir(), name))).mode & 0o777).toBe(0o600);
    }
  });

  it('is not read through a link: the link is replaced by a file of its own, its target left alone', async () => {
    const first = await listing();
    const made = await caches();
    const elsewhere = join(root, 'elsewhere');
    await mkdir(elsewhere);
    for (const name of made.keys()) {
      await copyFile(join(cacheDir(), name), join(elsewhere, name));
      await rm(join(cacheDir(), name));
      await symlink(join(elsewhere, name), join(cacheDir(), name));
    }
    const targets = await caches(elsewhere);
    expectSameListing(first, await listing());
    for (const name of made.keys()) expect((await lstat(join(cacheDir(), name))).isFile(), name).toBe(true);
    expect(await caches(elsewhere)).toEqual(targets);
  });

  it('is neither read nor written in a directory others may write, or one that is a link', async () => {
    const first = await listing();
    const made = await caches();
    await chmod(cacheDir(), 0o777);
    expectSameListing(first, await listing());
    expect(await caches(), 'left as it was').toEqual(made);
    await chmod(cacheDir(), 0o700);

    const linked = join(root, 'linked-cache');
    await mkdir(join(linked, 'agent-mailbox', 'elsewhere'), { recursive: true, mode: 0o700 });
    await symlink(join(linked, 'agent-mailbox', 'elsewhere'), join(linked, 'agent-mailbox', 'code'));
    expectSameListing(first, await listing({ XDG_CACHE_HOME: linked }));
    expect(await readdir(join(linked, 'agent-mailbox', 'elsewhere'))).toEqual([]);
  });
});
