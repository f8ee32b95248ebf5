import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mailboxIds, resultOf, startJmapTestHost, type JmapTestHost } from '../../../helpers/jmap-test-host.js';

let host: JmapTestHost;
let boxes: Record<string, string>;
const alice = 'alice@agent-mailbox.test';
const ids: Record<string, string> = {};

interface Seed {
  key: string;
  from: string;
  to: string;
  cc?: string;
  subject: string;
  body: string;
  receivedAt: string;
  sentAt: string;
  mailbox: string;
  keywords?: Record<string, true>;
  attach?: boolean;
  messageId?: string;
  inReplyTo?: string;
}

const seeds: Seed[] = [
  {
    key: 'a',
    from: 'zed@example.org',
    to: alice,
    subject: 'Quarterly report',
    body: 'The numbers are in.',
    receivedAt: '2026-01-01T10:00:00Z',
    sentAt: '2026-01-01T09:00:00Z',
    mailbox: 'inbox',
    messageId: 'a@example.org',
  },
  {
    key: 'b',
    from: 'amy@example.org',
    to: alice,
    cc: 'boss@example.org',
    subject: 'Re: Quarterly report',
    body: 'Looks good — danke schön!',
    receivedAt: '2026-01-02T10:00:00Z',
    sentAt: '2026-01-02T09:00:00Z',
    mailbox: 'inbox',
    keywords: { $seen: true },
    messageId: 'b@example.org',
    inReplyTo: 'a@example.org',
  },
  {
    key: 'c',
    from: 'mia@example.org',
    to: 'team@example.org',
    subject: 'Lunch menu',
    body: 'Pizza or sushi? Attached the menu.',
    receivedAt: '2026-01-03T10:00:00Z',
    sentAt: '2026-01-03T09:00:00Z',
    mailbox: 'inbox',
    attach: true,
    keywords: { $flagged: true },
  },
  {
    key: 'd',
    from: alice,
    to: 'bob@example.org',
    subject: 'Invoice 42',
    body: 'Please pay the invoice.',
    receivedAt: '2026-01-04T10:00:00Z',
    sentAt: '2026-01-04T09:00:00Z',
    mailbox: 'sent',
    keywords: { $seen: true },
  },
];

beforeAll(async () => {
  host = await startJmapTestHost();
  await host.addInboxes('alice');
  boxes = await mailboxIds(host, 'alice');
  const menu = await fetch(`${host.baseUrl}/upload/${encodeURIComponent(alice)}/`, {
    method: 'POST',
    headers: { authorization: 'Bearer token-alice', 'content-type': 'text/csv' },
    body: 'dish,price\npizza,10\n',
  });
  const { blobId } = (await menu.json()) as { blobId: string };
  const create = Object.fromEntries(
    seeds.map((seed) => [
      seed.key,
      {
        mailboxIds: { [boxes[seed.mailbox] as string]: true },
        keywords: seed.keywords ?? {},
        from: [{ email: seed.from }],
        to: [{ email: seed.to }],
        ...(seed.cc ? { cc: [{ email: seed.cc }] } : {}),
        subject: seed.subject,
        receivedAt: seed.receivedAt,
        sentAt: seed.sentAt,
        ...(seed.messageId ? { messageId: [seed.messageId] } : {}),
        ...(seed.inReplyTo ? { inReplyTo: [seed.inReplyTo], references: [seed.inReplyTo] } : {}),
        bodyValues: { t: { value: seed.body } },
        textBody: [{ partId: 't', type: 'text/plain' }],
        ...(seed.attach ? { attachments: [{ blobId, type: 'text/csv', name: 'menu.csv' }] } : {}),
      },
    ]),
  );
  const created = resultOf(await host.call('alice', [['Email/set', { accountId: alice, create }, 's']]), 's')[
    'created'
  ];
  for (const seed of seeds) ids[seed.key] = created[seed.key].id;
});
afterAll(() => host.close());

async function query(args: Record<string, unknown>): Promise<Record<string, any>> {
  return resultOf(await host.call('alice', [['Email/query', { accountId: alice, ...args }, 'q']]), 'q');
}
const keysOf = (result: Record<string, any>): string[] =>
  (result['ids'] as string[]).map((id) => Object.keys(ids).find((key) => ids[key] === id) ?? id);

