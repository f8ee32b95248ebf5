import { describe, expect, it } from 'vitest';
import type { Element } from 'domhandler';
import { visibilityLimits } from '../../../../../src/present/hidden/analyse-html.js';
import {
  budgetSpentDoubt,
  StyleRuleMatcher,
  type MatcherLimits,
} from '../../../../../src/present/hidden/css/match-style-rules.js';
import { prepareStyleSheets, readStyleSheets } from '../../../../../src/present/hidden/css/read-style-sheets.js';
import { parseHtmlDocument } from '../../../../../src/present/hidden/parse-html-document.js';
import { see } from '../see-html.js';

const items = (count: number): string =>
  Array.from({ length: count }, (_, i) => `<li>item${i + 1}</li>`).join('') + '<li><b>x</b></li>';

/** The items of a list of four (and a fifth holding one <b>) that a rule hides. */
async function hiddenItems(selector: string): Promise<string> {
  const result = await see(`<!DOCTYPE html><style>${selector}{display:none}</style><ul>${items(4)}</ul>`);
  return result.hiddenText;
}

describe('structural pseudo-classes, read from the position table', () => {
  it.each([
    ['li:first-child', 'item1'],
    ['li:last-child', 'x'],
    ['b:only-child', 'x'],
    ['li:only-child', ''],
    ['li:first-of-type', 'item1'],
    ['li:last-of-type', 'x'],
    ['b:only-of-type', 'x'],
    ['li:only-of-type', ''],
    ['li:nth-child(2)', 'item2'],
    ['li:nth-child(2n+1)', 'item1\nitem3\nx'],
    ['li:nth-last-child(2)', 'item4'],
    ['li:nth-of-type(3)', 'item3'],
    ['li:nth-last-of-type(1)', 'x'],
    ['li:nth-last-of-type(4)', 'item2'],
    ['li:nth-child(foo)', ''],
    ['li:nth-child(2), li:nth-child(bar)', 'item2'],
  ])('%s hides %j', async (selector, hidden) => {
    expect(await hiddenItems(selector)).toBe(hidden);
  });

  it('counts elements of other types as siblings, and types apart', async () => {
    const result = await see(
      '<!DOCTYPE html><style>p:first-of-type, span:last-of-type, p:nth-child(3), span:nth-of-type(1){color:#fff}</style>' +
        '<div><span>s1</span><p>p1</p><p>p2</p><span>s2</span><p>p3</p></div>',
    );
    expect(result.hiddenText).toBe('s1\np1\np2\ns2');
    expect(result.visibleText).toBe('p3');
  });
});

describe('which rules apply, and how strongly', () => {
  it('applies a rule at the specificity of its most specific matching selector', async () => {
    const result = await see(
      '<!DOCTYPE html><style>p, #x { color:#fff } .c { color:#000 } .c.d { color:#000 }</style>' +
        '<p id="x" class="c d">hidden by the id</p><p class="c d">shown by .c.d</p>',
    );
    expect(result.hiddenText).toBe('hidden by the id');
    expect(result.visibleText).toBe('shown by .c.d');
  });

  it('keeps the more specific match when a less specific one of the same rule comes later', async () => {
    const result = await see(
      '<!DOCTYPE html><style>#x.c, p { color:#fff } p.c { color:#000 }</style><p id="x" class="c">hidden</p>',
    );
    expect(result.hiddenText).toBe('hidden');
  });

  it('matches class names however they are separated, and each only once', async () => {
    const result = await see(
      '<!DOCTYPE html><style>.h{display:none}</style>' +
        '<p class="a\th">tab</p><p class="a\nh">newline</p><p class="  h  ">spaces</p><p class="h h">twice</p><p class="ah">not</p>',
    );
    expect(result.hiddenText).toBe('tab\nnewline\nspaces\ntwice');
    expect(result.visibleText).toBe('not');
  });

  it('matches ids and classes without regard to case in quirks mode only', async () => {
    const style = '<style>.HIDE{display:none} #GONE{display:none}</style>';
    const body = '<p class="hide">class</p><p id="gone">id</p><p class="Hide other">mixed</p>';
    expect((await see(`${style}${body}`)).hiddenText).toBe('class\nid\nmixed');
    expect((await see(`<!DOCTYPE html>${style}${body}`)).hiddenText).toBe('');
  });

  it('matches by tag and by the universal selector', async () => {
    const result = await see(
      '<!DOCTYPE html><style>em{display:none} *.q{display:none}</style><p>a<em>b</em><i class="q">c</i></p>',
    );
    expect(result.hiddenText).toBe('bc');
  });

  it('drops a whole rule with an unsupported selector, and skips a pseudo-element alone', async () => {
    const result = await see(
      '<!DOCTYPE html><style>p.a, p:made-up{display:none} p.b::before, p.b{display:none}</style><p class="a">kept</p><p class="b">dropped</p>',
    );
    expect(result.hiddenText).toBe('dropped');
  });

  it('skips selectors that are too long or chain siblings too far, and says so', async () => {
    const long = Array.from({ length: 13 }, () => 'div').join(' ');
    const twelve = Array.from({ length: 12 }, () => '*').join(' ');
    const result = await see(
      `<!DOCTYPE html><style>${long} p{display:none} ${twelve}{color:#fff} h1 ~ h2 ~ h3 ~ p{display:none} h1 ~ h2 ~ p.s{display:none}</style>` +
        '<h1>a</h1><h2>b</h2><h3>c</h3><p>shown</p><p class="s">hidden</p>',
    );
    expect(result.limitsReached).toEqual(['selector-too-complex']);
    expect(result.hiddenText).toBe('hidden');
  });
});

