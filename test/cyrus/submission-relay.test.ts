import { createTransport } from 'nodemailer';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { OutboxEntry } from '../../sandbox/src/mail-backend.js';
import {
  startSubmissionSmtpServer,
  type SubmissionSmtpServer,
} from '../../sandbox/src/cyrus/submission-smtp-server.js';
import { createMailAuthority } from '../../sandbox/src/mail-auth/mail-authority.js';

// The relay Cyrus submits to, without Cyrus: how it treats the empty envelope sender that Cyrus's
// Sieve vacation replies use (RFC 3834 §3.3).
const domain = 'agent-mailbox.test';
let relay: SubmissionSmtpServer;
const outbox: OutboxEntry[] = [];
const delivered: Array<{ from: string; recipients: string[] }> = [];

beforeAll(async () => {
  relay = await startSubmissionSmtpServer({
    domain,
    isLocalInbox: (address) => ['alice@agent-mailbox.test', 'bob@agent-mailbox.test'].includes(address.toLowerCase()),
    deliverLocal: async (from, recipients) => {
      delivered.push({ from, recipients });
      return { delivered: recipients, refused: [] };
    },
    recordOutbox: (entry) => void outbox.push(entry),
    ownMail: await createMailAuthority({ domain, authservId: domain }),
    log: () => undefined,
  });
});
afterAll(() => relay.close());

async function send(raw: string, to: string): Promise<void> {
  const transport = createTransport({ host: '127.0.0.1', port: relay.port, secure: false, ignoreTLS: true });
  try {
    await transport.sendMail({ envelope: { from: '', to: [to] }, raw: Buffer.from(raw) });
  } finally {
    transport.close();
  }
}

describe('the submission relay and the empty envelope sender', () => {
  it("carries an inbox's automatic reply to the outside world, recorded with the empty sender", async () => {
    await send(
      'From: <alice@agent-mailbox.test>\r\nTo: <dan@outside.test>\r\nSubject: Away\r\nAuto-Submitted: auto-replied (vacation)\r\n\r\nI am away.\r\n',
      'dan@outside.test',
    );
    expect(outbox).toEqual([expect.objectContaining({ from: '', to: ['dan@outside.test'], subject: 'Away' })]);
  });

  it('delivers an automatic reply to a local inbox with the empty sender', async () => {
    await send(
      'From: <alice@agent-mailbox.test>\r\nTo: <bob@agent-mailbox.test>\r\nSubject: Away\r\nAuto-Submitted: auto-replied\r\n\r\nI am away.\r\n',
      'bob@agent-mailbox.test',
    );
    expect(delivered).toEqual([{ from: '', recipients: ['bob@agent-mailbox.test'] }]);
  });

  it('refuses the empty sender for mail that is not an automatic reply, or not from one of its inboxes', async () => {
    const before = outbox.length;
    await expect(
      send(
        'From: <alice@agent-mailbox.test>\r\nTo: <dan@outside.test>\r\nSubject: Not automatic\r\n\r\nhi\r\n',
        'dan@outside.test',
      ),
    ).rejects.toThrow(/forbiddenToSend/);
    await expect(
      send(
        'From: <mallory@outside.test>\r\nTo: <dan@outside.test>\r\nSubject: Spoof\r\nAuto-Submitted: auto-replied\r\n\r\nhi\r\n',
        'dan@outside.test',
      ),
    ).rejects.toThrow(/forbiddenToSend/);
    await expect(
      send(
        'From: <alice@agent-mailbox.test>\r\nTo: <dan@outside.test>\r\nSubject: No\r\nAuto-Submitted: no\r\n\r\nhi\r\n',
        'dan@outside.test',
      ),
    ).rejects.toThrow(/forbiddenToSend/);
    expect(outbox).toHaveLength(before);
  });
});
