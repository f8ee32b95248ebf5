import type { AnyNode, Element } from 'domhandler';
import { boxDisplayOf, boxHiding, offScreenPx, transformScale } from './box-hiding.js';
import type { Cascaded } from './css/cascade-declarations.js';
import { resolveLength, type LengthBasis } from './css/css-length.js';
import { longhandOf } from './css/css-shorthands.js';
import { cssWideKeyword, takesParentValue } from './css/css-wide-keywords.js';
import { functionCall, isCssNumber, splitComponents } from './css/parse-declarations.js';
import { decodeEscapes } from './css/property-name.js';
import type { HidingTechnique } from './hiding-technique.js';
import type { RenderContext } from './render-context.js';
import type { StyleMemo } from './css/style-memo.js';
import {
  inheritCustomProperties,
  resolveCssVariables,
  type CustomProperties,
  type VariableWork,
} from './css/resolve-css-variables.js';
import { computePaint, initialPaint, paintVisibility, type TextPaint } from './colour/text-paint.js';
import { isUnderstoodProperty } from './css/understood-properties.js';
import { svgHiding, type SvgBox } from './svg-hiding.js';
import { defaultDisplay, notRenderedElements, unassessedFallbackElements } from './css/user-agent-style.js';

/** Below 4 CSS px text is a smear; from 4px up it can be made out zoomed (mail's finest print is ~8px). */
export const minReadableFontPx = 4;
/** Text (or a subtree) drawn at under 2% opacity leaves at most ~5/255 of contrast: nothing shows. */
export const minOpacity = 0.02;
/** A blur radius past a fifth of the font size smears strokes into their neighbours. */
export const maxReadableBlurPerFontPx = 0.2;
/** Letter spacing below −0.3em draws each glyph over the one before it. */
export const minLetterSpacingPerFontPx = -0.3;

/** What an element passes on to its content in one render context. */
export interface RenderState {
  /** Set when the element's whole subtree is hidden. */
  hiddenBy: HidingTechnique | undefined;
  display: string;
  isVisible: boolean;
  /** Inside <svg> (and not inside its <foreignObject>): text is painted with `fill`. */
  isSvg: boolean;
  /** The nearest <svg>'s size from its attributes, when given in px. */
  svgBox: SvgBox | undefined;
  paint: TextPaint;
  fontPx: number;
  rootFontPx: number;
  /** Line height in px, or as a factor of the font size (unitless values inherit as the factor). */
  lineHeight: { px: number } | { factor: number } | undefined;
  isNoWrap: boolean;
  /** zoom and transform scale, multiplied down the tree. */
  scale: number;
  textIndentPx: number;
  /** The first line is indented out of sight (the threshold depends on the screen, hence stored). */
  isIndentedAway: boolean;
  opacity: number;
  custom: CustomProperties | undefined;
  /** Styling of this element or an ancestor that the detector cannot assess. */
  doubt: string | undefined;
  /** Styling of this element that may lay its box over other text (absolute position, a large shift). */
  overlay: string | undefined;
  /** The nearest box of fixed height that clips its overflow, with the characters it can show. */
  clip: { capacity: number } | undefined;
}

/** The state above the root element: black text, 16px, on white (what a mail client shows by default). */
export function rootRenderState(): RenderState {
  return {
    hiddenBy: undefined,
    display: 'block',
    isVisible: true,
    isSvg: false,
    svgBox: undefined,
    paint: initialPaint,
    fontPx: 16,
    rootFontPx: 16,
    lineHeight: undefined,
    isNoWrap: false,
    scale: 1,
    textIndentPx: 0,
    isIndentedAway: false,
    opacity: 1,
    custom: undefined,
    doubt: undefined,
    overlay: undefined,
    clip: undefined,
  };
}

const fontKeywords: Readonly<Record<string, number>> = {
  'xx-small': 9,
  'x-small': 10,
  small: 13,
  medium: 16,
  large: 18,
  'x-large': 24,
  'xx-large': 32,
  'xxx-large': 48,
};
// CSS Display 3 §2: the display keywords and their two-keyword forms (with the prefixed boxes mail still uses).
const displayValue =
  /^(none|contents|(inline|run-in|block)?\s*(flow|flow-root|table|flex|grid|ruby)?\s*(list-item)?|inline-(block|table|flex|grid)|table-(row-group|header-group|footer-group|row|cell|column-group|column|caption)|ruby-(base|text|base-container|text-container)|-webkit-(inline-)?box|-ms-(inline-)?flexbox)$/;

export interface StyleEnvironment {
  isQuirks: boolean;
  variables: VariableWork;
  memo: StyleMemo;
}

