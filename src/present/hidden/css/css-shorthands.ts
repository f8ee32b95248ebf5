import { parseCssColour } from '../colour/css-colour.js';
import { cssWideKeyword } from './css-wide-keywords.js';
import { functionCall, splitComponents } from './parse-declarations.js';

/** The shorthands whose longhands bear on visibility, and those longhands. */
export const shorthandLonghands: Readonly<Record<string, readonly string[]>> = {
  background: ['background-color', 'background-image'],
  font: ['font-size'],
  overflow: ['overflow-x', 'overflow-y'],
  margin: ['margin-top', 'margin-left'],
  inset: ['top', 'right', 'bottom', 'left'],
  '-webkit-text-stroke': ['-webkit-text-stroke-width', '-webkit-text-stroke-color'],
};

const imageFunctions =
  /^(url|image|image-set|-webkit-image-set|cross-fade|element|(-webkit-)?(repeating-)?(linear|radial|conic)-gradient|-webkit-gradient)$/;
const fontSizeKeywords = /^(xx-small|x-small|small|medium|large|x-large|xx-large|xxx-large|smaller|larger)$/;
// A weight is any number from 1 to 1000 (CSS Fonts 4 §2.2); a size needs its unit, or is 0.
const fontPrefixKeywords =
  /^(normal|italic|oblique|small-caps|bold|bolder|lighter|1000|[1-9]\d{0,2}(\.\d+)?|ultra-condensed|extra-condensed|condensed|semi-condensed|semi-expanded|expanded|extra-expanded|ultra-expanded)$/;

/** One longhand's value out of a shorthand's (resolved) value; undefined when the shorthand is invalid. */
export function longhandOf(shorthand: string, longhand: string, value: string): string | undefined {
  const parts = splitComponents(value);
  if (parts.length === 1 && cssWideKeyword.test(parts[0] ?? '')) return parts[0];
  switch (shorthand) {
    case 'background':
      return longhand === 'background-color'
        ? backgroundColour(parts)
        : parts.some(isImage)
          ? 'url(shorthand)'
          : 'none';
    case 'font':
      return fontSize(parts);
    case 'overflow':
      return longhand === 'overflow-x' ? parts[0] : (parts[1] ?? parts[0]);
    case 'margin':
      return longhand === 'margin-top' ? parts[0] : (parts[3] ?? parts[1] ?? parts[0]);
    case 'inset': {
      const [top, right = top, bottom = top, left = right] = parts;
      return { top, right, bottom, left }[longhand];
    }
    case '-webkit-text-stroke':
      return longhand === '-webkit-text-stroke-width'
        ? (parts.find(isStrokeWidth) ?? '0')
        : (parts.find((p) => !isStrokeWidth(p)) ?? 'currentcolor');
  }
  return undefined;
}

/** A line width: a number with its unit, a keyword, or a math function (which is no colour). */
function isStrokeWidth(part: string): boolean {
  return /^([\d.+-]|(thin|medium|thick)$|(calc|min|max|clamp)\()/i.test(part);
}

function isImage(part: string): boolean {
  const call = functionCall(part);
  return call !== undefined && imageFunctions.test(call.name);
}

/** The background colour is the final layer's colour component; `transparent` when there is none. */
function backgroundColour(parts: string[]): string {
  const finalLayer = parts.slice(parts.lastIndexOf(',') + 1);
  // An image parses as no colour, so `url(a.png) #fff` has the colour #fff.
  for (const part of finalLayer) {
    // A colour this cannot evaluate (a system colour, a relative colour) is returned for the reader to doubt.
    if (parseCssColour(part, undefined, false) !== undefined) return part;
  }
  return 'transparent';
}

const systemFonts = /^(caption|icon|menu|message-box|small-caption|status-bar)$/i;
/** A browser drops an invalid `font`, leaving the size before it, which the cascade here replaced: named instead. */
const unreadableSize = 'invalid';

/** `font: [style variant weight stretch] size[/line-height] family`, or a system font. */
function fontSize(parts: string[]): string {
  if (parts.length === 1) return systemFonts.test(parts[0] ?? '') ? 'medium' : unreadableSize;
  for (const part of parts) {
    if (fontPrefixKeywords.test(part.toLowerCase())) continue;
    return fontSizeKeywords.test(part.toLowerCase()) || /^[\d.+-]/.test(part) || functionCall(part)
      ? part
      : unreadableSize;
  }
  return unreadableSize;
}
