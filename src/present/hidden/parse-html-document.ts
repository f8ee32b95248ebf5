import { DomHandler, type ChildNode, type Document, type ParentNode, type ProcessingInstruction } from 'domhandler';
import { Parser } from 'htmlparser2';

export interface HtmlDocumentLimits {
  /** UTF-8 bytes of HTML read at most; the rest is not parsed. */
  maxBytes: number;
  /** Element nesting kept at most; deeper elements become children of the deepest kept one. */
  maxDepth: number;
  /** Nodes kept at most; later ones are dropped. */
  maxNodes: number;
}

export interface ParsedHtml {
  document: Document;
  /** No doctype or a legacy one: classes and ids match case-insensitively, tables reset the font size. */
  isQuirks: boolean;
  isTruncated: boolean;
  limitsReached: ('depth-flattened' | 'nodes-capped')[];
}

/**
 * A DOM that no input can make deep or huge: past `maxDepth` an element is attached to the deepest kept
 * one, as Blink does past 512 levels, so walks that recurse (domutils, html-to-text) stay within the stack.
 */
class BoundedHandler extends DomHandler {
  private nodes = 0;
  isFlattened = false;
  isCapped = false;

  constructor(private readonly limits: HtmlDocumentLimits) {
    super();
  }

  override onopentag(name: string, attribs: Record<string, string>): void {
    const top = this.tagStack[this.tagStack.length - 1] as ParentNode;
    // A dropped or flattened element keeps the parser's open/close pairs balanced with a stand-in.
    if (!this.admit()) {
      this.tagStack.push(top);
      return;
    }
    super.onopentag(name, attribs);
    if (this.tagStack.length > this.limits.maxDepth + 1) {
      this.isFlattened = true;
      this.tagStack[this.tagStack.length - 1] = top;
    }
  }

  override ontext(data: string): void {
    if (this.admit()) super.ontext(data);
  }

  override oncomment(data: string): void {
    if (this.admit()) super.oncomment(data);
  }

  override onprocessinginstruction(name: string, data: string): void {
    if (this.admit()) super.onprocessinginstruction(name, data);
  }

  private admit(): boolean {
    if (this.nodes >= this.limits.maxNodes) {
      this.isCapped = true;
      return false;
    }
    this.nodes++;
    return true;
  }
}

/**
 * htmlparser2's stack of open tag names, counted per name: an end tag for an element not open costs
 * O(1), not a scan (deep nesting then stray end tags was quadratic). htmlparser2 8 only pushes, pops, indexes and
 * calls lastIndexOf.
 */
class IndexedTagStack extends Array<string> {
  private readonly counts = new Map<string, number>();

  override push(...names: string[]): number {
    for (const name of names) this.counts.set(name, (this.counts.get(name) ?? 0) + 1);
    return super.push(...names);
  }

  override pop(): string | undefined {
    const name = super.pop();
    if (name !== undefined) this.counts.set(name, (this.counts.get(name) ?? 1) - 1);
    return name;
  }

  override lastIndexOf(name: string): number {
    return this.counts.get(name) ? super.lastIndexOf(name) : -1;
  }
}

/** Parses mail HTML with htmlparser2 within `limits`. */
export function parseHtmlDocument(html: string, limits: HtmlDocumentLimits): ParsedHtml {
  let input = html;
  let isTruncated = false;
  if (Buffer.byteLength(html) > limits.maxBytes) {
    // A cut inside a multi-byte character decodes to U+FFFD; that one character is dropped.
    input = Buffer.from(html)
      .subarray(0, limits.maxBytes)
      .toString('utf8')
      .replace(/\uFFFD$/, '');
    isTruncated = true;
  }
  const handler = new BoundedHandler(limits);
  // htmlparser2's defaults for HTML, spelt out: a changed default must not change what is parsed.
  // Stryker disable next-line ObjectLiteral: equal to the defaults, so an empty object parses alike
  const parser = new Parser(handler, {
    decodeEntities: true,
    lowerCaseTags: true,
    lowerCaseAttributeNames: true,
    recognizeSelfClosing: false,
  });
  (parser as unknown as { stack: string[] }).stack = new IndexedTagStack();
  parser.end(input);
  const limitsReached: ParsedHtml['limitsReached'] = [];
  if (handler.isFlattened) limitsReached.push('depth-flattened');
  if (handler.isCapped) limitsReached.push('nodes-capped');
  return { document: handler.root, isQuirks: isQuirks(handler.root.children), isTruncated, limitsReached };
}

// Public identifiers that put a browser in quirks mode (HTML §13.2.6.4.1), the ones mail carries.
const quirkyPublicIds = [
  '-//w3c//dtd html 3',
  '-//w3c//dtd html 4.0 transitional',
  '-//w3c//dtd html 4.0 frameset',
  '-//ietf//dtd html',
  '-//w3o//dtd w3 html',
];
const quirkyWithoutSystemId = ['-//w3c//dtd html 4.01 transitional', '-//w3c//dtd html 4.01 frameset'];

function isQuirks(nodes: ChildNode[]): boolean {
  const doctype = nodes.find(
    (n): n is ProcessingInstruction => n.type === 'directive' && n.name.toLowerCase() === '!doctype',
  );
  if (!doctype) return true;
  const text = doctype.data.toLowerCase();
  if (!/^!doctype\s+html\b/.test(text)) return true;
  const [publicId, systemId] = [...text.matchAll(/"([^"]*)"|'([^']*)'/g)].map((m) => m[1] ?? m[2]);
  if (!/\bpublic\b/.test(text) || publicId === undefined) return false;
  if (quirkyPublicIds.some((prefix) => publicId.startsWith(prefix))) return true;
  return systemId === undefined && quirkyWithoutSystemId.some((prefix) => publicId.startsWith(prefix));
}
