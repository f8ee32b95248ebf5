import { stripInvisibleControls } from '../fence-untrusted.js';

/** How much a text/plain part says that the HTML part, as a person sees it, does not. */
export interface PlainComparison {
  plainWords: number;
  /** Words of the plain part left over after matching each against one visible word. */
  extraWords: number;
  /** extraWords / plainWords (0 for an empty plain part). */
  ratio: number;
  saysMore: boolean;
}

/**
 * The plain part "says more" past both bounds: over 30 words and over 20% of it. Ordinary
 * alternatives differ by a "view in browser" line, a footer spelled out, image alt text: a few
 * to a few dozen words, a small share of a long mail and few words of a short one. Text written
 * for the model alone is a paragraph or more, and the bulk of the plain part.
 */
export const plainSaysMore = { minExtraWords: 30, minRatio: 0.2 } as const;

// Addresses are written out in a plain part and hidden behind link text in HTML: not prose.
const addresses = /\b(?:https?:\/\/|www\.|mailto:)\S+/gi;
const word = /[\p{L}\p{N}]+/gu;

function wordsOf(text: string): string[] {
  return stripInvisibleControls(text).replace(addresses, ' ').toLowerCase().match(word) ?? [];
}

/** Compares a text/plain part with the visible text of its HTML alternative, word for word (as a multiset). */
export function comparePlainToVisible(plain: string, visibleText: string): PlainComparison {
  const available = new Map<string, number>();
  for (const w of wordsOf(visibleText)) available.set(w, (available.get(w) ?? 0) + 1);
  const plainWords = wordsOf(plain);
  let extraWords = 0;
  for (const w of plainWords) {
    const left = available.get(w) ?? 0;
    if (left > 0) available.set(w, left - 1);
    else extraWords++;
  }
  const ratio = plainWords.length === 0 ? 0 : extraWords / plainWords.length;
  return { plainWords: plainWords.length, extraWords, ratio, saysMore: extraWords > plainSaysMore.minExtraWords && ratio > plainSaysMore.minRatio };
}
