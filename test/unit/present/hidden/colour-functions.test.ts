import { describe, expect, it } from 'vitest';
import { mixColours, prepareColourMixing } from '../../../../src/present/hidden/colour/color-mix.js';
import {
  blendOver,
  contrastRatio,
  isColourOfBackground,
} from '../../../../src/present/hidden/colour/colour-contrast.js';
import { parseCssColour, type ParsedColour } from '../../../../src/present/hidden/colour/css-colour.js';
import { parseLegacyColour } from '../../../../src/present/hidden/colour/parse-legacy-colour.js';

const rgb = (r: number, g: number, b: number, a = 1) => ({ r, g, b, a });
const white = rgb(255, 255, 255);
const black = rgb(0, 0, 0);

describe('mixColours before the colour library is loaded', () => {
  it('cannot evaluate a mix, and says so', async () => {
    // Other files of a shared worker may have loaded the library into this module already: a
    // fresh instance of the module (its own id by the query) has not, whatever ran before.
    await prepareColourMixing('color-mix');
    const specifier = '../../../../src/present/hidden/colour/color-mix.js?before-load';
    const fresh = (await import(
      /* @vite-ignore */ specifier
    )) as typeof import('../../../../src/present/hidden/colour/color-mix.js');
    expect(fresh.mixColours).not.toBe(mixColours);
    expect(fresh.mixColours('in srgb, red, blue', (text) => parseCssColour(text, undefined, false))).toBe('unknown');
    expect(mixColours('in srgb, red, blue', (text) => parseCssColour(text, undefined, false))).toEqual(
      rgb(128, 0, 128),
    );
  });
});

describe('color-mix()', () => {
  const mix = async (args: string): Promise<ParsedColour | undefined> => {
    await prepareColourMixing('color-mix');
    return mixColours(args, (text) => parseCssColour(text, undefined, false));
  };
  it.each<[string, ParsedColour | undefined]>([
    ['in srgb, white, black', rgb(128, 128, 128)],
    ['in srgb, white 100%, black', white],
    ['in srgb, white, black 100%', black],
    ['in srgb, white 25%, black', rgb(64, 64, 64)],
    ['in srgb, white, black 25%', rgb(191, 191, 191)],
    ['in srgb, white 40%, black 40%', rgb(128, 128, 128, 0.8)],
    ['in srgb, white 150%, black 50%', undefined],
    ['in srgb, 25% white, black', rgb(64, 64, 64)],
    ['in SRGB, white, black', rgb(128, 128, 128)],
    ['IN srgb, white, black', rgb(128, 128, 128)],
    ['in srgb-linear, white, black', rgb(188, 188, 188)],
    ['in oklab, white, black', rgb(99, 99, 99)],
    ['in srgb, white 0%, black 0%', undefined],
    // More than two colours, or one: newer browsers mix them, older ones drop the value.
    ['in srgb, white, black, red', 'unknown'],
    ['in srgb, white', 'unknown'],
    ['srgb, white, black', undefined],
    ['in, white, black', undefined],
    ['in display-p3, white, black', 'unknown'],
    ['in constructor, white, black', 'unknown'],
    ['in __proto__, white, black', 'unknown'],
    ['in srgb, bogus, black', undefined],
    ['in srgb, white, bogus', undefined],
    ['in srgb, highlight, black', 'unknown'],
    ['in srgb, white, highlight', 'unknown'],
    ['in srgb, rgb(255 255 255 / 0.5), rgb(255 255 255 / 0.5)', rgb(255, 255, 255, 0.5)],
  ])('color-mix(%s)', async (args, expected) => {
    expect(await mix(args)).toEqual(expected);
  });

  it('clips a channel the interpolation takes out of the gamut', async () => {
    const mixed = await mix('in oklch, red 70%, blue');
    expect(mixed).toMatchObject({ g: 0, a: 1 });
  });

  it('loads the library only for mail that mixes colours', async () => {
    await expect(prepareColourMixing('<p style="color:red">x</p>')).resolves.toBeUndefined();
  });
});

