import { describe, expect, it } from 'vitest';
import {
  recipientsOfCreate,
  recipientsOfEnvelope,
  recipientsOfHeaderList,
} from '../../../../src/request/guard/mail/mail-recipients.js';

const addresses = (found: { addresses: { address: string }[] }): string[] =>
  found.addresses.map((a) => a.address).sort();

describe('recipients of a mail', () => {
  it('collects To, Cc and Bcc from the properties, every header form and instance, the headers list and the top body part', () => {
    const found = recipientsOfCreate({
      to: [{ name: 'Bob', email: 'Bob@Example.org' }],
      cc: null,
      bcc: [{ email: 'hidden@x.test' }],
      'header:To:asRaw': ' "a@good.test" <raw@evil.test>, Group: g1@x.test, g2@x.test;',
      'header:cc:asText': 'text@x.test',
      'header:BCC:asAddresses:all': [[{ email: 'all1@x.test' }], [{ email: 'all2@x.test' }]],
      'header:Resent-Bcc:asGroupedAddresses': [{ name: 'team', addresses: [{ email: 'grouped@x.test' }] }],
      'header:Subject': 'not a recipient@x.test',
      headers: [
        { name: 'TO', value: ' listed@x.test' },
        { name: 'X-Other', value: 'other@x.test' },
      ],
      bodyStructure: { 'header:Bcc': ' part@x.test', type: 'text/plain' },
    });
    expect(found.unreadable).toEqual([]);
    expect(addresses(found)).toEqual([
      'all1@x.test',
      'all2@x.test',
      'bob@example.org',
      'g1@x.test',
      'g2@x.test',
      'grouped@x.test',
      'hidden@x.test',
      'listed@x.test',
      'part@x.test',
      'raw@evil.test',
      'text@x.test',
    ]);
  });

  it('names what it cannot read as addresses instead of guessing', () => {
    expect(recipientsOfCreate({ 'header:To:asDate': '2020-01-01T00:00:00Z' }).unreadable).toEqual(['header:To:asDate']);
    expect(recipientsOfCreate({ to: [{ email: 'Bob <bob@x.test>' }] }).unreadable).toEqual(['to']);
    expect(recipientsOfCreate({ to: 'bob@x.test' }).unreadable).toEqual(['to']);
    expect(recipientsOfCreate({ 'header:Cc': 'Undisclosed recipients:;' }).unreadable).toEqual([]);
    expect(recipientsOfHeaderList([{ name: 'Bcc', value: 'broken@' }]).unreadable).toEqual(['headers Bcc']);
  });

  it("takes the envelope's rcptTo when there is one, and the headers when it is absent or empty", () => {
    expect(
      addresses(recipientsOfEnvelope({ mailFrom: { email: 'a@x.test' }, rcptTo: [{ email: 'R@X.test' }] })!),
    ).toEqual(['r@x.test']);
    expect(recipientsOfEnvelope(null)).toBeUndefined();
    expect(recipientsOfEnvelope({ rcptTo: [] })).toBeUndefined();
    expect(recipientsOfEnvelope({ rcptTo: 'x@y.test' })?.unreadable).toEqual(['envelope']);
  });
});
