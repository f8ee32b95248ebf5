import { chmod, mkdir, mkdtemp, realpath, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { describe, expect, it, onTestFinished } from 'vitest';
import { MailboxError } from '../../../src/errors.js';
import { findSandboxBin } from '../../../src/sandbox-bin/find-sandbox-bin.js';
import { runSandboxBin } from '../../../src/sandbox-bin/run-sandbox-bin.js';

const checkout = fileURLToPath(new URL('../../../', import.meta.url));
const notInstalled = (): string => {
  throw Object.assign(new Error("Cannot find module 'agent-mailbox-sandbox/package.json'"), {
    code: 'MODULE_NOT_FOUND',
  });
};

function collectOutput(): { stream: Writable; text: () => string } {
  let text = '';
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      text += chunk.toString('utf8');
      done();
    },
  });
  return { stream, text: () => text };
}

async function tempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'agent-mailbox-sandbox-bin-'));
  onTestFinished(() => rm(dir, { recursive: true, force: true }));
  return dir;
}

/** A stand-in bin: prints its arguments and one variable, exits with the code its first argument names. */
async function standIn(dir: string, name: string, mode = 0o755): Promise<string> {
  const file = join(dir, name);
  await writeFile(
    file,
    [
      '#!/usr/bin/env node',
      "process.stdout.write(JSON.stringify({ args: process.argv.slice(2), who: process.env.WHO ?? null }) + '\\n');",
      "process.stderr.write('to stderr\\n');",
      "if (process.argv[2] === 'wait') { process.on('SIGTERM', () => { process.stdout.write('stopped\\n'); process.exit(0); }); setInterval(() => {}, 1000); process.stdout.write('ready\\n'); }",
      'else process.exitCode = Number(process.argv[2] ?? 0);',
      '',
    ].join('\n'),
  );
  await chmod(file, mode);
  return file;
}

describe('finding the sandbox package at run time', () => {
  it("takes the package node resolves from the client's location first: in a checkout, the workspace's bin", () => {
    const bin = findSandboxBin({ env: { PATH: '' } });
    expect(bin).toBe(join(checkout, 'sandbox', 'bin', 'agent-mailbox-sandbox.js'));
  });

  it("reads the bin the package's package.json declares", async () => {
    const dir = await tempDir();
    await mkdir(join(dir, 'bin'));
    await writeFile(join(dir, 'package.json'), JSON.stringify({ bin: { 'agent-mailbox-sandbox': 'bin/run.js' } }));
    const bin = await standIn(join(dir, 'bin'), 'run.js');
    expect(findSandboxBin({ env: { PATH: '' }, resolvePackageJson: () => join(dir, 'package.json') })).toBe(bin);
  });

  it('then looks on PATH for an executable agent-mailbox-sandbox, skipping one that cannot run', async () => {
    const [plain, executable] = [await tempDir(), await tempDir()];
    await standIn(plain, 'agent-mailbox-sandbox', 0o644);
    const bin = await standIn(executable, 'agent-mailbox-sandbox');
    const env = { PATH: ['', plain, executable].join(delimiter) };
    expect(await realpath(findSandboxBin({ env, resolvePackageJson: notInstalled }))).toBe(await realpath(bin));
  });

  it('without either, refuses with sandbox_not_installed and how to get it', async () => {
    const dir = await tempDir();
    await writeFile(join(dir, 'package.json'), JSON.stringify({ name: 'agent-mailbox-sandbox' }));
    for (const resolvePackageJson of [notInstalled, () => join(dir, 'package.json')]) {
      const error = (() => {
        try {
          findSandboxBin({ env: { PATH: dir }, resolvePackageJson });
        } catch (caught) {
          return caught;
        }
        return undefined;
      })();
      expect(error).toBeInstanceOf(MailboxError);
      expect((error as MailboxError).code).toBe('sandbox_not_installed');
      expect((error as MailboxError).hint).toContain('npm install -g agent-mailbox-sandbox');
    }
  });
});

describe('running the sandbox bin', () => {
  it('passes the arguments and the environment, carries both streams, and resolves to the exit code', async () => {
    const bin = await standIn(await tempDir(), 'bin.js');
    const stdout = collectOutput();
    const stderr = collectOutput();
    const code = await runSandboxBin({
      bin,
      nodePath: process.execPath,
      args: ['3', '--data-dir', 'a dir'],
      env: { WHO: 'the client' },
      stdout: stdout.stream,
      stderr: stderr.stream,
      signal: new AbortController().signal,
    });
    expect(code).toBe(3);
    expect(JSON.parse(stdout.text())).toEqual({ args: ['3', '--data-dir', 'a dir'], who: 'the client' });
    expect(stderr.text()).toBe('to stderr\n');
  });

  it('stops the sandbox as Ctrl+C does when the call is aborted, and waits for it to close', async () => {
    const bin = await standIn(await tempDir(), 'bin.js');
    const stdout = collectOutput();
    const controller = new AbortController();
    const run = runSandboxBin({
      bin,
      nodePath: process.execPath,
      args: ['wait'],
      env: {},
      stdout: stdout.stream,
      stderr: collectOutput().stream,
      signal: controller.signal,
    });
    await expect.poll(() => stdout.text(), { timeout: 10_000 }).toContain('ready');
    controller.abort();
    expect(await run).toBe(0);
    expect(stdout.text()).toContain('stopped\n');
  });
});
