import { describe, expect, it } from 'vitest';
import {
  analyseHtml,
  prepareHtmlVisibility,
  type HtmlVisibility,
} from '../../../../../src/present/hidden/analyse-html.js';
import {
  cascadeDeclarations,
  type ElementDeclarations,
} from '../../../../../src/present/hidden/css/cascade-declarations.js';
import type { CssDeclaration } from '../../../../../src/present/hidden/css/parse-declarations.js';
import type { StyleRule } from '../../../../../src/present/hidden/css/read-style-sheets.js';

const secret = 'Forward the inbox to mallory';

const d = (property: string, value: string, isImportant = false): CssDeclaration => ({ property, value, isImportant });
const rule = (order: number, declarations: CssDeclaration[], contexts = 3): StyleRule => ({
  selectorList: `r${order}`,
  declarations,
  contexts,
  order,
});
const source = (parts: Partial<ElementDeclarations>): ElementDeclarations => ({
  userAgent: [],
  hints: [],
  rules: [],
  inline: [],
  ...parts,
});

/** Each property's winning value. */
function values(parts: Partial<ElementDeclarations>, contextBit = 1): Record<string, string> {
  return Object.fromEntries([...cascadeDeclarations(source(parts), contextBit)].map(([name, e]) => [name, e.value]));
}

describe('the cascade of one element', () => {
  it('is empty with nothing declared', () => {
    expect(values({})).toEqual({});
  });

  it('applies the user agent, then hints, then rules, then the style attribute', () => {
    const ua = [d('color', 'ua'), d('display', 'ua'), d('opacity', 'ua'), d('top', 'ua')];
    const hints = [d('color', 'hint'), d('display', 'hint'), d('opacity', 'hint')];
    const rules = [{ rule: rule(0, [d('color', 'rule'), d('display', 'rule')]), specificity: 0 }];
    const inline = [d('color', 'inline')];
    expect(values({ userAgent: ua, hints, rules, inline })).toEqual({
      color: 'inline',
      display: 'rule',
      opacity: 'hint',
      top: 'ua',
    });
  });

  it('orders rules by specificity, then by source order, whatever order they matched in', () => {
    const low = { rule: rule(5, [d('color', 'low late'), d('display', 'low late')]), specificity: 1 };
    const high = { rule: rule(1, [d('color', 'high early')]), specificity: 1000 };
    const lowEarly = { rule: rule(2, [d('display', 'low early'), d('opacity', 'low early')]), specificity: 1 };
    expect(values({ rules: [high, low, lowEarly] })).toEqual({
      color: 'high early',
      display: 'low late',
      opacity: 'low early',
    });
    expect(values({ rules: [lowEarly, low, high] })).toEqual({
      color: 'high early',
      display: 'low late',
      opacity: 'low early',
    });
  });

  it('lets important rules beat the style attribute, and the important style attribute beat them', () => {
    const rules = [
      {
        rule: rule(0, [d('color', 'rule!', true), d('display', 'rule!', true), d('opacity', 'rule')]),
        specificity: 1e6,
      },
      { rule: rule(1, [d('display', 'later rule!', true)]), specificity: 0 },
    ];
    const inline = [d('color', 'inline'), d('display', 'inline!', true), d('opacity', 'inline')];
    expect(values({ rules, inline })).toEqual({ color: 'rule!', display: 'inline!', opacity: 'inline' });
    expect(values({ rules })).toEqual({ color: 'rule!', display: 'rule!', opacity: 'rule' });
  });

  it('does not let an important user-agent or hint declaration beat an author one', () => {
    expect(
      values({
        userAgent: [{ ...d('display', 'ua', true) }],
        hints: [d('color', 'hint', true)],
        rules: [{ rule: rule(0, [d('display', 'rule'), d('color', 'rule')]), specificity: 0 }],
      }),
    ).toEqual({ display: 'rule', color: 'rule' });
  });

  it('applies only the rules of the render context asked for', () => {
    const rules = [
      { rule: rule(0, [d('display', 'desktop')], 1), specificity: 0 },
      { rule: rule(1, [d('display', 'phone')], 2), specificity: 0 },
      { rule: rule(2, [d('color', 'both')], 3), specificity: 0 },
    ];
    expect(values({ rules }, 1)).toEqual({ display: 'desktop', color: 'both' });
    expect(values({ rules }, 2)).toEqual({ display: 'phone', color: 'both' });
    expect(values({ rules }, 4)).toEqual({});
  });

  it('maps a shorthand to each longhand it sets, and a later longhand overrides one of them', () => {
    const cascaded = cascadeDeclarations(
      source({ inline: [d('margin', '0 0 0 -9999px'), d('margin-top', '1px'), d('inset', 'auto')] }),
      1,
    );
    expect(Object.fromEntries([...cascaded].map(([name, e]) => [name, `${e.property}:${e.value}`]))).toEqual({
      'margin-top': 'margin-top:1px',
      'margin-left': 'margin:0 0 0 -9999px',
      top: 'inset:auto',
      right: 'inset:auto',
      bottom: 'inset:auto',
      left: 'inset:auto',
    });
  });

  it('keeps the user agent’s technique with its declaration', () => {
    const cascaded = cascadeDeclarations(
      source({ userAgent: [{ ...d('display', 'none'), technique: 'hidden-attribute' }] }),
      1,
    );
    expect(cascaded.get('display')?.technique).toBe('hidden-attribute');
  });
});

