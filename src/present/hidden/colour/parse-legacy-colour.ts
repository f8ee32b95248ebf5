import colourNames from 'color-name';
import type { Rgba } from './css-colour.js';

/**
 * A colour attribute (`bgcolor`, `<font color>`, `<body text>`) by HTML's "rules for parsing a
 * legacy colour value" (HTML §2.3.6.4): browsers read `color="fff"` as #0f0f0f, not white, and the
 * detector must see the colour a person sees. Undefined where a browser ignores the attribute.
 */
export function parseLegacyColour(attribute: string): Rgba | undefined {
  let input = attribute.trim();
  if (input === '' || input.toLowerCase() === 'transparent') return undefined;
  // Own keys only: `constructor` is read digit by digit, as a browser reads it.
  const named = Object.hasOwn(colourNames, input.toLowerCase()) ? colourNames[input.toLowerCase()] : undefined;
  if (named) return { r: named[0], g: named[1], b: named[2], a: 1 };
  if (input.startsWith('#') && /^[0-9a-f]{3}$/i.test(input.slice(1))) {
    const [r, g, b] = [...input.slice(1)].map((d) => parseInt(d, 16) * 17) as [number, number, number];
    return { r, g, b, a: 1 };
  }
  input = [...input].map((char) => ((char.codePointAt(0) ?? 0) > 0xffff ? '00' : char)).join('');
  input = [...input].slice(0, 128).join('');
  if (input.startsWith('#')) input = input.slice(1);
  input = input.replace(/[^0-9a-f]/gi, '0');
  while (input.length === 0 || input.length % 3 !== 0) input += '0';
  let length = input.length / 3;
  let parts = [input.slice(0, length), input.slice(length, 2 * length), input.slice(2 * length)];
  if (length > 8) {
    parts = parts.map((p) => p.slice(length - 8));
    length = 8;
  }
  while (length > 2 && parts.every((p) => p.startsWith('0'))) {
    parts = parts.map((p) => p.slice(1));
    length--;
  }
  if (length > 2) parts = parts.map((p) => p.slice(0, 2));
  const [r, g, b] = parts.map((p) => parseInt(p, 16)) as [number, number, number];
  return { r, g, b, a: 1 };
}
