import { describe, expect, it } from 'vitest';
import {
  computePaint,
  initialPaint,
  paintVisibility,
  type TextPaint,
} from '../../../../src/present/hidden/colour/text-paint.js';
import type { LengthBasis } from '../../../../src/present/hidden/css/css-length.js';

/**
 * computePaint and paintVisibility on their own: each rule of the paint on each side of its edge,
 * with the attacker's side first (text painted so it cannot be seen must not come out 'visible').
 */
const basis: LengthBasis = {
  fontPx: 16,
  rootFontPx: 16,
  percentOf: undefined,
  viewportWidth: 1024,
  viewportHeight: 768,
  isQuirks: false,
};

const paint = (style: Record<string, string>, parent: TextPaint = initialPaint, isDark = false): TextPaint =>
  computePaint((property) => style[property], parent, isDark, basis);

const seen = (
  style: Record<string, string>,
  parent: TextPaint = initialPaint,
  isSvg = false,
): ReturnType<typeof paintVisibility> => paintVisibility(paint(style, parent), 1, isSvg, 0.1);

const white = { r: 255, g: 255, b: 255, a: 1 };
const black = { r: 0, g: 0, b: 0, a: 1 };

describe('paintVisibility', () => {
  const base: TextPaint = { ...initialPaint };
  it.each<[string, TextPaint, number, boolean, ReturnType<typeof paintVisibility>]>([
    ['black on white', base, 1, false, 'visible'],
    ['white on white', { ...base, colour: white }, 1, false, 'hidden'],
    ['a white fill over a black colour', { ...base, fill: white }, 1, false, 'hidden'],
    ['a black fill over a white colour', { ...base, colour: white, fill: black }, 1, false, 'visible'],
    ['SVG text paints with fill, not color', { ...base, colour: white }, 1, true, 'visible'],
    ['SVG text with a white fill', { ...base, svgFill: white }, 1, true, 'hidden'],
    ['altered by a blend mode', { ...base, alteredBy: 'mix-blend-mode' }, 1, false, { doubt: 'mix-blend-mode' }],
    ['a shadow that cannot be read', { ...base, unreadable: 'text-shadow' }, 1, false, { doubt: 'text-shadow' }],
    [
      'white on white drawn by a black shadow or outline',
      { ...base, colour: white, glyphInks: [black] },
      1,
      false,
      'visible',
    ],
    ['a black glyph ink at 5% opacity', { ...base, colour: white, glyphInks: [black] }, 0.05, false, 'visible'],
    ['a black glyph ink at 4% opacity', { ...base, colour: white, glyphInks: [black] }, 0.04, false, 'hidden'],
    ['a white glyph ink on white', { ...base, colour: white, glyphInks: [white] }, 1, false, 'hidden'],
    ['a white ink, then a black one', { ...base, colour: white, glyphInks: [white, black] }, 1, false, 'visible'],
    [
      'a black glyph ink on an unknown backdrop',
      { ...base, colour: white, glyphInks: [black], backdrop: 'unknown' },
      1,
      false,
      { doubt: 'background-image' },
    ],
    ['an unknown colour', { ...base, colour: 'unknown' }, 1, false, { doubt: 'color' }],
    ['an unknown fill', { ...base, fill: 'unknown' }, 1, false, { doubt: '-webkit-text-fill-color' }],
    ['an unknown SVG fill', { ...base, svgFill: 'unknown' }, 1, true, { doubt: 'fill' }],
    ['black at 9% opacity', base, 0.09, false, 'hidden'],
    ['black at 10% opacity', base, 0.1, false, 'visible'],
    ['black half transparent at 19% opacity', { ...base, colour: { ...black, a: 0.5 } }, 0.19, false, 'hidden'],
    ['on an unknown backdrop', { ...base, backdrop: 'unknown' }, 1, false, { doubt: 'background-image' }],
    [
      'black on a black image fallback',
      { ...base, backdrop: black, isUnderImage: true },
      1,
      false,
      { doubt: 'background-image' },
    ],
    ['black on white under an image', { ...base, isUnderImage: true }, 1, false, 'visible'],
    ['near white on white', { ...base, colour: { r: 250, g: 250, b: 250, a: 1 } }, 1, false, 'hidden'],
  ])('%s', (_name, given, opacity, isSvg, expected) => {
    expect(paintVisibility(given, opacity, isSvg, 0.1)).toEqual(expected);
  });
});

