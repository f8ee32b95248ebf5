import { describe, expect, it } from 'vitest';
import { boxDisplayOf, boxHiding, transformScale } from '../../../../src/present/hidden/box-hiding.js';
import type { LengthBasis } from '../../../../src/present/hidden/css/css-length.js';
import type { HidingTechnique } from '../../../../src/present/hidden/hiding-technique.js';

/**
 * boxHiding on its own, one declared style at a time: each row lands on one side of a threshold or
 * of a keyword test, and states everything the box reports (verdict, what cannot be assessed, what
 * may lie over other text, how many characters a clipping box shows).
 */
const basis: LengthBasis = {
  fontPx: 16,
  rootFontPx: 16,
  percentOf: undefined,
  viewportWidth: 1024,
  viewportHeight: 768,
  isQuirks: false,
};

interface Judged {
  verdict: HidingTechnique | undefined;
  doubts: string[];
  overlays: string[];
  capacities: number[];
}

interface Facts {
  display?: string;
  lineHeightPx?: number;
  textIndentPx?: number;
  isNoWrap?: boolean;
  isTransformable?: boolean;
}

function judge(style: Record<string, string>, facts: Facts = {}): Judged {
  const doubts: string[] = [];
  const overlays: string[] = [];
  const capacities: number[] = [];
  const verdict = boxHiding((property) => style[property], facts.display ?? 'block', basis, {
    doubt: (reason) => doubts.push(reason),
    overlay: (reason) => overlays.push(reason),
    lineHeightPx: facts.lineHeightPx,
    textIndentPx: facts.textIndentPx ?? 0,
    isNoWrap: facts.isNoWrap ?? false,
    clipCapacity: (characters) => capacities.push(characters),
    ...(facts.isTransformable === undefined ? {} : { isTransformable: facts.isTransformable }),
  });
  return { verdict, doubts, overlays, capacities };
}

const clipped = { 'overflow-x': 'hidden', 'overflow-y': 'hidden' };
const shown: Judged = { verdict: undefined, doubts: [], overlays: [], capacities: [] };

describe('a clipping box of no size', () => {
  it.each<[string, Record<string, string>, Facts, HidingTechnique | undefined]>([
    ['a block 3px high', { ...clipped, height: '3px' }, {}, 'zero-size-box'],
    ['a block with a max-height of 3px', { ...clipped, 'max-height': '3px' }, {}, 'zero-size-box'],
    ['a block 3px wide', { ...clipped, width: '3px' }, {}, 'zero-size-box'],
    ['an inline-block of no height', { ...clipped, height: '0' }, { display: 'inline-block' }, 'zero-size-box'],
    ['an inline-flex of no width', { ...clipped, width: '0' }, { display: 'inline-flex' }, 'zero-size-box'],
    ['a block ruby box of no height', { ...clipped, height: '0' }, { display: 'block ruby' }, 'zero-size-box'],
    ['a table cell of no height', { ...clipped, height: '0' }, { display: 'table-cell' }, undefined],
    ['an inline box of no height', { ...clipped, height: '0' }, { display: 'inline' }, undefined],
    ['only overflow-y clipped', { 'overflow-y': 'clip', height: '0' }, {}, 'zero-size-box'],
    ['an overflow value a browser drops', { 'overflow-x': 'xhidden', height: '0' }, {}, undefined],
    ['an overflow value with a tail', { 'overflow-x': 'hiddenx', height: '0' }, {}, undefined],
    ['lines of 3px', clipped, { lineHeightPx: 3 }, 'zero-size-box'],
    ['lines of 4px', clipped, { lineHeightPx: 4 }, undefined],
    ['lines of 3px in a box of a set height', { ...clipped, height: '100px' }, { lineHeightPx: 3 }, undefined],
    ['one line indented 500px', clipped, { isNoWrap: true, textIndentPx: 500 }, 'clipped'],
    ['one line indented 499px', clipped, { isNoWrap: true, textIndentPx: 499 }, undefined],
    ['wrapping lines indented 500px', clipped, { textIndentPx: 500 }, undefined],
  ])('%s', (_name, style, facts, verdict) => {
    expect(judge(style, facts).verdict).toBe(verdict);
  });

  it.each<[string, Record<string, string>, string[]]>([
    ['a width that cannot be read', { ...clipped, width: '1cqw' }, ['width']],
    ['a height keyword with a tail', { ...clipped, height: 'autox' }, ['height']],
    ['a height keyword with a head', { ...clipped, height: 'xauto' }, ['height']],
    ['a max-height that cannot be read', { ...clipped, 'max-height': 'tall' }, ['max-height']],
  ])('%s is named', (_name, style, doubts) => {
    expect(judge(style).doubts).toEqual(doubts);
  });
});