describe('Email/query filters (RFC 8621 §4.4.1)', () => {
  it.each([
    [{ inMailbox: 'inbox' }, ['c', 'b', 'a']],
    [{ inMailboxOtherThan: ['inbox'] }, ['d']],
    [{ before: '2026-01-02T10:00:00Z' }, ['a']],
    [{ after: '2026-01-03T10:00:00Z' }, ['d', 'c']],
    [{ hasKeyword: '$seen' }, ['d', 'b']],
    [{ notKeyword: '$seen' }, ['c', 'a']],
    [{ hasAttachment: true }, ['c']],
    [{ from: 'amy' }, ['b']],
    [{ to: 'team@' }, ['c']],
    [{ cc: 'boss' }, ['b']],
    [{ bcc: 'anyone' }, []],
    [{ subject: 'quarterly' }, ['b', 'a']],
    [{ body: 'SCHÖN' }, ['b']],
    [{ text: 'menu.csv' }, ['c']],
    [{ text: 'invoice' }, ['d']],
    [{ header: ['In-Reply-To'] }, ['b']],
    [{ header: ['Subject', 'lunch'] }, ['c']],
    [{ operator: 'OR', conditions: [{ from: 'zed' }, { from: 'mia' }] }, ['c', 'a']],
    [{ operator: 'AND', conditions: [{ inMailbox: 'inbox' }, { notKeyword: '$flagged' }] }, ['b', 'a']],
    [{ operator: 'NOT', conditions: [{ inMailbox: 'inbox' }] }, ['d']],
  ])('filters %j', async (filter, expected) => {
    const resolved = JSON.parse(JSON.stringify(filter).replaceAll('"inbox"', JSON.stringify(boxes['inbox'])));
    expect(keysOf(await query({ filter: resolved }))).toEqual(expected);
  });

  it('filters by size bounds', async () => {
    const sizes = resultOf(
      await host.call('alice', [
        ['Email/get', { accountId: alice, ids: Object.values(ids), properties: ['size'] }, 'g'],
      ]),
      'g',
    )['list'] as { id: string; size: number }[];
    const largest = Math.max(...sizes.map((entry) => entry.size));
    expect(keysOf(await query({ filter: { minSize: largest } }))).toEqual(['c']);
    expect(await query({ filter: { maxSize: largest } }).then(keysOf)).not.toContain('c');
  });

  it('answers unsupportedFilter and unsupportedSort for unknown names', async () => {
    const responses = await host.call('alice', [
      ['Email/query', { accountId: alice, filter: { colour: 'red' } }, 'f'],
      ['Email/query', { accountId: alice, sort: [{ property: 'colour' }] }, 's'],
    ]);
    expect(resultOf(responses, 'f', 'error')).toMatchObject({ type: 'unsupportedFilter' });
    expect(resultOf(responses, 's', 'error')).toMatchObject({ type: 'unsupportedSort' });
  });
});