describe('the colour and fill of text', () => {
  const whiteText: TextPaint = { ...initialPaint, colour: white };
  it.each<[string, Record<string, string>, TextPaint, ReturnType<typeof paintVisibility>]>([
    ['color inherited', {}, whiteText, 'hidden'],
    ['color:unset', { color: 'unset' }, whiteText, 'hidden'],
    ['color:initial', { color: 'initial' }, whiteText, 'visible'],
    ['color:white', { color: 'white' }, initialPaint, 'hidden'],
    ['an unreadable color keeps the parent', { color: 'bogus' }, whiteText, 'hidden'],
    ['fill:currentcolor', { color: 'white', '-webkit-text-fill-color': 'currentColor' }, initialPaint, 'hidden'],
    ['fill:white', { '-webkit-text-fill-color': 'WHITE' }, initialPaint, 'hidden'],
    [
      'fill:initial',
      { color: 'white', '-webkit-text-fill-color': 'initial' },
      paint({ '-webkit-text-fill-color': 'black' }),
      'hidden',
    ],
    ['fill inherited', { color: 'white' }, paint({ '-webkit-text-fill-color': 'black' }), 'visible'],
    ['fill:none', { '-webkit-text-fill-color': 'none' }, initialPaint, 'hidden'],
    ['fill:url()', { '-webkit-text-fill-color': 'url(#p)' }, initialPaint, { doubt: '-webkit-text-fill-color' }],
    [
      'fill:context-fill',
      { '-webkit-text-fill-color': 'context-fill' },
      initialPaint,
      { doubt: '-webkit-text-fill-color' },
    ],
    [
      'fill:context-stroke',
      { '-webkit-text-fill-color': 'context-stroke' },
      initialPaint,
      { doubt: '-webkit-text-fill-color' },
    ],
    ['fill:xcontext-fill', { '-webkit-text-fill-color': 'xcontext-fill' }, initialPaint, 'visible'],
    ['fill:context-fillx', { '-webkit-text-fill-color': 'context-fillx' }, initialPaint, 'visible'],
    ['fill: a word ending in url(', { '-webkit-text-fill-color': 'xurl(#p)' }, initialPaint, 'visible'],
    [
      'fill: currentcolor of a white colour',
      { color: 'white', '-webkit-text-fill-color': 'currentcolor' },
      paint({ '-webkit-text-fill-color': 'black' }),
      'hidden',
    ],
    ['a dark-mode colour', { color: 'light-dark(black, white)' }, initialPaint, 'visible'],
  ])('%s', (_name, style, parent, expected) => {
    expect(paintVisibility(paint(style, parent), 1, false, 0.1)).toEqual(expected);
  });

  it('takes the dark side of light-dark() in dark mode', () => {
    expect(paintVisibility(paint({ color: 'light-dark(black, white)' }, initialPaint, true), 1, false, 0.1)).toBe(
      'hidden',
    );
  });

  it.each<[string, Record<string, string>, TextPaint, ReturnType<typeof paintVisibility>]>([
    ['SVG fill inherited', {}, paint({ fill: 'white' }), 'hidden'],
    ['SVG fill:white', { fill: 'white' }, initialPaint, 'hidden'],
    ['SVG fill:initial', { fill: 'initial' }, paint({ fill: 'white' }), 'visible'],
    ['SVG fill:currentcolor', { color: 'white', fill: 'currentColor' }, initialPaint, 'hidden'],
    ['SVG fill:none', { fill: 'none' }, initialPaint, 'hidden'],
    ['SVG fill unreadable', { fill: 'bogus' }, paint({ fill: 'white' }), 'hidden'],
  ])('%s', (_name, style, parent, expected) => {
    expect(paintVisibility(paint(style, parent), 1, true, 0.1)).toEqual(expected);
  });
});

