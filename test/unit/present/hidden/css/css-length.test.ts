import { describe, expect, it } from 'vitest';
import { resolveLength, type LengthBasis } from '../../../../../src/present/hidden/css/css-length.js';

const basis: LengthBasis = {
  fontPx: 20,
  rootFontPx: 16,
  percentOf: 200,
  viewportWidth: 1000,
  viewportHeight: 500,
  isQuirks: false,
};

describe('lengths an attacker writes to hide text, evaluated', () => {
  it.each<[string, number | undefined]>([
    ['1pc', 16],
    ['2.54cm', 96],
    ['25.4mm', 96],
    ['101.6q', 96],
    ['72pt', 96],
    ['2ex', 20],
    ['2ch', 20],
    ['10cap', 140],
    ['1ic', 20],
    ['1lh', 24],
    ['1rlh', 19.2],
    ['10vh', 50],
    ['10vmin', 50],
    ['10vmax', 100],
    ['1PX', 1],
    ['  3px  ', 3],
    ['+3px', 3],
    ['.5px', 0.5],
    ['5.px', 5],
    ['1e-1px', 0.1],
    ['1E+1px', 10],
    ['1xyz', undefined],
    ['calc(10px - 4px)', 6],
    ['calc(10px + -4px)', 6],
    ['calc(2 * 3px)', 6],
    ['calc(3px * 2)', 6],
    ['calc(3px * 2px)', undefined],
    ['calc(12px / 4)', 3],
    ['calc(12px / 2 / 3)', 2],
    ['calc(12px / 0)', undefined],
    ['calc(12px / 2px)', undefined],
    ['calc(2 * 3 * 1px)', 6],
    ['calc(1px - 2px - 3px)', -4],
    ['calc(1px + 2px * 3)', 7],
    ['calc(10px - 5)', undefined],
    ['calc(10px +)', undefined],
    ['calc(10px *)', undefined],
    ['calc(2 * 3)', undefined],
    // calc() of numbers is a number, which no length property takes, zero or not.
    ['calc(0 * 3)', undefined],
    ['calc((2px)', undefined],
    ['calc(2px))', undefined],
    ['calc(2px) 3px', undefined],
    // Parentheses and sums belong inside calc(): a browser drops `(2px)` as it drops `1px + 1px`.
    ['(2px)', undefined],
    ['min(10px, 5px, 7px)', 5],
    ['max(1px, 9px, 3px)', 9],
    ['min(10px)', 10],
    ['min(10px, 5)', undefined],
    ['min(10px, )', undefined],
    ['min(10px, 5px', undefined],
    ['clamp(1px, 5px, 10px)', 5],
    ['clamp(1px, 50px, 10px)', 10],
    ['clamp(1px, 5px)', undefined],
    ['clamp(1px, 2px, 3px, 4px)', undefined],
    ['foo(1px)', undefined],
    ['0%', 0],
    ['-0.5%', -1],
    [`calc(${'('.repeat(15)}1px${')'.repeat(15)})`, 1],
    [`calc(${'('.repeat(16)}1px${')'.repeat(16)})`, undefined],
    [`calc(${' '.repeat(503)}1px)`, 1],
    [`calc(${' '.repeat(504)}1px)`, undefined],
    ['', undefined],
    ['1e400px', undefined],
  ])('resolves %j', (text, expected) => {
    const value = resolveLength(text, basis);
    if (expected === undefined) expect(value).toBeUndefined();
    else expect(value).toBeCloseTo(expected, 9);
  });

  it('leaves a percentage unknown without a basis, except zero', () => {
    const none = { ...basis, percentOf: undefined };
    expect(resolveLength('50%', none)).toBeUndefined();
    expect(resolveLength('0%', none)).toBe(0);
    expect(resolveLength('calc(0% - 9999px)', none)).toBe(-9999);
  });

  it('reads a unitless number as px in quirks mode only, and zero always', () => {
    expect(resolveLength('-5', { ...basis, isQuirks: true })).toBe(-5);
    expect(resolveLength('-5', basis)).toBeUndefined();
    expect(resolveLength('0', basis)).toBe(0);
    expect(resolveLength('calc(0)', basis)).toBeUndefined();
    expect(resolveLength('calc(5)', { ...basis, isQuirks: true })).toBeUndefined();
  });
});
