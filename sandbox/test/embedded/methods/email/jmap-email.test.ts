import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mailboxIds, resultOf, startJmapTestHost, type JmapTestHost } from '../../../helpers/jmap-test-host.js';

let host: JmapTestHost;
let boxes: Record<string, string>;
const alice = 'alice@agent-mailbox.test';
const subject = 'Grüße aus Zürich ✓ — 日本語の件名 that is long enough to be folded by the composer';
const text = 'Hallo Bob,\n\nschöne Grüße ✓ 😀\n';

beforeAll(async () => {
  host = await startJmapTestHost();
  await host.addInboxes('alice');
  boxes = await mailboxIds(host, 'alice');
});
afterAll(() => host.close());

async function upload(
  content: Buffer,
  type: string,
): Promise<{ blobId: string; size: number; type: string; accountId: string }> {
  const response = await fetch(`${host.baseUrl}/upload/${encodeURIComponent(alice)}/`, {
    method: 'POST',
    headers: { authorization: 'Bearer token-alice', 'content-type': type },
    body: content,
  });
  expect(response.status).toBe(201);
  return (await response.json()) as { blobId: string; size: number; type: string; accountId: string };
}

async function createDraft(extra: Record<string, unknown> = {}): Promise<Record<string, any>> {
  const responses = await host.call('alice', [
    [
      'Email/set',
      {
        accountId: alice,
        create: {
          d1: {
            mailboxIds: { [boxes['drafts'] as string]: true },
            keywords: { $draft: true, $seen: true },
            from: [{ name: 'Älice', email: alice }],
            to: [{ name: 'Bob B.', email: 'bob@example.org' }],
            cc: [{ email: 'carol@example.org' }],
            bcc: [{ email: 'dave@example.org' }],
            replyTo: [{ email: 'replies@agent-mailbox.test' }],
            subject,
            messageId: ['unique-1@agent-mailbox.test'],
            inReplyTo: ['parent@example.org'],
            references: ['root@example.org', 'parent@example.org'],
            sentAt: '2026-01-02T03:04:05Z',
            bodyValues: { t: { value: text }, h: { value: '<p>Hallo <b>Bob</b> ✓</p>' } },
            textBody: [{ partId: 't', type: 'text/plain' }],
            htmlBody: [{ partId: 'h', type: 'text/html' }],
            ...extra,
          },
        },
      },
      'set',
    ],
  ]);
  const set = resultOf(responses, 'set');
  expect(set['notCreated']).toBeNull();
  return set['created']['d1'];
}

