import type { Document, Element, ParentNode, Text } from 'domhandler';
import { addImpliedRoot } from './add-implied-root.js';
import { hidingTechniques, type HidingTechnique } from './hiding-technique.js';
import { StyleRuleMatcher } from './css/match-style-rules.js';
import { parseHtmlDocument, type ParsedHtml } from './parse-html-document.js';
import {
  isStyleSheetParserLoaded,
  prepareStyleSheets,
  readStyleSheets,
  type ReadStyleSheets,
  type StyleRule,
} from './css/read-style-sheets.js';
import { renderVisibleHtml } from './render-visible-html.js';
import { VariableWork } from './css/resolve-css-variables.js';
import { StyleMemo } from './css/style-memo.js';
import { walkVisibility } from './walk-visibility.js';
import { prepareColourMixing } from './colour/color-mix.js';
import { inertProperties } from './css/understood-properties.js';

/** A bound that cut the analysis short: parsing bounds drop or move content, style bounds leave rules unapplied. */
export type VisibilityLimit =
  | ParsedHtml['limitsReached'][number]
  | ReadStyleSheets['limitsReached'][number]
  | Parameters<StyleRuleMatcher['limitsReached']['add']>[0]
  | 'variables-budget-spent';

/** What a person sees of an HTML mail, and what they do not. */
export interface HtmlVisibility {
  /** The HTML without what a person does not see: input for the HTML-to-text converter. */
  visibleHtml: string;
  /** The visible text, whitespace collapsed, a line per block. */
  visibleText: string;
  /** The text a person does not see, in document order, a line per hidden run. */
  hiddenText: string;
  /** Non-whitespace characters hidden, all techniques together. */
  hiddenChars: number;
  hiddenWords: number;
  /** The techniques that hid anything, most characters first. */
  techniques: HidingTechnique[];
  charsByTechnique: Partial<Record<HidingTechnique, number>>;
  /** Characters of <script> content: code no mail client runs or shows, not counted as hidden text. */
  scriptChars: number;
  /** Only the first `maxBytes` were analysed; the rest is in none of the fields. */
  truncated: boolean;
  limitsReached: VisibilityLimit[];
  /** Styling this tool cannot assess (`mask-image`): text it bears on is reported visible, but may not be. */
  unassessed: string[];
}

export interface HtmlVisibilityOptions {
  /** UTF-8 bytes of HTML analysed at most (default 1 MiB). */
  maxBytes?: number;
}

/** The bounds of one analysis; each keeps a hostile mail from costing more than a large real one. */
export const visibilityLimits = {
  maxBytes: 1024 * 1024,
  maxDepth: 512,
  maxNodes: 100_000,
  maxStyleChars: 256 * 1024,
  maxRules: 4000,
  maxCompounds: 12,
  workBudget: 25_000_000,
  maxVariableChars: 4_000_000,
} as const;

/**
 * A bound that leaves styling unread or unapplied, as a reader can act on it: text past it may be
 * visible here while a browser hides it. The selector bounds name the elements they left undecided themselves.
 */
const limitDoubts: Partial<Record<VisibilityLimit, string>> = {
  'depth-flattened': `markup nested more than ${visibilityLimits.maxDepth} elements deep`,
  'nodes-capped': `markup past ${visibilityLimits.maxNodes.toLocaleString('en-US')} nodes`,
  'style-text-capped': `style sheets past ${visibilityLimits.maxStyleChars / 1024} KiB`,
  'style-rules-capped': `style rules past the first ${visibilityLimits.maxRules.toLocaleString('en-US')}`,
  'style-unparsed': 'a style sheet this tool could not read',
  'variables-budget-spent': 'var() past the work budget',
};

/** Loads what analysing these HTML bodies needs (the style-sheet parser when one has a <style>). */
export async function prepareHtmlVisibility(htmls: string | readonly string[]): Promise<void> {
  for (const html of [htmls].flat()) await Promise.all([prepareStyleSheets(html), prepareColourMixing(html)]);
}

/**
 * Decides, with an HTML parser and the CSS cascade, which text of an HTML mail a person sees; call
 * prepareHtmlVisibility with the same HTML first. Import this module (htmlparser2, css-select: ~5–8 ms) dynamically.
 */
