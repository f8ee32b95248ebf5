import type { Document, Element } from 'domhandler';
import { describe, expect, it } from 'vitest';
import { addImpliedRoot } from '../../../../src/present/hidden/add-implied-root.js';
import { parseHtmlDocument, type HtmlDocumentLimits } from '../../../../src/present/hidden/parse-html-document.js';

const roomy: HtmlDocumentLimits = { maxBytes: 1_000_000, maxDepth: 100, maxNodes: 10_000 };

/** The tree as nested names: tags as `name[children]`, text as its data, others by type. */
function shape(nodes: Document['children']): string {
  return nodes
    .map((node) => {
      if (node.type === 'tag') return `${node.name}[${shape(node.children)}]`;
      if (node.type === 'text') return node.data;
      return node.type;
    })
    .join(',');
}

/** Every node's parent and siblings agree with where it sits. */
function expectLinked(parent: Document | Element): void {
  parent.children.forEach((child, i) => {
    expect(child.parent).toBe(parent);
    expect(child.prev).toBe(parent.children[i - 1] ?? null);
    expect(child.next).toBe(parent.children[i + 1] ?? null);
    if (child.type === 'tag') expectLinked(child);
  });
}

describe('quirks mode from the doctype', () => {
  it.each<[string, boolean]>([
    ['<p>x', true],
    ['<!doctype html><p>x', false],
    ['<!DOCTYPE HTML><p>x', false],
    ['<!doctype htmlx><p>x', true],
    ['<!doctype xhtml><p>x', true],
    ['<!doctype  html ><p>x', false],
    ['<!doctype html public "-//W3C//DTD HTML 4.0 Transitional//EN"><p>x', true],
    ['<!doctype html public "-//W3C//DTD HTML 3.2 Final//EN"><p>x', true],
    ['<!doctype html public "-//W3C//DTD HTML 4.0 Frameset//EN"><p>x', true],
    ['<!doctype html public "-//IETF//DTD HTML//EN"><p>x', true],
    ["<!doctype html public '-//W3O//DTD W3 HTML 3.0//EN'><p>x", true],
    ['<!doctype html public "-//W3C//DTD HTML 4.01 Transitional//EN"><p>x', true],
    ['<!doctype html public "-//W3C//DTD HTML 4.01 Frameset//EN"><p>x', true],
    [
      '<!doctype html public "-//W3C//DTD HTML 4.01 Transitional//EN" "http://www.w3.org/TR/html4/loose.dtd"><p>x',
      false,
    ],
    ['<!doctype html public "-//W3C//DTD HTML 4.01//EN"><p>x', false],
    ['<!doctype html public "-//W3C//DTD XHTML 1.0 Transitional//EN"><p>x', false],
    ['<!doctype html public><p>x', false],
    ['<!doctype html "-//W3C//DTD HTML 4.0 Transitional//EN"><p>x', false],
    ['<!doctype html republic "-//W3C//DTD HTML 4.0 Transitional//EN"><p>x', false],
    ['<!-- c --><!doctype html><p>x', false],
    ['<?xml version="1.0"?><p>x', true],
  ])('%s: quirks %s', (html, isQuirks) => {
    expect(parseHtmlDocument(html, roomy).isQuirks).toBe(isQuirks);
  });
});