describe('the characters a clipping box of set height shows', () => {
  it.each<[string, Record<string, string>, Facts, number[]]>([
    // Two lines of 19.2px in 40px, across the 1024px screen at 6.4px a character.
    ['a height of 40px', { ...clipped, height: '40px' }, {}, [320]],
    ['a height of 40px under a max-height of 100px', { ...clipped, height: '40px', 'max-height': '100px' }, {}, [320]],
    ['a max-height of 40px alone', { ...clipped, 'max-height': '40px' }, {}, [320]],
    ['a height of 40px in lines of 10px', { ...clipped, height: '40px' }, { lineHeightPx: 10 }, [640]],
    ['a height of 40px, 100px wide', { ...clipped, height: '40px', width: '100px' }, {}, [32]],
    ['a height of 40px, at most 100px wide', { ...clipped, height: '40px', 'max-width': '100px' }, {}, [32]],
    [
      'a height of 40px, 200px wide but at most 100px',
      { ...clipped, height: '40px', width: '200px', 'max-width': '100px' },
      {},
      [32],
    ],
    ['a height of 40px, half the screen wide', { ...clipped, height: '40px', width: '50%' }, {}, [160]],
    ['a height less than a line', { ...clipped, height: '10px' }, {}, [160]],
    ['no height', clipped, {}, []],
    ['a height that cannot be read', { ...clipped, height: 'auto' }, {}, []],
  ])('%s', (_name, style, facts, capacities) => {
    expect(judge(style, facts).capacities).toEqual(capacities);
  });
});

describe('a box moved by position', () => {
  it.each<[string, Record<string, string>, Judged]>([
    ['static, with a far left', { left: '-2000px' }, shown],
    ['relative at −50% of the screen', { position: 'relative', left: '-50%' }, { ...shown, verdict: 'off-screen' }],
    ['relative at −40em', { position: 'relative', top: '-40em' }, { ...shown, verdict: 'off-screen' }],
    ['relative at top −499px', { position: 'relative', top: '-499px' }, { ...shown, overlays: ['position: relative'] }],
    ['relative at 19px', { position: 'relative', left: '19px', bottom: '-19px' }, shown],
    ['relative at a top of auto', { position: 'relative', top: 'AUTO' }, shown],
    ['absolute', { position: 'absolute' }, { ...shown, overlays: ['position: absolute'] }],
    ['a position with a head', { position: 'xfixed' }, { ...shown, doubts: ['position'] }],
    ['a position with a tail', { position: 'fixedx' }, { ...shown, doubts: ['position'] }],
  ])('%s', (_name, style, judged) => {
    expect(judge(style)).toEqual(judged);
  });

  it.each(['left', 'top', 'right', 'bottom'])('a %s that cannot be read is named', (side) => {
    expect(judge({ position: 'relative', [side]: 'far' }).doubts).toEqual([side]);
    expect(judge({ position: 'relative', [side]: 'autox' }).doubts).toEqual([side]);
    expect(judge({ position: 'relative', [side]: 'xauto' }).doubts).toEqual([side]);
  });
});

