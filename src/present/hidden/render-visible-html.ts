import render from 'dom-serializer';
import type { AnyNode, Document, Element, ParentNode, Text } from 'domhandler';
import { adopt } from './add-implied-root.js';

const isParent = (node: AnyNode): node is ParentNode & Element => node.type === 'tag' || node.type === 'root';

/**
 * The document as HTML without what a person does not see. An element whose text is hidden where
 * it stands (white on white, zero font) is dropped when none of its text remains, so an empty
 * link or cell does not carry a hidden link's address into the converted text.
 */
export function renderVisibleHtml(
  document: Document,
  hidden: ReadonlySet<AnyNode>,
  textHidden: ReadonlySet<Element>,
  implied: ReadonlySet<Element>,
): string {
  const hasText = new Set<AnyNode>();
  const dropped = new Set<AnyNode>();
  // Iterative post-order: a parent is settled after its children.
  const stack: { node: AnyNode; isExit: boolean }[] = [{ node: document, isExit: false }];
  for (let frame = stack.pop(); frame; frame = stack.pop()) {
    const { node, isExit } = frame;
    if (!isParent(node)) {
      if (node.type === 'text' && (node as Text).data.trim() !== '') hasText.add(node);
      continue;
    }
    const parent = node as ParentNode;
    if (!isExit) {
      stack.push({ node, isExit: true });
      // Stryker disable next-line ConditionalExpression: a hidden child is left out of `kept` whole; walking it would only cost time
      for (const child of parent.children) if (!hidden.has(child)) stack.push({ node: child, isExit: false });
      continue;
    }
    const kept = parent.children.filter((child) => !hidden.has(child) && !dropped.has(child));
    adopt(parent, kept);
    if (kept.some((child) => hasText.has(child))) hasText.add(node);
    else if (textHidden.has(node as Element)) dropped.add(node);
  }
  // The <html> and <body> the analysis added are left out again: the mail did not have them.
  const unwrap = (nodes: AnyNode[]): AnyNode[] =>
    nodes.flatMap((node) => (implied.has(node as Element) ? unwrap((node as Element).children) : [node]));
  return render(unwrap(document.children), { encodeEntities: 'utf8' });
}
