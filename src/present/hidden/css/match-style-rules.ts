import { compile } from 'css-select';
import { parse as parseSelectors } from 'css-what';
import { isTag, type AnyNode, type Element } from 'domhandler';
import nthCheck from 'nth-check';
import type { StyleRule } from './read-style-sheets.js';
import { neverPseudo, selectorFacts, undecidedPseudo, type SelectorFacts } from './selector-facts.js';
import { inertProperties } from './understood-properties.js';
import { remember } from '../object-ids.js';

/** A style rule that applies to an element, with the specificity of its most specific matching selector. */
export interface RuleMatch {
  rule: StyleRule;
  specificity: number;
}

export interface MatcherLimits {
  /** Compound selectors in one complex selector, at most; longer selectors are skipped. */
  maxCompounds: number;
  /** Units of matching work for the whole document (see `costOf`); past it, rules stop applying. */
  workBudget: number;
}

interface CompiledSelector {
  rule: StyleRule;
  facts: SelectorFacts;
  /** One test per way its undecided pseudo-classes may come out. */
  tests: ((element: Element) => boolean)[];
  /** Whether the rule surely applies when every way matches (not when some browsers drop it). */
  isDecidable: boolean;
  /** What the rule contributes when it may or may not apply (see `doubtOf`). */
  doubt: StyleRule | undefined;
}

/** Undecided pseudo-classes in one selector tried every way, at most; past it, every candidate element is in doubt. */
const maxUndecided = 3;

/** Given to every element once the work budget ran out: its text is named as not assessed, in every context. */
export const budgetSpentDoubt: StyleRule = {
  selectorList: '*',
  declarations: [{ property: 'style rules past the matching budget', value: 'unmatched', isImportant: false }],
  contexts: -1,
  order: -Infinity,
};

interface Position {
  index: number;
  fromEnd: number;
  typeIndex: number;
  typeFromEnd: number;
  siblings: number;
  depth: number;
  subtree: number;
}

/** The position of an element outside the measured tree: alone among its siblings. */
const loosePosition: Position = {
  index: 0,
  fromEnd: 0,
  typeIndex: 0,
  typeFromEnd: 0,
  siblings: 1,
  depth: 0,
  subtree: 1,
};

/**
 * Matches style rules to elements with css-select, bounded: selectors indexed by their rightmost
 * id, class or tag, structural pseudo-classes read in O(1) from a position table, and every test
 * charged a cost that bounds its work, so no document makes matching quadratic or exponential.
 */
export class StyleRuleMatcher {
  readonly limitsReached = new Set<'selector-too-complex' | 'selector-budget-spent'>();
  private readonly index = new Map<string, CompiledSelector[]>();
  private readonly positions = new Map<Element, Position>();
  private readonly nthTests = new Map<string, (index: number) => boolean>();
  private work = 0;

  constructor(
    rules: readonly StyleRule[],
    root: AnyNode[],
    private readonly isQuirks: boolean,
    private readonly limits: MatcherLimits,
  ) {
    // Stryker disable next-line ConditionalExpression: a shortcut; with no rules nothing is indexed either way
    if (rules.length === 0) return;
    this.measurePositions(root);
    for (const rule of rules) this.add(rule);
  }

  /** The rules that apply to `element`, in no particular order. */
  match(element: Element): RuleMatch[] {
    const found = new Map<StyleRule, number>();
    const position = this.positions.get(element);
    const attribs = element.attribs;
    const fold = (value: string): string => (this.isQuirks ? value.toLowerCase() : value);
    // Once the budget is spent the index is empty, so the buckets after it test nothing.
    this.test(this.index.get('*'), element, position, found);
    this.test(this.index.get(element.name), element, position, found);
    if (attribs.id) this.test(this.index.get(`#${fold(attribs.id)}`), element, position, found);
    if (attribs.class) {
      const seen = new Set<string>();
      for (const name of attribs.class.split(/[ \t\n\f\r]/)) {
        const key = `.${fold(name)}`;
        if (!name || seen.has(key)) continue;
        seen.add(key);
        this.test(this.index.get(key), element, position, found);
      }
    }
    if (this.limitsReached.has('selector-budget-spent')) found.set(budgetSpentDoubt, 0);
    return [...found].map(([rule, specificity]) => ({ rule, specificity }));
  }

