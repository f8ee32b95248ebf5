import nodemailer from 'nodemailer';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { pollUntil, signUpInbox, startTestSandbox } from '../helpers/sandbox.js';

// The whole proof-of-work chain against the real embedded JMAP store, over plain HTTP (issue 2).
const sandbox = await startTestSandbox();
const inbox = await signUpInbox(sandbox, 'chain-user');

const sessionSchema = z.object({
  apiUrl: z.string(),
  primaryAccounts: z.record(z.string(), z.string()),
  accounts: z.record(z.string(), z.unknown()),
});

async function jmap(methodCalls: unknown[]): Promise<Array<[string, Record<string, unknown>, string]>> {
  const session = sessionSchema.parse(
    await (
      await fetch(`${sandbox.apiUrl}/.well-known/jmap`, { headers: { authorization: `Bearer ${inbox.capability}` } })
    ).json(),
  );
  const response = await fetch(session.apiUrl, {
    method: 'POST',
    headers: { authorization: `Bearer ${inbox.capability}`, 'content-type': 'application/json' },
    body: JSON.stringify({ using: ['urn:ietf:params:jmap:core', 'urn:ietf:params:jmap:mail'], methodCalls }),
  });
  expect(response.status).toBe(200);
  return ((await response.json()) as { methodResponses: Array<[string, Record<string, unknown>, string]> })
    .methodResponses;
}

describe('sign-up → session → capability → JMAP', () => {
  it('serves a JMAP session whose mail account is the new inbox address', async () => {
    const response = await fetch(`${sandbox.apiUrl}/.well-known/jmap`, {
      headers: { authorization: `Bearer ${inbox.capability}` },
    });
    expect(response.status).toBe(200);
    const session = sessionSchema.parse(await response.json());
    expect(session.primaryAccounts['urn:ietf:params:jmap:mail']).toBe('chain-user@agent-mailbox.test');
    expect(session.apiUrl.startsWith(sandbox.apiUrl)).toBe(true);
    expect(Object.keys(session.accounts)).toEqual(['chain-user@agent-mailbox.test']);
  });

  it('has created the inbox with its Inbox mailbox before sign-up answered', async () => {
    const [query] = await jmap([['Mailbox/query', { accountId: inbox.address, filter: { role: 'inbox' } }, 'q']]);
    expect(query?.[0]).toBe('Mailbox/query');
    expect(query?.[1]['ids']).toHaveLength(1);
  });

  it('refuses the session JWT as a JMAP bearer with 401', async () => {
    const response = await fetch(`${sandbox.apiUrl}/.well-known/jmap`, {
      headers: { authorization: `Bearer ${inbox.session}` },
    });
    expect(response.status).toBe(401);
  });

  it('delivers mail sent over SMTP into the inbox, where Email/query finds it', async () => {
    const transport = nodemailer.createTransport({
      host: '127.0.0.1',
      port: sandbox.smtpPort,
      secure: false,
      ignoreTLS: true,
    });
    await transport.sendMail({
      from: 'outside@example.org',
      to: inbox.address,
      subject: 'Über SMTP ✉',
      text: 'arrived',
    });
    const found = await pollUntil(
      async () => {
        const responses = await jmap([
          ['Email/query', { accountId: inbox.address, filter: { subject: 'SMTP' } }, 'q'],
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
        const list = (responses[1]?.[1]['list'] ?? []) as Array<{ subject: string }>;
        return list.length > 0 ? list : undefined;
      },
      10_000,
      'the SMTP message in Email/query',
    );
    expect(found[0]?.subject).toBe('Über SMTP ✉');
  });
});
