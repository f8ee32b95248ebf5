import { describe, expect, it } from 'vitest';
import {
  analyseHtml,
  prepareHtmlVisibility,
  type HtmlVisibility,
} from '../../../../src/present/hidden/analyse-html.js';

/** What analyseHtml adds up from the walk: counts, the order of techniques, limits and what it names. */
async function see(html: string, maxBytes?: number): Promise<HtmlVisibility> {
  await prepareHtmlVisibility(html);
  return analyseHtml(html, maxBytes === undefined ? {} : { maxBytes });
}

describe('the counts of a visibility report', () => {
  it('adds up characters and words of every technique, the largest first', async () => {
    const result = await see(
      '<!doctype html><p>Seen</p><p style="display:none">two words</p><p style="font-size:0">three more words</p>',
    );
    expect(result.hiddenText).toBe('two words\nthree more words');
    expect(result.charsByTechnique).toEqual({ 'display:none': 8, 'font-size:0': 14 });
    expect(result.techniques).toEqual(['font-size:0', 'display:none']);
    expect(result.hiddenChars).toBe(22);
    expect(result.hiddenWords).toBe(5);
  });

  it('orders techniques by their characters whatever their place in the list', async () => {
    const result = await see('<!doctype html><p style="font-size:0">a</p><p style="display:none">many more words</p>');
    expect(result.techniques).toEqual(['display:none', 'font-size:0']);
  });

  it('reports nothing hidden as zero words', async () => {
    const result = await see('<!doctype html><p>Seen</p>');
    expect(result).toMatchObject({
      hiddenText: '',
      hiddenChars: 0,
      hiddenWords: 0,
      techniques: [],
      charsByTechnique: {},
    });
    expect(result.truncated).toBe(false);
    expect(result.limitsReached).toEqual([]);
  });

  it('counts script characters apart from hidden text', async () => {
    const result = await see('<!doctype html><p>Seen</p><script>var a=1;</script>');
    expect(result.scriptChars).toBe(8);
    expect(result.hiddenChars).toBe(0);
  });

  it('analyses only maxBytes of the HTML and says so', async () => {
    const result = await see('<!doctype html><p>Seen</p><p>cut off here</p>', 30);
    expect(result.truncated).toBe(true);
    expect(result.visibleText).toBe('Seen\nc');
  });
});

describe('style sheets', () => {
  it('applies a <style> anywhere in the document, in order', async () => {
    const result = await see(
      '<!doctype html><style>.a{display:none}</style><div><style>.b{display:none}</style><p class="a">x</p></div><p class="b">y</p>',
    );
    expect(result.hiddenText).toBe('x\ny');
  });

  it('leaves out a <style> inside a <template>', async () => {
    const result = await see(
      '<!doctype html><template><style>.a{display:none}</style></template><p class="a">Seen</p>',
    );
    expect(result.visibleText).toBe('Seen');
  });

  it('reads the media attribute of a <style>', async () => {
    const result = await see('<!doctype html><style media="print">.a{display:none}</style><p class="a">Seen</p>');
    expect(result.visibleText).toBe('Seen');
    expect(result.hiddenText).toBe('');
  });

  it('reads a <style> of several text pieces as one sheet', async () => {
    const result = await see(
      '<!doctype html><style>.a{display:none}<!-- -->.b{display:none}</style><p class="b">x</p>',
    );
    expect(result.hiddenText).toBe('x');
  });
});

describe('::first-line and ::first-letter', () => {
  it.each<[string, string[]]>([
    ['p::first-line{color:#fff}', ['::first-line']],
    ['p:first-letter{color:#fff}', ['::first-letter']],
    ['P::FIRST-LINE{color:#fff}', ['::first-line']],
    ['p::first-line{font-weight:bold}', []],
    ['p::first-line{--x:1}', []],
    ['p::first-line{font-weight:bold;color:#fff}', ['::first-line']],
    ['p::first-linex{color:#fff}', []],
    ['p::first-line{color:#fff} p::first-line{color:#eee}', ['::first-line']],
  ])('%s names %j', async (sheet, named) => {
    const result = await see(`<!doctype html><style>${sheet}</style><p>Seen</p>`);
    expect(result.unassessed).toEqual(named);
  });

  it('names at most eight styles it cannot assess', async () => {
    const properties = ['mask-image', 'backdrop-filter', 'mask', 'perspective', 'shape-outside', 'offset-path', 'zoom'];
    const html = `<!doctype html><style>p::first-line{color:red}</style>${properties
      .map((p, i) => `<p style="${p}:url(#m${i})">t${i}</p>`)
      .join('')}<p style="position:fixed">f</p><p style="position:sticky">s</p>`;
    const result = await see(html);
    expect(result.unassessed).toHaveLength(8);
    expect(result.unassessed[0]).toBe('::first-line');
  });
});
