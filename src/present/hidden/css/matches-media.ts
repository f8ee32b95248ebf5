import { resolveLength } from './css-length.js';
import { splitComponents } from './parse-declarations.js';
import type { RenderContext } from '../render-context.js';

/**
 * Media Queries 4 evaluated for one render context. A query this cannot evaluate is false, as
 * the spec has a browser treat an unknown feature or a malformed query: the styles outside it
 * apply, and a rule that only a rare reader's setting would turn on is left out.
 */
export function matchesMedia(queryList: string, context: RenderContext): boolean {
  if (queryList.trim() === '') return true;
  const queries: string[][] = [[]];
  for (const part of splitComponents(queryList.toLowerCase())) {
    if (part === ',') queries.push([]);
    else queries[queries.length - 1]?.push(part);
  }
  return queries.some((words) => matchesQuery(words, context));
}

const screenTypes = new Set(['all', 'screen']);
const knownTypes = new Set([
  'all',
  'screen',
  'print',
  'speech',
  'tty',
  'tv',
  'projection',
  'handheld',
  'braille',
  'embossed',
  'aural',
]);
const reservedWords = new Set(['only', 'not', 'and', 'or', 'layer']);
const maxNesting = 8;

function matchesQuery(words: string[], context: RenderContext): boolean {
  if (words.length === 0) return false;
  const [first, second] = words;
  const isTyped =
    first !== undefined &&
    !first.startsWith('(') &&
    (first === 'only' || knownTypes.has(first) || (first === 'not' && second !== undefined && !second.startsWith('(')));
  if (!isTyped) return matchesCondition(words, context, 0) ?? false;
  let index = 0;
  const isNegated = words[0] === 'not';
  if (words[0] === 'not' || words[0] === 'only') index++;
  const type = words[index++];
  // An unknown media type matches nothing, so `not` an unknown type matches (Media Queries 4 §2.3);
  // a reserved word in its place makes the query invalid, which matches nothing either way.
  if (type === undefined || reservedWords.has(type) || type.startsWith('(')) return false;
  let result = screenTypes.has(type);
  if (index < words.length) {
    if (words[index] !== 'and') return false;
    const rest = words.slice(index + 1);
    if (rest.includes('or')) return false;
    const condition = matchesCondition(rest, context, 0);
    if (condition === undefined) return false;
    result = result && condition;
  }
  return isNegated ? !result : result;
}

/** `not (a)`, `(a) and (b) …`, `(a) or (b) …`; undefined when malformed. */
function matchesCondition(words: string[], context: RenderContext, depth: number): boolean | undefined {
  if (depth > maxNesting || words.length === 0) return undefined;
  if (words[0] === 'not')
    return words.length === 2 ? invert(matchesInParens(words[1] as string, context, depth)) : undefined;
  const joiner = words[1];
  if (words.length > 1 && joiner !== 'and' && joiner !== 'or') return undefined;
  const results: boolean[] = [];
  for (let i = 0; i < words.length; i += 2) {
    if (i > 0 && words[i - 1] !== joiner) return undefined;
    const result = matchesInParens(words[i] as string, context, depth);
    if (result === undefined) return undefined;
    results.push(result);
  }
  return joiner === 'or' ? results.some(Boolean) : results.every(Boolean);
}

function invert(value: boolean | undefined): boolean | undefined {
  return value === undefined ? undefined : !value;
}

function matchesInParens(group: string, context: RenderContext, depth: number): boolean | undefined {
  if (!group.startsWith('(') || !group.endsWith(')')) return undefined;
  const inner = group.slice(1, -1).trim();
  if (inner.startsWith('(') || inner.startsWith('not ') || inner.startsWith('not(')) {
    return matchesCondition(splitComponents(inner), context, depth + 1);
  }
  // An unknown or unevaluable feature is false, never an error that voids the whole list.
  return matchesFeature(inner, context) ?? false;
}

const rangeOperators = /(<=|>=|<|>|=)/;

