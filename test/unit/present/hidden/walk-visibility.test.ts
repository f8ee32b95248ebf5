import { beforeAll, describe, expect, it } from 'vitest';
import { visibilityLimits } from '../../../../src/present/hidden/analyse-html.js';
import { StyleRuleMatcher } from '../../../../src/present/hidden/css/match-style-rules.js';
import { VariableWork } from '../../../../src/present/hidden/css/resolve-css-variables.js';
import { StyleMemo } from '../../../../src/present/hidden/css/style-memo.js';
import { parseHtmlDocument } from '../../../../src/present/hidden/parse-html-document.js';
import { walkVisibility } from '../../../../src/present/hidden/walk-visibility.js';
import { htmlToText, prepareHtmlToText } from '../../../../src/present/html-to-text.js';
import { see } from './see-html.js';

beforeAll(async () => {
  await prepareHtmlToText('text/html');
});

/** The walk itself, without analyseHtml's own trimming of what it reports (HTML without <style> only). */
function walk(html: string): ReturnType<typeof walkVisibility> {
  const parsed = parseHtmlDocument(html, visibilityLimits);
  const matcher = new StyleRuleMatcher([], parsed.document.children, parsed.isQuirks, visibilityLimits);
  return walkVisibility(parsed.document, matcher, {
    isQuirks: parsed.isQuirks,
    variables: new VariableWork(visibilityLimits.maxVariableChars),
    memo: new StyleMemo(),
  });
}

describe('the hidden text, run by run', () => {
  it('puts runs hidden by different techniques on lines of their own, and joins runs of one technique', async () => {
    const result = await see(
      '<p>Hi <span style="display:none">send the</span><span style="display:none"> keys</span>' +
        '<span style="font-size:0">to mallory</span> there</p>',
    );
    expect(result.hiddenText).toBe('send the keys\nto mallory');
    expect(result.visibleText).toBe('Hi there');
  });

  it('breaks a hidden line where visible text comes between two runs of one technique', async () => {
    const result = await see(
      '<p><span style="display:none">first</span> shown <span style="display:none">second</span></p>',
    );
    expect(result.hiddenText).toBe('first\nsecond');
    expect(result.visibleText).toBe('shown');
  });

  it('keeps the words of two hidden runs apart where visible white space lies between them', async () => {
    const result = await see(
      '<p><span style="display:none">first</span> <span style="display:none">second</span>\n<span style="font-size:0">third</span></p>',
    );
    expect(result.hiddenText).toBe('first second\nthird');
    expect(result.hiddenWords).toBe(3);
  });

  it('lists only the techniques that hid something, and white space hides nothing', () => {
    const result = walk('<p>a<span style="display:none">b</span><span style="font-size:0">  </span>c</p><p>plain</p>');
    expect([...result.charsByTechnique]).toEqual([['display:none', 1]]);
    expect(result.hiddenText).toBe('b');
  });

  it('lays out the blocks and line breaks of a hidden subtree, and not its inline elements', async () => {
    const result = await see(
      '<p>Shown</p><div style="display:none">a<b>b</b>c<p>para one</p><p>para two</p>x<br>y' +
        '<span style="display:inline-block">z</span></div><p>After</p>',
    );
    expect(result.hiddenText).toBe('abc\npara one\npara two\nx\nyz');
    expect(result.charsByTechnique).toEqual({ 'display:none': 20 });
  });

  it('counts non-whitespace characters per technique', async () => {
    const result = await see(
      '<p>x</p><div style="display:none">  one   two\nthree </div><div style="font-size:0">four five</div>',
    );
    expect(result.charsByTechnique).toEqual({ 'display:none': 11, 'font-size:0': 8 });
    expect(result.hiddenChars).toBe(19);
  });
});

