import type { Element } from 'domhandler';
import { describe, expect, it } from 'vitest';
import { svgHiding } from '../../../../src/present/hidden/svg-hiding.js';

/**
 * svgHiding on one element at a time: every SVG size and text position on each side of its edge,
 * with what it names when it cannot place the text.
 */
type Box = { width: number | undefined; height: number | undefined; hasViewBox: boolean };

function svg(
  name: string,
  attribs: Record<string, string>,
  parent: Box | undefined = undefined,
  css: Record<string, number> = {},
): { hiddenBy: string | undefined; box: Box | undefined; doubts: string[] } {
  const doubts: string[] = [];
  const element = { name, attribs } as unknown as Element;
  const result = svgHiding(
    element,
    parent,
    16,
    (reason) => doubts.push(reason),
    (property) => css[property],
  );
  return { ...result, doubts };
}

const frame: Box = { width: 100, height: 50, hasViewBox: false };

describe('the <svg> box', () => {
  it.each<[string, Record<string, string>, Record<string, number>, Box, string | undefined]>([
    ['no size', {}, {}, { width: undefined, height: undefined, hasViewBox: false }, undefined],
    ['100 by 50', { width: '100', height: '50' }, {}, { ...frame }, undefined],
    ['in px', { width: '100px', height: ' 50PX ' }, {}, { ...frame }, undefined],
    ['a signed width', { width: '+100', height: '50' }, {}, { ...frame }, undefined],
    [
      'a width of .5e1 is no user unit',
      { width: '5e1' },
      {},
      { width: undefined, height: undefined, hasViewBox: false },
      undefined,
    ],
    ['a decimal width', { width: '3.5' }, {}, { width: 3.5, height: undefined, hasViewBox: false }, 'zero-size-box'],
    ['a width of .5', { width: '.5' }, {}, { width: 0.5, height: undefined, hasViewBox: false }, 'zero-size-box'],
    ['a width of .55', { width: '.55' }, {}, { width: 0.55, height: undefined, hasViewBox: false }, 'zero-size-box'],
    ['a width of 12.25', { width: '12.25' }, {}, { width: 12.25, height: undefined, hasViewBox: false }, undefined],
    ['a width of −1', { width: '-1' }, {}, { width: -1, height: undefined, hasViewBox: false }, 'zero-size-box'],
    ['a width in per cent', { width: '0%' }, {}, { width: undefined, height: undefined, hasViewBox: false }, undefined],
    ['a width with a tail', { width: '0x' }, {}, { width: undefined, height: undefined, hasViewBox: false }, undefined],
    ['a width with a head', { width: 'x0' }, {}, { width: undefined, height: undefined, hasViewBox: false }, undefined],
    ['3 wide', { width: '3', height: '50' }, {}, { width: 3, height: 50, hasViewBox: false }, 'zero-size-box'],
    ['4 wide', { width: '4', height: '50' }, {}, { width: 4, height: 50, hasViewBox: false }, undefined],
    ['3 high', { width: '100', height: '3' }, {}, { width: 100, height: 3, hasViewBox: false }, 'zero-size-box'],
    ['4 high', { width: '100', height: '4' }, {}, { width: 100, height: 4, hasViewBox: false }, undefined],
    ['a viewBox', { viewbox: '0 0 10 10' }, {}, { width: undefined, height: undefined, hasViewBox: true }, undefined],
    [
      'CSS width over the attribute',
      { width: '100', height: '50' },
      { width: 0 },
      { width: 0, height: 50, hasViewBox: false },
      'zero-size-box',
    ],
    [
      'CSS height over the attribute',
      { width: '100', height: '50' },
      { height: 2 },
      { width: 100, height: 2, hasViewBox: false },
      'zero-size-box',
    ],
    [
      'a CSS max-width under the attribute',
      { width: '100', height: '50' },
      { 'max-width': 2 },
      { width: 2, height: 50, hasViewBox: false },
      'zero-size-box',
    ],
    [
      'a CSS max-height with no height',
      {},
      { 'max-height': 1 },
      { width: undefined, height: 1, hasViewBox: false },
      'zero-size-box',
    ],
    [
      'a CSS max-width over the attribute',
      { width: '100' },
      { 'max-width': 200 },
      { width: 100, height: undefined, hasViewBox: false },
      undefined,
    ],
  ])('%s', (_name, attribs, css, box, hiddenBy) => {
    expect(svg('svg', attribs, undefined, css)).toEqual({ hiddenBy, box, doubts: [] });
  });
});

