import { describe, expect, it } from 'vitest';
import { comparePlainToVisible } from '../../../../src/present/hidden/compare-plain-to-visible.js';

describe('a plain part that turns a sentence the HTML shows into its opposite', () => {
  // Each negation, left out of the plain part: the HTML says "do not pay", the model reads "pay".
  it.each<[string, string]>([
    ['not', 'we do not pay the invoice today'],
    ['no', 'we send no payment for the invoice today'],
    ['never', 'we never pay the invoice today'],
    ['nor', 'we neither sign nor pay the invoice today'],
    ['neither', 'we neither pay the invoice today'],
    ["don't", "we don't pay the invoice today"],
    ["doesn't", "she doesn't pay the invoice today"],
    ["didn't", "she didn't pay the invoice today"],
    ["isn't", "the invoice isn't paid today"],
    ["aren't", "the invoices aren't paid today"],
    ["won't", "we won't pay the invoice today"],
    ['cannot', 'we cannot pay the invoice today'],
    ["can't", "we can't pay the invoice today"],
    ['without', 'we pay without the invoice today'],
    ['nothing', 'we pay nothing on the invoice today'],
    ['nobody', 'we say nobody should pay the invoice today'],
  ])('%s, left out', (negation, visible) => {
    const plain = visible.replace(new RegExp(`\\b${negation}(?=\\s)`), '');
    expect(plain).not.toBe(visible);
    const result = comparePlainToVisible(plain, visible);
    expect(result.saysMore).toBe(true);
    expect(result.extraWords).toBeGreaterThanOrEqual(1);
  });

  it('flags a negation left out together with a word next to it', () => {
    // Two words are too few to differ materially: only the negation among them decides.
    const result = comparePlainToVisible('I really do agree to pay', 'I really do not really agree to pay');
    expect(result).toMatchObject({ plainWords: 6, extraWords: 2, saysMore: true });
  });

  it('flags a negation left out after a greeting the HTML does not have', () => {
    // The plain part starts with words of its own: the sentence is still one the HTML shows.
    const result = comparePlainToVisible(
      'Hi team I do agree to pay the invoice today',
      'I do not agree to pay the invoice today',
    );
    expect(result).toMatchObject({ extraWords: 3, saysMore: true });
  });

  it('counts each word left out between kept ones, and no kept word', () => {
    const result = comparePlainToVisible(
      'pay the invoice and the fee today',
      'pay not the invoice and never the fee today',
    );
    expect(result).toMatchObject({ plainWords: 7, extraWords: 2, saysMore: true });
  });

  it('passes a plain part that replaces a word, whichever side the replacement is on', () => {
    expect(comparePlainToVisible('we gladly pay the invoice today', 'we surely pay the invoice today')).toMatchObject({
      extraWords: 1,
      saysMore: false,
    });
  });
});

describe('what is left out of the comparison', () => {
  it('leaves out http addresses as well as https ones', () => {
    const result = comparePlainToVisible(
      'Read it at http://example.test/a/b?c=d and HTTP://EXAMPLE.TEST/e today',
      'Read it at and today',
    );
    expect(result).toMatchObject({ plainWords: 5, extraWords: 0, saysMore: false });
  });

  it('leaves out an address in brackets without joining the words around it', () => {
    const result = comparePlainToVisible('see (https://example.test/x) now', 'see now');
    expect(result).toMatchObject({ plainWords: 2, extraWords: 0 });
  });
});

describe('words repeated in the plain part', () => {
  it('counts every repeat of a word the HTML says once', () => {
    // Forty-one repeats of one HTML word: each repeat past the HTML's own differs, and that many decide alone.
    const plain = `please ${'pay '.repeat(41)}now`;
    const result = comparePlainToVisible(plain, 'please pay now');
    expect(result).toMatchObject({ plainWords: 43, extraWords: 40, saysMore: true, isApproximate: true });
  });

  it('weighs fewer repeats in order', () => {
    const result = comparePlainToVisible(`please ${'pay '.repeat(5)}now`, 'please pay now');
    expect(result).toMatchObject({ plainWords: 7, extraWords: 4, saysMore: true, isApproximate: false });
  });
});
