import { existsSync } from 'node:fs';
import { createServer } from 'node:net';
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, describe, expect, it } from 'vitest';
import {
  connectMcp,
  printStderrOnFailure,
  resultText,
  structured,
  type McpConnection,
} from '../helpers/connect-mcp.js';
import { runCli } from '../helpers/run-cli.js';
import { pollUntil } from '../../sandbox/test/helpers/sandbox.js';
import {
  runSandboxCommandFailing,
  runSandboxCommandUntilReady,
  type SandboxCommandRun,
} from '../helpers/sandbox-command-run.js';

// Hosts such as Codex and Claude Desktop start the server with next to no environment: all a
// sandbox's settings must travel in the arguments, and a directory must never leave its side.
const work = await mkdtemp(join(tmpdir(), 'agent-mailbox-sandbox-flag-'));
afterAll(() => rm(work, { recursive: true, force: true }));
const home = join(work, 'home');
// What such a host passes: PATH and HOME, nothing else.
const bareEnv = { PATH: process.env.PATH ?? '', HOME: home };
// Not loopback by the client's rule, yet nothing sent there leaves this machine: a planted
// regression that let a request through could not reach the live service from a test.
const offMachine = 'http://0.0.0.0:9';

interface ToolResult {
  isError: boolean;
  text: string;
  content: Record<string, unknown>;
}

async function call(server: McpConnection, name: string, args: Record<string, unknown>): Promise<ToolResult> {
  const result = await server.client.callTool({ name, arguments: args }, undefined, {
    timeout: 60_000,
    resetTimeoutOnProgress: true,
  });
  return {
    isError: result.isError === true,
    text: resultText(result),
    content: result.isError === true ? {} : structured(result),
  };
}

/** The ids of the mails a jmap_request preset listed. */
function emailIds(content: Record<string, unknown>): string[] {
  return [...JSON.stringify(content).matchAll(/"id":"(M[^"]+)"/g)].map((m) => m[1]!);
}