describe('margins and clip', () => {
  it.each<[string, Record<string, string>, Facts, Judged]>([
    ['a margin-left of −40em', { 'margin-left': '-40em' }, {}, { ...shown, verdict: 'off-screen' }],
    ['a margin-top of −19px', { 'margin-top': '-19px' }, {}, shown],
    ['a margin-top of −2000px on an inline box', { 'margin-top': '-2000px' }, { display: 'inline' }, shown],
    ['clip:auto', { clip: 'auto' }, {}, shown],
    ['clip:AUTO', { clip: 'AUTO' }, {}, shown],
    ['a clip keyword with a tail', { clip: 'autox' }, {}, { ...shown, doubts: ['clip'] }],
    ['a clip keyword with a head', { clip: 'xauto' }, {}, { ...shown, doubts: ['clip'] }],
    ['a clip that is no function', { clip: 'garbage' }, {}, { ...shown, doubts: ['clip'] }],
    ['a clip rect with spaces around it', { clip: ' rect(1px, 2px, 3px, 4px) ' }, {}, shown],
  ])('%s', (_name, style, facts, judged) => {
    expect(judge(style, facts)).toEqual(judged);
  });

  const absolute = (clip: string): Record<string, string> => ({ position: 'absolute', clip });
  it.each<[string, string, HidingTechnique | undefined]>([
    ['a rect 3px high', 'rect(0, auto, 3px, auto)', 'clipped'],
    ['a rect 3px wide', 'rect(auto, 3px, auto, 0)', 'clipped'],
    ['a rect 2px high away from the top', 'rect(10px, 100px, 12px, 0)', 'clipped'],
    ['a rect 2px wide away from the left', 'rect(0, 12px, 100px, 10px)', 'clipped'],
    ['a rect 4px high', 'rect(0, 100px, 4px, 0)', undefined],
    ['a rect 4px wide', 'rect(0, 4px, 100px, 0)', undefined],
    ['a rect of a tenth of an em', 'rect(0, 20em, 0.1em, 0)', 'clipped'],
    ['a rect with spaces around it', ' rect(0 0 0 0) ', 'clipped'],
    ['a rect open below', 'rect(0, 100px, auto, 0)', undefined],
    ['a rect open above and to the left', 'rect(auto, 100px, 100px, auto)', undefined],
    ['a rect open on every side', 'rect(auto, auto, auto, auto)', undefined],
    ['a rect of 100px', 'rect(0, 100px, 100px, 0)', undefined],
    ['a rect of three sides', 'rect(0, 0, 0)', undefined],
    ['an inset, which clip does not take', 'inset(0 0 0 0)', undefined],
  ])('%s', (_name, clip, verdict) => {
    expect(judge(absolute(clip)).verdict).toBe(verdict);
  });

  // A side in a unit the detector cannot resolve (a container's) may clip the box to nothing.
  it.each<[string, string]>([
    ['a side that cannot be read', 'rect(0, 1cqw, 1cqh, 0)'],
    ['a side that is a word', 'rect(0, far, 0, 0)'],
    ['three sides', 'rect(0, 0, 0)'],
    ['a side of auto with a tail', 'rect(0, autox, 0, 0)'],
    ['a side of auto with a head', 'rect(0, xauto, 0, 0)'],
    ['a clip that is not a rect', 'inset(0 0 0 0)'],
  ])('a clip rect with %s is named', (_name, clip) => {
    expect(judge(absolute(clip)).doubts).toEqual(['clip']);
  });
});

