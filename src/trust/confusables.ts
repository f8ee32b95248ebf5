import { asciiPrototypes, prototypeFor } from './confusables-table.js';

/**
 * Look-alike and invisible code points, judged in one place. A reader sees the glyph: `bank․test`
 * (one-dot leader) reads as a domain, `UNTRUSTED‐MAIL` (Unicode hyphen) as a fence marker, and a
 * variation selector as nothing while a model still receives it. Look-alikes fold with the UTS #39
 * prototypes of confusables.txt (the `unhomoglyph` table) after NFKC, which folds fullwidth forms.
 */

/** Each code point replaced by its prototype, as unhomoglyph does, reading the table only for non-ASCII. */
function unhomoglyph(text: string): string {
  let out = '';
  for (const codePoint of text) {
    const prototype =
      codePoint > '\x7F'
        ? prototypeFor(codePoint)
        : Object.hasOwn(asciiPrototypes, codePoint)
          ? asciiPrototypes[codePoint]
          : undefined;
    out += prototype ?? codePoint;
  }
  return out;
}

// Unicode's Default_Ignorable_Code_Point: code points a renderer draws as nothing when it does not
// support them (zero-width and bidi controls, variation selectors, tags, fillers, the soft hyphen).
const ignorable = /\p{Default_Ignorable_Code_Point}/u;
const ignorables = /\p{Default_Ignorable_Code_Point}/gu;
const zwnj = '\u200C';
const zwj = '\u200D';

// Scripts whose spelling needs a joiner or non-joiner between two of their letters (cursive joining
// and Brahmic conjuncts), after the IDNA context rules (RFC 5892 appendix A.1, A.2) and UTS #39.
// Stryker disable StringLiteral: an empty name is an invalid pattern, so the module fails to load and every test that imports it fails; Stryker's vitest runner counts a failed load as a survivor
const cursiveScripts = ['Arabic', 'Syriac', 'Nko', 'Mongolian', 'Mandaic', 'Thaana'];
const northBrahmicScripts = ['Devanagari', 'Bengali', 'Gurmukhi', 'Gujarati', 'Oriya', 'Tibetan'];
const southBrahmicScripts = ['Tamil', 'Telugu', 'Kannada', 'Malayalam', 'Sinhala'];
const southeastAsianScripts = ['Myanmar', 'Khmer', 'Balinese', 'Javanese'];
// Stryker restore StringLiteral
// Built on the first joiner met: compiling these Unicode property classes took 8 ms of every start.
let joiningScripts: RegExp[] | undefined;
const joiningScriptsBuilt = (): RegExp[] =>
  (joiningScripts ??= [...cursiveScripts, ...northBrahmicScripts, ...southBrahmicScripts, ...southeastAsianScripts].map(
    (script) => new RegExp(`^(?=[\\p{L}\\p{M}])\\p{scx=${script}}$`, 'u'),
  ));
const pictograph = /^\p{Extended_Pictographic}$/u;
// What may sit between a pictograph and the joiner of an emoji sequence: presentation selectors and skin tones.
const emojiTrail = /^(?:\uFE0E|\uFE0F|[\u{1F3FB}-\u{1F3FF}])$/u;

/** The code point before `index` (a whole surrogate pair), or '' at the start. */
function before(text: string, index: number): string {
  const low = text.charCodeAt(index - 1);
  return index >= 2 && low >= 0xdc00 && low <= 0xdfff
    ? text.slice(index - 2, index)
    : text.slice(Math.max(0, index - 1), index);
}

function after(text: string, index: number): string {
  const code = text.codePointAt(index);
  // Stryker disable next-line StringLiteral: at the end, any text of several code points matches no letter or pictograph as '' does not
  return code === undefined ? '' : String.fromCodePoint(code);
}

/** Whether the joiner at `index` is one the script or emoji sequence around it needs. */
function joinerNeeded(text: string, index: number): boolean {
  const next = after(text, index + 1);
  let back = index;
  let previous = before(text, back);
  if (text[index] === zwj) {
    while (emojiTrail.test(previous)) {
      back -= previous.length;
      previous = before(text, back);
    }
    if (pictograph.test(previous) && pictograph.test(next)) return true;
    previous = before(text, index);
  }
  return joiningScriptsBuilt().some((script) => script.test(previous) && script.test(next));
}

/**
 * Removes every default-ignorable code point, keeping a zero-width joiner or non-joiner only between
 * two letters of one script that needs it, or a joiner inside an emoji sequence.
 */
export function stripDefaultIgnorables(text: string): string {
  return text.replace(ignorables, (found: string, index: number) =>
    (found === zwj || found === zwnj) && joinerNeeded(text, index) ? found : '',
  );
}

