import colourNames from 'color-name';
import { mixColours } from './color-mix.js';
import { labToSrgb, linearToSrgb, oklabToSrgb } from './lab-to-srgb.js';
import { functionCall, splitComponents } from '../css/parse-declarations.js';

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
const transparent: Rgba = { r: 0, g: 0, b: 0, a: 0 };

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
const platformColours = new Set([
  'accentcolor',
  'accentcolortext',
  'buttonborder',
  'buttonface',
  'buttontext',
  'graytext',
  'highlight',
  'highlighttext',
  'mark',
  'marktext',
  'selecteditem',
  'selecteditemtext',
  'activeborder',
  'activecaption',
  'appworkspace',
  'background',
  'buttonhighlight',
  'buttonshadow',
  'captiontext',
  'inactiveborder',
  'inactivecaption',
  'inactivecaptiontext',
  'infobackground',
  'infotext',
  'menu',
  'menutext',
  'scrollbar',
  'threeddarkshadow',
  'threedface',
  'threedhighlight',
  'threedlightshadow',
  'threedshadow',
  'window',
  'windowframe',
  'windowtext',
]);
const colourFunctions = new Set([
  'rgb',
  'rgba',
  'hsl',
  'hsla',
  'hwb',
  'lab',
  'lch',
  'oklab',
  'oklch',
  'color',
  'light-dark',
]);
// The functions that also take the comma syntax of CSS Color 3, alpha as a fourth channel.
const legacyFunctions = new Set(['rgb', 'rgba', 'hsl', 'hsla']);
// Valid colours whose value this code does not compute.
const unevaluatedFunctions = new Set(['device-cmyk', 'contrast-color']);

/**
 * A CSS colour value; undefined when the value is not a colour at all (a browser drops such a
 * declaration). `currentColour` is the element's own colour; `isDark` picks light-dark()'s side.
 */
export function parseCssColour(
  text: string,
  currentColour: ParsedColour | undefined,
  isDark: boolean,
): ParsedColour | undefined {
  const value = text.trim().toLowerCase();
  const parse = (): ParsedColour | undefined => parseColourValue(value, currentColour, isDark);
  return dependsOnContext(value) ? parse() : remembered(value, parse);
}

