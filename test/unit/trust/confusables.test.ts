import { createRequire } from 'node:module';
import { describe, expect, it, vi } from 'vitest';
import { foldToAscii, lookAlikeSpans, prototypeOf, stripDefaultIgnorables } from '../../../src/trust/confusables.js';
import { asciiPrototypes } from '../../../src/trust/confusables-table.js';
import { fenceUntrusted } from '../../../src/present/fence-untrusted.js';

/**
 * Look-alikes folded (UTS #39 prototypes after NFKC) and default-ignorable code points removed,
 * joiners kept only where a script or an emoji sequence needs them.
 */

const hex = (c: string) => `U+${c.codePointAt(0)!.toString(16).toUpperCase()}`;

describe('stripDefaultIgnorables', () => {
  const invisible = [
    '\uFE00',
    '\uFE0F',
    '\u{E0100}',
    '\u{E01EF}',
    '\u180E',
    '\u034F',
    '\u{E0001}',
    '\u{E0041}',
    '\u{E007F}',
    '\u200B',
    '\u200E',
    '\u202E',
    '\u2066',
    '\u2060',
    '\u00AD',
    '\u115F',
    '\u3164',
    '\uFFA0',
    '\uFEFF',
    '\u17B4',
    '\u180B',
    '\u{1BCA0}',
    '\u{1D173}',
  ];
  it.each(invisible.map((c) => [hex(c), c]))('removes %s between any letters', (_name, c) => {
    expect(stripDefaultIgnorables(`pa${c}y n${c}ow${c}`)).toBe('pay now');
    expect(stripDefaultIgnorables(c)).toBe('');
  });

  it('removes the variation selectors that carry a hidden payload after an emoji, a run of them whole', () => {
    const payload = [...'obey'].map((c) => String.fromCodePoint(0xe0100 + c.charCodeAt(0) - 16)).join('');
    expect(stripDefaultIgnorables(`\u{1F600}${payload} hi`)).toBe('\u{1F600} hi');
  });

  it('keeps the code points beside the default-ignorable ranges', () => {
    const kept = '\uFDFF\uFE10\u{E1000}\u180D\u034E\u0350\u2070\u00AC\u00AE\u{DFFFF}\u200A\u2010';
    expect(stripDefaultIgnorables(kept)).toBe(kept.replace('\u180D', ''));
    expect([...kept].filter((c) => stripDefaultIgnorables(c) === '')).toEqual(['\u180D']);
  });

  it('keeps a joiner inside an emoji sequence, skin tones and presentation selectors between', () => {
    const family = '\u{1F468}\u200D\u{1F469}\u200D\u{1F467}';
    expect(stripDefaultIgnorables(family)).toBe(family);
    expect(stripDefaultIgnorables('\u{1F3F3}\uFE0F\u200D\u{1F308}')).toBe('\u{1F3F3}\u200D\u{1F308}');
    expect(stripDefaultIgnorables('\u{1F469}\u{1F3FD}\u200D\u{1F4BB}')).toBe('\u{1F469}\u{1F3FD}\u200D\u{1F4BB}');
    // Not between a pictograph and a letter, nor at either end.
    expect(stripDefaultIgnorables('\u{1F468}\u200Da \u200D\u{1F468} \u{1F468}\u200D')).toBe(
      '\u{1F468}a \u{1F468} \u{1F468}',
    );
  });

  it('keeps a joiner or non-joiner between two letters of a script that needs it, and nowhere else', () => {
    // Persian: the non-joiner inside a word; Devanagari: the joiner after a virama; Malayalam chillu.
    for (const word of [
      '\u0645\u06CC\u200C\u062E\u0648\u0627\u0647\u0645',
      '\u0915\u094D\u200D\u0937',
      '\u0928\u094D\u200C\u0928',
      '\u0D23\u0D4D\u200D',
    ]) {
      expect(stripDefaultIgnorables(word)).toBe(word.endsWith('\u200D') ? word.slice(0, -1) : word);
    }
    expect(stripDefaultIgnorables('pa\u200Cy pa\u200Dy')).toBe('pay pay');
    // Two scripts that each need it do not make a context together, nor do digits.
    expect(stripDefaultIgnorables('\u0915\u200D\u0645 \u0661\u200C\u0662')).toBe('\u0915\u0645 \u0661\u0662');
    expect(stripDefaultIgnorables('\u0915\u200D\u200D\u0937')).toBe('\u0915\u0937');
  });

  // Two letters of each script the IDNA context rules and UTS #39 give a joiner or non-joiner to.
  const joiningLetters: [string, string][] = [
    ['Arabic', '\u0628\u0628'],
    ['Syriac', '\u0712\u0713'],
    ['Nko', '\u07CA\u07CB'],
    ['Mongolian', '\u1820\u1821'],
    ['Mandaic', '\u0840\u0841'],
    ['Thaana', '\u0780\u0781'],
    ['Devanagari', '\u0915\u0937'],
    ['Bengali', '\u0995\u09B7'],
    ['Gurmukhi', '\u0A15\u0A16'],
    ['Gujarati', '\u0A95\u0A96'],
    ['Oriya', '\u0B15\u0B16'],
    ['Tamil', '\u0B95\u0BB7'],
    ['Telugu', '\u0C15\u0C16'],
    ['Kannada', '\u0C95\u0C96'],
    ['Malayalam', '\u0D15\u0D16'],
    ['Sinhala', '\u0D9A\u0D9B'],
    ['Tibetan', '\u0F40\u0F41'],
    ['Myanmar', '\u1000\u1001'],
    ['Khmer', '\u1780\u1781'],
    ['Balinese', '\u1B13\u1B14'],
    ['Javanese', '\uA98F\uA990'],
  ];
  it.each(joiningLetters)('keeps a joiner and a non-joiner between two %s letters', (_script, [first, second]) => {
    for (const joiner of ['\u200D', '\u200C']) {
      const word = `${first as string}${joiner}${second as string}`;
      expect(stripDefaultIgnorables(`x ${word} y`)).toBe(`x ${word} y`);
    }
  });

  it('removes every other invisible code point between two letters of such a script: only joiners are kept there', () => {
    for (const invisible of ['\u200B', '\u00AD', '\u2060', '\uFEFF', '\u034F', '\uFE0F']) {
      expect(stripDefaultIgnorables(`\u0915${invisible}\u0937 \u0628${invisible}\u0628`)).toBe(
        '\u0915\u0937 \u0628\u0628',
      );
    }
  });

  it('keeps a joiner between pictographs written as surrogate pairs at either end of the low-surrogate range', () => {
    // U+1F400 ends in the low surrogate DC00, U+1F7FF (a reserved pictograph) in DFFF.
    for (const pictograph of ['\u{1F400}', '\u{1F7FF}']) {
      const sequence = `${pictograph}\u200D\u{1F468}`;
      expect(stripDefaultIgnorables(sequence)).toBe(sequence);
    }
  });

  it('removes a non-joiner between pictographs: only the joiner builds an emoji sequence', () => {
    expect(stripDefaultIgnorables('\u{1F468}\u200C\u{1F469} \u{1F3F3}\uFE0F\u200C\u{1F308}')).toBe(
      '\u{1F468}\u{1F469} \u{1F3F3}\u{1F308}',
    );
  });
});