describe('the work budget', () => {
  async function matcherFor(css: string, html: string, limits: MatcherLimits) {
    await prepareStyleSheets('<style>');
    const parsed = parseHtmlDocument(html, visibilityLimits);
    const { rules } = readStyleSheets([{ text: css, media: undefined }], { maxChars: 10_000, maxRules: 100 });
    const matcher = new StyleRuleMatcher(rules, parsed.document.children, false, limits);
    const elements: Element[] = [];
    const stack = [...parsed.document.children];
    for (let node = stack.shift(); node; node = stack.shift())
      if (node.type === 'tag') {
        elements.push(node as Element);
        stack.unshift(...(node as Element).children);
      }
    return { matcher, elements };
  }

  it('charges one unit a simple test and stops matching for good past the budget', async () => {
    const { matcher, elements } = await matcherFor(
      '.a{color:red}',
      '<p class="a">1</p><p class="a">2</p><p class="a">3</p>',
      {
        maxCompounds: 12,
        workBudget: 2,
      },
    );
    const ps = elements.filter((e) => e.name === 'p');
    expect(matcher.match(ps[0] as Element)).toHaveLength(1);
    expect(matcher.match(ps[1] as Element)).toHaveLength(1);
    expect(matcher.limitsReached.size).toBe(0);
    // Past the budget, an element gets only what names its styling as not assessed.
    expect(matcher.match(ps[2] as Element)).toEqual([{ rule: budgetSpentDoubt, specificity: 0 }]);
    expect([...matcher.limitsReached]).toEqual(['selector-budget-spent']);
    expect(matcher.match(ps[0] as Element)).toEqual([{ rule: budgetSpentDoubt, specificity: 0 }]);
  });

  it('charges a descendant combinator by depth, a sibling combinator by siblings and :has() by the subtree', async () => {
    const html = '<div><div><div><p class="a">deep</p><p class="b">x</p><p class="b">y</p></div></div></div>';
    // <p> is at depth 3 (under three divs): 1 + 3 for `div .a`.
    const cost = async (css: string, budget: number, cls: string) => {
      const { matcher, elements } = await matcherFor(css, html, { maxCompounds: 12, workBudget: budget });
      const target = elements.find((e) => e.attribs.class === cls) as Element;
      return matcher.match(target).filter((m) => m.rule !== budgetSpentDoubt).length;
    };
    expect(await cost('div .a{color:red}', 4, 'a')).toBe(1);
    expect(await cost('div .a{color:red}', 3, 'a')).toBe(0);
    expect(await cost('div div .a{color:red}', 7, 'a')).toBe(1);
    expect(await cost('div div .a{color:red}', 6, 'a')).toBe(0);
    // Three siblings: 1 + 3 for `p ~ .b`.
    expect(await cost('p ~ .b{color:red}', 4, 'b')).toBe(1);
    expect(await cost('p ~ .b{color:red}', 3, 'b')).toBe(0);
    // The outer <div>, at depth 0, heads a subtree of six elements: 1 + 6 for `:has()`.
    const { matcher, elements } = await matcherFor('div:has(.a){color:red}', html, { maxCompounds: 12, workBudget: 7 });
    expect(matcher.match(elements.find((e) => e.name === 'div') as Element)).toHaveLength(1);
    const tight = await matcherFor('div:has(.a){color:red}', html, { maxCompounds: 12, workBudget: 6 });
    expect(tight.matcher.match(tight.elements.find((e) => e.name === 'div') as Element)).toEqual([
      { rule: budgetSpentDoubt, specificity: 0 },
    ]);
  });

  it('matches nothing when there are no rules', async () => {
    const { matcher, elements } = await matcherFor('', '<p class="a">1</p>', { maxCompounds: 12, workBudget: 0 });
    expect(matcher.match(elements[0] as Element)).toEqual([]);
    expect(matcher.limitsReached.size).toBe(0);
  });
});
