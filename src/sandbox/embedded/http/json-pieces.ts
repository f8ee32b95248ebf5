/**
 * V8 keeps a string over 128 KiB in its large-object space, where making one (as the socket does
 * when it flattens JSON.stringify's output) cost ~3 ms on a busy machine against ~0.1 ms at 125 KB.
 * A large answer, such as a header section near the cap asked for whole, is therefore serialised in
 * pieces each well under that size, wherever the value's own structure allows.
 */
const pieceChars = 32 * 1024;

/** The UTF-8 bytes of JSON.stringify(value) as chunks of about `pieceChars` characters at most, except single large strings. */
export function jsonChunks(value: unknown): Buffer[] {
  const pieces: string[] = [];
  const text = JSON.stringify(value) as string | undefined;
  if (text === undefined) return [];
  pushPieces(value, text, pieces);
  const chunks: Buffer[] = [];
  let chunk = '';
  for (const piece of pieces) {
    if (chunk.length && chunk.length + piece.length > pieceChars) {
      chunks.push(Buffer.from(chunk));
      chunk = '';
    }
    chunk += piece;
  }
  if (chunk.length) chunks.push(Buffer.from(chunk));
  return chunks;
}

// Pieces concatenate to exactly `text`: JSON.stringify's own output for every leaf and every
// container small enough, its rules (key order, skipped and null-ed entries) for the rest.
function pushPieces(node: unknown, text: string, pieces: string[]): void {
  if (text.length <= pieceChars || !isPlainContainer(node)) {
    pieces.push(text);
    return;
  }
  if (Array.isArray(node)) {
    pieces.push('[');
    node.forEach((item: unknown, index) => {
      if (index) pieces.push(',');
      pushPieces(item, (JSON.stringify(item) as string | undefined) ?? 'null', pieces);
    });
    pieces.push(']');
    return;
  }
  const record = node as Record<string, unknown>;
  let separator = '{';
  for (const key of Object.keys(record)) {
    const entry = record[key];
    const entryText = JSON.stringify(entry) as string | undefined;
    if (entryText === undefined) continue;
    pieces.push(`${separator}${JSON.stringify(key)}:`);
    separator = ',';
    pushPieces(entry, entryText, pieces);
  }
  pieces.push(separator === '{' ? '{}' : '}');
}

function isPlainContainer(node: unknown): node is object {
  if (typeof node !== 'object' || node === null) return false;
  if (typeof (node as { toJSON?: unknown }).toJSON === 'function') return false;
  if (Array.isArray(node)) return true;
  const prototype: unknown = Object.getPrototypeOf(node);
  return prototype === Object.prototype || prototype === null;
}
