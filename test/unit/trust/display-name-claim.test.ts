import { describe, expect, it } from 'vitest';
import { normaliseAddress } from '../../../src/policy/address-matcher.js';
import { displayNameClaim } from '../../../src/trust/display-name-claim.js';

const from = (address: string) => normaliseAddress(address)!;

describe('displayNameClaim', () => {
  it('flags a display name holding another address', () => {
    expect(displayNameClaim('ceo@bank.test', from('x@evil.test'))).toBe('ceo@bank.test');
    expect(displayNameClaim('CEO (CEO@Bank.test)', from('x@evil.test'))).toBe('ceo@bank.test');
    expect(displayNameClaim('Reply to support@bank.test.', from('x@evil.test'))).toBe('support@bank.test');
    expect(displayNameClaim('Reply to support@bank.test...', from('x@evil.test'))).toBe('support@bank.test');
  });

  it('flags a display name holding another domain, IDN look-alikes included', () => {
    expect(displayNameClaim('PayPal.com Support', from('x@evil.test'))).toBe('paypal.com');
    expect(displayNameClaim('Support PayPal.com', from('x@evil.test'))).toBe('paypal.com');
    expect(displayNameClaim('Support (x@evil.test) 2fa.paypal.com', from('x@evil.test'))).toBe('2fa.paypal.com');
    expect(displayNameClaim('bänk.test', from('x@evil.test'))).toBe('xn--bnk-qla.test');
    // Labels of one character, and digits anywhere in a label.
    expect(displayNameClaim('Support at x.com', from('x@evil.test'))).toBe('x.com');
    expect(displayNameClaim('web3pay.com wallet', from('x@evil.test'))).toBe('web3pay.com');
    expect(displayNameClaim('Team pay2.com', from('x@evil.test'))).toBe('pay2.com');
    expect(displayNameClaim('2fa.paypal.com', from('x@evil.test'))).toBe('2fa.paypal.com');
  });

  it('claims nothing with a dotted word whose last label is not a domain\'s, not even its beginning', () => {
    expect(displayNameClaim('Build app.example.2024', from('x@evil.test'))).toBeUndefined();
    expect(displayNameClaim('Files files.example.c0m', from('x@evil.test'))).toBeUndefined();
  });

  it('says nothing when the name shows the sender itself, its organisation, or no domain at all', () => {
    expect(displayNameClaim('Ana Lima', from('ana@example.org'))).toBeUndefined();
    expect(displayNameClaim('ana@example.org', from('Ana@Example.org'))).toBeUndefined();
    expect(displayNameClaim('Example.org News', from('news@mail.example.org'))).toBeUndefined();
    expect(displayNameClaim('news.example.org', from('news@example.org'))).toBeUndefined();
    expect(displayNameClaim('Dr. Smith, J.R.R. Tolkien, v1.2.3', from('x@evil.test'))).toBeUndefined();
    expect(displayNameClaim(null, from('x@evil.test'))).toBeUndefined();
  });
});