/** The element's state from its parent's and its cascaded declarations, in one render context. */
export function computeRenderState(
  element: Element,
  parent: RenderState,
  cascaded: Cascaded,
  context: RenderContext,
  environment: StyleEnvironment,
): RenderState {
  if (parent.hiddenBy) return parent;
  const { isQuirks, variables } = environment;
  const own = new Map<string, { value: string }>();
  const doubts: string[] = [];
  const doubt = (reason: string): number => doubts.push(reason);
  for (const [name, entry] of cascaded) {
    if (name.startsWith('--')) own.set(name, entry);
    else if (!isUnderstoodProperty(name)) doubt(name);
  }
  const custom = own.size > 0 ? inheritCustomProperties(parent.custom, own, variables) : parent.custom;
  const read = (property: string): string | undefined => {
    const entry = cascaded.get(property);
    if (!entry) return undefined;
    let value: string | undefined = entry.value;
    if (/var\(/i.test(value)) {
      value = variables.isSpent ? undefined : resolveCssVariables(value, (name) => custom?.get(name));
      if (value !== undefined && !variables.charge(value)) value = undefined;
    }
    // A var() that cannot be resolved makes the declaration behave as `unset` (CSS Variables §3.1).
    if (value === undefined) return 'unset';
    if (value.includes('\\')) value = decodeEscapes(value);
    return (entry.property === property ? value : longhandOf(entry.property, property, value))?.trim();
  };

  const declaredDisplay = keyword(read, 'display', displayValue, doubt);
  const display =
    declaredDisplay === 'inherit'
      ? parent.display
      : declaredDisplay === 'initial' || declaredDisplay === 'unset'
        ? 'inline'
        : declaredDisplay !== undefined && displayValue.test(declaredDisplay)
          ? declaredDisplay
          : defaultDisplay(element.name);

  const fontValue = read('font-size')?.toLowerCase();
  const viewport = { viewportWidth: context.width, viewportHeight: context.height, isQuirks };
  let fontPx = parent.fontPx;
  if (fontValue === 'initial') fontPx = 16;
  else if (fontValue && !cssWideKeyword.test(fontValue)) {
    const basis = { ...viewport, fontPx: parent.fontPx, rootFontPx: parent.rootFontPx, percentOf: parent.fontPx };
    const size =
      fontKeywords[fontValue] ??
      (fontValue === 'smaller'
        ? parent.fontPx / 1.2
        : fontValue === 'larger'
          ? parent.fontPx * 1.2
          : resolveLength(fontValue, basis));
    if (size !== undefined && size >= 0) fontPx = size;
    else doubt('font-size');
  }
  const rootFontPx = element.name === 'html' ? fontPx : parent.rootFontPx;
  const basis: LengthBasis = { ...viewport, fontPx, rootFontPx, percentOf: undefined };

  const filter = readFilter(read('filter'), basis, doubt);
  const opacity = parent.opacity * ownOpacity(read('opacity'), doubt) * filter.opacity;
  const zoomValue = read('zoom')?.trim();
  const zoom = Number.parseFloat(zoomValue ?? '');
  // zoom: 0 is read as 1 by browsers, like `normal`.
  const zoomFactor = Number.isFinite(zoom) && zoom > 0 ? (zoomValue?.endsWith('%') ? zoom / 100 : zoom) : 1;
  // A zoom a browser computes (calc(), min()) could shrink the text to nothing.
  if (zoomValue?.includes('(')) doubt('zoom');
  const visibility = keyword(read, 'visibility', /^(visible|hidden|collapse)$/, doubt);
  const indent = read('text-indent');
  const indentPx =
    indent === undefined || cssWideKeyword.test(indent)
      ? undefined
      : resolveLength(splitFirst(indent), { ...basis, percentOf: context.width });
  if (indent !== undefined && !cssWideKeyword.test(indent) && indentPx === undefined) doubt('text-indent');
  const textIndentPx = indent === 'initial' ? 0 : (indentPx ?? parent.textIndentPx);
  const isNoWrap = readNoWrap(read, parent.isNoWrap);
  const lineHeight = readLineHeight(read('line-height'), parent.lineHeight, basis, doubt);
  const lineHeightPx =
    lineHeight === undefined ? undefined : 'px' in lineHeight ? lineHeight.px : lineHeight.factor * fontPx;
  const far = Math.min(offScreenPx, context.width);
  const overlays: string[] = [];
  let clip = parent.clip;
  const isSvg = element.name === 'svg' || (parent.isSvg && element.name !== 'foreignobject');
  // Transforms apply to SVG (SVG 2 §8.5) whatever its display, and to an inline made a block by position or float.
  const transformDisplay = isSvg ? 'block' : boxDisplayOf(read, display);
  const box = boxHiding(read, display, basis, {
    doubt,
    overlay: (reason) => overlays.push(reason),
    lineHeightPx,
    textIndentPx,
    isNoWrap,
    clipCapacity: (capacity) => (clip = { capacity }),
    isTransformable: isSvg,
  });
  const cssPx = (property: string): number | undefined => {
    const value = read(property);
    return value === undefined ? undefined : resolveLength(value, basis);
  };
  const svg = isSvg
    ? svgHiding(element, parent.svgBox, fontPx, doubt, cssPx)
    : { hiddenBy: undefined, box: parent.svgBox };
  const paint = computePaint(read, parent.paint, context.isDark, basis);
  const hiddenBy =
    svg.hiddenBy ??
    subtreeHiding(element, cascaded, read, display, opacity, context, doubt) ??
    box ??
    (filter.blurPx > 0 && filter.blurPx >= fontPx * maxReadableBlurPerFontPx ? 'blurred' : undefined) ??
    letterSpacingHiding(read('letter-spacing'), basis, doubt) ??
    (textIndentPx >= context.width && isNoWrap ? 'off-screen' : undefined);
  if (hiddenBy === undefined && textIndentPx >= far && isNoWrap) doubt('text-indent');
  return {
    hiddenBy,
    display,
    isVisible:
      /^(initial|visible)$/.test(visibility ?? '') ||
      (!/^(hidden|collapse)$/.test(visibility ?? '') && parent.isVisible),
    isSvg,
    svgBox: svg.box,
    paint,
    fontPx,
    rootFontPx,
    lineHeight,
    isNoWrap,
    scale: parent.scale * zoomFactor * transformScale(read, transformDisplay),
    textIndentPx,
    isIndentedAway: textIndentPx <= -far,
    opacity,
    custom,
    doubt: parent.doubt ?? doubts[0],
    overlay: overlays[0],
    clip,
  };
}

/**
 * Whether lines do not wrap (so an indent can push a line out of sight): any of white-space,
 * text-wrap-mode or text-wrap saying so counts; only white-space's wrapping keywords, which every
 * client reads, end a parent's nowrap.
 */
function readNoWrap(read: (property: string) => string | undefined, parentNoWrap: boolean): boolean {
  const whiteSpace = read('white-space')?.toLowerCase();
  const values = [whiteSpace, read('text-wrap-mode')?.toLowerCase(), read('text-wrap')?.toLowerCase()];
  if (values.some((value) => value === 'pre' || /(?:^|\s)nowrap(?:\s|$)/.test(value ?? ''))) return true;
  return /^(normal|pre-wrap|pre-line|break-spaces|initial)$/.test(whiteSpace ?? '') ? false : parentNoWrap;
}

/** Why text directly inside an element with this state is hidden; undefined when seen or undecidable (textDoubt). */
export function textHiding(state: RenderState): HidingTechnique | undefined {
  if (state.hiddenBy) return state.hiddenBy;
  if (!state.isVisible) return 'visibility:hidden';
  if (state.fontPx < minReadableFontPx) return 'font-size:0';
  if (state.fontPx * state.scale < minReadableFontPx) return 'scaled-to-zero';
  if (state.isIndentedAway) return 'off-screen';
  return paintVisibility(state.paint, state.opacity, state.isSvg, minOpacity) === 'hidden'
    ? 'color-matches-background'
    : undefined;
}

/** For text textHiding calls visible: the styling that keeps the detector from knowing, if any. */
export function textDoubt(state: RenderState): string | undefined {
  if (state.doubt) return state.doubt;
  const paint = paintVisibility(state.paint, state.opacity, state.isSvg, minOpacity);
  return typeof paint === 'object' ? paint.doubt : undefined;
}

function subtreeHiding(
  element: Element,
  cascaded: Cascaded,
  read: (property: string) => string | undefined,
  display: string,
  opacity: number,
  context: RenderContext,
  doubt: (reason: string) => void,
): HidingTechnique | undefined {
  if (notRenderedElements.has(element.name)) return 'not-rendered';
  if (unassessedFallbackElements.has(element.name)) doubt(`<${element.name}> fallback content`);
  if (element.name === 'title') return 'title';
  if (isInClosedDetails(element)) return 'closed-details';
  if (display === 'none') return cascaded.get('display')?.technique ?? 'display:none';
  if (keyword(read, 'content-visibility', /^(visible|auto|hidden)$/, doubt) === 'hidden')
    return cascaded.get('content-visibility')?.technique ?? 'content-visibility:hidden';
  // Outlook on Windows, a desktop client without media queries, hides the subtree; every other client shows it.
  if (context.name === 'desktop' && read('mso-hide')?.toLowerCase() === 'all')
    doubt('mso-hide:all (hidden in Outlook only)');
  if (opacity < minOpacity) return 'opacity:0';
  return undefined;
}

/** A keyword property's value, lowercase; a value that is none of its `known` keywords is named. */
function keyword(
  read: (property: string) => string | undefined,
  property: string,
  known: RegExp,
  doubt: (reason: string) => void,
): string | undefined {
  const value = read(property)?.toLowerCase();
  if (value !== undefined && !cssWideKeyword.test(value) && !known.test(value)) doubt(property);
  return value;
}

const firstSummaries = new WeakMap<Element, AnyNode | undefined>();

/** Whether `node` is a closed <details> element, which shows only its first <summary> (HTML §4.11.1). */
export function isClosedDetails(node: AnyNode | null): node is Element {
  return node?.type === 'tag' && (node as Element).name === 'details' && (node as Element).attribs.open === undefined;
}

function isInClosedDetails(element: Element): boolean {
  const parent = element.parent;
  if (!isClosedDetails(parent)) return false;
  if (!firstSummaries.has(parent))
    firstSummaries.set(
      parent,
      parent.children.find((child) => child.type === 'tag' && (child as Element).name === 'summary'),
    );
  return firstSummaries.get(parent) !== element;
}

function number(text: string | undefined): number | undefined {
  if (text === undefined || cssWideKeyword.test(text)) return undefined;
  if (!isCssNumber(text.trim())) return undefined;
  const value = Number.parseFloat(text);
  return Number.isFinite(value) ? Math.min(1, Math.max(0, text.trim().endsWith('%') ? value / 100 : value)) : undefined;
}

function ownOpacity(opacity: string | undefined, doubt: (reason: string) => void): number {
  if (opacity === undefined || cssWideKeyword.test(opacity)) return 1;
  const value = number(opacity);
  if (value === undefined) doubt('opacity');
  return value ?? 1;
}

// Filters that keep the contrast between text and its background: hue, saturation, sepia, a shadow.
const keptContrastFilters = /^(grayscale|sepia|hue-rotate|saturate|drop-shadow)$/;

/** filter: opacity() multiplies, blur() is measured, the filters that keep contrast pass; any other is named. */
function readFilter(
  value: string | undefined,
  basis: LengthBasis,
  doubt: (reason: string) => void,
): { opacity: number; blurPx: number } {
  const result = { opacity: 1, blurPx: 0 };
  if (value === undefined || cssWideKeyword.test(value) || value.trim().toLowerCase() === 'none') return result;
  for (const part of splitComponents(value)) {
    const call = functionCall(part);
    if (call?.name === 'opacity') {
      const amount = call.args.trim() === '' ? 0 : number(call.args.trim());
      if (amount === undefined) doubt('filter');
      else result.opacity *= amount;
    } else if (call?.name === 'blur') {
      const radius = call.args.trim() === '' ? 0 : resolveLength(call.args, basis);
      if (radius === undefined) doubt('filter');
      else result.blurPx += radius;
    } else if (!call || !keptContrastFilters.test(call.name)) {
      doubt(`filter: ${call?.name ?? 'url'}`);
    }
  }
  return result;
}

function readLineHeight(
  value: string | undefined,
  parent: RenderState['lineHeight'],
  basis: LengthBasis,
  doubt: (reason: string) => void,
): RenderState['lineHeight'] {
  if (takesParentValue(value)) return parent;
  const lower = (value as string).toLowerCase();
  if (lower === 'normal' || lower === 'initial') return undefined;
  if (/^[+-]?(\d+\.?\d*|\.\d+)$/.test(lower)) return { factor: Number(lower) };
  const px = resolveLength(lower, { ...basis, percentOf: basis.fontPx, isQuirks: false });
  if (px === undefined) {
    doubt('line-height');
    return parent;
  }
  return { px };
}

function letterSpacingHiding(
  value: string | undefined,
  basis: LengthBasis,
  doubt: (reason: string) => void,
): HidingTechnique | undefined {
  if (value === undefined || cssWideKeyword.test(value) || value.toLowerCase() === 'normal') return undefined;
  const px = resolveLength(value, { ...basis, percentOf: basis.fontPx });
  if (px === undefined) {
    doubt('letter-spacing');
    return undefined;
  }
  return px <= basis.fontPx * minLetterSpacingPerFontPx ? 'letters-overlapped' : undefined;
}

function splitFirst(value: string): string {
  return value.split(/\s+(?![^(]*\))/)[0] ?? value;
}
