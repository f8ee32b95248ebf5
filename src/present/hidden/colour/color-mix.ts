import type { Color, Mode } from 'culori';
import { splitComponents, splitTopLevelCommas } from '../css/parse-declarations.js';
import type { ParsedColour, Rgba } from './css-colour.js';

type Culori = typeof import('culori');

// culori takes hundreds of ms to load on a busy machine: only mail that mixes colours loads it.
let culori: Culori | undefined;

/** Loads the colour library when `html` uses color-mix(). */
export async function prepareColourMixing(html: string): Promise<void> {
  if (!culori && /color-mix/i.test(html)) culori = await import('culori');
}

// CSS Color 5 §2.1 interpolation spaces, as culori names them.
const modes: Readonly<Record<string, Mode>> = {
  srgb: 'rgb',
  'srgb-linear': 'lrgb',
  lab: 'lab',
  lch: 'lch',
  oklab: 'oklab',
  oklch: 'oklch',
  hsl: 'hsl',
  hwb: 'hwb',
  xyz: 'xyz65',
  'xyz-d65': 'xyz65',
  'xyz-d50': 'xyz50',
};

/**
 * color-mix() by CSS Color 5 §2, interpolated by culori (alpha not premultiplied, which moves a mix of
 * translucent colours a little). Undefined when malformed, `unknown` when a part cannot be evaluated.
 */
export function mixColours(args: string, parse: (text: string) => ParsedColour | undefined): ParsedColour | undefined {
  if (!culori) return 'unknown';
  const items = splitTopLevelCommas(args).map(splitComponents);
  if (items.length !== 3) return undefined;
  const [method, first, second] = items as [string[], string[], string[]];
  if (method[0]?.toLowerCase() !== 'in' || method[1] === undefined) return undefined;
  // Own keys only: `in constructor` would hand culori the prototype's function as a space, and it throws.
  const mode = Object.hasOwn(modes, method[1].toLowerCase()) ? modes[method[1].toLowerCase()] : undefined;
  if (!mode) return 'unknown';
  const side = (item: string[]): { colour: ParsedColour | undefined; percent: number | undefined } => {
    const percent = item.find((p) => /^[\d.]+%$/.test(p));
    const colour = item.filter((p) => p !== percent).join(' ');
    return { colour: parse(colour), percent: percent === undefined ? undefined : Number.parseFloat(percent) };
  };
  const sides = [side(first), side(second)] as const;
  // Percentages past 100% are a parse error (CSS Color 5 §2.1), which drops the declaration.
  if (sides.some((s) => s.colour === undefined || (s.percent as number) > 100)) return undefined;
  if (sides.some((s) => s.colour === 'unknown')) return 'unknown';
  let [p1, p2] = [sides[0].percent, sides[1].percent];
  if (p1 === undefined && p2 === undefined) [p1, p2] = [50, 50];
  else if (p1 === undefined) p1 = 100 - (p2 as number);
  else if (p2 === undefined) p2 = 100 - p1;
  const sum = p1 + (p2 as number);
  if (!(sum > 0)) return undefined;
  const toCulori = (c: Rgba): Color => ({ mode: 'rgb', r: c.r / 255, g: c.g / 255, b: c.b / 255, alpha: c.a });
  const [a, b] = [toCulori(sides[0].colour as Rgba), toCulori(sides[1].colour as Rgba)];
  const mixed = culori.converter('rgb')(culori.interpolate([a, b], mode)((p2 as number) / sum));
  const channel = (v: number | undefined): number => Math.round(Math.min(1, Math.max(0, v ?? 0)) * 255);
  return {
    r: channel(mixed.r),
    g: channel(mixed.g),
    b: channel(mixed.b),
    a: Math.min(1, (mixed.alpha ?? 1) * Math.min(1, sum / 100)),
  };
}