describe('comments, scripts and conditional markup', () => {
  it('takes a comment inside a hidden subtree as a comment, and counts a script there as code', async () => {
    const result = await see(
      '<p>x</p><div style="display:none">before<!-- inner note --><script>var a = 1;</script>after</div>',
    );
    expect(result.hiddenText).toBe('before\ninner note\nafter');
    expect(result.charsByTechnique).toEqual({ 'display:none': 11, comment: 9 });
    expect(result.scriptChars).toBe(10);
  });

  it('adds the code of every <script> in and out of hidden subtrees', async () => {
    const result = await see(
      '<script>abc</script><p>x</p><script>defgh</script><div hidden><script>ij</script><script></script></div>',
    );
    expect(result.scriptChars).toBe(10);
    expect(result.hiddenText).toBe('');
    const styled = await see('<p>x</p><div hidden><style>.x{color:red}</style>y</div>');
    expect(styled.scriptChars).toBe(0);
    expect(styled.hiddenText).toBe('y');
  });

  it('never shows the text of <style> or <script>, nor keeps them in the visible HTML, whatever the CSS says', async () => {
    const result = await see(
      '<style>style, script { display:block } .x { color:red }</style><p>Body</p><script>var shown = 1;</script>',
    );
    expect(result.visibleText).toBe('Body');
    expect(result.hiddenText).toBe('');
    expect(result.visibleHtml).not.toContain('color:red');
    expect(result.visibleHtml).not.toContain('shown');
  });

  it.each([
    ['[if mso]>Outlook only<![endif]', 'an opening'],
    ['  [IF gte mso 9]>Outlook only<![ENDIF]', 'an opening in capitals after spaces'],
    ['<![endif]', 'the closing of a downlevel-revealed block'],
    [' [endif]', 'a bare closing'],
    ['[endif]', 'a bare closing without a space'],
    ['  [endif]', 'a bare closing after two spaces'],
  ])('leaves the Outlook conditional comment <!--%s--> (%s) out of the hidden text', async (comment) => {
    const result = await see(`<p>x</p><!--${comment}--><p>y</p>`);
    expect(result.hiddenText).toBe('');
    expect(result.techniques).toEqual([]);
  });

  it.each([
    ['see [if mso] below', 'a condition not at the start'],
    ['[iframe] send the keys', 'a word that begins with "if"'],
    ['<![endiff] send the keys', 'a longer closing word'],
    ['send the keys <![endif]', 'a closing not at the start'],
    ['keys<![endif]', 'a closing after a word'],
    ['send the keys [endif]', 'a bare closing not at the start'],
  ])('counts the comment <!--%s--> (%s) as hidden text', async (comment) => {
    const result = await see(`<p>x</p><!--${comment}--><p>y</p>`);
    expect(result.hiddenText).toBe(comment);
    expect(result.techniques).toEqual(['comment']);
  });

  it('removes invisible characters from visible text and counts them', async () => {
    const result = await see('<p>for\u200bward the in\u2060box</p>');
    expect(result.visibleText).toBe('forward the inbox');
    expect(result.charsByTechnique).toEqual({ 'invisible-characters': 2 });
    expect(result.visibleHtml).not.toContain('\u200b');
    const two = await see('<p>a\u200bb</p><p>c\u200bd</p>');
    expect(two.charsByTechnique).toEqual({ 'invisible-characters': 2 });
    expect([...walk('<p>plain text</p>').charsByTechnique]).toEqual([]);
  });
});

