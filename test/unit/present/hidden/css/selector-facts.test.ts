import { parse } from 'css-what';
import { describe, expect, it } from 'vitest';
import {
  neverPseudo,
  selectorFacts,
  undecidedPseudo,
  type SelectorFacts,
} from '../../../../../src/present/hidden/css/selector-facts.js';

/** The facts of the first selector of `text`, in standards mode unless asked. */
function facts(text: string, isQuirks = false): SelectorFacts {
  return selectorFacts(parse(text)[0] ?? [], isQuirks);
}

/** The compiled selector written back as text, pseudo-classes by name and data. */
function compiledText(text: string): string {
  const write = (tokens: SelectorFacts['compiled']): string =>
    tokens
      .map((token) => {
        if (token.type === 'pseudo')
          return `:${token.name}${token.data === null ? '' : `(${Array.isArray(token.data) ? token.data.map(write).join(',') : token.data})`}`;
        if (token.type === 'tag') return token.name;
        if (token.type === 'attribute') return token.name === 'class' ? `.${token.value}` : `[${token.name}]`;
        if (token.type === 'pseudo-element') return `::${token.name}`;
        return ` ${token.type} `;
      })
      .join('');
  return write(facts(text).compiled);
}

describe('specificity (Selectors 4 §17, ids × 1e6 + classes × 1e3 + types)', () => {
  it.each<[string, number]>([
    ['*', 0],
    ['p', 1],
    ['P', 1],
    ['div p', 2],
    ['.a', 1e3],
    ['[href]', 1e3],
    ['[id=x]', 1e3],
    ['[id~=x]', 1e3],
    ['#x', 1e6],
    ['p#x.a.b[c]', 1e6 + 3e3 + 1],
    ['p::before', 2],
    ['p:before', 2],
    ['p:first-child', 1e3 + 1],
    ['p:nth-child(2)', 1e3 + 1],
    ['p:focus', 1e3 + 1],
    ['p:lang(en)', 1e3 + 1],
    ['p:made-up', 1e3 + 1],
    ['p:nth-child(2n of .a)', 1e3 + 1],
    ['p:is(.a, #b)', 1e6 + 1],
    ['p:matches(.a, b)', 1e3 + 1],
    ['p:not(.a)', 1e3 + 1],
    ['p:not(#a, b)', 1e6 + 1],
    ['p:has(> .a .b)', 2e3 + 1],
    ['p:where(#a, .b)', 1],
    ['p:is(::before, .b)', 1e3 + 1],
    ['p:is(:made-up, #b)', 1e6 + 1],
    ['p:is(p, :is(#a))', 1e6 + 1],
  ])('%s has %d', (selector, specificity) => {
    expect(facts(selector).specificity).toBe(specificity);
  });
});

describe('the index key: the rightmost compound’s id, else its first class, else its tag', () => {
  it.each<[string, boolean, string]>([
    ['*', false, '*'],
    ['[href]', false, '*'],
    ['[id=x]', false, '*'],
    ['[class~=x]', false, '*'],
    ['[id|=x]', false, '*'],
    ['p', false, 'p'],
    ['P', false, 'p'],
    ['p.a', false, '.a'],
    ['.a.b', false, '.a'],
    ['p.a#B', false, '#B'],
    ['p.a#B', true, '#b'],
    ['.A', true, '.a'],
    ['.A', false, '.A'],
    ['#x p', false, 'p'],
    ['p > .a', false, '.a'],
    ['.a ~ p', false, 'p'],
    ['p:is(.a)', false, 'p'],
    ['div.a p:not(#b)', false, 'p'],
  ])('%s (quirks %s) is filed under %s', (selector, isQuirks, key) => {
    expect(facts(selector, isQuirks).key).toBe(key);
  });
});

describe('what matching may cost', () => {
  it.each<[string, number, number, number, boolean]>([
    ['p', 1, 0, 0, false],
    ['div p', 2, 1, 0, false],
    ['div > p', 2, 0, 0, false],
    ['h1 + p', 2, 0, 0, false],
    ['h1 ~ p', 2, 0, 1, false],
    ['a b ~ c ~ d', 4, 1, 2, false],
    ['p:is(a b, c ~ d)', 5, 1, 1, false],
    ['p:not(a b c)', 4, 2, 0, false],
    ['div:has(p b)', 3, 1, 0, true],
    ['div:is(:has(p))', 3, 0, 0, true],
    ['div:is(::before, a b)', 3, 1, 0, false],
  ])(
    '%s: %d compounds, %d descendant and %d sibling combinators, :has() %s',
    (selector, compounds, descendants, siblings, hasHas) => {
      const found = facts(selector);
      expect([found.compounds, found.descendantCombinators, found.siblingCombinators, found.hasHas]).toEqual([
        compounds,
        descendants,
        siblings,
        hasHas,
      ]);
    },
  );
});

describe('problems', () => {
  it.each<[string, SelectorFacts['problem']]>([
    ['p', undefined],
    ['a < b', 'unsupported'],
    ['col || td', 'unsupported'],
    ['p:has(:has(b))', 'unsupported'],
    ['p:is(:has(b))', undefined],
    ['p:has(:is(:has(b)))', undefined],
    ['p:has(:not(:has(b)))', 'unsupported'],
    ['p:not(::before)', 'unsupported'],
    ['p:has(::before)', 'unsupported'],
    ['p:not(a < b)', 'unsupported'],
    ['p:is(::before)', undefined],
    ['p:where(a < b, c)', undefined],
    ['p::before', 'pseudo-element'],
    ['p::before a < b', 'unsupported'],
    ['a < b::before', 'unsupported'],
    ['p::before:hover', 'pseudo-element'],
    ['p::selection', 'pseudo-element'],
  ])('%s: %s', (selector, problem) => {
    expect(facts(selector).problem).toBe(problem);
  });

  it.each(['before', 'after', 'first-line', 'first-letter'])('reads the legacy :%s as the pseudo-element', (name) => {
    const found = facts(`p:${name}`);
    expect(found.problem).toBe('pseudo-element');
    expect(found.undecided).toEqual([]);
    expect(found.isBrowserDependent).toBe(false);
  });

  it('reads a legacy name with an argument as an unknown pseudo-class', () => {
    const found = facts('p:before(x)');
    expect(found.problem).toBeUndefined();
    expect(found.undecided).toEqual(['before']);
    expect(found.isBrowserDependent).toBe(true);
  });
});

