import type { AnyNode, Element } from 'domhandler';
import { boxHiding, offScreenPx } from './box-hiding.js';
import type { Cascaded } from './cascade-declarations.js';
import { blendOver, isColourOfBackground } from './colour-contrast.js';
import { black, parseCssColour, unknownColour, white, type ParsedColour, type Rgba } from './css-colour.js';
import { resolveLength } from './css-length.js';
import { longhandOf } from './css-shorthands.js';
import type { HidingTechnique } from './hiding-technique.js';
import type { RenderContext } from './render-context.js';
import { inheritCustomProperties, resolveCssVariables, type CustomProperties, type VariableWork } from './resolve-css-variables.js';
import { defaultDisplay, notRenderedElements } from './user-agent-style.js';

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
  colour: ParsedColour;
  /** -webkit-text-fill-color, which paints text instead of `color` where set. */
  fill: ParsedColour | undefined;
  fontPx: number;
  rootFontPx: number;
  textIndentPx: number;
  /** The first line is indented out of sight (the threshold depends on the screen, hence stored). */
  isIndentedAway: boolean;
  backdrop: Rgba | typeof unknownColour;
  opacity: number;
  hasShadow: boolean;
  hasStroke: boolean;
  custom: CustomProperties | undefined;
}

/** The state above the root element: black text, 16px, on white (what a mail client shows by default). */
export function rootRenderState(): RenderState {
  return {
    hiddenBy: undefined, display: 'block', isVisible: true, colour: black, fill: undefined, fontPx: 16, rootFontPx: 16,
    textIndentPx: 0, isIndentedAway: false, backdrop: white, opacity: 1, hasShadow: false, hasStroke: false, custom: undefined,
  };
}

const fontKeywords: Readonly<Record<string, number>> = {
  'xx-small': 9, 'x-small': 10, small: 13, medium: 16, large: 18, 'x-large': 24, 'xx-large': 32, 'xxx-large': 48,
};
const wideKeyword = /^(inherit|initial|unset|revert|revert-layer)$/i;

/** What stays the same for every element of one analysis. */
export interface StyleEnvironment {
  isQuirks: boolean;
  variables: VariableWork;
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
  const inherited = (value: string | undefined): boolean => value === undefined || /^(inherit|unset)$/i.test(value);

  const displayValue = read('display')?.toLowerCase();
  const display =
    displayValue === undefined || /^(revert|revert-layer)$/.test(displayValue) ? defaultDisplay(element.name)
    : displayValue === 'inherit' ? parent.display
    : displayValue === 'initial' || displayValue === 'unset' ? 'inline'
    : displayValue;

  const fontValue = read('font-size')?.toLowerCase();
  let fontPx = parent.fontPx;
  if (fontValue === 'initial') fontPx = 16;
  else if (fontValue && !wideKeyword.test(fontValue)) {
    const basis = { fontPx: parent.fontPx, rootFontPx: parent.rootFontPx, percentOf: parent.fontPx, viewportWidth: context.width, viewportHeight: context.height, isQuirks };
    const size = fontKeywords[fontValue] ?? (fontValue === 'smaller' ? parent.fontPx / 1.2 : fontValue === 'larger' ? parent.fontPx * 1.2 : resolveLength(fontValue, basis));
    if (size !== undefined && size >= 0) fontPx = size;
  }
  const rootFontPx = element.name === 'html' ? fontPx : parent.rootFontPx;
  const basis = { fontPx, rootFontPx, percentOf: undefined, viewportWidth: context.width, viewportHeight: context.height, isQuirks };

  const colourValue = read('color');
  const colour = inherited(colourValue) ? parent.colour : colourValue === 'initial' ? black : (parseCssColour(colourValue as string, parent.colour, context.isDark) ?? parent.colour);
  const fillValue = read('-webkit-text-fill-color');
  const fill = inherited(fillValue) ? parent.fill : fillValue === 'initial' || fillValue?.toLowerCase() === 'currentcolor' ? undefined : (parseCssColour(fillValue as string, colour, context.isDark) ?? parent.fill);

