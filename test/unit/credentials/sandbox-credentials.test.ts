import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { resolveConfig, settings } from '../../../src/config.js';
import { checkCredentialsTarget } from '../../../src/credentials/check-endpoints.js';
import { credentialsExistError } from '../../../src/credentials/credential-store.js';
import { explainUnreachableSandbox } from '../../../src/credentials/explain-unreachable-sandbox.js';
import { isLoopbackUrl, registeredSandbox } from '../../../src/credentials/loopback-endpoints.js';
import { MailboxError } from '../../../src/errors.js';
import { networkError } from '../../../src/http/http-errors.js';
import { exitCodeOf } from '../../../src/render/render-error.js';

const defaultDir = settings.credentialsDir.defaultValue();
const sandboxEnv = {
  AGENT_MAILBOX_AUTH_URL: 'http://127.0.0.1:41001',
  AGENT_MAILBOX_API_URL: 'http://127.0.0.1:41002',
};

function thrownBy(run: () => void): MailboxError | undefined {
  try {
    run();
  } catch (error) {
    return error as MailboxError;
  }
  return undefined;
}

/** A refused connection as node reports it, wrapped the way the HTTP layer wraps it. */
function refused(port: number, address = '127.0.0.1'): MailboxError {
  const socket = Object.assign(new Error(`connect ECONNREFUSED ${address}:${port}`), {
    code: 'ECONNREFUSED',
    address,
    port,
  });
  return networkError(
    'JMAP request',
    `http://${address}:${port}/jmap`,
    new TypeError('fetch failed', { cause: socket }),
    false,
  );
}

describe('loopback endpoints', () => {
  it('knows the hosts of this machine and nothing else', () => {
    for (const url of [
      'http://127.0.0.1:8080',
      'http://127.5.6.7',
      'http://localhost:3000',
      'http://api.localhost',
      'http://[::1]:9',
      'http://[::ffff:127.0.0.1]:9',
    ]) {
      expect(isLoopbackUrl(url), url).toBe(true);
    }
    for (const url of [
      'https://api.atomicmail.ai',
      'http://128.0.0.1',
      'http://localhost.example.com',
      'http://[::2]',
      'not a url',
    ]) {
      expect(isLoopbackUrl(url), url).toBe(false);
    }
  });

  it('names the sandbox a credentials file was registered against, and nothing for the live service', () => {
    expect(registeredSandbox({ authUrl: 'http://127.0.0.1:1', apiUrl: 'http://127.0.0.1:2' })).toEqual({
      authUrl: 'http://127.0.0.1:1',
      apiUrl: 'http://127.0.0.1:2',
    });
    expect(
      registeredSandbox({ authUrl: 'https://auth.atomicmail.ai', apiUrl: 'https://api.atomicmail.ai' }),
    ).toBeUndefined();
    expect(registeredSandbox({})).toBeUndefined();
  });
});

describe('a client pointed at a sandbox and the default credentials directory', () => {
  it('is refused before anything is written, naming the directory, the sandbox and both ways out (exit 2)', () => {
    const config = resolveConfig({ env: sandboxEnv });
    const error = thrownBy(() => checkCredentialsTarget(config, defaultDir));
    expect(error?.code).toBe('sandbox_in_default_dir');
    expect(error?.message).toContain(resolve(defaultDir));
    expect(error?.message).toContain('http://127.0.0.1:41001');
    expect(error?.hint).toContain('AGENT_MAILBOX_CREDENTIALS_DIR');
    expect(error?.hint).toContain(
      'AGENT_MAILBOX_ALLOW_DEFAULT_CREDENTIALS_DIR=1 (CLI: --allow-default-credentials-dir)',
    );
    expect(exitCodeOf(error!)).toBe(2);
  });

  it('passes with the allow setting, in another directory, or for the live service', () => {
    expect(() =>
      checkCredentialsTarget(
        resolveConfig({ env: { ...sandboxEnv, AGENT_MAILBOX_ALLOW_DEFAULT_CREDENTIALS_DIR: '1' } }),
        defaultDir,
      ),
    ).not.toThrow();
    expect(() =>
      checkCredentialsTarget(
        resolveConfig({ flags: { allowDefaultCredentialsDir: true }, env: sandboxEnv }),
        defaultDir,
      ),
    ).not.toThrow();
    expect(() =>
      checkCredentialsTarget(resolveConfig({ env: sandboxEnv }), '/tmp/elsewhere/credentials'),
    ).not.toThrow();
    expect(() => checkCredentialsTarget(resolveConfig({}), defaultDir)).not.toThrow();
  });

  it("passes when the loopback URLs come from the directory's own credentials.json (chosen when it was registered)", () => {
    const config = resolveConfig({
      credentials: { authUrl: 'http://127.0.0.1:41001', apiUrl: 'http://127.0.0.1:41002' },
    });
    expect(config.sources.apiUrl).toBe('credentials');
    expect(() => checkCredentialsTarget(config, defaultDir)).not.toThrow();
  });
});

