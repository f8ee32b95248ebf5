import type { Document } from 'domhandler';
import { afterEach, describe, expect, it, vi } from 'vitest';
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

describe('the doctype a browser reads', () => {
  it.each<[string, string, boolean]>([
    // XHTML mail opens with an XML declaration; a browser reads it as a comment and the doctype after it still counts.
    ['an XML declaration before a standards doctype', '<?xml version="1.0"?><!doctype html><p>x', false],
    [
      'an XML declaration before a quirky doctype',
      '<?xml version="1.0"?><!doctype html public "-//IETF//DTD HTML//EN">',
      true,
    ],
    ['an XML declaration alone', '<?xml version="1.0"?><p>x', true],
    // The keyword must follow `!doctype`: the same words quoted inside another doctype are no html doctype.
    ['html named only inside a quoted id', '<!doctype foo "!doctype html"><p>x', true],
    ['html named only after another name', '<!doctype svg html><p>x', true],
  ])('%s', (_name, html, isQuirks) => {
    expect(parseHtmlDocument(html, roomy).isQuirks).toBe(isQuirks);
  });
});

describe('a cut at maxBytes', () => {
  it('drops only the cut character, not a replacement character the sender wrote earlier', () => {
    // `<p>` 3 bytes, U+FFFD 3, `ab` 2: cut at 7 between `a` and `b`.
    const parsed = parseHtmlDocument('<p>\uFFFDab', { ...roomy, maxBytes: 7 });
    expect(shape(parsed.document.children)).toBe('p[\uFFFDa]');
    expect(parsed.isTruncated).toBe(true);
  });

  it('drops the cut character and keeps an earlier replacement character', () => {
    // `<p>` 3, U+FFFD 3, `é` 2 cut after its first byte at 7.
    const parsed = parseHtmlDocument('<p>\uFFFDé', { ...roomy, maxBytes: 7 });
    expect(shape(parsed.document.children)).toBe('p[\uFFFD]');
  });

  it('keeps input one byte short of the cap whole, however many characters it has', () => {
    const parsed = parseHtmlDocument('<p>ab', { ...roomy, maxBytes: 6 });
    expect(shape(parsed.document.children)).toBe('p[ab]');
    expect(parsed.isTruncated).toBe(false);
  });
});

describe('elements past maxNodes', () => {
  it('drops an element opened past the cap, with its content', () => {
    const parsed = parseHtmlDocument('<div>a</div><p>b</p><i>c</i><b>d</b>', { ...roomy, maxNodes: 3 });
    expect(shape(parsed.document.children)).toBe('div[a],p[]');
    expect(parsed.limitsReached).toEqual(['nodes-capped']);
  });

  it('keeps the dropped element’s end tag from closing a kept one', () => {
    const parsed = parseHtmlDocument('<div>a<span>x</span>b</div>', { ...roomy, maxNodes: 2 });
    expect(shape(parsed.document.children)).toBe('div[a]');
  });
});

describe('how the parser reads tags', () => {
  it('does not self-close an element written with />', () => {
    // HTML ignores the slash on a non-void element: what follows is its content.
    const parsed = parseHtmlDocument('<div/>inside<span/>also', roomy);
    expect(shape(parsed.document.children)).toBe('div[inside,span[also]]');
  });
});

describe('the cost of end tags for elements that are not open', () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  /** How many times the parser searched its stack of open tags (a search is a scan of every open tag). */
  function stackScans(html: string): number {
    const spy = vi.spyOn(Array.prototype, 'lastIndexOf');
    parseHtmlDocument(html, roomy);
    const scans = spy.mock.contexts.filter((stack) => (stack as object).constructor.name !== 'Array').length;
    spy.mockRestore();
    return scans;
  }

  it('searches the stack for an open element, not for one never opened', () => {
    expect(stackScans('<b>x</b>')).toBe(1);
    expect(stackScans(`<b>x${'</i>'.repeat(20)}</b>`)).toBe(1);
  });

  it('stops searching for an element once every one of that name is closed', () => {
    expect(stackScans(`<b>x</b>${'</b>'.repeat(20)}`)).toBe(1);
    expect(stackScans(`<b><b>x</b></b>${'</b>'.repeat(20)}`)).toBe(2);
  });

  it('searches again for an element opened again', () => {
    expect(stackScans(`<b>x</b></b><b>y</b>`)).toBe(2);
  });
});
