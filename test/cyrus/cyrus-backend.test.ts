import { createTransport } from 'nodemailer';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSandbox, type RunningSandbox } from '../../sandbox/src/start-sandbox.js';
import { cyrusSkipReason, eventually, jmap, resultOf, signUp, type TestInbox } from './cyrus-test-kit.js';

// Issue 6: the sandbox's Cyrus backend is a real Cyrus IMAP 3.6 behind a JMAP gateway.
const skip = cyrusSkipReason('cyrus backend');

interface Session {
  apiUrl: string;
  uploadUrl: string;
  downloadUrl: string;
  primaryAccounts: Record<string, string>;
  accounts: Record<string, { accountCapabilities: Record<string, unknown> }>;
  capabilities: Record<string, unknown>;
}

describe.skipIf(skip)('the sandbox with the Cyrus backend', () => {
  let sandbox: RunningSandbox;
  let alice: TestInbox;
  let bob: TestInbox;
  let session: Session;
  let startMs = 0;
  const mailboxes = new Map<string, Record<string, string>>();

  const getSession = async (inbox: TestInbox): Promise<{ status: number; body: Session }> => {
    const res = await fetch(`${sandbox.apiUrl}/.well-known/jmap`, {
      headers: { authorization: `Bearer ${await inbox.capability()}` },
    });
    return { status: res.status, body: (await res.json()) as Session };
  };
  const call = (inbox: TestInbox, calls: Parameters<typeof jmap>[2], using?: string[]) =>
    jmap(session.apiUrl, inbox, calls, using);

  /** Role → mailbox id of an inbox (Drafts and Sent are needed to send). */
  const rolesOf = async (inbox: TestInbox): Promise<Record<string, string>> => {
    const known = mailboxes.get(inbox.address);
    if (known) return known;
    const { body } = await call(inbox, [['Mailbox/get', { accountId: inbox.address, properties: ['role'] }, 'm']]);
    const list = resultOf(body, 'm')['list'] as Array<{ id: string; role: string | null }>;
    const roles = Object.fromEntries(list.filter((m) => m.role).map((m) => [m.role, m.id])) as Record<string, string>;
    mailboxes.set(inbox.address, roles);
    return roles;
  };

  /** The send batch of shared/reference/jmap.md: draft in Drafts, submit, move to Sent. */
  const send = async (
    inbox: TestInbox,
    mail: { from?: string; to: string[]; subject: string; text: string; attachments?: unknown[] },
  ) => {
    const roles = await rolesOf(inbox);
    const email: Record<string, unknown> = {
      mailboxIds: { [roles['drafts'] ?? '']: true },
      keywords: { $draft: true, $seen: true },
      from: [{ email: mail.from ?? inbox.address }],
      to: mail.to.map((email) => ({ email })),
      subject: mail.subject,
      bodyValues: { b: { value: mail.text } },
      textBody: [{ partId: 'b', type: 'text/plain' }],
      ...(mail.attachments ? { attachments: mail.attachments } : {}),
    };
    return call(inbox, [
      ['Email/set', { accountId: inbox.address, create: { draft: email } }, 'e'],
      [
        'EmailSubmission/set',
        {
          accountId: inbox.address,
          create: { sub: { emailId: '#draft', identityId: inbox.address } },
          onSuccessUpdateEmail: {
            '#sub': {
              [`mailboxIds/${roles['drafts']}`]: null,
              [`mailboxIds/${roles['sent']}`]: true,
              'keywords/$draft': null,
            },
          },
        },
        's',
      ],
    ]);
  };

  const inboxIds = async (inbox: TestInbox, filter: Record<string, unknown> = {}): Promise<string[]> => {
    const roles = await rolesOf(inbox);
    const { body } = await call(inbox, [
      [
        'Email/query',
        {
          accountId: inbox.address,
          filter: { inMailbox: roles['inbox'], ...filter },
          sort: [{ property: 'receivedAt', isAscending: false }],
        },
        'q',
      ],
    ]);
    return resultOf(body, 'q')['ids'] as string[];
  };

  /** The inbox message with `subject` (receivedAt has one-second resolution, so "latest" is ambiguous). */
  const findBySubject = async (
    inbox: TestInbox,
    subject: string,
    properties: string[],
  ): Promise<Record<string, unknown>> => {
    const ids = await inboxIds(inbox);
    const { body } = await call(inbox, [
      ['Email/get', { accountId: inbox.address, ids, properties: ['subject', ...properties] }, 'g'],
    ]);
    const found = (resultOf(body, 'g')['list'] as Array<Record<string, unknown>>).find((m) => m['subject'] === subject);
    if (!found) throw new Error(`no message "${subject}" in ${inbox.address}`);
    return found;
  };

  beforeAll(async () => {
    const started = Date.now();
    sandbox = await startSandbox({
      backend: 'cyrus',
      difficulty: 2,
      rateLimit: false,
      ...(process.env['CYRUS_DEBUG'] ? { log: (line: string) => process.stderr.write(`${line}\n`) } : {}),
    });
    startMs = Date.now() - started;
    alice = await signUp(sandbox.authUrl, 'alice-cyrus', sandbox.salt);
    bob = await signUp(sandbox.authUrl, 'bob-cyrus', sandbox.salt);
    session = (await getSession(alice)).body;
  });
  afterAll(async () => {
    await sandbox?.close();
  });

  it('starts a private Cyrus instance within a few seconds', () => {
    expect(sandbox.backend).toBe('cyrus');
    expect(startMs).toBeLessThan(5_000);
  });

  it('serves a session with absolute URLs on its own host and the address as account id', async () => {
    const { status, body } = await getSession(bob);
    expect(status).toBe(200);
    expect(body.apiUrl).toBe(`${sandbox.apiUrl}/jmap/`);
    expect(body.uploadUrl).toBe(`${sandbox.apiUrl}/jmap/upload/{accountId}/`);
    expect(body.downloadUrl).toBe(`${sandbox.apiUrl}/jmap/download/{accountId}/{blobId}/{name}?accept={type}`);
    expect(body.primaryAccounts['urn:ietf:params:jmap:mail']).toBe(bob.address);
    expect(Object.keys(body.accounts[bob.address]?.accountCapabilities ?? {})).toContain(
      'urn:ietf:params:jmap:submission',
    );
    expect(body.capabilities).not.toHaveProperty('urn:ietf:params:jmap:blob');
  });

  it('creates every role mailbox at sign-up', async () => {
    expect(Object.keys(await rolesOf(alice)).sort()).toEqual(['archive', 'drafts', 'inbox', 'junk', 'sent', 'trash']);
  });

  it('refuses a request without a valid capability token', async () => {
    const none = await fetch(`${sandbox.apiUrl}/.well-known/jmap`);
    expect(none.status).toBe(401);
    const forged = await fetch(session.apiUrl, {
      method: 'POST',
      headers: { authorization: 'Bearer not.a.jwt', 'content-type': 'application/json' },
      body: '{}',
    });
    expect(forged.status).toBe(401);
    expect(await forged.json()).toMatchObject({ status: 401, hint: expect.stringContaining('capability') });
  });

  it('delivers a message between two inboxes before the send returns, and files the sent copy in Sent', async () => {
    // A sender of its own, so its Sent mailbox holds only this test's message.
    const carol = await signUp(sandbox.authUrl, 'carol-cyrus', sandbox.salt);
    const { status, body } = await send(carol, { to: [bob.address], subject: 'Hello Bob', text: 'first message' });
    expect(status).toBe(200);
    expect(resultOf(body, 's')['created']).toHaveProperty('sub');
    expect(await findBySubject(bob, 'Hello Bob', ['from', 'preview'])).toMatchObject({
      from: [{ email: carol.address }],
      preview: expect.stringMatching(/^first message\s*$/),
    });
    const roles = await rolesOf(carol);
    const sent = await call(carol, [
      ['Email/query', { accountId: carol.address, filter: { inMailbox: roles['sent'] } }, 'q'],
    ]);
    expect(resultOf(sent.body, 'q')['ids']).toHaveLength(1);
  });

  it("refuses a From that is not the inbox's own address with forbiddenFrom", async () => {
    const { body } = await send(alice, { from: bob.address, to: [bob.address], subject: 'spoof', text: 'x' });
    expect(resultOf(body, 's')['notCreated']).toMatchObject({ sub: { type: 'forbiddenFrom' } });
  });

  it("refuses a From header that is not the inbox's own address even under a correct envelope", async () => {
    const roles = await rolesOf(alice);
    const { body } = await call(alice, [
      [
        'Email/set',
        {
          accountId: alice.address,
          create: {
            d: {
              mailboxIds: { [roles['drafts'] ?? '']: true },
              from: [{ email: bob.address }],
              to: [{ email: bob.address }],
              subject: 'header spoof',
              bodyValues: { b: { value: 'x' } },
              textBody: [{ partId: 'b', type: 'text/plain' }],
            },
          },
        },
        'e',
      ],
      [
        'EmailSubmission/set',
        {
          accountId: alice.address,
          create: {
            sub: {
              emailId: '#d',
              identityId: alice.address,
              envelope: { mailFrom: { email: alice.address }, rcptTo: [{ email: bob.address }] },
            },
          },
        },
        's',
      ],
    ]);
    expect(resultOf(body, 's')['notCreated']).toMatchObject({
      sub: { type: 'forbiddenFrom', description: expect.stringContaining(bob.address) },
    });
  });

  it('refuses an unknown inbox of its own domain at RCPT time', async () => {
    const { body } = await send(alice, { to: [`nobody-here@${sandbox.domain}`], subject: 'lost', text: 'x' });
    expect(resultOf(body, 's')['notCreated']).toMatchObject({
      sub: { type: 'invalidRecipients', invalidRecipients: [`nobody-here@${sandbox.domain}`] },
    });
  });

  it('records mail to another domain in the outbox', async () => {
    const { body } = await send(alice, { to: ['someone@example.org'], subject: 'To the world', text: 'outside' });
    expect(resultOf(body, 's')['created']).toHaveProperty('sub');
    const outbox = (await (await fetch(`${sandbox.apiUrl}/sandbox/outbox`)).json()) as {
      outbox: Array<{ to: string[]; subject: string; from: string }>;
    };
    expect(outbox.outbox).toContainEqual(
      expect.objectContaining({ from: alice.address, to: ['someone@example.org'], subject: 'To the world' }),
    );
    expect(await sandbox.outbox()).toHaveLength(outbox.outbox.length);
  });

  it('uploads a blob to uploadUrl, sends it as an attachment and downloads the same bytes', async () => {
    const bytes = Buffer.from('%PDF-1.4 pretend pdf \u0000\u0001\u0002 bytes');
    const upload = await fetch(session.uploadUrl.replace('{accountId}', alice.address), {
      method: 'POST',
      headers: { authorization: `Bearer ${await alice.capability()}`, 'content-type': 'application/pdf' },
      body: bytes,
    });
    expect(upload.status).toBe(201);
    const blob = (await upload.json()) as { blobId: string; size: number };
    expect(blob.size).toBe(bytes.length);
    const { body } = await send(alice, {
      to: [bob.address],
      subject: 'With attachment',
      text: 'see file',
      attachments: [{ blobId: blob.blobId, type: 'application/pdf', name: 'doc.pdf', disposition: 'attachment' }],
    });
    expect(resultOf(body, 's')['created']).toHaveProperty('sub');
    const received = (await findBySubject(bob, 'With attachment', ['attachments'])) as {
      attachments: Array<{ blobId: string; name: string }>;
    };
    const attachment = received.attachments[0];
    expect(attachment?.name).toBe('doc.pdf');
    const url = session.downloadUrl
      .replace('{accountId}', bob.address)
      .replace('{blobId}', attachment?.blobId ?? '')
      .replace('{name}', 'doc.pdf')
      .replace('{type}', 'application/pdf');
    const download = await fetch(url, { headers: { authorization: `Bearer ${await bob.capability()}` } });
    expect(download.status).toBe(200);
    expect(Buffer.from(await download.arrayBuffer())).toEqual(bytes);
  });

  it('reports inbound mail through Email/changes since a saved state', async () => {
    const before = await call(bob, [['Email/get', { accountId: bob.address, ids: [] }, 'g']]);
    const since = resultOf(before.body, 'g')['state'] as string;
    const raw = Buffer.from(
      `From: carol@example.org\r\nTo: ${bob.address}\r\nSubject: From outside\r\nMessage-ID: <outside-1@example.org>\r\n\r\nhello from outside\r\n`,
    );
    await sendOverSmtp(sandbox.smtpPort, 'carol@example.org', bob.address, raw);
    const changes = await call(bob, [['Email/changes', { accountId: bob.address, sinceState: since }, 'c']]);
    expect(resultOf(changes.body, 'c')['created']).toHaveLength(1);
  });

  it('finds a message by text once Xapian has indexed it', async () => {
    await send(alice, { to: [bob.address], subject: 'Quarterly zebra report', text: 'the unusual word is xylophone' });
    const found = await eventually(async () => {
      const ids = await inboxIds(bob, { text: 'xylophone' });
      return ids.length > 0 ? ids : undefined;
    });
    expect(found).toHaveLength(1);
  });
});

/** Mail "from the internet" into the sandbox's inbound SMTP listener, raw bytes as given. */
async function sendOverSmtp(port: number, from: string, to: string, raw: Buffer): Promise<void> {
  const transport = createTransport({ host: '127.0.0.1', port, secure: false, ignoreTLS: true });
  try {
    await transport.sendMail({ envelope: { from, to: [to] }, raw });
  } finally {
    transport.close();
  }
}