describe('agent-mailbox mcp --sandbox DATA_DIR', () => {
  const servers: McpConnection[] = [];
  let sandbox: SandboxCommandRun | undefined;
  printStderrOnFailure(() => servers);
  afterEach(async () => {
    await Promise.all(servers.splice(0).map((s) => s.close()));
    await sandbox?.stop();
    sandbox = undefined;
  });

  it('registers, sends and reads with only PATH and HOME in its environment, and keeps working across a sandbox restart on the same ports', async () => {
    const dataDir = join(work, 'kept');
    sandbox = await runSandboxCommandUntilReady({ dataDir, difficulty: 4 });
    const first = sandbox.ready;
    const server = await connectMcp({ env: bareEnv, args: ['--sandbox', dataDir] });
    servers.push(server);

    const registered = await call(server, 'register', { username: 'flag-agent', watch: 'on-demand' });
    expect(registered.isError, registered.text).toBe(false);
    expect(registered.content).toMatchObject({
      mode: 'signup',
      credentialsDir: join(dataDir, 'credentials'),
      inbox: `flag-agent@${first.domain}`,
    });
    const stored = JSON.parse(await readFile(join(dataDir, 'credentials', 'credentials.json'), 'utf8')) as Record<
      string,
      string
    >;
    expect(stored).toMatchObject({ authUrl: first.authUrl, apiUrl: first.apiUrl });
    // No inbox landed in the default directory under HOME (this user's list of inbox directories
    // may name the sandbox's, so its rules bind new inboxes too).
    expect(existsSync(join(home, '.config', 'agent-mailbox', 'credentials.json'))).toBe(false);

    const address = String(registered.content.inbox);
    const sent = await call(server, 'jmap_request', {
      ops_file: 'send_mail',
      vars: { TO: address, SUBJECT: 'Before the restart', BODY: 'One.' },
    });
    expect(sent.isError, sent.text).toBe(false);
    await pollUntil(
      async () => {
        const found = await call(server, 'jmap_request', {
          ops_file: 'search',
          vars: { SUBJECT: 'Before the restart' },
        });
        return emailIds(found.content)[0];
      },
      20_000,
      'the mail in the inbox',
    );

    // Stopped and started again with the same data directory: the same ports, no flags needed.
    expect(await sandbox.stop()).toBe(0);
    sandbox = await runSandboxCommandUntilReady({ dataDir, difficulty: 4 });
    expect(sandbox.ready).toMatchObject({
      authUrl: first.authUrl,
      apiUrl: first.apiUrl,
      mcpUrl: first.mcpUrl,
      smtpPort: first.smtpPort,
    });

    // The server started before the restart reads and sends on, without being restarted.
    const again = await call(server, 'jmap_request', {
      ops_file: 'send_mail',
      vars: { TO: address, SUBJECT: 'After the restart', BODY: 'Two.' },
    });
    expect(again.isError, again.text).toBe(false);
    const mailId = await pollUntil(
      async () => {
        const found = await call(server, 'jmap_request', {
          ops_file: 'search',
          vars: { SUBJECT: 'After the restart' },
        });
        return emailIds(found.content)[0];
      },
      20_000,
      'the mail sent after the restart',
    );
    const read = await call(server, 'jmap_request', { ops_file: 'read_message', vars: { MAIL_ID: mailId } });
    expect(read.isError, read.text).toBe(false);
    expect(read.text).toContain('After the restart');
  });

  it("refuses a sandbox's credentials directory to a server without --sandbox, before any request and without writing into it", async () => {
    const dataDir = join(work, 'fresh');
    sandbox = await runSandboxCommandUntilReady({ dataDir, difficulty: 4 });
    const sandboxDir = sandbox.ready.credentialsDir;
    // The host dropped the sandbox's settings: the client falls back to the service's hosts.
    const server = await connectMcp({
      env: { ...bareEnv, AGENT_MAILBOX_AUTH_URL: offMachine, AGENT_MAILBOX_API_URL: offMachine },
    });
    servers.push(server);
    const refused = await call(server, 'register', {
      username: 'lost-agent',
      watch: 'on-demand',
      credentials_dir: sandboxDir,
    });
    expect(refused.isError).toBe(true);
    expect(refused.text).toContain('"registeredOn":');
    expect(refused.text).toContain(`belongs to a local sandbox (${sandbox.ready.apiUrl})`);
    expect(refused.text).toContain(`--sandbox ${dataDir}`);
    expect(existsSync(sandboxDir)).toBe(false);
  });

  it('refuses a sandbox-registered directory to a CLI pointed elsewhere, and a directory of the service to --sandbox (exit 2, nothing sent)', async () => {
    const dataDir = join(work, 'cli');
    sandbox = await runSandboxCommandUntilReady({ dataDir, difficulty: 4 });
    const registered = await runCli(
      ['register', '--sandbox', dataDir, '--username', 'cli-agent', '--watch', 'on-demand'],
      { env: bareEnv },
    );
    expect(registered.code, registered.stderr).toBe(0);

    const elsewhere = await runCli(
      ['jmap_request', '--ops-file', 'list_inbox', '--credentials-dir', sandbox.ready.credentialsDir],
      { env: { ...bareEnv, AGENT_MAILBOX_API_URL: offMachine, AGENT_MAILBOX_AUTH_URL: offMachine } },
    );
    expect(elsewhere.code, elsewhere.stderr).toBe(2);
    expect(elsewhere.json).toMatchObject({
      error: { code: 'credentials_wrong_service', details: { endpoint: 'http://0.0.0.0:9' } },
    });

    const liveDir = join(work, 'live');
    await mkdir(liveDir, { recursive: true, mode: 0o700 });
    await writeFile(
      join(liveDir, 'credentials.json'),
      JSON.stringify({
        apiKey: 'am_live_key_never_sent',
        inboxId: 'real-agent',
        authUrl: 'https://auth.atomicmail.ai',
        apiUrl: 'https://api.atomicmail.ai',
      }),
      { mode: 0o600 },
    );
    const local = await runCli(
      ['jmap_request', '--ops-file', 'list_inbox', '--sandbox', dataDir, '--credentials-dir', liveDir],
      { env: bareEnv },
    );
    expect(local.code, local.stderr).toBe(2);
    expect(local.json).toMatchObject({
      error: {
        code: 'credentials_wrong_service',
        details: { registeredOn: 'https://api.atomicmail.ai', endpoint: sandbox.ready.authUrl },
      },
    });
    expect(local.stdout + local.stderr).not.toContain('am_live_key_never_sent');
  });

  it("says what to do when the data directory is no sandbox's", async () => {
    const run = await runCli(['jmap_request', '--ops-file', 'list_inbox', '--sandbox', join(work, 'nothing-here')], {
      env: bareEnv,
    });
    expect(run.code, run.stderr).toBe(2);
    expect(run.json).toMatchObject({ error: { code: 'sandbox_settings_missing' } });
    expect(run.stderr).toContain('agent-mailbox sandbox --data-dir');
  });

  it('names a kept port that another program took, with the flag that chooses another, and starts on a free one with it', async () => {
    const dataDir = join(work, 'taken');
    sandbox = await runSandboxCommandUntilReady({ dataDir, difficulty: 4 });
    const apiPort = Number(new URL(sandbox.ready.apiUrl).port);
    await sandbox.stop();
    sandbox = undefined;
    const squatter = createServer();
    await new Promise<void>((resolve) => squatter.listen(apiPort, '127.0.0.1', resolve));
    try {
      const failed = await runSandboxCommandFailing({ dataDir, difficulty: 4 });
      expect(failed.code).toBe(1);
      expect(failed.stderr).toContain(
        `port ${apiPort} is taken: the sandbox kept it for --api-port from its last start with --data-dir ${dataDir}`,
      );
      expect(failed.stderr).toContain('--api-port 0: any free port');
      sandbox = await runSandboxCommandUntilReady({ dataDir, difficulty: 4, apiPort: 0 });
      expect(sandbox.ready.apiUrl).not.toBe(`http://127.0.0.1:${apiPort}`);
    } finally {
      await new Promise((resolve) => squatter.close(resolve));
    }
  });
});
