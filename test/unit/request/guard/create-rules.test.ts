import { describe, expect, it } from 'vitest';
import {
  emailCreateProblems,
  fieldNameProblem,
  forbiddenCreateProblems,
} from '../../../../src/request/guard/mail/create-rules.js';
import {
  fieldKey,
  recipientsOfCreate,
  recipientsOfHeaderList,
} from '../../../../src/request/guard/mail/mail-recipients.js';
import { bccSpellings } from '../../../helpers/bcc-spellings.js';

/**
 * The Email/set creates RFC 8621 §4.6 forbids, each refused with a sentence that names the place:
 * header names outside RFC 5322 ftext (every spelling a composer would turn into Bcc), the headers
 * property, one field set twice, a parsed form the field does not allow, Content-* on the Email.
 */

const base = {
  mailboxIds: { D: true },
  subject: 'x',
  to: [{ email: 'bob@example.test' }],
  textBody: [{ partId: 'b', type: 'text/plain' }],
  bodyValues: { b: { value: 'hi' } },
};
const check = (extra: Record<string, unknown>) => emailCreateProblems({ ...base, ...extra }, 'the mail d');
const eve = ' eve@evil.test';

describe('header field names', () => {
  it('accepts printable US-ASCII but the colon, and nothing else', () => {
    expect(fieldNameProblem('X-Mailer')).toBeUndefined();
    expect(fieldNameProblem('!#$%&*+-.^_`|~09AZaz{}"')).toBeUndefined();
    expect(fieldNameProblem('')).toBe('an empty field name');
    expect(fieldNameProblem('Bcc:')).toContain('"Bcc:"');
    expect(fieldNameProblem('Bcc\u0000')).toBe(
      'the field name "Bcc\\u{0}", which holds a character RFC 5322 does not allow in one (only printable US-ASCII but ":")',
    );
    expect(fieldNameProblem('Ｂcc')).toContain('"\\u{FF22}cc"');
    expect(fieldNameProblem('B\u007fcc')).toContain('"B\\u{7F}cc"');
  });

  for (const [label, name] of Object.entries(bccSpellings)) {
    it(`refuses a Bcc spelt with a ${label}, as a header: property and in headers, top level and in a body part`, () => {
      expect(check({ [`header:${name}:asAddresses`]: [{ email: eve.trim() }] })).toEqual([
        expect.stringContaining('which holds a character RFC 5322 does not allow'),
      ]);
      expect(check({ [`header:${name}`]: eve })).toHaveLength(1);
      const list = check({ headers: [{ name, value: eve }] });
      expect(list).toContain('the mail d names in headers the field name ' + list[1]?.split('the field name ')[1]);
      expect(list[1]).toContain('does not allow');
      const inPart = check({ textBody: [{ partId: 'b', type: 'text/plain', [`header:${name}`]: eve }] });
      expect(inPart).toEqual([
        expect.stringMatching(/^the mail d, body part textBody\/0 names in "header:.*" the field name/),
      ]);
    });
  }

  it('refuses a colon in a headers name, and a header: property that is not header:Name[:asForm][:all]', () => {
    expect(check({ headers: [{ name: 'Bcc:', value: eve }] })).toHaveLength(2);
    for (const key of [
      'header:B:cc',
      'header:Bcc:',
      'header:Bcc:asraw',
      'header:Bcc:asRaw:all:all',
      'header:Bcc:all:all',
      'header:Bcc:asFoo',
      'header::asRaw',
    ]) {
      expect(check({ [key]: eve }), key).toHaveLength(1);
    }
    expect(
      check({ 'header:X-A:asRaw:all': ['a'], 'header:X-B:all': ['b'], 'header:X-C:asText': 'c', 'header:X-D': 'd' }),
    ).toEqual([]);
  });

  it('checks a header property taken from a result reference by its name too', () => {
    expect(check({ '#header:Bcc ': { resultOf: 'x', name: 'Email/get', path: '/list/0/subject' } })).toHaveLength(1);
  });
});