describe('transforms', () => {
  it.each<[string, Record<string, string>, Facts, Judged]>([
    ['the scale property at zero', { scale: '0' }, {}, { ...shown, verdict: 'scaled-to-zero' }],
    ['the scale property zero on the second axis', { scale: '1 0' }, {}, { ...shown, verdict: 'scaled-to-zero' }],
    ['scale:none', { scale: 'none' }, {}, shown],
    ['a transform on display:contents', { transform: 'scale(0)' }, { display: 'contents' }, shown],
    ['a transform on an inline box', { transform: 'scale(0)' }, { display: 'inline' }, shown],
    [
      'a transform on inline SVG content',
      { transform: 'scale(0)' },
      { display: 'inline', isTransformable: true },
      { ...shown, verdict: 'scaled-to-zero' },
    ],
    ['translate by 30px', { translate: '30px 0' }, {}, { ...shown, overlays: ['transform: translate'] }],
    ['translate by 0%', { translate: '0%' }, {}, shown],
    ['translate by 0.00%', { translate: '0.00%' }, {}, shown],
    ['translate by .0%', { translate: '.0%' }, {}, shown],
    ['translate by −0%', { translate: '-0%' }, {}, shown],
    ['translate by a per cent with a tail', { translate: '0%x' }, {}, { ...shown, overlays: ['transform: translate'] }],
    ['translate by 10%', { translate: '10%' }, {}, { ...shown, overlays: ['transform: translate'] }],
    ['translate by −40em', { translate: '-40em' }, {}, { ...shown, verdict: 'off-screen' }],
    ['translate in depth only', { translate: '0 0 30px' }, {}, { ...shown, doubts: ['translate'] }],
    ['a translate keyword with a head', { translate: 'xnone' }, {}, { ...shown, overlays: ['transform: translate'] }],
    ['a translate keyword with a tail', { translate: 'nonex' }, {}, { ...shown, overlays: ['transform: translate'] }],
    ['translate:none', { translate: 'none' }, {}, shown],
    ['a rotate keyword with a head', { rotate: 'xnone' }, {}, { ...shown, doubts: ['rotate'] }],
    ['a rotate keyword with a tail', { rotate: 'nonex' }, {}, { ...shown, doubts: ['rotate'] }],
    ['rotate:none', { rotate: 'none' }, {}, shown],
    // An axis with the angle turns the text about it: a quarter turn about x leaves it edge-on.
    ['rotate about the x axis, angle first', { rotate: '90deg x' }, {}, { ...shown, doubts: ['rotate'] }],
    ['rotate about the x axis', { rotate: 'x 90deg' }, {}, { ...shown, doubts: ['rotate'] }],
    ['a transform keyword with a head', { transform: 'xnone' }, {}, { ...shown, doubts: ['transform: xnone'] }],
    ['a transform keyword with a tail', { transform: 'nonex' }, {}, { ...shown, doubts: ['transform: nonex'] }],
    ['transform:none with spaces around it', { transform: ' none ' }, {}, shown],
  ])('%s', (_name, style, facts, judged) => {
    expect(judge(style, facts)).toEqual(judged);
  });

  const transform = (value: string): Judged => judge({ transform: value });
  it.each<[string, Judged]>([
    ['scale(0)', { ...shown, verdict: 'scaled-to-zero' }],
    ['scale(1, 0)', { ...shown, verdict: 'scaled-to-zero' }],
    ['scaleX(0)', { ...shown, verdict: 'scaled-to-zero' }],
    ['scale3d(1, 1, 0)', shown],
    ['scale(1, 1, 0)', shown],
    ['scale3d(0, 1, 1)', { ...shown, verdict: 'scaled-to-zero' }],
    ['translate3d(0, 0, -2000px)', { ...shown, doubts: ['transform: translate3d'] }],
    ['translate3d(0, 0, 100px)', { ...shown, doubts: ['transform: translate3d'] }],
    ['translate3d(1px, 1px, 0)', shown],
    ['translate3d(0, 0)', { ...shown, doubts: ['transform: translate3d'] }],
    ['translateX(-40em)', { ...shown, verdict: 'off-screen' }],
    ['translateX(-499px)', { ...shown, overlays: ['transform: translate'] }],
    ['translateZ(100px)', { ...shown, doubts: ['transform: translatez'] }],
    ['xtranslate(0)', { ...shown, doubts: ['transform: xtranslate'] }],
    ['x'.repeat(30), { ...shown, doubts: [`transform: ${'x'.repeat(20)}`] }],
    ['matrix(1, 2, 2, 4, 0, 0)', { ...shown, verdict: 'scaled-to-zero' }],
    ['matrix(2, 1, 4, 2, 0, 0)', { ...shown, verdict: 'scaled-to-zero' }],
    ['matrix(0, 0, 0, 0)', shown],
    ['matrix(1, 0, 0, 1, 20, 0)', { ...shown, overlays: ['transform: matrix'] }],
    ['matrix(1, 0, 0, 1, 0, -20)', { ...shown, overlays: ['transform: matrix'] }],
    ['matrix(1, 0, 0, 1, 19, 0)', shown],
    ['matrix(1, 0, 0, 1, -500, 0)', { ...shown, verdict: 'off-screen' }],
    ['rotate(0, 0, 0, 0, 0, 0)', { ...shown, doubts: ['transform: rotate'] }],
    ['rotate(90deg)', shown],
    ['rotateZ(90deg)', shown],
    ['rotateZ(far)', { ...shown, doubts: ['transform: rotatez'] }],
    ['rotateX(90deg)', { ...shown, verdict: 'scaled-to-zero' }],
    ['rotateX(-90deg)', { ...shown, verdict: 'scaled-to-zero' }],
    ['rotateX(+90deg)', { ...shown, verdict: 'scaled-to-zero' }],
    ['rotateY(.25turn)', { ...shown, verdict: 'scaled-to-zero' }],
    ['rotateX(90degrees)', { ...shown, doubts: ['transform: rotatex'] }],
    ['rotateX(90deg 1)', { ...shown, doubts: ['transform: rotatex'] }],
    ['rotateX(120deg)', { ...shown, doubts: ['transform: rotatex'] }],
    ['rotateX(60deg)', shown],
    ['skewX(12.5deg)', shown],
    ['skewX(90deg)', { ...shown, verdict: 'scaled-to-zero' }],
    ['skew(10deg, far)', { ...shown, doubts: ['transform: skew'] }],
    ['skewY(1.5708rad)', { ...shown, verdict: 'scaled-to-zero' }],
    ['rotateX(100grad)', { ...shown, verdict: 'scaled-to-zero' }],
    ['rotate(5)', { ...shown, doubts: ['transform: rotate'] }],
    ['rotate(0)', shown],
  ])('transform: %s', (value, judged) => {
    expect(transform(value)).toEqual(judged);
  });
});

