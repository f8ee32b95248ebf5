import type { AnyNode, Element } from 'domhandler';
import { boxHiding, offScreenPx, transformScale } from './box-hiding.js';
import type { Cascaded } from './css/cascade-declarations.js';
import { resolveLength } from './css/css-length.js';
import { longhandOf } from './css/css-shorthands.js';
import { cssWideKeyword, takesParentValue } from './css/css-wide-keywords.js';
import type { HidingTechnique } from './hiding-technique.js';
import type { RenderContext } from './render-context.js';
import type { StyleMemo } from './css/style-memo.js';
import { inheritCustomProperties, resolveCssVariables, type CustomProperties, type VariableWork } from './css/resolve-css-variables.js';
import { computePaint, initialPaint, isPaintInvisible, type TextPaint } from './colour/text-paint.js';
import { defaultDisplay, notRenderedElements } from './css/user-agent-style.js';

/**
 * Below 4 CSS px a line of text is a one- or two-pixel smear on an ordinary screen; from 4px up it
 * can still be made out zoomed or on a dense phone screen. Mail's smallest real fine print is ~8px.
 */
export const minReadableFontPx = 4;
/** Text (or a subtree) drawn at under 2% opacity leaves at most ~5/255 of contrast: nothing shows. */
export const minOpacity = 0.02;

/** What an element passes on to its content in one render context. */
export interface RenderState {
  /** Set when the element's whole subtree is hidden (display:none, opacity:0, a zero-size box, …). */
  hiddenBy: HidingTechnique | undefined;
  display: string;
  isVisible: boolean;
  /** Inside <svg> (and not inside its <foreignObject>): text is painted with `fill`. */
  isSvg: boolean;
  paint: TextPaint;
  fontPx: number;
  rootFontPx: number;
  /** zoom and transform scale, multiplied down the tree. */
  scale: number;
  textIndentPx: number;
  /** The first line is indented out of sight (the threshold depends on the screen, hence stored). */
  isIndentedAway: boolean;
  opacity: number;
  custom: CustomProperties | undefined;
}

/** The state above the root element: black text, 16px, on white (what a mail client shows by default). */
export function rootRenderState(): RenderState {
  return {
    hiddenBy: undefined, display: 'block', isVisible: true, isSvg: false, paint: initialPaint, fontPx: 16, rootFontPx: 16, scale: 1,
    textIndentPx: 0, isIndentedAway: false, opacity: 1, custom: undefined,
  };
}

const fontKeywords: Readonly<Record<string, number>> = {
  'xx-small': 9, 'x-small': 10, small: 13, medium: 16, large: 18, 'x-large': 24, 'xx-large': 32, 'xxx-large': 48,
};
// CSS Display 3 §2: the display keywords and their two-keyword forms (with the prefixed boxes mail still uses).
const displayValue = /^(none|contents|(inline|run-in|block)?\s*(flow|flow-root|table|flex|grid|ruby)?\s*(list-item)?|inline-(block|table|flex|grid)|table-(row-group|header-group|footer-group|row|cell|column-group|column|caption)|ruby-(base|text|base-container|text-container)|-webkit-(inline-)?box|-ms-(inline-)?flexbox)$/;

/** What stays the same for every element of one analysis. */
export interface StyleEnvironment {
  isQuirks: boolean;
  variables: VariableWork;
  memo: StyleMemo;
}