describe('visible text and its lines', () => {
  it('breaks lines at blocks and <br>, and not between inline boxes', async () => {
    const result = await see(
      '<div>one</div>two<br>three<span>four</span><b>five</b>' +
        '<div style="display:inline-block">six</div><div style="display:inline-flex">seven</div>' +
        '<div style="display:contents">eight</div><ruby>nine</ruby><p>ten</p>eleven',
    );
    expect(result.visibleText).toBe('one\ntwo\nthreefourfivesixseveneightnine\nten\neleven');
  });

  it('breaks lines around a block whose display names ruby inside it', async () => {
    const result = await see('<div>a<div style="display:block ruby">b</div>c</div>');
    expect(result.visibleText).toBe('a\nb\nc');
  });

  it('reads the presentation attributes of the <svg> and of a <foreignObject>', async () => {
    const faded = await see(`<p>x</p><svg width="400" height="40" opacity="0"><text x="0" y="20">keys</text></svg>`);
    expect(faded.hiddenText).toBe('keys');
    expect(faded.techniques).toEqual(['opacity:0']);
    const foreign = await see(
      '<p>x</p><svg width="400" height="100"><foreignObject width="400" height="100" opacity="0"><p>keys</p></foreignObject></svg>',
    );
    expect(foreign.hiddenText).toBe('keys');
    expect(foreign.techniques).toEqual(['opacity:0']);
    const gone = await see(
      '<p>x</p><svg width="400" height="100"><foreignObject width="400" height="100" display="none"><p>keys</p></foreignObject></svg>',
    );
    expect(gone.techniques).toEqual(['display:none']);
    const html = await see(
      '<p>x</p><svg width="400" height="100"><foreignObject width="400" height="100"><p opacity="0">keys</p></foreignObject></svg>',
    );
    expect(html.visibleText).toBe('x\nkeys');
  });

  it('judges each <svg> by its own size, though they are styled alike', async () => {
    const result = await see(
      '<p>x</p><svg width="0" height="0"><text x="0" y="20">none</text></svg><svg width="400" height="40"><text x="0" y="20">seen</text></svg>',
    );
    expect(result.hiddenText).toBe('none');
    expect(result.visibleText).toBe('x\nseen');
  });

  it('keeps in the visible HTML the text of an element hidden on one screen only', async () => {
    const result = await see(
      '<style>@media (max-width: 600px) { .m { font-size:1px } }</style><p class="m">Desktop only</p><p style="font-size:1px">tiny</p>',
    );
    expect(htmlToText(result.visibleHtml)).toBe('Desktop only');
    expect(result.visibleText).toBe('Desktop only');
  });

  it('keeps in the visible HTML a link around an image, which holds no text', async () => {
    const result = await see('<p>See <a href="https://example.test/offer"><img src="a.png" alt=""></a> here</p>');
    expect(result.visibleHtml).toContain('https://example.test/offer');
    expect(result.visibleHtml).toContain('<img');
  });

  it('tells the hidden attribute from another display:none of the browser’s own', async () => {
    const result = await see('<p>x</p><div hidden>one</div><dialog>two</dialog><div hidden>three</div>');
    expect(result.charsByTechnique).toEqual({ 'hidden-attribute': 8, 'display:none': 3 });
  });

  it('hides the text of a closed <details> but its first summary', async () => {
    const result = await see(
      '<details>loose text<summary>Summary</summary><summary>Second summary</summary><p>Body</p></details>',
    );
    expect(result.visibleText).toBe('Summary');
    expect(result.hiddenText).toBe('loose text\nSecond summary\nBody');
    expect(result.techniques).toEqual(['closed-details']);
  });

  it('shows an open <details> whole', async () => {
    const result = await see('<details open>loose<summary>Summary</summary><p>Body</p></details>');
    expect(result.hiddenText).toBe('');
    expect(result.visibleText).toBe('loose\nSummary\nBody');
  });

  it('judges each SVG <text> at its own position, though they are styled alike', async () => {
    const result = await see(
      '<svg width="200" height="20"><text x="10" y="15">inside</text><text x="400" y="15">outside</text>' +
        '<text x="20" y="15">inside again</text></svg>',
    );
    expect(result.visibleText).toBe('insideinside again');
    expect(result.hiddenText).toBe('outside');
  });

  it('tells elements apart by their presentational hints, their rules and their inline style', async () => {
    const result = await see(
      '<style>.w{color:#ffffff} .k{color:#000000}</style>' +
        '<p><font color="#ffffff">hint hidden</font> <font color="#000000">hint shown</font></p>' +
        '<p class="w">rule hidden</p><p class="k">rule shown</p>' +
        '<p style="color:#fff">inline hidden</p><p style="color:#000">inline shown</p>' +
        '<p class="k">rule shown again</p><p class="w">rule hidden again</p>',
    );
    expect(result.visibleText).toBe('hint shown\nrule shown\ninline shown\nrule shown again');
    expect(result.hiddenText).toBe('hint hidden\nrule hidden\ninline hidden\nrule hidden again');
  });

  it('weighs a rule under @media on its own screen only', async () => {
    const result = await see(
      '<style>@media (max-width: 600px) { .desk { display:none } } @media (min-width: 601px) { .mob { display:none } }' +
        ' .both { display:none }</style><p class="desk">Desktop copy</p><p class="mob">Phone copy</p><p class="both">Nowhere</p>',
    );
    expect(result.visibleText).toBe('Desktop copy\nPhone copy');
    expect(result.hiddenText).toBe('Nowhere');
  });

  it('does not report text hidden in one place as hidden in the next element styled the same way', async () => {
    const result = await see(
      '<div style="display:none"><p class="a">gone</p></div><p class="a">here</p>' +
        '<div style="font-size:0"><span>tiny</span></div><div><span>normal</span></div>',
    );
    expect(result.visibleText).toBe('here\nnormal');
    expect(result.hiddenText).toBe('gone\ntiny');
  });
});

