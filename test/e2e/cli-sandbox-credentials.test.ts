import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { startSandbox } from '../../sandbox/src/start-sandbox.js';
import { runCli, runCliInProcess } from '../helpers/run-cli.js';
import { startTestSandbox } from '../../sandbox/test/helpers/sandbox.js';
import { tempCredentialsDir } from '../helpers/temp-credentials-dir.js';

// The sandbox never touches the real credentials: a client pointed at it keeps out of the default
// directory, and a directory registered against it says so, in watch status and when it is gone.
const home = await mkdtemp(join(tmpdir(), 'agent-mailbox-home-'));
afterAll(() => rm(home, { recursive: true, force: true }));

function clientEnv(sandbox: { authUrl: string; apiUrl: string; salt: string; domain: string }): Record<string, string> {
  return {
    AGENT_MAILBOX_AUTH_URL: sandbox.authUrl,
    AGENT_MAILBOX_API_URL: sandbox.apiUrl,
    AGENT_MAILBOX_SCRYPT_SALT: sandbox.salt,
    AGENT_MAILBOX_INBOX_DOMAIN: sandbox.domain,
  };
}

interface CliError {
  error: { code: string; message: string; hint: string; details?: Record<string, unknown> };
}

describe('a client pointed at a sandbox', () => {
  it('refuses to register into the default credentials directory and writes nothing there (exit 2); the allow setting lets it', async () => {
    const sandbox = await startTestSandbox();
    // A process whose HOME is a temp dir: its default credentials directory is under it.
    const env = { ...clientEnv(sandbox), HOME: home, XDG_CONFIG_HOME: '' };
    const refused = await runCli(['register', '--username', 'my-agent-01', '--watch', 'on-demand'], { env });
    expect(refused.code, refused.stderr).toBe(2);
    const defaultDir = join(home, '.config', 'agent-mailbox');
    expect((refused.json as CliError).error).toMatchObject({
      code: 'sandbox_in_default_dir',
      details: { credentialsDir: defaultDir, endpoint: sandbox.authUrl },
    });
    expect(refused.stderr).toContain('--allow-default-credentials-dir');
    expect(existsSync(join(home, '.config'))).toBe(false);

    const allowed = await runCli(
      ['register', '--username', 'my-agent-01', '--watch', 'on-demand', '--allow-default-credentials-dir'],
      { env },
    );
    expect(allowed.code, allowed.stderr).toBe(0);
    expect(existsSync(join(defaultDir, 'credentials.json'))).toBe(true);
  });

  it("refuses to connect a person's account into the default credentials directory as well", async () => {
    const sandbox = await startTestSandbox({ oauth: { autoApprove: [{ person: 'Ada', inboxes: ['ada-inbox'] }] } });
    const env = { ...clientEnv(sandbox), HOME: home, XDG_CONFIG_HOME: '', BROWSER: '/nonexistent/browser' };
    const refused = await runCliInProcess(['connect', '--no-browser'], { env });
    expect(refused.code, refused.stderr).toBe(2);
    expect((refused.json as CliError).error).toMatchObject({ code: 'sandbox_in_default_dir' });
    expect(existsSync(join(home, '.config', 'agent-mailbox', 'oauth.json'))).toBe(false);
  });

  it('names the sandbox a directory was registered against in watch status, and in the error once it has stopped', async () => {
    const sandbox = await startSandbox({ difficulty: 2 });
    const dir = await tempCredentialsDir();
    const env = { ...clientEnv(sandbox), AGENT_MAILBOX_CREDENTIALS_DIR: dir };
    try {
      const registered = await runCliInProcess(['register', '--username', 'gone-agent', '--watch', 'on-demand'], {
        env,
      });
      expect(registered.code, registered.stderr).toBe(0);
      const status = await runCliInProcess(['watch', 'status'], { env });
      expect(status.json).toMatchObject({ sandbox: { authUrl: sandbox.authUrl, apiUrl: sandbox.apiUrl } });
      expect((status.json as { summary: string }).summary).toContain(
        `registered against a local sandbox (JMAP ${sandbox.apiUrl}, auth ${sandbox.authUrl})`,
      );
    } finally {
      await sandbox.close();
    }
    // The variables of that shell are gone too: only credentials.json still names the sandbox.
    const list = await runCliInProcess(['jmap_request', '--ops-file', 'list_inbox'], {
      env: { AGENT_MAILBOX_CREDENTIALS_DIR: dir },
    });
    expect(list.code).toBe(1);
    const { error } = list.json as CliError;
    expect(error.code).toBe('sandbox_not_running');
    expect(error.message).toMatch(
      new RegExp(
        `^The inbox gone-agent@agent-mailbox\\.test in ${dir} was registered against a local sandbox \\(auth ${sandbox.authUrl}, JMAP ${sandbox.apiUrl}\\), which is not running`,
      ),
    );
    const [authPort, apiPort] = [new URL(sandbox.authUrl).port, new URL(sandbox.apiUrl).port];
    expect(error.hint).toContain(`--auth-port ${authPort} --api-port ${apiPort}`);
    expect(list.stderr).toMatch(/^error: The inbox gone-agent/);
  });
});
