import type { AnyNode, Document, Element, ParentNode } from 'domhandler';
import { describe, expect, it } from 'vitest';
import { analyseHtml, prepareHtmlVisibility } from '../../../../src/present/hidden/analyse-html.js';
import { addImpliedRoot } from '../../../../src/present/hidden/add-implied-root.js';
import { parseHtmlDocument } from '../../../../src/present/hidden/parse-html-document.js';
import { renderVisibleHtml } from '../../../../src/present/hidden/render-visible-html.js';

const roomy = { maxBytes: 1_000_000, maxDepth: 100, maxNodes: 10_000 };

/** Every element with an id, and its first text child as `#id.text`. */
function byId(document: Document): Map<string, AnyNode> {
  const found = new Map<string, AnyNode>();
  const visit = (node: ParentNode): void => {
    for (const child of node.children) {
      if (child.type !== 'tag') continue;
      const id = (child as Element).attribs.id;
      if (id !== undefined) {
        found.set(id, child);
        const text = child.children.find((c) => c.type === 'text');
        if (text) found.set(`${id}.text`, text);
      }
      visit(child as Element);
    }
  };
  visit(document);
  return found;
}

/** Renders `html` leaving out the nodes named in `hidden` and dropping text-hidden elements named in `textHidden`. */
function rendered(
  html: string,
  hidden: string[],
  textHidden: string[] = [],
): { html: string; document: Document; ids: Map<string, AnyNode> } {
  const { document } = parseHtmlDocument(html, roomy);
  const ids = byId(document);
  const pick = (names: string[]): AnyNode[] => names.map((name) => ids.get(name) as AnyNode);
  const out = renderVisibleHtml(
    document,
    new Set(pick(hidden)),
    new Set(pick(textHidden) as Element[]),
    new Set<Element>(),
  );
  return { html: out, document, ids };
}

describe('the HTML a person sees', () => {
  it('leaves out hidden nodes and keeps the rest in order', () => {
    expect(rendered('<div><p id="a">a</p><p id="h">b</p><p id="c">c</p></div>', ['h']).html).toBe(
      '<div><p id="a">a</p><p id="c">c</p></div>',
    );
  });

  it('leaves the tree consistent: kept siblings linked to each other', () => {
    const { ids } = rendered('<div><p id="a">a</p><p id="h">b</p><p id="c">c</p><p id="h2">d</p></div>', ['h', 'h2']);
    const [a, c] = [ids.get('a'), ids.get('c')];
    expect(a?.prev).toBeNull();
    expect(a?.next).toBe(c);
    expect(c?.prev).toBe(a);
    expect(c?.next).toBeNull();
    expect((a?.parent as Element).children).toEqual([a, c]);
  });

  it('drops an element whose own text is hidden, with its address', () => {
    const result = rendered('<p>Seen <a id="l" href="https://x.test/hidden">hidden link</a></p>', ['l.text'], ['l']);
    expect(result.html).toBe('<p>Seen </p>');
  });

  it('drops it when only white space of it is left', () => {
    const result = rendered(
      '<p>Seen <a id="l" href="https://x.test/hidden">hidden<span> </span></a></p>',
      ['l.text'],
      ['l'],
    );
    expect(result.html).toBe('<p>Seen </p>');
  });

  it('keeps it when a child shows text', () => {
    const result = rendered('<p id="p">hidden <b>seen</b></p>', ['p.text'], ['p']);
    expect(result.html).toBe('<p id="p"><b>seen</b></p>');
  });

  it('drops it when only a processing instruction is left, which a browser reads as a comment', () => {
    const result = rendered(
      '<p>Seen <a id="l" href="https://x.test/hidden">hidden<?x data?></a></p>',
      ['l.text'],
      ['l'],
    );
    expect(result.html).toBe('<p>Seen </p>');
  });

  it('keeps an element with no text whose text is not hidden', () => {
    expect(rendered('<p>a<img src="x.png"><br></p>', []).html).toBe('<p>a<img src="x.png"><br></p>');
  });

  it('keeps a hidden node’s text from keeping its text-hidden parent', () => {
    const result = rendered('<a id="l" href="https://x.test/h"><span id="s">hidden</span></a>', ['s'], ['l']);
    expect(result.html).toBe('');
  });

  it('writes characters as themselves, escaping only markup', () => {
    expect(rendered('<p>café &lt;b&gt; &amp; “quoted”</p>', []).html).toBe('<p>café &lt;b&gt; &amp; “quoted”</p>');
  });

  it('leaves out the <html> and <body> it was told were implied', () => {
    const { document } = parseHtmlDocument('<!doctype html><p>a</p>', roomy);
    const implied = addImpliedRoot(document);
    expect(renderVisibleHtml(document, new Set(), new Set(), implied)).toBe('<!doctype html><p>a</p>');
  });
});

describe('a hidden link through the whole analysis', () => {
  it.each<[string, string, string]>([
    [
      'white text on a link',
      '<p>Pay here: <a href="https://evil.test/pay" style="color:#ffffff">pay now</a></p>',
      '<p>Pay here: </p>',
    ],
    [
      'a white link holding visible white space',
      '<p>Pay here: <a href="https://evil.test/pay" style="color:#fff">pay<span style="color:#000"> </span></a></p>',
      '<p>Pay here: </p>',
    ],
    [
      'a white paragraph with a visible link inside',
      '<p style="color:#fff">hidden <a href="https://ok.test/" style="color:#000">seen</a></p>',
      '<p style="color:#fff"><a href="https://ok.test/" style="color:#000">seen</a></p>',
    ],
  ])('%s', async (_name, html, visibleHtml) => {
    await prepareHtmlVisibility(html);
    expect(analyseHtml(html).visibleHtml).toBe(visibleHtml);
  });
});