describe('scales a browser computes', () => {
  // calc(0) is zero to a browser: a scale or matrix this code cannot compute is named, never taken as 1.
  it.each<[string, Record<string, string>, string]>([
    ['scale(calc(0))', { transform: 'scale(calc(0))' }, 'transform: scale'],
    ['scaleX(min(0, 1))', { transform: 'scaleX(min(0, 1))' }, 'transform: scalex'],
    ['scale3d(1, clamp(0, 0, 1), 1)', { transform: 'scale3d(1, clamp(0, 0, 1), 1)' }, 'transform: scale3d'],
    ['matrix(calc(0), 0, 0, 1, 0, 0)', { transform: 'matrix(calc(0), 0, 0, 1, 0, 0)' }, 'transform: matrix'],
    ['the scale property at calc(0)', { scale: 'calc(0)' }, 'scale'],
    ['the scale property with one computed axis', { scale: '1 calc(0)' }, 'scale'],
  ])('%s is named', (_, style, doubt) => {
    expect(judge(style)).toEqual({ ...shown, doubts: [doubt] });
  });

  it.each<[string, Record<string, string>]>([
    ['scale(0.5, 1e0)', { transform: 'scale(0.5, 1e0)' }],
    ['scale(50%)', { transform: 'scale(50%)' }],
    ['matrix(1, 0, 0, 1, 0, 0)', { transform: 'matrix(1, 0, 0, 1, 0, 0)' }],
    ['the scale property at .5 +1', { scale: '.5 +1' }],
    ['the scale property at none', { scale: 'none' }],
  ])('%s is read', (_, style) => {
    expect(judge(style).doubts).toEqual([]);
  });
});

describe('clip-path', () => {
  const path = (value: string): Judged => judge({ 'clip-path': value });
  it.each<[string, Judged]>([
    ['none', shown],
    [' none ', shown],
    ['xnone', { ...shown, doubts: ['clip-path'] }],
    ['nonex', { ...shown, doubts: ['clip-path'] }],
    [' circle(1px) ', { ...shown, verdict: 'clipped' }],
    ['circle(0%)', { ...shown, verdict: 'clipped' }],
    ['circle(0.1em)', { ...shown, verdict: 'clipped' }],
    ['circle(0x50%)', { ...shown, doubts: ['clip-path: circle'] }],
    ['circle(50%)', shown],
    ['circle(+50%)', shown],
    ['circle(50.5%)', shown],
    ['circle(50%x)', { ...shown, doubts: ['clip-path: circle'] }],
    ['circle(1024px)', shown],
    ['circle(1023px)', { ...shown, doubts: ['clip-path: circle'] }],
    ['circle(closest-side)', shown],
    ['circle(xclosest-side)', { ...shown, doubts: ['clip-path: circle'] }],
    ['circle(closest-sidex)', { ...shown, doubts: ['clip-path: circle'] }],
    ['circle()', shown],
    ['circle(at 0 0)', shown],
    ['circle(50% at 0 0)', shown],
    ['circle(50% 0)', shown],
    ['ellipse(50%, 50%)', shown],
    ['ellipse(50% 50% at 0 0)', shown],
    ['inset()', { ...shown, doubts: ['clip-path: inset'] }],
    ['inset(.55%)', shown],
    ['inset(12.5%)', shown],
    ['inset(12.6%)', { ...shown, doubts: ['clip-path: inset'] }],
    ['inset(20px)', shown],
    ['inset(0 512px)', { ...shown, verdict: 'clipped' }],
    ['inset(0 511px)', { ...shown, doubts: ['clip-path: inset'] }],
    ['inset(50% 0)', { ...shown, verdict: 'clipped' }],
    ['inset(0 50%)', { ...shown, verdict: 'clipped' }],
    ['polygon(10px 10px, 20px 20px, 30px 30px)', { ...shown, verdict: 'clipped' }],
    ['polygon(0% 0%, 100% 0%, 100% 95%, 0% 95%)', shown],
    ['polygon(0% 0%, 100% 0%, 100% 50%, 0% 50%)', { ...shown, doubts: ['clip-path: polygon'] }],
    ['polygon(xnonzero, 0% 0%, 100% 0%, 100% 100%, 0% 100%)', { ...shown, doubts: ['clip-path: polygon'] }],
    ['polygon(nonzerox, 0% 0%, 100% 0%, 100% 100%, 0% 100%)', { ...shown, doubts: ['clip-path: polygon'] }],
    ['polygon(0% 0%, 100% 0%, 100% 100%, 0% 100% 5%)', { ...shown, doubts: ['clip-path: polygon'] }],
    ['polygon(0% 0% 5%, 100% 0% 5%, 100% 100% 5%, 0% 100% 5%)', { ...shown, doubts: ['clip-path: polygon'] }],
    ['polygon(0% 0%, 100% 0%, 100% 100%, 0% far)', { ...shown, doubts: ['clip-path: polygon'] }],
    ['path("M0 0")', { ...shown, doubts: ['clip-path: path'] }],
  ])('%s', (value, judged) => {
    expect(path(value)).toEqual(judged);
  });
});