describe('Lab and Oklab to sRGB', () => {
  // The conversion as parseCssColour applies it to lab(), oklab() and color(srgb-linear …).
  const channels = (text: string): [number, number, number] => {
    const parsed = parseCssColour(text, undefined, false);
    if (typeof parsed !== 'object') throw new Error(`${text} was not read`);
    return [parsed.r, parsed.g, parsed.b];
  };
  const labToSrgb = (l: number, a: number, b: number) => channels(`lab(${l} ${a} ${b})`);
  const oklabToSrgb = (l: number, a: number, b: number) => channels(`oklab(${l} ${a} ${b})`);
  const linearToSrgb = (r: number, g: number, b: number) => channels(`color(srgb-linear ${r} ${g} ${b})`);

  // Expected values from culori's conversion of the same colours, rounded and clipped.
  it.each<[number, number, number, [number, number, number]]>([
    [50, 40, -30, [165, 91, 171]],
    [70, -60, 50, [36, 197, 70]],
    [20, 10, 80, [76, 41, 0]],
    [5, 0, 0, [17, 17, 17]],
    [95, -5, 20, [243, 243, 202]],
  ])('lab(%s %s %s)', (l, a, b, expected) => {
    labToSrgb(l, a, b).forEach((channel, i) =>
      expect(Math.abs(channel - (expected[i] as number))).toBeLessThanOrEqual(1),
    );
  });

  it.each<[number, number, number, [number, number, number]]>([
    [0.6, 0.1, -0.1, [159, 99, 186]],
    [0.8, -0.15, 0.1, [99, 220, 115]],
    [0.3, 0.05, 0.2, [98, 0, 0]],
  ])('oklab(%s %s %s)', (l, a, b, expected) => {
    oklabToSrgb(l, a, b).forEach((channel, i) =>
      expect(Math.abs(channel - (expected[i] as number))).toBeLessThanOrEqual(1),
    );
  });

  it('encodes linear light, the dark end linearly', () => {
    expect(linearToSrgb(0.5, 0.002, 0.2)).toEqual([188, 7, 124]);
    expect(linearToSrgb(-0.5, 2, 0.0031308)).toEqual([0, 255, 10]);
  });
});

describe('contrast with the background', () => {
  it.each<[string, ReturnType<typeof rgb>, ReturnType<typeof rgb>, boolean]>([
    ['white on white', white, white, true],
    ['#f5f5f5 on white', rgb(245, 245, 245), white, true],
    ['#ebebeb on white', rgb(235, 235, 235), white, false],
    ['yellow within 31 of white', rgb(255, 255, 224), white, true],
    ['yellow 32 from white', rgb(255, 255, 223), white, false],
    ['blue 32 from white in one channel', rgb(223, 255, 255), white, false],
    ['green 32 from white in one channel', rgb(255, 223, 255), white, false],
    ['yellow on white', rgb(255, 255, 0), white, false],
    ['near black on black', rgb(3, 3, 3), black, true],
    ['black on near black', black, rgb(3, 3, 3), true],
  ])('%s: %s', (_name, text, backdrop, expected) => {
    expect(isColourOfBackground(text, backdrop)).toBe(expected);
  });

  it.each<[ReturnType<typeof rgb>, ReturnType<typeof rgb>, number]>([
    [black, white, 21],
    [white, black, 21],
    [rgb(255, 0, 0), black, 5.252],
    [rgb(0, 255, 0), black, 15.304],
    [rgb(0, 0, 255), black, 2.444],
    [rgb(10, 10, 10), black, 1.0607],
    [rgb(11, 11, 11), black, 1.0669],
    [rgb(128, 128, 128), white, 3.949],
  ])('%j against %j is %s', (x, y, ratio) => {
    expect(contrastRatio(x, y)).toBeCloseTo(ratio, 3);
  });

  it('blends a colour over another and rounds each channel', () => {
    expect(blendOver(black, 0.5, white)).toEqual(rgb(128, 128, 128));
    expect(blendOver(rgb(255, 0, 100), 0.25, rgb(0, 200, 0))).toEqual(rgb(64, 150, 25));
    expect(blendOver(rgb(10, 20, 30, 0.3), 1, white)).toEqual(rgb(10, 20, 30));
  });
});

describe('legacy colour attributes (HTML §2.3.6.4)', () => {
  it.each<[string, ReturnType<typeof rgb> | undefined]>([
    ['', undefined],
    ['   ', undefined],
    ['transparent', undefined],
    [' TRANSPARENT ', undefined],
    ['red', rgb(255, 0, 0)],
    [' White ', white],
    ['#abc', rgb(170, 187, 204)],
    ['#ABC', rgb(170, 187, 204)],
    [' #abc ', rgb(170, 187, 204)],
    ['abc', rgb(10, 11, 12)],
    ['#abg', rgb(10, 11, 0)],
    ['#abcd', rgb(171, 205, 0)],
    ['fff', rgb(15, 15, 15)],
    ['#', black],
    ['1', rgb(1, 0, 0)],
    ['chucknorris', rgb(192, 0, 0)],
    ['constructor', rgb(192, 0, 0)],
    ['__proto__', black],
    ['0a0b0c', rgb(10, 11, 12)],
    ['00a00b00c', rgb(10, 11, 12)],
    ['000a000b000c', rgb(10, 11, 12)],
    ['00a00b10c', rgb(0, 0, 16)],
    ['123456789012345678901234', rgb(18, 144, 120)],
    ['1234567890abcdef1234567890a', rgb(35, 171, 69)],
    ['f😀f', rgb(240, 15, 0)],
    [`${'0'.repeat(128)}fff`, black],
    [`${'0'.repeat(125)}fff`, rgb(0, 0, 255)],
  ])('%j', (attribute, expected) => {
    expect(parseLegacyColour(attribute)).toEqual(expected);
  });
});
