import { blendOver, isColourOfBackground } from './colour-contrast.js';
import { black, parseCssColour, unknownColour, type ParsedColour, type Rgba } from './css-colour.js';
import { resolveLength, type LengthBasis } from '../css/css-length.js';
import { cssWideKeyword, takesParentValue } from '../css/css-wide-keywords.js';
import { splitComponents } from '../css/parse-declarations.js';

/** How an element's text is painted, and over what. */
export interface TextPaint {
  colour: ParsedColour;
  /** -webkit-text-fill-color, which paints HTML text instead of `color` where set. */
  fill: ParsedColour | undefined;
  /** SVG's `fill`, which paints SVG text (initially black). */
  svgFill: ParsedColour;
  /** The colour behind the text: the nearest backgrounds, blended; unknown under an image without a colour of its own. */
  backdrop: Rgba | typeof unknownColour;
  /** The backdrop is a background image's fallback colour: what shows behind the text with images on is not known. */
  isUnderImage: boolean;
  /** A text shadow that draws the glyphs where a person can see them. */
  hasShadow: boolean;
  /** An outline of the glyphs (-webkit-text-stroke) in a colour that shows. */
  hasStroke: boolean;
  /** The property that changes the colours in a way not computed here (a blend mode, a background clipped to the text). */
  alteredBy: string | undefined;
  /** A shadow or stroke whose value could not be read. */
  unreadable: string | undefined;
}

export const initialPaint: TextPaint = {
  colour: black,
  fill: undefined,
  svgFill: black,
  backdrop: { r: 255, g: 255, b: 255, a: 1 },
  isUnderImage: false,
  hasShadow: false,
  hasStroke: false,
  alteredBy: undefined,
  unreadable: undefined,
};

/** A shadow further out than this draws its copy of the text off the screen. */
const maxShadowOffsetPx = 500;

/** The paint of an element from its declarations (`read`) and its parent's paint. */
export function computePaint(
  read: (property: string) => string | undefined,
  parent: TextPaint,
  isDark: boolean,
  basis: LengthBasis,
): TextPaint {
  const colourValue = read('color');
  const colour = takesParentValue(colourValue)
    ? parent.colour
    : colourValue === 'initial'
      ? black
      : (parseCssColour(colourValue as string, parent.colour, isDark) ?? parent.colour);
  const paintOf = (
    value: string | undefined,
    inheritedValue: ParsedColour | undefined,
    initial: ParsedColour | undefined,
  ): ParsedColour | undefined => {
    if (takesParentValue(value)) return inheritedValue;
    const lower = (value as string).toLowerCase();
    if (lower === 'initial') return initial;
    if (lower === 'currentcolor') return colour;
    if (lower === 'none') return { r: 0, g: 0, b: 0, a: 0 };
    if (/^url\(/.test(lower) || /^(context-fill|context-stroke)$/.test(lower)) return unknownColour;
    return parseCssColour(lower, colour, isDark) ?? inheritedValue;
  };
  const fill =
    read('-webkit-text-fill-color')?.toLowerCase() === 'currentcolor'
      ? undefined
      : paintOf(read('-webkit-text-fill-color'), parent.fill, undefined);
  const blend = read('mix-blend-mode');
  const clip = `${read('background-clip') ?? ''} ${read('-webkit-background-clip') ?? ''}`;
  const { backdrop, isUnderImage } = backdropOf(
    read('background-color'),
    read('background-image'),
    colour,
    parent,
    isDark,
  );
  const filter = read('filter');
  const shows = (ink: ParsedColour | undefined): boolean | undefined => {
    if (ink === undefined || ink === unknownColour) return undefined;
    if (ink.a < 0.02) return false;
    return backdrop === unknownColour ? undefined : !isColourOfBackground(blendOver(ink, ink.a, backdrop), backdrop);
  };
  const shadow = shadowOf(read('text-shadow'), parent.hasShadow, colour, isDark, basis, shows);
  const stroke = strokeOf(
    read('-webkit-text-stroke-width'),
    read('-webkit-text-stroke-color'),
    parent.hasStroke,
    colour,
    isDark,
    basis,
    shows,
  );
  return {
    colour,
    fill,
    svgFill: paintOf(read('fill'), parent.svgFill, black) ?? black,
    backdrop,
    isUnderImage,
    hasShadow: shadow.draws,
    hasStroke: stroke.draws,
    alteredBy:
      parent.alteredBy ??
      (blend !== undefined && !/^(normal|initial|inherit|unset)$/i.test(blend)
        ? 'mix-blend-mode'
        : /\btext\b/i.test(clip)
          ? 'background-clip: text'
          : filter !== undefined &&
              !cssWideKeyword.test(filter) &&
              !/^(none|(\s*(opacity|blur|drop-shadow|grayscale|sepia|hue-rotate|saturate)\([^)]*\))+)$/i.test(
                filter.trim(),
              )
            ? 'filter'
            : undefined),
    unreadable: shadow.unreadable ?? stroke.unreadable ?? parent.unreadable,
  };
}

