import type { Selector } from 'css-what';

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
  /** `unsupported`: a browser drops the whole rule; `pseudo-element`: styles generated or partial content, skipped alone. */
  problem?: 'unsupported' | 'pseudo-element';
}

// Standard pseudo-classes css-select compiles (directly or through the matcher's own overrides).
const supportedPseudoClasses = new Set([
  'is',
  'where',
  'matches',
  'not',
  'has',
  'root',
  'scope',
  'empty',
  'first-child',
  'last-child',
  'only-child',
  'first-of-type',
  'last-of-type',
  'only-of-type',
  'nth-child',
  'nth-last-child',
  'nth-of-type',
  'nth-last-of-type',
  'any-link',
  'link',
  'visited',
  'hover',
  'active',
  'checked',
  'disabled',
  'enabled',
  'required',
  'optional',
]);
/** Standard pseudo-classes that describe a state a mail at rest is not in, or are rare enough to read as "no". */
export const staticallyFalsePseudoClasses = [
  'focus',
  'focus-visible',
  'focus-within',
  'target',
  'target-within',
  'placeholder-shown',
  'autofill',
  '-webkit-autofill',
  'indeterminate',
  'invalid',
  'valid',
  'user-invalid',
  'user-valid',
  'in-range',
  'out-of-range',
  'read-only',
  'read-write',
  'playing',
  'paused',
  'fullscreen',
  'modal',
  'popover-open',
  'open',
  'closed',
  'lang',
  'dir',
  'default',
  'blank',
];
const staticallyFalse = new Set(staticallyFalsePseudoClasses);
const combinators = new Set(['child', 'parent', 'sibling', 'adjacent', 'descendant', 'column-combinator']);

/** Facts about `selector` (one item of a list parsed by css-what) in quirks mode or not. */
export function selectorFacts(selector: Selector[], isQuirks: boolean, depth = 0): SelectorFacts {
  const facts: SelectorFacts = {
    specificity: 0,
    key: '*',
    compounds: 1,
    descendantCombinators: 0,
    siblingCombinators: 0,
    hasHas: false,
  };
  let rightmost: Selector[] = [];
  for (const token of selector) {
    if (combinators.has(token.type)) {
      facts.compounds++;
      if (token.type === 'descendant') facts.descendantCombinators++;
      if (token.type === 'sibling') facts.siblingCombinators++;
      if (token.type === 'parent' || token.type === 'column-combinator') facts.problem = 'unsupported';
      rightmost = [];
      continue;
    }
    rightmost.push(token);
    if (token.type === 'tag') facts.specificity += 1;
    else if (token.type === 'pseudo-element') {
      facts.specificity += 1;
      facts.problem ??= 'pseudo-element';
    } else if (token.type === 'attribute')
      facts.specificity +=
        token.name === 'id' && token.action === 'equals' && token.ignoreCase === 'quirks' ? 1e6 : 1e3;
    else if (token.type === 'pseudo') pseudoFacts(token.name, token.data, facts, isQuirks, depth);
  }
  facts.key = keyOf(rightmost, isQuirks);
  return facts;
}

function pseudoFacts(
  name: string,
  data: Selector[][] | string | null,
  facts: SelectorFacts,
  isQuirks: boolean,
  depth: number,
): void {
  if (staticallyFalse.has(name)) {
    facts.specificity += 1e3;
    return;
  }
  if (!supportedPseudoClasses.has(name)) {
    facts.problem = 'unsupported';
    return;
  }
  if (!Array.isArray(data)) {
    facts.specificity += 1e3;
    return;
  }
  if (name === 'has') {
    // Selectors 4 §14.1: :has() cannot nest; css-select would allow it at quadratic cost.
    if (depth > 0) facts.problem = 'unsupported';
    facts.hasHas = true;
  }
  let most = 0;
  for (const inner of data) {
    const innerFacts = selectorFacts(inner, isQuirks, depth + 1);
    if (innerFacts.problem) facts.problem = 'unsupported';
    if (innerFacts.hasHas) facts.hasHas = true;
    facts.compounds += innerFacts.compounds;
    facts.descendantCombinators += innerFacts.descendantCombinators;
    facts.siblingCombinators += innerFacts.siblingCombinators;
    most = Math.max(most, innerFacts.specificity);
  }
  // :where() adds nothing; :is(), :not(), :has() add their most specific argument (Selectors 4 §17).
  if (name !== 'where') facts.specificity += most;
}

function keyOf(compound: Selector[], isQuirks: boolean): string {
  const fold = (value: string): string => (isQuirks ? value.toLowerCase() : value);
  let classKey: string | undefined;
  let tagKey: string | undefined;
  for (const token of compound) {
    if (token.type === 'attribute' && token.ignoreCase === 'quirks' && token.name === 'id' && token.action === 'equals')
      return `#${fold(token.value)}`;
    if (
      token.type === 'attribute' &&
      token.ignoreCase === 'quirks' &&
      token.name === 'class' &&
      token.action === 'element'
    )
      classKey ??= `.${fold(token.value)}`;
    if (token.type === 'tag') tagKey = token.name.toLowerCase();
  }
  return classKey ?? tagKey ?? '*';
}
