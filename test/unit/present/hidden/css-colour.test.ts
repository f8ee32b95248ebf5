import { describe, expect, it } from 'vitest';
import { black, parseCssColour, unknownColour, white } from '../../../../src/present/hidden/colour/css-colour.js';

const rgb = (r: number, g: number, b: number, a = 1) => ({ r, g, b, a });

describe('CSS colours a hiding rule may be written in', () => {
  it.each<[string, ReturnType<typeof rgb> | undefined]>([
    ['#FFF', rgb(255, 255, 255)],
    ['#ffffff80', rgb(255, 255, 255, 128 / 255)],
    ['#fff0', rgb(255, 255, 255, 0)],
    ['#fffff', undefined],
    ['#ggg', undefined],
    ['#', undefined],
    ['  WHITE  ', rgb(255, 255, 255)],
    ['canvastext', rgb(0, 0, 0)],
    ['field', rgb(255, 255, 255)],
    ['fieldtext', rgb(0, 0, 0)],
    ['linktext', rgb(0, 0, 238)],
    ['visitedtext', rgb(85, 26, 139)],
    ['activetext', rgb(255, 0, 0)],
    ['rgb(300, -20, 127.6)', rgb(255, 0, 128)],
    ['rgb(none 255 255)', rgb(0, 255, 255)],
    ['rgb(255, 255, 255, 0)', rgb(255, 255, 255, 0)],
    ['rgba(255 255 255 / 0%)', rgb(255, 255, 255, 0)],
    ['rgb(255 255 255 / 2)', rgb(255, 255, 255, 1)],
    ['rgb(255 255 255 / -1)', rgb(255, 255, 255, 0)],
    ['rgb(255 255 255 / x)', undefined],
    ['rgb(255 255 255 0)', undefined],
    ['rgba(255 255 255 0)', undefined],
    ['hsla(0 0% 100% 0)', undefined],
    ['hsl(0, 0%, 100%, 0, 0)', undefined],
    ['rgb(1e2 0 0)', rgb(100, 0, 0)],
    ['rgb(1px 0 0)', undefined],
    ['rgb(a 0 0)', undefined],
    ['rgb(0 0)', undefined],
    ['hsl(0, 0%, 100%, 0.5)', rgb(255, 255, 255, 0.5)],
    ['hsla(0 0% 100%)', rgb(255, 255, 255)],
    ['hsl(-120 100% 50%)', rgb(0, 0, 255)],
    ['hsl(480 100% 50%)', rgb(0, 255, 0)],
    ['hsl(400grad 100% 50%)', rgb(255, 0, 0)],
    ['hsl(3.14159265rad 100% 50%)', rgb(0, 255, 255)],
    ['hsl(none 0% 100%)', rgb(255, 255, 255)],
    ['hsl(0 200% 50%)', rgb(255, 0, 0)],
    ['hsl(0 100% 150%)', rgb(255, 255, 255)],
    ['hsl(0 100% -50%)', rgb(0, 0, 0)],
    ['hsl(red 100% 50%)', undefined],
    ['hsl(0 x 50%)', undefined],
    ['hsl(0 50%)', undefined],
    ['hwb(0 50% 50%)', rgb(128, 128, 128)],
    ['hwb(0 60% 60%)', rgb(128, 128, 128)],
    ['hwb(0 100% 0%)', rgb(255, 255, 255)],
    ['hwb(120 0% 0%)', rgb(0, 255, 0)],
    ['hwb(240 20% 0%)', rgb(51, 51, 255)],
    ['hwb(0 0% 100%)', rgb(0, 0, 0)],
    ['lab(0 0 0)', rgb(0, 0, 0)],
    ['lab(100% 0 0)', rgb(255, 255, 255)],
    ['lch(0% 0 0)', rgb(0, 0, 0)],
    ['lch(100 0 90deg)', rgb(255, 255, 255)],
    ['oklab(100% 0 0)', rgb(255, 255, 255)],
    ['oklch(1 0 none)', rgb(255, 255, 255)],
    ['oklch(0 0 0 / 0.5)', rgb(0, 0, 0, 0.5)],
    ['lab(x 0 0)', undefined],
    ['lch(50 0 x)', undefined],
    ['oklab(0.5 x 0)', undefined],
    ['lab(50 0 0 0)', undefined],
    ['color(srgb 2 -1 0.5)', rgb(255, 0, 128)],
    ['color(srgb 100% 100% 100%)', rgb(255, 255, 255)],
    ['color(srgb-linear 1 1 1)', rgb(255, 255, 255)],
    ['color(srgb-linear 0 0 0 / 0.25)', rgb(0, 0, 0, 0.25)],
    ['color(srgb 1 1)', undefined],
    ['color(srgb x 1 1)', undefined],
    ['light-dark(#fff #000)', undefined],
    ['notafunction(1 2 3)', undefined],
    ['none', undefined],
  ])('reads %s', (text, expected) => {
    expect(parseCssColour(text, undefined, false)).toEqual(expected);
  });

  it.each([
    'device-cmyk(0 0 0 0)',
    'rgb(calc(255) 255 255)',
    'rgb(min(255, 1) 255 255)',
    'hsl(max(0, 1) 0% 100%)',
    'rgb(clamp(0, 255, 255) 255 255)',
    'hsl(from white h s l)',
    'color(a98-rgb 1 1 1)',
    'currentcolor',
  ])('cannot evaluate %s, and says so', (text) => {
    expect(parseCssColour(text, undefined, false)).toBe(unknownColour);
  });

  it.each([
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
  ])('takes the platform colour %s as one it cannot know', (name) => {
    expect(parseCssColour(name, undefined, false)).toBe(unknownColour);
  });

  it('reads currentcolor from each element, not from the last one read', () => {
    expect(parseCssColour('currentcolor', white, false)).toEqual(white);
    expect(parseCssColour('currentcolor', black, false)).toEqual(black);
    expect(parseCssColour('light-dark(currentcolor, red)', white, false)).toEqual(white);
    expect(parseCssColour('light-dark(currentcolor, red)', black, false)).toEqual(black);
    expect(parseCssColour('light-dark(red, #fff)', undefined, true)).toEqual(white);
    expect(parseCssColour('light-dark(red, #fff)', undefined, false)).toEqual(rgb(255, 0, 0));
  });

  it('reads the same colours alike after many distinct ones', () => {
    for (let i = 0; i < 600; i++) parseCssColour(`rgb(${i % 256} ${Math.floor(i / 256)} 0)`, undefined, false);
    expect(parseCssColour('#fff', undefined, false)).toEqual(white);
    expect(parseCssColour('rgb(1 2 0)', undefined, false)).toEqual(rgb(1, 2, 0));
  });
});