  const opacity = parent.opacity * ownOpacity(read('opacity'), read('filter'));
  const hiddenBy = subtreeHiding(element, cascaded, read, display, opacity, basis);
  const visibility = read('visibility')?.toLowerCase();
  const shadow = read('text-shadow')?.toLowerCase();
  const stroke = read('-webkit-text-stroke-width');
  const indent = read('text-indent');
  const indentPx = indent === undefined || wideKeyword.test(indent) ? undefined : resolveLength(splitFirst(indent), { ...basis, percentOf: context.width });
  const textIndentPx = indent === 'initial' ? 0 : (indentPx ?? parent.textIndentPx);
  return {
    hiddenBy,
    display,
    isVisible: inherited(visibility) ? parent.isVisible : visibility === 'initial' || visibility === 'visible' ? true : visibility === 'hidden' || visibility === 'collapse' ? false : parent.isVisible,
    colour,
    fill,
    fontPx,
    rootFontPx,
    textIndentPx,
    isIndentedAway: textIndentPx <= -Math.min(offScreenPx, context.width),
    backdrop: backdropOf(read('background-color'), read('background-image'), colour, parent.backdrop, context.isDark),
    opacity,
    hasShadow: inherited(shadow) ? parent.hasShadow : shadow !== 'none' && shadow !== 'initial',
    hasStroke: inherited(stroke) ? parent.hasStroke : (resolveLength(stroke as string, basis) ?? 0) > 0,
    custom,
  };
}

/** Why text directly inside an element with this state is hidden, or undefined when a person sees it. */
export function textHiding(state: RenderState): HidingTechnique | undefined {
  if (state.hiddenBy) return state.hiddenBy;
  if (!state.isVisible) return 'visibility:hidden';
  if (state.fontPx < minReadableFontPx) return 'font-size:0';
  if (state.isIndentedAway) return 'off-screen';
  const paint = state.fill ?? state.colour;
  // An outline or shadow draws the glyphs whatever their fill.
  if (paint === unknownColour || state.hasShadow || state.hasStroke) return undefined;
  const alpha = paint.a * state.opacity;
  if (alpha < minOpacity) return 'color-matches-background';
  if (state.backdrop === unknownColour) return undefined;
  return isColourOfBackground(blendOver(paint, alpha, state.backdrop), state.backdrop) ? 'color-matches-background' : undefined;
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
    if (text === undefined || wideKeyword.test(text)) return undefined;
    const value = Number.parseFloat(text);
    return Number.isFinite(value) ? Math.min(1, Math.max(0, text.trim().endsWith('%') ? value / 100 : value)) : undefined;
  };
  let result = number(opacity) ?? 1;
  const call = filter ? /opacity\(\s*([^)]*)\)/i.exec(filter) : null;
  if (call) result *= number(call[1]) ?? 1;
  return result;
}

/** The colour behind the element's text: its own background over its parent's; unknown under an image. */
function backdropOf(colourValue: string | undefined, image: string | undefined, colour: ParsedColour, parent: RenderState['backdrop'], isDark: boolean): RenderState['backdrop'] {
  if (image !== undefined && !/^(none|initial|unset|inherit)$/i.test(image)) return unknownColour;
  if (colourValue === undefined || wideKeyword.test(colourValue)) return parent;
  const background = parseCssColour(colourValue, colour, isDark);
  if (background === undefined) return parent;
  if (background === unknownColour) return unknownColour;
  if (background.a >= 0.99) return { ...background, a: 1 };
  if (background.a <= 0.01) return parent;
  return parent === unknownColour ? unknownColour : blendOver(background, background.a, parent);
}

function splitFirst(value: string): string {
  return value.split(/\s+(?![^(]*\))/)[0] ?? value;
}