function matchesFeature(feature: string, context: RenderContext): boolean | undefined {
  const colon = feature.indexOf(':');
  if (colon === -1 && rangeOperators.test(feature)) return matchesRange(feature, context);
  // Vendor spellings of the pixel-ratio features: -webkit-min-device-pixel-ratio, min--moz-device-pixel-ratio.
  const name = (colon === -1 ? feature : feature.slice(0, colon))
    .trim()
    .replace(/^-webkit-/, '')
    .replace(/^(min|max)--moz-/, '$1-');
  const value = colon === -1 ? undefined : feature.slice(colon + 1).trim();
  const prefix = /^(min-|max-)/.exec(name)?.[1];
  const base = prefix ? name.slice(prefix.length) : name;
  const actual = featureValue(base, context);
  if (actual === undefined) return undefined;
  // In a boolean context `none`, 0 and the `no-preference` of the prefers-* features are false (Media Queries 5 §11).
  if (value === undefined) return prefix ? undefined : actual !== 0 && actual !== 'none' && actual !== 'no-preference';
  const wanted = typeof actual === 'number' ? numericValue(base, value, context) : value;
  if (wanted === undefined) return undefined;
  if (typeof actual === 'string' || typeof wanted === 'string') return !prefix && actual === wanted;
  if (prefix === 'min-') return actual >= wanted;
  if (prefix === 'max-') return actual <= wanted;
  return actual === wanted;
}

function matchesRange(feature: string, context: RenderContext): boolean | undefined {
  const parts = feature.split(rangeOperators).map((p) => p.trim());
  if (parts.length !== 3 && parts.length !== 5) return undefined;
  const nameIndex = parts.findIndex(
    (p, i) => i % 2 === 0 && /^[a-z-]+$/.test(p) && featureValue(p, context) !== undefined,
  );
  if (nameIndex === -1) return undefined;
  const name = parts[nameIndex] as string;
  const actual = featureValue(name, context);
  if (typeof actual !== 'number') return undefined;
  const values = parts.map((p, i) => (i === nameIndex ? actual : i % 2 === 0 ? numericValue(name, p, context) : p));
  for (let i = 1; i < values.length; i += 2) {
    const [left, op, right] = [values[i - 1], values[i], values[i + 1]];
    if (typeof left !== 'number' || typeof right !== 'number') return undefined;
    const holds =
      op === '<'
        ? left < right
        : op === '<='
          ? left <= right
          : op === '>'
            ? left > right
            : op === '>='
              ? left >= right
              : left === right;
    if (!holds) return false;
  }
  return true;
}

function numericValue(feature: string, text: string, context: RenderContext): number | undefined {
  if (feature.endsWith('aspect-ratio')) {
    const [w, h] = text.split('/').map((p) => Number(p.trim()));
    return w !== undefined && Number.isFinite(w)
      ? w / (h !== undefined && Number.isFinite(h) && h !== 0 ? h : 1)
      : undefined;
  }
  if (feature.endsWith('resolution')) {
    const match = /^([\d.]+)(dppx|x|dpi|dpcm)$/.exec(text);
    if (!match) return undefined;
    const scale = match[2] === 'dpi' ? 1 / 96 : match[2] === 'dpcm' ? 2.54 / 96 : 1;
    return Number(match[1]) * scale;
  }
  if (feature.endsWith('pixel-ratio') || /^(color|color-index|monochrome|grid)$/.test(feature)) {
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

function featureValue(feature: string, c: RenderContext): number | string | undefined {
  switch (feature) {
    case 'width':
    case 'device-width':
      return c.width;
    case 'height':
    case 'device-height':
      return c.height;
    case 'aspect-ratio':
    case 'device-aspect-ratio':
      return c.width / c.height;
    case 'orientation':
      return c.height >= c.width ? 'portrait' : 'landscape';
    case 'resolution':
    case 'device-pixel-ratio':
      return c.pixelRatio;
    case 'prefers-color-scheme':
      return c.isDark ? 'dark' : 'light';
    case 'hover':
    case 'any-hover':
      return c.canHover ? 'hover' : 'none';
    case 'pointer':
    case 'any-pointer':
      return c.canHover ? 'fine' : 'coarse';
    case 'color':
      return 8;
    case 'color-index':
    case 'monochrome':
    case 'grid':
      return 0;
    case 'scripting':
      // Mail is rendered with scripts off everywhere.
      return 'none';
    case 'color-gamut':
      return 'srgb';
    case 'dynamic-range':
    case 'video-dynamic-range':
      return 'standard';
    case 'update':
      return 'fast';
    case 'display-mode':
      return 'browser';
    case 'overflow-block':
    case 'overflow-inline':
      return 'scroll';
    case 'prefers-reduced-motion':
    case 'prefers-reduced-transparency':
    case 'prefers-reduced-data':
    case 'prefers-contrast':
      return 'no-preference';
    case 'forced-colors':
    case 'inverted-colors':
      return 'none';
    default:
      return undefined;
  }
}
