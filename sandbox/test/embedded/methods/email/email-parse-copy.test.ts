import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mailboxIds, resultOf, startJmapTestHost, type JmapTestHost } from '../../../helpers/jmap-test-host.js';

// Email/parse (RFC 8621 §4.9) and Email/copy (§4.7, RFC 8620 §5.4) on the embedded store.
let host: JmapTestHost;
let boxes: Record<string, string>;
const alice = 'alice@agent-mailbox.test';
const inner =
  'From: Dave <dave@example.org>\r\nSubject: Inner note\r\nMessage-ID: <inner-1@example.org>\r\n\r\nthe inner body\r\n';
const outer = [
  'From: Carol <carol@example.org>',
  `To: ${alice}`,
  'Subject: Forwarded note',
  'Message-ID: <outer-1@example.org>',
  'MIME-Version: 1.0',
  'Content-Type: multipart/mixed; boundary=XX',
  '',
  '--XX',
  'Content-Type: text/plain',
  '',
  'see the attached note',
  '--XX',
  'Content-Type: message/rfc822',
  'Content-Disposition: attachment; filename=note.eml',
  '',
  inner,
  '--XX--',
  '',
].join('\r\n');

beforeAll(async () => {
  host = await startJmapTestHost();
  await host.addInboxes('alice');
  boxes = await mailboxIds(host, 'alice');
});
afterAll(() => host.close());

async function upload(data: string | Buffer, type = 'message/rfc822'): Promise<string> {
  const response = await fetch(`${host.baseUrl}/upload/${encodeURIComponent(alice)}/`, {
    method: 'POST',
    headers: { authorization: 'Bearer token-alice', 'content-type': type },
    body: data,
  });
  return ((await response.json()) as { blobId: string }).blobId;
}
const state = async (): Promise<string> =>
  resultOf(await host.call('alice', [['Email/get', { accountId: alice, ids: [] }, 'g']]), 'g')['state'];