describe('Email/set create and Email/get', () => {
  it('composes a real RFC 5322 message whose Unicode subject, body, ids and attachment round-trip exactly', async () => {
    const attachment = Buffer.from('%PDF-1.4 fake pdf bytes \u0000\u0001', 'latin1');
    const uploaded = await upload(attachment, 'application/pdf');
    expect(uploaded).toMatchObject({ accountId: alice, type: 'application/pdf', size: attachment.length });
    const created = await createDraft({
      attachments: [
        { blobId: uploaded.blobId, type: 'application/pdf', name: 'Rechnung März.pdf', disposition: 'attachment' },
      ],
    });
    expect(created).toMatchObject({
      id: expect.any(String),
      blobId: expect.any(String),
      threadId: expect.any(String),
      size: expect.any(Number),
    });

    const responses = await host.call('alice', [
      [
        'Email/get',
        { accountId: alice, ids: [created['id']], fetchTextBodyValues: true, fetchHTMLBodyValues: true },
        'g',
      ],
    ]);
    const email = resultOf(responses, 'g')['list'][0];
    expect(email).toMatchObject({
      id: created['id'],
      subject,
      from: [{ name: 'Älice', email: alice }],
      to: [{ name: 'Bob B.', email: 'bob@example.org' }],
      cc: [{ name: null, email: 'carol@example.org' }],
      bcc: [{ name: null, email: 'dave@example.org' }],
      replyTo: [{ name: null, email: 'replies@agent-mailbox.test' }],
      messageId: ['unique-1@agent-mailbox.test'],
      inReplyTo: ['parent@example.org'],
      references: ['root@example.org', 'parent@example.org'],
      sentAt: '2026-01-02T03:04:05Z',
      keywords: { $draft: true, $seen: true },
      mailboxIds: { [boxes['drafts'] as string]: true },
      hasAttachment: true,
      preview: 'Hallo Bob, schöne Grüße ✓ 😀',
    });
    const textPart = email['textBody'][0];
    expect(textPart).toMatchObject({ type: 'text/plain', charset: 'utf-8' });
    expect(email['bodyValues'][textPart.partId]).toEqual({ value: text, isEncodingProblem: false, isTruncated: false });
    expect(email['bodyValues'][email['htmlBody'][0].partId].value).toBe('<p>Hallo <b>Bob</b> ✓</p>');
    expect(email['attachments']).toEqual([
      expect.objectContaining({
        type: 'application/pdf',
        name: 'Rechnung März.pdf',
        disposition: 'attachment',
        size: attachment.length,
      }),
    ]);

    const download = await fetch(
      `${host.baseUrl}/download/${encodeURIComponent(alice)}/${email['attachments'][0].blobId}/${encodeURIComponent('Rechnung März.pdf')}?type=application/pdf`,
      {
        headers: { authorization: 'Bearer token-alice' },
      },
    );
    expect(download.status).toBe(200);
    expect(download.headers.get('content-type')).toBe('application/pdf');
    expect(download.headers.get('content-disposition')).toContain("filename*=UTF-8''Rechnung%20M%C3%A4rz.pdf");
    expect(Buffer.from(await download.arrayBuffer()).equals(attachment)).toBe(true);

    const raw = await fetch(
      `${host.baseUrl}/download/${encodeURIComponent(alice)}/${email['blobId']}/m.eml?type=message/rfc822`,
      { headers: { authorization: 'Bearer token-alice' } },
    );
    const rawText = await raw.text();
    expect(rawText).toMatch(/^Message-ID: <unique-1@agent-mailbox\.test>\r?$/m);
    expect(rawText).toMatch(/^Subject: =\?UTF-8\?/m);
    expect(rawText).toMatch(/^Content-Type: multipart\/mixed/m);
  });

  it('returns the header: forms asText, asAddresses, asMessageIds, asRaw, asDate, asURLs and :all', async () => {
    const created = await createDraft({
      'header:X-Tracking:asText': 'één ✓',
      'header:List-Unsubscribe': ' <mailto:leave@example.org>, <https://example.org/leave>',
      'header:X-Multi:all': [' one', ' two'],
    });
    const responses = await host.call('alice', [
      [
        'Email/get',
        {
          accountId: alice,
          ids: [created['id']],
          properties: [
            'header:Subject:asText',
            'header:From:asAddresses',
            'header:References:asMessageIds',
            'header:X-Multi',
            'header:X-Multi:asRaw',
            'header:X-Multi:all',
            'header:Date:asDate',
            'header:List-Unsubscribe:asURLs',
            'header:X-Tracking:asText',
            'header:To:asGroupedAddresses',
            'header:X-Missing',
            'headers',
          ],
        },
        'g',
      ],
    ]);
    const email = resultOf(responses, 'g')['list'][0];
    expect(email['header:Subject:asText']).toBe(subject);
    expect(email['header:From:asAddresses']).toEqual([{ name: 'Älice', email: alice }]);
    expect(email['header:References:asMessageIds']).toEqual(['root@example.org', 'parent@example.org']);
    expect(email['header:X-Multi']).toMatch(/two/);
    expect(email['header:X-Multi:asRaw']).toBe(email['header:X-Multi']);
    expect(email['header:X-Multi:all'].map((value: string) => value.trim())).toEqual(['one', 'two']);
    expect(email['header:Date:asDate']).toBe('2026-01-02T03:04:05Z');
    expect(email['header:List-Unsubscribe:asURLs']).toEqual(['mailto:leave@example.org', 'https://example.org/leave']);
    expect(email['header:X-Tracking:asText']).toBe('één ✓');
    expect(email['header:To:asGroupedAddresses']).toEqual([
      { name: null, addresses: [{ name: 'Bob B.', email: 'bob@example.org' }] },
    ]);
    expect(email['header:X-Missing']).toBeNull();
    expect(email['headers']).toEqual(expect.arrayContaining([expect.objectContaining({ name: 'Message-ID' })]));
    expect(Object.keys(email).sort()).toEqual(
      [
        'header:Date:asDate',
        'header:From:asAddresses',
        'header:List-Unsubscribe:asURLs',
        'header:References:asMessageIds',
        'header:Subject:asText',
        'header:To:asGroupedAddresses',
        'header:X-Missing',
        'header:X-Multi',
        'header:X-Multi:all',
        'header:X-Multi:asRaw',
        'header:X-Tracking:asText',
        'headers',
        'id',
      ].sort(),
    );
  });

  it('returns bodyStructure and truncates body values to maxBodyValueBytes without splitting characters', async () => {
    const created = await createDraft();
    const responses = await host.call('alice', [
      [
        'Email/get',
        {
          accountId: alice,
          ids: [created['id']],
          properties: ['bodyStructure', 'bodyValues'],
          fetchAllBodyValues: true,
          maxBodyValueBytes: 14,
        },
        'g',
      ],
    ]);
    const email = resultOf(responses, 'g')['list'][0];
    expect(email['bodyStructure']).toMatchObject({
      type: 'multipart/alternative',
      partId: null,
      subParts: [{ type: 'text/plain' }, { type: 'text/html' }],
    });
    const values = Object.values(email['bodyValues']) as { value: string; isTruncated: boolean }[];
    expect(values).toHaveLength(2);
    // "Hallo Bob,\n\nsch" is 15 bytes; "ö" is 2 bytes and must not be cut in half.
    expect(values[0]).toMatchObject({ value: 'Hallo Bob,\n\nsc', isTruncated: true });
  });

  it('returns the default property set when properties is omitted, and notFound for unknown ids', async () => {
    const { id } = await createDraft();
    const got = resultOf(
      await host.call('alice', [['Email/get', { accountId: alice, ids: [id, 'Mnothere'] }, 'g']]),
      'g',
    );
    expect(Object.keys(got['list'][0]).sort()).toEqual([
      'attachments',
      'bcc',
      'blobId',
      'bodyValues',
      'cc',
      'from',
      'hasAttachment',
      'htmlBody',
      'id',
      'inReplyTo',
      'keywords',
      'mailboxIds',
      'messageId',
      'preview',
      'receivedAt',
      'references',
      'replyTo',
      'sender',
      'sentAt',
      'size',
      'subject',
      'textBody',
      'threadId',
      'to',
    ]);
    expect(got['list'][0]['bodyValues']).toEqual({});
    expect(got['notFound']).toEqual(['Mnothere']);
  });

  it('refuses a create without mailboxIds, with an unknown mailbox, or with a missing blob', async () => {
    const responses = await host.call('alice', [
      [
        'Email/set',
        {
          accountId: alice,
          create: {
            a: { subject: 'x' },
            b: { mailboxIds: { nope: true }, subject: 'x' },
            c: {
              mailboxIds: { [boxes['drafts'] as string]: true },
              attachments: [{ blobId: 'Gmissing', type: 'text/plain' }],
            },
            d: { mailboxIds: { [boxes['drafts'] as string]: true }, textBody: [{ partId: 'zz', type: 'text/plain' }] },
          },
        },
        's',
      ],
    ]);
    const notCreated = resultOf(responses, 's')['notCreated'];
    expect(notCreated['a']).toMatchObject({ type: 'invalidProperties', properties: ['mailboxIds'] });
    expect(notCreated['b']).toMatchObject({ type: 'invalidProperties', properties: ['mailboxIds'] });
    expect(notCreated['c']).toMatchObject({ type: 'blobNotFound' });
    expect(notCreated['d']).toMatchObject({ type: 'invalidProperties', properties: ['textBody'] });
  });
});

