import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createTransport } from 'nodemailer';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type RunningSandbox } from '../../sandbox/src/start-sandbox.js';
import { cyrusSkipReason, eventually, signUp, type TestInbox } from './cyrus-test-kit.js';
import { putActiveSieveScript } from './manage-sieve.js';

// Cyrus's own vacation action, switched on over ManageSieve because Cyrus 3.6.1's JMAP
// VacationResponse crashes httpd (DIFFERENCES.md): its replies leave through the sandbox's relay
// with the empty sender and land in the outbox, once per sender per period.
const skip = cyrusSkipReason('cyrus vacation');

describe.skipIf(skip)('Cyrus vacation replies through the relay', () => {
  let sandbox: RunningSandbox;
  let dataDir: string;
  let alice: TestInbox;

  const inbound = async (from: string, subject: string): Promise<void> => {
    const transport = createTransport({ host: '127.0.0.1', port: sandbox.smtpPort, secure: false, ignoreTLS: true });
    try {
      await transport.sendMail({ from, to: alice.address, subject, text: 'hello' });
    } finally {
      transport.close();
    }
  };
  const repliesTo = async (address: string) => (await sandbox.outbox()).filter((entry) => entry.to.includes(address));

  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'cyrus-vacation-'));
    sandbox = await startSandbox({ backend: 'cyrus', difficulty: 2, rateLimit: false, dataDir });
    alice = await signUp(sandbox.authUrl, 'alice-away', sandbox.salt);
    // The test owns this data directory: the inbox's Cyrus password and the ManageSieve port are in it.
    const accounts = JSON.parse(await readFile(join(dataDir, 'mail', 'cyrus-accounts.json'), 'utf8')) as {
      passwords: Record<string, string>;
    };
    const sievePort = Number(
      /sieve cmd=.* listen="127\.0\.0\.1:(\d+)"/.exec(
        await readFile(join(dataDir, 'mail', 'cyrus', 'etc', 'cyrus.conf'), 'utf8'),
      )?.[1],
    );
    await putActiveSieveScript(
      sievePort,
      alice.address,
      accounts.passwords[alice.address] ?? '',
      'away',
      'require ["vacation"];\r\nvacation :days 1 :subject "Away (sieve)" "I am away this week.";\r\n',
    );
  });
  afterAll(async () => {
    await sandbox?.close();
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  it('answers an outside sender once, from the inbox, with the empty envelope sender and Auto-Submitted', async () => {
    await inbound('Dan <dan@outside.test>', 'Lunch?');
    const [reply] = await eventually(async () => {
      const found = await repliesTo('dan@outside.test');
      return found.length ? found : undefined;
    });
    expect(reply).toMatchObject({ from: '', to: ['dan@outside.test'], subject: 'Away (sieve)' });
    const raw = Buffer.from(reply?.rawBase64 ?? '', 'base64').toString();
    expect(raw).toMatch(/^Auto-Submitted: auto-replied/m);
    expect(raw).toMatch(new RegExp(`^From: <?${alice.address.replace(/[.]/g, '\\.')}>?`, 'm'));

    await inbound('Dan <dan@outside.test>', 'Lunch tomorrow?');
    // A reply to someone else marks the point the second message of Dan's has been through too.
    await inbound('Erin <erin@outside.test>', 'Hi');
    await eventually(async () => ((await repliesTo('erin@outside.test')).length ? true : undefined));
    expect(await repliesTo('dan@outside.test')).toHaveLength(1);
  });
});
