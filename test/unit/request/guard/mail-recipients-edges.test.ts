import { describe, expect, it } from 'vitest';
import {
  recipientsOfCreate,
  recipientsOfEnvelope,
  recipientsOfHeaderList,
} from '../../../../src/request/guard/mail/mail-recipients.js';

/** Every malformed place that could name a recipient is named as unreadable, never skipped: the guard then refuses instead of passing mail to someone it did not judge. */

const addresses = (found: { addresses: { address: string }[] }): string[] => found.addresses.map((a) => a.address);

describe('recipients a create names in odd shapes', () => {
  it('names a raw or text header that is not a string', () => {
    expect(recipientsOfCreate({ 'header:To:asRaw': 42 }).unreadable).toEqual(['header:To:asRaw']);
    expect(recipientsOfCreate({ 'header:Cc': { email: 'x@y.test' } }).unreadable).toEqual(['header:Cc']);
  });

  it('names an address list item without a readable email, keeping the addresses before it', () => {
    const found = recipientsOfCreate({
      'header:To:asAddresses': [{ email: 'a@x.test' }, { name: 'no email' }, { email: 'b@x.test' }],
    });
    expect(addresses(found)).toEqual(['a@x.test']);
    expect(found.unreadable).toEqual(['header:To:asAddresses']);
    expect(recipientsOfCreate({ to: [null] }).unreadable).toEqual(['to']);
    expect(recipientsOfCreate({ cc: [{ email: 7 }] }).unreadable).toEqual(['cc']);
  });

  it('reads grouped addresses, names groups that are not a list, and skips a group without addresses', () => {
    expect(recipientsOfCreate({ 'header:Bcc:asGroupedAddresses': 'team' }).unreadable).toEqual([
      'header:Bcc:asGroupedAddresses',
    ]);
    const found = recipientsOfCreate({
      'header:Bcc:asGroupedAddresses': [null, { name: 'empty' }, { addresses: [{ email: 'g@x.test' }] }],
    });
    expect(addresses(found)).toEqual(['g@x.test']);
    expect(found.unreadable).toEqual([]);
    expect(recipientsOfCreate({ 'header:Bcc:asGroupedAddresses': null }).unreadable).toEqual([]);
  });

  it('names an :all value that is not a list, and reads every instance of one', () => {
    expect(recipientsOfCreate({ 'header:To:all': 'x@y.test' }).unreadable).toEqual(['header:To:all']);
    expect(addresses(recipientsOfCreate({ 'header:To:asText:all': ['a@x.test', 'b@x.test'] }))).toEqual([
      'a@x.test',
      'b@x.test',
    ]);
  });

  it('reads header properties in any case, and only recipient fields', () => {
    expect(
      addresses(
        recipientsOfCreate({
          'HEADER:RESENT-TO:ASADDRESSES': [{ email: 'r@x.test' }],
          'header:Reply-To': 'not@x.test',
          'header:From:asAddresses': [{ email: 'f@x.test' }],
        }),
      ),
    ).toEqual(['r@x.test']);
  });

  it('counts each address once wherever it appears', () => {
    expect(
      addresses(
        recipientsOfCreate({
          to: [{ email: 'A@x.test' }],
          'header:Cc': 'a@X.test',
          headers: [{ name: 'Bcc', value: 'a@x.test' }],
        }),
      ),
    ).toEqual(['a@x.test']);
  });

  it("reads a top-level body part's headers list too, and not a part that is a list", () => {
    expect(addresses(recipientsOfCreate({ bodyStructure: { headers: [{ name: 'To', value: 'p@x.test' }] } }))).toEqual([
      'p@x.test',
    ]);
    expect(addresses(recipientsOfCreate({ bodyStructure: [{ 'header:To': 'q@x.test' }] }))).toEqual([]);
  });
});

describe('recipients in a headers list', () => {
  it('names a list that is not one, and a field without a name', () => {
    expect(recipientsOfHeaderList('To: x@y.test').unreadable).toEqual(['headers']);
    expect(recipientsOfHeaderList([{ value: 'x@y.test' }, null]).unreadable).toEqual(['headers', 'headers']);
    expect(recipientsOfHeaderList(undefined)).toEqual({ addresses: [], unreadable: [] });
    expect(recipientsOfHeaderList(null, 'mail')).toEqual({ addresses: [], unreadable: [] });
  });

  it('matches field names whatever their case and spacing, and names an unreadable one by where it is', () => {
    const found = recipientsOfHeaderList(
      [
        { name: ' resent-CC ', value: 'r@x.test' },
        { name: 'To', value: 42 },
      ],
      'the message',
    );
    expect(addresses(found)).toEqual(['r@x.test']);
    expect(found.unreadable).toEqual(['the message To']);
  });
});

describe('the envelope', () => {
  it('names an envelope that is not an object, or whose rcptTo items are not addresses', () => {
    expect(recipientsOfEnvelope('x@y.test')).toEqual({ addresses: [], unreadable: ['envelope'] });
    expect(recipientsOfEnvelope({})).toEqual({ addresses: [], unreadable: ['envelope'] });
    expect(recipientsOfEnvelope({ rcptTo: [{ email: 'no-at-sign' }] })?.unreadable).toEqual(['envelope.rcptTo']);
  });
});