describe('a sandbox that is not running', () => {
  const credentials = {
    inboxId: 'my-agent-01',
    inbox: 'my-agent-01@agent-mailbox.test',
    authUrl: 'http://127.0.0.1:41001',
    apiUrl: 'http://127.0.0.1:41002',
  };

  it('is named as the one the inbox was registered against, with the command that starts it on the same ports', () => {
    const error = explainUnreachableSandbox(refused(41002), { dir: '/tmp/x/credentials', credentials }) as MailboxError;
    expect(error.code).toBe('sandbox_not_running');
    expect(error.message).toBe(
      'The inbox my-agent-01@agent-mailbox.test in /tmp/x/credentials was registered against a local sandbox (auth http://127.0.0.1:41001, JMAP http://127.0.0.1:41002), which is not running: the connection to port 41002 was refused.',
    );
    expect(error.hint).toContain('agent-mailbox sandbox --data-dir <its data dir> --auth-port 41001 --api-port 41002');
    expect(error.details).toEqual({
      credentialsDir: '/tmp/x/credentials',
      sandbox: { authUrl: credentials.authUrl, apiUrl: credentials.apiUrl },
    });
    expect(exitCodeOf(error)).toBe(1);
  });

  it('stays a network error that says nothing listens there when the inbox was not registered against it', () => {
    const error = explainUnreachableSandbox(refused(43000), {
      dir: '/tmp/x',
      credentials: { inboxId: 'a', authUrl: 'https://auth.atomicmail.ai' },
    }) as MailboxError;
    expect(error.code).toBe('network');
    expect(error.message).toMatch(
      /http:\/\/127\.0\.0\.1:43000.* Nothing listens on port 43000 of this machine: a local sandbox that is not running\?$/,
    );
    expect(error.hint).toMatch(/^Start the sandbox \(agent-mailbox sandbox\)/);
  });

  it('leaves other failures alone: a remote host refusing, a timeout, anything not a MailboxError', () => {
    const remote = refused(443, '203.0.113.5');
    expect(explainUnreachableSandbox(remote, { dir: '/tmp/x', credentials })).toBe(remote);
    const timeout = new MailboxError({ code: 'timeout', message: 'slow', hint: 'wait' });
    expect(explainUnreachableSandbox(timeout, { dir: '/tmp/x', credentials })).toBe(timeout);
    const plain = new Error('boom');
    expect(explainUnreachableSandbox(plain, { dir: '/tmp/x', credentials })).toBe(plain);
  });
});

describe("replacing a sandbox inbox's credentials", () => {
  it("is still refused, and says the stored inbox is a sandbox's and how to move it aside", () => {
    const error = credentialsExistError(
      {
        apiKey: 'amk_0123456789abcdef',
        inboxId: 'my-agent-01',
        inbox: 'my-agent-01@agent-mailbox.test',
        apiUrl: 'http://127.0.0.1:41002',
      },
      '/home/me/.config/agent-mailbox',
      'real-agent',
    );
    expect(error.code).toBe('credentials_exist');
    expect(error.message).toContain(
      'my-agent-01@agent-mailbox.test is an inbox of a local sandbox (http://127.0.0.1:41002), not of the service.',
    );
    expect(error.hint).toMatch(/^To use another inbox, give it its own directory/);
    expect(error.hint).toMatch(
      / To free this directory for an inbox of the service, move the sandbox's credentials aside \(e\.g\. rename \/home\/me\/\.config\/agent-mailbox to \/home\/me\/\.config\/agent-mailbox-sandbox\) and register again\.$/,
    );
  });
});
