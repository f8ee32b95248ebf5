import type { Rgba } from './css-colour.js';

/**
 * Whether text is drawn in (nearly) its background's colour. Both conditions must hold: a WCAG
 * contrast ratio under 1.1:1 (#f5f5f5 on white is 1.09; the faintest grey real mail uses for
 * footers, about #ccc, is 1.6) and every channel within 32 of the background, because two
 * colours of equal luminance but different hue (yellow on white: 1.07:1) are plainly seen.
 */
export function isColourOfBackground(text: Rgba, backdrop: Rgba): boolean {
  const maxChannelDifference = Math.max(
    Math.abs(text.r - backdrop.r),
    Math.abs(text.g - backdrop.g),
    Math.abs(text.b - backdrop.b),
  );
  return maxChannelDifference < 32 && contrastRatio(text, backdrop) < 1.1;
}

/** `top` painted with `alpha` over an opaque `bottom`. */
export function blendOver(top: Rgba, alpha: number, bottom: Rgba): Rgba {
  const mix = (t: number, b: number): number => Math.round(t * alpha + b * (1 - alpha));
  return { r: mix(top.r, bottom.r), g: mix(top.g, bottom.g), b: mix(top.b, bottom.b), a: 1 };
}

/** WCAG 2 contrast ratio of two opaque colours (1 to 21). */
export function contrastRatio(x: Rgba, y: Rgba): number {
  const [lighter, darker] = [relativeLuminance(x), relativeLuminance(y)].sort((a, b) => b - a) as [number, number];
  return (lighter + 0.05) / (darker + 0.05);
}

function relativeLuminance({ r, g, b }: Rgba): number {
  const linear = (c: number): number => {
    const s = c / 255;
    return s <= 0.04045 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
  };
  return 0.2126 * linear(r) + 0.7152 * linear(g) + 0.0722 * linear(b);
}
