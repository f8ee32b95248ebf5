import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mailboxIds, resultOf, startJmapTestHost, type JmapTestHost } from '../../../helpers/jmap-test-host.js';

// Email/import on the embedded store (RFC 8621 §4.8).
let host: JmapTestHost;
let boxes: Record<string, string>;
const alice = 'alice@agent-mailbox.test';
const rfc5322 = (subject: string, extra = ''): Buffer =>
  Buffer.from(
    `From: Carol <carol@example.org>\r\nTo: ${alice}\r\nSubject: ${subject}\r\nMessage-ID: <${subject.replace(/\W/g, '')}@example.org>\r\nDate: Tue, 01 Oct 2024 10:00:00 +0000\r\n${extra}\r\nhello ${subject}\r\n`,
  );

beforeAll(async () => {
  host = await startJmapTestHost();
  await host.addInboxes('alice');
  boxes = await mailboxIds(host, 'alice');
});
afterAll(() => host.close());

async function upload(data: Buffer, type = 'message/rfc822'): Promise<string> {
  const response = await fetch(`${host.baseUrl}/upload/${encodeURIComponent(alice)}/`, {
    method: 'POST',
    headers: { authorization: 'Bearer token-alice', 'content-type': type },
    body: data,
  });
  return ((await response.json()) as { blobId: string }).blobId;
}
const state = async (): Promise<Record<string, string>> => {
  const responses = await host.call('alice', [
    ['Email/get', { accountId: alice, ids: [] }, 'e'],
    ['Mailbox/get', { accountId: alice, ids: [] }, 'm'],
    ['Thread/get', { accountId: alice, ids: [] }, 't'],
  ]);
  return {
    Email: resultOf(responses, 'e')['state'],
    Mailbox: resultOf(responses, 'm')['state'],
    Thread: resultOf(responses, 't')['state'],
  };
};