describe('the limits of a parsed document', () => {
  it('keeps a document within its limits whole', () => {
    const parsed = parseHtmlDocument('<div><p>a</p><!--c--></div>', roomy);
    expect(shape(parsed.document.children)).toBe('div[p[a],comment]');
    expect(parsed.isTruncated).toBe(false);
    expect(parsed.limitsReached).toEqual([]);
  });

  it('reads at most maxBytes of UTF-8 and drops a character cut in two', () => {
    const parsed = parseHtmlDocument('<p>abcé', { ...roomy, maxBytes: 7 });
    expect(shape(parsed.document.children)).toBe('p[abc]');
    expect(parsed.isTruncated).toBe(true);
  });

  it('keeps a cut that falls between characters', () => {
    const parsed = parseHtmlDocument('<p>abcdé', { ...roomy, maxBytes: 7 });
    expect(shape(parsed.document.children)).toBe('p[abcd]');
    expect(parsed.isTruncated).toBe(true);
  });

  it('counts bytes, not characters', () => {
    // Nine characters, twelve bytes: within nine characters, past nine bytes.
    const parsed = parseHtmlDocument('<p>éééééé', { ...roomy, maxBytes: 9 });
    expect(shape(parsed.document.children)).toBe('p[ééé]');
    expect(parsed.isTruncated).toBe(true);
  });

  it('keeps input of exactly maxBytes whole', () => {
    const parsed = parseHtmlDocument('<p>abcd', { ...roomy, maxBytes: 7 });
    expect(shape(parsed.document.children)).toBe('p[abcd]');
    expect(parsed.isTruncated).toBe(false);
  });

  it('keeps multi-byte input whose characters are few but bytes within the cap', () => {
    const parsed = parseHtmlDocument('<p>éé', { ...roomy, maxBytes: 7 });
    expect(shape(parsed.document.children)).toBe('p[éé]');
    expect(parsed.isTruncated).toBe(false);
  });

  it('attaches elements past maxDepth to the deepest kept one', () => {
    const parsed = parseHtmlDocument('<div><div><span>a</span><b>b</b></div></div><i>c</i>', { ...roomy, maxDepth: 2 });
    expect(shape(parsed.document.children)).toBe('div[div[span[],a,b[],b]],i[c]');
    expect(parsed.limitsReached).toEqual(['depth-flattened']);
  });

  it('keeps a document exactly maxDepth deep as it is', () => {
    const parsed = parseHtmlDocument('<div><div>a</div></div>', { ...roomy, maxDepth: 2 });
    expect(shape(parsed.document.children)).toBe('div[div[a]]');
    expect(parsed.limitsReached).toEqual([]);
  });

  it('drops nodes past maxNodes, text, comments and instructions alike', () => {
    const parsed = parseHtmlDocument('<div>a</div><p>b</p><!--c--><?x y?>', { ...roomy, maxNodes: 3 });
    expect(shape(parsed.document.children)).toBe('div[a],p[]');
    expect(parsed.limitsReached).toEqual(['nodes-capped']);
  });

  it('keeps exactly maxNodes nodes', () => {
    const parsed = parseHtmlDocument('<div>a</div><!--c--><?x y?>', { ...roomy, maxNodes: 4 });
    expect(shape(parsed.document.children)).toBe('div[a],comment,directive');
    expect(parsed.limitsReached).toEqual([]);
  });

  it('drops a comment and an instruction past the cap', () => {
    expect(shape(parseHtmlDocument('<div>a</div><!--c-->', { ...roomy, maxNodes: 2 }).document.children)).toBe(
      'div[a]',
    );
    expect(shape(parseHtmlDocument('<div>a</div><?x y?>', { ...roomy, maxNodes: 2 }).document.children)).toBe('div[a]');
  });

  it('reports both limits when both are reached', () => {
    const parsed = parseHtmlDocument('<div><div><div>a</div></div></div><p>b</p>', {
      ...roomy,
      maxDepth: 1,
      maxNodes: 4,
    });
    expect(parsed.limitsReached).toEqual(['depth-flattened', 'nodes-capped']);
  });

  it('closes elements by name after deep nesting and stray end tags', () => {
    const html = `${'<b>'.repeat(50)}x${'</i>'.repeat(50)}${'</b>'.repeat(50)}<p>after</p>`;
    const parsed = parseHtmlDocument(html, roomy);
    expect(shape(parsed.document.children)).toBe(`${'b['.repeat(50)}x${']'.repeat(50)},p[after]`);
  });

  it('keeps open an element closed as often as it was opened, and no more', () => {
    const parsed = parseHtmlDocument('<div><div>a</div>b</div>c</div>d', roomy);
    expect(shape(parsed.document.children)).toBe('div[div[a],b],cd');
  });

  it('lowers the case of tags and attributes and decodes entities', () => {
    const parsed = parseHtmlDocument('<DIV STYLE="x">&amp;<br/>y</DIV>', roomy);
    const div = parsed.document.children[0] as Element;
    expect(div.name).toBe('div');
    expect(div.attribs).toEqual({ style: 'x' });
    expect(shape(parsed.document.children)).toBe('div[&,br[],y]');
  });
});

describe('the <html> and <body> a browser builds', () => {
  const rooted = (html: string): { shape: string; made: string[]; document: Document } => {
    const { document } = parseHtmlDocument(html, roomy);
    const made = addImpliedRoot(document);
    expectLinked(document);
    return { shape: shape(document.children), made: [...made].map((e) => e.name), document };
  };

  it.each<[string, string, string[]]>([
    ['<p>a</p>', 'html[body[p[a]]]', ['html', 'body']],
    ['<!doctype html><p>a</p>', 'directive,html[body[p[a]]]', ['html', 'body']],
    ['<html><p>a</p></html>', 'html[body[p[a]]]', ['body']],
    ['<html><head><title>t</title></head><p>a</p></html>', 'html[head[title[t]],body[p[a]]]', ['body']],
    ['<html><body><p>a</p></body></html>', 'html[body[p[a]]]', []],
    ['<html><body><p>a</p></body></html><p>b</p>', 'html[body[p[a],p[b]]]', []],
    ['<!--c--><html><body>a</body></html>', 'comment,html[body[a]]', []],
    ['<html><body>a</body></html>tail', 'html[body[a,tail]]', []],
    ['<!doctype html><html><body>a</body></html><!--c-->', 'directive,html[body[a]],comment', []],
  ])('%s', (html, expected, made) => {
    const result = rooted(html);
    expect(result.shape).toBe(expected);
    expect(result.made).toEqual(made);
  });
});
