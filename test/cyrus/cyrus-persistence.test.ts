import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTransport } from 'nodemailer';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type RunningSandbox } from '../../sandbox/src/start-sandbox.js';
import {
  capabilityFromApiKey,
  cyrusSkipReason,
  eventually,
  jmap,
  resultOf,
  signUp,
  type TestInbox,
} from './cyrus-test-kit.js';

// Issue 11 item 6: --data-dir keeps Cyrus inboxes and mail across restarts.
const skip = cyrusSkipReason('cyrus persistence');

describe.skipIf(skip)('the Cyrus backend with a data dir', () => {
  // Made when the tests run, not when a skipped suite is collected. Not under /root: user cyrus must
  // traverse the path to the kept instance.
  let dataDir = '';
  beforeAll(() => {
    dataDir = mkdtempSync(join(tmpdir().startsWith('/root') ? '/tmp' : tmpdir(), 'agent-mailbox-cyrus-data-'));
  });
  const running: RunningSandbox[] = [];
  afterAll(async () => {
    for (const sandbox of running) await sandbox.close();
    rmSync(dataDir, { recursive: true, force: true });
  });
  const start = async (): Promise<RunningSandbox> => {
    const sandbox = await startSandbox({
      backend: 'cyrus',
      difficulty: 2,
      rateLimit: false,
      dataDir,
      ...(process.env['CYRUS_DEBUG'] ? { log: (line: string) => process.stderr.write(`${line}\n`) } : {}),
    });
    running.push(sandbox);
    return sandbox;
  };
  const subjectsIn = async (sandbox: RunningSandbox, inbox: TestInbox): Promise<string[]> => {
    const apiUrl = `${sandbox.apiUrl}/jmap/`;
    const { body } = await jmap(apiUrl, inbox, [
      ['Email/query', { accountId: inbox.address }, 'q'],
      [
        'Email/get',
        {
          accountId: inbox.address,
          '#ids': { resultOf: 'q', name: 'Email/query', path: '/ids' },
          properties: ['subject'],
        },
        'g',
      ],
    ]);
    return (resultOf(body, 'g')['list'] as Array<{ subject: string }>).map((email) => email.subject);
  };

  it('keeps an inbox and its mail when the sandbox starts again on the same data dir', async () => {
    const first = await start();
    const inbox = await signUp(first.authUrl, 'keeper', first.salt);
    await createTransport({ host: '127.0.0.1', port: first.smtpPort, secure: false, ignoreTLS: true }).sendMail({
      from: 'outside@example.org',
      to: inbox.address,
      subject: 'kept across restarts',
      text: 'still here',
    });
    await eventually(async () =>
      (await subjectsIn(first, inbox)).includes('kept across restarts') ? true : undefined,
    );
    await first.close();

    const second = await start();
    const capability = await capabilityFromApiKey(second.authUrl, inbox.apiKey, second.salt);
    const again: TestInbox = { address: inbox.address, apiKey: inbox.apiKey, capability: async () => capability };
    expect(await subjectsIn(second, again)).toContain('kept across restarts');
  }, 120_000);
});