describe('what is behind the text', () => {
  it.each<[string, Record<string, string>, TextPaint, Pick<TextPaint, 'backdrop' | 'isUnderImage'>]>([
    ['nothing of its own', {}, initialPaint, { backdrop: white, isUnderImage: false }],
    ['black', { 'background-color': 'black' }, initialPaint, { backdrop: black, isUnderImage: false }],
    [
      'black at 99.5%',
      { 'background-color': 'rgba(0,0,0,0.995)' },
      initialPaint,
      { backdrop: black, isUnderImage: false },
    ],
    [
      'black at 98%',
      { 'background-color': 'rgba(0,0,0,0.98)' },
      initialPaint,
      { backdrop: { r: 5, g: 5, b: 5, a: 1 }, isUnderImage: false },
    ],
    ['black at 1%', { 'background-color': 'rgba(0,0,0,0.01)' }, initialPaint, { backdrop: white, isUnderImage: false }],
    [
      'black at 2%',
      { 'background-color': 'rgba(0,0,0,0.02)' },
      initialPaint,
      { backdrop: { r: 250, g: 250, b: 250, a: 1 }, isUnderImage: false },
    ],
    [
      'half black over an unknown backdrop',
      { 'background-color': 'rgba(0,0,0,0.5)' },
      { ...initialPaint, backdrop: 'unknown' },
      { backdrop: 'unknown', isUnderImage: true },
    ],
    [
      'half black over an image fallback',
      { 'background-color': 'rgba(0,0,0,0.5)' },
      { ...initialPaint, isUnderImage: true },
      { backdrop: { r: 128, g: 128, b: 128, a: 1 }, isUnderImage: true },
    ],
    [
      'inherit',
      { 'background-color': 'inherit' },
      { ...initialPaint, backdrop: black },
      { backdrop: black, isUnderImage: false },
    ],
    ['an unreadable colour', { 'background-color': 'bogus' }, initialPaint, { backdrop: white, isUnderImage: false }],
    [
      'an unknown colour',
      { 'background-color': 'highlight' },
      initialPaint,
      { backdrop: 'unknown', isUnderImage: true },
    ],
    ['an image', { 'background-image': 'url(a.png)' }, initialPaint, { backdrop: 'unknown', isUnderImage: true }],
    [
      'an image with a black fallback',
      { 'background-image': 'url(a.png)', 'background-color': '#000' },
      initialPaint,
      { backdrop: black, isUnderImage: true },
    ],
    [
      'an image with a translucent fallback',
      { 'background-image': 'url(a.png)', 'background-color': 'rgba(0,0,0,0.5)' },
      initialPaint,
      { backdrop: 'unknown', isUnderImage: true },
    ],
    [
      'an image with an unreadable fallback',
      { 'background-image': 'url(a.png)', 'background-color': 'bogus' },
      initialPaint,
      { backdrop: 'unknown', isUnderImage: true },
    ],
    [
      'an image with an inherited fallback',
      { 'background-image': 'url(a.png)', 'background-color': 'inherit' },
      initialPaint,
      { backdrop: 'unknown', isUnderImage: true },
    ],
    ['background-image:none', { 'background-image': 'none' }, initialPaint, { backdrop: white, isUnderImage: false }],
    [
      'background-image:NONE',
      { 'background-image': 'NONE', 'background-color': 'rgba(0,0,0,0.5)' },
      initialPaint,
      { backdrop: { r: 128, g: 128, b: 128, a: 1 }, isUnderImage: false },
    ],
    [
      'background-image:xnone',
      { 'background-image': 'xnone' },
      initialPaint,
      { backdrop: 'unknown', isUnderImage: true },
    ],
    [
      'background-image:nonex',
      { 'background-image': 'nonex' },
      initialPaint,
      { backdrop: 'unknown', isUnderImage: true },
    ],
  ])('%s', (_name, style, parent, expected) => {
    const { backdrop, isUnderImage } = paint(style, parent);
    expect({ backdrop, isUnderImage }).toEqual(expected);
  });
});

describe('what changes the colours', () => {
  it.each<[string, Record<string, string>, string | undefined]>([
    ['mix-blend-mode:difference', { 'mix-blend-mode': 'difference' }, 'mix-blend-mode'],
    ['mix-blend-mode:normal', { 'mix-blend-mode': 'NORMAL' }, undefined],
    ['mix-blend-mode:xnormal', { 'mix-blend-mode': 'xnormal' }, 'mix-blend-mode'],
    ['mix-blend-mode:normalx', { 'mix-blend-mode': 'normalx' }, 'mix-blend-mode'],
    ['background-clip:text', { 'background-clip': 'text' }, 'background-clip: text'],
    ['-webkit-background-clip:text', { '-webkit-background-clip': 'TEXT' }, 'background-clip: text'],
    ['background-clip:padding-box', { 'background-clip': 'padding-box' }, undefined],
    ['background-clip:textual', { 'background-clip': 'textual' }, undefined],
    ['filter:invert(1)', { filter: 'invert(1)' }, 'filter'],
    ['filter:none', { filter: 'none' }, undefined],
    ['filter:initial', { filter: 'initial' }, undefined],
    ['filter:opacity() blur()', { filter: ' opacity(0.5) blur(1px) ' }, undefined],
    ['filter:blur() invert()', { filter: 'blur(1px) invert(1)' }, 'filter'],
    ['filter:invert() blur()', { filter: 'invert(1) blur(1px)' }, 'filter'],
    ['filter:nonex', { filter: 'nonex' }, 'filter'],
    ['filter:url()', { filter: 'url(#f)' }, 'filter'],
  ])('%s', (_name, style, alteredBy) => {
    expect(paint(style).alteredBy).toBe(alteredBy);
  });

  it('keeps what changed the parent colours', () => {
    expect(paint({ 'mix-blend-mode': 'normal' }, { ...initialPaint, alteredBy: 'filter' }).alteredBy).toBe('filter');
  });
});