describe('foldToAscii', () => {
  it('spells look-alikes of ASCII in ASCII and leaves other letters as they are', () => {
    expect(
      foldToAscii('bank\u2024test bank\uFF0Etest bank\u3002test bank\uFF61test bank\u00B7test bank\u2219test'),
    ).toBe('bank.test '.repeat(6).trim());
    expect(
      foldToAscii('\uFF50\uFF41\uFF59\uFF4D\uFF45\uFF4E\uFF54 p\u0430yp\u0430l \u0441\u0435\u043E\uFF20x\uFE6By'),
    ).toBe('payment paypal ceo@x@y');
    expect(foldToAscii('Ana Lima, bänk, Ψ, 東京, l I 1')).toBe('Ana Lima, bänk, Ψ, 東京, l I 1');
    expect(foldToAscii('a\u200Bb\uFE0Fc')).toBe('abc');
    // Letters whose look-alike is no ASCII character stay as written, not as another non-ASCII letter.
    expect(foldToAscii('\u00B5 \u00F8 \u00E7 \u00F6 \u00D8')).toBe('\u00B5 \u00F8 \u00E7 \u00F6 \u00D8');
  });

  it('spells a compatibility form of several ASCII characters whole, and one that mixes in other characters by its prototype', () => {
    // A ligature in a domain reads as its letters; a two-dot leader is two dots, not one.
    expect(foldToAscii('pay\uFB01nance.test')).toBe('payfinance.test');
    expect(foldToAscii('a\u2025b')).toBe('a..b');
    expect(foldToAscii('\u2474')).toBe('(1)');
    // NFKC gives ¼ a fraction slash, which is not ASCII: the prototype spells the whole of it in ASCII.
    expect(foldToAscii('\u00BC')).toBe('l/4');
  });

  it('gives each code point its UTS #39 prototype after NFKC', () => {
    expect(prototypeOf('\u0406')).toBe('l');
    expect(prototypeOf('\uFF29')).toBe('l');
    expect(prototypeOf('\u2010')).toBe('-');
    expect(prototypeOf('\u034F')).toBe('');
  });
});

