import { blendOver, isColourOfBackground } from './colour-contrast.js';
import { black, parseCssColour, unknownColour, type ParsedColour, type Rgba } from './css-colour.js';
import { resolveLength, type LengthBasis } from '../css/css-length.js';
import { cssWideKeyword, takesParentValue } from '../css/css-wide-keywords.js';

/** How an element's text is painted, and over what. */
export interface TextPaint {
  colour: ParsedColour;
  /** -webkit-text-fill-color, which paints HTML text instead of `color` where set. */
  fill: ParsedColour | undefined;
  /** SVG's `fill`, which paints SVG text (initially black). */
  svgFill: ParsedColour;
  /** The colour behind the text: the nearest backgrounds, blended; unknown under an image. */
  backdrop: Rgba | typeof unknownColour;
  hasShadow: boolean;
  hasStroke: boolean;
  /** A filter, blend mode or background clipped to the text changes the colours in ways not computed here. */
  isPaintAltered: boolean;
}

export const initialPaint: TextPaint = {
  colour: black, fill: undefined, svgFill: black, backdrop: { r: 255, g: 255, b: 255, a: 1 }, hasShadow: false, hasStroke: false, isPaintAltered: false,
};


/** The paint of an element from its declarations (`read`) and its parent's paint. */
export function computePaint(read: (property: string) => string | undefined, parent: TextPaint, isDark: boolean, basis: LengthBasis): TextPaint {
  const colourValue = read('color');
  const colour = takesParentValue(colourValue) ? parent.colour : colourValue === 'initial' ? black : (parseCssColour(colourValue as string, parent.colour, isDark) ?? parent.colour);
  const paintOf = (value: string | undefined, inheritedValue: ParsedColour | undefined, initial: ParsedColour | undefined): ParsedColour | undefined => {
    if (takesParentValue(value)) return inheritedValue;
    const lower = (value as string).toLowerCase();
    if (lower === 'initial') return initial;
    if (lower === 'currentcolor') return colour;
    if (lower === 'none') return { r: 0, g: 0, b: 0, a: 0 };
    if (/^url\(/.test(lower) || /^(context-fill|context-stroke)$/.test(lower)) return unknownColour;
    return parseCssColour(lower, colour, isDark) ?? inheritedValue;
  };
  const fill = read('-webkit-text-fill-color')?.toLowerCase() === 'currentcolor' ? undefined : paintOf(read('-webkit-text-fill-color'), parent.fill, undefined);
  const shadow = read('text-shadow')?.toLowerCase();
  const stroke = read('-webkit-text-stroke-width');
  const filter = read('filter');
  const blend = read('mix-blend-mode');
  const clip = `${read('background-clip') ?? ''} ${read('-webkit-background-clip') ?? ''}`;
  return {
    colour,
    fill,
    svgFill: paintOf(read('fill'), parent.svgFill, black) ?? black,
    backdrop: backdropOf(read('background-color'), read('background-image'), colour, parent.backdrop, isDark),
    hasShadow: takesParentValue(shadow) ? parent.hasShadow : shadow !== 'none' && shadow !== 'initial',
    hasStroke: takesParentValue(stroke) ? parent.hasStroke : (resolveLength(stroke as string, basis) ?? 0) > 0,
    isPaintAltered:
      parent.isPaintAltered ||
      (filter !== undefined && !cssWideKeyword.test(filter) && !/^(none|(\s*(opacity|drop-shadow)\([^)]*\))+)$/i.test(filter.trim())) ||
      (blend !== undefined && !/^(normal|initial|inherit|unset)$/i.test(blend)) ||
      /\btext\b/i.test(clip),
  };
}

/**
 * Whether text with this paint (drawn at `opacity`, in SVG or not) cannot be seen against its
 * backdrop; false when it can, or when that cannot be told.
 */
export function isPaintInvisible(paint: TextPaint, opacity: number, isSvg: boolean, minOpacity: number): boolean {
  const ink = isSvg ? paint.svgFill : (paint.fill ?? paint.colour);
  // An outline or shadow draws the glyphs whatever their fill.
  if (ink === unknownColour || paint.hasShadow || paint.hasStroke || paint.isPaintAltered) return false;
  const alpha = ink.a * opacity;
  if (alpha < minOpacity) return true;
  if (paint.backdrop === unknownColour) return false;
  return isColourOfBackground(blendOver(ink, alpha, paint.backdrop), paint.backdrop);
}

/** The colour behind the element's text: its own background over its parent's; unknown under an image. */
function backdropOf(colourValue: string | undefined, image: string | undefined, colour: ParsedColour, parent: TextPaint['backdrop'], isDark: boolean): TextPaint['backdrop'] {
  if (image !== undefined && !/^(none|initial|unset|inherit)$/i.test(image)) return unknownColour;
  if (colourValue === undefined || cssWideKeyword.test(colourValue)) return parent;
  const background = parseCssColour(colourValue, colour, isDark);
  if (background === undefined) return parent;
  if (background === unknownColour) return unknownColour;
  if (background.a >= 0.99) return { ...background, a: 1 };
  if (background.a <= 0.01) return parent;
  return parent === unknownColour ? unknownColour : blendOver(background, background.a, parent);
}
