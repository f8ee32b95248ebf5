import { describe, expect, it } from 'vitest';
import { findMatch, normaliseAddress, parseListEntry } from '../../../src/policy/address-matcher.js';
import { parseAddressList } from '../../../src/request/guard/mail/mail-recipients.js';

const addr = (text: string) => {
  const parsed = normaliseAddress(text);
  if (!parsed) throw new Error(`not an address: ${text}`);
  return parsed;
};

describe('address matcher', () => {
  it('compares addresses case-insensitively, with the domain in IDN ASCII form and no trailing dot', () => {
    expect(addr('Ana@Example.ORG.').address).toBe('ana@example.org');
    expect(addr('x@Bücher.de').domain).toBe('xn--bcher-kva.de');
    expect(findMatch(['bücher.de'], addr('x@xn--bcher-kva.de'))).toBe('bücher.de');
    expect(findMatch(['ana@example.org'], addr('ANA@example.org'))).toBe('ana@example.org');
  });

  it('lets a domain cover its subdomains but never a longer domain that merely starts with it', () => {
    expect(findMatch(['example.org'], addr('a@mail.example.org'))).toBe('example.org');
    expect(findMatch(['example.org'], addr('a@example.org.evil.test'))).toBeUndefined();
    expect(findMatch(['example.org'], addr('a@badexample.org'))).toBeUndefined();
    expect(findMatch(['@example.org'], addr('a@example.org'))).toBe('@example.org');
  });

  it('keeps sub-addresses apart: bob+x@d is not bob@d', () => {
    expect(findMatch(['bob@d.test'], addr('bob+x@d.test'))).toBeUndefined();
    expect(findMatch(['bob+x@d.test'], addr('bob+x@d.test'))).toBe('bob+x@d.test');
  });

  it('parses headers with a real parser: quoted local parts, groups and display names that hold another address', () => {
    const { addresses } = parseAddressList(
      '"ceo@bank.test" <x@evil.test>, Team: a@x.test, "b c"@y.test;, "john doe"@Example.org',
    );
    expect(addresses.map((a) => a.address)).toEqual(['x@evil.test', 'a@x.test', 'b c@y.test', 'john doe@example.org']);
  });

  it('returns what it cannot parse as invalid instead of guessing', () => {
    expect(parseAddressList('a@b@c.test').invalid).toEqual(['a@b@c.test']);
    expect(normaliseAddress('no-at-sign')).toBeUndefined();
    expect(normaliseAddress('x@exa mple.org')).toBeUndefined();
  });

  it('parses list entries as an address or a domain, and refuses anything else', () => {
    expect(parseListEntry('Ana@Example.org')).toEqual({
      kind: 'address',
      address: 'ana@example.org',
      local: 'ana',
      domain: 'example.org',
    });
    expect(parseListEntry('Example.ORG.')).toEqual({ kind: 'domain', domain: 'example.org' });
    expect(parseListEntry('not a domain')).toBeUndefined();
    expect(parseListEntry('org')).toBeUndefined();
  });
});