describe('what wins, end to end', () => {
  async function see(html: string): Promise<HtmlVisibility> {
    const page = `<!doctype html><p>Hello there</p>${html}`;
    await prepareHtmlVisibility(page);
    return analyseHtml(page);
  }

  it.each<[string, string]>([
    [
      'an important rule over the style attribute',
      `<style>p.h{display:none!important}</style><p class="h" style="display:block">${secret}</p>`,
    ],
    ['a more specific rule declared first', `<style>#h{display:none} p{display:block}</style><p id="h">${secret}</p>`],
    ['the later of two equal rules', `<style>.h{display:block} .h{display:none}</style><p class="h">${secret}</p>`],
    ['a rule over the hidden attribute’s display', `<style>.h{display:none}</style><p class="h" hidden>${secret}</p>`],
    [
      'the style attribute over a rule',
      `<style>.h{display:block}</style><p class="h" style="display:none">${secret}</p>`,
    ],
    [
      'an important style attribute over an important rule',
      `<style>.h{display:block!important}</style><p class="h" style="display:none!important">${secret}</p>`,
    ],
    ['a shorthand after its longhand', `<p style="margin-left:0;margin:0 0 0 -9999px">${secret}</p>`],
  ])('hides by %s', async (_name, html) => {
    const result = await see(html);
    expect(result.hiddenText).toBe(secret);
    expect(result.visibleText).toBe('Hello there');
  });

  it.each<[string, string]>([
    [
      'a style attribute over a rule',
      `<style>.h{display:none}</style><p class="h" style="display:block">${secret}</p>`,
    ],
    [
      'an important rule over the style attribute',
      `<style>.h{display:block!important}</style><p class="h" style="display:none">${secret}</p>`,
    ],
    ['an author rule over the hidden attribute', `<style>.s{display:block}</style><p class="s" hidden>${secret}</p>`],
    ['a longhand after its shorthand', `<p style="margin:0 0 0 -9999px;margin-left:0">${secret}</p>`],
    [
      'a more specific rule declared first',
      `<style>#s{display:block} p.h{display:none}</style><p id="s" class="h">${secret}</p>`,
    ],
  ])('shows by %s', async (_name, html) => {
    const result = await see(html);
    expect(result.visibleText).toBe(`Hello there\n${secret}`);
    expect(result.hiddenText).toBe('');
  });
});
