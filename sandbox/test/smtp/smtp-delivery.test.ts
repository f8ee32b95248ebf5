import nodemailer from 'nodemailer';
import { describe, expect, it } from 'vitest';
import { createFakeBackend, signUpInbox, startTestSandbox } from '../helpers/sandbox.js';

const fake = createFakeBackend();
const sandbox = await startTestSandbox({ createBackend: fake.factory });
await signUpInbox(sandbox, 'smtp-user');

const transport = nodemailer.createTransport({
  host: '127.0.0.1',
  port: sandbox.smtpPort,
  secure: false,
  ignoreTLS: true,
});

describe('SMTP listener', () => {
  it('hands a message for a sandbox inbox to the mail store as raw RFC 5322 bytes', async () => {
    const info = await transport.sendMail({
      from: 'someone@example.org',
      to: 'smtp-user@agent-mailbox.test',
      subject: 'Grüße 🚀',
      text: 'hello from outside',
      attachments: [{ filename: 'note.txt', content: 'attached' }],
    });
    expect(info.accepted).toEqual(['smtp-user@agent-mailbox.test']);
    const last = fake.delivered.at(-1)!;
    expect(last.to).toEqual(['smtp-user@agent-mailbox.test']);
    const raw = last.raw.toString('utf8');
    expect(raw).toMatch(/^Subject: =\?UTF-8\?/m);
    expect(raw).toContain('filename=note.txt');
  });

  it('accepts the inbox address in any letter case', async () => {
    const info = await transport.sendMail({
      from: 'a@example.org',
      to: 'SMTP-User@Agent-Mailbox.TEST',
      subject: 'case',
      text: 'x',
    });
    expect(info.accepted).toHaveLength(1);
  });

  it('refuses an unknown local user at RCPT with 550 5.1.1', async () => {
    await expect(
      transport.sendMail({ from: 'a@example.org', to: 'nobody-here@agent-mailbox.test', subject: 'x', text: 'x' }),
    ).rejects.toMatchObject({
      responseCode: 550,
      response: expect.stringMatching(/5\.1\.1 .*no such inbox/),
    });
  });

  it('refuses to relay for another domain with 550', async () => {
    await expect(
      transport.sendMail({ from: 'a@example.org', to: 'smtp-user@example.com', subject: 'x', text: 'x' }),
    ).rejects.toMatchObject({
      responseCode: 550,
      response: expect.stringMatching(/relay access denied/),
    });
  });

  it('delivers to the known recipients of a mixed envelope and reports the unknown one as rejected', async () => {
    const info = await transport.sendMail({
      from: 'a@example.org',
      to: ['smtp-user@agent-mailbox.test', 'ghost-user@agent-mailbox.test'],
      subject: 'mixed',
      text: 'x',
    });
    expect(info.accepted).toEqual(['smtp-user@agent-mailbox.test']);
    expect(info.rejected).toEqual(['ghost-user@agent-mailbox.test']);
  });
});

describe("SMTP listener with a person's inbox on a custom domain", () => {
  it('delivers to the custom-domain inbox and still refuses other addresses of that domain as relaying', async () => {
    const store = createFakeBackend();
    const withPeople = await startTestSandbox({
      createBackend: store.factory,
      oauth: { autoApprove: [{ person: 'Ada', inboxes: ['ops@acme.test'] }] },
    });
    const smtp = nodemailer.createTransport({
      host: '127.0.0.1',
      port: withPeople.smtpPort,
      secure: false,
      ignoreTLS: true,
    });
    try {
      const info = await smtp.sendMail({
        from: 'client@example.org',
        to: 'Ops@Acme.test',
        subject: 'invoice',
        text: 'attached',
      });
      expect(info.accepted.map((a) => String(a).toLowerCase())).toEqual(['ops@acme.test']);
      expect(store.delivered.at(-1)?.to).toEqual(['ops@acme.test']);
      await expect(
        smtp.sendMail({ from: 'client@example.org', to: 'sales@acme.test', subject: 'x', text: 'x' }),
      ).rejects.toMatchObject({
        responseCode: 550,
        response: expect.stringMatching(/relay access denied/),
      });
    } finally {
      smtp.close();
    }
  });
});
