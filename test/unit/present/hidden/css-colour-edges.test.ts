import { converter, parse } from 'culori';
import { beforeEach, describe, expect, it, vi } from 'vitest';
import { parseCssColour, unknownColour, white, black } from '../../../../src/present/hidden/colour/css-colour.js';
import { forgetParsedColours } from './forget-parsed-colours.js';

/**
 * The edges of each colour syntax, each value parsed afresh (not from the parser's memo): a
 * colour read wrongly is text judged against the wrong colour, and a value a browser drops must
 * not be read as a colour at all.
 */
const rgb = (r: number, g: number, b: number, a = 1) => ({ r, g, b, a });

beforeEach(forgetParsedColours);

describe('values a browser drops', () => {
  it.each([
    '#g12',
    '#12g',
    'light-dark(# fff, black)',
    'rgb(xfrom 0 0)',
    'rgb(0 0 from)',
    'rgb(5x5 0 0)',
    'rgb(0 0 5e)',
    'hsl(x120 100% 50%)',
    'hsl(120x 100% 50%)',
    'hsl(120 100%x 50%)',
    'rgb(1 2 3 4)',
    'hwb(0, 0%, 0%, 0.5)',
    'lab(50, 0, 0, 0.5)',
    'rgb(1, 2, 3, 0.5 / 0.5)',
    'rgb(1 2)',
    'color(srgb 1 1 1 1)',
    'constructor',
    '__proto__',
    'tostring',
  ])('%s is no colour', (text) => {
    expect(parseCssColour(text, undefined, false)).toBeUndefined();
  });
});

describe('numbers and angles', () => {
  it.each<[string, ReturnType<typeof rgb>]>([
    ['transparent', rgb(0, 0, 0, 0)],
    ['rgb(50% 0 0)', rgb(128, 0, 0)],
    ['color(srgb .55 0 0)', rgb(140, 0, 0)],
    ['rgb(1e+2 0 0)', rgb(100, 0, 0)],
    ['rgb(1E2 0 0)', rgb(100, 0, 0)],
    ['rgb(1e10 0 0)', rgb(255, 0, 0)],
    ['rgb(25e-1 0 0)', rgb(3, 0, 0)],
    ['hsl(120.0 100% 50%)', rgb(0, 255, 0)],
    ['hsl(.5turn 100% 50%)', rgb(0, 255, 255)],
    ['hsl(.25turn 100% 50%)', rgb(128, 255, 0)],
    ['hsl(+90deg 100% 50%)', rgb(128, 255, 0)],
    ['hsl(30 100% 50%)', rgb(255, 128, 0)],
    ['hsl(0 50% 50%)', rgb(191, 64, 64)],
    ['hsl(210 50% 40%)', rgb(51, 102, 153)],
  ])('%s', (text, expected) => {
    expect(parseCssColour(text, undefined, false)).toEqual(expected);
  });
});

describe('the comma syntax takes alpha as a fourth channel only in rgb() and hsl()', () => {
  it.each<[string, ReturnType<typeof rgb>]>([
    ['rgb(255, 0, 0, 0.5)', rgb(255, 0, 0, 0.5)],
    ['rgba(255, 0, 0, 0.5)', rgb(255, 0, 0, 0.5)],
    ['hsl(0, 100%, 50%, 0.5)', rgb(255, 0, 0, 0.5)],
    ['hsla(0, 100%, 50%, 0.5)', rgb(255, 0, 0, 0.5)],
  ])('%s', (text, expected) => {
    expect(parseCssColour(text, undefined, false)).toEqual(expected);
  });
});

describe('Lab, LCH, Oklab and Oklch as culori converts them', () => {
  const toRgb = converter('rgb');
  it.each([
    'lab(50 0 0)',
    'lab(60 30 -40)',
    'lch(50 40 120)',
    'lch(70 50 300deg)',
    'lch(50 40 0.5turn)',
    'oklab(0.6 0.1 -0.1)',
    'oklch(0.7 0.15 180)',
    'oklch(0.6 0.2 30)',
  ])('%s', (text) => {
    const reference = toRgb(parse(text));
    const expected = [reference?.r, reference?.g, reference?.b].map((v) =>
      Math.round(Math.min(1, Math.max(0, v ?? Number.NaN)) * 255),
    );
    const parsed = parseCssColour(text, undefined, false);
    if (typeof parsed !== 'object') throw new Error(`${text} was not read`);
    [parsed.r, parsed.g, parsed.b].forEach((channel, i) =>
      expect(Math.abs(channel - (expected[i] as number))).toBeLessThanOrEqual(1),
    );
  });
});

it.each(['contrast-color(white)', 'device-cmyk(0 0 0 1)'])('cannot evaluate %s, and says so', (text) => {
  expect(parseCssColour(text, undefined, false)).toBe(unknownColour);
});

describe('colours that depend on where they are used are never remembered', () => {
  it('reads currentcolor and light-dark() anew each time', () => {
    expect(parseCssColour('currentcolor', white, false)).toEqual(white);
    expect(parseCssColour('currentcolor', black, false)).toEqual(black);
    expect(parseCssColour('light-dark(#000, #fff)', undefined, true)).toEqual(white);
    expect(parseCssColour('light-dark(#000, #fff)', undefined, false)).toEqual(black);
    expect(parseCssColour('light-dark(#000, #fff)', undefined, true)).toEqual(white);
  });

  it('reads color-mix() anew once the colour library is loaded', async () => {
    // Fresh instances of the parser and of the mixer, whose library is not loaded yet.
    vi.resetModules();
    const fresh = await import('../../../../src/present/hidden/colour/css-colour.js');
    const mixing = await import('../../../../src/present/hidden/colour/color-mix.js');
    expect(fresh.parseCssColour).not.toBe(parseCssColour);
    expect(fresh.parseCssColour('color-mix(in srgb, red, blue)', undefined, false)).toBe(unknownColour);
    await mixing.prepareColourMixing('color-mix');
    expect(fresh.parseCssColour('color-mix(in srgb, red, blue)', undefined, false)).toEqual(rgb(128, 0, 128));
  });
});
