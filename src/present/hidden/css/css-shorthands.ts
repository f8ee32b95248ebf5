import { parseCssColour, unknownColour } from '../colour/css-colour.js';
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
  /^(url|image|image-set|-webkit-image-set|cross-fade|element|(repeating-)?(linear|radial|conic)-gradient|-webkit-(repeating-)?(linear|radial|gradient)|-webkit-gradient)$/;
const fontSizeKeywords = /^(xx-small|x-small|small|medium|large|x-large|xx-large|xxx-large|smaller|larger)$/;
const fontPrefixKeywords =
  /^(normal|italic|oblique|small-caps|bold|bolder|lighter|[1-9]00|ultra-condensed|extra-condensed|condensed|semi-condensed|semi-expanded|expanded|extra-expanded|ultra-expanded)$/;

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
        ? (parts.find((p) => /^[\d.]/.test(p)) ?? '0')
        : (parts.find((p) => !/^[\d.]/.test(p)) ?? 'currentcolor');
    default:
      return undefined;
  }
}

function isImage(part: string): boolean {
  const call = functionCall(part);
  return call !== undefined && imageFunctions.test(call.name);
}

/** The background colour is the final layer's colour component; `transparent` when there is none. */
function backgroundColour(parts: string[]): string {
  const finalLayer = parts.slice(parts.lastIndexOf(',') + 1);
  for (const part of finalLayer) {
    if (isImage(part)) continue;
    const colour = parseCssColour(part, undefined, false);
    if (colour !== undefined && colour !== unknownColour) return part;
    if (colour === unknownColour && functionCall(part)) return part;
  }
  return 'transparent';
}

/** `font: [style variant weight stretch] size[/line-height] family`; undefined when no size is where it must be. */
function fontSize(parts: string[]): string | undefined {
  if (parts.length === 1) return 'medium'; // a system font (caption, menu, …)
  for (const part of parts) {
    if (fontPrefixKeywords.test(part.toLowerCase())) continue;
    return fontSizeKeywords.test(part.toLowerCase()) || /^[\d.+-]/.test(part) || functionCall(part) ? part : undefined;
  }
  return undefined;
}