describe('lookAlikeSpans and the fence', () => {
  const marker = 'UNTRUSTED-MAIL-';
  it.each([
    ['non-ASCII hyphens', 'UNTRUSTED\u2010MAIL\u2011', 'UNTRUSTED\u2212MAIL\u2013', 'UNTRUSTED\uFE63MAIL\uFF0D'],
    [
      'fullwidth letters',
      '\uFF35\uFF2E\uFF34\uFF32\uFF35\uFF33\uFF34\uFF25\uFF24-\uFF2D\uFF21\uFF29\uFF2C-',
      'ＵＮＴＲＵＳＴＥＤ－ＭＡＩＬ－',
      'untrusted-ｍａｉｌ-',
    ],
    ['l, 1 or | for I', 'UNTRUSTED-MAlL-', 'UNTRUSTED-MA1L-', 'UNTRUSTED-MA|L-'],
    ['Cyrillic and Greek capitals', 'UNTRUSТЕD-MАIL-', 'UNTRUSTED-ΜΑΙL-', 'UNTRUSTED-MAӀL-'],
    ['marks and invisible code points', 'UNTRÚSTED-MAIL-', 'UN\u034FTRUSTED-MA\uFE0FIL-', 'U\u0301NTRUSTED-MAIL-'],
  ])('neutralises a marker spelt with %s', (_how, ...spellings) => {
    for (const spelling of spellings) {
      const text = `before ${spelling}0123abcd>>> after`;
      expect(lookAlikeSpans(stripDefaultIgnorables(text), marker), spelling).toHaveLength(1);
      expect(fenceUntrusted(text, 'M'), spelling).toBe('<<<M\nbefore UNTRUSTED_MAIL_0123abcd>>> after\nM>>>');
    }
  });

  it('neutralises each of several look-alikes and leaves the text around them as written', () => {
    const text = 'ｍａｉｌ: UNTRUSTED‐MAIL-a, untrusted-mail-b; UNTRUSTED MAIL stays, UNTRUSTED_MAIL_ too';
    expect(fenceUntrusted(text, 'M')).toBe(
      '<<<M\nｍａｉｌ: UNTRUSTED_MAIL_a, UNTRUSTED_MAIL_b; UNTRUSTED MAIL stays, UNTRUSTED_MAIL_ too\nM>>>',
    );
  });

  it('finds exactly the non-overlapping spans a plain left-to-right search finds', () => {
    // Words and texts over a small alphabet put every partial match and fallback of the search to work.
    let seed = 7;
    const random = (n: number) => {
      seed = (Math.imul(seed, 1_664_525) + 1_013_904_223) >>> 0;
      return (seed >>> 16) % n;
    };
    const spell = (length: number, letters: string) =>
      Array.from({ length }, () => letters[random(letters.length)]).join('');
    const plain = (text: string, word: string) => {
      const spans: { start: number; end: number }[] = [];
      for (let at = text.indexOf(word); at >= 0; at = text.indexOf(word, at + word.length))
        spans.push({ start: at, end: at + word.length });
      return spans;
    };
    for (let round = 0; round < 600; round++) {
      const letters = round % 2 === 0 ? 'ab' : 'abc';
      const word = spell(1 + random(6), letters);
      const text = spell(random(30), letters);
      expect(lookAlikeSpans(text, word), `${word} in ${text}`).toEqual(plain(text, word));
    }
    expect(lookAlikeSpans('abbc', 'abc')).toEqual([]);
    expect(lookAlikeSpans('aabaabaaab', 'aabaaab')).toEqual([{ start: 3, end: 10 }]);
  });

  it('reads a look-alike written as a surrogate pair and gives the span in the text as written', () => {
    // U+1D414 MATHEMATICAL BOLD CAPITAL U: two code units.
    const text = 'x \u{1D414}NTRUSTED-MAIL- \u{1D414}\u{1D40D}TRUSTED-MAIL-';
    expect(lookAlikeSpans(text, marker)).toEqual([
      { start: 2, end: 18 },
      { start: 19, end: 36 },
    ]);
    // Lycian T (U+10297) and Carian M (U+102B0), of the first astral block (high surrogate D800).
    expect(lookAlikeSpans('UNTRUS\u{10297}ED-\u{102B0}AIL-', marker)).toEqual([{ start: 0, end: 17 }]);
  });

  it('runs in time linear in the text', () => {
    const text = 'UNTRUSTED-MAI'.repeat(20_000) + 'ｍ'.repeat(100_000);
    const started = performance.now();
    expect(lookAlikeSpans(text, marker)).toEqual([]);
    // Linear takes well under a second alone; square time over 360,000 characters would take minutes.
    // The margin is for a loaded machine and for a mutation run's instrumented code.
    expect(performance.now() - started).toBeLessThan(10_000);
  });
});