describe('text shadows', () => {
  const whiteText = { color: 'white' };
  it.each<[string, string, ReturnType<typeof paintVisibility>]>([
    ['a black shadow near the text', '1px 1px black', 'visible'],
    ['a black shadow with a blur', '1px 1px 2px #000', 'visible'],
    ['a shadow in the colour of the text', '1px 1px', 'hidden'],
    ['a transparent shadow', '1px 1px transparent', 'hidden'],
    ['a shadow at 1% alpha', '1px 1px rgba(0,0,0,0.01)', 'hidden'],
    ['a shadow at 3% alpha on white', '1px 1px rgba(0,0,0,0.03)', 'hidden'],
    ['a shadow 499px away', '499px 0 black', 'visible'],
    ['a shadow 500px to the right', '500px 0 black', 'hidden'],
    ['a shadow 500px to the left', '-500px 0 black', 'hidden'],
    ['a shadow 500px down', '0 500px black', 'hidden'],
    ['a shadow 500px up', '0 -500px black', 'hidden'],
    ['none', 'none', 'hidden'],
    ['NONE', ' NONE ', 'hidden'],
    ['initial', 'initial', 'hidden'],
    ['a far shadow then a near one', '600px 0 black, 1px 1px black', 'visible'],
    ['a near shadow then a far one', '1px 1px black, 600px 0 black', 'visible'],
    ['one length', '1px black', { doubt: 'text-shadow' }],
    ['four lengths', '1px 1px 1px 1px black', { doubt: 'text-shadow' }],
    ['a word', '1px 1px bogus', { doubt: 'text-shadow' }],
    ['an unknown colour', '1px 1px highlight', { doubt: 'text-shadow' }],
    ['a bad layer after a good one', '1px 1px black, 1px', { doubt: 'text-shadow' }],
  ])('%s', (_name, shadow, expected) => {
    expect(seen({ ...whiteText, 'text-shadow': shadow })).toEqual(expected);
  });

  it('inherits the parent shadow', () => {
    const shadowed = paint({ 'text-shadow': '1px 1px black' });
    expect(paint({}, shadowed).glyphInks).toEqual([black]);
    expect(paint({ 'text-shadow': 'inherit' }, shadowed).glyphInks).toEqual([black]);
    expect(paint({ 'text-shadow': 'none' }, shadowed).glyphInks).toEqual([]);
  });

  it('reads a shadow on an unknown backdrop as unreadable', () => {
    expect(paint({ 'text-shadow': '1px 1px black', 'background-image': 'url(a.png)' }).unreadable).toBe('text-shadow');
  });
});

