import { mkdir } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { explainUnreachableSandbox } from '../../../src/credentials/explain-unreachable-sandbox.js';
import { MailboxError } from '../../../src/errors.js';
import { tempCredentialsDir } from '../../helpers/temp-credentials-dir.js';

/** A refused connection to this machine, read as "the sandbox this inbox was registered against is not running". */

function refused(
  address: string | undefined,
  port: number | undefined,
  code: 'network' | 'timeout' = 'network',
  socketCode = 'ECONNREFUSED',
): MailboxError {
  const socket = Object.assign(new Error(`connect ${socketCode}`), { code: socketCode, address, port });
  return new MailboxError({
    code,
    message: 'The request could not reach the host.',
    hint: 'Check the network.',
    cause: new Error('fetch failed', { cause: socket }),
  });
}

const credentials = {
  inboxId: 'ada',
  inbox: 'ada@agent-mailbox.test',
  authUrl: 'http://127.0.0.1:4100',
  apiUrl: 'http://127.0.0.1:4200',
};

describe('explainUnreachableSandbox', () => {
  it('names the sandbox an inbox was registered against and how to start it again', () => {
    const error = explainUnreachableSandbox(refused('127.0.0.1', 4200), {
      dir: '/home/a/inbox',
      credentials,
    }) as MailboxError;
    expect(error).toMatchObject({
      code: 'sandbox_not_running',
      details: {
        credentialsDir: '/home/a/inbox',
        sandbox: { authUrl: credentials.authUrl, apiUrl: credentials.apiUrl },
      },
    });
    expect(error.message).toBe(
      'The inbox ada@agent-mailbox.test in /home/a/inbox was registered against a local sandbox (auth http://127.0.0.1:4100, JMAP http://127.0.0.1:4200), which is not running: the connection to port 4200 was refused.',
    );
    expect(error.hint).toContain('`agent-mailbox sandbox --data-dir <its data dir> --auth-port 4100 --api-port 4200`');
    expect(error.hint).toContain("An in-memory sandbox's inboxes are gone with it");
  });

  it("gives the sandbox's data directory when the inbox lives in its credentials folder", async () => {
    const dir = join(await tempCredentialsDir(), 'data dir', 'credentials');
    await mkdir(join(dirname(dir), 'auth'), { recursive: true });
    const error = explainUnreachableSandbox(refused('::1', 4100), {
      dir,
      credentials: { inboxId: 'ada', authUrl: 'http://127.0.0.1:4100', apiUrl: undefined },
    }) as MailboxError;
    expect(error.code).toBe('sandbox_not_running');
    expect(error.message).toContain('The inbox ada in');
    expect(error.message).toContain('JMAP ?');
    expect(error.hint).toContain(`\`agent-mailbox sandbox --data-dir '${dirname(dir)}' --auth-port 4100\``);
    expect(error.hint).not.toContain('in-memory');
  });

  it("names the port as a guess when the refused port is not the inbox's sandbox", () => {
    for (const inbox of [
      { dir: '/d', credentials },
      { dir: '/d', credentials: undefined },
      {
        dir: '/d',
        credentials: { inboxId: 'ada', authUrl: 'https://auth.example.test', apiUrl: 'https://api.example.test' },
      },
    ]) {
      const original = refused('127.0.0.1', 443);
      const error = explainUnreachableSandbox(original, inbox) as MailboxError;
      expect(error).toMatchObject({ code: 'network', details: { port: 443 } });
      expect(error.message).toBe(
        'The request could not reach the host. Nothing listens on port 443 of this machine: a local sandbox that is not running?',
      );
      expect(error.cause).toBe(original);
    }
  });

  it('counts the default port of a URL without one', () => {
    const error = explainUnreachableSandbox(refused('127.0.0.1', 80), {
      dir: '/d',
      credentials: { inboxId: 'ada', authUrl: 'http://localhost', apiUrl: undefined },
    }) as MailboxError;
    expect(error.code).toBe('sandbox_not_running');
    const secure = explainUnreachableSandbox(refused('127.0.0.1', 443), {
      dir: '/d',
      credentials: { inboxId: 'ada', authUrl: 'https://localhost', apiUrl: undefined },
    }) as MailboxError;
    expect(secure.code).toBe('sandbox_not_running');
    expect(secure.hint).toContain('--auth-port 443');
  });

  it('leaves every other failure as it was', () => {
    const plain = new Error('not ours');
    expect(explainUnreachableSandbox(plain, { dir: '/d', credentials })).toBe(plain);
    for (const error of [
      refused('127.0.0.1', 4200, 'timeout'),
      refused('127.0.0.1', 4200, 'network', 'ECONNRESET'),
      refused(undefined, 4200),
      refused('127.0.0.1', undefined),
      refused('10.0.0.1', 4200),
    ]) {
      expect(explainUnreachableSandbox(error, { dir: '/d', credentials })).toBe(error);
    }
  });
});