describe('Email/set update and destroy, Email/changes, Mailbox counts, Thread/get', () => {
  it('patches keywords/$seen and mailboxIds/<id>, moves state, and reports the changes', async () => {
    const before = resultOf(await host.call('alice', [['Email/get', { accountId: alice, ids: [] }, 'g']]), 'g')[
      'state'
    ];
    const mailboxStateBefore = resultOf(
      await host.call('alice', [['Mailbox/get', { accountId: alice, ids: [] }, 'g']]),
      'g',
    )['state'];
    const created = await createDraft({ keywords: {} });
    const id = created['id'];
    const responses = await host.call('alice', [
      [
        'Email/set',
        {
          accountId: alice,
          update: {
            [id]: {
              'keywords/$seen': true,
              'keywords/$Flagged': true,
              [`mailboxIds/${boxes['drafts']}`]: null,
              [`mailboxIds/${boxes['archive']}`]: true,
            },
          },
        },
        'u',
      ],
      ['Email/get', { accountId: alice, ids: [id], properties: ['keywords', 'mailboxIds'] }, 'g'],
      ['Email/changes', { accountId: alice, sinceState: before }, 'c'],
      ['Mailbox/changes', { accountId: alice, sinceState: mailboxStateBefore }, 'mc'],
      [
        'Mailbox/get',
        { accountId: alice, ids: [boxes['archive']], properties: ['totalEmails', 'unreadEmails', 'totalThreads'] },
        'mg',
      ],
    ]);
    expect(resultOf(responses, 'u')['updated']).toEqual({ [id]: null });
    expect(resultOf(responses, 'g')['list'][0]).toEqual({
      id,
      keywords: { $seen: true, $flagged: true },
      mailboxIds: { [boxes['archive'] as string]: true },
    });
    expect(resultOf(responses, 'c')).toMatchObject({
      oldState: before,
      created: [id],
      updated: [],
      destroyed: [],
      hasMoreChanges: false,
    });
    expect(resultOf(responses, 'mc')['updated']).toEqual(expect.arrayContaining([boxes['drafts'], boxes['archive']]));
    expect(resultOf(responses, 'mg')['list'][0]).toEqual({
      id: boxes['archive'],
      totalEmails: 1,
      unreadEmails: 0,
      totalThreads: 1,
    });

    const afterUpdate = resultOf(responses, 'g')['state'];
    const destroy = await host.call('alice', [
      ['Email/set', { accountId: alice, ifInState: afterUpdate, destroy: [id, 'Mnothere'] }, 'd'],
      ['Email/changes', { accountId: alice, sinceState: afterUpdate }, 'c'],
      ['Email/changes', { accountId: alice, sinceState: before }, 'all'],
    ]);
    expect(resultOf(destroy, 'd')).toMatchObject({ destroyed: [id], notDestroyed: { Mnothere: { type: 'notFound' } } });
    expect(resultOf(destroy, 'c')).toMatchObject({ created: [], updated: [], destroyed: [id] });
    // Created and destroyed inside the window: left out entirely (RFC 8620 §5.2).
    expect(resultOf(destroy, 'all')).toMatchObject({ created: [], destroyed: [] });
  });

  it('refuses patches to immutable properties and removing the last mailbox', async () => {
    const { id } = await createDraft();
    const responses = await host.call('alice', [
      ['Email/set', { accountId: alice, update: { [id]: { subject: 'changed' } } }, 'a'],
      ['Email/set', { accountId: alice, update: { [id]: { [`mailboxIds/${boxes['drafts']}`]: null } } }, 'b'],
      ['Email/set', { accountId: alice, update: { Mnothere: { 'keywords/$seen': true } } }, 'c'],
    ]);
    expect(resultOf(responses, 'a')['notUpdated'][id]).toMatchObject({ type: 'invalidProperties' });
    expect(resultOf(responses, 'b')['notUpdated'][id]).toMatchObject({
      type: 'invalidProperties',
      properties: ['mailboxIds'],
    });
    expect(resultOf(responses, 'c')['notUpdated']['Mnothere']).toMatchObject({ type: 'notFound' });
  });

  it('pages Email/changes with maxChanges and hasMoreChanges', async () => {
    const start = resultOf(await host.call('alice', [['Email/get', { accountId: alice, ids: [] }, 'g']]), 'g')['state'];
    const ids = [(await createDraft())['id'], (await createDraft())['id'], (await createDraft())['id']];
    const first = resultOf(
      await host.call('alice', [['Email/changes', { accountId: alice, sinceState: start, maxChanges: 2 }, 'c']]),
      'c',
    );
    expect(first).toMatchObject({ created: ids.slice(0, 2), hasMoreChanges: true });
    const second = resultOf(
      await host.call('alice', [
        ['Email/changes', { accountId: alice, sinceState: first['newState'], maxChanges: 2 }, 'c'],
      ]),
      'c',
    );
    expect(second).toMatchObject({ created: ids.slice(2), hasMoreChanges: false });
  });

  it('threads a reply with the message it refers to', async () => {
    const original = await createDraft({
      messageId: ['thread-root@agent-mailbox.test'],
      inReplyTo: null,
      references: null,
    });
    const reply = await createDraft({
      messageId: ['thread-reply@agent-mailbox.test'],
      inReplyTo: ['thread-root@agent-mailbox.test'],
      references: ['thread-root@agent-mailbox.test'],
    });
    expect(reply['threadId']).toBe(original['threadId']);
    const responses = await host.call('alice', [
      ['Thread/get', { accountId: alice, ids: [original['threadId'], 'Tnone'] }, 't'],
    ]);
    expect(resultOf(responses, 't')).toMatchObject({
      list: [{ id: original['threadId'], emailIds: [original['id'], reply['id']] }],
      notFound: ['Tnone'],
    });
  });
});

