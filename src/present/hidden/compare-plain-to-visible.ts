import { diffArrays } from 'diff';
import { stripInvisibleControls } from '../fence-untrusted.js';
import { words } from './word-list.js';

/** How far a text/plain part says other things than the HTML part, as a person sees it. */
export interface PlainComparison {
  plainWords: number;
  /** Words outside the longest common word sequence with the visible HTML, and HTML words dropped inside it. */
  extraWords: number;
  /** extraWords / plainWords (0 for an empty plain part). */
  ratio: number;
  /** The plain part says materially different things: show the HTML's visible text instead. */
  saysMore: boolean;
  /** Past `plainComparisonLimits`, the texts were compared as bags of words (order not weighed). */
  isApproximate: boolean;
}

/**
 * The plain part "says more" when it drops a negation from a sentence the HTML shows, when 4+ words
 * and 5%+ differ, 40+ words whatever the share, or it inserts a run of 12+. Ordinary alternatives
 * differ by a "view in browser" line or a footer; an instruction for the model alone is a sentence or more.
 */
export const plainSaysMore = { minWords: 4, minRatio: 0.05, anyShareWords: 40, runWords: 12 } as const;

/** Words read per side, and edits Myers' O((N+M)·D) diff looks for before falling back to counting words. */
export const plainComparisonLimits = { maxWords: 20_000, maxEdits: 500 } as const;

/** Words dropped from inside the common sequence count when the gap is this short: `not`, `never`, a name. */
const maxDroppedGap = 3;

// Addresses are written out in a plain part and hidden behind link text in HTML: not prose.
const addresses = /\b(?:https?:\/\/|www\.|mailto:)\S+/gi;
const word = /[\p{L}\p{N}]+/gu;

function wordsOf(text: string): string[] {
  // An address ends at whitespace or the end and starts after a non-word character: no words join where it was.
  const words = stripInvisibleControls(text).replace(addresses, '').toLowerCase().match(word) ?? [];
  return words.slice(0, plainComparisonLimits.maxWords);
}

/** Compares a text/plain part with the visible text of its HTML alternative, word by word, in order. */
export function comparePlainToVisible(plain: string, visibleText: string): PlainComparison {
  const plainWords = wordsOf(plain);
  const visibleWords = wordsOf(visibleText);
  if (plainWords.length === 0) return { plainWords: 0, extraWords: 0, ratio: 0, saysMore: false, isApproximate: false };
  // Words the plain part has more of than the HTML differ in any order: when they alone decide, no sequence is needed.
  const bagExtra = bagDifference(plainWords, visibleWords);
  if (bagExtra >= plainSaysMore.anyShareWords) return verdict(plainWords.length, bagExtra, 0, true);
  // A word of the HTML the plain part never uses cannot be in their common sequence; dropping it
  // keeps the diff's edit count to what the plain part rearranges (negations stay, to be seen dropped).
  const plainVocabulary = new Set(plainWords);
  const visibleInPlain = visibleWords.filter((w) => plainVocabulary.has(w) || negations.has(w));
  const changes = diffArrays(visibleInPlain, plainWords, { maxEditLength: plainComparisonLimits.maxEdits });
  if (!changes) return verdict(plainWords.length, bagExtra, 0, true);
  let extraWords = 0;
  let longestRun = 0;
  let dropsNegation = false;
  changes.forEach((change, i) => {
    if (change.added) {
      extraWords += change.count;
      longestRun = Math.max(longestRun, change.count);
    } else if (change.removed) {
      // The diff merges runs of one kind, so a removal with no addition on either side lies between
      // two common runs: words left out of a sentence the HTML shows, not replaced by others.
      const isBetweenCommon = changes[i - 1]?.added === false && changes[i + 1]?.added === false;
      if (isBetweenCommon && change.count <= maxDroppedGap) {
        extraWords += change.count;
        dropsNegation ||= change.value.some((w) => negations.has(w));
      }
    }
  });
  return verdict(plainWords.length, extraWords, longestRun, false, dropsNegation);
}

// A plain part that leaves one of these out of a sentence the HTML shows says its opposite.
const negations = new Set(
  words`not no never nor don doesn didn isn aren won cannot can without neither nothing nobody`,
);

function verdict(
  plainWords: number,
  extraWords: number,
  longestRun: number,
  isApproximate: boolean,
  dropsNegation = false,
): PlainComparison {
  const ratio = extraWords / plainWords;
  const saysMore =
    dropsNegation ||
    (extraWords >= plainSaysMore.minWords && ratio >= plainSaysMore.minRatio) ||
    extraWords >= plainSaysMore.anyShareWords ||
    longestRun >= plainSaysMore.runWords;
  return { plainWords, extraWords, ratio, saysMore, isApproximate };
}

/** Words of `plain` left after matching each against one word of `visible` (a multiset difference). */
function bagDifference(plain: readonly string[], visible: readonly string[]): number {
  const available = new Map<string, number>();
  for (const w of visible) available.set(w, (available.get(w) ?? 0) + 1);
  let extra = 0;
  for (const w of plain) {
    const left = available.get(w) ?? 0;
    if (left > 0) available.set(w, left - 1);
    else extra++;
  }
  return extra;
}