/** `fold`, remembered per code point: text meets the same few code points again and again. */
function perCodePoint(fold: (codePoint: string) => string): (codePoint: string) => string {
  const folds = new Map<string, string>();
  return (codePoint) => {
    let found = folds.get(codePoint);
    if (found === undefined) {
      found = fold(codePoint);
      folds.set(codePoint, found);
    }
    return found;
  };
}

/** The UTS #39 prototype of one code point after NFKC: what it looks like; '' for an ignorable one. */
export const prototypeOf = perCodePoint((codePoint) =>
  ignorable.test(codePoint) ? '' : unhomoglyph(codePoint.normalize('NFKC')),
);

// Prototypes that read as a full stop between two words: confusables.txt folds the middle dots,
// bullets and leaders to U+00B7 and the ideographic full stop to U+02F3, which IDNA reads as a dot.
const dotLike = /^[.\u00B7\u02F3]$/u;
const printableAscii = /^[\x21-\x7E]+$/;

/**
 * Each code point that looks like printable ASCII spelt in ASCII (`ｐａｙｐａｌ․ｃｏｍ` → `paypal.com`,
 * Cyrillic `а` → `a`, `＠` → `@`), ignorable ones removed, everything else kept as it is. ASCII itself
 * stays: `l` and `I` are both ASCII, and which one a name wrote is what it claims.
 */
export function foldToAscii(text: string): string {
  let out = '';
  for (const codePoint of text) out += codePoint <= '\x7F' ? codePoint : asciiFoldOf(codePoint);
  return out;
}

const asciiFoldOf = perCodePoint((codePoint) => {
  // A compatibility form of ASCII (fullwidth `ｍ`) is that ASCII; its prototype could differ (`rn`).
  const compatible = codePoint.normalize('NFKC');
  const shape = printableAscii.test(compatible) ? compatible : prototypeOf(codePoint);
  return dotLike.test(shape) ? '.' : shape === '' || printableAscii.test(shape) ? shape : codePoint;
});

const marks = /\p{M}/gu;
// The folds of the first 2,048 character codes (Latin, Greek, Cyrillic and the rest of most mail), by code:
// a map lookup per character is most of the time. A table of the whole BMP cost every start 5 ms to allocate.
const lowFoldCount = 0x800;
// Stryker disable next-line ArrayDeclaration: an empty array reads undefined at every index as the filled one does
const lowMarkerFolds: (string | undefined)[] = new Array<string | undefined>(lowFoldCount).fill(undefined);

/** One code point as the marker match sees it: its prototype in lower case, marks gone, `i` read as `l`. */
const markerFoldOf = perCodePoint((codePoint) => {
  const lower = prototypeOf(codePoint).toLowerCase();
  return [...lower].map(prototypeOf).join('').normalize('NFD').replace(marks, '').replaceAll('i', 'l');
});

/**
 * The spans of `text` that read as `word` whatever look-alikes, case, marks or invisible code points
 * spell them: `UNTRUSTED‐MAlL` (Unicode hyphen, `l` for `I`) reads as `UNTRUSTED-MAIL`. In time
 * linear in the text's length.
 */
export function lookAlikeSpans(text: string, word: string): { start: number; end: number }[] {
  const needle = [...word].map(markerFoldOf).join('');
  const spans: { start: number; end: number }[] = [];
  // Stryker disable next-line ConditionalExpression: a word that folds to nothing matches nowhere either way
  if (needle.length === 0) return spans;
  // Knuth–Morris–Pratt over the folded characters as they come: no folded copy of the text is built.
  const fallback = new Int32Array(needle.length);
  for (let i = 1, k = 0; i < needle.length; i++) {
    while (k > 0 && needle[i] !== needle[k]) k = fallback[k - 1] as number;
    if (needle[i] === needle[k]) k++;
    fallback[i] = k;
  }
  // Where in `text` the code point of each of the last folded characters starts.
  const origin = new Int32Array(needle.length);
  let matched = 0;
  let count = 0;
  for (let at = 0; at < text.length;) {
    const unit = text.charCodeAt(at);
    const wide = unit >= 0xd800 && unit <= 0xdbff && at + 1 < text.length;
    const fold = wide
      ? markerFoldOf(text.slice(at, at + 2))
      : unit < lowFoldCount
        ? (lowMarkerFolds[unit] ??= markerFoldOf(text[at] as string))
        : markerFoldOf(text[at] as string);
    const next = at + (wide ? 2 : 1);
    for (let k = 0; k < fold.length; k++) {
      const c = fold[k];
      origin[count++ % needle.length] = at;
      while (matched > 0 && c !== needle[matched]) matched = fallback[matched - 1] as number;
      if (c === needle[matched]) matched++;
      if (matched === needle.length) {
        spans.push({ start: origin[count % needle.length] as number, end: next });
        // Spans do not overlap: the next one starts after this one.
        matched = 0;
      }
    }
    at = next;
  }
  return spans;
}
