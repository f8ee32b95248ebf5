import { describe, expect, it } from 'vitest';
import { comparePlainToVisible } from '../../../../src/present/hidden/compare-plain-to-visible.js';

/** Distinct words w0 w1 …, so that no word matches another by chance. */
const words = (count: number, from = 0, prefix = 'w'): string[] =>
  Array.from({ length: count }, (_, i) => `${prefix}${i + from}`);
const text = (list: string[]): string => list.join(' ');

/** `visible` with `extra` words put in one at a time, spread apart. */
function spread(visible: string[], extra: number): string[] {
  const out = [...visible];
  for (let i = 0; i < extra; i++) out.splice(2 + i * 3, 0, `extra${i}`);
  return out;
}

describe('where a plain part says more, at each threshold', () => {
  const base = words(76);
  it.each<[string, string[], string[], { extraWords: number; saysMore: boolean; isApproximate?: boolean }]>([
    ['the same words', base, base, { extraWords: 0, saysMore: false }],
    ['three words put in', base, spread(base, 3), { extraWords: 3, saysMore: false }],
    // Four in 80 words is 5%.
    ['four words put in, 5% of the part', base, spread(base, 4), { extraWords: 4, saysMore: true }],
    ['four words put in, under 5% of the part', words(77), spread(words(77), 4), { extraWords: 4, saysMore: false }],
    [
      'eleven words in a run',
      words(300),
      [...words(150), ...words(11, 0, 'x'), ...words(150, 150)],
      { extraWords: 11, saysMore: false },
    ],
    [
      'twelve words in a run',
      words(300),
      [...words(150), ...words(12, 0, 'x'), ...words(150, 150)],
      { extraWords: 12, saysMore: true },
    ],
    ['39 words put in apart', words(900), spread(words(900), 39), { extraWords: 39, saysMore: false }],
    [
      '40 words put in apart',
      words(900),
      spread(words(900), 40),
      { extraWords: 40, saysMore: true, isApproximate: true },
    ],
  ])('%s', (_name, visible, plain, expected) => {
    const result = comparePlainToVisible(text(plain), text(visible));
    expect(result).toMatchObject({ isApproximate: false, ...expected, plainWords: plain.length });
    expect(result.ratio).toBeCloseTo(expected.extraWords / plain.length, 10);
  });
});

describe('words of the HTML a plain part leaves out', () => {
  it.each<[string, string, string, { extraWords: number; saysMore: boolean }]>([
    [
      'a negation from inside a sentence',
      'I do not agree to pay the invoice today',
      'I do agree to pay the invoice today',
      { extraWords: 1, saysMore: true },
    ],
    [
      'never, from inside',
      'you should never wire money to this account',
      'you should wire money to this account',
      { extraWords: 1, saysMore: true },
    ],
    [
      'a name from inside',
      'please call Ana about the invoice from Ana',
      'please call about the invoice from Ana',
      { extraWords: 1, saysMore: false },
    ],
    ['three words from inside', 'x y c d e f c d e', 'x y f c d e', { extraWords: 3, saysMore: false }],
    ['four words from inside', 'x y c d e g f c d e g', 'x y f c d e g', { extraWords: 0, saysMore: false }],
    [
      'a negation at the start',
      'not now we pay the invoice today',
      'now we pay the invoice today',
      { extraWords: 0, saysMore: false },
    ],
    [
      'a negation at the end',
      'we pay the invoice today not',
      'we pay the invoice today',
      { extraWords: 0, saysMore: false },
    ],
    [
      'a negation replaced by another word',
      'I do not agree to pay the invoice',
      'I do gladly agree to pay the invoice',
      { extraWords: 1, saysMore: false },
    ],
    [
      'a negation dropped and a word put in further on',
      'I do not agree to pay the invoice',
      'I do agree gladly to pay the invoice',
      { extraWords: 2, saysMore: true },
    ],
    [
      'words the plain part never uses',
      'Hello there. Unsubscribe here. Kind regards',
      'Hello there. Kind regards',
      { extraWords: 0, saysMore: false },
    ],
  ])('%s', (_name, visible, plain, expected) => {
    expect(comparePlainToVisible(plain, visible)).toMatchObject(expected);
  });
});

describe('what is compared', () => {
  it('leaves addresses out', () => {
    const result = comparePlainToVisible(
      'Read it at https://example.test/a/b and www.example.test/c or mailto:ana@example.test today',
      'Read it at and or today',
    );
    expect(result).toMatchObject({ plainWords: 6, extraWords: 0 });
  });

  it('compares words whatever their case', () => {
    expect(comparePlainToVisible('HELLO There', 'hello there')).toMatchObject({ plainWords: 2, extraWords: 0 });
  });

  it('gives an empty plain part nothing to say', () => {
    expect(comparePlainToVisible(' -- ', 'Hello')).toEqual({
      plainWords: 0,
      extraWords: 0,
      ratio: 0,
      saysMore: false,
      isApproximate: false,
    });
  });

  it('counts words only as far as the word limit', () => {
    const visible = words(20_000);
    const result = comparePlainToVisible(text([...visible, 'forward', 'everything']), text(visible));
    expect(result).toMatchObject({ plainWords: 20_000, extraWords: 0 });
  });

  it('falls back to counting words when the order differs past the edit bound', () => {
    const visible = words(600);
    const result = comparePlainToVisible(text([...visible].reverse()), text(visible));
    expect(result).toMatchObject({ plainWords: 600, extraWords: 0, saysMore: false, isApproximate: true });
  });

  it('weighs order within the edit bound: the same words rearranged differ', () => {
    const visible = words(20);
    const plain = [...words(10, 10), ...words(10)];
    const result = comparePlainToVisible(text(plain), text(visible));
    expect(result).toMatchObject({ extraWords: 10, saysMore: true, isApproximate: false });
  });
});
