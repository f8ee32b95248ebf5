import type { PseudoSelector, Selector } from 'css-what';
import { words } from '../word-list.js';

/** What the matcher needs to know about one complex selector before compiling it. */
export interface SelectorFacts {
  /** Selectors Level 4 §17 specificity as one number: ids × 1e6 + classes × 1e3 + types. */
  specificity: number;
  /** The rightmost compound's most selective key (`#id`, `.class`, `tag` or `*`), for the index. */
  key: string;
  compounds: number;
  descendantCombinators: number;
  siblingCombinators: number;
  hasHas: boolean;
  /** Pseudo-classes this tool does not decide, in order; in `compiled` the n-th is `undecided` with data n. */
  undecided: string[];
  /** Uses a pseudo-class unknown here (outside a forgiving list): some browsers drop the rule, others apply it. */
  isBrowserDependent: boolean;
  /** The selector for css-select: pseudo-classes decided or named undecided, invalid :is() arguments dropped. */
  compiled: Selector[];
  /** `unsupported`: a browser drops the whole rule; `pseudo-element`: styles generated or partial content, skipped alone. */
  problem?: 'unsupported' | 'pseudo-element';
}

// Standard pseudo-classes css-select compiles (directly or through the matcher's own overrides).
const supportedPseudoClasses = new Set(
  words`is where matches not has root scope empty first-child last-child only-child first-of-type last-of-type
  only-of-type nth-child nth-last-child nth-of-type nth-last-of-type any-link link visited hover active checked
  disabled enabled required optional defined`,
);
/** Standard pseudo-classes that describe a state a mail at rest is never in, in any document: they never match. */
const staticallyFalse = new Set(
  words`focus focus-visible focus-within target target-within autofill -webkit-autofill user-invalid user-valid
  fullscreen modal popover-open host host-context`,
);
/** Pseudo-classes that can be true of a mail at rest (`p:read-only`, `:lang(en)`), not evaluated here: doubted. */
const undecidedPseudoClasses = new Set(
  words`read-only read-write dir lang default valid invalid in-range out-of-range indeterminate placeholder-shown open
  closed blank playing paused`,
);
// CSS 2 wrote these pseudo-elements with one colon; browsers still read them so.
const legacyPseudoElements = new Set(['before', 'after', 'first-line', 'first-letter']);
const combinators = new Set(['child', 'parent', 'sibling', 'adjacent', 'descendant', 'column-combinator']);
/** The pseudo-class a never-matching part is compiled as. */
export const neverPseudo = 'never';
/** The pseudo-class an undecided part is compiled as; its data is the part's number (see `undecided`). */
export const undecidedPseudo = 'undecided';

/** Facts about `selector` (one item of a list parsed by css-what) in quirks mode or not. */
export function selectorFacts(selector: Selector[], isQuirks: boolean, isInHas = false): SelectorFacts {
  const facts: SelectorFacts = {
    specificity: 0,
    key: '*',
    compounds: 1,
    descendantCombinators: 0,
    siblingCombinators: 0,
    hasHas: false,
    undecided: [],
    isBrowserDependent: false,
    compiled: [],
  };
  let rightmost: Selector[] = [];
  for (const token of selector) {
    if (combinators.has(token.type)) {
      facts.compounds++;
      if (token.type === 'descendant') facts.descendantCombinators++;
      if (token.type === 'sibling') facts.siblingCombinators++;
      if (token.type === 'parent' || token.type === 'column-combinator') facts.problem = 'unsupported';
      facts.compiled.push(token);
      rightmost = [];
      continue;
    }
    rightmost.push(token);
    if (token.type === 'tag') facts.specificity += 1;
    else if (
      token.type === 'pseudo-element' ||
      (token.type === 'pseudo' && legacyPseudoElements.has(token.name) && token.data === null)
    ) {
      facts.specificity += 1;
      facts.problem ??= 'pseudo-element';
    } else if (token.type === 'attribute')
      facts.specificity +=
        token.name === 'id' && token.action === 'equals' && token.ignoreCase === 'quirks' ? 1e6 : 1e3;
    if (token.type === 'pseudo') facts.compiled.push(pseudoFacts(token, facts, isQuirks, isInHas));
    else facts.compiled.push(token);
  }
  facts.key = keyOf(rightmost, isQuirks);
  return facts;
}

