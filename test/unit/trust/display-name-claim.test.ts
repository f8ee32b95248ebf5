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
    // The shortest address there is, one character on each side of the at-sign.
    expect(displayNameClaim('a@b', from('x@evil.test'))).toBe('a@b');
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

  it("claims nothing with a dotted word whose last label is not a domain's, not even its beginning", () => {
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

  it.each([
    ['one dot leader', 'ceo@bank\u2024test'],
    ['fullwidth full stop', 'ceo@bank\uFF0Etest'],
    ['ideographic full stop', 'ceo@bank\u3002test'],
    ['halfwidth ideographic full stop', 'ceo@bank\uFF61test'],
    ['middle dot', 'ceo@bank\u00B7test'],
    ['katakana middle dot', 'ceo@bank\u30FBtest'],
    ['fullwidth commercial at', 'ceo\uFF20bank.test'],
    ['small commercial at', 'ceo\uFE6Bbank.test'],
    ['fullwidth letters', '\uFF43\uFF45\uFF4F@\uFF42\uFF41\uFF4E\uFF4B.test'],
    ['Cyrillic letters', 'c\u0435\u043E@b\u0430nk.test'],
    ['invisible code points inside', 'ceo@\u200Bbank\u034F.\uFE0Ftest'],
  ])('flags an address spelt with look-alikes (%s) like the ASCII one', (_how, name) => {
    expect(displayNameClaim(name, from('x@evil.test'))).toBe('ceo@bank.test');
    expect(displayNameClaim(`CEO (${name})`, from('x@evil.test'))).toBe('ceo@bank.test');
  });

  it("flags a domain spelt with look-alike dots and letters, and says nothing when the look-alike is the sender's own", () => {
    expect(displayNameClaim('PayPal\u2024com Support', from('x@evil.test'))).toBe('paypal.com');
    expect(
      displayNameClaim('Support \uFF30\uFF41\uFF59\uFF30\uFF41\uFF4C\uFF0E\uFF43\uFF4F\uFF4D', from('x@evil.test')),
    ).toBe('paypal.com');
    expect(displayNameClaim('secure\u3002bank\u3002test', from('x@evil.test'))).toBe('secure.bank.test');
    expect(displayNameClaim('p\u0430ypal.com', from('news@paypal.com'))).toBeUndefined();
    // ASCII stays as written: a name that says paypal.com for a sender at paypa1.com claims another domain.
    expect(displayNameClaim('paypal.com', from('x@paypa1.com'))).toBe('paypal.com');
    // A middle dot reads as a dot, as in ASCII: the cost is that a Catalan `l·l` between two words of letters does too.
    expect(displayNameClaim('Ana\u00B7Lima', from('x@evil.test'))).toBe(
      displayNameClaim('Ana.Lima', from('x@evil.test')),
    );
  });

  it("takes time linear in the name's length, for every shape of a long name", () => {
    const n = 120_000;
    const shapes = [
      'a'.repeat(n),
      'a.'.repeat(n / 2),
      'a@'.repeat(n / 2),
      '@'.repeat(n),
      'a-'.repeat(n / 2),
      '.a'.repeat(n / 2),
      'aa.'.repeat(n / 3) + '1',
      '\u2024a'.repeat(n / 2),
      'x'.repeat(n) + ' ceo@bank.test',
    ];
    for (const name of shapes) {
      const started = performance.now();
      displayNameClaim(name, from('x@evil.test'));
      // Quadratic work on 120,000 characters takes tens of seconds; linear work, milliseconds (the
      // margin is for a loaded machine and for a mutation run's instrumented code).
      expect(performance.now() - started, name.slice(0, 12)).toBeLessThan(5_000);
    }
    expect(displayNameClaim(`${'x'.repeat(n)} ceo@bank.test`, from('x@evil.test'))).toBe('ceo@bank.test');
  });
});