export function analyseHtml(html: string, options: HtmlVisibilityOptions = {}): HtmlVisibility {
  const maxBytes = options.maxBytes ?? visibilityLimits.maxBytes;
  const parsed = parseHtmlDocument(html, { ...visibilityLimits, maxBytes });
  const implied = addImpliedRoot(parsed.document);
  const limitsReached: VisibilityLimit[] = [...parsed.limitsReached];
  const sheets = styleSheetsOf(parsed.document);
  let rules: StyleRule[] = [];
  let styleDoubts: string[] = [];
  if (sheets.length > 0) {
    if (!isStyleSheetParserLoaded())
      throw new Error('analyseHtml called before prepareHtmlVisibility for HTML with <style>');
    const read = readStyleSheets(sheets, {
      maxChars: visibilityLimits.maxStyleChars,
      maxRules: visibilityLimits.maxRules,
    });
    rules = read.rules;
    styleDoubts = read.unassessed;
    limitsReached.push(...read.limitsReached);
  }
  const matcher = new StyleRuleMatcher(rules, parsed.document.children, parsed.isQuirks, visibilityLimits);
  const variables = new VariableWork(visibilityLimits.maxVariableChars);
  const walk = walkVisibility(parsed.document, matcher, {
    isQuirks: parsed.isQuirks,
    variables,
    memo: new StyleMemo(),
  });
  limitsReached.push(...matcher.limitsReached);
  if (variables.isSpent) limitsReached.push('variables-budget-spent');
  const charsByTechnique = Object.fromEntries([...walk.charsByTechnique].filter(([, chars]) => chars > 0)) as Partial<
    Record<HidingTechnique, number>
  >;
  const techniques = hidingTechniques
    .filter((t) => charsByTechnique[t])
    .sort((a, b) => (charsByTechnique[b] ?? 0) - (charsByTechnique[a] ?? 0));
  return {
    visibleHtml: renderVisibleHtml(parsed.document, walk.hidden, walk.textHidden, implied),
    visibleText: walk.visibleText,
    hiddenText: walk.hiddenText,
    hiddenChars: Object.values(charsByTechnique).reduce((sum, chars) => sum + chars, 0),
    hiddenWords: walk.hiddenText === '' ? 0 : walk.hiddenText.split(/\s+/).length,
    techniques,
    charsByTechnique,
    scriptChars: walk.scriptChars,
    truncated: parsed.isTruncated,
    limitsReached,
    unassessed: [
      ...limitsReached.flatMap((limit) => limitDoubts[limit] ?? []),
      ...styleDoubts,
      ...pseudoElementDoubts(rules),
      ...walk.unassessed,
    ].slice(0, 8),
  };
}

/** ::first-line and ::first-letter style part of a text, not split off here: any setting more than type is named. */
function pseudoElementDoubts(rules: readonly StyleRule[]): string[] {
  const found = new Set<string>();
  for (const rule of rules) {
    const pseudo = /::?(first-line|first-letter)\b/i.exec(rule.selectorList)?.[1];
    if (pseudo && rule.declarations.some((d) => !d.property.startsWith('--') && !inertProperties.has(d.property)))
      found.add(`::${pseudo.toLowerCase()}`);
  }
  return [...found];
}

/** The text and `media` of every <style> element, in document order, except inert ones inside a <template>. */
function styleSheetsOf(document: Document): { text: string; media: string | undefined }[] {
  const sheets: { text: string; media: string | undefined }[] = [];
  const stack: ParentNode[] = [document];
  for (let node = stack.pop(); node; node = stack.pop()) {
    if (node.type === 'style') {
      // <style> holds raw text only: its children are text pieces.
      const text = node.children.map((child) => (child as Text).data).join('');
      sheets.push({ text, media: node.attribs.media });
      continue;
    }
    const children = node.children.filter(
      (child): child is Element =>
        child.type === 'style' || (child.type === 'tag' && (child as Element).name !== 'template'),
    );
    for (const child of children.reverse()) stack.push(child);
  }
  return sheets;
}