describe('transformScale', () => {
  const scaleOf = (style: Record<string, string>, display = 'block'): number =>
    transformScale((property) => style[property], display);
  it.each<[string, Record<string, string>, number]>([
    ['a 3-D scale property, flat in depth', { scale: '1 1 0.1' }, 1],
    ['a scale property partly unreadable', { scale: '0.5 far' }, 1],
    ['a scale property of 50%', { scale: '50%' }, 0.5],
    ['a scale property of 0.5 and 2', { scale: '0.5 2' }, 0.5],
    ['scale3d, flat in depth', { transform: 'scale3d(1, 1, 0.1)' }, 1],
    ['scale(0.5, -2)', { transform: 'scale(0.5, -2)' }, 0.5],
    ['scaleY(0.5)', { transform: 'scaleY(0.5)' }, 0.5],
    ['rotateX(60deg)', { transform: 'rotateX(60deg)' }, Math.cos(Math.PI / 3)],
    ['rotateY(60deg)', { transform: 'rotateY(60deg)' }, Math.cos(Math.PI / 3)],
    ['a matrix of four numbers', { transform: 'matrix(0.1, 0, 0, 0.1)' }, 1],
    ['a matrix with a word', { transform: 'matrix(0.1, 0, 0, 0.1, x, 0)' }, 1],
    ['a skew with six numbers', { transform: 'skew(0.1, 0, 0, 0.1, 0, 0)' }, 1],
    ['a turned matrix, half size', { transform: 'matrix(0.5, 0.5, -0.5, 0.5, 0, 0)' }, Math.SQRT1_2],
    ['a word', { transform: 'far' }, 1],
    ['no transform', {}, 1],
  ])('%s', (_name, style, factor) => {
    expect(scaleOf(style)).toBeCloseTo(factor, 6);
  });

  it('leaves inline boxes and display:contents unscaled', () => {
    expect(scaleOf({ scale: '0.1' }, 'inline')).toBe(1);
    expect(scaleOf({ scale: '0.1' }, 'contents')).toBe(1);
  });
});

describe('boxDisplayOf', () => {
  it.each<[Record<string, string>, string, string]>([
    [{ float: 'left' }, 'inline', 'block'],
    [{ float: 'LEFT' }, 'inline-block', 'block'],
    [{ float: 'none' }, 'inline', 'inline'],
    [{ float: 'initial' }, 'inline', 'inline'],
    [{ position: 'absolute' }, 'inline', 'block'],
    [{ position: 'Fixed' }, 'inline', 'block'],
    [{ position: 'relative' }, 'inline', 'inline'],
    [{ float: 'left' }, 'flex', 'flex'],
    [{ float: 'left' }, 'flow inline', 'flow inline'],
  ])('%j on %s is %s', (style, display, expected) => {
    expect(boxDisplayOf((property) => style[property], display)).toBe(expected);
  });
});