describe('Email/query sorting and paging', () => {
  it.each([
    [[{ property: 'receivedAt', isAscending: false }], ['d', 'c', 'b', 'a']],
    [[{ property: 'receivedAt', isAscending: true }], ['a', 'b', 'c', 'd']],
    [[{ property: 'sentAt', isAscending: true }], ['a', 'b', 'c', 'd']],
    [[{ property: 'from', isAscending: true }], ['d', 'b', 'c', 'a']],
    // a and b tie on To; ties fall back to newest first.
    [[{ property: 'to', isAscending: true }], ['b', 'a', 'd', 'c']],
    [
      [
        { property: 'subject', isAscending: true },
        { property: 'receivedAt', isAscending: true },
      ],
      ['d', 'c', 'a', 'b'],
    ],
  ])('sorts by %j', async (sort, expected) => {
    expect(keysOf(await query({ sort }))).toEqual(expected);
  });

  it('sorts by size', async () => {
    const result = await query({ sort: [{ property: 'size', isAscending: false }] });
    expect(keysOf(result)[0]).toBe('c');
  });

  it('pages with position, negative position, limit, anchor, anchorOffset and calculateTotal', async () => {
    const sort = [{ property: 'receivedAt', isAscending: true }];
    expect(await query({ sort, position: 1, limit: 2, calculateTotal: true })).toMatchObject({
      position: 1,
      total: 4,
      ids: [ids['b'], ids['c']],
    });
    expect(await query({ sort, position: -1 })).toMatchObject({ position: 3, ids: [ids['d']] });
    expect(await query({ sort, anchor: ids['c'], limit: 1 })).toMatchObject({ position: 2, ids: [ids['c']] });
    expect(await query({ sort, anchor: ids['c'], anchorOffset: -1, limit: 2 })).toMatchObject({
      position: 1,
      ids: [ids['b'], ids['c']],
    });
    const missing = await host.call('alice', [['Email/query', { accountId: alice, anchor: 'Mnope' }, 'q']]);
    expect(resultOf(missing, 'q', 'error')).toMatchObject({ type: 'anchorNotFound' });
  });

  it('collapses threads to their first message in sort order', async () => {
    const result = await query({ sort: [{ property: 'receivedAt', isAscending: false }], collapseThreads: true });
    expect(keysOf(result)).toEqual(['d', 'c', 'b']);
  });

  it('reports queryState equal to the Email state and canCalculateChanges true (Email/queryChanges answers from it)', async () => {
    const responses = await host.call('alice', [
      ['Email/query', { accountId: alice }, 'q'],
      ['Email/get', { accountId: alice, ids: [] }, 'g'],
    ]);
    expect(resultOf(responses, 'q')).toMatchObject({
      queryState: resultOf(responses, 'g')['state'],
      canCalculateChanges: true,
    });
  });

  it('feeds Email/get through a #ids reference, as the read-inbox recipe does (spec §4.2)', async () => {
    const responses = await host.call('alice', [
      ['Mailbox/query', { accountId: alice, filter: { role: 'inbox' } }, '0'],
      [
        'Email/query',
        {
          accountId: alice,
          filter: { inMailbox: boxes['inbox'] },
          sort: [{ property: 'receivedAt', isAscending: false }],
          limit: 2,
        },
        '1',
      ],
      [
        'Email/get',
        {
          accountId: alice,
          '#ids': { resultOf: '1', name: 'Email/query', path: '/ids' },
          properties: ['id', 'subject', 'from', 'receivedAt', 'preview'],
        },
        '2',
      ],
    ]);
    expect(resultOf(responses, '2')['list']).toEqual([
      {
        id: ids['c'],
        subject: 'Lunch menu',
        from: [{ name: null, email: 'mia@example.org' }],
        receivedAt: '2026-01-03T10:00:00Z',
        preview: 'Pizza or sushi? Attached the menu.',
      },
      {
        id: ids['b'],
        subject: 'Re: Quarterly report',
        from: [{ name: null, email: 'amy@example.org' }],
        receivedAt: '2026-01-02T10:00:00Z',
        preview: 'Looks good — danke schön!',
      },
    ]);
  });
});

describe('SearchSnippet/get (RFC 8621 §5)', () => {
  it('marks the searched terms in subject and preview and lists unknown ids', async () => {
    const responses = await host.call('alice', [
      [
        'SearchSnippet/get',
        { accountId: alice, filter: { text: 'quarterly' }, emailIds: [ids['a'], ids['c'], 'Mnope'] },
        's',
      ],
      ['SearchSnippet/get', { accountId: alice, filter: { body: 'pizza' }, emailIds: [ids['c']] }, 'b'],
    ]);
    expect(resultOf(responses, 's')).toMatchObject({
      list: [
        { emailId: ids['a'], subject: '<mark>Quarterly</mark> report', preview: null },
        { emailId: ids['c'], subject: null, preview: null },
      ],
      notFound: ['Mnope'],
    });
    expect(resultOf(responses, 'b')['list'][0]).toMatchObject({
      subject: 'Lunch menu',
      preview: '<mark>Pizza</mark> or sushi? Attached the menu.',
    });
  });
});
