import { describe, expect, it } from 'vitest';
import {
  fieldKey,
  recipientsOfCreate,
  recipientsOfHeaderList,
} from '../../../../src/request/guard/mail/mail-recipients.js';

/**
 * A Bcc spelt so that a literal match misses it while a lenient composer still writes a Bcc field:
 * whitespace of any kind, control characters, DEL, a colon, invisible joiners, compatibility forms.
 * Each spelling, in a `header:` property and in a headers list, names its recipient.
 */

const spellings = [
  'Bcc ',
  'Bcc\t',
  ' Bcc',
  'B cc',
  'Bcc\u00a0',
  'Bcc\u2003',
  'Bcc\u3000',
  'Bcc\u0000',
  'Bcc\u001f',
  'Bcc\u007f',
  'Bcc:',
  'B\u200bcc',
  'B\u200ccc',
  'B\u200dcc',
  'Bcc\u2060',
  '\ufeffBcc',
  '\uff22\uff43\uff43',
  'BCC',
  'Resent-\u200bBcc',
];

describe('a recipient field name as a lenient composer reads it', () => {
  it.each(spellings)('%j is read as the field it spells', (name) => {
    expect(fieldKey(name)).toBe(name.includes('Resent') ? 'resent-bcc' : 'bcc');
    expect(recipientsOfHeaderList([{ name, value: ' eve@evil.test' }]).addresses.map((a) => a.address)).toEqual([
      'eve@evil.test',
    ]);
    // A colon cannot sit in a header: property's name (the create rules refuse such a property).
    if (name.includes(':')) return;
    expect(
      recipientsOfCreate({ [`header:${name}:asAddresses`]: [{ email: 'eve@evil.test' }] }).addresses.map(
        (a) => a.address,
      ),
    ).toEqual(['eve@evil.test']);
  });

  it('keeps letters, digits and hyphens, so other fields stay other fields', () => {
    expect(fieldKey('X-Bcc-Copy')).toBe('x-bcc-copy');
    expect(fieldKey('Bcc2')).toBe('bcc2');
    expect(recipientsOfHeaderList([{ name: 'X-Bcc', value: 'eve@evil.test' }]).addresses).toEqual([]);
    expect(recipientsOfCreate({ 'header:Bccx': 'eve@evil.test' }).addresses).toEqual([]);
  });
});
