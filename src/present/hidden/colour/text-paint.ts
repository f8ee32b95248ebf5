import { blendOver, isColourOfBackground } from './colour-contrast.js';
import { black, parseCssColour, unknownColour, type ParsedColour, type Rgba } from './css-colour.js';
import { resolveLength, type LengthBasis } from '../css/css-length.js';
import { cssWideKeyword, takesParentValue } from '../css/css-wide-keywords.js';
import { splitComponents, splitTopLevelCommas } from '../css/parse-declarations.js';

/** One text-shadow layer: offsets and blur in px, its colour as written (undefined: the text's colour). */
interface ShadowLayer {
  x: number;
  y: number;
  blur: number;
  colour: string | undefined;
}

/**
 * How an element's text is painted, and over what. Inherited colour values are kept as written:
 * `currentcolor` inherits as a keyword, so shadow and outline are judged again on every element.
 */
export interface TextPaint {
  colour: ParsedColour;
  /** -webkit-text-fill-color as written; undefined paints with `color`. */
  fillValue: string | undefined;
  /** SVG's `fill` as written (initially black). */
  svgFillValue: string;
  /** text-shadow as computed, 'unreadable' when its value could not be read. */
  shadow: readonly ShadowLayer[] | 'unreadable';
  /** -webkit-text-stroke-width in px, 'unreadable' when it could not be read. */
  strokeWidth: number | 'unreadable';
  /** -webkit-text-stroke-color as written; undefined is the text's colour. */
  strokeColour: string | undefined;
  fill: ParsedColour | undefined;
  svgFill: ParsedColour;
  /** The nearest backgrounds, blended; unknown under an image without a colour of its own. */
  backdrop: Rgba | typeof unknownColour;
  /** The backdrop is a background image's fallback colour. */
  isUnderImage: boolean;
  /** The colours in which shadows near the text and its outline draw the glyphs, before the element's opacity. */
  glyphInks: readonly Rgba[];
  /** The property that changes the colours in a way not computed here (a blend mode, background-clip: text). */
  alteredBy: string | undefined;
  /** A shadow or stroke whose value could not be read. */
  unreadable: string | undefined;
}

export const initialPaint: TextPaint = {
  colour: black,
  fillValue: undefined,
  svgFillValue: 'black',
  shadow: [],
  strokeWidth: 0,
  strokeColour: undefined,
  fill: undefined,
  svgFill: black,
  backdrop: { r: 255, g: 255, b: 255, a: 1 },
  isUnderImage: false,
  glyphInks: [],
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
  const paintOf = (value: string): ParsedColour | undefined => paintColour(value, colour, isDark);
  // A value a browser cannot read drops the declaration, which leaves the inherited one.
  const written = <T extends string | undefined>(value: string | undefined, inherited: T, initial: T): T | string => {
    if (takesParentValue(value)) return inherited;
    const lower = (value as string).trim().toLowerCase();
    if (lower === 'initial') return initial;
    return paintOf(lower) === undefined ? inherited : lower;
  };
  const fillValue = written(read('-webkit-text-fill-color'), parent.fillValue, undefined);
  const svgFillValue = written(read('fill'), parent.svgFillValue, 'black');
  const blend = read('mix-blend-mode');
  const clip = `${read('background-clip')} ${read('-webkit-background-clip')}`;
  const { backdrop, isUnderImage } = backdropOf(read, colour, parent, isDark);
  const filter = read('filter');
  // A glyph colour to judge against the backdrop, none for one that draws nothing, undefined when that cannot be told.
  const inkOf: InkOf = (ink) => {
    if (ink === undefined || ink === unknownColour) return undefined;
    if (ink.a < 0.02) return [];
    return backdrop === unknownColour ? undefined : [ink];
  };
  const shadowText = read('text-shadow');
  const shadow = takesParentValue(shadowText) ? parent.shadow : shadowOf(shadowText as string, basis);
  const shadowInks = shadowInksOf(shadow, colour, isDark, basis.fontPx, inkOf);
  const strokeWidth = strokeWidthOf(read('-webkit-text-stroke-width'), parent.strokeWidth, basis);
  const strokeText = read('-webkit-text-stroke-color');
  const strokeColour = takesParentValue(strokeText)
    ? parent.strokeColour
    : cssWideKeyword.test(strokeText as string)
      ? undefined
      : strokeText;
  const strokeInks = strokeInksOf(strokeWidth, strokeColour, colour, isDark, inkOf);
  // Stryker disable ConditionalExpression,EqualityOperator,LogicalOperator: resolving the parent's fill again gives the same colour; reusing it saves a parse on every element
  const svgFill =
    svgFillValue === parent.svgFillValue && colour === parent.colour
      ? parent.svgFill
      : (paintOf(svgFillValue) ?? black);
  // Stryker restore ConditionalExpression,EqualityOperator,LogicalOperator
  return {
    colour,
    fillValue,
    svgFillValue,
    shadow,
    strokeWidth,
    strokeColour,
    fill: fillValue === undefined || fillValue === 'currentcolor' ? undefined : paintOf(fillValue),
    svgFill,
    backdrop,
    isUnderImage,
    glyphInks: [...(shadowInks ?? []), ...(strokeInks ?? [])],
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
    unreadable:
      (shadowInks === undefined ? 'text-shadow' : undefined) ??
      (strokeInks === undefined ? '-webkit-text-stroke' : undefined) ??
      parent.unreadable,
  };
}

