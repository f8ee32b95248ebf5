import type { Color, Mode } from 'culori';
import { isCssNumber, splitComponents, splitTopLevelCommas } from '../css/parse-declarations.js';
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

const polarModes = new Set(['hsl', 'hwb', 'lch', 'oklch']);
// A percentage a browser computes and this code does not.
const mathFunction = /^(?:calc|min|max|clamp|round|mod|rem|abs|sign|exp|pow|sqrt|hypot|log)\(/i;

/** One colour of a mix and its share; `unknown` where a browser might read what this code cannot. */
function mixSide(
  item: string[],
  parse: (text: string) => ParsedColour | undefined,
): { colour: ParsedColour | undefined; percent: number | undefined } {
  if (item.some((part) => mathFunction.test(part))) return { colour: 'unknown', percent: undefined };
  const percent = item.find((part) => part.endsWith('%') && isCssNumber(part));
  const colour = parse(item.filter((part) => part !== percent).join(' '));
  return { colour, percent: percent === undefined ? undefined : Number.parseFloat(percent) };
}

/**
 * color-mix() by CSS Color 5 §2, interpolated by culori (alpha not premultiplied, which moves a mix of
 * translucent colours a little). Undefined when every browser drops it, `unknown` when a part cannot be
 * evaluated or browsers read it differently: newer ones take a mix without `in` (Oklab), of one colour or
 * of more than two; older ones drop it.
 */
export function mixColours(args: string, parse: (text: string) => ParsedColour | undefined): ParsedColour | undefined {
  if (!culori) return 'unknown';
  const items = splitTopLevelCommas(args).map(splitComponents);
  const method = items[0]?.[0]?.toLowerCase() === 'in' ? items[0] : undefined;
  if (method && method[1] === undefined) return undefined;
  const space = method?.[1]?.toLowerCase();
  // Own keys only: `in constructor` would hand culori the prototype's function as a space, and it throws.
  const mode = space !== undefined && Object.hasOwn(modes, space) ? modes[space] : undefined;
  const hue = method?.slice(2).join(' ').toLowerCase();
  // Only the default hue method is evaluated: shorter, said or not, and only in a polar space.
  const hueUnderstood = hue === '' || (hue === 'shorter hue' && polarModes.has(space ?? ''));
  const sides = items.slice(method ? 1 : 0).map((item) => mixSide(item, parse));
  // Percentages outside 0–100% are a parse error (CSS Color 5 §2.1), which drops the declaration.
  if (sides.some((s) => s.colour === undefined || (s.percent ?? 0) > 100 || (s.percent ?? 0) < 0)) return undefined;
  if (!method || !mode || !hueUnderstood || sides.length !== 2) return 'unknown';
  if (sides.some((s) => s.colour === 'unknown')) return 'unknown';
  let [p1, p2] = [sides[0]!.percent, sides[1]!.percent];
  if (p1 === undefined && p2 === undefined) [p1, p2] = [50, 50];
  else if (p1 === undefined) p1 = 100 - (p2 as number);
  else if (p2 === undefined) p2 = 100 - p1;
  const sum = p1 + (p2 as number);
  if (!(sum > 0)) return undefined;
  const toCulori = (c: Rgba): Color => ({ mode: 'rgb', r: c.r / 255, g: c.g / 255, b: c.b / 255, alpha: c.a });
  const [a, b] = [toCulori(sides[0]!.colour as Rgba), toCulori(sides[1]!.colour as Rgba)];
  const mixed = culori.converter('rgb')(culori.interpolate([a, b], mode)((p2 as number) / sum));
  const channel = (v: number | undefined): number => Math.round(Math.min(1, Math.max(0, v ?? 0)) * 255);
  return {
    r: channel(mixed.r),
    g: channel(mixed.g),
    b: channel(mixed.b),
    a: Math.min(1, (mixed.alpha ?? 1) * Math.min(1, sum / 100)),
  };
}