describe('creates RFC 8621 forbids', () => {
  it('passes an ordinary create with convenience properties, header: fields and part fields', () => {
    expect(
      check({
        cc: [{ email: 'c@example.test' }],
        'header:X-Tag:asText': 'a',
        'header:List-Unsubscribe:asURLs': ['mailto:u@x.test'],
        'header:Resent-Date:asDate': '2024-01-01T00:00:00Z',
        attachments: [{ blobId: 'B', type: 'text/csv', 'header:Content-Description': 'data' }],
      }),
    ).toEqual([]);
  });

  it('refuses the headers property even with harmless names, on the Email and on a body part', () => {
    expect(check({ headers: [{ name: 'X-Tag', value: 'a' }] })).toEqual([
      'the mail d has the headers property, which a create may not carry (each field is its own header:Name property)',
    ]);
    expect(check({ attachments: [{ blobId: 'B', headers: [] }] })).toEqual([
      expect.stringContaining('body part attachments/0 has the headers property'),
    ]);
    expect(check({ headers: 'x' })).toEqual([
      expect.stringContaining('headers property'),
      'the mail d names in headers a field without a name',
    ]);
  });

  it('refuses two properties for one field, whatever the case or form', () => {
    expect(check({ 'header:To:asAddresses': [{ email: eve.trim() }] })).toEqual([
      'the mail d sets the field To twice (RFC 8621 allows one property per field)',
    ]);
    expect(check({ 'header:bcc': eve, 'header:BCC:asAddresses': [] })).toHaveLength(1);
    expect(check({ 'header:Subject:asText': 'y' })).toHaveLength(1);
    expect(check({ 'header:Date': 'Mon, 1 Jan 2024 00:00:00 +0000', sentAt: '2024-01-01T00:00:00Z' })).toHaveLength(1);
    expect(check({ 'header:Reply-To': eve, replyTo: null })).toHaveLength(1);
    expect(
      check({ attachments: [{ blobId: 'B', type: 'text/plain', 'header:content-type': 'text/html' }] }),
    ).toHaveLength(1);
    expect(check({ bodyStructure: { partId: 'b', 'header:Subject': 'other' } })).toEqual([
      'the mail d sets the field subject both on the Email and on its bodyStructure',
    ]);
  });

  it('refuses a parsed form the field does not allow, and allows any form on fields RFC 5322 and RFC 2369 do not define', () => {
    for (const key of [
      'header:Subject:asAddresses',
      'header:X-Thing:asRaw',
      'header:Cc:asText',
      'header:Message-ID:asDate',
      'header:Date:asText',
      'header:List-Post:asAddresses',
      'header:Received:asText',
      'header:From:asURLs',
    ]) {
      const found = emailCreateProblems({ mailboxIds: { D: true }, [key]: 'x' }, 'the mail d');
      expect(found.length, key).toBe(key === 'header:X-Thing:asRaw' ? 0 : 1);
    }
    expect(
      check({
        'header:X-Thing:asAddresses': [],
        'header:X-Other:asDate': null,
        'header:Resent-Message-ID:asMessageIds': ['a@b'],
      }),
    ).toEqual([]);
  });

  it('refuses Content-* on the Email itself, and recipient fields on any body part', () => {
    expect(check({ 'header:Content-Type': 'text/html' })).toEqual([
      'the mail d sets Content-Type on the Email itself, where only body parts may carry Content-* fields',
    ]);
    expect(
      check({ bodyStructure: { type: 'multipart/mixed', subParts: [{ partId: 'b', 'header:Cc': eve }] } }),
    ).toEqual([expect.stringContaining('body part bodyStructure/subParts/0 sets Cc on a body part')]);
    expect(check({ htmlBody: [{ partId: 'b', 'header:Resent-To:asAddresses': [] }] })).toHaveLength(1);
  });

  it('checks every Email/set create of a batch, and nothing else', () => {
    const found = forbiddenCreateProblems({
      using: [],
      methodCalls: [
        ['Email/set', { create: { a: base, b: { ...base, 'header:Bcc ': eve } } }, 'e1'],
        ['Email/import', { emails: { c: { blobId: 'B', headers: [] } } }, 'i'],
        ['Email/set', { '#create': {}, create: { d: { ...base, headers: [] } } }, 'e2'],
        ['Email/set', { create: 'x' }, 'e3'],
      ],
    });
    expect(found).toEqual([
      expect.stringMatching(/^the mail b \(Email\/set call e1\) names in "header:Bcc\\u\{20\}"/),
      expect.stringMatching(/^the mail d \(Email\/set call e2\) has the headers property/),
    ]);
  });
});

describe('recipient fields under lenient names', () => {
  it('reads every spelling a composer would turn into Bcc as Bcc', () => {
    for (const name of Object.values(bccSpellings)) {
      expect(fieldKey(name), JSON.stringify(name)).toBe('bcc');
      expect(recipientsOfHeaderList([{ name, value: eve }]).addresses.map((a) => a.address)).toEqual(['eve@evil.test']);
      expect(recipientsOfCreate({ [`header:${name}`]: eve }).addresses.map((a) => a.address)).toEqual([
        'eve@evil.test',
      ]);
    }
    expect(recipientsOfHeaderList([{ name: 'Bcc:', value: eve }]).addresses).toHaveLength(1);
  });
});