/** The element's state from its parent's and its cascaded declarations, in one render context. */
export function computeRenderState(element: Element, parent: RenderState, cascaded: Cascaded, context: RenderContext, environment: StyleEnvironment): RenderState {
  if (parent.hiddenBy) return parent;
  const { isQuirks, variables } = environment;
  const own = new Map<string, { value: string }>();
  for (const [name, entry] of cascaded) if (name.startsWith('--')) own.set(name, entry);
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
    return (entry.property === property ? value : longhandOf(entry.property, property, value))?.trim();
  };

  const declaredDisplay = read('display')?.toLowerCase();
  const display =
    declaredDisplay === 'inherit' ? parent.display
    : declaredDisplay === 'initial' || declaredDisplay === 'unset' ? 'inline'
    : declaredDisplay !== undefined && displayValue.test(declaredDisplay) ? declaredDisplay
    : defaultDisplay(element.name);

  const fontValue = read('font-size')?.toLowerCase();
  let fontPx = parent.fontPx;
  if (fontValue === 'initial') fontPx = 16;
  else if (fontValue && !cssWideKeyword.test(fontValue)) {
    const basis = { fontPx: parent.fontPx, rootFontPx: parent.rootFontPx, percentOf: parent.fontPx, viewportWidth: context.width, viewportHeight: context.height, isQuirks };
    const size = fontKeywords[fontValue] ?? (fontValue === 'smaller' ? parent.fontPx / 1.2 : fontValue === 'larger' ? parent.fontPx * 1.2 : resolveLength(fontValue, basis));
    if (size !== undefined && size >= 0) fontPx = size;
  }
  const rootFontPx = element.name === 'html' ? fontPx : parent.rootFontPx;
  const basis = { fontPx, rootFontPx, percentOf: undefined, viewportWidth: context.width, viewportHeight: context.height, isQuirks };

  const opacity = parent.opacity * ownOpacity(read('opacity'), read('filter'));
  const zoom = Number.parseFloat(read('zoom') ?? '');
  // zoom: 0 is read as 1 by browsers, like `normal`.
  const zoomFactor = Number.isFinite(zoom) && zoom > 0 ? (read('zoom')?.trim().endsWith('%') ? zoom / 100 : zoom) : 1;
  const visibility = read('visibility')?.toLowerCase();
  const indent = read('text-indent');
  const indentPx = indent === undefined || cssWideKeyword.test(indent) ? undefined : resolveLength(splitFirst(indent), { ...basis, percentOf: context.width });
  const textIndentPx = indent === 'initial' ? 0 : (indentPx ?? parent.textIndentPx);
  return {
    hiddenBy: subtreeHiding(element, cascaded, read, display, opacity, basis),
    display,
    isVisible: takesParentValue(visibility) ? parent.isVisible : visibility === 'initial' || visibility === 'visible' ? true : visibility === 'hidden' || visibility === 'collapse' ? false : parent.isVisible,
    isSvg: element.name === 'svg' || (parent.isSvg && element.name !== 'foreignobject'),
    paint: computePaint(read, parent.paint, context.isDark, basis),
    fontPx,
    rootFontPx,
    scale: parent.scale * zoomFactor * transformScale(read, display),
    textIndentPx,
    isIndentedAway: textIndentPx <= -Math.min(offScreenPx, context.width),
    opacity,
    custom,
  };
}

/** Why text directly inside an element with this state is hidden, or undefined when a person sees it. */
export function textHiding(state: RenderState): HidingTechnique | undefined {
  if (state.hiddenBy) return state.hiddenBy;
  if (!state.isVisible) return 'visibility:hidden';
  if (state.fontPx < minReadableFontPx) return 'font-size:0';
  if (state.fontPx * state.scale < minReadableFontPx) return 'scaled-to-zero';
  if (state.isIndentedAway) return 'off-screen';
  return isPaintInvisible(state.paint, state.opacity, state.isSvg, minOpacity) ? 'color-matches-background' : undefined;
}

function subtreeHiding(
  element: Element,
  cascaded: Cascaded,
  read: (property: string) => string | undefined,
  display: string,
  opacity: number,
  basis: Parameters<typeof boxHiding>[2],
): HidingTechnique | undefined {
  if (notRenderedElements.has(element.name)) return 'not-rendered';
  if (element.name === 'title') return 'title';
  if (isInClosedDetails(element)) return 'closed-details';
  if (display === 'none') return cascaded.get('display')?.technique ?? 'display:none';
  if (read('content-visibility')?.toLowerCase() === 'hidden') return cascaded.get('content-visibility')?.technique ?? 'content-visibility:hidden';
  if (opacity < minOpacity) return 'opacity:0';
  return boxHiding(read, display, basis);
}

const firstSummaries = new WeakMap<Element, AnyNode | undefined>();

/** Whether `node` is a closed <details> element, which shows only its first <summary> (HTML §4.11.1). */
export function isClosedDetails(node: AnyNode | null): node is Element {
  return node?.type === 'tag' && (node as Element).name === 'details' && (node as Element).attribs.open === undefined;
}

function isInClosedDetails(element: Element): boolean {
  const parent = element.parent;
  if (!isClosedDetails(parent)) return false;
  if (!firstSummaries.has(parent)) firstSummaries.set(parent, parent.children.find((child) => child.type === 'tag' && (child as Element).name === 'summary'));
  return firstSummaries.get(parent) !== element;
}

function ownOpacity(opacity: string | undefined, filter: string | undefined): number {
  const number = (text: string | undefined): number | undefined => {
    if (text === undefined || cssWideKeyword.test(text)) return undefined;
    const value = Number.parseFloat(text);
    return Number.isFinite(value) ? Math.min(1, Math.max(0, text.trim().endsWith('%') ? value / 100 : value)) : undefined;
  };
  let result = number(opacity) ?? 1;
  const call = filter ? /opacity\(\s*([^)]*)\)/i.exec(filter) : null;
  if (call) result *= number(call[1]) ?? 1;
  return result;
}

function splitFirst(value: string): string {
  return value.split(/\s+(?![^(]*\))/)[0] ?? value;
}