/**
 * Whether text with this paint (drawn at `opacity`, in SVG or not) can be seen against its
 * backdrop: 'hidden', 'visible', or the property that keeps this from being told.
 */
export function paintVisibility(
  paint: TextPaint,
  opacity: number,
  isSvg: boolean,
  minOpacity: number,
): 'hidden' | 'visible' | { doubt: string } {
  const ink = isSvg ? paint.svgFill : (paint.fill ?? paint.colour);
  if (paint.alteredBy) return { doubt: paint.alteredBy };
  if (paint.unreadable) return { doubt: paint.unreadable };
  // An outline or a shadow that shows draws the glyphs whatever their fill.
  if (paint.hasShadow || paint.hasStroke) return 'visible';
  if (ink === unknownColour)
    return { doubt: isSvg ? 'fill' : paint.fill !== undefined ? '-webkit-text-fill-color' : 'color' };
  const alpha = ink.a * opacity;
  if (alpha < minOpacity) return 'hidden';
  if (paint.backdrop === unknownColour) return { doubt: 'background-image' };
  if (!isColourOfBackground(blendOver(ink, alpha, paint.backdrop), paint.backdrop)) return 'visible';
  return paint.isUnderImage ? { doubt: 'background-image' } : 'hidden';
}

type Shows = (ink: ParsedColour | undefined) => boolean | undefined;

/** Whether any of the text's shadows is drawn near the text in a colour that shows (a transparent or far-off shadow draws nothing a person sees). */
function shadowOf(
  value: string | undefined,
  inherited: boolean,
  colour: ParsedColour,
  isDark: boolean,
  basis: LengthBasis,
  shows: Shows,
): { draws: boolean; unreadable?: string } {
  if (takesParentValue(value)) return { draws: inherited };
  const lower = (value as string).toLowerCase().trim();
  if (lower === 'none' || lower === 'initial') return { draws: false };
  let draws = false;
  for (const layer of splitLayers(lower)) {
    const lengths: number[] = [];
    let ink: ParsedColour | undefined = colour;
    for (const part of layer) {
      const length = resolveLength(part, basis);
      if (length !== undefined) lengths.push(length);
      else {
        ink = parseCssColour(part, colour, isDark);
        if (ink === undefined) return { draws: true, unreadable: 'text-shadow' };
      }
    }
    if (lengths.length < 2 || lengths.length > 3) return { draws: true, unreadable: 'text-shadow' };
    const seen = shows(ink);
    if (seen === undefined) return { draws: true, unreadable: 'text-shadow' };
    if (
      seen &&
      Math.abs(lengths[0] as number) < maxShadowOffsetPx &&
      Math.abs(lengths[1] as number) < maxShadowOffsetPx
    )
      draws = true;
  }
  return { draws };
}

function strokeOf(
  width: string | undefined,
  colourValue: string | undefined,
  inherited: boolean,
  colour: ParsedColour,
  isDark: boolean,
  basis: LengthBasis,
  shows: Shows,
): { draws: boolean; unreadable?: string } {
  if (width === undefined && colourValue === undefined) return { draws: inherited };
  const px = width === undefined || cssWideKeyword.test(width) ? 0 : resolveLength(width, basis);
  if (px === undefined) return { draws: true, unreadable: '-webkit-text-stroke' };
  if (px <= 0) return { draws: false };
  const ink =
    colourValue === undefined || cssWideKeyword.test(colourValue)
      ? colour
      : parseCssColour(colourValue, colour, isDark);
  const seen = shows(ink);
  return seen === undefined ? { draws: true, unreadable: '-webkit-text-stroke' } : { draws: seen };
}

function splitLayers(value: string): string[][] {
  const layers: string[][] = [[]];
  for (const part of splitComponents(value)) {
    if (part === ',') layers.push([]);
    else layers[layers.length - 1]?.push(part);
  }
  return layers;
}

/**
 * The colour behind the element's text: its own background over its parent's. Under an image,
 * the background colour the same element gives (mail sets one for clients that block images),
 * marked as under an image; unknown without one.
 */
function backdropOf(
  colourValue: string | undefined,
  image: string | undefined,
  colour: ParsedColour,
  parent: TextPaint,
  isDark: boolean,
): { backdrop: TextPaint['backdrop']; isUnderImage: boolean } {
  const hasImage = image !== undefined && !/^(none|initial|unset|inherit)$/i.test(image);
  const inherited = { backdrop: parent.backdrop, isUnderImage: parent.isUnderImage };
  const unknown = { backdrop: unknownColour, isUnderImage: true } as const;
  if (colourValue === undefined || cssWideKeyword.test(colourValue)) return hasImage ? unknown : inherited;
  const background = parseCssColour(colourValue, colour, isDark);
  if (background === undefined) return hasImage ? unknown : inherited;
  if (background === unknownColour) return unknown;
  if (background.a >= 0.99) return { backdrop: { ...background, a: 1 }, isUnderImage: hasImage };
  if (hasImage) return unknown;
  if (background.a <= 0.01) return inherited;
  return parent.backdrop === unknownColour
    ? unknown
    : { backdrop: blendOver(background, background.a, parent.backdrop), isUnderImage: parent.isUnderImage };
}