describe('Mailbox methods', () => {
  it('gives every inbox the six role mailboxes with their names', async () => {
    const responses = await host.call('alice', [
      ['Mailbox/get', { accountId: alice, ids: null, properties: ['name', 'role', 'parentId', 'myRights'] }, 'g'],
    ]);
    const list = resultOf(responses, 'g')['list'] as { name: string; role: string }[];
    expect(list.map((mailbox) => [mailbox.role, mailbox.name]).sort()).toEqual([
      ['archive', 'Archive'],
      ['drafts', 'Drafts'],
      ['inbox', 'Inbox'],
      ['junk', 'Junk'],
      ['sent', 'Sent'],
      ['trash', 'Trash'],
    ]);
  });

  it('filters Mailbox/query by role, name and parentId, sorts, and counts', async () => {
    const responses = await host.call('alice', [
      ['Mailbox/query', { accountId: alice, filter: { role: 'sent' } }, 'role'],
      ['Mailbox/query', { accountId: alice, filter: { name: 'ash' } }, 'name'],
      [
        'Mailbox/query',
        { accountId: alice, filter: { parentId: null }, sort: [{ property: 'name' }], calculateTotal: true, limit: 2 },
        'sorted',
      ],
      ['Mailbox/query', { accountId: alice, filter: { color: 'red' } }, 'bad'],
    ]);
    expect(resultOf(responses, 'role')['ids']).toEqual([boxes['sent']]);
    expect(resultOf(responses, 'name')['ids']).toEqual([boxes['trash']]);
    expect(resultOf(responses, 'sorted')).toMatchObject({
      ids: [boxes['archive'], boxes['drafts']],
      total: 6,
      position: 0,
    });
    expect(resultOf(responses, 'bad', 'error')).toMatchObject({ type: 'invalidArguments' });
  });
});