describe('Email/import', () => {
  it('stores an uploaded message in the given mailboxes with its keywords and receivedAt, and every state moves', async () => {
    const raw = rfc5322('Imported report');
    const blobId = await upload(raw);
    const before = await state();
    const responses = await host.call('alice', [
      [
        'Email/import',
        {
          accountId: alice,
          ifInState: before['Email'],
          emails: {
            r: {
              blobId,
              mailboxIds: { [boxes['inbox'] as string]: true, [boxes['archive'] as string]: true },
              keywords: { $Seen: true, Project: true },
              receivedAt: '2024-10-02T08:00:00Z',
            },
          },
        },
        'i',
      ],
      [
        'Email/get',
        {
          accountId: alice,
          ids: ['#r'],
          properties: ['subject', 'mailboxIds', 'keywords', 'receivedAt', 'size', 'blobId'],
        },
        'g',
      ],
      ['Email/changes', { accountId: alice, sinceState: before['Email'] }, 'ec'],
      ['Mailbox/changes', { accountId: alice, sinceState: before['Mailbox'] }, 'mc'],
      ['Thread/changes', { accountId: alice, sinceState: before['Thread'] }, 'tc'],
    ]);
    const imported = resultOf(responses, 'i');
    const created = imported['created']['r'];
    expect(imported).toMatchObject({
      oldState: before['Email'],
      newState: expect.not.stringMatching(`^${before['Email']}$`),
      notCreated: null,
    });
    expect(created).toEqual({
      id: expect.any(String),
      blobId: expect.any(String),
      threadId: expect.any(String),
      size: raw.length,
    });
    expect(resultOf(responses, 'g')['list'][0]).toMatchObject({
      subject: 'Imported report',
      mailboxIds: { [boxes['inbox'] as string]: true, [boxes['archive'] as string]: true },
      keywords: { $seen: true, project: true },
      receivedAt: '2024-10-02T08:00:00Z',
      size: raw.length,
    });
    expect(resultOf(responses, 'ec')).toMatchObject({ created: [created.id] });
    expect((resultOf(responses, 'mc')['updated'] as string[]).sort()).toEqual(
      [boxes['inbox'], boxes['archive']].sort(),
    );
    expect(resultOf(responses, 'tc')['created']).toEqual([created.threadId]);
    const download = await fetch(`${host.baseUrl}/download/${encodeURIComponent(alice)}/${created.blobId}/m.eml`, {
      headers: { authorization: 'Bearer token-alice' },
    });
    expect(Buffer.from(await download.arrayBuffer()).equals(raw)).toBe(true);
  });

  it('files a reply into the thread of the message it answers', async () => {
    const first = await host.call('alice', [
      [
        'Email/import',
        {
          accountId: alice,
          emails: {
            a: { blobId: await upload(rfc5322('Thread start')), mailboxIds: { [boxes['inbox'] as string]: true } },
          },
        },
        'i',
      ],
    ]);
    const reply = await host.call('alice', [
      [
        'Email/import',
        {
          accountId: alice,
          emails: {
            b: {
              blobId: await upload(rfc5322('Re Thread start', 'In-Reply-To: <Threadstart@example.org>\r\n')),
              mailboxIds: { [boxes['inbox'] as string]: true },
            },
          },
        },
        'i',
      ],
    ]);
    expect(resultOf(reply, 'i')['created']['b']['threadId']).toBe(resultOf(first, 'i')['created']['a']['threadId']);
  });

  it('answers invalidProperties for a missing blob, mailbox or bad keyword or date, and invalidEmail for bytes that are no message', async () => {
    const good = await upload(rfc5322('Good bytes'));
    const prose = await upload(Buffer.from('just some words, no header at all'), 'text/plain');
    const binary = await upload(
      Buffer.from([0x46, 0x72, 0x6f, 0x6d, 0x3a, 0x20, 0x00, 0x0a]),
      'application/octet-stream',
    );
    const inbox = { [boxes['inbox'] as string]: true };
    const result = resultOf(
      await host.call('alice', [
        [
          'Email/import',
          {
            accountId: alice,
            emails: {
              noBlob: { blobId: 'Gmissing', mailboxIds: inbox },
              noBlobId: { mailboxIds: inbox },
              noMailbox: { blobId: good, mailboxIds: {} },
              badMailbox: { blobId: good, mailboxIds: { 'm-none': true } },
              badKeyword: { blobId: good, mailboxIds: inbox, keywords: { 'two words': true } },
              badDate: { blobId: good, mailboxIds: inbox, receivedAt: 'yesterday' },
              extra: { blobId: good, mailboxIds: inbox, subject: 'not an import property' },
              prose: { blobId: prose, mailboxIds: inbox },
              binary: { blobId: binary, mailboxIds: inbox },
            },
          },
          'i',
        ],
      ]),
      'i',
    );
    expect(result['created']).toBeNull();
    expect(result['notCreated']).toMatchObject({
      noBlob: { type: 'invalidProperties', properties: ['blobId'] },
      noBlobId: { type: 'invalidProperties', properties: ['blobId'] },
      noMailbox: { type: 'invalidProperties', properties: ['mailboxIds'] },
      badMailbox: { type: 'invalidProperties', properties: ['mailboxIds'] },
      badKeyword: { type: 'invalidProperties', properties: ['keywords/two words'] },
      badDate: { type: 'invalidProperties', properties: ['receivedAt'] },
      extra: { type: 'invalidProperties', properties: ['subject'] },
      prose: { type: 'invalidEmail' },
      binary: { type: 'invalidEmail' },
    });
  });

  it('answers stateMismatch for a stale ifInState and imports nothing', async () => {
    const before = await state();
    const responses = await host.call('alice', [
      [
        'Email/import',
        {
          accountId: alice,
          ifInState: '0',
          emails: {
            a: { blobId: await upload(rfc5322('Never imported')), mailboxIds: { [boxes['inbox'] as string]: true } },
          },
        },
        'i',
      ],
    ]);
    expect(responses[0]).toEqual(['error', expect.objectContaining({ type: 'stateMismatch' }), 'i']);
    expect((await state())['Email']).toBe(before['Email']);
  });

  it('imports a blob made by Blob/upload in the same request, named by creation id', async () => {
    const responses = await host.call('alice', [
      [
        'Blob/upload',
        {
          accountId: alice,
          create: { raw: { data: [{ 'data:asText': rfc5322('Uploaded inline').toString() }], type: 'message/rfc822' } },
        },
        'u',
      ],
      [
        'Email/import',
        { accountId: alice, emails: { m: { blobId: '#raw', mailboxIds: { [boxes['inbox'] as string]: true } } } },
        'i',
      ],
    ]);
    expect(resultOf(responses, 'i')['created']).toHaveProperty('m');
  });
});