describe('pseudo-classes decided, undecided or unknown', () => {
  it.each([
    'is(p)',
    'where(p)',
    'matches(p)',
    'not(p)',
    'has(p)',
    'root',
    'scope',
    'empty',
    'first-child',
    'last-child',
    'only-child',
    'first-of-type',
    'last-of-type',
    'only-of-type',
    'nth-child(2)',
    'nth-last-child(2)',
    'nth-of-type(2)',
    'nth-last-of-type(2)',
    'nth-child(odd)',
    'nth-of-type(2n of .a)',
    'any-link',
    'link',
    'visited',
    'hover',
    'active',
    'checked',
    'disabled',
    'enabled',
    'required',
    'optional',
    'defined',
  ])(':%s is compiled as written', (pseudo) => {
    const found = facts(`p:${pseudo}`);
    expect([found.undecided, found.isBrowserDependent, found.problem]).toEqual([[], false, undefined]);
    expect(found.compiled[1]).toMatchObject({ type: 'pseudo', name: pseudo.replace(/\(.*/, '') });
  });

  it.each([
    'focus',
    'focus-visible',
    'focus-within',
    'target',
    'target-within',
    'autofill',
    '-webkit-autofill',
    'user-invalid',
    'user-valid',
    'fullscreen',
    'modal',
    'popover-open',
    'host',
    'host-context',
    'host(.a)',
    'host-context(.a)',
  ])(':%s never matches at rest', (pseudo) => {
    const found = facts(`p:${pseudo}`);
    expect([found.undecided, found.isBrowserDependent, found.problem]).toEqual([[], false, undefined]);
    expect(found.compiled[1]).toMatchObject({ type: 'pseudo', name: neverPseudo, data: null });
    expect(found.specificity).toBe(1e3 + 1);
  });

  it.each([
    'read-only',
    'read-write',
    'dir(ltr)',
    'lang(en)',
    'default',
    'valid',
    'invalid',
    'in-range',
    'out-of-range',
    'indeterminate',
    'placeholder-shown',
    'open',
    'closed',
    'blank',
    'playing',
    'paused',
    'nth-child(2n+1 of .a)',
    'nth-last-child(1 OF .a)',
  ])(':%s is undecided, in every browser alike', (pseudo) => {
    const found = facts(`p:${pseudo}`);
    expect(found.undecided).toEqual([pseudo.replace(/\(.*/, '')]);
    expect(found.isBrowserDependent).toBe(false);
    expect(found.compiled[1]).toMatchObject({ type: 'pseudo', name: undecidedPseudo, data: '0' });
  });

  it.each(['made-up', '-webkit-any(.a)', 'state(x)', 'has-slotted', 'local-link'])(
    ':%s is unknown: undecided, and only some browsers keep its rule',
    (pseudo) => {
      const found = facts(`p:${pseudo}`);
      expect(found.undecided).toEqual([pseudo.replace(/\(.*/, '')]);
      expect(found.isBrowserDependent).toBe(true);
      expect(found.problem).toBeUndefined();
    },
  );

  it.each<[string, boolean]>([
    ['p:is(:made-up)', false],
    ['p:where(:made-up)', false],
    ['p:matches(:made-up)', false],
    ['p:not(:made-up)', true],
    ['p:has(:made-up)', true],
    ['p:is(:not(:made-up))', false],
    ['p:not(:is(:made-up))', false],
  ])('%s: only some browsers keep the rule: %s', (selector, isBrowserDependent) => {
    const found = facts(selector);
    expect(found.isBrowserDependent).toBe(isBrowserDependent);
    expect(found.undecided).toEqual(['made-up']);
  });

  it('numbers undecided pseudo-classes in the order met, nested lists included', () => {
    expect(facts('p:lang(en):is(:dir(ltr), :not(:valid)):open').undecided).toEqual(['lang', 'dir', 'valid', 'open']);
    expect(compiledText('p:lang(en):is(:dir(ltr), :not(:valid)):open')).toBe(
      `p:${undecidedPseudo}(0):is(:${undecidedPseudo}(1),:not(:${undecidedPseudo}(2))):${undecidedPseudo}(3)`,
    );
    expect(compiledText('p:is(.a, :is(.b, :lang(en)))')).toBe(`p:is(.a,:is(.b,:${undecidedPseudo}(0)))`);
    expect(compiledText('p:is(.a):has(.b:lang(en))')).toBe(`p:is(.a):has(.b:${undecidedPseudo}(0))`);
  });

  it('drops the invalid arguments of a forgiving list, and matches nothing when none is left', () => {
    expect(compiledText('p:is(::before, .b, a < b)')).toBe('p:is(.b)');
    expect(compiledText('p:where(::before)')).toBe(`p:${neverPseudo}`);
    expect(compiledText('p:is(:focus, .b)')).toBe(`p:is(:${neverPseudo},.b)`);
    expect(compiledText('p:not(.a, .b)')).toBe('p:not(.a,.b)');
    expect(compiledText('div p ~ a')).toBe('div descendant p sibling a');
  });
});
