import { describe, expect, it } from 'vitest';
import { splitRuleBody, type RuleBodyItem } from '../../../../../src/present/hidden/css/split-rule-body.js';

const rule = (text: string): RuleBodyItem => ({ kind: 'rule', text });
const declarations = (text: string): RuleBodyItem => ({ kind: 'declarations', text });

describe('a rule body split into nested rules and declarations', () => {
  it.each<[string, RuleBodyItem[]]>([
    ['', []],
    ['   ', []],
    ['color: red', [declarations('color: red')]],
    ['.a { color: red }', [rule('.a { color: red }')]],
    ['.a{} font-size:0', [rule('.a{}'), declarations(' font-size:0')]],
    [
      '.a{} font-size:0; .b{x:y} display:none',
      [rule('.a{}'), declarations(' font-size:0;'), rule(' .b{x:y}'), declarations(' display:none')],
    ],
    ['a:b; c:d; .e{}', [declarations('a:b; c:d;'), rule(' .e{}')]],
    ['.a { .b { x:y } } z:w', [rule('.a { .b { x:y } }'), declarations(' z:w')]],
    ['.a { x: "}" } z:w', [rule('.a { x: "}" }'), declarations(' z:w')]],
    [".a { x: '}' } z:w", [rule(".a { x: '}' }"), declarations(' z:w')]],
    ['.a { x: "a\\"}" } z:w', [rule('.a { x: "a\\"}" }'), declarations(' z:w')]],
    ['.a { x: "}\n } z:w', [rule('.a { x: "}\n }'), declarations(' z:w')]],
    ['.a { /* } */ } z:w', [rule('.a { /* } */ }'), declarations(' z:w')]],
    ['.a { /* } */ } /* ; */ z:w', [rule('.a { /* } */ }'), declarations(' /* ; */ z:w')]],
    ['.a { x: 1 } /* unclosed { ', [rule('.a { x: 1 }'), declarations(' /* unclosed { ')]],
    ['.a\\{ { x: 1 } z:w', [rule('.a\\{ { x: 1 }'), declarations(' z:w')]],
    ['.a { x: 1 \\} } z:w', [rule('.a { x: 1 \\} }'), declarations(' z:w')]],
    ['x: url(a;b); .c{}', [declarations('x: url(a;b);'), rule(' .c{}')]],
    ['[data-a="}"] { x: 1 } z:w', [rule('[data-a="}"] { x: 1 }'), declarations(' z:w')]],
    ['.a:is(.b, .c) { x: 1 }', [rule('.a:is(.b, .c) { x: 1 }')]],
    ['.a { x: (} } z:w', [declarations('.a { x: (} } z:w')]],
    ['.a { x: 1 ', [declarations('.a { x: 1 ')]],
    ['x: 1; ; .a{}', [declarations('x: 1; ;'), rule(' .a{}')]],
    ['.a{}.b{}', [rule('.a{}'), rule('.b{}')]],
  ])('splits %j', (text, items) => {
    expect(splitRuleBody(text)).toEqual(items);
  });
});
