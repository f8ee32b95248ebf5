import { resolveLength } from './css-length.js';
import { splitComponents, splitTopLevelCommas } from './parse-declarations.js';
import type { RenderContext } from '../render-context.js';

/**
 * Media Queries 4 for one render context. What this cannot evaluate is unknown (§3.2), and a query
 * that ends unknown, or is malformed, matches nothing, however negated: a `not` cannot turn
 * something this does not understand into a match.
 */
export function matchesMedia(queryList: string, context: RenderContext): boolean {
  if (queryList.trim() === '') return true;
  const queries = splitTopLevelCommas(queryList.toLowerCase()).map(splitComponents);
  return queries.some((query) => matchesQuery(query, context) === true);
}

/** Kleene's logic, as Media Queries 4 §3.2 has it: null is unknown. */
type Truth = boolean | null;

const screenTypes = new Set(['all', 'screen']);
const reservedWords = new Set(['only', 'not', 'and', 'or', 'layer']);
export const maxMediaNesting = 8;

/** Whether a query nests deeper than matchesMedia reads (matching nothing, unlike a browser): its block is named. */
export function nestsPastMediaReading(queryList: string): boolean {
  let depth = 0;
  for (const char of queryList) {
    if (char === '(') depth += 1;
    else if (char === ')') depth -= 1;
    if (depth > maxMediaNesting) return true;
  }
  return false;
}

/** A query's truth; undefined when it is malformed. */
function matchesQuery(words: string[], context: RenderContext): Truth | undefined {
  const [first, second] = words;
  if (first === undefined || first.startsWith('(') || (first === 'not' && second?.startsWith('(') === true))
    return matchesCondition(words, context, 0);
  // A media type, which matches or not; an unknown one matches nothing, so `not` an unknown type
  // matches (§2.3), while a reserved word in its place makes the query malformed.
  const isNegated = first === 'not';
  let index = isNegated || first === 'only' ? 1 : 0;
  const type = words[index++];
  if (type === undefined || reservedWords.has(type)) return undefined;
  let result: Truth = screenTypes.has(type);
  if (index < words.length) {
    if (words[index] !== 'and') return undefined;
    const rest = words.slice(index + 1);
    if (rest.includes('or')) return undefined;
    const condition = matchesCondition(rest, context, 0);
    if (condition === undefined) return undefined;
    result = and(result, condition);
  }
  return isNegated ? not(result) : result;
}

/** `not (a)`, `(a) and (b) …`, `(a) or (b) …`; undefined when malformed. */
function matchesCondition(words: string[], context: RenderContext, depth: number): Truth | undefined {
  if (depth > maxMediaNesting) return undefined;
  if (words[0] === 'not')
    return words.length === 2 ? not(matchesInParens(words[1] as string, context, depth)) : undefined;
  if (words.length % 2 === 0) return undefined;
  const joiner = words[1];
  if (joiner !== undefined && joiner !== 'and' && joiner !== 'or') return undefined;
  let result = matchesInParens(words[0] as string, context, depth);
  for (let i = 1; i < words.length && result !== undefined; i += 2) {
    const next = words[i] === joiner ? matchesInParens(words[i + 1] as string, context, depth) : undefined;
    result = next === undefined ? undefined : joiner === 'or' ? or(result, next) : and(result, next);
  }
  return result;
}

function not(value: Truth | undefined): Truth | undefined {
  return typeof value === 'boolean' ? !value : value;
}

function and(left: Truth, right: Truth): Truth {
  return left === false || right === false ? false : left === true && right === true ? true : null;
}

function or(left: Truth, right: Truth): Truth {
  return left === true || right === true ? true : left === false && right === false ? false : null;
}

/** `(condition)` or `(feature)`; undefined when the word is not parenthesised. */
function matchesInParens(group: string, context: RenderContext, depth: number): Truth | undefined {
  if (!group.startsWith('(') || !group.endsWith(')')) return undefined;
  const inner = group.slice(1, -1).trim();
  // Anything else in parentheses is <general-enclosed>: unknown, never an error that voids the list.
  if (inner.startsWith('(') || /^not\s/.test(inner))
    return matchesCondition(splitComponents(inner), context, depth + 1) ?? null;
  return matchesFeature(inner, context) ?? null;
}

const rangeOperators = /(<=|>=|<|>|=)/;
const comparisons: Readonly<Record<string, (left: number, right: number) => boolean>> = {
  '<': (left, right) => left < right,
  '<=': (left, right) => left <= right,
  '>': (left, right) => left > right,
  '>=': (left, right) => left >= right,
  '=': (left, right) => left === right,
};

