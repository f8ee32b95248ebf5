import { beforeAll, describe, expect, it } from 'vitest';
import {
  analyseHtml,
  prepareHtmlVisibility,
  type HtmlVisibility,
} from '../../../../src/present/hidden/analyse-html.js';
import { newsletterHtml } from '../../../../bench/token-cost-fixtures.js';
import { htmlToText, prepareHtmlToText } from '../../../../src/present/html-to-text.js';

async function see(html: string, maxBytes?: number): Promise<HtmlVisibility> {
  await prepareHtmlVisibility(html);
  return analyseHtml(html, maxBytes === undefined ? {} : { maxBytes });
}

beforeAll(async () => {
  await prepareHtmlToText('text/html');
});

// The shape marketing mail uses for the inbox preview line: hidden by several techniques at once,
// padded with zero-width non-joiners so the client's preview stops after it.
const preheader =
  '<div style="display:none;font-size:1px;color:#ffffff;line-height:1px;max-height:0px;max-width:0px;opacity:0;overflow:hidden;mso-hide:all;">' +
  'Your October statement is ready, plus three new offers' +
  '&zwnj;&nbsp;'.repeat(40) +
  '</div>';

describe('the report', () => {
  it('reports a newsletter pre-header by amount under the technique that hides it first', async () => {
    const result = await see(
      `<!DOCTYPE html><html><body>${preheader}<table><tr><td><h1>October statement</h1><p>Balance: 12.30</p></td></tr></table></body></html>`,
    );
    expect(result).toMatchObject({
      hiddenText: 'Your October statement is ready, plus three new offers',
      hiddenWords: 9,
      hiddenChars: 46,
      techniques: ['display:none'],
      charsByTechnique: { 'display:none': 46 },
      visibleText: 'October statement\nBalance: 12.30',
      truncated: false,
      limitsReached: [],
    });
  });

  it('finds nothing hidden in the token bench newsletter but its title, and converts its visible HTML to the same text', async () => {
    const html = newsletterHtml(43_000);
    const result = await see(html);
    expect(result.techniques).toEqual(['title']);
    expect(result.hiddenText).toBe('Weekly digest');
    expect(result.scriptChars).toBe(818);
    expect(htmlToText(result.visibleHtml)).toBe(htmlToText(html));
    expect(result.visibleText).toContain('Story 0: what changed this week');
  });

  it('lists techniques by the characters each hid, most first, and keeps hidden runs on their own lines', async () => {
    const result = await see(
      '<p>Visible start</p><div style="display:none">one two three four five</div><p>Visible middle</p>' +
        '<p style="color:#fff">six seven</p><span style="font-size:0">eight</span>',
    );
    expect(result.techniques).toEqual(['display:none', 'color-matches-background', 'font-size:0']);
    expect(result.hiddenText).toBe('one two three four five\nsix seven\neight');
    expect(result.charsByTechnique).toEqual({ 'display:none': 19, 'color-matches-background': 8, 'font-size:0': 5 });
    expect(result.hiddenWords).toBe(8);
    expect(result.visibleText).toBe('Visible start\nVisible middle');
  });

  it('drops a link whose text is hidden, so its address does not reach the converted text', async () => {
    const result = await see('<p>Hi <a href="https://evil.example/exfil" style="color:#ffffff">click</a> there</p>');
    expect(htmlToText(result.visibleHtml)).toBe('Hi there');
    expect(result.hiddenText).toBe('click');
  });

  it('counts ordinary comments and leaves Outlook conditional comments and scripts out of the hidden text', async () => {
    const result = await see(
      '<!--[if mso]><table><tr><td>Outlook button</td></tr></table><![endif]--><!--[if !mso]><!--><p>Button</p><!--<![endif]-->' +
        '<!-- note to the agent --><script>var x = "abc";</script><p>Body</p>',
    );
    expect(result.hiddenText).toBe('note to the agent');
    expect(result.charsByTechnique).toEqual({ comment: 14 });
    expect(result.scriptChars).toBe(14);
    expect(result.visibleText).toBe('Button\nBody');
  });

  it('analyses only the first maxBytes and says so', async () => {
    const html = `<p>${'a'.repeat(100)}</p><p style="display:none">after the cut</p>`;
    const result = await see(html, 80);
    expect(result.truncated).toBe(true);
    expect(result.visibleText).toBe('a'.repeat(77));
    expect(result.hiddenChars).toBe(0);
    const whole = await see(html);
    expect(whole.truncated).toBe(false);
    expect(whole.hiddenText).toBe('after the cut');
  });

  it('does not split a multi-byte character at the cut', async () => {
    const result = await see('<p>ééé</p>', 6);
    expect(result.visibleText).toBe('é');
  });

  it('refuses to analyse a <style> before prepareHtmlVisibility has loaded the parser, in a fresh module', async () => {
    const { vi } = await import('vitest');
    vi.resetModules();
    const fresh = await import('../../../../src/present/hidden/analyse-html.js');
    expect(() => fresh.analyseHtml('<style>p{}</style><p>x</p>')).toThrow(/before prepareHtmlVisibility/);
    expect(fresh.analyseHtml('<p>no style</p>').visibleText).toBe('no style');
  });
});
