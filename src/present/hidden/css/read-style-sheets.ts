import type { Atrule, Block, CssNode, Declaration, parse as ParseCss, Rule, StyleSheet } from 'css-tree';
import { matchesMedia, maxMediaNesting, nestsPastMediaReading } from './matches-media.js';
import { parseDeclarations, splitTopLevelCommas, type CssDeclaration } from './parse-declarations.js';
import { normalisePropertyName } from './property-name.js';
import { splitRuleBody } from './split-rule-body.js';
import { allContexts, renderContexts } from '../render-context.js';

/** One style rule: a selector list, its declarations, the contexts its `@media` allows, its place in source order. */
export interface StyleRule {
  selectorList: string;
  declarations: CssDeclaration[];
  contexts: number;
  order: number;
}

export interface StyleSheetLimits {
  maxChars: number;
  /** Rules (selector lists) kept at most. */
  maxRules: number;
}

export interface ReadStyleSheets {
  rules: StyleRule[];
  limitsReached: ('style-text-capped' | 'style-rules-capped' | 'style-unparsed')[];
  /** At-rules whose rules apply by conditions the detector cannot judge (`@supports`, `@scope`). */
  unassessed: string[];
}

// css-tree's parser and its tables cost several ms to load; only mail with a <style> needs it.
let parseCss: typeof ParseCss | undefined;

/** Loads the style-sheet parser when `html` has a <style> element; cheap once loaded. */
export async function prepareStyleSheets(html: string): Promise<void> {
  if (parseCss || !/<style/i.test(html)) return;
  ({ default: parseCss } = await import('css-tree/parser'));
}

export function isStyleSheetParserLoaded(): boolean {
  return parseCss !== undefined;
}

// Nesting deeper than mail needs is skipped.
const maxNesting = 16;

/** Declarations after a nested rule in a rule's body: they style the parent's elements, in their place in source order. */
type DeclarationRun = { type: 'DeclarationRun'; declarations: CssDeclaration[] };

interface Frame {
  nodes: (CssNode | DeclarationRun)[];
  next: number;
  contexts: number;
  parentSelector: string | undefined;
  depth: number;
}

/** The rules of the <style> elements, parsed with CSS Syntax's error recovery (css-tree), numbered in source order. */
export function readStyleSheets(
  sheets: { text: string; media: string | undefined }[],
  limits: StyleSheetLimits,
): ReadStyleSheets {
  if (!parseCss) throw new Error('readStyleSheets called before prepareStyleSheets');
  const rules: StyleRule[] = [];
  const limitsReached = new Set<ReadStyleSheets['limitsReached'][number]>();
  const unassessed = new Set<string>();
  let budget = limits.maxChars;
  for (const sheet of sheets) {
    if (budget <= 0) {
      limitsReached.add('style-text-capped');
      break;
    }
    const text = sheet.text.length > budget ? sheet.text.slice(0, budget) : sheet.text;
    if (text.length < sheet.text.length) limitsReached.add('style-text-capped');
    budget -= text.length;
    if (sheet.media !== undefined && nestsPastMediaReading(sheet.media)) unassessed.add(deepMediaDoubt);
    const contexts = sheet.media === undefined ? allContexts : contextMask(sheet.media, allContexts);
    let ast: CssNode;
    try {
      ast = parseSheet(text);
    } catch {
      limitsReached.add('style-unparsed');
      continue;
    }
    const stack: Frame[] = [
      { nodes: childrenOf(ast as StyleSheet), next: 0, contexts, parentSelector: undefined, depth: 0 },
    ];
    while (stack.length > 0) {
      const frame = stack[stack.length - 1] as Frame;
      const node = frame.nodes[frame.next++];
      if (!node) {
        stack.pop();
        continue;
      }
      if (rules.length >= limits.maxRules) {
        limitsReached.add('style-rules-capped');
        break;
      }
      if (node.type === 'DeclarationRun') {
        if (node.declarations.length > 0 && frame.parentSelector !== undefined)
          rules.push({
            selectorList: nestSelectors(frame.parentSelector, '&'),
            declarations: node.declarations,
            contexts: frame.contexts,
            order: rules.length,
          });
        continue;
      }
      const inner =
        node.type === 'Rule'
          ? readRule(node, frame, rules)
          : node.type === 'Atrule'
            ? readAtRule(node, frame, unassessed)
            : undefined;
      if (inner && inner.depth <= maxNesting) stack.push(inner);
    }
  }
  return { rules, limitsReached: [...limitsReached], unassessed: [...unassessed] };
}

/** Style sheet text as css-tree nodes, with selectors, values and at-rule preludes left raw for this module to read. */
function parseSheet(text: string): CssNode {
  if (!parseCss) throw new Error('readStyleSheets called before prepareStyleSheets');
  return parseCss(text, {
    parseValue: false,
    parseAtrulePrelude: false,
    parseRulePrelude: false,
    parseCustomProperty: false,
    positions: false,
  });
}