  /** Tests one bucket of candidates; past the work budget, empties the index (matching stops for good). */
  private test(
    candidates: CompiledSelector[] | undefined,
    element: Element,
    position: Position | undefined,
    found: Map<StyleRule, number>,
  ): void {
    for (const candidate of candidates ?? []) {
      this.work += costOf(candidate.facts, position) * candidate.tests.length;
      if (this.work > this.limits.workBudget) {
        this.limitsReached.add('selector-budget-spent');
        this.index.clear();
        return;
      }
      const ways = candidate.tests.filter((test) => test(element)).length;
      if (ways === 0) continue;
      const rule = ways === candidate.tests.length && candidate.isDecidable ? candidate.rule : candidate.doubt;
      if (rule) found.set(rule, Math.max(found.get(rule) ?? 0, candidate.facts.specificity));
    }
  }

  private add(rule: StyleRule): void {
    let selectors;
    try {
      selectors = parseSelectors(rule.selectorList);
    } catch {
      return;
    }
    const all = selectors.map((selector) => selectorFacts(selector, this.isQuirks));
    // One invalid selector makes a browser drop the whole rule (Selectors 4 §3.1).
    if (all.some((facts) => facts.problem === 'unsupported')) return;
    // A pseudo-class only some browsers know makes the whole rule apply in some and not in others.
    const isBrowserDependent = all.some((facts) => facts.isBrowserDependent);
    const names = [...new Set(all.flatMap((facts) => facts.undecided))];
    const doubt = this.doubtOf(rule, `selector :${names.join(', :')}`);
    const compiled: CompiledSelector[] = [];
    for (const facts of all) {
      if (facts.problem === 'pseudo-element') continue;
      if (facts.compounds > this.limits.maxCompounds || facts.siblingCombinators > 2) {
        // Not matched, so every element its rightmost compound names is in doubt instead.
        this.limitsReached.add('selector-too-complex');
        const tooComplex = this.doubtOf(rule, 'selector too complex to match');
        // Its test walks nothing, so it is charged as a simple one.
        const simple = { ...facts, descendantCombinators: 0, siblingCombinators: 0, hasHas: false };
        compiled.push({ rule, facts: simple, tests: [() => true], isDecidable: false, doubt: tooComplex });
        continue;
      }
      const isDecidable = !isBrowserDependent && facts.undecided.length <= maxUndecided;
      try {
        compiled.push({ rule, facts, tests: this.compileWays(facts), isDecidable, doubt });
      } catch {
        return;
      }
    }
    for (const entry of compiled) remember(this.index, entry.facts.key, () => []).push(entry);
  }

  /** A test for each way the selector's undecided pseudo-classes may come out (every element when there are too many). */
  private compileWays(facts: SelectorFacts): ((element: Element) => boolean)[] {
    const count = facts.undecided.length;
    if (count > maxUndecided) return [() => true];
    const tests: ((element: Element) => boolean)[] = [];
    for (let way = 0; way < 2 ** count; way++)
      tests.push(
        compile<AnyNode, Element>([facts.compiled], {
          xmlMode: false,
          quirksMode: this.isQuirks,
          // Stryker disable next-line BooleanLiteral: css-select's cache saves time, not answers
          cacheResults: true,
          pseudos: {
            ...this.pseudos,
            // Stryker disable next-line EqualityOperator: every way is tried, so reading each bit inverted tries the same set
            [undecidedPseudo]: (_element, data) => ((way >> Number(data)) & 1) === 1,
          },
        }),
      );
    return tests;
  }