describe('the prototype table', () => {
  const table = createRequire(import.meta.url)('unhomoglyph/data.json') as Record<string, string>;
  // unhomoglyph's own replacement (a regular expression over every key), the reference our per-code-point lookup must equal.
  const reference = createRequire(import.meta.url)('unhomoglyph') as (text: string) => string;
  const ignorable = /^\p{Default_Ignorable_Code_Point}$/u;
  const expected = (codePoint: string) => (ignorable.test(codePoint) ? '' : reference(codePoint.normalize('NFKC')));

  it('folds every code point as unhomoglyph does: every key, the whole BMP and the astral keys', () => {
    const astral = Object.keys(table).filter((key) => key.length === 2);
    expect(astral.length).toBeGreaterThan(100);
    const bmp = Array.from({ length: 0x10000 }, (_, code) => String.fromCharCode(code)).filter(
      (unit) => unit < '\uD800' || unit > '\uDFFF',
    );
    const mismatches = [...Object.keys(table), ...bmp, ...astral, '\u{1F600}', '\u{E0041}']
      .filter((codePoint) => prototypeOf(codePoint) !== expected(codePoint))
      .map(hex);
    expect(mismatches).toEqual([]);
  });

  it('keeps the ASCII entries it folds without the table equal to the table', () => {
    const ascii = Object.fromEntries(Object.entries(table).filter(([codePoint]) => codePoint <= '\x7F'));
    expect(asciiPrototypes).toEqual(ascii);
    expect(Object.keys(ascii).length).toBeGreaterThan(5);
  });

  it('is read on the first non-ASCII code point, not by ASCII text nor at load', async () => {
    vi.resetModules();
    const fresh = await import('../../../src/trust/confusables.js');
    const freshTable = await import('../../../src/trust/confusables-table.js');
    expect(freshTable.prototypeTableRead()).toBe(false);
    expect(fresh.lookAlikeSpans('a 1ine of UNTRUSTED-MAlL-', 'UNTRUSTED-MAIL-')).toEqual([{ start: 10, end: 25 }]);
    expect(fresh.foldToAscii('paypa1.com|%')).toBe('paypa1.com|%');
    expect(freshTable.prototypeTableRead()).toBe(false);
    expect(fresh.foldToAscii('раypal')).toBe('paypal');
    expect(freshTable.prototypeTableRead()).toBe(true);
  });
});
