import { describe, expect, it } from 'vitest';
import {
  analyseHtml,
  prepareHtmlVisibility,
  type HtmlVisibility,
} from '../../../../src/present/hidden/analyse-html.js';

async function see(body: string): Promise<HtmlVisibility> {
  const html = `<!doctype html>${body}<p>Seen</p>`;
  await prepareHtmlVisibility(html);
  return analyseHtml(html);
}

describe('a line indented out of a box that does not wrap', () => {
  // CSS Text 4 makes white-space a shorthand: `collapse nowrap` is `nowrap`, and text-wrap(-mode) says the same alone.
  it.each<[string, string]>([
    ['white-space: nowrap', 'white-space:nowrap'],
    ['white-space: pre', 'white-space:pre'],
    ['white-space: collapse nowrap', 'white-space:collapse nowrap'],
    ['white-space: preserve nowrap', 'white-space:PRESERVE NOWRAP'],
    ['white-space: nowrap preserve-breaks', 'white-space:nowrap preserve-breaks'],
    ['text-wrap-mode: nowrap', 'text-wrap-mode:nowrap'],
    ['text-wrap: nowrap', 'text-wrap:nowrap'],
    ['text-wrap: nowrap balance', 'text-wrap:nowrap balance'],
    ['nowrap set by white-space and kept by an inherited text-wrap-mode', 'white-space:nowrap;text-wrap-mode:inherit'],
    ['white-space and text-wrap-mode that disagree', 'white-space:normal;text-wrap-mode:nowrap'],
  ])('%s is caught', async (_name, wrap) => {
    const result = await see(`<p style="text-indent:100%;${wrap};overflow:hidden">secret words</p>`);
    expect(result.hiddenText).toBe('secret words');
    expect(result.techniques).toEqual(['clipped']);
  });

  it.each<[string, string]>([
    ['white-space: inherit', 'white-space:inherit'],
    // A client that does not read these keeps the parent's nowrap: the text is hidden there.
    ['text-wrap-mode: wrap', 'text-wrap-mode:wrap'],
    ['white-space: preserve', 'white-space:preserve'],
  ])('inherits not wrapping from the parent through %s', async (_name, wrap) => {
    const result = await see(
      `<div style="text-wrap-mode:nowrap"><p style="text-indent:100%;overflow:hidden;${wrap}">secret words</p></div>`,
    );
    expect(result.hiddenText).toBe('secret words');
  });

  it.each<[string, string]>([
    ['white-space: normal', 'white-space:normal'],
    ['white-space: pre-wrap', 'white-space:pre-wrap'],
    ['white-space: preserve', 'white-space:preserve'],
    ['text-wrap: balance', 'text-wrap:balance'],
    ['text-wrap-mode: wrap', 'text-wrap-mode:wrap'],
    ['white-space: normal under a parent that does not wrap', 'white-space:normal'],
    ['white-space: initial under a parent that does not wrap', 'white-space:initial'],
  ])('%s wraps: the indent moves only the first line, the rest shows', async (name, wrap) => {
    const parent = name.includes('parent') ? 'white-space:nowrap' : '';
    const result = await see(
      `<div style="${parent}"><p style="text-indent:100%;${wrap};overflow:hidden">visible words</p></div>`,
    );
    expect(result.hiddenText).toBe('');
    expect(result.visibleText).toContain('visible words');
  });

  it('reads an indent as wide as the desktop screen as off it, and one pixel less as a doubt', async () => {
    expect((await see('<p style="text-indent:1024px;white-space:nowrap">secret words</p>')).techniques).toEqual([
      'off-screen',
    ]);
    const short = await see('<p style="text-indent:1023px;white-space:nowrap">secret words</p>');
    expect(short.hiddenText).toBe('');
    expect(short.unassessed).toEqual(['text-indent']);
  });
});

describe('mso-hide:all, which only Outlook on the desktop obeys', () => {
  it('is named for a block that shows on the desktop only', async () => {
    const result = await see(
      '<style>@media (max-width:600px){.m{display:none}}</style><div class="m" style="mso-hide:all">secret words</div>',
    );
    expect(result.visibleText).toContain('secret words');
    expect(result.unassessed).toEqual(['mso-hide:all (hidden in Outlook only)']);
  });

  it('is not named for a block that shows on the phone only', async () => {
    const result = await see(
      '<style>@media (min-width:601px){.m{display:none}}</style><div class="m" style="mso-hide:all">phone words</div>',
    );
    expect(result.visibleText).toContain('phone words');
    expect(result.unassessed).toEqual([]);
  });
});