/** A feature's truth; undefined when it is unknown or its value cannot be evaluated. */
function matchesFeature(feature: string, context: RenderContext): boolean | undefined {
  if (rangeOperators.test(feature)) return matchesRange(feature, context);
  const colon = feature.indexOf(':');
  // Vendor spellings of the pixel-ratio features: -webkit-min-device-pixel-ratio, min--moz-device-pixel-ratio.
  const name = (colon === -1 ? feature : feature.slice(0, colon))
    .trim()
    .replace(/^-webkit-/, '')
    // Stryker disable next-line Regex: no feature's name holds min- or max- but at its start
    .replace(/^(min|max)--moz-/, '$1-');
  const value = colon === -1 ? undefined : feature.slice(colon + 1).trim();
  // Stryker disable next-line Regex: no feature's name holds min- or max- but at its start
  const prefix = /^(min-|max-)/.exec(name)?.[1];
  const base = prefix ? name.slice(prefix.length) : name;
  const actual = featureValue(base, context);
  if (actual === undefined) return undefined;
  // In a boolean context `none`, 0 and the `no-preference` of the prefers-* features are false (Media Queries 5 §11).
  if (value === undefined) return prefix ? undefined : actual !== 0 && actual !== 'none' && actual !== 'no-preference';
  // min- and max- apply to range features only: `(min-orientation: portrait)` is unknown.
  if (typeof actual === 'string') return prefix ? undefined : actual === value;
  const wanted = numericValue(base, value, context);
  if (wanted === undefined) return undefined;
  if (prefix === 'min-') return actual >= wanted;
  if (prefix === 'max-') return actual <= wanted;
  return actual === wanted;
}

/** `(width < 600px)`, `(400px <= width < 1100px)`; undefined when malformed or not evaluable. */
function matchesRange(feature: string, context: RenderContext): boolean | undefined {
  const parts = feature.split(rangeOperators).map((p) => p.trim());
  if (parts.length !== 3 && parts.length !== 5) return undefined;
  const nameIndex = parts.findIndex((p) => typeof featureValue(p, context) === 'number');
  if (nameIndex === -1) return undefined;
  const name = parts[nameIndex] as string;
  const values = parts.map((p, i) =>
    i === nameIndex ? featureValue(name, context) : i % 2 === 0 ? numericValue(name, p, context) : p,
  );
  // One operand this cannot evaluate makes the whole range unknown, whichever comparison comes first.
  if (values.includes(undefined)) return undefined;
  for (let i = 1; i < values.length; i += 2) {
    const [left, op, right] = [values[i - 1] as number, values[i] as string, values[i + 1] as number];
    if (!comparisons[op]?.(left, right)) return false;
  }
  return true;
}

const countFeatures = new Set(['device-pixel-ratio', 'color', 'color-index', 'monochrome', 'grid']);

function numericValue(feature: string, text: string, context: RenderContext): number | undefined {
  if (feature.endsWith('aspect-ratio')) {
    // <ratio>: a number, or two with a `/` between them.
    const [width = '', height = '1', extra] = text.split('/');
    if (extra !== undefined || width === '') return undefined;
    const ratio = Number(width) / Number(height);
    return Number.isFinite(ratio) ? ratio : undefined;
  }
  if (feature === 'resolution') {
    const match = /^([\d.]+)(dppx|x|dpi|dpcm)$/.exec(text);
    if (!match) return undefined;
    const scale = match[2] === 'dpi' ? 1 / 96 : match[2] === 'dpcm' ? 2.54 / 96 : 1;
    return Number(match[1]) * scale;
  }
  if (countFeatures.has(feature)) {
    const number = Number(text);
    return Number.isFinite(number) ? number : undefined;
  }
  // Relative lengths in media queries use the initial font size and the screen (Media Queries 4 §1.3).
  return resolveLength(text, {
    fontPx: 16,
    rootFontPx: 16,
    percentOf: undefined,
    viewportWidth: context.width,
    viewportHeight: context.height,
    isQuirks: false,
  });
}

// Aliases share a line; a Map, so that `constructor` names no feature.
const featureValues = new Map(
  Object.entries<(c: RenderContext) => number | string>({
    'width device-width': (c) => c.width,
    'height device-height': (c) => c.height,
    'aspect-ratio device-aspect-ratio': (c) => c.width / c.height,
    orientation: (c) => (c.height >= c.width ? 'portrait' : 'landscape'),
    'resolution device-pixel-ratio': (c) => c.pixelRatio,
    'prefers-color-scheme': (c) => (c.isDark ? 'dark' : 'light'),
    'hover any-hover': (c) => (c.canHover ? 'hover' : 'none'),
    'pointer any-pointer': (c) => (c.canHover ? 'fine' : 'coarse'),
    color: () => 8,
    'color-index monochrome grid': () => 0,
    // scripting: mail is rendered with scripts off everywhere.
    'scripting forced-colors inverted-colors': () => 'none',
    'color-gamut': () => 'srgb',
    'dynamic-range video-dynamic-range': () => 'standard',
    update: () => 'fast',
    'display-mode': () => 'browser',
    'overflow-block overflow-inline': () => 'scroll',
    'prefers-reduced-motion prefers-reduced-transparency prefers-reduced-data prefers-contrast': () => 'no-preference',
  }).flatMap(([names, value]) => names.split(' ').map((name) => [name, value] as const)),
);

function featureValue(feature: string, context: RenderContext): number | string | undefined {
  return featureValues.get(feature)?.(context);
}
