import { prepareColourMixing } from '../../../../src/present/hidden/colour/color-mix.js';
import { describe, expect, it } from 'vitest';
import { contrastRatio, isColourOfBackground } from '../../../../src/present/hidden/colour/colour-contrast.js';
import { parseCssColour, unknownColour, white } from '../../../../src/present/hidden/colour/css-colour.js';
import { resolveLength, type LengthBasis } from '../../../../src/present/hidden/css/css-length.js';
import { parseDeclarations, splitComponents } from '../../../../src/present/hidden/css/parse-declarations.js';
import { parseLegacyColour } from '../../../../src/present/hidden/colour/parse-legacy-colour.js';

const rgb = (r: number, g: number, b: number, a = 1) => ({ r, g, b, a });

describe('CSS colours', () => {
  it.each<[string, ReturnType<typeof rgb>]>([
    ['#0c8', rgb(0, 204, 136)],
    ['#0c88', rgb(0, 204, 136, 136 / 255)],
    ['#00CC88', rgb(0, 204, 136)],
    ['RebeccaPurple', rgb(102, 51, 153)],
    ['rgb(10, 20, 30)', rgb(10, 20, 30)],
    ['rgba(10,20,30,.5)', rgb(10, 20, 30, 0.5)],
    ['rgb(10 20 30 / 25%)', rgb(10, 20, 30, 0.25)],
    ['rgb(100% 0% 50%)', rgb(255, 0, 128)],
    ['hsl(120deg 100% 25%)', rgb(0, 128, 0)],
    ['hsla(0.5turn, 100%, 50%, 0)', rgb(0, 255, 255, 0)],
    ['hwb(0 100% 0%)', rgb(255, 255, 255)],
    ['oklch(0% 0 0)', rgb(0, 0, 0)],
    ['oklab(1 0 0)', rgb(255, 255, 255)],
    ['lch(100% 0 0)', rgb(255, 255, 255)],
    ['color(srgb 1 1 1)', rgb(255, 255, 255)],
    ['transparent', rgb(0, 0, 0, 0)],
    ['canvas', rgb(255, 255, 255)],
  ])('reads %s', (text, expected) => {
    expect(parseCssColour(text, undefined, false)).toEqual(expected);
  });

  it('reads currentcolor and light-dark() from their context', () => {
    expect(parseCssColour('currentColor', white, false)).toEqual(white);
    expect(parseCssColour('light-dark(#fff, #000)', undefined, false)).toEqual(white);
    expect(parseCssColour('light-dark(#fff, #000)', undefined, true)).toEqual(rgb(0, 0, 0));
  });

  it('tells a colour it cannot evaluate from a value that is no colour', () => {
    expect(parseCssColour('contrast-color(red)', undefined, false)).toBe(unknownColour);
    expect(parseCssColour('ButtonFace', undefined, false)).toBe(unknownColour);
    expect(parseCssColour('whiteish', undefined, false)).toBeUndefined();
    expect(parseCssColour('#ffff1', undefined, false)).toBeUndefined();
    expect(parseCssColour('rgb(1, 2)', undefined, false)).toBeUndefined();
    expect(parseCssColour('color(display-p3 1 1 1)', undefined, false)).toBe(unknownColour);
    expect(parseCssColour('rgb(from red r g b)', undefined, false)).toBe(unknownColour);
  });

  it('mixes colours with color-mix() as CSS Color 5 normalises the percentages', async () => {
    await prepareColourMixing('color-mix');
    expect(parseCssColour('color-mix(in srgb, red, blue)', undefined, false)).toEqual({ r: 128, g: 0, b: 128, a: 1 });
    expect(parseCssColour('color-mix(in srgb, white 100%, black 0%)', undefined, false)).toEqual({
      r: 255,
      g: 255,
      b: 255,
      a: 1,
    });
    expect(parseCssColour('color-mix(in oklab, #fff 70%, #fff)', undefined, false)).toEqual({
      r: 255,
      g: 255,
      b: 255,
      a: 1,
    });
    // Percentages summing under 100% scale the alpha (CSS Color 5 §2.1).
    expect(parseCssColour('color-mix(in srgb, white 30%, white 20%)', undefined, false)).toMatchObject({
      r: 255,
      a: 0.5,
    });
    expect(parseCssColour('color-mix(in srgb, currentcolor, white)', { r: 0, g: 0, b: 0, a: 1 }, false)).toMatchObject({
      r: 128,
      g: 128,
      b: 128,
    });
    expect(parseCssColour('color-mix(in display-p3, red, blue)', undefined, false)).toBe(unknownColour);
    expect(parseCssColour('color-mix(in srgb, rgb(from red r g b), blue)', undefined, false)).toBe(unknownColour);
    expect(parseCssColour('color-mix(srgb, red, blue)', undefined, false)).toBeUndefined();
    // One colour is a mix newer browsers take and older ones drop: not evaluated.
    expect(parseCssColour('color-mix(in srgb, red)', undefined, false)).toBe(unknownColour);
  });

  it('parses legacy colour attributes as browsers do', () => {
    expect(parseLegacyColour('fff')).toEqual(rgb(15, 15, 15));
    expect(parseLegacyColour('#fff')).toEqual(rgb(255, 255, 255));
    expect(parseLegacyColour('ffffff')).toEqual(rgb(255, 255, 255));
    expect(parseLegacyColour('chucknorris')).toEqual(rgb(192, 0, 0));
    expect(parseLegacyColour(' White ')).toEqual(rgb(255, 255, 255));
    expect(parseLegacyColour('transparent')).toBeUndefined();
    expect(parseLegacyColour('')).toBeUndefined();
  });

  it('calls text the colour of its background below 1.1:1 and within 32 per channel', () => {
    expect(contrastRatio(rgb(0, 0, 0), white)).toBeCloseTo(21, 5);
    expect(isColourOfBackground(rgb(245, 245, 245), white)).toBe(true);
    expect(isColourOfBackground(rgb(238, 238, 238), white)).toBe(false);
    expect(isColourOfBackground(rgb(255, 255, 0), white)).toBe(false);
    expect(isColourOfBackground(rgb(10, 10, 10), rgb(0, 0, 0))).toBe(true);
  });
});

