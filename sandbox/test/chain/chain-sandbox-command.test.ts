import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { PassThrough } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { runSandboxCommand } from '../../src/sandbox-command.js';
import { pollUntil } from '../helpers/sandbox.js';
import { withReadyLine } from '../helpers/sandbox-process.js';

const builtSandboxMain = fileURLToPath(new URL('../../dist/main.js', import.meta.url));

/** Polls for `ready` on the output, failing at once (with stderr) if the command already ended. */
function waitForOutput(
  running: Promise<number>,
  ready: () => string | undefined,
  stderr: () => string,
): Promise<string> {
  let ended: number | undefined;
  void running.then((code) => (ended = code));
  return pollUntil(
    () => {
      if (ended !== undefined) throw new Error(`the command ended with ${ended} before it was ready: ${stderr()}`);
      return ready();
    },
    15_000,
    'the ready output',
  );
}

function capture(): { stream: PassThrough; text: () => string } {
  const stream = new PassThrough();
  const chunks: Buffer[] = [];
  stream.on('data', (chunk: Buffer) => chunks.push(chunk));
  return { stream, text: () => Buffer.concat(chunks).toString('utf8') };
}

describe('agent-mailbox sandbox (runSandboxCommand)', () => {
  it('with --json prints exactly one JSON line when ready, serves until aborted, then closes and returns 0', async () => {
    const stdout = capture();
    const stderr = capture();
    const controller = new AbortController();
    const running = runSandboxCommand(
      { json: true, difficulty: 2 },
      { stdout: stdout.stream, stderr: stderr.stream, signal: controller.signal },
    );
    const line = await waitForOutput(
      running,
      () => (stdout.text().includes('\n') ? stdout.text() : undefined),
      stderr.text,
    );
    const ready = JSON.parse(line) as Record<string, unknown> & {
      authUrl: string;
      credentialsDir: string;
      envFile: string;
      env: Record<string, string>;
    };
    expect(ready).toMatchObject({
      difficulty: 2,
      salt: expect.any(String),
      domain: 'agent-mailbox.test',
      backend: 'embedded',
      smtpPort: expect.any(Number),
    });
    expect(ready.authUrl).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(ready.env).toEqual({
      AGENT_MAILBOX_AUTH_URL: ready.authUrl,
      AGENT_MAILBOX_API_URL: ready['apiUrl'],
      AGENT_MAILBOX_SCRYPT_SALT: ready['salt'],
      AGENT_MAILBOX_INBOX_DOMAIN: 'agent-mailbox.test',
      AGENT_MAILBOX_AUTHSERV_ID: 'agent-mailbox.test',
      AGENT_MAILBOX_CREDENTIALS_DIR: ready.credentialsDir,
    });
    // In memory: a credentials directory of its own in a temp folder, with client.env beside it.
    expect(dirname(ready.credentialsDir)).toBe(dirname(ready.envFile));
    expect(dirname(ready.credentialsDir).startsWith(tmpdir())).toBe(true);
    expect(await readFile(ready.envFile, 'utf8')).toContain(
      `export AGENT_MAILBOX_CREDENTIALS_DIR=${ready.credentialsDir}\n`,
    );
    expect((await fetch(`${ready.authUrl}/api/v1/challenge`, { method: 'POST' })).status).toBe(200);

    controller.abort();
    expect(await running).toBe(0);
    expect(stdout.text().split('\n').filter(Boolean)).toHaveLength(1);
    await expect(fetch(`${ready.authUrl}/api/v1/challenge`, { method: 'POST' })).rejects.toThrow();
    // Its inboxes died with it, and so did the folder that held their credentials.
    expect(existsSync(dirname(ready.credentialsDir))).toBe(false);
  });

  it("with --data-dir keeps the client's credentials directory and client.env (0600, every variable of the banner) in the data directory", async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'sandbox-command-data-'));
    try {
      const stdout = capture();
      const stderr = capture();
      const controller = new AbortController();
      const running = runSandboxCommand(
        { difficulty: 2, dataDir },
        { stdout: stdout.stream, stderr: stderr.stream, signal: controller.signal },
      );
      const banner = await waitForOutput(
        running,
        () => (stdout.text().includes('Ctrl+C') ? stdout.text() : undefined),
        stderr.text,
      );
      const envFile = join(dataDir, 'client.env');
      expect(banner).toContain(`  . ${envFile}\n`);
      expect(banner).toContain(`export AGENT_MAILBOX_CREDENTIALS_DIR=${join(dataDir, 'credentials')}\n`);
      const file = await readFile(envFile, 'utf8');
      for (const line of banner.split('\n').filter((l) => l.startsWith('  export ')))
        expect(file).toContain(`${line.trim()}\n`);
      expect(file).toMatch(/^SANDBOX_SMTP_PORT=\d+$/m);
      expect((await stat(envFile)).mode & 0o777).toBe(0o600);
      controller.abort();
      expect(await running).toBe(0);
      expect(existsSync(envFile)).toBe(true);
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  });

  it('without --json prints a banner with the URLs and the environment variables for the client', async () => {
    const stdout = capture();
    const stderr = capture();
    const controller = new AbortController();
    const running = runSandboxCommand(
      { difficulty: 2, domain: 'example.test' },
      { stdout: stdout.stream, stderr: stderr.stream, signal: controller.signal },
    );
    const banner = await waitForOutput(
      running,
      () => (stdout.text().includes('Ctrl+C') ? stdout.text() : undefined),
      stderr.text,
    );
    expect(banner).toMatch(/export AGENT_MAILBOX_AUTH_URL=http:\/\/127\.0\.0\.1:\d+/);
    expect(banner).toMatch(/export AGENT_MAILBOX_INBOX_DOMAIN=example\.test/);
    expect(banner).toContain('AGENT_MAILBOX_SCRYPT_SALT=');
    controller.abort();
    expect(await running).toBe(0);
  });

  it('returns 1 with a hint on stderr when it cannot start', async () => {
    const stderr = capture();
    const code = await runSandboxCommand(
      { difficulty: 99 },
      { stdout: new PassThrough(), stderr: stderr.stream, signal: new AbortController().signal },
    );
    expect(code).toBe(1);
    expect(stderr.text()).toMatch(/Difficulty 99 is out of range[\s\S]*Pass a whole number/);
  });
});

describe('the sandbox entry as a real process (sandbox/dist/main.js, built by npm test)', () => {
  it('prints its ready line with --json and exits 0 on SIGTERM', async () => {
    const stdout = await withReadyLine<{ authUrl: string }>(
      [builtSandboxMain, '--json', '--difficulty', '2'],
      async (ready) => {
        expect((await fetch(`${ready.authUrl}/api/v1/challenge`, { method: 'POST' })).status).toBe(200);
      },
    );
    expect(stdout.trim().split('\n')).toHaveLength(1);
  });
});