describe('text strokes', () => {
  const whiteText = { color: 'white' };
  it.each<[string, Record<string, string>, ReturnType<typeof paintVisibility>]>([
    ['a black stroke of 1px', { '-webkit-text-stroke-width': '1px', '-webkit-text-stroke-color': 'black' }, 'visible'],
    ['a stroke of 0', { '-webkit-text-stroke-width': '0', '-webkit-text-stroke-color': 'black' }, 'hidden'],
    ['a stroke of −1px', { '-webkit-text-stroke-width': '-1px', '-webkit-text-stroke-color': 'black' }, 'hidden'],
    ['a stroke of 0.1px', { '-webkit-text-stroke-width': '0.1px', '-webkit-text-stroke-color': 'black' }, 'visible'],
    ['a colour with no width', { '-webkit-text-stroke-color': 'black' }, 'hidden'],
    ['a width of initial', { '-webkit-text-stroke-width': 'initial', '-webkit-text-stroke-color': 'black' }, 'hidden'],
    ['a stroke in the text colour', { '-webkit-text-stroke-width': '1px' }, 'hidden'],
    [
      'a stroke colour of inherit',
      { '-webkit-text-stroke-width': '1px', '-webkit-text-stroke-color': 'inherit' },
      'hidden',
    ],
    [
      'a transparent stroke',
      { '-webkit-text-stroke-width': '1px', '-webkit-text-stroke-color': 'transparent' },
      'hidden',
    ],
    [
      'an unreadable width',
      { '-webkit-text-stroke-width': 'thick', '-webkit-text-stroke-color': 'black' },
      { doubt: '-webkit-text-stroke' },
    ],
    [
      'an unreadable colour',
      { '-webkit-text-stroke-width': '1px', '-webkit-text-stroke-color': 'bogus' },
      { doubt: '-webkit-text-stroke' },
    ],
  ])('%s', (_name, style, expected) => {
    expect(seen({ ...whiteText, ...style })).toEqual(expected);
  });

  it('inherits the parent stroke', () => {
    const outlined = paint({ '-webkit-text-stroke-width': '1px', '-webkit-text-stroke-color': 'black' });
    expect(paint({}, outlined).glyphInks).toEqual([black]);
    expect(paint({ '-webkit-text-stroke-width': '0' }, outlined).glyphInks).toEqual([]);
  });

  it('keeps an unreadable shadow before an unreadable stroke, and the parent one after both', () => {
    expect(paint({ 'text-shadow': '1px', '-webkit-text-stroke-width': 'thick' }).unreadable).toBe('text-shadow');
    expect(paint({}, { ...initialPaint, unreadable: 'text-shadow' }).unreadable).toBe('text-shadow');
    expect(
      paint({ '-webkit-text-stroke-width': 'thick' }, { ...initialPaint, unreadable: 'text-shadow' }).unreadable,
    ).toBe('-webkit-text-stroke');
  });
});

describe('each element reads its inherited paint afresh', () => {
  const highlight = { color: 'highlight' };
  it.each<[string, Record<string, string>, string | undefined]>([
    ['no shadow leaves an unknown colour to the colour check', { ...highlight, 'text-shadow': 'none' }, undefined],
    [
      'a black shadow does not hang on the unknown text colour',
      { ...highlight, 'text-shadow': '1px 1px black' },
      undefined,
    ],
    ['a shadow without a colour takes the unknown one', { ...highlight, 'text-shadow': '1px 1px' }, 'text-shadow'],
    ['a colour between the lengths', { 'text-shadow': '1px black 1px' }, 'text-shadow'],
    ['a negative blur', { 'text-shadow': '1px 1px -2px black' }, 'text-shadow'],
    ['no offsets', { 'text-shadow': 'black' }, 'text-shadow'],
    ['an empty layer', { 'text-shadow': '1px 1px black,' }, 'text-shadow'],
    [
      'a 2% shadow on an unknown backdrop',
      { 'text-shadow': '1px 1px rgba(0,0,0,0.02)', 'background-image': 'url(a.png)' },
      'text-shadow',
    ],
    [
      'a 1.9% shadow, unseen on any backdrop',
      { 'text-shadow': '1px 1px rgba(0,0,0,0.019)', 'background-image': 'url(a.png)' },
      undefined,
    ],
  ])('%s', (_name, style, unreadable) => {
    expect(paint(style).unreadable).toBe(unreadable);
  });

  it('reads a negative blur as drawing nothing it can vouch for', () => {
    expect(paint({ color: 'white', 'text-shadow': '1px 1px -2px black' }).glyphInks).toEqual([]);
  });

  it('names color, not the fill, when a currentcolor fill follows an unknown colour', () => {
    expect(seen({ color: 'highlight', '-webkit-text-fill-color': 'currentcolor' })).toEqual({ doubt: 'color' });
    expect(seen({ color: 'highlight', '-webkit-text-fill-color': 'CurrentColor' })).toEqual({ doubt: 'color' });
  });

  it('reads a fill of INITIAL as initial, not as a colour it cannot read', () => {
    expect(seen({ '-webkit-text-fill-color': ' INITIAL ' }, paint({ '-webkit-text-fill-color': 'white' }))).toBe(
      'visible',
    );
  });

  it('takes a background at 99% alpha as opaque', () => {
    expect(paint({ 'background-color': 'rgba(0,0,0,0.99)' }).backdrop).toEqual(black);
  });
});

describe('a colour named after a key of every JavaScript object', () => {
  // A browser drops `color: constructor`, so white text stays white: read as a system colour's
  // entry, the prototype's function came out as a colour of no channels, which passed as visible.
  it.each(['constructor', '__proto__', 'toString', 'hasOwnProperty'])('color: %s keeps the inherited white', (name) => {
    const whiteText = paint({ color: '#fff' });
    expect(seen({ color: name }, whiteText)).toBe('hidden');
    expect(seen({ 'background-color': name, color: '#000' })).toBe('visible');
  });
});