describe('the parsed forms of each field RFC 5322 and RFC 2369 define (RFC 8621 §4.1.2)', () => {
  const parsed = ['asText', 'asAddresses', 'asGroupedAddresses', 'asMessageIds', 'asDate', 'asURLs'];
  const allowedForms: [string, string[]][] = [
    ...['Subject', 'Comments', 'Keywords'].map((f): [string, string[]] => [f, ['asText']]),
    ...[
      'From',
      'Sender',
      'Reply-To',
      'To',
      'Cc',
      'Bcc',
      'Resent-From',
      'Resent-Sender',
      'Resent-Reply-To',
      'Resent-To',
      'Resent-Cc',
      'Resent-Bcc',
    ].map((f): [string, string[]] => [f, ['asAddresses', 'asGroupedAddresses']]),
    ...['Message-ID', 'In-Reply-To', 'References', 'Resent-Message-ID'].map((f): [string, string[]] => [
      f,
      ['asMessageIds'],
    ]),
    ...['Date', 'Resent-Date'].map((f): [string, string[]] => [f, ['asDate']]),
    ...['List-Help', 'List-Unsubscribe', 'List-Subscribe', 'List-Post', 'List-Owner', 'List-Archive'].map(
      (f): [string, string[]] => [f, ['asURLs']],
    ),
    ['Return-Path', []],
    ['Received', []],
  ];
  const problems = (key: string) => emailCreateProblems({ mailboxIds: { D: true }, [key]: 'x' }, 'the mail d');

  it('allows each field its own forms and asRaw, with or without :all, and refuses every other form', () => {
    for (const [field, allowed] of allowedForms) {
      expect(problems(`header:${field}:asRaw`), field).toEqual([]);
      expect(problems(`header:${field}:asRaw:all`), field).toEqual([]);
      for (const form of parsed) {
        const found = problems(`header:${field.toUpperCase()}:${form}`);
        if (allowed.includes(form)) expect(found, `${field} ${form}`).toEqual([]);
        else
          expect(found, `${field} ${form}`).toEqual([
            `the mail d asks for ${field.toUpperCase()} ${form}, a form RFC 8621 does not allow for that field`,
          ]);
      }
    }
  });

  it('allows every form on a field neither RFC defines, and refuses a form RFC 8621 does not have', () => {
    for (const form of [...parsed, 'asRaw']) expect(problems(`header:X-Note:${form}:all`), form).toEqual([]);
    expect(problems('header:X-Note:asJson')).toEqual([
      'the mail d has "header:X-Note:asJson", which is not header:Name[:asForm][:all] with a form of RFC 8621',
    ]);
  });

  it('counts each convenience property as its field, so the field set again is refused', () => {
    const emailFields: [string, string][] = [
      ['from', 'From'],
      ['sender', 'Sender'],
      ['replyTo', 'Reply-To'],
      ['to', 'To'],
      ['cc', 'Cc'],
      ['bcc', 'Bcc'],
      ['subject', 'Subject'],
      ['sentAt', 'Date'],
      ['messageId', 'Message-ID'],
      ['inReplyTo', 'In-Reply-To'],
      ['references', 'References'],
    ];
    for (const [property, field] of emailFields)
      expect(
        emailCreateProblems({ mailboxIds: { D: true }, [property]: null, [`header:${field}`]: 'x' }, 'the mail d'),
        property,
      ).toEqual([`the mail d sets the field ${field} twice (RFC 8621 allows one property per field)`]);
    const partFields: [string, string][] = [
      ['type', 'Content-Type'],
      ['charset', 'Content-Type'],
      ['disposition', 'Content-Disposition'],
      ['cid', 'Content-ID'],
      ['language', 'Content-Language'],
      ['location', 'Content-Location'],
    ];
    for (const [property, field] of partFields)
      expect(
        emailCreateProblems(
          { mailboxIds: { D: true }, attachments: [{ blobId: 'B', [property]: null, [`header:${field}`]: 'x' }] },
          'the mail d',
        ),
        property,
      ).toEqual([
        `the mail d, body part attachments/0 sets the field ${field} twice (RFC 8621 allows one property per field)`,
      ]);
  });
});

describe('which calls are read', () => {
  it('reads Email/set creates only, and passes a create map or create that is no object', () => {
    const headers = [{ name: 'Bcc ', value: eve }];
    expect(
      forbiddenCreateProblems({
        using: [],
        methodCalls: [
          ['Mailbox/set', { create: { m: { name: 'x', headers } } }, 'm'],
          ['Identity/set', { create: { i: { email: 'a@b', 'header:Bcc ': eve } } }, 'i'],
          ['Email/set', { create: null }, 'e1'],
          ['Email/set', { '#create': { resultOf: 'x', name: 'Foo/get', path: '/list' } }, 'e2'],
          ['Email/set', { create: { a: null, b: 'x', c: [] } }, 'e3'],
          ['Email/set', { update: { u: { headers } } }, 'e4'],
        ],
      }),
    ).toEqual([]);
  });
});