/** Adds what `token` says to `facts`; returns the token css-select is to compile in its place. */
function pseudoFacts(token: PseudoSelector, facts: SelectorFacts, isQuirks: boolean, isInHas: boolean): Selector {
  const { name, data } = token;
  if (legacyPseudoElements.has(name) && data === null) return token;
  if (staticallyFalse.has(name)) {
    facts.specificity += 1e3;
    return { ...token, name: neverPseudo, data: null };
  }
  const isNthOf =
    (name === 'nth-child' || name === 'nth-last-child') && typeof data === 'string' && /\sof\s/i.test(data);
  if (undecidedPseudoClasses.has(name) || isNthOf || !supportedPseudoClasses.has(name)) {
    // A pseudo-class this tool does not know may be one the reader's browser knows.
    if (!undecidedPseudoClasses.has(name) && !isNthOf) facts.isBrowserDependent = true;
    facts.specificity += 1e3;
    facts.undecided.push(name);
    return { ...token, name: undecidedPseudo, data: String(facts.undecided.length - 1) };
  }
  if (!Array.isArray(data)) {
    facts.specificity += 1e3;
    return token;
  }
  if (name === 'has') {
    // Selectors 4 §14.1: :has() cannot nest (in :is() it can); css-select would allow it at quadratic cost.
    if (isInHas) facts.problem = 'unsupported';
    facts.hasHas = true;
  }
  // :is() and :where() take a forgiving list (Selectors 4 §3.3): an invalid argument matches nothing.
  const isForgiving = name === 'is' || name === 'where' || name === 'matches';
  let most = 0;
  const kept: Selector[][] = [];
  for (const inner of data) {
    const innerFacts = selectorFacts(inner, isQuirks, isInHas || name === 'has');
    if (innerFacts.problem && isForgiving) continue;
    if (innerFacts.problem) facts.problem = 'unsupported';
    // Unknown inside a forgiving list is an argument some browsers drop: undecided, not the rule.
    if (innerFacts.isBrowserDependent && !isForgiving) facts.isBrowserDependent = true;
    if (innerFacts.hasHas) facts.hasHas = true;
    facts.compounds += innerFacts.compounds;
    facts.descendantCombinators += innerFacts.descendantCombinators;
    facts.siblingCombinators += innerFacts.siblingCombinators;
    most = Math.max(most, innerFacts.specificity);
    kept.push(renumber(innerFacts, facts));
  }
  // :where() adds nothing; :is(), :not(), :has() add their most specific argument (Selectors 4 §17).
  if (name !== 'where') facts.specificity += most;
  if (kept.length === 0) return { ...token, name: neverPseudo, data: null };
  return { ...token, data: kept };
}

/** `inner`'s compiled tokens, its undecided parts numbered on after those `outer` already has. */
function renumber(inner: SelectorFacts, outer: SelectorFacts): Selector[] {
  const offset = outer.undecided.length;
  outer.undecided.push(...inner.undecided);
  if (inner.undecided.length === 0) return inner.compiled;
  const shift = (tokens: Selector[]): Selector[] =>
    tokens.map((token) =>
      token.type !== 'pseudo'
        ? token
        : token.name === undecidedPseudo
          ? { ...token, data: String(Number(token.data) + offset) }
          : Array.isArray(token.data)
            ? { ...token, data: token.data.map(shift) }
            : token,
    );
  return shift(inner.compiled);
}

function keyOf(compound: Selector[], isQuirks: boolean): string {
  const fold = (value: string): string => (isQuirks ? value.toLowerCase() : value);
  let classKey: string | undefined;
  let tagKey: string | undefined;
  for (const token of compound) {
    if (token.type === 'tag') tagKey = token.name.toLowerCase();
    if (token.type !== 'attribute' || token.ignoreCase !== 'quirks') continue;
    if (token.name === 'id' && token.action === 'equals') return `#${fold(token.value)}`;
    if (token.name === 'class' && token.action === 'element') classKey ??= `.${fold(token.value)}`;
  }
  return classKey ?? tagKey ?? '*';
}