describe('Email/parse', () => {
  it('reads an uploaded message without storing it: store properties null, message properties and body values there', async () => {
    const blobId = await upload(outer);
    const before = await state();
    const result = resultOf(
      await host.call('alice', [
        [
          'Email/parse',
          {
            accountId: alice,
            blobIds: [blobId],
            properties: [
              'id',
              'blobId',
              'threadId',
              'mailboxIds',
              'keywords',
              'receivedAt',
              'size',
              'subject',
              'from',
              'textBody',
              'attachments',
              'bodyValues',
            ],
            fetchTextBodyValues: true,
          },
          'p',
        ],
      ]),
      'p',
    );
    expect(result).toMatchObject({ notParsable: null, notFound: null });
    expect(result['parsed'][blobId]).toMatchObject({
      id: null,
      blobId,
      threadId: null,
      mailboxIds: null,
      keywords: null,
      receivedAt: null,
      size: Buffer.byteLength(outer),
      subject: 'Forwarded note',
      from: [{ name: 'Carol', email: 'carol@example.org' }],
      attachments: [expect.objectContaining({ type: 'message/rfc822', name: 'note.eml' })],
    });
    const textPart = result['parsed'][blobId]['textBody'][0];
    expect(result['parsed'][blobId]['bodyValues'][textPart.partId].value).toBe('see the attached note');
    expect(await state()).toBe(before);
  });

  it('gives the default properties of RFC 8621 §4.9 when none are asked for', async () => {
    const blobId = await upload(outer);
    const parsed = resultOf(
      await host.call('alice', [['Email/parse', { accountId: alice, blobIds: [blobId] }, 'p']]),
      'p',
    )['parsed'][blobId];
    expect(Object.keys(parsed).sort()).toEqual(
      [
        'attachments',
        'bcc',
        'bodyValues',
        'cc',
        'from',
        'hasAttachment',
        'htmlBody',
        'id',
        'inReplyTo',
        'messageId',
        'preview',
        'references',
        'replyTo',
        'sender',
        'sentAt',
        'subject',
        'textBody',
        'to',
      ].sort(),
    );
  });

  it('parses an attached message of a stored email, and the parts of that one download', async () => {
    const imported = await host.call('alice', [
      [
        'Email/import',
        {
          accountId: alice,
          emails: { m: { blobId: await upload(outer), mailboxIds: { [boxes['inbox'] as string]: true } } },
        },
        'i',
      ],
      ['Email/get', { accountId: alice, ids: ['#m'], properties: ['attachments'] }, 'g'],
    ]);
    const attachment = resultOf(imported, 'g')['list'][0]['attachments'][0];
    const result = resultOf(
      await host.call('alice', [
        [
          'Email/parse',
          { accountId: alice, blobIds: [attachment.blobId], properties: ['subject', 'messageId', 'textBody'] },
          'p',
        ],
      ]),
      'p',
    );
    const parsed = result['parsed'][attachment.blobId];
    expect(parsed).toMatchObject({ subject: 'Inner note', messageId: ['inner-1@example.org'] });
    const download = await fetch(
      `${host.baseUrl}/download/${encodeURIComponent(alice)}/${parsed.textBody[0].blobId}/body.txt`,
      { headers: { authorization: 'Bearer token-alice' } },
    );
    expect(download.status).toBe(200);
    // The part is the inner message's whole body; the MIME parser hands text parts over with LF line ends.
    expect(await download.text()).toBe('the inner body\n');
  });

  it('names the thread a parsed reply would join', async () => {
    const stored = await host.call('alice', [
      [
        'Email/import',
        {
          accountId: alice,
          emails: {
            m: {
              blobId: await upload(
                'From: a@example.org\r\nSubject: Root\r\nMessage-ID: <root-parse@example.org>\r\n\r\nroot\r\n',
              ),
              mailboxIds: { [boxes['inbox'] as string]: true },
            },
          },
        },
        'i',
      ],
    ]);
    const replyBlob = await upload(
      'From: b@example.org\r\nSubject: Re: Root\r\nIn-Reply-To: <root-parse@example.org>\r\n\r\nreply\r\n',
    );
    const parsed = resultOf(
      await host.call('alice', [
        ['Email/parse', { accountId: alice, blobIds: [replyBlob], properties: ['threadId'] }, 'p'],
      ]),
      'p',
    )['parsed'][replyBlob];
    expect(parsed.threadId).toBe(resultOf(stored, 'i')['created']['m']['threadId']);
  });

  it('lists blobs that are no message under notParsable and unknown ones under notFound', async () => {
    const prose = await upload('plain words and nothing else', 'text/plain');
    const result = resultOf(
      await host.call('alice', [
        ['Email/parse', { accountId: alice, blobIds: [prose, 'Gnothing', 'not_a-blob!'] }, 'p'],
      ]),
      'p',
    );
    expect(result).toMatchObject({ parsed: null, notParsable: [prose], notFound: ['Gnothing', 'not_a-blob!'] });
  });

  it('refuses an unknown property with invalidArguments', async () => {
    const responses = await host.call('alice', [
      ['Email/parse', { accountId: alice, blobIds: [], properties: ['colour'] }, 'p'],
    ]);
    expect(responses[0]?.[1]).toMatchObject({ type: 'invalidArguments' });
  });
});

describe('Email/copy', () => {
  it('refuses a copy within one account with invalidArguments, as RFC 8620 §5.4 requires two accounts, and points to Email/set', async () => {
    const responses = await host.call('alice', [
      [
        'Email/copy',
        {
          fromAccountId: alice,
          accountId: alice,
          create: { c: { id: 'M1', mailboxIds: { [boxes['archive'] as string]: true } } },
        },
        'c',
      ],
    ]);
    expect(responses[0]).toEqual([
      'error',
      expect.objectContaining({
        type: 'invalidArguments',
        arguments: ['fromAccountId', 'accountId'],
        description: expect.stringContaining('Email/set'),
      }),
      'c',
    ]);
  });

  it('answers fromAccountNotFound for any other account: a token reaches one inbox', async () => {
    await host.addInboxes('bob');
    const responses = await host.call('alice', [
      ['Email/copy', { fromAccountId: 'bob@agent-mailbox.test', accountId: alice, create: { c: { id: 'M1' } } }, 'c'],
    ]);
    expect(responses[0]?.[1]).toMatchObject({ type: 'fromAccountNotFound' });
  });

  it("answers accountNotFound when accountId is not the token's own inbox", async () => {
    const responses = await host.call('alice', [
      ['Email/copy', { fromAccountId: alice, accountId: 'bob@agent-mailbox.test', create: {} }, 'c'],
    ]);
    expect(responses[0]?.[1]).toMatchObject({ type: 'accountNotFound' });
  });
});
