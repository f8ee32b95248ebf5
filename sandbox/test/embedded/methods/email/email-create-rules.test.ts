import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mailboxIds, resultOf, startJmapTestHost, type JmapTestHost } from '../../../helpers/jmap-test-host.js';

/**
 * The embedded store answers the Email/set creates RFC 8621 §4.6 forbids with invalidProperties
 * naming each offending property, as a conforming server does, and stores nothing for them:
 * header names outside RFC 5322, the headers property, one field set twice, a form the field does
 * not allow, Content-* on the Email.
 */

let host: JmapTestHost;
let drafts: string;
const alice = 'alice@agent-mailbox.test';
const eve = ' eve@evil.test';

beforeAll(async () => {
  host = await startJmapTestHost();
  await host.addInboxes('alice');
  drafts = (await mailboxIds(host, 'alice'))['drafts'] as string;
});
afterAll(() => host.close());

async function create(
  extra: Record<string, unknown>,
): Promise<{ created: unknown; notCreated: Record<string, any> | null; total: number }> {
  const responses = await host.call('alice', [
    [
      'Email/set',
      {
        accountId: alice,
        create: {
          d: {
            mailboxIds: { [drafts]: true },
            subject: 'rules',
            to: [{ email: 'bob@example.org' }],
            bodyValues: { b: { value: 'x' } },
            textBody: [{ partId: 'b', type: 'text/plain' }],
            ...extra,
          },
        },
      },
      'set',
    ],
    ['Email/query', { accountId: alice }, 'q'],
  ]);
  const set = resultOf(responses, 'set');
  return {
    created: set['created'],
    notCreated: set['notCreated'],
    total: (resultOf(responses, 'q')['ids'] as string[]).length,
  };
}

const forbidden: [string, Record<string, unknown>, string[]][] = [
  ['a trailing space in a field name', { 'header:Bcc ': eve }, ['header:Bcc ']],
  ['a tab', { 'header:Bcc\t:asAddresses': [{ email: 'eve@evil.test' }] }, ['header:Bcc\t:asAddresses']],
  ['a no-break space', { 'header:Bcc\u00a0': eve }, ['header:Bcc\u00a0']],
  ['an inner space', { 'header:B cc': eve }, ['header:B cc']],
  ['a NUL', { 'header:Bcc\u0000': eve }, ['header:Bcc\u0000']],
  ['a DEL', { 'header:B\u007fcc': eve }, ['header:B\u007fcc']],
  ['fullwidth letters', { 'header:Ｂｃｃ': eve }, ['header:Ｂｃｃ']],
  ['the headers property', { headers: [{ name: 'Bcc:', value: eve }] }, ['headers']],
  ['the headers property with a harmless field', { headers: [{ name: 'X-Tag', value: 'a' }] }, ['headers']],
  [
    'a body part with headers and a bad name',
    { textBody: [{ partId: 'b', type: 'text/plain', headers: [], 'header:Bcc ': eve }] },
    ['textBody/0/headers', 'textBody/0/header:Bcc '],
  ],
  ['one field twice', { 'header:To:asAddresses': [{ email: 'eve@evil.test' }] }, ['header:To:asAddresses']],
  ['one field twice in two cases', { 'header:x-a': 'a', 'header:X-A:asText': 'b' }, ['header:X-A:asText']],
  [
    'a form the field does not allow',
    { 'header:Bcc:asText': eve, 'header:Message-ID:asDate': 'x' },
    ['header:Bcc:asText', 'header:Message-ID:asDate'],
  ],
  [
    'a malformed header property',
    { 'header:B:cc': eve, 'header:Bcc:asRaw:all:all': [eve] },
    ['header:B:cc', 'header:Bcc:asRaw:all:all'],
  ],
  ['Content-* on the Email', { 'header:Content-Type': 'text/html' }, ['header:Content-Type']],
];

describe('Email/set creates RFC 8621 forbids', () => {
  for (const [label, extra, properties] of forbidden) {
    it(`answers ${label} with invalidProperties naming ${properties.join(', ')}, and stores nothing`, async () => {
      const before = (await create({ 'header:X-Probe': 'ok' })).total;
      const result = await create(extra);
      expect(result.created).toBeNull();
      expect(result.notCreated?.['d']).toMatchObject({ type: 'invalidProperties', properties });
      expect(result.notCreated?.['d'].description).toEqual(expect.any(String));
      expect(result.total).toBe(before);
    });
  }

  it('still composes what the RFC allows: one header: field per name, :all lists, any form of an unknown field', async () => {
    const result = await create({
      'header:X-Multi:all': [' one', ' two'],
      'header:X-Tag:asText': 'tag',
      'header:List-Id': ' <l.example.org>',
    });
    expect(result.notCreated).toBeNull();
    const id = (result.created as Record<string, { id: string }>)['d']?.id;
    const responses = await host.call('alice', [
      [
        'Email/get',
        {
          accountId: alice,
          ids: [id],
          properties: ['header:X-Multi:all', 'header:X-Tag:asText', 'header:List-Id:asText'],
        },
        'g',
      ],
    ]);
    const email = resultOf(responses, 'g')['list'][0];
    expect(email['header:X-Multi:all'].map((value: string) => value.trim())).toEqual(['one', 'two']);
    expect(email).toMatchObject({ 'header:X-Tag:asText': 'tag', 'header:List-Id:asText': '<l.example.org>' });
  });
});
