import { describe, expect, it } from 'vitest';
import { normaliseAddress, normaliseDomain, parseListEntry } from '../../../src/policy/address-matcher.js';
import { parseAddressList } from '../../../src/request/guard/mail/mail-recipients.js';

/** The matcher's edges: quoted local parts, names that hold an address, list entries with spaces, `localhost`. */

describe('address matcher edges', () => {
  it('unquotes a quoted local part with its escapes, and refuses an unquoted one holding @', () => {
    expect(normaliseAddress('"Ana Smith"@Example.org')).toEqual({
      address: 'ana smith@example.org',
      local: 'ana smith',
      domain: 'example.org',
    });
    expect(normaliseAddress('"a\\"b"@example.org')?.local).toBe('a"b');
    expect(normaliseAddress('"@"@example.org')?.local).toBe('@');
    expect(normaliseAddress('a@b@example.org')).toBeUndefined();
    expect(normaliseAddress('""@example.org')).toBeUndefined();
  });

  it('skips an empty group and names an address it cannot read', () => {
    expect(parseAddressList('Team:;')).toEqual({ addresses: [], invalid: [] });
    expect(parseAddressList('"Bob" bob@')).toEqual({ addresses: [], invalid: ['"Bob bob"@'] });
  });

  it('reads a list entry with spaces around it, and takes localhost as the one domain without a dot', () => {
    expect(parseListEntry('  ana@example.org  ')).toMatchObject({ kind: 'address', address: 'ana@example.org' });
    expect(parseListEntry(' example.org ')).toEqual({ kind: 'domain', domain: 'example.org' });
    expect(parseListEntry('localhost')).toEqual({ kind: 'domain', domain: 'localhost' });
    expect(parseListEntry('@localhost')).toEqual({ kind: 'domain', domain: 'localhost' });
    expect(parseListEntry('intranet')).toBeUndefined();
    expect(parseListEntry('ana@')).toBeUndefined();
  });
});

describe('what is no domain', () => {
  it('refuses empty labels and the punctuation of address syntax, which IDN conversion lets through', () => {
    for (const domain of [
      '',
      ' ',
      '.example.org',
      'a..b.org',
      'a,b.org',
      'a;b.org',
      '(a).org',
      'a)b.org',
      '"a".org',
      'a\\b.org',
      'a:b.org',
      '[1.2.3.4]',
      'a@b.org',
      'a b.org',
    ]) {
      expect(normaliseDomain(domain), domain).toBeUndefined();
      expect(normaliseAddress(`x@${domain}`), domain).toBeUndefined();
    }
    expect(normaliseDomain(' Example.ORG. ')).toBe('example.org');
  });

  it('answers from the forms it kept as it did afresh, each by its own text, past its bound, and shares entries no caller can change', () => {
    const texts = [
      'Example.ORG',
      'example.org.',
      ' EXAMPLE.org ',
      'b\u00FCcher.example',
      'xn--bcher-kva.example',
      'a b.org',
      '@promo.example',
      'Ana@Example.org',
    ];
    const afresh = texts.map((text) => [normaliseDomain(text), parseListEntry(text)]);
    expect(afresh[3]).toEqual(['xn--bcher-kva.example', { kind: 'domain', domain: 'xn--bcher-kva.example' }]);
    expect(texts.map((text) => [normaliseDomain(text), parseListEntry(text)])).toEqual(afresh);
    for (let i = 0; i < 5_000; i++) normaliseDomain(`host-${i}.example`);
    expect(texts.map((text) => [normaliseDomain(text), parseListEntry(text)])).toEqual(afresh);
    const long = `${'a'.repeat(300)}.${'b'.repeat(60)}.org`;
    expect(normaliseDomain(long)).toBe(long);
    const shared = parseListEntry('ana@example.org');
    expect(Object.isFrozen(shared)).toBe(true);
    expect(Object.isFrozen(normaliseAddress('Ana@Example.org')), 'a sender address is shared too').toBe(true);
    expect(() => Object.assign(shared ?? {}, { address: 'ana@evil.test' })).toThrow(TypeError);
    expect(parseListEntry('ana@example.org')).toEqual({
      kind: 'address',
      address: 'ana@example.org',
      local: 'ana',
      domain: 'example.org',
    });
  });

  it('refuses a local part holding a line break, which could start a header or an SMTP command', () => {
    expect(normaliseAddress('"a\r\nRCPT TO:<x@evil.test>"@example.org')).toBeUndefined();
    expect(normaliseAddress('"a\nb"@example.org')).toBeUndefined();
    expect(normaliseAddress('@example.org')).toBeUndefined();
    expect(normaliseAddress('ana@')).toBeUndefined();
  });
});