/** Whether text with this paint can be seen against its backdrop, or the property that keeps this from being told. */
export function paintVisibility(
  paint: TextPaint,
  opacity: number,
  isSvg: boolean,
  minOpacity: number,
): 'hidden' | 'visible' | { doubt: string } {
  const ink = isSvg ? paint.svgFill : (paint.fill ?? paint.colour);
  if (paint.alteredBy) return { doubt: paint.alteredBy };
  if (paint.unreadable) return { doubt: paint.unreadable };
  // An outline or a shadow that shows draws the glyphs whatever their fill, faded by the element's opacity as its text is.
  const backdrop = paint.backdrop;
  if (
    backdrop !== unknownColour &&
    paint.glyphInks.some((ink) => !isColourOfBackground(blendOver(ink, ink.a * opacity, backdrop), backdrop))
  )
    return 'visible';
  if (ink === unknownColour)
    return { doubt: isSvg ? 'fill' : paint.fill !== undefined ? '-webkit-text-fill-color' : 'color' };
  const alpha = ink.a * opacity;
  if (alpha < minOpacity) return 'hidden';
  if (paint.backdrop === unknownColour) return { doubt: 'background-image' };
  if (!isColourOfBackground(blendOver(ink, alpha, paint.backdrop), paint.backdrop)) return 'visible';
  return paint.isUnderImage ? { doubt: 'background-image' } : 'hidden';
}

type InkOf = (ink: ParsedColour | undefined) => Rgba[] | undefined;

/** A colour text is painted with (`fill`, `-webkit-text-fill-color`); undefined when the value is no paint. */
function paintColour(value: string, colour: ParsedColour, isDark: boolean): ParsedColour | undefined {
  if (value === 'none') return { r: 0, g: 0, b: 0, a: 0 };
  if (/^url\(/.test(value) || /^(context-fill|context-stroke)$/.test(value)) return unknownColour;
  return parseCssColour(value, colour, isDark);
}

/** A text-shadow as computed; 'unreadable' unless each layer is 2–3 lengths (blur ≥ 0) and at most one colour. */
function shadowOf(value: string, basis: LengthBasis): TextPaint['shadow'] {
  const lower = value.toLowerCase().trim();
  if (lower === 'none' || lower === 'initial') return [];
  const lengths = lengthsOnly(basis);
  const layers: ShadowLayer[] = [];
  for (const layer of splitTopLevelCommas(lower).map(splitComponents)) {
    const values = layer.map((part) => resolveLength(part, lengths));
    const colourAt = values[0] === undefined ? 0 : values[values.length - 1] === undefined ? values.length - 1 : -1;
    const colourText = layer[colourAt];
    const offsets = values.filter((_, i) => i !== colourAt);
    if (offsets.includes(undefined)) return 'unreadable';
    const [x, y, blur = 0, ...rest] = offsets as number[];
    if (x === undefined || y === undefined || rest.length > 0 || blur < 0) return 'unreadable';
    layers.push({ x, y, blur, colour: colourText });
  }
  return layers;
}

/** The colours of shadow layers drawing glyphs near the text (a blur of a font size is a haze); undefined: unknown. */
function shadowInksOf(
  shadow: TextPaint['shadow'],
  colour: ParsedColour,
  isDark: boolean,
  fontPx: number,
  inkOf: InkOf,
): Rgba[] | undefined {
  if (shadow === 'unreadable') return undefined;
  const inks: Rgba[] = [];
  for (const layer of shadow) {
    const ink = inkOf(layer.colour === undefined ? colour : parseCssColour(layer.colour, colour, isDark));
    if (ink === undefined) return undefined;
    if (Math.abs(layer.x) < maxShadowOffsetPx && Math.abs(layer.y) < maxShadowOffsetPx && layer.blur < fontPx)
      inks.push(...ink);
  }
  return inks;
}

function strokeWidthOf(
  value: string | undefined,
  inherited: TextPaint['strokeWidth'],
  basis: LengthBasis,
): TextPaint['strokeWidth'] {
  if (takesParentValue(value)) return inherited;
  if (cssWideKeyword.test(value as string)) return 0;
  return resolveLength(value as string, lengthsOnly(basis)) ?? 'unreadable';
}

/** Shadows and outlines take neither percentages nor quirks mode's unitless lengths. */
function lengthsOnly(basis: LengthBasis): LengthBasis {
  return { ...basis, percentOf: undefined, isQuirks: false };
}

/** The colour the outline draws the glyphs in, if it draws them; undefined when that cannot be told. */
function strokeInksOf(
  width: TextPaint['strokeWidth'],
  colourText: string | undefined,
  colour: ParsedColour,
  isDark: boolean,
  inkOf: InkOf,
): Rgba[] | undefined {
  if (width === 'unreadable') return undefined;
  if (width <= 0) return [];
  return inkOf(colourText === undefined ? colour : parseCssColour(colourText, colour, isDark));
}

/** The element's background over its parent's; under an image, its fallback colour marked as such, or unknown. */
function backdropOf(
  read: (property: string) => string | undefined,
  colour: ParsedColour,
  parent: TextPaint,
  isDark: boolean,
): { backdrop: TextPaint['backdrop']; isUnderImage: boolean } {
  const [colourValue, image] = [read('background-color'), read('background-image')];
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
