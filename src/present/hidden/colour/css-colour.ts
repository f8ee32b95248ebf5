import type { Color } from 'culori';
import { hsl, rgb } from 'culori/css';
import { mixColours } from './color-mix.js';
import { functionCall, splitComponents } from '../css/parse-declarations.js';
import { words } from '../word-list.js';

/** An sRGB colour, channels 0..255, alpha 0..1. */
export interface Rgba {
  r: number;
  g: number;
  b: number;
  a: number;
}

/** A colour this code cannot evaluate (a relative colour, a platform's system colour): text in it cannot be assessed. */
export const unknownColour = 'unknown';
export type ParsedColour = Rgba | typeof unknownColour;

export const black: Rgba = { r: 0, g: 0, b: 0, a: 1 };
export const white: Rgba = { r: 255, g: 255, b: 255, a: 1 };

// CSS Color 4 §6.2 system colours with the values browsers use on a light page; the rest vary by platform.
const systemColours: Readonly<Record<string, Rgba>> = {
  canvas: white,
  canvastext: black,
  field: white,
  fieldtext: black,
  linktext: { r: 0, g: 0, b: 238, a: 1 },
  visitedtext: { r: 85, g: 26, b: 139, a: 1 },
  activetext: { r: 255, g: 0, b: 0, a: 1 },
};
// System colours whose value depends on the platform, and the deprecated ones (CSS Color 4 §6.2, Appendix A).
const platformColours = new Set(
  words`accentcolor accentcolortext buttonborder buttonface buttontext graytext highlight highlighttext mark marktext
  selecteditem selecteditemtext activeborder activecaption appworkspace background buttonhighlight buttonshadow
  captiontext inactiveborder inactivecaption inactivecaptiontext infobackground infotext menu menutext scrollbar
  threeddarkshadow threedface threedhighlight threedlightshadow threedshadow window windowframe windowtext`,
);
// Valid colours whose value this code does not compute.
const unevaluatedFunctions = new Set(['device-cmyk', 'contrast-color']);

/** A CSS colour value; undefined when it is no colour (a browser drops it). `isDark` picks light-dark()'s side. */
export function parseCssColour(
  text: string,
  currentColour: ParsedColour | undefined,
  isDark: boolean,
): ParsedColour | undefined {
  const value = text.trim().toLowerCase();
  const parse = (): ParsedColour | undefined => parseColourValue(value, currentColour, isDark);
  return dependsOnContext(value) ? parse() : remembered(value, parse);
}

/** A colour that depends on the element, the colour scheme or whether the colour library is loaded (color-mix). */
function dependsOnContext(value: string): boolean {
  return /currentcolor|light-dark|color-mix/.test(value);
}

// Stryker disable all: a memo of results that do not depend on the arguments (dependsOnContext); without it, or with another bound, every result is the same
// Mail repeats a handful of colours on every element.
const parsedColours = new Map<string, ParsedColour | undefined>();
function remembered(value: string, parse: () => ParsedColour | undefined): ParsedColour | undefined {
  if (parsedColours.has(value)) return parsedColours.get(value);
  const parsed = parse();
  if (parsedColours.size >= 512) parsedColours.clear();
  parsedColours.set(value, parsed);
  return parsed;
}
// Stryker restore all

function parseColourValue(
  value: string,
  currentColour: ParsedColour | undefined,
  isDark: boolean,
): ParsedColour | undefined {
  if (value === 'currentcolor') return currentColour ?? unknownColour;
  // Own keys only: `constructor` or `__proto__` names no colour, and a browser drops it.
  if (Object.hasOwn(systemColours, value)) return systemColours[value];
  if (platformColours.has(value)) return unknownColour;
  const call = functionCall(value);
  if (!call && value.includes('(')) return undefined;
  if (call && unevaluatedFunctions.has(call.name)) return unknownColour;
  if (call?.name === 'color-mix') return mixColours(call.args, (part) => parseCssColour(part, currentColour, isDark));
  if (call?.name === 'light-dark') {
    const parts = splitComponents(call.args);
    const comma = parts.indexOf(',');
    if (comma === -1) return undefined;
    const chosen = isDark ? parts.slice(comma + 1) : parts.slice(0, comma);
    return parseCssColour(chosen.join(' '), currentColour, isDark);
  }
  if (call && /^(rgba?|hsla?|hwb|lab|lch|oklab|oklch|color)$/.test(call.name)) {
    // Relative colours and math inside the arguments are valid, but not computed here.
    if (/^\s*from\b|calc\(|min\(|max\(|clamp\(/.test(call.args)) return unknownColour;
    // color() in a space other than sRGB's (display-p3, a98-rgb, xyz) is valid when its channels are, but not computed here.
    const [space, ...channels] = splitComponents(call.args);
    if (call.name === 'color' && space !== 'srgb' && space !== 'srgb-linear')
      return readColour(`color(srgb ${channels.join(' ')})`) && unknownColour;
  }
  return readColour(value);
}

/** A colour culori can read, in sRGB; undefined when it cannot (a browser drops the value). */
function readColour(value: string): Rgba | undefined {
  let colour: Color | undefined;
  try {
    // CSS Color 4 §7.1 clamps saturation and lightness before converting; culori does not.
    const polar = /^hsla?\(/.test(value) ? hsl(value) : undefined;
    colour = rgb(polar ? { ...polar, s: clampUnit(polar.s ?? 0), l: clampUnit(polar.l ?? 0) } : value);
  } catch {
    // culori's tokenizer throws on some malformed numbers (`rgb(1px 0 0)`).
    return undefined;
  }
  if (!colour) return undefined;
  const byte = (channel: number | undefined): number => Math.round(clampUnit(channel ?? 0) * 255);
  // culori reads an alpha of `none` as no alpha given; CSS renders a missing component as 0.
  const alpha = /\/\s*none\s*\)$/.test(value) ? 0 : clampUnit(colour.alpha ?? 1);
  return { r: byte(colour.r), g: byte(colour.g), b: byte(colour.b), a: alpha };
}

function clampUnit(value: number): number {
  return Math.min(1, Math.max(0, value));
}