describe('SVG elements', () => {
  it.each([
    'desc',
    'title',
    'metadata',
    'defs',
    'symbol',
    'clippath',
    'mask',
    'pattern',
    'marker',
    'lineargradient',
    'radialgradient',
    'filter',
    'style',
    'script',
  ])('<%s> is not drawn', (name) => {
    expect(svg(name, {}, frame)).toEqual({ hiddenBy: 'not-rendered', box: frame, doubts: [] });
  });

  it.each<[string, Record<string, string>]>([
    ['textpath', {}],
    ['text', { dx: '1' }],
    ['text', { dy: '1' }],
    ['text', { rotate: '1' }],
    ['tspan', { dx: '1' }],
    ['tspan', { dy: '1' }],
    ['tspan', { rotate: '1' }],
  ])('<%s> %j cannot be placed', (name, attribs) => {
    expect(svg(name, { x: '10', y: '20', ...attribs }, frame)).toEqual({
      hiddenBy: undefined,
      box: frame,
      doubts: [`SVG <${name}> placement`],
    });
  });

  it.each<[string, Record<string, string>]>([
    ['g', { x: '-500', y: '-500', dx: '1' }],
    ['tspan', {}],
    ['rect', { x: '500' }],
  ])('<%s> %j is drawn where its parent is', (name, attribs) => {
    expect(svg(name, attribs, frame)).toEqual({ hiddenBy: undefined, box: frame, doubts: [] });
  });
});

describe('SVG text placed against its <svg>', () => {
  it.each<[string, string, Record<string, string>, Box | undefined, string | undefined, string[]]>([
    ['inside', 'text', { x: '10', y: '20' }, frame, undefined, []],
    ['a tspan inside', 'tspan', { x: '10', y: '20' }, frame, undefined, []],
    ['a tspan with only x, at y 0', 'tspan', { x: '10' }, frame, 'off-screen', []],
    ['a tspan with only y, at x 0', 'tspan', { y: '20' }, frame, undefined, []],
    ['a tspan with only y, above the top', 'tspan', { y: '0' }, frame, 'off-screen', []],
    ['at x 99', 'text', { x: '99', y: '20' }, frame, undefined, []],
    ['at x 100, the right edge', 'text', { x: '100', y: '20' }, frame, 'off-screen', []],
    ['at y 0, above the top', 'text', { x: '10' }, frame, 'off-screen', []],
    ['at y 0.5', 'text', { x: '10', y: '0.5' }, frame, undefined, []],
    ['with its top 1 above the bottom', 'text', { x: '10', y: '65' }, frame, undefined, []],
    ['with its top at the bottom', 'text', { x: '10', y: '66' }, frame, 'off-screen', []],
    ['at x −99', 'text', { x: '-99', y: '20' }, frame, undefined, ['SVG text placement']],
    ['at x −100', 'text', { x: '-100', y: '20' }, frame, 'off-screen', []],
    ['at the first of a list of x', 'text', { x: ' 150 10', y: '20,30' }, frame, 'off-screen', []],
    ['at the first of a comma list', 'text', { x: '10,150', y: '20' }, frame, undefined, []],
    ['an x that cannot be read', 'text', { x: '1em', y: '20' }, frame, undefined, ['SVG text placement']],
    ['a y that cannot be read', 'text', { x: '1', y: '50%' }, frame, undefined, ['SVG text placement']],
    ['outside any <svg>', 'text', { x: '10', y: '20' }, undefined, undefined, ['SVG text placement']],
    ['in a viewBox', 'text', { x: '10', y: '20' }, { ...frame, hasViewBox: true }, undefined, ['SVG text placement']],
    [
      'in an <svg> of no width',
      'text',
      { x: '10', y: '20' },
      { ...frame, width: undefined },
      undefined,
      ['SVG text placement'],
    ],
    [
      'in an <svg> of no height',
      'text',
      { x: '10', y: '20' },
      { ...frame, height: undefined },
      undefined,
      ['SVG text placement'],
    ],
  ])('%s', (_name, name, attribs, parent, hiddenBy, doubts) => {
    expect(svg(name, attribs, parent)).toEqual({ hiddenBy, box: parent, doubts });
  });
});
