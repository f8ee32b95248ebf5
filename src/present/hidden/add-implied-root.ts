import { Element, type ChildNode, type Document, type ParentNode } from 'domhandler';

const isTag = (node: ChildNode, name: string): node is Element =>
  node.type === 'tag' && (node as Element).name === name;

/**
 * Gives the document the <html> and <body> a browser always builds (HTML §13.2.6.4), which
 * htmlparser2 does not: without them `:root`, `html` and `body` rules would match no element,
 * or every top-level one, and what they set would not be inherited as it is on screen. Returns
 * the elements it made, which the visible HTML leaves out again.
 */
export function addImpliedRoot(document: Document): Set<Element> {
  const made = new Set<Element>();
  let html = document.children.find((node): node is Element => isTag(node, 'html'));
  if (!html) {
    html = new Element('html', {});
    made.add(html);
    adopt(
      html,
      document.children.filter((node) => node.type !== 'directive'),
    );
    adopt(document, [...document.children.filter((node) => node.type === 'directive'), html]);
  }
  const outside = new Set(
    document.children.filter((node) => node !== html && node.type !== 'directive' && node.type !== 'comment'),
  );
  let body = html.children.find((node): node is Element => isTag(node, 'body'));
  if (!body) {
    body = new Element('body', {});
    made.add(body);
    adopt(
      body,
      html.children.filter((node) => !isTag(node, 'head')),
    );
    adopt(html, [...html.children.filter((node) => isTag(node, 'head')), body]);
  }
  // Content after </html> or </body> is content of the body (HTML §13.2.6.4.19–22).
  adopt(
    document,
    document.children.filter((node) => !outside.has(node)),
  );
  adopt(body, [...body.children, ...outside]);
  return made;
}

/** Makes `children` the whole child list of `parent`, relinked. */
export function adopt(parent: ParentNode, children: ChildNode[]): void {
  parent.children = children;
  children.forEach((child, i) => {
    child.parent = parent;
    child.prev = children[i - 1] ?? null;
    child.next = children[i + 1] ?? null;
  });
}