/** Keeps the rule's declarations; returns its nested rules to read next (CSS Nesting). */
function readRule(node: Rule, frame: Frame, rules: StyleRule[]): Frame | undefined {
  const prelude = node.prelude.type === 'Raw' ? node.prelude.value.trim() : '';
  if (prelude === '') return undefined;
  const selectorList = frame.parentSelector === undefined ? prelude : nestSelectors(frame.parentSelector, prelude);
  const declarations: CssDeclaration[] = [];
  const children: Frame['nodes'] = [];
  for (const child of childrenOf(node.block)) {
    if (child.type === 'Declaration') {
      // After a nested rule, declarations apply after it (CSS Nesting's nested declarations rule).
      const run = children.at(-1);
      if (children.length === 0) declarations.push(declarationOf(child));
      else if (run?.type === 'DeclarationRun') run.declarations.push(declarationOf(child));
      else children.push({ type: 'DeclarationRun', declarations: [declarationOf(child)] });
    }
    // css-tree leaves the body from the first nested rule on as raw text: read again, rules and declarations.
    else if (child.type === 'Raw')
      for (const item of splitRuleBody(child.value)) {
        if (item.kind === 'declarations')
          children.push({ type: 'DeclarationRun', declarations: parseDeclarations(item.text) });
        else if (frame.depth < maxNesting) children.push(...childrenOf(parseSheet(item.text) as StyleSheet));
      }
    else children.push(child);
  }
  if (declarations.length > 0)
    rules.push({ selectorList, declarations, contexts: frame.contexts, order: rules.length });
  return children.length > 0
    ? { ...frame, nodes: children, next: 0, parentSelector: selectorList, depth: frame.depth + 1 }
    : undefined;
}

/** At-rules whose block styles no element's text (`animation`, which plays keyframes, is itself not understood). */
const inertAtRules =
  /^(?:-[a-z]+-)?(?:font-face|keyframes|page|counter-style|font-feature-values|font-palette-values|viewport)$/;

/**
 * The block of an @media, @supports or @layer rule to read next. Any other at-rule that may hold
 * style rules (`@scope`, `@container`) is named, as is every @supports: whether the reader's
 * client applies them is not known here, and they may show text as well as hide it.
 */
function readAtRule(node: Atrule, frame: Frame, unassessed: Set<string>): Frame | undefined {
  // A print-only sheet or block styles nothing on screen, whatever it holds.
  if (!node.block || frame.contexts === 0) return undefined;
  const name = node.name.toLowerCase();
  const prelude = node.prelude?.type === 'Raw' ? node.prelude.value : '';
  let contexts = frame.contexts;
  if (name === 'media') {
    if (nestsPastMediaReading(prelude)) unassessed.add(deepMediaDoubt);
    contexts = contextMask(prelude, contexts);
  } else if (name === 'supports') {
    unassessed.add('@supports');
    // Read as modern clients answer common conditions; a condition that starts with `not` is taken as false.
    contexts = /^\s*not\b/i.test(prelude) ? 0 : contexts;
  } else if (name !== 'layer') {
    // A block of bare at-rules styles nothing (MJML's `@goodbye { @gmail }`, a hack that trips up Gmail's sanitiser).
    const holdsStyle = childrenOf(node.block).some((child) => child.type !== 'Atrule' || child.block !== null);
    if (holdsStyle && !inertAtRules.test(name)) unassessed.add(`@${name}`);
    return undefined;
  }
  return contexts === 0
    ? undefined
    : { ...frame, nodes: blockRules(node, frame), next: 0, contexts, depth: frame.depth + 1 };
}

/** The rules of a group rule's block; nested in a style rule (CSS Nesting §3.2), read as the body of a rule `&`. */
function blockRules(node: Atrule, frame: Frame): CssNode[] {
  if (frame.parentSelector === undefined) return childrenOf(node.block);
  const nested: Rule = { type: 'Rule', prelude: { type: 'Raw', value: '&' }, block: node.block as Block };
  return [nested];
}

const deepMediaDoubt = `@media nested past ${maxMediaNesting} parentheses`;

function contextMask(query: string, within: number): number {
  let mask = 0;
  renderContexts.forEach((context, i) => {
    if (within & (1 << i) && matchesMedia(query, context)) mask |= 1 << i;
  });
  return mask;
}

/** CSS Nesting §3: `&` stands for the parent's selector list; a nested selector without it is its descendant. */
function nestSelectors(parent: string, nested: string): string {
  const outer = `:is(${parent})`;
  return splitTopLevelCommas(nested)
    .map((selector) => (selector.includes('&') ? selector.split('&').join(outer) : `${outer} ${selector}`))
    .join(', ');
}

function childrenOf(node: { children: { toArray(): CssNode[] } | null } | null | undefined): CssNode[] {
  return node?.children ? node.children.toArray() : [];
}

function declarationOf(node: Declaration): CssDeclaration {
  const value = node.value.type === 'Raw' ? node.value.value.trim() : '';
  const isImportant =
    node.important === true || (typeof node.important === 'string' && node.important.toLowerCase() === 'important');
  return { property: normalisePropertyName(node.property), value, isImportant };
}