describe('styling the walk cannot assess', () => {
  it('names a box that may lie over other text, unless the box is hidden itself', async () => {
    expect((await see('<p>a</p><div style="position:absolute;top:0">Over</div>')).unassessed).toEqual([
      'position: absolute (a box that may lie over other text)',
    ]);
    expect((await see('<p>a</p><div style="position:absolute;top:0;display:none">Over</div>')).unassessed).toEqual([]);
  });

  it('names unknown styling of visible text, and not of hidden text or of whitespace', async () => {
    expect((await see('<p style="mask-image:url(a.png)">Masked</p>')).unassessed).toEqual(['mask-image']);
    expect((await see('<p style="mask-image:url(a.png);display:none">Masked</p>')).unassessed).toEqual([]);
    expect((await see('<p style="mask-image:url(a.png);color:#fff">Masked</p>')).unassessed).toEqual([]);
    expect((await see('<p>a</p><div style="mask-image:url(a.png)"> </div>')).unassessed).toEqual([]);
  });

  it('names unknown styling on the phone only when the text is visible there', async () => {
    const result = await see(
      '<style>@media (max-width: 600px) { .m { mask-image:url(a.png) } }</style><p class="m">Masked on phones</p>',
    );
    expect(result.unassessed).toEqual(['mask-image']);
  });

  it('does not name unknown styling of text on a screen where that text is hidden', async () => {
    const result = await see(
      '<style>@media (max-width: 600px) { .m { mask-image:url(a.png); font-size:1px } }</style><p class="m">Desktop text</p>',
    );
    expect(result.visibleText).toBe('Desktop text');
    expect(result.unassessed).toEqual([]);
  });

  it('counts against a clipping box only the text it shows on each screen', async () => {
    // 50vw: 512px on the desktop (80 characters), 187.5px on the phone (30).
    const style = '<style>@media (max-width: 600px) { .m { font-size:1px } }</style>';
    const box = `<div style="height:20px;width:50vw;overflow:hidden">${'a'.repeat(20)}<span class="m">${'b'.repeat(20)}</span></div>`;
    expect((await see(style + box)).unassessed).toEqual([]);
    expect((await see(box)).unassessed).toEqual(['height with overflow hidden (text may be cut off)']);
  });

  it('names at most eight unknown stylings, whatever the mail holds', () => {
    const properties = Array.from({ length: 12 }, (_, i) => `x-unknown-${i}`);
    const html = properties.map((p) => `<p style="${p}:1">text</p>`).join('');
    const result = walk(html);
    expect([...result.unassessed]).toEqual(properties.slice(0, 8));
    const overlays = Array.from({ length: 12 }, (_, i) => `<p style="position:absolute;top:${i}px">t</p>`).join('');
    expect(walk(overlays).unassessed.size).toBe(1);
    expect(walk(html + overlays).unassessed.size).toBe(8);
    const clipped = Array.from(
      { length: 10 },
      (_, i) => `<div style="height:20px;overflow:hidden;width:40px">${'word '.repeat(20)}${i}</div>`,
    ).join('');
    expect(walk(html + clipped).unassessed.size).toBe(8);
    expect(walk(html.replaceAll('text', '') + clipped).unassessed.size).toBe(1);
  });

  it('names text past what a clipping box of fixed height shows, counted per box', async () => {
    const box = (text: string): string => `<div style="height:20px;width:100px;overflow:hidden">${text}</div>`;
    // One line (20px of 19.2px lines) of 100px at 16px shows 16 characters (0.4em a character, rounded up).
    expect((await see(box('a'.repeat(16)))).unassessed).toEqual([]);
    expect((await see(box('a'.repeat(17)))).unassessed).toEqual(['height with overflow hidden (text may be cut off)']);
    expect((await see(box('a'.repeat(10)) + box('b'.repeat(10)))).unassessed).toEqual([]);
    expect((await see(box(`${'a'.repeat(9)}<span>${'b'.repeat(9)}</span>`))).unassessed).toEqual([
      'height with overflow hidden (text may be cut off)',
    ]);
    expect((await see(box(`${'a'.repeat(10)}<span style="color:#fff">${'b'.repeat(10)}</span>`))).unassessed).toEqual(
      [],
    );
    expect((await see(box('a b '.repeat(8)))).unassessed).toEqual([]);
  });
});