describe('CSS lengths', () => {
  const basis: LengthBasis = {
    fontPx: 20,
    rootFontPx: 16,
    percentOf: 200,
    viewportWidth: 1000,
    viewportHeight: 500,
    isQuirks: false,
  };

  it.each<[string, number | undefined]>([
    ['0', 0],
    ['12px', 12],
    ['12pt', 16],
    ['1in', 96],
    ['2em', 40],
    ['2rem', 32],
    ['50%', 100],
    ['-10vw', -100],
    ['calc(100% - 2em)', 160],
    ['calc(-1 * 9999px)', -9999],
    ['calc((1px + 2px) * 3)', 9],
    ['min(10px, 2em)', 10],
    ['max(10px, 2em)', 40],
    ['clamp(0px, -5px, 10px)', 0],
    ['12', undefined],
    ['auto', undefined],
    ['calc(10px + 5)', undefined],
    ['calc(10px', undefined],
    ['1e2px', 100],
  ])('resolves %s', (text, expected) => {
    expect(resolveLength(text, basis)).toBe(expected);
  });

  it('reads a unitless number as px in quirks mode only', () => {
    expect(resolveLength('12', { ...basis, isQuirks: true })).toBe(12);
  });
});

describe('declarations', () => {
  it('splits a style attribute as CSS does, with strings, comments, blocks and !important', () => {
    expect(
      parseDeclarations(
        'color: red; background:url("a;b") /* ; */ #fff;display:none ! IMPORTANT;;bad;--Var: x;  :x; 1a: b',
      ),
    ).toEqual([
      { property: 'color', value: 'red', isImportant: false },
      { property: 'background', value: 'url("a;b")   #fff', isImportant: false },
      { property: 'display', value: 'none', isImportant: true },
      { property: '--Var', value: 'x', isImportant: false },
    ]);
  });

  it('splits component values, keeping functions whole', () => {
    expect(splitComponents('0/0 a, rgb(0 0 0 / 50%)  "x y"')).toEqual([
      '0',
      '/',
      '0',
      'a',
      ',',
      'rgb(0 0 0 / 50%)',
      '"x y"',
    ]);
  });
});