/** A colour that depends on the element (currentcolor), the colour scheme (light-dark) or whether the colour library is loaded (color-mix). */
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
  if (value === 'transparent') return transparent;
  if (value === 'currentcolor') return currentColour ?? unknownColour;
  const named = colourNames[value];
  if (named) return { r: named[0], g: named[1], b: named[2], a: 1 };
  if (value.startsWith('#')) return parseHex(value.slice(1));
  if (systemColours[value]) return systemColours[value];
  const call = functionCall(value);
  if (!call) return platformColours.has(value) ? unknownColour : undefined;
  if (unevaluatedFunctions.has(call.name)) return unknownColour;
  if (call.name === 'color-mix') return mixColours(call.args, (part) => parseCssColour(part, currentColour, isDark));
  if (!colourFunctions.has(call.name)) return undefined;
  if (call.name === 'light-dark') {
    const parts = splitComponents(call.args);
    const comma = parts.indexOf(',');
    if (comma === -1) return undefined;
    const chosen = isDark ? parts.slice(comma + 1) : parts.slice(0, comma);
    return parseCssColour(chosen.join(' '), currentColour, isDark);
  }
  // Relative colours and math inside the arguments are valid, but not computed here.
  if (/^\s*from\b|calc\(|min\(|max\(|clamp\(/.test(call.args)) return unknownColour;
  return parseColourFunction(call.name, call.args);
}

function parseHex(hex: string): Rgba | undefined {
  if (!/^[0-9a-f]+$/.test(hex) || ![3, 4, 6, 8].includes(hex.length)) return undefined;
  const digits = hex.length <= 4 ? [...hex].map((d) => d + d) : (hex.match(/../g) as string[]);
  const [r, g, b, a] = digits.map((d) => parseInt(d, 16)) as [number, number, number, number | undefined];
  return { r, g, b, a: a === undefined ? 1 : a / 255 };
}

/** A channel: a number, or a percentage of `percentScale`; `none` is 0. */
function channel(text: string | undefined, percentScale: number): number | undefined {
  if (text === undefined) return undefined;
  if (text === 'none') return 0;
  const number = Number.parseFloat(text);
  if (!/^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?%?$/.test(text) || !Number.isFinite(number)) return undefined;
  return text.endsWith('%') ? (number / 100) * percentScale : number;
}

function hue(text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const units: Record<string, number> = { deg: 1, grad: 0.9, rad: 180 / Math.PI, turn: 360 };
  const match = /^([+-]?(?:\d+\.?\d*|\.\d+))(deg|grad|rad|turn)?$/.exec(text);
  if (text === 'none') return 0;
  return match ? Number(match[1]) * (units[match[2] ?? 'deg'] as number) : undefined;
}

function hslToRgb(h: number, s: number, l: number): [number, number, number] {
  const f = (n: number): number => {
    const k = (n + h / 30) % 12;
    const a = s * Math.min(l, 1 - l);
    return Math.round((l - a * Math.max(-1, Math.min(k - 3, 9 - k, 1))) * 255);
  };
  return [f(0), f(8), f(4)];
}

/** A colour function's value; undefined when malformed (a browser drops the declaration), unknown for a colour space not computed here. */
function parseColourFunction(name: string, args: string): ParsedColour | undefined {
  const parts = splitComponents(args);
  const slash = parts.indexOf('/');
  const channels = (slash === -1 ? parts : parts.slice(0, slash)).filter((p) => p !== ',');
  let alphaText = slash === -1 ? undefined : parts[slash + 1];
  // Only the legacy comma syntax takes alpha as a fourth channel; `rgb(0 0 0 0)` is invalid, and a browser drops it.
  const isLegacy = parts.includes(',') && legacyFunctions.has(name);
  if (slash === -1 && channels.length === 4 && isLegacy) alphaText = channels.pop();
  const alpha = alphaText === undefined ? 1 : channel(alphaText, 1);
  if (alpha === undefined) return undefined;
  const a = Math.min(1, Math.max(0, alpha));
  // Three channels, after the name of a colour space in color().
  if (channels.length !== (name === 'color' ? 4 : 3)) return undefined;
  let rgb: [number, number, number] | undefined;
  const [c0, c1, c2, extra] = channels;
  if (name === 'color') {
    const space = c0;
    const values = [c1, c2, extra].map((c) => channel(c, 1));
    if (values.some((v) => v === undefined)) return undefined;
    const [x, y, z] = values as [number, number, number];
    if (space === 'srgb')
      rgb = [x, y, z].map((v) => Math.round(Math.min(1, Math.max(0, v)) * 255)) as [number, number, number];
    else if (space === 'srgb-linear') rgb = linearToSrgb(x, y, z);
    else return unknownColour;
  } else if (name === 'rgb' || name === 'rgba') {
    const values = [c0, c1, c2].map((c) => channel(c, 255));
    if (values.some((v) => v === undefined)) return undefined;
    rgb = values.map((v) => Math.round(Math.min(255, Math.max(0, v as number)))) as [number, number, number];
  } else if (name === 'hsl' || name === 'hsla' || name === 'hwb') {
    const h = hue(c0);
    const s = channel(c1, 100);
    const l = channel(c2, 100);
    if (h === undefined || s === undefined || l === undefined) return undefined;
    const wrapped = ((h % 360) + 360) % 360;
    if (name === 'hwb') {
      const [w, bl] = [s / 100, l / 100];
      const sum = w + bl;
      if (sum >= 1) rgb = [0, 0, 0].map(() => Math.round((w / sum) * 255)) as [number, number, number];
      else
        rgb = hslToRgb(wrapped, 1, 0.5).map((v) => Math.round((v / 255) * (1 - w - bl) * 255 + w * 255)) as [
          number,
          number,
          number,
        ];
    } else {
      rgb = hslToRgb(wrapped, Math.min(1, Math.max(0, s / 100)), Math.min(1, Math.max(0, l / 100)));
    }
  } else {
    const isOk = name.startsWith('ok');
    const lightness = channel(c0, isOk ? 1 : 100);
    const isPolar = name.endsWith('lch');
    const chromaScale = isOk ? 0.4 : isPolar ? 150 : 125;
    const second = channel(c1, chromaScale);
    const third = isPolar ? hue(c2) : channel(c2, chromaScale);
    if (lightness === undefined || second === undefined || third === undefined) return undefined;
    const [p, q] = isPolar
      ? [second * Math.cos((third * Math.PI) / 180), second * Math.sin((third * Math.PI) / 180)]
      : [second, third];
    rgb = isOk ? oklabToSrgb(lightness, p, q) : labToSrgb(lightness, p, q);
  }
  return rgb && { r: rgb[0], g: rgb[1], b: rgb[2], a };
}