  /**
   * What a rule that may or may not apply contributes: a declaration named as no property is, so
   * the state names it as not assessed; none when it sets only inert properties. Its own order keeps memo keys apart.
   */
  private doubtOf(rule: StyleRule, name: string): StyleRule | undefined {
    if (!rule.declarations.some((declaration) => !inertProperties.has(declaration.property))) return undefined;
    // Stryker disable next-line StringLiteral,BooleanLiteral: the entry is read by its name alone
    const declaration = { property: name, value: 'undecided', isImportant: false };
    return { ...rule, declarations: [declaration], order: -1 - rule.order };
  }

  private nth(formula: string | null | undefined): (index: number) => boolean {
    // css-select refuses an nth pseudo-class without an argument before it asks.
    return remember(this.nthTests, String(formula), () => {
      try {
        return nthCheck(String(formula));
      } catch {
        // A malformed An+B never matches (a browser drops the whole rule; here only this selector fails).
        // Stryker disable next-line ArrowFunction: css-select reads the answer as a truth value
        return () => false;
      }
    });
  }

  private readonly pseudos: Record<string, (element: Element, data?: string | null) => boolean> = {
    'first-child': (e) => this.position(e).index === 0,
    'last-child': (e) => this.position(e).fromEnd === 0,
    'only-child': (e) => this.position(e).siblings === 1,
    'first-of-type': (e) => this.position(e).typeIndex === 0,
    'last-of-type': (e) => this.position(e).typeFromEnd === 0,
    'only-of-type': (e) => this.position(e).typeIndex === 0 && this.position(e).typeFromEnd === 0,
    'nth-child': (e, data) => this.nth(data)(this.position(e).index),
    'nth-last-child': (e, data) => this.nth(data)(this.position(e).fromEnd),
    'nth-of-type': (e, data) => this.nth(data)(this.position(e).typeIndex),
    'nth-last-of-type': (e, data) => this.nth(data)(this.position(e).typeFromEnd),
    // Custom elements are never defined in mail, which runs no script.
    defined: (e) => !e.name.includes('-'),
    // Stryker disable next-line ArrowFunction: css-select reads the answer as a truth value
    [neverPseudo]: () => false,
  };

  private position(element: Element): Position {
    return this.positions.get(element) ?? loosePosition;
  }

  /** One pass over the tree: each element's place among its siblings, its depth and its subtree size. */
  private measurePositions(root: AnyNode[]): void {
    // Stryker disable next-line ArrayDeclaration: an entry that is no element has no parent to add to
    const order: Element[] = [];
    const stack: { nodes: AnyNode[]; depth: number }[] = [{ nodes: root, depth: 0 }];
    for (let frame = stack.pop(); frame; frame = stack.pop()) {
      const elements = frame.nodes.filter(isTag);
      const typeCounts = new Map<string, number>();
      elements.forEach((element, i) => {
        const typeIndex = typeCounts.get(element.name) ?? 0;
        typeCounts.set(element.name, typeIndex + 1);
        this.positions.set(element, {
          ...loosePosition,
          index: i,
          fromEnd: elements.length - 1 - i,
          typeIndex,
          siblings: elements.length,
          depth: frame.depth,
        });
        order.push(element);
        stack.push({ nodes: element.children, depth: frame.depth + 1 });
      });
      for (const element of elements) {
        const position = this.positions.get(element) as Position;
        position.typeFromEnd = (typeCounts.get(element.name) ?? 1) - 1 - position.typeIndex;
      }
    }
    // Children were recorded after their parents, so a reverse walk sums subtrees bottom-up.
    for (const element of order.reverse()) {
      const parentPosition = this.positions.get(element.parent as Element);
      if (parentPosition) parentPosition.subtree += (this.positions.get(element) as Position).subtree;
    }
  }
}

/** An upper bound on one test's work: css-select walks ancestors, earlier siblings (`~`) and the subtree (:has()). */
function costOf(facts: SelectorFacts, position: Position | undefined): number {
  if (!position) return 1;
  return (
    1 +
    facts.descendantCombinators * position.depth +
    facts.siblingCombinators * position.siblings +
    (facts.hasHas ? position.subtree : 0)
  );
}
